//! A program that only serves folders at run time leaves the proc macro out: the
//! folder example (`examples/folder`, `default-features = false` with `serve` and
//! `axum`) has neither the macro nor what only it is built from (lol_html, cssparser,
//! the brotli encoder) among its dependencies, while the library's defaults do. (syn
//! stays: tokio's and axum's macros use it too.)

use std::process::Command;

/// The packages `cargo tree` lists for `args` (normal and build dependencies).
fn packages(args: &[&str]) -> Vec<String> {
    let output = Command::new(env!("CARGO"))
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .args([
            "tree",
            "--offline",
            "-e",
            "normal,build",
            "--prefix",
            "none",
        ])
        .args(args)
        .output()
        .expect("cargo tree runs");
    assert!(
        output.status.success(),
        "cargo tree {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.split_whitespace().next().map(str::to_owned))
        .collect()
}

/// What only the macro brings.
const MACRO_ONLY: [&str; 4] = ["embed-assets-macros", "lol_html", "cssparser", "brotli"];

#[test]
fn the_folder_example_builds_no_proc_macro() {
    let folder_only = packages(&["-p", "example-folder"]);
    assert!(folder_only.iter().any(|name| name == "embed-assets"));
    for name in MACRO_ONLY {
        assert!(
            !folder_only.iter().any(|package| package == name),
            "{name} is among the folder example's dependencies"
        );
    }
    // The library's defaults have the macro: the check above can fail.
    let defaults = packages(&["-p", "embed-assets"]);
    for name in MACRO_ONLY {
        assert!(defaults.iter().any(|package| package == name), "{name}");
    }
}
