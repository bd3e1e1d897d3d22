//! Real frontends from npm, embedded by us and by rust-embed in the same run: release
//! build time with the compression cache emptied and with it kept, the rebuild after a
//! one-file edit (a ~4 KB file and the largest bundle under 3 MiB), rustc's peak
//! memory, the stripped binary and the bytes a browser downloads for a first load.
//! See `bench/README.md`.
//!
//! ```text
//! cargo run --release --manifest-path bench/Cargo.toml --bin bench-frontends [-- --rounds N] [--only NAME] [--source DIR]
//! ```
//!
//! `--source DIR` measures the embed-assets of another checkout (an earlier commit's
//! worktree, say), in a work folder of its own below `target/bench-frontends`.
//!
//! Needs npm (the packages are fetched with `npm pack` into `target/bench-frontends`,
//! never committed), GNU time (`apt-get install -y time`) and `strip` (binutils).

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

/// One folder a user would embed: an npm package (or `None`: one page the bench
/// writes, for the fixed cost), the folder below it, and the files a browser fetches
/// on its first visit (path prefixes below the folder).
struct Frontend {
    name: &'static str,
    package: Option<&'static str>,
    below: &'static str,
    first_load: &'static [&'static str],
}

const FRONTENDS: &[Frontend] = &[
    Frontend {
        name: "monaco-min",
        package: Some("monaco-editor@0.57.0"),
        below: "min",
        // A TypeScript editor: the loader, the editor's bundles and style sheet, the
        // TypeScript mode and the two workers it starts.
        first_load: &[
            "vs/loader.js",
            "vs/editor/editor.main.js",
            "vs/editor/editor.main.css",
            "vs/editor-",
            "vs/toggleHighContrast-",
            "vs/editorWorkerHost-",
            "vs/tsMode-",
            "vs/typescript-",
            "vs/assets/editor.worker-",
            "vs/assets/ts.worker-",
        ],
    },
    Frontend {
        name: "swagger-ui",
        package: Some("swagger-ui-dist@5.35.0"),
        below: "",
        first_load: &[
            "index.html",
            "index.css",
            "swagger-ui.css",
            "swagger-ui-bundle.js",
            "swagger-ui-standalone-preset.js",
            "swagger-initializer.js",
            "favicon-32x32.png",
        ],
    },
    Frontend {
        name: "esbuild-wasm",
        package: Some("esbuild-wasm@0.28.2"),
        below: "",
        first_load: &["esbuild.wasm", "lib/browser.min.js"],
    },
    Frontend {
        // A small package: 81 files, 2.9 MB (60 fonts in three formats, the scripts
        // and style sheets, their contrib extensions).
        name: "katex",
        package: Some("katex@0.16.22"),
        below: "dist",
        first_load: &[
            "katex.min.css",
            "katex.min.js",
            "fonts/KaTeX_Main-Regular.woff2",
            "fonts/KaTeX_Math-Italic.woff2",
            "fonts/KaTeX_Size1-Regular.woff2",
        ],
    },
    Frontend {
        // One page of 1 KB: what each embedder costs in a binary, beside axum alone.
        name: "one-page",
        package: None,
        below: "",
        first_load: &["index.html"],
    },
];

/// The page of the `one-page` frontend.
const ONE_PAGE: &str = "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>One page</title>\n</head>\n<body>\n<h1>One page</h1>\n<p>The smallest site: what an embedder costs in a binary.</p>\n</body>\n</html>\n";

/// The program of the `axum-alone` leaf: the same server with no embedder, whose
/// binary is the fixed-cost row's reference.
const AXUM_ALONE: &str = r#"#[tokio::main]
async fn main() {
    let app = axum::Router::new().route("/", axum::routing::get(|| async { "ok" }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    axum::serve(listener, app).await.unwrap();
}
"#;

/// The server every leaf is: axum over HTTP/1.1 on tokio.
const SERVER: &str = "axum = { version = \"0.8\", default-features = false, features = [\"tokio\", \"http1\"] }\n\
                      tokio = { version = \"1\", features = [\"macros\", \"rt-multi-thread\", \"net\"] }";

/// The two embedders, each a leaf crate per frontend.
#[derive(Clone, Copy, PartialEq)]
enum Embedder {
    Ours,
    RustEmbed,
}

impl Embedder {
    fn label(self) -> &'static str {
        match self {
            Embedder::Ours => "ours",
            Embedder::RustEmbed => "rust-embed",
        }
    }

    /// The leaf's dependencies: each embedder served by axum, as its users do (ours as
    /// the router's fallback service, rust-embed through axum-embed).
    fn dependency(self, source: &Path) -> String {
        match self {
            Embedder::Ours => format!(
                "embed-assets = {{ path = {:?} }}\n{SERVER}",
                source.join("embed-runtime")
            ),
            Embedder::RustEmbed => format!("rust-embed = \"8\"\naxum-embed = \"0.1\"\n{SERVER}"),
        }
    }

    /// The program: a server of the folder on 127.0.0.1 (never started by the bench);
    /// given paths, it prints instead, per path, the bytes a browser that accepts br and
    /// gzip receives.
    fn main_rs(self) -> &'static str {
        match self {
            Embedder::Ours => {
                r#"#[embed_assets::embed("site")]
mod site {}

#[tokio::main]
async fn main() {
    use embed_assets::Encoding;
    let paths: Vec<String> = std::env::args().skip(1).collect();
    if paths.is_empty() {
        let app = axum::Router::new().fallback_service(site::ASSETS.service());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        axum::serve(listener, app).await.unwrap();
        return;
    }
    for path in paths {
        let asset = site::ASSETS.get(&path).expect("a listed file");
        // From disk, the file as it is; from memory, br, else gzip, else itself.
        let sent = if asset.is_embedded() {
            [Encoding::Brotli, Encoding::Gzip]
                .into_iter()
                .find_map(|e| asset.variant(e))
                .map_or(asset.len(), |v| v.len())
        } else {
            asset.len()
        };
        println!("{path}	{sent}	{}", asset.is_embedded());
    }
}
"#
            }
            Embedder::RustEmbed => {
                r#"#[derive(rust_embed::RustEmbed, Clone)]
#[folder = "site/"]
struct Site;

#[tokio::main]
async fn main() {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    if paths.is_empty() {
        let app = axum::Router::new().fallback_service(axum_embed::ServeEmbed::<Site>::new());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        axum::serve(listener, app).await.unwrap();
        return;
    }
    // rust-embed stores each file as it is, and axum-embed sends it so.
    for path in paths {
        let file = <Site as rust_embed::RustEmbed>::get(path.trim_start_matches('/')).expect("a listed file");
        println!("{path}\t{}\ttrue", file.data.len());
    }
}
"#
            }
        }
    }
}

/// What one build of one leaf measured.
#[derive(Default, Clone)]
struct Figures {
    cold: f64,
    cached: f64,
    edit_small: f64,
    edit_big: f64,
    peak_mb: f64,
    stripped: u64,
    wire: u64,
    on_disk: usize,
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("bench/ is in the repository")
        .to_path_buf()
}

fn run(cmd: &mut Command) -> Result<String, String> {
    let out = cmd.output().map_err(|e| format!("{cmd:?}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{cmd:?} failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The package unpacked below `npm/`, fetched once.
fn fetch(frontend: &Frontend) -> Result<PathBuf, String> {
    // Shared by every work folder: one download per package.
    let npm = repo().join("target/bench-frontends/npm");
    let dir = npm.join(frontend.name);
    let Some(package) = frontend.package else {
        let folder = dir.join("package");
        fs::create_dir_all(&folder).map_err(|e| e.to_string())?;
        fs::write(folder.join("index.html"), ONE_PAGE).map_err(|e| e.to_string())?;
        return Ok(folder);
    };
    if !dir.join("package/package.json").exists() {
        fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        eprintln!("fetching {package} with npm pack");
        let name = run(Command::new("npm")
            .args(["pack", "--silent", package])
            .current_dir(&dir))?;
        run(Command::new("tar")
            .arg("xzf")
            .arg(name.trim())
            .current_dir(&dir))?;
    }
    Ok(dir.join("package").join(frontend.below))
}

fn copy_dir(from: &Path, to: &Path) -> Result<(), String> {
    let _ = fs::remove_dir_all(to);
    run(Command::new("cp").arg("-r").arg(from).arg(to)).map(|_| ())
}

/// Every file below `dir`, as (path below it with `/`, length).
fn files(dir: &Path) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(meta) = entry.metadata() {
                let below = path
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.push((below, meta.len()));
            }
        }
    }
    out.sort();
    out
}

/// The leaf crate of `embedder` for `frontend` in the bench's workspace.
fn leaf(
    work: &Path,
    source: &Path,
    frontend: &Frontend,
    embedder: Embedder,
    folder: &Path,
) -> Result<String, String> {
    let package = format!("{}-{}", embedder.label(), frontend.name);
    let dir = crate_dir(
        work,
        &package,
        &embedder.dependency(source),
        embedder.main_rs(),
    )?;
    copy_dir(folder, &dir.join("site"))?;
    Ok(package)
}

/// Writes the crate `package` (its dependencies, its `main.rs`) in the workspace.
fn crate_dir(
    work: &Path,
    package: &str,
    dependencies: &str,
    main: &str,
) -> Result<PathBuf, String> {
    let dir = work.join("crates").join(package);
    fs::create_dir_all(dir.join("src")).map_err(|e| e.to_string())?;
    fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = {package:?}\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n[dependencies]\n{dependencies}\n"
        ),
    )
    .map_err(|e| e.to_string())?;
    fs::write(dir.join("src/main.rs"), main).map_err(|e| e.to_string())?;
    Ok(dir)
}

/// The size of `package`'s release binary, stripped.
fn stripped_size(work: &Path, package: &str) -> Result<u64, String> {
    let binary = work.join("target/release").join(package);
    let stripped = work.join("stripped");
    run(Command::new("strip").arg("-o").arg(&stripped).arg(&binary))?;
    fs::metadata(&stripped)
        .map(|m| m.len())
        .map_err(|e| e.to_string())
}

fn workspace(work: &Path, members: &[String]) -> Result<(), String> {
    let list: Vec<String> = members.iter().map(|m| format!("\"crates/{m}\"")).collect();
    fs::write(
        work.join("Cargo.toml"),
        format!(
            "[workspace]\nresolver = \"2\"\nmembers = [{}]\n\n# As the README asks of users: proc macros optimised in every profile.\n[profile.release.build-override]\nopt-level = 3\n",
            list.join(", ")
        ),
    )
    .map_err(|e| e.to_string())
}

/// `cargo build --release -p package`, timed, with rustc's peak RSS (GNU time's
/// maximum over the processes cargo waited for: the largest rustc).
fn build(work: &Path, package: &str) -> Result<(f64, f64), String> {
    let rss = work.join("rss.txt");
    let start = Instant::now();
    run(Command::new("/usr/bin/time")
        .arg("-f")
        .arg("%M")
        .arg("-o")
        .arg(&rss)
        .args(["cargo", "build", "--release", "--quiet", "-p", package])
        .current_dir(work)
        .env("CARGO_TARGET_DIR", work.join("target"))
        // `cargo run` of this bench sets its own OUT_DIR (it has a build script); a
        // macro that reads it would keep its cache where `clean` never looks.
        .env_remove("OUT_DIR")
        .env_remove("RUSTC_WORKSPACE_WRAPPER"))?;
    let seconds = start.elapsed().as_secs_f64();
    let kb: f64 = fs::read_to_string(&rss)
        .map_err(|e| e.to_string())?
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .unwrap_or(0.0);
    Ok((seconds, kb / 1024.0))
}

fn clean(work: &Path, package: &str, cache_too: bool) -> Result<(), String> {
    run(Command::new("cargo")
        .args(["clean", "--release", "--quiet", "-p", package])
        .current_dir(work)
        .env("CARGO_TARGET_DIR", work.join("target")))?;
    if cache_too {
        let _ = fs::remove_dir_all(work.join("target/release/embed-assets-cache"));
    }
    Ok(())
}

fn append(path: &Path, text: &str) -> Result<(), String> {
    let mut bytes = fs::read(path).map_err(|e| e.to_string())?;
    bytes.extend_from_slice(text.as_bytes());
    fs::write(path, bytes).map_err(|e| e.to_string())
}

/// One round of every measurement for one leaf.
fn measure(
    work: &Path,
    frontend: &Frontend,
    package: &str,
    folder: &Path,
    round: usize,
) -> Result<Figures, String> {
    let site = work.join("crates").join(package).join("site");
    copy_dir(folder, &site)?;
    let mut f = Figures::default();
    clean(work, package, true)?;
    let (cold, peak) = build(work, package)?;
    f.cold = cold;
    f.peak_mb = peak;
    clean(work, package, false)?;
    f.cached = build(work, package)?.0;
    f.stripped = stripped_size(work, package)?;
    let binary = work.join("target/release").join(package);
    let all = files(folder);
    let first: Vec<String> = frontend
        .first_load
        .iter()
        .filter_map(|prefix| {
            all.iter()
                .find(|(p, _)| p.starts_with(prefix))
                .map(|(p, _)| format!("/{p}"))
        })
        .collect();
    let out = run(Command::new(&binary).args(&first))?;
    for line in out.lines() {
        let cols: Vec<&str> = line.split('\t').collect();
        if cols.len() == 3 {
            f.wire += cols[1].parse::<u64>().unwrap_or(0);
            f.on_disk += usize::from(cols[2] == "false");
        }
    }
    // The edits: a file of about 4 KB, then the largest under 3 MiB.
    let near = |target: u64| {
        all.iter()
            .filter(|(_, len)| *len <= 3 << 20)
            .min_by_key(|(_, len)| len.abs_diff(target))
            .map(|(p, _)| p.clone())
            .expect("a file")
    };
    let small = near(4096);
    let big = all
        .iter()
        .filter(|(_, len)| *len <= 3 << 20)
        .max_by_key(|(_, len)| *len)
        .map(|(p, _)| p.clone())
        .expect("a file");
    append(&site.join(&small), &format!("\n/* edit {round} */\n"))?;
    f.edit_small = build(work, package)?.0;
    append(&site.join(&big), &format!("\n/* edit {round} */\n"))?;
    f.edit_big = build(work, package)?.0;
    Ok(f)
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(|a, b| a.total_cmp(b));
    values[values.len() / 2]
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let rounds: usize = value("--rounds")
        .and_then(|r| r.parse().ok())
        .unwrap_or(1)
        .max(1);
    let only = value("--only");
    let (source, work) = match value("--source") {
        Some(dir) => {
            let source = fs::canonicalize(&dir).unwrap_or_else(|_| PathBuf::from(&dir));
            let name = source
                .file_name()
                .map_or("source".into(), |n| n.to_string_lossy().into_owned());
            (
                source,
                repo()
                    .join("target/bench-frontends")
                    .join(format!("source-{name}")),
            )
        }
        None => (repo(), repo().join("target/bench-frontends")),
    };
    match bench(&work, &source, rounds, only.as_deref()) {
        Ok(table) => {
            println!("{table}");
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("bench-frontends: {err}");
            ExitCode::FAILURE
        }
    }
}

fn bench(work: &Path, source: &Path, rounds: usize, only: Option<&str>) -> Result<String, String> {
    fs::create_dir_all(work).map_err(|e| e.to_string())?;
    let chosen: Vec<&Frontend> = FRONTENDS
        .iter()
        .filter(|f| only.is_none_or(|o| o == f.name))
        .collect();
    let mut folders = Vec::new();
    let mut members = Vec::new();
    for frontend in &chosen {
        let folder = fetch(frontend)?;
        for embedder in [Embedder::Ours, Embedder::RustEmbed] {
            members.push(leaf(work, source, frontend, embedder, &folder)?);
        }
        folders.push(folder);
    }
    // The fixed-cost row's reference: the same server with no embedder.
    let alone = chosen
        .iter()
        .any(|f| f.package.is_none())
        .then_some("axum-alone");
    if let Some(alone) = alone {
        crate_dir(work, alone, SERVER, AXUM_ALONE)?;
        members.push(alone.to_owned());
    }
    workspace(work, &members)?;
    eprintln!("building the dependencies once");
    for member in &members {
        build(work, member)?;
    }
    let mut table = String::new();
    writeln!(
        table,
        "| frontend | embedder | build, cache empty | build, cache kept | edit ~4 KB | edit largest bundle | rustc peak | stripped binary | first load on the wire | files on disk |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    )
    .unwrap();
    let mut ratios = String::new();
    let mut fixed = String::new();
    for (frontend, folder) in chosen.iter().zip(&folders) {
        let mut all: [Vec<Figures>; 2] = [Vec::new(), Vec::new()];
        for round in 0..rounds {
            // The order alternates, so neither embedder always runs on a warmer machine.
            let order = if round % 2 == 0 { [0, 1] } else { [1, 0] };
            for i in order {
                let embedder = [Embedder::Ours, Embedder::RustEmbed][i];
                let package = format!("{}-{}", embedder.label(), frontend.name);
                eprintln!("{} {} round {}", frontend.name, embedder.label(), round + 1);
                all[i].push(measure(work, frontend, &package, folder, round)?);
            }
        }
        let mut medians = Vec::new();
        for (i, embedder) in [Embedder::Ours, Embedder::RustEmbed]
            .into_iter()
            .enumerate()
        {
            let runs = &all[i];
            let pick =
                |get: fn(&Figures) -> f64| median(&mut runs.iter().map(get).collect::<Vec<_>>());
            let m = Figures {
                cold: pick(|f| f.cold),
                cached: pick(|f| f.cached),
                edit_small: pick(|f| f.edit_small),
                edit_big: pick(|f| f.edit_big),
                peak_mb: pick(|f| f.peak_mb),
                stripped: runs[0].stripped,
                wire: runs[0].wire,
                on_disk: runs[0].on_disk,
            };
            writeln!(
                table,
                "| {} | {} | {:.1} s | {:.1} s | {:.1} s | {:.1} s | {:.0} MB | {:.1} MB | {:.0} KB | {} |",
                frontend.name,
                embedder.label(),
                m.cold,
                m.cached,
                m.edit_small,
                m.edit_big,
                m.peak_mb,
                m.stripped as f64 / 1e6,
                m.wire as f64 / 1e3,
                m.on_disk
            )
            .unwrap();
            medians.push(m);
        }
        let (o, r) = (&medians[0], &medians[1]);
        if let (None, Some(alone)) = (frontend.package, alone) {
            let base = stripped_size(work, alone)?;
            let added = |size: u64| size.saturating_sub(base) as f64 / 1e3;
            writeln!(
                fixed,
                "fixed cost (a binary serving one 1 KB page, stripped): axum alone {base} B; ours {} B (+{:.0} KB); rust-embed {} B (+{:.0} KB); added, ours / rust-embed {:.2}x",
                o.stripped,
                added(o.stripped),
                r.stripped,
                added(r.stripped),
                added(o.stripped) / added(r.stripped)
            )
            .unwrap();
        }
        writeln!(
            ratios,
            "{}: ours / rust-embed: build cold {:.2}x, cached {:.2}x, edit ~4 KB {:.2}x, edit bundle {:.2}x, rustc peak {:.2}x, binary {:.2}x, first load {:.2}x",
            frontend.name,
            o.cold / r.cold,
            o.cached / r.cached,
            o.edit_small / r.edit_small,
            o.edit_big / r.edit_big,
            o.peak_mb / r.peak_mb,
            o.stripped as f64 / r.stripped as f64,
            o.wire as f64 / r.wire as f64
        )
        .unwrap();
    }
    Ok(format!(
        "{table}\n{ratios}{fixed}\n(medians of {rounds} round(s); MB = 10^6 bytes; each binary is an axum server of the folder)"
    ))
}
