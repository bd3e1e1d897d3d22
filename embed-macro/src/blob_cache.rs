//! The cache of encoded bodies: files named by their content's hash and the settings,
//! written once, read by every later build. The encode, rewrite and delta phases keep
//! their bodies there, and the generated code includes them with `include_bytes!`.

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

/// Where compressed bodies go: `$OUT_DIR` when the crate has a build script, else next
/// to rustc's output (`target/<profile>`), else the system temp folder.
pub(crate) fn cache_dir() -> PathBuf {
    const NAME: &str = "embed-assets-cache";
    if let Some(out_dir) = std::env::var_os("OUT_DIR") {
        return Path::new(&out_dir).join(NAME);
    }
    let mut args = std::env::args_os();
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
    std::env::temp_dir().join(NAME)
}

#[cfg(test)]
mod tests {
    use super::*;

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
