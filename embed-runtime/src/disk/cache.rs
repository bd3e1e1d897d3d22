//! [`BodyCache`]: the bytes of the small files of a folder served whole
//! (`ServeAssets::folder`), kept by path and version so that a request whose file has
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
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Instant;

use bytes::Bytes;
use quick_cache::Weighter;

use super::version::FileVersion;
use crate::coding::{CODINGS, Coding, Encoding};

/// What an entry is counted for beyond its bytes: the entry itself, and the header
/// fields the service builds for it (up to three sets of a 200's and a 304's, as maps
/// and as `serve` writes them out), with the allocator's own overhead: measured, as
/// the resident memory a crawl of small files adds per kept file beyond its bytes
/// (`tests/tests/folder_memory.rs`).
const ENTRY_OVERHEAD: u64 = 4096;

/// A body this long or longer may get a copy in sealed memory of its own under
/// `serve` (`Pages::FROM`), as much memory again: counted from the start.
pub(crate) const SEALED_FROM: usize = 16 * 1024;

/// Cached bodies by path, at most `limit` bytes in all (their own, what goes with
/// them, and their sealed copies), evicted by S3-FIFO (quick_cache): an entry is kept
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
    kept: quick_cache::unsync::Cache<OsString, Cached, Weight>,
    /// What is known of the siblings of files whose bytes are not kept (larger than a
    /// chunk, or than the whole cache), by the file's path: at most [`UNKEPT`].
    unkept: HashMap<OsString, Siblings>,
}

/// An entry's weight, computed once when it is made (`Cached::weight`).
#[derive(Debug, Clone, Copy)]
struct Weight;

impl Weighter<OsString, Cached> for Weight {
    fn weight(&self, _: &OsString, cached: &Cached) -> u64 {
        cached.weight
    }
}

/// How many files' siblings [`Entries::unkept`] knows of at most (a few hundred bytes
/// each); past that, one is forgotten for each new one, and checked again when asked.
const UNKEPT: usize = 4096;

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

/// What the service builds once for a kept version (its header fields): opaque to the
/// cache, which names no HTTP type, and kept exactly as long as the bytes it describes.
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

/// What a kept file knows of one of its precompressed siblings.
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
                kept: quick_cache::unsync::Cache::with_weighter(expected, limit.max(1), Weight),
                unkept: HashMap::new(),
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
            .kept
            .get(path.as_os_str())
            .filter(|cached| cached.version == *version)
            .cloned()
    }

    /// Keeps `bytes`, of `path` at `version`, in place of what was kept for it, when
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
            // Never kept: nor is an older version of it.
            entries.kept.remove(path.as_os_str());
            return;
        }
        entries.unkept.remove(path.as_os_str());
        entries.kept.insert(
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
        entries.kept.remove(path.as_os_str());
        entries.unkept.remove(path.as_os_str());
    }

    /// Notes, for the file at `path` at `version`, what is known of its sibling number
    /// `index`: with its kept bytes when they are kept at that version (forgotten with
    /// them), else apart (forgotten when the file changes, or past [`UNKEPT`]).
    pub(crate) fn note_sibling(
        &self,
        path: &Path,
        version: &FileVersion,
        index: usize,
        sibling: SiblingCheck,
    ) {
        let mut entries = self.entries();
        // A peek: noting is not a use.
        if let Some(mut cached) = entries.kept.peek_mut(path.as_os_str()) {
            if cached.version == *version {
                if let Some(slot) = cached.siblings.get_mut(index) {
                    *slot = sibling;
                }
                return;
            }
        }
        let unkept = &mut entries.unkept;
        if !unkept.contains_key(path.as_os_str()) && unkept.len() >= UNKEPT {
            if let Some(any) = unkept.keys().next().cloned() {
                unkept.remove(&any);
            }
        }
        let noted = unkept
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
    /// kept or not.
    pub(crate) fn sibling(&self, path: &Path, version: &FileVersion, index: usize) -> SiblingCheck {
        let entries = self.entries();
        let known = match entries.kept.peek(path.as_os_str()) {
            Some(cached) if cached.version == *version => Some(&cached.siblings),
            _ => entries
                .unkept
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
        self.entries().kept.weight()
    }
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
        // Each counts for its bytes and more: fewer than limit / 4 KiB are kept.
        let kept = all
            .iter()
            .filter(|(p, v)| cache.get(p, v).is_some())
            .count();
        assert!(kept > 0 && kept < 16, "{kept} kept");
        // A body that may get a sealed copy counts twice; one larger than the whole
        // cache is not kept, and nothing is evicted for it.
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
        // A crawl: four times the cache in files each read once (kept when read, and
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
