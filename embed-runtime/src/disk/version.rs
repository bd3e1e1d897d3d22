//! [`FileVersion`]: which bytes a file holds, as far as its metadata can tell, taken
//! when it is opened and checked again with every chunk read.

use std::fs::{File, Metadata};
use std::io;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How long after its last status change a file may still be in the middle of a write
/// that no later change of its metadata will show.
///
/// The kernel stamps a write's times once, when the `write` call starts (and from a
/// clock that may run one timer tick behind), not when it ends: a download that opens
/// the file while one long `write` is still copying sees the new times, nothing in the
/// metadata moves again when the write ends, and a reader that overtakes the writer
/// would send a body of mixed bytes that every version check passes. So a file whose
/// ctime is this recent is left alone until it is older ([`settled`]): a write shorter
/// than this (a 6 MiB `write` takes a few ms, a tick is at most 10 ms) has ended by
/// then, and one that takes longer stamps the times again with each later `write`
/// call, which the checks per chunk see.
pub(crate) const SETTLE: Duration = Duration::from_millis(100);

/// How many times [`settled`] waits for a file that keeps changing, before it takes
/// the version as it is (the checks per chunk still cut a body the writes change).
const SETTLE_TRIES: u32 = 5;

/// What a response from a file is about: its length and modification time (which the
/// validators state), and where the platform tells them, its device and inode (which
/// file it is) and its status change time.
///
/// The status change time (ctime) is set by the kernel alone, on every write,
/// truncation and metadata change, and no program can set it back: `cp -p` or
/// `touch -r` restore a file's mtime after changing it, never its ctime. So an
/// overwrite of the same length that keeps the mtime is still seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FileVersion {
    pub(crate) len: u64,
    /// The mtime.
    pub(crate) modified: SystemTime,
    /// What `Last-Modified` states: the later of the mtime and the ctime
    /// ([`last_change`]).
    pub(crate) stated: SystemTime,
    #[cfg(unix)]
    unix: Unix,
}

/// The inode's part of the version.
#[cfg(unix)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Unix {
    dev: u64,
    ino: u64,
    ctime: (i64, i64),
    /// How many names the inode has; 0 once it was removed or renamed over.
    nlink: u64,
}

impl FileVersion {
    /// The version of the regular file at `path` now, by a `stat` on the caller's
    /// thread (`lstat` when `no_link`, so that a link is no regular file); `None` when
    /// there is none.
    pub(crate) fn of_regular(path: &std::path::Path, no_link: bool) -> Option<Self> {
        let meta = if no_link {
            std::fs::symlink_metadata(path)
        } else {
            std::fs::metadata(path)
        };
        meta.ok()
            .filter(Metadata::is_file)
            .map(|meta| FileVersion::of(&meta))
    }

    pub(crate) fn of(meta: &Metadata) -> Self {
        FileVersion {
            len: meta.len(),
            modified: clamp_to_http_date(meta.modified().unwrap_or(UNIX_EPOCH)),
            stated: clamp_to_http_date(last_change(meta)),
            #[cfg(unix)]
            unix: {
                use std::os::unix::fs::MetadataExt;
                Unix {
                    dev: meta.dev(),
                    ino: meta.ino(),
                    ctime: (meta.ctime(), meta.ctime_nsec()),
                    nlink: meta.nlink(),
                }
            },
        }
    }

    /// Whether `now`, the same open file looked at again, still holds the bytes this
    /// version was taken of: the same inode, length and mtime, and an unchanged ctime,
    /// unless the file has no name left. A file removed (`rm`) or replaced by a rename
    /// (`mv new file`, the atomic way to deploy) keeps its bytes for whoever has it
    /// open, although the unlink changed its ctime: such a download goes on, whole.
    pub(crate) fn holds(&self, now: &FileVersion) -> bool {
        let same = self.len == now.len && self.modified == now.modified;
        #[cfg(unix)]
        let same = same
            && self.unix.dev == now.unix.dev
            && self.unix.ino == now.unix.ino
            && (self.unix.ctime == now.unix.ctime || now.unix.nlink == 0);
        same
    }

    /// Whether the open `file`, looked at now, still [`holds`](Self::holds) this
    /// version: the check every reader makes after its bytes are read or sent.
    pub(crate) fn held_by(&self, file: &File) -> io::Result<bool> {
        Ok(self.holds(&FileVersion::of(&file.metadata()?)))
    }

    /// Whole seconds since the epoch, as `Last-Modified` states it.
    pub(crate) fn modified_secs(&self) -> u64 {
        self.stated
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs())
    }
}

/// The metadata of the open `file` (`meta`, just taken) once no write can still be
/// under way that began before it was taken: when its ctime is within [`SETTLE`] of
/// now, waits out the rest and looks again. Blocks the calling thread (at most
/// `SETTLE` per look): call it where files are opened, on the blocking pool.
pub(crate) fn settled(file: &File, mut meta: Metadata) -> io::Result<Metadata> {
    for _ in 0..SETTLE_TRIES {
        let Some(wait) = unsettled_for(status_change(&meta), SystemTime::now()) else {
            break;
        };
        std::thread::sleep(wait);
        meta = file.metadata()?;
    }
    Ok(meta)
}

/// How much longer a file whose status last changed at `changed` may still be under a
/// write, at `now`; `None` once it is not. A change stamped less than `SETTLE` after
/// `now` (a file server's clock a little ahead) is waited for, `SETTLE` at most per
/// look; one stamped further ahead (the clock set back) is not: the wait would repeat
/// on every open until the clock caught up.
fn unsettled_for(changed: Option<SystemTime>, now: SystemTime) -> Option<Duration> {
    let changed = changed?;
    if changed
        .duration_since(now)
        .is_ok_and(|ahead| ahead > SETTLE)
    {
        return None;
    }
    let settled_at = changed + SETTLE;
    let wait = settled_at.duration_since(now).ok()?.min(SETTLE);
    (!wait.is_zero()).then_some(wait)
}

/// The status change time (ctime), where the platform has one.
fn status_change(meta: &Metadata) -> Option<SystemTime> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let secs = u64::try_from(meta.ctime()).ok()?;
        let nanos = meta.ctime_nsec().clamp(0, 999_999_999) as u32;
        Some(UNIX_EPOCH + Duration::new(secs, nanos))
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        None
    }
}

/// When the file's bytes last changed, as far as its metadata can tell: the later of
/// its mtime and, where the platform has one, its status change time.
///
/// The mtime alone cannot tell versions apart: npm writes every file with
/// 1985-10-26, and `cp -p` or `touch -r` put an old mtime back after changing a file.
/// A `Last-Modified` from it would have an `If-Modified-Since` of the old version
/// answered 304, and the client keep stale bytes (while a large file's content tag is
/// still being computed, the date is the only validator). The kernel sets the ctime
/// on every write and no program can set it back, so the later of the two moves
/// whenever the bytes do. (It also moves on `chmod` or a rename: a 200 too many, never
/// a 304 too many.)
fn last_change(meta: &Metadata) -> SystemTime {
    let mtime = meta.modified().unwrap_or(UNIX_EPOCH);
    status_change(meta).map_or(mtime, |ctime| mtime.max(ctime))
}

/// The last second an HTTP-date can state (9999-12-31T23:59:59Z).
const LAST_HTTP_DATE: u64 = 253_402_300_799;

/// A file time an HTTP-date can state: an mtime before 1970 or after 9999 (clock
/// mishaps, `touch -d`) is clamped, so formatting `Last-Modified` can never panic.
pub(crate) fn clamp_to_http_date(time: SystemTime) -> SystemTime {
    let last = UNIX_EPOCH + std::time::Duration::from_secs(LAST_HTTP_DATE);
    time.clamp(UNIX_EPOCH, last)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn temp_file(name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let path = std::env::temp_dir().join(format!(
            "embed-assets-version-{}-{name}",
            std::process::id()
        ));
        std::fs::File::create(&path)
            .unwrap()
            .write_all(bytes)
            .unwrap();
        path
    }

    fn version(file: &std::fs::File) -> FileVersion {
        FileVersion::of(&file.metadata().unwrap())
    }

    #[test]
    fn a_file_changed_within_the_settling_time_is_waited_for() {
        let now = SystemTime::now();
        assert_eq!(unsettled_for(Some(now), now), Some(SETTLE));
        let ms = Duration::from_millis;
        assert_eq!(
            unsettled_for(Some(now - ms(30)), now),
            Some(SETTLE - ms(30))
        );
        assert_eq!(unsettled_for(Some(now - SETTLE), now), None);
        assert_eq!(unsettled_for(Some(now - ms(5_000)), now), None);
        // A ctime a little ahead of the clock is waited for, one look at a time; one
        // far ahead (the clock set back) is not, or every open would wait until the
        // clock caught up.
        assert_eq!(unsettled_for(Some(now + ms(40)), now), Some(SETTLE));
        assert_eq!(
            unsettled_for(Some(now + ms(40)), now + SETTLE),
            Some(ms(40))
        );
        assert_eq!(unsettled_for(Some(now + SETTLE + ms(1)), now), None);
        assert_eq!(
            unsettled_for(Some(now + Duration::from_secs(3_600)), now),
            None
        );
        assert_eq!(unsettled_for(None, now), None);
    }

    #[cfg(unix)]
    #[test]
    fn settled_metadata_is_taken_once_the_last_change_is_settle_old() {
        let path = temp_file("settle", b"just written");
        let file = std::fs::File::open(&path).unwrap();
        let meta = settled(&file, file.metadata().unwrap()).unwrap();
        let changed = status_change(&meta).unwrap();
        assert!(
            SystemTime::now().duration_since(changed).unwrap() >= SETTLE,
            "returned while the change was recent"
        );
        // An old file is not waited for: its metadata comes back as it was.
        let start = std::time::Instant::now();
        let again = settled(&file, file.metadata().unwrap()).unwrap();
        assert!(start.elapsed() < SETTLE);
        assert_eq!(FileVersion::of(&again), FileVersion::of(&meta));
        std::fs::remove_file(path).unwrap();
    }

    #[test]
    fn file_times_outside_http_dates_are_clamped() {
        let before = UNIX_EPOCH - std::time::Duration::from_secs(10);
        assert_eq!(clamp_to_http_date(before), UNIX_EPOCH);
        let after = UNIX_EPOCH + std::time::Duration::from_secs(LAST_HTTP_DATE + 100);
        let clamped = clamp_to_http_date(after);
        // Formatting must not panic at the bound.
        assert_eq!(
            httpdate::fmt_http_date(clamped),
            "Fri, 31 Dec 9999 23:59:59 GMT"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_same_length_overwrite_with_its_mtime_put_back_is_seen() {
        let path = temp_file("cp-p", &[1u8; 4096]);
        let open = std::fs::File::open(&path).unwrap();
        let before = version(&open);
        let mtime = open.metadata().unwrap().modified().unwrap();
        // What `cp -p new file` does: write in place, then restore the times.
        std::thread::sleep(std::time::Duration::from_millis(20));
        let mut writer = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        writer.write_all(&[2u8; 4096]).unwrap();
        writer.set_modified(mtime).unwrap();
        drop(writer);
        let after = version(&open);
        let meta = open.metadata().unwrap();
        assert_eq!((meta.len(), meta.modified().unwrap()), (before.len, mtime));
        assert!(!before.holds(&after), "{before:?} {after:?}");
        // And the date it states moved with the bytes, though the mtime did not.
        assert!(after.stated > before.stated, "{before:?} {after:?}");
        std::fs::remove_file(path).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn the_stated_time_is_the_later_of_mtime_and_ctime() {
        let path = temp_file("npm", b"installed");
        let npm = UNIX_EPOCH + std::time::Duration::from_secs(499_162_500); // 1985-10-26
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(npm)
            .unwrap();
        let meta = std::fs::metadata(&path).unwrap();
        let stated = FileVersion::of(&meta).stated;
        assert_eq!(meta.modified().unwrap(), npm);
        assert!(stated > npm, "not the mtime npm wrote: {stated:?}");
        assert!(stated <= SystemTime::now());
        std::fs::remove_file(path).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_removed_or_renamed_over_file_keeps_its_bytes_for_whoever_has_it_open() {
        let path = temp_file("renamed", &[1u8; 4096]);
        let open = std::fs::File::open(&path).unwrap();
        let before = version(&open);
        assert!(before.holds(&version(&open)));
        std::thread::sleep(std::time::Duration::from_millis(20));
        let new = path.with_extension("new");
        std::fs::write(&new, [2u8; 4096]).unwrap();
        std::fs::rename(&new, &path).unwrap();
        let after = version(&open);
        assert!(before.holds(&after), "{before:?} {after:?}");
        // The name now names another file: opened again, it is not this version.
        let reopened = version(&std::fs::File::open(&path).unwrap());
        assert!(!before.holds(&reopened));
        std::fs::remove_file(path).unwrap();
    }
}
