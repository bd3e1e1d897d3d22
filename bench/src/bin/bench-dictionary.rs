//! Dictionary compression's figures (RFC 9842): for a one-line change to the Vite
//! example's bundle, and for a small change to a ~230 KB bundle, the bytes a returning
//! browser downloads (br, dcb, dcz), what the kept release and the deltas add to the
//! binary, and what the deltas cost a rebuild after a one-file edit. See
//! `bench/README.md`.
//!
//! ```text
//! cargo run --release --manifest-path bench/Cargo.toml --bin bench-dictionary
//! ```
//!
//! Two releases of each site are made in a temporary folder and recorded with
//! `embed_assets_build::Releases`; a scratch crate embeds the newer one with
//! `releases = …` (with zstd, and `compression = "best"` as a release build has it),
//! is built with the real cargo, and prints what its table holds. The Vite example is built with its own `node_modules` (`npm ci` in
//! `examples/vite/frontend` first, which `cargo build -p example-vite` does).

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

use integration_tests::scratch::Crate;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("bench/ is in the repository")
        .to_path_buf()
}

fn copy_dir(from: &Path, to: &Path, skip: &[&str]) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        if skip.iter().any(|s| name == *s) {
            continue;
        }
        let target = to.join(&name);
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target, skip);
        } else {
            fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Records `folder` as the newest release in `releases`.
fn record(releases: &Path, folder: &Path) {
    embed_assets_build::Releases::new(releases)
        .record(folder)
        .unwrap_or_else(|err| panic!("recording {}: {err}", folder.display()));
}

/// Release 1 and 2 of the Vite example (`src/main.ts` with one more line), each built
/// by Vite into `<work>/vite-<n>`, both recorded in `<work>/vite-releases`.
fn vite_releases(work: &Path) -> Result<(PathBuf, PathBuf), String> {
    let frontend = repo().join("examples/vite/frontend");
    let modules = frontend.join("node_modules");
    if !modules.join(".bin/vite").exists() {
        return Err(format!(
            "{} has no Vite: run `npm ci` there (or `cargo build -p example-vite`)",
            modules.display()
        ));
    }
    let source = work.join("vite-source");
    copy_dir(&frontend, &source, &["node_modules", "dist"]);
    std::os::unix::fs::symlink(&modules, source.join("node_modules")).unwrap();
    let releases = work.join("vite-releases");
    for n in 1..=2 {
        if n == 2 {
            let main = source.join("src/main.ts");
            let text = fs::read_to_string(&main).unwrap();
            let changed = text.replacen(
                "status.classList.add(\"ready\");",
                "status.classList.add(\"ready\");\n    status.title = \"Served by release 2\";",
                1,
            );
            assert_ne!(text, changed, "the one-line change applies");
            fs::write(&main, changed).unwrap();
        }
        let built = Command::new(modules.join(".bin/vite"))
            .args(["build", "--logLevel", "error"])
            .current_dir(&source)
            .status()
            .map_err(|err| format!("vite build: {err}"))?;
        if !built.success() {
            return Err(format!("vite build failed: {built}"));
        }
        let dist = work.join(format!("vite-{n}"));
        copy_dir(&source.join("dist"), &dist, &[]);
        record(&releases, &dist);
    }
    Ok((work.join("vite-2"), releases))
}

/// A real bundle of about 230 KB (Vite's own largest chunk under 260 KB, from the
/// example's `node_modules`), named by its hash as a bundler names it, in release 1;
/// release 2 has one more line in its middle. Each in `<work>/big-<n>`, recorded in
/// `<work>/big-releases`.
fn big_releases(work: &Path) -> Result<(PathBuf, PathBuf, usize), String> {
    let chunks = repo().join("examples/vite/frontend/node_modules/vite/dist/node/chunks");
    let bundle = fs::read_dir(&chunks)
        .map_err(|err| format!("{}: {err}", chunks.display()))?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "js"))
        .filter_map(|path| Some((fs::metadata(&path).ok()?.len(), path)))
        .filter(|(len, _)| *len < 260_000)
        .max()
        .ok_or_else(|| format!("no bundle in {}", chunks.display()))?
        .1;
    // A line of this run's own: the macro's cache of compressed bodies (by content)
    // never has them, so the build times below include the compression.
    let original = format!(
        "// bench-dictionary run {}\n{}",
        nonce(),
        fs::read_to_string(&bundle).map_err(|err| err.to_string())?
    );
    let releases = work.join("big-releases");
    for n in 1..=2 {
        let text = if n == 1 {
            original.clone()
        } else {
            let middle = original[original.len() / 2..]
                .find('\n')
                .map_or(original.len(), |i| original.len() / 2 + i + 1);
            format!(
                "{}const servedBy = \"release 2\";\n{}",
                &original[..middle],
                &original[middle..]
            )
        };
        let dir = work.join(format!("big-{n}"));
        write_bundle(&dir, &text);
        record(&releases, &dir);
    }
    Ok((work.join("big-2"), releases, original.len()))
}

/// `<dir>/assets/bundle-<hash>.js` holding `text`, alone in its folder, named by its
/// hash as a bundler names it (so an edit gives a new name).
fn write_bundle(dir: &Path, text: &str) -> PathBuf {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut hasher);
    let hash = &format!("{:016x}", hasher.finish())[..8];
    let assets = dir.join("assets");
    let _ = fs::remove_dir_all(&assets);
    fs::create_dir_all(&assets).unwrap();
    let path = assets.join(format!("bundle-{hash}.js"));
    fs::write(&path, text).unwrap();
    path
}

/// The scratch crate's program: per file with deltas, its sizes; then the report.
const MAIN: &str = r#"
fn show(name: &str, assets: &embed_assets::Assets) {
    use embed_assets::Encoding;
    for asset in assets.iter().filter(|a| !a.deltas().is_empty()) {
        let len = |e: Encoding| asset.variant(e).map_or(0, |v| v.len());
        let delta = |e: Encoding| {
            asset.deltas().iter().find(|d| d.encoding() == e).map_or(0, |d| d.len())
        };
        println!(
            "row {name} {} {} {} {} {} {}",
            asset.fingerprinted_path().unwrap_or(asset.path()),
            asset.len(),
            len(Encoding::Brotli),
            len(Encoding::Zstd),
            delta(Encoding::DictionaryBrotli),
            delta(Encoding::DictionaryZstd),
        );
    }
    let report = assets.report();
    println!(
        "report {name} {} {} {} {}",
        report.stored_bytes(),
        report.earlier_release_bytes,
        report.delta_bytes,
        report.earlier_release_files,
    );
}

fn main() {
    show("vite", &VITE);
    show("big", &BIG);
}
"#;

fn write_main(krate: &Crate, vite: &Path, big: &Path, releases: Option<(&Path, &Path)>) {
    let option = |dir: Option<&Path>| match dir {
        Some(dir) => format!(", releases = {:?}", dir.to_string_lossy()),
        None => String::new(),
    };
    let source = format!(
        "static VITE: embed_assets::Assets = embed_assets::embed_assets!({:?}, compression = \"best\"{});\n\
         static BIG: embed_assets::Assets = embed_assets::embed_assets!({:?}, compression = \"best\", hashed = \"assets/*\"{});\n{MAIN}",
        vite.to_string_lossy(),
        option(releases.map(|r| r.0)),
        big.to_string_lossy(),
        option(releases.map(|r| r.1)),
    );
    fs::write(krate.dir().join("src/main.rs"), source).unwrap();
}

/// `cargo build` of the crate, timed.
fn build(krate: &Crate) -> Result<Duration, String> {
    let start = Instant::now();
    let outcome = krate.cargo("build");
    if !outcome.success {
        return Err(format!(
            "the scratch crate did not build:\n{}",
            outcome.stderr
        ));
    }
    Ok(start.elapsed())
}

/// A token no earlier run wrote: the time in nanoseconds.
fn nonce() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |t| t.as_nanos())
}

fn kib(bytes: u64) -> String {
    format!("{:.1} KiB", bytes as f64 / 1024.0)
}

fn run() -> Result<String, String> {
    let work = std::env::temp_dir().join(format!("bench-dictionary-{}", std::process::id()));
    let _ = fs::remove_dir_all(&work);
    fs::create_dir_all(&work).unwrap();
    let (vite, vite_releases) = vite_releases(&work)?;
    let (big, big_releases, big_len) = big_releases(&work)?;
    let krate = Crate::with_dependencies(
        "bench_dictionary",
        "embed-assets = { path = {runtime}, features = [\"zstd\"] }",
    );

    // The dependencies first, so the times below are the crate's and the macro's own.
    fs::write(
        krate.dir().join("src/main.rs"),
        "use embed_assets as _;\nfn main() {}\n",
    )
    .unwrap();
    build(&krate)?;
    // The table with the releases option, built once to warm the macro's cache of
    // compressed bodies, then again after a one-file edit, with and without the
    // option: what the deltas add to an edit-rebuild cycle.
    write_main(&krate, &vite, &big, Some((&vite_releases, &big_releases)));
    let first = build(&krate)?;
    let output = krate.run(&[]);
    let mut bundle = fs::read_dir(big.join("assets"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let mut edits = Vec::new();
    for (round, with_releases) in [(1, true), (2, false), (3, true), (4, false)] {
        let mut text = fs::read_to_string(&bundle).unwrap();
        writeln!(text, "// edit {round} of run {}", nonce()).unwrap();
        bundle = write_bundle(&big, &text);
        let releases = with_releases.then_some((vite_releases.as_path(), big_releases.as_path()));
        write_main(&krate, &vite, &big, releases);
        edits.push((with_releases, build(&krate)?));
    }
    let _ = fs::remove_dir_all(&work);

    let mut out = String::new();
    writeln!(
        out,
        "Bytes a browser that kept release 1 downloads for release 2's file"
    )
    .unwrap();
    writeln!(
        out,
        "{:<6} {:<34} {:>9} {:>9} {:>9} {:>9} {:>9} {:>11} {:>11}",
        "site", "file", "identity", "br", "zstd", "dcb", "dcz", "dcb/br", "dcz/br"
    )
    .unwrap();
    for line in output.lines() {
        let fields: Vec<&str> = line.split(' ').collect();
        match fields.as_slice() {
            ["row", site, path, identity, br, zstd, dcb, dcz] => {
                let n = |s: &str| s.parse::<u64>().unwrap_or(0);
                let ratio = |x: &str| match n(br) {
                    0 => "-".to_owned(),
                    br => format!("{:.3}", n(x) as f64 / br as f64),
                };
                writeln!(
                    out,
                    "{site:<6} {path:<34} {identity:>9} {br:>9} {zstd:>9} {dcb:>9} {dcz:>9} {:>11} {:>11}",
                    ratio(dcb),
                    ratio(dcz)
                )
                .unwrap();
            }
            ["report", site, stored, earlier, deltas, files] => {
                let n = |s: &str| s.parse::<u64>().unwrap_or(0);
                writeln!(
                    out,
                    "{site}: the binary stores {} in all; the kept release adds {} ({files} files) and the deltas {}",
                    kib(n(stored)),
                    kib(n(earlier)),
                    kib(n(deltas)),
                )
                .unwrap();
            }
            _ => {}
        }
    }
    writeln!(out, "(the ~230 KB bundle: {big_len} bytes in release 1)").unwrap();
    writeln!(
        out,
        "\nBuild of the scratch crate with both tables (the big bundle's bodies not cached): {:.1} s",
        first.as_secs_f64()
    )
    .unwrap();
    writeln!(out, "Rebuild after a one-line edit of the big bundle:").unwrap();
    for (with_releases, time) in &edits {
        writeln!(
            out,
            "  {:<32} {:.1} s",
            if *with_releases {
                "with releases (deltas made)"
            } else {
                "without releases"
            },
            time.as_secs_f64()
        )
        .unwrap();
    }
    Ok(out)
}

fn main() -> ExitCode {
    match run() {
        Ok(figures) => {
            print!("{figures}");
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("bench-dictionary: {err}");
            ExitCode::FAILURE
        }
    }
}
