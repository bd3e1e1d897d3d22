//! The user-style binary: a crate of its own, written as the README's quick start and
//! "fastest set-up" tell a user to, built by `cargo build --release` the way a user
//! builds it, and measured beside the benchmarks' own servers, so that the figures the
//! guides print are the ones a user reproduces with their own binary.
//!
//! The crate is written under `bench/target/user-site/` (its own workspace and target
//! folder; this bench's lockfile, so the same versions): `embed-assets` and axum as
//! dependencies, `embed-assets-build` in its build script, and a `main.rs` that embeds
//! `site/` with `#[embed_assets::embed]` and runs the default [`Server`] over an axum
//! `Router`. Its `site/` is [`SITE_DIR`]'s files (the page, the icon, the stylesheet,
//! the script, the 27 KB-of-br bundle, the logo) and the 64 MiB [`VIDEO_PATH`] as
//! `video.bin`, which the macro leaves on disk (it is over the default 5 MiB
//! `max_embed_size`) and `serve` streams with `sendfile`.
//!
//! [`Server`]: embed_assets::Server

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use crate::child::ChildServer;
use crate::procs::pinned;
use crate::site::SITE_DIR;
use crate::VIDEO_PATH;

/// The table name of the user-style binary.
pub const NAME: &str = "user-serve";

/// The crate's `main.rs`: the README's set-up, with the address from `ADDR` (a
/// deployment's usual way to set it) and the line the harness waits for.
const MAIN_RS: &str = r#"//! A small site as a user ships it: embedded, with a video left on disk.
use axum::{routing::get, Router};

// `site/` next to Cargo.toml; `video.bin` is over 5 MiB and stays on disk.
#[embed_assets::embed("site", on_disk = "allow")]
mod frontend {}

fn main() -> std::io::Result<()> {
    let app = Router::new().route("/api/health", get(|| async { "ok" }));
    let addr = std::env::var("ADDR").unwrap_or_else(|_| "127.0.0.1:3000".to_owned());
    let server = embed_assets::Server::bind(addr.as_str())?;
    println!("listening on {}", server.local_addr());
    server.serve(frontend::ASSETS.service(), app)
}
"#;

const BUILD_RS: &str = r#"fn main() {
    embed_assets_build::track("site");
}
"#;

/// The bench's own folder (`bench/`).
fn bench_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The crate's `Cargo.toml`: the README's dependencies (axum with its defaults), the
/// library by path, and the README's `build-override`.
fn cargo_toml() -> String {
    let repo = bench_dir().join("..");
    let repo = repo.display();
    format!(
        "[package]\nname = \"user-site\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
         [dependencies]\nembed-assets = {{ path = \"{repo}/embed-runtime\" }}\naxum = \"0.8\"\n\n\
         [build-dependencies]\nembed-assets-build = {{ path = \"{repo}/embed-build\" }}\n\n\
         [workspace]\n\n\
         [profile.dev.build-override]\nopt-level = 3\n\
         [profile.release.build-override]\nopt-level = 3\n"
    )
}

/// Writes `bytes` at `path` (and the folders above it) unless it already holds exactly
/// them, so that cargo sees no change and a binary is not rebuilt.
///
/// # Errors
/// A folder or the file could not be written.
pub fn write_if_changed(path: &Path, bytes: &[u8]) -> Result<(), String> {
    if fs::read(path).ok().as_deref() == Some(bytes) {
        return Ok(());
    }
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// Copies the files under `from` into `to`, each written only when it differs.
///
/// # Errors
/// A file could not be read or written.
pub fn copy_tree(from: &Path, to: &Path) -> Result<(), String> {
    let entries = fs::read_dir(from).map_err(|e| format!("{}: {e}", from.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("{}: {e}", from.display()))?;
        let path = entry.path();
        let target = to.join(entry.file_name());
        if path.is_dir() {
            copy_tree(&path, &target)?;
        } else {
            let bytes = fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            write_if_changed(&target, &bytes)?;
        }
    }
    Ok(())
}

/// Writes the crate and builds it (`cargo build --release`, which does nothing when
/// nothing changed); the path of its binary.
///
/// # Errors
/// A file could not be written, or the build failed (its output is in the message).
pub fn build() -> Result<PathBuf, String> {
    let root = bench_dir().join("target/user-site");
    let dir = root.join("crate");
    write_if_changed(&dir.join("Cargo.toml"), cargo_toml().as_bytes())?;
    write_if_changed(&dir.join("build.rs"), BUILD_RS.as_bytes())?;
    write_if_changed(&dir.join("src/main.rs"), MAIN_RS.as_bytes())?;
    if !dir.join("Cargo.lock").exists() {
        let lock = bench_dir().join("Cargo.lock");
        fs::copy(&lock, dir.join("Cargo.lock")).map_err(|e| format!("{}: {e}", lock.display()))?;
    }
    let site = dir.join("site");
    copy_tree(Path::new(SITE_DIR), &site)?;
    let video = site.join("video.bin");
    // The same file (a hard link) or a copy of the same length and age: no 64 MiB
    // read to tell.
    let same = |a: &Path, b: &Path| {
        let stamp = |p: &Path| fs::metadata(p).ok().map(|m| (m.len(), m.modified().ok()));
        stamp(a).is_some() && stamp(a) == stamp(b)
    };
    if !same(&video, Path::new(VIDEO_PATH)) {
        let _ = fs::remove_file(&video);
        if fs::hard_link(VIDEO_PATH, &video).is_err() {
            fs::copy(VIDEO_PATH, &video).map_err(|e| format!("{}: {e}", video.display()))?;
        }
    }
    let target = root.join("target");
    println!(
        "bench: building the user-style binary ({}) ...",
        dir.display()
    );
    let start = Instant::now();
    let output = Command::new("cargo")
        .args(["build", "--release", "--quiet"])
        .current_dir(&dir)
        .env("CARGO_TARGET_DIR", &target)
        // `cargo run` of this bench sets its own OUT_DIR (it has a build script); the
        // user's build must not see it.
        .env_remove("OUT_DIR")
        .env_remove("RUSTC_WORKSPACE_WRAPPER")
        .output()
        .map_err(|e| format!("cargo build of {}: {e}", dir.display()))?;
    if !output.status.success() {
        return Err(format!(
            "cargo build of {} failed:\n{}",
            dir.display(),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    println!(
        "bench: user-style binary built in {:.1} s",
        start.elapsed().as_secs_f64()
    );
    Ok(target.join("release/user-site"))
}

/// Starts the binary built by [`build`] on a free port, pinned to `cpu`, named `name`.
///
/// # Errors
/// As [`ChildServer::start_listening`].
pub fn start(binary: &Path, name: &str, cpu: Option<usize>) -> Result<ChildServer, String> {
    let mut command = pinned(cpu, binary);
    command.env("ADDR", "127.0.0.1:0");
    ChildServer::start_listening(name.to_owned(), command)
}
