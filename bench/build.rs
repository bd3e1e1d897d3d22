//! Writes the benchmark's media folder into `$OUT_DIR/media`: a deterministic 64 MiB
//! `video.bin` of xorshift bytes (so nothing can compress it) and a small `index.html`.

use std::fs;
use std::io::{self, Write};
use std::path::Path;

/// Size of `video.bin`; `bench::VIDEO_LEN` must say the same.
const VIDEO_LEN: u64 = 64 << 20;

fn main() -> io::Result<()> {
    println!("cargo:rerun-if-changed=build.rs");
    let out_dir = std::env::var_os("OUT_DIR").ok_or_else(|| io::Error::other("no OUT_DIR"))?;
    let media = Path::new(&out_dir).join("media");
    fs::create_dir_all(&media)?;
    let index = media.join("index.html");
    let html = "<!doctype html>\n<title>bench</title>\n<video src=\"/video.bin\"></video>\n";
    if fs::read_to_string(&index).ok().as_deref() != Some(html) {
        fs::write(&index, html)?;
    }
    let video = media.join("video.bin");
    if fs::metadata(&video).map(|m| m.len()).ok() != Some(VIDEO_LEN) {
        write_video(&video)?;
    }
    Ok(())
}

/// xorshift64 from a fixed seed, little-endian words: the same bytes on every machine.
fn write_video(path: &Path) -> io::Result<()> {
    let tmp = path.with_extension("bin.tmp");
    let mut out = io::BufWriter::with_capacity(1 << 20, fs::File::create(&tmp)?);
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    for _ in 0..VIDEO_LEN / 8 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        out.write_all(&state.to_le_bytes())?;
    }
    out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
    fs::rename(&tmp, path)
}
