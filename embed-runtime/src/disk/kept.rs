//! A request of a folder served whole answered from what its [`BodyCache`] keeps, with
//! no read and no hop to the blocking pool: the file looked at with one `lstat` on the
//! request's own thread (which gives its version, and tells a link from a file), then
//! it and the precompressed siblings found to match that version taken from the cache. Anything not
//! known yet (a file or sibling not kept, or kept for another version, or a sibling not
//! checked against the file) leaves the request to the path that reads.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::cache::{BodyCache, Cached, SIBLINGS, SiblingCheck};
use super::siblings::sibling_path;
use super::version::FileVersion;
use crate::coding::Encoding;

/// How long a sibling found absent is taken as absent before it is looked for again.
const RECHECK: Duration = Duration::from_secs(1);

/// A file kept at its current version, with its siblings that may stand for it.
#[derive(Debug)]
pub(crate) struct Kept {
    pub(crate) file: Cached,
    /// The file's path, which names its siblings.
    path: PathBuf,
    /// The siblings that exist and are not known to differ from the file, in the
    /// server's order of preference (the rest `None`).
    pub(crate) siblings: [Option<Offered>; SIBLINGS.len()],
    /// Whether any sibling exists, matching or not: the choice then depends on
    /// `Accept-Encoding`.
    pub(crate) negotiated: bool,
}

/// A sibling a request may be answered with.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Offered {
    pub(crate) encoding: Encoding,
    /// The extension that names it.
    ext: &'static str,
    /// The version of it found to decode to the file, whose bytes the cache keeps;
    /// `None` while it is still to be read or checked (a request that prefers it goes
    /// the way that reads).
    checked: Option<FileVersion>,
}

impl Kept {
    /// The kept bytes of `offered`, the sibling a request chose; `None` when they must
    /// be read first. Only the chosen sibling is looked up, so a request pays for one.
    /// Its date is the later of its own and the file's (as
    /// [`dated_after`](super::siblings::dated_after) says why).
    pub(crate) fn sibling(&self, cache: &BodyCache, offered: Offered) -> Option<Cached> {
        let mut sibling = cache.get(&sibling_path(&self.path, offered.ext), &offered.checked?)?;
        let stated = &mut sibling.version.stated;
        *stated = (*stated).max(self.file.version.stated);
        Some(sibling)
    }
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
    // again (a sibling written after its file), and one absent a second on. Unchecked:
    // offered, and read if the request prefers it.
    let mut siblings = [None; SIBLINGS.len()];
    let mut negotiated = false;
    for ((&(encoding, ext), known), slot) in SIBLINGS.iter().zip(file.siblings).zip(&mut siblings) {
        let checked = match known {
            SiblingCheck::Absent(at) if at.elapsed() < RECHECK => continue,
            // Looked for again if the request prefers it; until it is found, the
            // answer does not depend on `Accept-Encoding`.
            SiblingCheck::Absent(_) => {
                *slot = Some(Offered {
                    encoding,
                    ext,
                    checked: None,
                });
                continue;
            }
            SiblingCheck::Unknown => None,
            SiblingCheck::Stale(checked) => {
                negotiated = true;
                let now = FileVersion::of_regular(&sibling_path(&path, ext), !follow_symlinks);
                if now == Some(checked) {
                    continue;
                }
                None
            }
            SiblingCheck::Matches(checked) => Some(checked),
        };
        negotiated = true;
        *slot = Some(Offered {
            encoding,
            ext,
            checked,
        });
    }
    Some(Kept {
        file,
        path,
        siblings,
        negotiated,
    })
}
