//! Benchmarks of `embed-assets` against nginx and the crates users pick, on
//! 127.0.0.1 (see the crate's README.md):
//!
//! - `bench-disk`: large-file downloads from disk, `embed-assets`'s streaming handler
//!   against nginx (`sendfile on`) and tower-http's `ServeDir`, on the same file;
//! - `bench-static`: requests per second for a small embedded site against a
//!   hand-written ceiling, memory-serve, static-serve, rust-embed, `ServeDir` and nginx
//!   ([`site`]);
//! - `bench-frameworks`: requests per second for the same site served by the same
//!   `SITE.service()` through each framework adapter (axum, hyper, actix-web, Rocket,
//!   Poem, Salvo, warp), in one process.
//!
//! `bench-static`'s [`cases`] (the requests and the check a server must pass first),
//! its HTTP [`client`] for that check, and [`wrk`] (running it, reading its output,
//! rejecting a run whose responses were not the checked ones) live here, for every
//! benchmark that loads a server with wrk.
//!
//! For `bench-disk`, `build.rs` writes a deterministic, incompressible 64 MiB
//! [`VIDEO_PATH`] and a small `index.html` into [`MEDIA_DIR`]; [`MEDIA`] embeds that
//! folder with `max_embed_size = "1 MiB"`, so the video is served from disk. [`server`]
//! is the HTTP server under test; the `bench-disk` binary drives the whole comparison.
//!
//! Beside these servers, both measure the [`user`]-style binary: a crate of its own over
//! the site and the video, built as the README tells a user to.

use embed_assets::{embed_assets, Assets};

pub mod arena;
pub mod cases;
pub mod child;
pub mod client;
pub mod download;
pub mod driver;
pub mod procs;
pub mod rounds;
pub mod server;
pub mod serving;
pub mod site;
pub mod syscalls;
pub mod user;
pub mod wrk;

/// The folder `build.rs` fills: `index.html` (embedded) and `video.bin` (on disk).
pub const MEDIA_DIR: &str = concat!(env!("OUT_DIR"), "/media");

/// The large file every server sends.
pub const VIDEO_PATH: &str = concat!(env!("OUT_DIR"), "/media/video.bin");

/// Its URL path.
pub const VIDEO_URL: &str = "/video.bin";

/// Its size in bytes (64 MiB); `build.rs` writes exactly this many.
pub const VIDEO_LEN: u64 = 64 << 20;

/// [`MEDIA_DIR`] as `embed_assets!` sees it: `index.html` embedded, `video.bin`
/// (over 1 MiB) listed and streamed from disk.
pub static MEDIA: Assets = embed_assets!(
    "$OUT_DIR/media",
    max_embed_size = "1 MiB",
    on_disk = "allow"
);

/// The files of `bench-disk cold`, by name only (`f00.bin` … `f31.bin`): listed as on
/// disk (`disk`: the placeholders compress to nothing, and a file that compresses under
/// the limit would be embedded), and read at run time from the folder given to
/// `.disk_root()`, where `bench-disk cold` writes them large.
pub static COLD: Assets = embed_assets!(
    "$OUT_DIR/cold",
    max_embed_size = "1 KiB",
    disk = ["*.bin"],
    on_disk = "allow"
);

/// How many files [`COLD`] names.
pub const COLD_FILES: usize = 32;

/// A command-line value that must be a whole number from `min` to `max`, or the
/// message that says so.
///
/// # Errors
/// When `text` is not such a number.
pub fn whole_number(text: &str, min: u64, max: u64) -> Result<u64, String> {
    match text.parse::<u64>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(format!(
            "`{text}` is not a whole number from {min} to {max}"
        )),
    }
}
