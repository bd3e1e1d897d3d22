//! A request of a folder served whole answered from what its [`BodyCache`] keeps, with
//! no read and no hop to the blocking pool: the path's components looked at with one
//! `lstat` each on the request's own thread (which also tells that no symbolic link is
//! on the way, and gives the file's version), then the file and each of its
//! precompressed siblings taken from the cache at their current versions. Anything not
//! known yet (a file or sibling not kept, or kept for another version, or a sibling not
//! checked against the file) leaves the request to the path that reads.

use std::path::Path;

use super::cache::{BodyCache, Cached};
use super::siblings::{SIBLINGS, sibling_path};
use super::version::FileVersion;
use crate::coding::Encoding;

/// A file kept at its current version, with its siblings that decode to it.
#[derive(Debug)]
pub(crate) struct Kept {
    pub(crate) file: Cached,
    /// The siblings kept and checked, in the server's order of preference.
    pub(crate) siblings: Vec<(Encoding, Cached)>,
    /// Whether any sibling exists, matching or not: the choice then depends on
    /// `Accept-Encoding`.
    pub(crate) negotiated: bool,
}

/// The file at `relative` below `folder` and its siblings, when all are kept at their
/// current versions; `None` when anything must be read first (or the path names no
/// regular file, or a symbolic link is on its way and `follow_symlinks` is off).
pub(crate) fn kept(
    cache: &BodyCache,
    folder: &Path,
    relative: &str,
    follow_symlinks: bool,
) -> Option<Kept> {
    let path = folder.join(relative);
    let version = if follow_symlinks {
        version_of(&path, false)?
    } else {
        // Every folder on the way, then the file itself, not a link.
        let mut at = folder.to_path_buf();
        let mut parts = relative.split('/').peekable();
        loop {
            at.push(parts.next()?);
            if parts.peek().is_none() {
                break version_of(&at, true)?;
            }
            let meta = std::fs::symlink_metadata(&at).ok()?;
            if !meta.is_dir() {
                return None;
            }
        }
    };
    let file = cache.get(&path, &version)?;
    let mut siblings = Vec::new();
    let mut negotiated = false;
    for (encoding, ext) in SIBLINGS {
        let sibling = sibling_path(&path, ext);
        let Some(sibling_version) = version_of(&sibling, !follow_symlinks) else {
            continue;
        };
        negotiated = true;
        // Checked against this version of the file: kept if it matches, passed over
        // if not; not checked yet: read.
        if cache.matches(&sibling, &sibling_version, &version)? {
            siblings.push((encoding, cache.get(&sibling, &sibling_version)?));
        }
    }
    Some(Kept {
        file,
        siblings,
        negotiated,
    })
}

/// The version of the regular file at `path` (by `lstat` when `no_link`, so a link is
/// no regular file), or `None`.
fn version_of(path: &Path, no_link: bool) -> Option<FileVersion> {
    let meta = if no_link {
        std::fs::symlink_metadata(path)
    } else {
        std::fs::metadata(path)
    };
    meta.ok()
        .filter(std::fs::Metadata::is_file)
        .map(|meta| FileVersion::of(&meta))
}
