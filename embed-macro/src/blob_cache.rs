//! The cache of encoded bodies: files named by their content's hash and the settings,
//! written once, read by every later build. The encode, rewrite and delta phases keep
//! their bodies there, and the generated code includes them with `include_bytes!`.

use std::ffi::OsString;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The modification time of every cache blob, in seconds: 2000-01-01, before any build.
const BLOB_MTIME_SECS: u64 = 946_684_800;

/// The bytes at `path` if an earlier build wrote them, else `make()` written there
/// atomically (rename), so concurrent rustc runs never read a partial file.
pub(crate) fn cached(path: &Path, make: impl FnOnce() -> Vec<u8>) -> std::io::Result<Vec<u8>> {
    if let Ok(bytes) = fs::read(path) {
        return Ok(bytes);
    }
    let bytes = make();
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension(
        format!(
            "tmp{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        )
        .replace(['(', ')'], ""),
    );
    let file = fs::File::create(&tmp)?;
    (&file).write_all(&bytes)?;
    // NOTE: an old mtime, not "now": the blob is written while rustc runs, after
    // cargo's dep-info timestamp, so a fresh mtime made the next no-op build see the
    // blob as changed and recompile the crate. Its content is keyed by hash anyway.
    file.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(BLOB_MTIME_SECS))?;
    drop(file);
    fs::rename(&tmp, path)?;
    Ok(bytes)
}

/// Where compressed bodies go: next to rustc's output (`target/<profile>`), else
/// `$OUT_DIR`, else the system temp folder.
///
/// rustc's `--out-dir` comes first: cargo always passes it, while an `OUT_DIR` can be
/// inherited from the environment of whatever started cargo (a `cargo run` of a
/// program with a build script that runs `cargo build` itself), which would put the
/// cache where `cargo clean` never looks.
pub(crate) fn cache_dir() -> PathBuf {
    cache_dir_of(std::env::args_os(), std::env::var_os("OUT_DIR"))
}

/// [`cache_dir`] for rustc's arguments `args` and the environment's `out_dir`.
fn cache_dir_of(mut args: impl Iterator<Item = OsString>, out_dir: Option<OsString>) -> PathBuf {
    const NAME: &str = "embed-assets-cache";
    while let Some(arg) = args.next() {
        if arg == "--out-dir" {
            if let Some(dir) = args.next() {
                let dir = PathBuf::from(dir);
                // target/debug/deps → target/debug/embed-assets-cache
                let base = dir.parent().map_or(dir.clone(), Path::to_path_buf);
                return base.join(NAME);
            }
        }
    }
    if let Some(out_dir) = out_dir {
        return Path::new(&out_dir).join(NAME);
    }
    std::env::temp_dir().join(NAME)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_is_next_to_rustcs_output_whatever_out_dir_says() {
        let args = |list: &[&str]| {
            list.iter()
                .map(OsString::from)
                .collect::<Vec<_>>()
                .into_iter()
        };
        let rustc = args(&[
            "rustc",
            "--crate-name",
            "app",
            "--out-dir",
            "/t/release/deps",
        ]);
        assert_eq!(
            cache_dir_of(rustc, Some("/elsewhere/out".into())),
            Path::new("/t/release/embed-assets-cache")
        );
        assert_eq!(
            cache_dir_of(args(&["rustc"]), Some("/b/out".into())),
            Path::new("/b/out/embed-assets-cache")
        );
        assert_eq!(
            cache_dir_of(args(&["rustc"]), None),
            std::env::temp_dir().join("embed-assets-cache")
        );
    }

    #[test]
    fn cache_blobs_are_written_once_with_an_old_mtime() {
        let dir = std::env::temp_dir().join(format!("embed-assets-cache-{}", std::process::id()));
        let path = dir.join("blob.gz9");
        let _ = fs::remove_file(&path);
        assert_eq!(cached(&path, || b"made".to_vec()).unwrap(), b"made");
        assert_eq!(
            cached(&path, || panic!("cached, not made again")).unwrap(),
            b"made"
        );
        let mtime = fs::metadata(&path).unwrap().modified().unwrap();
        let secs = mtime
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs();
        assert_eq!(secs, BLOB_MTIME_SECS, "older than any build's dep-info");
        fs::remove_dir_all(dir).unwrap();
    }
}
