//! [`ContentTags`]: the strong ETags of files read at run time, computed from their
//! bytes, once per file version, in the background.
//!
//! Why from the bytes: two replicas holding the same file under different mtimes (a
//! copy, an `rsync` without `-t`, a container layer) must send the same validator, or a
//! cache's revalidation and a player's `If-Range` resume across a load balancer turn
//! into full downloads; and a rewrite that keeps the length and the mtime must get a new
//! one. Why in the background: hashing a 2 GiB file takes seconds, and the first
//! response must not wait for it. Until the hash is known, responses carry no ETag
//! (only `Last-Modified`): correct, only less useful to caches for that moment.
//! Why once per version: the version (inode, length, mtime, ctime) changes with any
//! change of the bytes, and a hash taken of other bytes than the ones opened is thrown
//! away, so a tag is never given to bytes it was not computed from. Why after the
//! downloads in flight, for a few seconds at most, and at the lowest priority: a hash
//! reads the whole file, and would take CPU and memory bandwidth from them.

use std::collections::HashMap;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use super::version::FileVersion;
use super::{lead, open_regular, room};

/// Files up to this size are hashed at once, on the read of their first request (a few
/// milliseconds); larger ones in the background, while their first responses go out
/// without an ETag.
pub(crate) const HASH_AT_ONCE: u64 = 4 << 20;

/// The content ETags of one service's files, by path.
#[derive(Debug, Default)]
pub(crate) struct ContentTags {
    tags: Mutex<HashMap<PathBuf, Tag>>,
}

#[derive(Debug, Clone)]
enum Tag {
    /// Being hashed for this version.
    Hashing(FileVersion),
    /// The tag of the bytes of this version.
    Known(FileVersion, Arc<str>),
}

/// One file to hash, for the tags it goes to (if they still exist).
struct Job {
    path: PathBuf,
    version: FileVersion,
    tags: Weak<ContentTags>,
    /// When its first response asked for it.
    asked: Instant,
}

/// The longest a hash waits, from when it was asked for, for the responses that send
/// files' bytes to end ([`Sending`]).
const HOLD: Duration = Duration::from_secs(5);

/// Responses sending a file's bytes, in the whole process.
static SENDING: AtomicUsize = AtomicUsize::new(0);

/// One response sending a file's bytes, held by its body while it lives. A hash waits
/// while there are any, up to [`HOLD`]: hashing reads the whole file through memory,
/// which slows the download beside it even at the lowest priority (the first download
/// of a 64 MiB file after a start, with the hash at nice 19: 0.82-0.93x nginx's speed;
/// with no hash, 0.98-1.08x). Meanwhile responses carry `Last-Modified` alone, as while
/// any hash runs.
#[derive(Debug)]
pub(crate) struct Sending(());

impl Sending {
    pub(crate) fn start() -> Self {
        SENDING.fetch_add(1, Ordering::Relaxed);
        Sending(())
    }
}

impl Drop for Sending {
    fn drop(&mut self) {
        SENDING.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Waits until no response sends a file's bytes, or `until`.
fn hold_until(until: Instant) {
    while SENDING.load(Ordering::Relaxed) > 0 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(5));
    }
}

impl ContentTags {
    /// The content ETag of `file`, open at `path` with `version`: known already, or
    /// computed now from `file` when it is small ([`HASH_AT_ONCE`]); for a larger one
    /// `None`, and it is queued for hashing in the background (once per version).
    pub(crate) fn of_open(
        self: &Arc<Self>,
        path: &Path,
        version: &FileVersion,
        file: &mut File,
    ) -> Option<Arc<str>> {
        if version.len > HASH_AT_ONCE {
            return self.get(path, version);
        }
        if let Some(known) = self.known(path, version) {
            return Some(known);
        }
        let len = version.len.min(64 << 10) as usize + 1;
        let mut buffer = vec![0u8; len + room(len)];
        let start = lead(&buffer, 0, len);
        let tag: Arc<str> = hash_open(file, version, &mut buffer[start..start + len])?.into();
        let mut tags = self
            .tags
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        tags.insert(path.to_owned(), Tag::Known(*version, Arc::clone(&tag)));
        Some(tag)
    }

    fn known(&self, path: &Path, version: &FileVersion) -> Option<Arc<str>> {
        let tags = self
            .tags
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        match tags.get(path) {
            Some(Tag::Known(known, tag)) if known == version => Some(Arc::clone(tag)),
            _ => None,
        }
    }

    /// The content ETag of the file at `path` as `version` describes it, if it is
    /// known; otherwise `None`, and the file is queued for hashing (once per
    /// version).
    pub(crate) fn get(self: &Arc<Self>, path: &Path, version: &FileVersion) -> Option<Arc<str>> {
        let mut tags = self
            .tags
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        match tags.get(path) {
            Some(Tag::Known(known, tag)) if known == version => return Some(Arc::clone(tag)),
            Some(Tag::Hashing(hashing)) if hashing == version => return None,
            _ => {}
        }
        tags.insert(path.to_owned(), Tag::Hashing(*version));
        drop(tags);
        let job = Job {
            path: path.to_owned(),
            version: *version,
            tags: Arc::downgrade(self),
            asked: Instant::now(),
        };
        if worker().send(job).is_err() {
            // No worker thread (it could not be started): no tag, as before the hash.
            self.forget(path, version);
        }
        None
    }

    fn finish(&self, path: PathBuf, version: FileVersion, tag: Option<String>) {
        let mut tags = self
            .tags
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        // A newer version may have been queued meanwhile: that one decides.
        if matches!(tags.get(&path), Some(Tag::Hashing(hashing)) if *hashing == version) {
            match tag {
                Some(tag) => tags.insert(path, Tag::Known(version, tag.into())),
                None => tags.remove(&path),
            };
        }
    }

    fn forget(&self, path: &Path, version: &FileVersion) {
        self.finish(path.to_owned(), *version, None);
    }
}

/// The one thread that hashes files, for every service of the process: one file at a
/// time, so that hashing never competes with itself for the disk.
fn worker() -> &'static Sender<Job> {
    static WORKER: OnceLock<Sender<Job>> = OnceLock::new();
    WORKER.get_or_init(|| {
        let (sender, jobs) = mpsc::channel::<Job>();
        let spawned = std::thread::Builder::new()
            .name("embed-assets-hash".to_owned())
            .spawn(move || {
                lower_priority();
                const LEN: usize = 1 << 20;
                let mut buffer = vec![0u8; LEN + room(LEN)];
                let start = lead(&buffer, 0, LEN);
                let buffer = &mut buffer[start..start + LEN];
                for job in jobs {
                    hold_until(job.asked + HOLD);
                    let Some(tags) = job.tags.upgrade() else {
                        continue;
                    };
                    let tag = hash(&job.path, &job.version, buffer);
                    tags.finish(job.path, job.version, tag);
                }
            });
        // NOTE: without the thread, the receiver is dropped and every send fails:
        // files are then served without an ETag, never with a wrong one.
        drop(spawned);
        sender
    })
}

/// Puts the hashing thread at the lowest priority (nice 19, this thread only), so that
/// hashing a large file gets the CPU the responses leave rather than a share of it
/// beside them: a server on one core whose first download of a 64 MiB file started
/// the hash would otherwise send it at half speed. On a busy core the tag comes later;
/// until then responses carry `Last-Modified` alone, as for any file being hashed.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn lower_priority() {
    // NOTE: a refusal (a sandbox without `setpriority`) leaves the thread as it was.
    let _ = rustix::process::setpriority_process(Some(rustix::thread::gettid()), 19);
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn lower_priority() {}

/// The content ETag of the file at `path`, if what is read is the file `version`
/// describes from the first byte to the last.
fn hash(path: &Path, version: &FileVersion, buffer: &mut [u8]) -> Option<String> {
    let (mut file, meta) = open_regular(path, std::io::ErrorKind::NotFound).ok()?;
    if !version.holds(&FileVersion::of(&meta)) {
        return None;
    }
    hash_open(&mut file, version, buffer)
}

/// The content ETag of the open `file`, read from its start, if it still holds the
/// bytes of `version` once read.
fn hash_open(file: &mut File, version: &FileVersion, buffer: &mut [u8]) -> Option<String> {
    use std::io::{Seek, SeekFrom};
    file.seek(SeekFrom::Start(0)).ok()?;
    let mut digest = Sha256::new();
    let mut read = 0u64;
    loop {
        let n = file.read(buffer).ok()?;
        if n == 0 {
            break;
        }
        digest.update(&buffer[..n]);
        read += n as u64;
    }
    (read == version.len && version.held_by(file).ok()?)
        .then(|| embed_assets_shared::etag::content(&digest.finalize()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    fn wait_for(tags: &Arc<ContentTags>, path: &Path) -> Option<Arc<str>> {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let meta = std::fs::metadata(path).unwrap();
            if let Some(tag) = tags.get(path, &FileVersion::of(&meta)) {
                return Some(tag);
            }
            if Instant::now() > deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    #[test]
    fn the_tag_is_the_content_etag_of_the_bytes_whatever_the_mtime() {
        let dir = scratch("tags");
        let (a, b) = (dir.join("a.bin"), dir.join("b.bin"));
        std::fs::write(&a, b"the same bytes").unwrap();
        std::fs::write(&b, b"the same bytes").unwrap();
        let old = std::time::SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
        File::options()
            .write(true)
            .open(&b)
            .unwrap()
            .set_modified(old)
            .unwrap();
        let tags = Arc::new(ContentTags::default());
        let first = std::fs::metadata(&a).unwrap();
        assert_eq!(
            tags.get(&a, &FileVersion::of(&first)),
            None,
            "not known at once"
        );
        let (tag_a, tag_b) = (wait_for(&tags, &a).unwrap(), wait_for(&tags, &b).unwrap());
        assert_eq!(tag_a, tag_b, "replicas with other mtimes agree");
        let expected = embed_assets_shared::etag::content(&Sha256::digest(b"the same bytes"));
        assert_eq!(&*tag_a, expected);
        // Other bytes, another tag.
        std::fs::write(&a, b"other bytes, same...").unwrap();
        let changed = wait_for(&tags, &a).unwrap();
        assert_ne!(changed, tag_a);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The nice value of this process's thread named `name` (the kernel keeps its
    /// first 15 bytes), once it exists.
    #[cfg(target_os = "linux")]
    fn nice_of_thread(name: &str) -> Option<i32> {
        let name = &name[..name.len().min(15)];
        for task in std::fs::read_dir("/proc/self/task").ok()?.flatten() {
            let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
            if comm.trim_end() != name {
                continue;
            }
            let stat = std::fs::read_to_string(task.path().join("stat")).ok()?;
            // After the parenthesised name: field 3 (state) on; nice is field 19.
            let (_, after) = stat.rsplit_once(") ")?;
            return after.split(' ').nth(16)?.parse().ok();
        }
        None
    }

    /// A folder of this process's own for one test.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("embed-assets-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_hashing_thread_runs_at_the_lowest_priority() {
        let dir = scratch("nice");
        let file = dir.join("large.bin");
        std::fs::write(&file, vec![7u8; HASH_AT_ONCE as usize + 1]).unwrap();
        let tags = Arc::new(ContentTags::default());
        assert!(wait_for(&tags, &file).is_some());
        assert_eq!(nice_of_thread("embed-assets-hash"), Some(19));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_hash_waits_for_the_downloads_in_flight_then_runs_at_most_a_hold_later() {
        let dir = scratch("hold");
        let (held, bounded) = (dir.join("held.bin"), dir.join("bounded.bin"));
        std::fs::write(&held, b"hashed once the download ends").unwrap();
        std::fs::write(&bounded, b"hashed after the hold").unwrap();
        let tags = Arc::new(ContentTags::default());

        let download = Sending::start();
        let asked = Instant::now();
        let version = FileVersion::of(&std::fs::metadata(&held).unwrap());
        assert_eq!(tags.get(&held, &version), None);
        std::thread::sleep(Duration::from_millis(300));
        assert_eq!(
            tags.get(&held, &version),
            None,
            "hashed while a download was in flight"
        );
        drop(download);
        assert!(wait_for(&tags, &held).is_some());
        assert!(asked.elapsed() < HOLD, "it ran once the download ended");

        // A download that never ends holds a hash back for HOLD, not longer.
        let endless = Sending::start();
        let asked = Instant::now();
        let tag = wait_for(&tags, &bounded);
        let waited = asked.elapsed();
        drop(endless);
        assert!(tag.is_some(), "no tag while a download never ends");
        assert!(waited >= HOLD - Duration::from_millis(50), "{waited:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
