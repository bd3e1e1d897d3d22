//! The README's quick start, as a new user copies it: its `Cargo.toml` lines, its
//! `src/main.rs` and its `build.rs`, in a fresh crate with a `public/` folder, build
//! without a warning, and a file added to `public/` afterwards reaches the binary.
//! The guides (`embed-runtime/src/guide/`) are doctests; the few examples rustdoc
//! cannot build there (they need hyper or `embed-assets-build`) build here.

use std::fs;
use std::path::Path;

use integration_tests::scratch::Crate;

/// The text of the first ```` ```lang ```` block after `heading` in the README.
fn block_after<'a>(readme: &'a str, heading: &str, lang: &str) -> &'a str {
    let section = &readme[readme.find(heading).expect("the README has the heading")..];
    let fence = format!("```{lang}\n");
    let start = section.find(&fence).expect("a code block in the section") + fence.len();
    let len = section[start..].find("```").expect("a closed code block");
    &section[start..start + len]
}

#[test]
fn the_quick_start_builds_as_written() {
    if !integration_tests::programs::slow("readme") {
        return;
    }
    let readme =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md")).unwrap();
    let manifest = block_after(&readme, "## Quick start", "toml");
    let main_rs = block_after(&readme, "## Quick start", "rust");
    let build_rs = block_after(&readme, "`build.rs`", "rust");
    assert!(manifest.contains("embed-assets = \"0.1\""), "{manifest}");
    assert!(
        manifest.contains("[build-dependencies]\nembed-assets-build = \"0.1\""),
        "{manifest}"
    );
    assert!(
        build_rs.contains("embed_assets_build::track(\"public\")"),
        "{build_rs}"
    );
    assert!(
        manifest.contains("[profile.dev.build-override]")
            && manifest.contains("[profile.release.build-override]"),
        "both profiles build the macro optimised:\n{manifest}"
    );
    assert!(
        main_rs.contains("#[embed_assets::embed(\"public\")]"),
        "{main_rs}"
    );
    // The same lines, with the dependency on this checkout instead of crates.io.
    let lines = manifest
        .trim_start()
        .strip_prefix("[dependencies]\n")
        .expect("the block starts with [dependencies]")
        .replace(
            "embed-assets = \"0.1\"",
            "embed-assets = { path = {runtime} }",
        )
        .replace(
            "embed-assets-build = \"0.1\"",
            "embed-assets-build = { path = {build} }",
        );
    // The form for before the crates are published names this repository's folders.
    let unpublished = block_after(&readme, "Until the crates are published", "toml");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for (dependency, folder) in [
        ("embed-assets", "embed-runtime"),
        ("embed-assets-build", "embed-build"),
    ] {
        let line = format!("{dependency} = {{ path = \"../embed-assets/{folder}\" }}");
        assert!(unpublished.contains(&line), "{line}\nin:\n{unpublished}");
        let package = fs::read_to_string(root.join(folder).join("Cargo.toml")).unwrap();
        assert!(
            package.contains(&format!("name = \"{dependency}\"")),
            "{folder}"
        );
    }
    let krate = Crate::with_dependencies("readme_quick_start", &lines);
    let public = krate.dir().join("public");
    fs::create_dir_all(public.join("css")).unwrap();
    fs::write(
        public.join("index.html"),
        "<!doctype html><title>hi</title>",
    )
    .unwrap();
    fs::write(public.join("css/app.css"), "body { color: red }\n").unwrap();
    // The binary lists what it serves, so the test can tell what reached it.
    let main_rs = main_rs.replacen(
        "async fn main() {",
        "async fn main() {\n    if std::env::args().any(|arg| arg == \"--list\") {\n        for asset in frontend::ASSETS.iter() {\n            println!(\"{}\", asset.path());\n        }\n        return;\n    }",
        1,
    );
    fs::write(krate.dir().join("src/main.rs"), main_rs).unwrap();
    fs::write(krate.dir().join("build.rs"), build_rs).unwrap();
    let outcome = krate.cargo("build");
    assert!(outcome.success, "{}", outcome.stderr);
    assert!(
        !outcome.stderr.contains("warning"),
        "the quick start builds without warnings:\n{}",
        outcome.stderr
    );
    let listed = krate.run(&["--list"]);
    assert!(
        listed.contains("/css/app.css") && !listed.contains("/added.txt"),
        "{listed}"
    );
    // The reason for the build script: a file added later is served after `cargo build`.
    fs::write(public.join("added.txt"), "new\n").unwrap();
    let outcome = krate.cargo("build");
    assert!(outcome.success, "{}", outcome.stderr);
    let listed = krate.run(&["--list"]);
    assert!(
        listed.contains("/added.txt"),
        "the added file is embedded: {listed}"
    );
}

/// The text of a guide's module documentation, its `//!` lines without the prefix.
fn guide(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../embed-runtime/src/guide")
        .join(format!("{name}.rs"));
    fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter_map(|line| line.strip_prefix("//!"))
        .map(|line| format!("{}\n", line.strip_prefix(' ').unwrap_or(line)))
        .collect()
}

/// A doctest as a reader sees it: without rustdoc's hidden (`# `) lines, and with the
/// repository's example folder as the user's own `public/`.
fn as_shown(doctest: &str) -> String {
    doctest
        .split_inclusive('\n')
        .filter(|line| {
            let line = line.trim_start();
            !(line.starts_with("# ") || line.trim_end() == "#")
        })
        .collect::<String>()
        .replace("\"../examples/public\"", "\"public\"")
}

#[test]
fn the_timeouts_server_is_the_example_that_builds() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let doc = guide("big_files");
    let block = as_shown(block_after(
        &doc,
        "# Slow clients and timeouts",
        "rust,no_run",
    ));
    let example = fs::read_to_string(root.join("examples/src/bin/timeouts.rs")).unwrap();
    // The example is the guide's block after its own `//!` lines; the workspace's
    // clippy and test builds compile it, and so does the guide's doctest.
    let code: String = example
        .split_inclusive('\n')
        .skip_while(|line| line.starts_with("//!") || line.trim().is_empty())
        .collect();
    assert_eq!(
        code, block,
        "the big_files guide and examples/src/bin/timeouts.rs differ"
    );
    assert!(block.contains(".header_read_timeout("), "{block}");
}

/// Every ```` ```rust,ignore ```` block of the guides: what rustdoc cannot build, as
/// the crate depends neither on hyper nor on `embed-assets-build`. (The snippets of
/// Leptos and Dioxus apps in the frameworks guide are ```` ```ignore ````: they need
/// those frameworks; `tests/tests/leptos.rs` builds the Leptos example they come from.) Each builds here,
/// as a binary of one crate with the plain-hyper example's `Cargo.toml` lines and
/// `embed-assets-build`, with `public/` and `frontend/dist/` folders to embed.
#[test]
fn the_guides_examples_rustdoc_does_not_build_do_build() {
    if !integration_tests::programs::slow("readme") {
        return;
    }
    let guides = [
        "frameworks",
        "macro_options",
        "serving_options",
        "vite",
        "http",
        "deploying",
        "big_files",
        "benchmarks",
    ];
    let mut blocks = Vec::new();
    for name in guides {
        let doc = guide(name);
        let mut lines = doc.lines();
        while let Some(line) = lines.next() {
            if line.trim() != "```rust,ignore" {
                continue;
            }
            let indent = line.len() - line.trim_start().len();
            let mut block = String::new();
            for line in lines.by_ref().take_while(|line| line.trim() != "```") {
                block.push_str(line.get(indent..).unwrap_or(""));
                block.push('\n');
            }
            blocks.push((name, block));
        }
    }
    assert!(
        blocks
            .iter()
            .any(|(_, block)| block.contains("hyper::server")),
        "the plain hyper example is among them: {blocks:?}"
    );
    // The plain hyper example's own `Cargo.toml` lines, with this checkout's crates.
    let frameworks = guide("frameworks");
    let hyper = block_after(&frameworks, "# hyper and tower", "toml");
    let lines = hyper
        .trim_start()
        .strip_prefix("[dependencies]\n")
        .expect("the block starts with [dependencies]")
        .replace(
            "embed-assets = { version = \"0.1\",",
            "embed-assets = { path = {runtime},",
        );
    assert!(lines.contains("{runtime}"), "{lines}");
    let krate = Crate::with_dependencies(
        "guide_examples",
        &format!("{lines}embed-assets-build = {{ path = {{build}} }}\n"),
    );
    for folder in ["public/js", "frontend/dist"] {
        fs::create_dir_all(krate.dir().join(folder)).unwrap();
    }
    fs::write(krate.dir().join("public/index.html"), "<!doctype html>\n").unwrap();
    fs::write(krate.dir().join("public/js/app.js"), "console.log(1);\n").unwrap();
    fs::write(
        krate.dir().join("frontend/dist/index.html"),
        "<!doctype html>\n",
    )
    .unwrap();
    fs::write(krate.dir().join("src/main.rs"), "fn main() {}\n").unwrap();
    fs::create_dir_all(krate.dir().join("src/bin")).unwrap();
    for (index, (name, block)) in blocks.iter().enumerate() {
        let main = if block.contains("fn main") {
            ""
        } else {
            "\nfn main() {}\n"
        };
        let file = krate.dir().join(format!("src/bin/{name}_{index}.rs"));
        fs::write(file, format!("{block}{main}")).unwrap();
    }
    let outcome = krate.cargo("build");
    assert!(outcome.success, "{}", outcome.stderr);
}
