//! [`BodyCache`]: the bytes of the small files of a folder served whole
//! (`ServeAssets::folder`), cached by path and version so that a request whose file has
//! not changed is answered without opening, reading or hashing it, and bounded in
//! bytes.
//!
//! It follows the disk: every request looks at the file's metadata first (one `stat`,
//! on the request's own thread) and takes the cached bytes only when the file is still
//! of the version they were read from: the same inode, length, mtime and ctime. A file
//! replaced in place or by a rename, even with the same length and its mtime put back,
//! has another ctime (which no program can set back), so its next request reads it
//! again.

use std::any::Any;
use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use bytes::Bytes;
use quick_cache::Weighter;

use super::version::FileVersion;
use crate::coding::{CODINGS, Coding, Encoding};

/// What an entry is counted for beyond its bytes: the entry itself, and the header
/// fields the service builds for it (up to three sets of a 200's and a 304's, as maps
/// and as `serve` writes them out), with the allocator's own overhead: measured, as
/// the resident memory a crawl of small files adds per cached file beyond its bytes
/// (`tests/tests/folder_memory.rs`).
const ENTRY_OVERHEAD: u64 = 4096;

/// A body this long or longer may get a copy in sealed memory of its own under
/// `serve` (`Pages::FROM`), as much memory again: counted from the start.
pub(crate) const SEALED_FROM: usize = 16 * 1024;

/// Cached bodies by path, at most `limit` bytes in all (their own, what goes with
/// them, and their sealed copies), evicted by S3-FIFO (quick_cache): an entry is cached
/// on trial in a small queue first, and only one asked for again while there moves on
/// to the main queue, so a scan of files each read once (a crawler, a backup) passes
/// through the small queue without pushing out the files asked for again and again.
#[derive(Debug)]
pub(crate) struct BodyCache {
    limit: u64,
    entries: Mutex<Entries>,
}

#[derive(Debug)]
struct Entries {
    /// By the path's bytes (hashed as one string, not component by component as a
    /// `Path` is).
    cached: quick_cache::unsync::Cache<OsString, Cached, Weight>,
    /// What is known of the siblings of files whose bytes are not cached (larger than a
    /// chunk, or than the whole cache), by the file's path: at most [`UNCACHED`].
    uncached: HashMap<OsString, Siblings>,
}

/// An entry's weight, computed once when it is made (`Cached::weight`).
#[derive(Debug, Clone, Copy)]
struct Weight;

impl Weighter<OsString, Cached> for Weight {
    fn weight(&self, _: &OsString, cached: &Cached) -> u64 {
        cached.weight
    }
}

/// How many files' siblings [`Entries::uncached`] knows of at most (a few hundred bytes
/// each); past that, one is forgotten for each new one, and checked again when asked.
const UNCACHED: usize = 4096;

/// What is known of a file's siblings at one version of it.
#[derive(Debug, Clone, Copy)]
struct Siblings {
    version: FileVersion,
    known: [SiblingCheck; SIBLINGS.len()],
}

/// One file's bytes, of one version.
#[derive(Debug, Clone)]
pub(crate) struct Cached {
    pub(crate) version: FileVersion,
    pub(crate) bytes: Bytes,
    pub(crate) etag: Arc<str>,
    /// The media type the file's path and bytes give (a charset for UTF-8 text).
    pub(crate) content_type: Arc<str>,
    /// The header fields of its 200 and 304, built on first use by the service: as
    /// itself without and with `Vary: Accept-Encoding` (whether a sibling exists can
    /// change while the bytes do not), and as the precompressed sibling of its file.
    pub(crate) heads: Arc<[OnceLock<Heads>; 3]>,
    /// What is known of its precompressed siblings ([`SIBLINGS`]' order) at
    /// this version of it.
    pub(crate) siblings: [SiblingCheck; SIBLINGS.len()],
    /// What it counts for against the limit.
    weight: u64,
}

/// What the service builds once for a cached version (its header fields): opaque to the
/// cache, which names no HTTP type, and cached exactly as long as the bytes it describes.
pub(crate) type Heads = Arc<dyn Any + Send + Sync>;

/// The codings a precompressed sibling may have, with the extension that names it, in
/// the server's order of preference (as for the embedded bodies: br, zstd, gzip): the
/// rows of the codings table with a file extension. A `.zst` sibling is looked for
/// with the `zstd` feature, which links a zstd decoder to check it (`siblings`).
pub(crate) const SIBLINGS: [(Encoding, &str); sibling_codings()] = {
    let mut siblings = [(Encoding::Identity, ""); sibling_codings()];
    let (mut row, mut at) = (0, 0);
    while row < CODINGS.len() {
        if let Some(ext) = sibling_extension(&CODINGS[row]) {
            siblings[at] = (CODINGS[row].encoding, ext);
            at += 1;
        }
        row += 1;
    }
    siblings
};

/// The extension of a sibling in `coding`, if this build looks for such siblings.
const fn sibling_extension(coding: &Coding) -> Option<&'static str> {
    if matches!(coding.encoding, Encoding::Zstd) && !cfg!(feature = "zstd") {
        return None;
    }
    coding.file_extension
}

/// How many codings [`SIBLINGS`] has.
const fn sibling_codings() -> usize {
    let (mut row, mut count) = (0, 0);
    while row < CODINGS.len() {
        if sibling_extension(&CODINGS[row]).is_some() {
            count += 1;
        }
        row += 1;
    }
    count
}

/// What a cached file knows of one of its precompressed siblings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SiblingCheck {
    /// Not looked at since this version of the file was read.
    Unknown,
    /// None there when last looked at, at this instant (looked at again a second on,
    /// for a sibling written after its file).
    Absent(Instant),
    /// This version of the sibling does not decode to the file: passed over.
    Stale(FileVersion),
    /// This version of the sibling decodes to exactly the file's bytes.
    Matches(FileVersion),
}

impl BodyCache {
    /// An empty cache that keeps at most `limit` bytes (see [`BodyCache`]).
    pub(crate) fn new(limit: u64) -> Self {
        // quick_cache sizes its table by the number of entries it expects: files of
        // some 16 KiB on average, within reason.
        let expected = usize::try_from(limit / (16 * 1024))
            .unwrap_or(usize::MAX)
            .clamp(16, 1 << 16);
        BodyCache {
            limit,
            entries: Mutex::new(Entries {
                cached: quick_cache::unsync::Cache::with_weighter(expected, limit.max(1), Weight),
                uncached: HashMap::new(),
            }),
        }
    }

    /// The entries, locked (a panic elsewhere while holding them leaves them whole:
    /// each change is one insert or removal).
    fn entries(&self) -> MutexGuard<'_, Entries> {
        self.entries
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The bytes of `path` when they are cached for `version` (which counts as a use).
    pub(crate) fn get(&self, path: &Path, version: &FileVersion) -> Option<Cached> {
        let entries = self.entries();
        entries
            .cached
            .get(path.as_os_str())
            .filter(|cached| cached.version == *version)
            .cloned()
    }

    /// Caches `bytes`, of `path` at `version`, in place of what was cached for it, when
    /// they fit; others make room as S3-FIFO says.
    pub(crate) fn insert(&self, path: &Path, version: FileVersion, bytes: Bytes, etag: Arc<str>) {
        let content_type: Arc<str> =
            embed_assets_shared::content_type(path, || std::str::from_utf8(&bytes).is_ok()).into();
        let len = bytes.len() as u64;
        let sealed = if bytes.len() >= SEALED_FROM { len } else { 0 };
        let weight = len
            + sealed
            + ENTRY_OVERHEAD
            + path.as_os_str().len() as u64
            + etag.len() as u64
            + content_type.len() as u64;
        let mut entries = self.entries();
        if weight > self.limit {
            // Never cached: nor is an older version of it.
            entries.cached.remove(path.as_os_str());
            return;
        }
        entries.uncached.remove(path.as_os_str());
        entries.cached.insert(
            path.as_os_str().to_owned(),
            Cached {
                version,
                bytes,
                etag,
                content_type,
                heads: Arc::default(),
                siblings: [SiblingCheck::Unknown; SIBLINGS.len()],
                weight,
            },
        );
    }

    /// Forgets all that is known of `path`: it names no file any more.
    pub(crate) fn forget(&self, path: &Path) {
        let mut entries = self.entries();
        entries.cached.remove(path.as_os_str());
        entries.uncached.remove(path.as_os_str());
    }

    /// Notes, for the file at `path` at `version`, what is known of its sibling number
    /// `index`: with its cached bytes when they are cached at that version (forgotten with
    /// them), else apart (forgotten when the file changes, or past [`UNCACHED`]).
    pub(crate) fn note_sibling(
        &self,
        path: &Path,
        version: &FileVersion,
        index: usize,
        sibling: SiblingCheck,
    ) {
        let mut entries = self.entries();
        // A peek: noting is not a use.
        if let Some(mut cached) = entries.cached.peek_mut(path.as_os_str()) {
            if cached.version == *version {
                if let Some(slot) = cached.siblings.get_mut(index) {
                    *slot = sibling;
                }
                return;
            }
        }
        let uncached = &mut entries.uncached;
        if !uncached.contains_key(path.as_os_str()) && uncached.len() >= UNCACHED {
            if let Some(any) = uncached.keys().next().cloned() {
                uncached.remove(&any);
            }
        }
        let noted = uncached
            .entry(path.as_os_str().to_owned())
            .or_insert(Siblings {
                version: *version,
                known: [SiblingCheck::Unknown; SIBLINGS.len()],
            });
        if noted.version != *version {
            *noted = Siblings {
                version: *version,
                known: [SiblingCheck::Unknown; SIBLINGS.len()],
            };
        }
        if let Some(slot) = noted.known.get_mut(index) {
            *slot = sibling;
        }
    }

    /// What is known of the sibling number `index` of the file at `path` at `version`,
    /// cached or not.
    pub(crate) fn sibling(&self, path: &Path, version: &FileVersion, index: usize) -> SiblingCheck {
        let entries = self.entries();
        let known = match entries.cached.peek(path.as_os_str()) {
            Some(cached) if cached.version == *version => Some(&cached.siblings),
            _ => entries
                .uncached
                .get(path.as_os_str())
                .filter(|noted| noted.version == *version)
                .map(|noted| &noted.known),
        };
        known
            .and_then(|known| known.get(index).copied())
            .unwrap_or(SiblingCheck::Unknown)
    }

    /// What the entries count for, in all.
    #[cfg(test)]
    fn len(&self) -> u64 {
        self.entries().cached.weight()
    }
}

/// How long a sibling found absent is taken as absent before it is looked for again.
const RECHECK: Duration = Duration::from_secs(1);

/// A file found in the cache at its current version, with the precompressed siblings
/// that may stand for it ([`BodyCache::hit`]).
#[derive(Debug)]
pub(crate) struct CacheHit {
    pub(crate) file: Cached,
    /// The file's path, which names its siblings.
    path: PathBuf,
    /// The siblings that exist and are not known to differ from the file, with their
    /// codings, in the server's order of preference (the rest `None`).
    pub(crate) siblings: [Option<(Offered, Encoding)>; SIBLINGS.len()],
    /// Whether any sibling exists, matching or not: the choice then depends on
    /// `Accept-Encoding`.
    pub(crate) negotiated: bool,
}

/// A sibling a request may be answered with.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Offered {
    /// The extension that names it.
    ext: &'static str,
    /// The version of it found to decode to the file, whose bytes the cache holds;
    /// `None` while it is still to be read or checked (a request that prefers it goes
    /// the way that reads).
    checked: Option<FileVersion>,
}

impl CacheHit {
    /// The cached bytes of `offered`, the sibling a request chose; `None` when they
    /// must be read first. Only the chosen sibling is looked up, so a request pays for
    /// one. Its date is the later of its own and the file's (as
    /// [`dated_after`](super::siblings::dated_after) says why).
    pub(crate) fn sibling(&self, cache: &BodyCache, offered: Offered) -> Option<Cached> {
        let mut sibling = cache.get(&sibling_path(&self.path, offered.ext), &offered.checked?)?;
        let stated = &mut sibling.version.stated;
        *stated = (*stated).max(self.file.version.stated);
        Some(sibling)
    }
}

impl BodyCache {
    /// The file at `relative` below `folder` and its siblings, when all are cached at
    /// their current versions: what a request is answered from with no read and no hop
    /// to the blocking pool, the file looked at with one `lstat` on the request's own
    /// thread (which gives its version, and tells a link from a file). `None` when
    /// anything must be read first (a file or sibling not cached, or cached for another
    /// version, or a sibling not checked against the file), or the path names no
    /// regular file, or a symbolic link is on its way and `follow_symlinks` is off.
    pub(crate) fn hit(
        &self,
        folder: &Path,
        relative: &str,
        follow_symlinks: bool,
    ) -> Option<CacheHit> {
        let path = folder.join(relative);
        // The file itself, not a link (`lstat`). The folders on the way need no look of
        // their own: an entry is made only by the way that reads, after it found no
        // link on the way, and a folder on the way swapped for a link since would lead
        // to another file (another device, inode or ctime: another version), unless to
        // this very file, unchanged, whose bytes are the ones cached.
        let version = FileVersion::of_regular(&path, !follow_symlinks)?;
        let file = self.get(&path, &version)?;
        // The siblings as last looked at with this version of the file. One found to
        // match is not looked at again: it is right for these bytes whatever happens to
        // it on disk since (the copy cached is what is sent). One found stale is looked
        // at again (a sibling written after its file), and one absent a second on.
        // Unchecked: offered, and read if the request prefers it.
        let mut siblings = [None; SIBLINGS.len()];
        let mut negotiated = false;
        let known = SIBLINGS.iter().zip(file.siblings);
        for ((&(encoding, ext), known), slot) in known.zip(&mut siblings) {
            let checked = match known {
                SiblingCheck::Absent(at) if at.elapsed() < RECHECK => continue,
                // Looked for again if the request prefers it; until it is found, the
                // answer does not depend on `Accept-Encoding`.
                SiblingCheck::Absent(_) => {
                    *slot = Some((Offered { ext, checked: None }, encoding));
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
            *slot = Some((Offered { ext, checked }, encoding));
        }
        Some(CacheHit {
            file,
            path,
            siblings,
            negotiated,
        })
    }
}

/// `path` with `.ext` added to its name: its sibling in the coding `ext` names.
pub(super) fn sibling_path(path: &Path, ext: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".");
    name.push(ext);
    name.into()
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn version_of(path: &Path) -> FileVersion {
        FileVersion::of(&std::fs::metadata(path).unwrap())
    }

    fn scratch(name: &str, bytes: &[u8]) -> PathBuf {
        let path =
            std::env::temp_dir().join(format!("embed-assets-cache-{}-{name}", std::process::id()));
        std::fs::write(&path, bytes).unwrap();
        path
    }

    #[test]
    fn a_body_is_given_back_only_for_its_own_version() {
        let cache = BodyCache::new(1 << 20);
        let path = scratch("version", b"first");
        let first = version_of(&path);
        cache.insert(&path, first, Bytes::from_static(b"first"), "\"a\"".into());
        assert_eq!(&cache.get(&path, &first).unwrap().bytes[..], b"first");
        let one = cache.len();
        // The same length, the mtime put back: another version all the same.
        let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(10));
        std::fs::write(&path, b"other").unwrap();
        let file = std::fs::File::options().write(true).open(&path).unwrap();
        file.set_modified(mtime).unwrap();
        let second = version_of(&path);
        assert_ne!(first, second);
        assert!(cache.get(&path, &second).is_none());
        cache.insert(&path, second, Bytes::from_static(b"other"), "\"b\"".into());
        assert_eq!(&cache.get(&path, &second).unwrap().bytes[..], b"other");
        assert!(cache.get(&path, &first).is_none(), "replaced, not added");
        assert_eq!(cache.len(), one);
        let _ = std::fs::remove_file(&path);
    }

    /// `n` scratch files of `len` bytes each, named `name-0`…, with their versions.
    fn files(name: &str, n: usize, len: usize) -> Vec<(PathBuf, FileVersion)> {
        (0..n)
            .map(|i| {
                let path = scratch(&format!("{name}-{i}"), &vec![b'x'; len]);
                let version = version_of(&path);
                (path, version)
            })
            .collect()
    }

    fn keep(cache: &BodyCache, (path, version): &(PathBuf, FileVersion), len: usize) {
        cache.insert(path, *version, Bytes::from(vec![b'x'; len]), "\"x\"".into());
    }

    fn remove_all(files: &[(PathBuf, FileVersion)]) {
        for (path, _) in files {
            let _ = std::fs::remove_file(path);
        }
    }

    #[test]
    fn it_keeps_no_more_than_its_limit_counting_what_goes_with_each_body() {
        let limit = 64 * 1024;
        let cache = BodyCache::new(limit);
        let all = files("limit", 40, 4096);
        for file in &all {
            keep(&cache, file, 4096);
            assert!(cache.len() <= limit, "{} over {limit}", cache.len());
        }
        // Each counts for its bytes and more: fewer than limit / 4 KiB are cached.
        let cached = all
            .iter()
            .filter(|(p, v)| cache.get(p, v).is_some())
            .count();
        assert!(cached > 0 && cached < 16, "{cached} cached");
        // A body that may get a sealed copy counts twice; one larger than the whole
        // cache is not cached, and nothing is evicted for it.
        let before = cache.len();
        let big = files("limit-big", 1, 40 * 1024);
        keep(&cache, &big[0], 40 * 1024);
        assert!(cache.get(&big[0].0, &big[0].1).is_none());
        assert_eq!(cache.len(), before);
        remove_all(&all);
        remove_all(&big);
    }

    #[test]
    fn a_hot_set_survives_a_scan_of_files_read_once() {
        let cache = BodyCache::new(256 * 1024);
        let hot = files("hot", 8, 4096);
        for file in &hot {
            keep(&cache, file, 4096);
        }
        for _ in 0..3 {
            for (path, version) in &hot {
                assert!(cache.get(path, version).is_some());
            }
        }
        // A crawl: four times the cache in files each read once (cached when read, and
        // not asked for again).
        let cold = files("cold", 160, 4096);
        for file in &cold {
            keep(&cache, file, 4096);
        }
        let survived = hot
            .iter()
            .filter(|(p, v)| cache.get(p, v).is_some())
            .count();
        assert_eq!(
            survived,
            hot.len(),
            "the hot files were pushed out by the scan"
        );
        assert!(cache.len() <= 256 * 1024);
        remove_all(&hot);
        remove_all(&cold);
    }

    #[test]
    fn a_forgotten_path_gives_nothing_back_and_counts_for_nothing() {
        let cache = BodyCache::new(1 << 20);
        let file = files("forget", 1, 100);
        keep(&cache, &file[0], 100);
        cache.note_sibling(
            &file[0].0,
            &file[0].1,
            0,
            SiblingCheck::Absent(Instant::now()),
        );
        assert!(cache.len() > 0);
        cache.forget(&file[0].0);
        assert!(cache.get(&file[0].0, &file[0].1).is_none());
        assert_eq!(
            cache.sibling(&file[0].0, &file[0].1, 0),
            SiblingCheck::Unknown
        );
        assert_eq!(cache.len(), 0);
        remove_all(&file);
    }
}
