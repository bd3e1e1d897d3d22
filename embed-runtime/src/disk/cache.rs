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
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Instant;

use bytes::Bytes;

use super::version::FileVersion;
use crate::coding::{CODINGS, Coding, Encoding};

/// How many entries an eviction looks at to find the least recently used among them
/// (sampled, as Redis does: a bounded cost per insert whatever the number of files).
const SAMPLE: usize = 16;

/// Cached bodies by path, at most `limit` bytes of them.
#[derive(Debug)]
pub(crate) struct BodyCache {
    limit: u64,
    entries: Mutex<Entries>,
    /// A clock of uses, for the eviction's choice.
    clock: AtomicU64,
}

#[derive(Debug, Default)]
struct Entries {
    /// By the path's bytes (hashed as one string, not component by component as a
    /// `Path` is).
    by_path: HashMap<OsString, Cached>,
    bytes: u64,
    /// What is known of the siblings of files whose bytes are not kept (larger than a
    /// chunk, or than the whole cache), by the file's path: at most [`UNKEPT`].
    unkept: HashMap<OsString, Siblings>,
}

/// How many files' siblings [`Entries::unkept`] knows of at most (a few hundred bytes
/// each); past that, one is forgotten for each new one, and checked again when asked.
const UNKEPT: usize = 4096;

/// What is known of a file's siblings at one version of it.
#[derive(Debug, Clone, Copy)]
struct Siblings {
    version: FileVersion,
    known: [Sibling; SIBLINGS.len()],
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
    used: Arc<AtomicU64>,
    /// What is known of its precompressed siblings ([`SIBLINGS`]' order) at
    /// this version of it.
    pub(crate) siblings: [Sibling; SIBLINGS.len()],
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
pub(crate) enum Sibling {
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
    /// An empty cache that keeps at most `limit` bytes of bodies.
    pub(crate) fn new(limit: u64) -> Self {
        BodyCache {
            limit,
            entries: Mutex::default(),
            clock: AtomicU64::new(0),
        }
    }

    /// The entries, locked (a panic elsewhere while holding them leaves them whole:
    /// each change is one insert or removal).
    fn entries(&self) -> MutexGuard<'_, Entries> {
        self.entries
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The bytes of `path` when they are cached for `version`.
    pub(crate) fn get(&self, path: &Path, version: &FileVersion) -> Option<Cached> {
        let entries = self.entries();
        let cached = entries
            .by_path
            .get(path.as_os_str())
            .filter(|cached| cached.version == *version)?;
        cached.used.store(
            self.clock.fetch_add(1, Ordering::Relaxed),
            Ordering::Relaxed,
        );
        Some(cached.clone())
    }

    /// Keeps `bytes`, of `path` at `version`, in place of what was kept for it, when
    /// they fit: the least recently used of a sample of others make room.
    pub(crate) fn insert(&self, path: &Path, version: FileVersion, bytes: Bytes, etag: Arc<str>) {
        let content_type =
            embed_assets_shared::content_type(path, || std::str::from_utf8(&bytes).is_ok()).into();
        let len = bytes.len() as u64;
        if len > self.limit {
            return;
        }
        let mut entries = self.entries();
        if let Some(old) = entries.by_path.remove(path.as_os_str()) {
            entries.bytes -= old.bytes.len() as u64;
        }
        while entries.bytes + len > self.limit {
            let oldest = entries
                .by_path
                .iter()
                .take(SAMPLE)
                .min_by_key(|(_, cached)| cached.used.load(Ordering::Relaxed))
                .map(|(path, _)| path.clone());
            let Some(oldest) = oldest else { break };
            if let Some(old) = entries.by_path.remove(&oldest) {
                entries.bytes -= old.bytes.len() as u64;
            }
        }
        let used = Arc::new(AtomicU64::new(self.clock.fetch_add(1, Ordering::Relaxed)));
        entries.bytes += len;
        entries.by_path.insert(
            path.as_os_str().to_owned(),
            Cached {
                version,
                bytes,
                etag,
                content_type,
                heads: Arc::default(),
                used,
                siblings: [Sibling::Unknown; SIBLINGS.len()],
            },
        );
    }

    /// Notes, for the file at `path` at `version`, what is known of its sibling number
    /// `index`: with its kept bytes when they are kept at that version (forgotten with
    /// them), else apart (forgotten when the file changes, or past [`UNKEPT`]).
    pub(crate) fn note_sibling(
        &self,
        path: &Path,
        version: &FileVersion,
        index: usize,
        sibling: Sibling,
    ) {
        let mut entries = self.entries();
        if let Some(cached) = entries.by_path.get_mut(path.as_os_str()) {
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
                known: [Sibling::Unknown; SIBLINGS.len()],
            });
        if noted.version != *version {
            *noted = Siblings {
                version: *version,
                known: [Sibling::Unknown; SIBLINGS.len()],
            };
        }
        if let Some(slot) = noted.known.get_mut(index) {
            *slot = sibling;
        }
    }

    /// What is known of the sibling number `index` of the file at `path` at `version`,
    /// kept or not.
    pub(crate) fn sibling(&self, path: &Path, version: &FileVersion, index: usize) -> Sibling {
        let entries = self.entries();
        let known = match entries.by_path.get(path.as_os_str()) {
            Some(cached) if cached.version == *version => Some(&cached.siblings),
            _ => entries
                .unkept
                .get(path.as_os_str())
                .filter(|noted| noted.version == *version)
                .map(|noted| &noted.known),
        };
        known
            .and_then(|known| known.get(index).copied())
            .unwrap_or(Sibling::Unknown)
    }

    /// The bytes kept, in all.
    #[cfg(test)]
    fn len(&self) -> u64 {
        self.entries().bytes
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
        assert_eq!(cache.len(), 5);
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn it_keeps_no_more_than_its_limit_and_evicts_the_least_used() {
        let cache = BodyCache::new(100);
        let paths: Vec<PathBuf> = (0..4)
            .map(|i| scratch(&format!("limit-{i}"), &[i as u8; 40]))
            .collect();
        let versions: Vec<FileVersion> = paths.iter().map(|p| version_of(p)).collect();
        for (path, version) in paths.iter().zip(&versions).take(2) {
            cache.insert(path, *version, Bytes::from(vec![0; 40]), "\"x\"".into());
        }
        // The first is used again: the second is the one to go.
        assert!(cache.get(&paths[0], &versions[0]).is_some());
        cache.insert(
            &paths[2],
            versions[2],
            Bytes::from(vec![0; 40]),
            "\"x\"".into(),
        );
        assert!(cache.len() <= 100);
        assert!(cache.get(&paths[0], &versions[0]).is_some());
        assert!(cache.get(&paths[1], &versions[1]).is_none());
        assert!(cache.get(&paths[2], &versions[2]).is_some());
        // Larger than the whole cache: not kept, nothing evicted for it.
        cache.insert(
            &paths[3],
            versions[3],
            Bytes::from(vec![0; 101]),
            "\"x\"".into(),
        );
        assert!(cache.get(&paths[3], &versions[3]).is_none());
        assert_eq!(cache.len(), 80);
        for path in &paths {
            let _ = std::fs::remove_file(path);
        }
    }
}
