//! A request of a folder served whole answered from what its [`BodyCache`] keeps, with
//! no read and no hop to the blocking pool: the file looked at with one `lstat` on the
//! request's own thread (which gives its version, and tells a link from a file), then
//! it and the precompressed siblings found to match that version taken from the cache. Anything not
//! known yet (a file or sibling not kept, or kept for another version, or a sibling not
//! checked against the file) leaves the request to the path that reads.

use std::path::Path;
use std::time::Duration;

use super::cache::{BodyCache, Cached, Sibling};
use super::siblings::{SIBLINGS, sibling_path};
use super::version::FileVersion;
use crate::coding::Encoding;

/// How long a sibling found absent is taken as absent before it is looked for again.
const RECHECK: Duration = Duration::from_secs(1);

/// A file kept at its current version, with its siblings that decode to it.
#[derive(Debug)]
pub(crate) struct Kept {
    pub(crate) file: Cached,
    /// The siblings that exist and are not known to differ from the file, in the
    /// server's order of preference: kept and checked (`Some`), or still to be read or
    /// checked (`None`: a request that prefers it goes the way that reads).
    pub(crate) siblings: Vec<(Encoding, Option<Cached>)>,
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
    // The file itself, not a link (`lstat`). The folders on the way need no look of
    // their own: an entry is kept only by the way that reads, after it found no link
    // on the way, and a folder on the way swapped for a link since would lead to
    // another file (another device, inode or ctime: another version), unless to this
    // very file, unchanged, whose bytes are the ones kept.
    let version = FileVersion::of_regular(&path, !follow_symlinks)?;
    let file = cache.get(&path, &version)?;
    // The siblings as last looked at with this version of the file. One found to
    // match is not looked at again: it is right for these bytes whatever happens to it
    // on disk since (the copy kept is what is sent). One found stale is looked at
    // again (a sibling written after its file), and one absent a second on. `None`:
    // offered, and read if the request prefers it.
    let mut siblings = Vec::new();
    let mut negotiated = false;
    for (&(encoding, ext), known) in SIBLINGS.iter().zip(file.siblings) {
        match known {
            Sibling::Absent(at) if at.elapsed() < RECHECK => continue,
            Sibling::Absent(_) => {
                siblings.push((encoding, None));
                continue;
            }
            Sibling::Stale(checked) => {
                let now = FileVersion::of_regular(&sibling_path(&path, ext), !follow_symlinks);
                if now != Some(checked) {
                    siblings.push((encoding, None));
                }
            }
            Sibling::Unknown => siblings.push((encoding, None)),
            Sibling::Matches(checked) => {
                let kept = cache.get(&sibling_path(&path, ext), &checked);
                siblings.push((encoding, kept));
            }
        }
        negotiated = true;
    }
    Some(Kept {
        file,
        siblings,
        negotiated,
    })
}
