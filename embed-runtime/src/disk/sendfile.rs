//! The file side of `serve`'s `sendfile` path (Linux): an on-disk body's front handed
//! to the server, the open file it is sent from with the version every byte must be
//! of ([`Pinned`]), the page-cache checks and reads made before each `sendfile`, and
//! the kernel's socket limits read from `/proc/sys`. The socket side (how far behind a
//! client is, when to stop) is `serve`'s.

use std::fs::File;
use std::io::{self, IoSliceMut};
use std::os::fd::AsFd;
use std::sync::LazyLock;

use rustix::io::{Errno, ReadWriteFlags};

use super::stream::{DiskBody, Segment, State};
use super::{FileVersion, blocking};
use crate::range::ByteRange;

/// An open file and the version every byte sent from it must be of.
#[derive(Debug)]
pub(crate) struct Pinned {
    file: File,
    version: FileVersion,
}

impl Pinned {
    /// Whether the file still holds its version.
    pub(crate) fn holds(&self) -> io::Result<bool> {
        self.version.held_by(&self.file)
    }

    /// One `sendfile` of up to `len` bytes at `offset` to `socket` (non-blocking when
    /// the socket is): the bytes sent, 0 at the file's end.
    pub(crate) fn send_to(&self, socket: impl AsFd, offset: u64, len: usize) -> io::Result<usize> {
        let mut at = offset;
        rustix::fs::sendfile(socket, &self.file, Some(&mut at), len).map_err(io::Error::from)
    }

    /// Whether the first and last bytes of `len` bytes at `offset` are in the page
    /// cache (a read with `RWF_NOWAIT`). `false` also when the kernel or the file
    /// system cannot tell.
    pub(crate) fn in_cache(&self, offset: u64, len: u64) -> bool {
        let mut byte = [0u8; 1];
        [offset, offset + len - 1].into_iter().all(|at| {
            let read = rustix::io::preadv2(
                &self.file,
                &mut [IoSliceMut::new(&mut byte)],
                at,
                ReadWriteFlags::NOWAIT,
            );
            // `Ok(0)`, past the end: `sendfile` finds out. `EAGAIN`: not in the cache.
            read.is_ok()
        })
    }

    /// Reads `len` bytes at `offset` into the page cache on the blocking pool, without
    /// copying them anywhere: a `sendfile` to `/dev/null`.
    pub(crate) async fn warm(&self, offset: u64, len: u64) -> io::Result<()> {
        static NULL: LazyLock<Option<File>> =
            LazyLock::new(|| File::options().write(true).open("/dev/null").ok());
        let Some(null) = NULL.as_ref() else {
            // No `/dev/null`: the worker's `sendfile` waits for the disk itself.
            return Ok(());
        };
        let file = self.file.try_clone()?;
        blocking(move || {
            let mut at = offset;
            let mut left = len;
            while left > 0 {
                match rustix::fs::sendfile(null, &file, Some(&mut at), left as usize) {
                    Ok(0) => break,
                    Ok(n) => left -= n as u64,
                    Err(Errno::INTR) => {}
                    Err(err) => return Err(io::Error::from(err)),
                }
            }
            Ok(())
        })
        .await
    }
}

impl DiskBody {
    /// The bytes read at a time, when the budget has room.
    pub(crate) fn chunk_size(&self) -> usize {
        self.chunk_size
    }

    /// The front of the file range this body streams, for a server that sends it
    /// itself (`sendfile`), all but its last `keep` bytes (0: the whole range).
    /// `None` unless the body is one file range, not begun, longer than `keep`. The
    /// file to send it from is [`pin`](Self::pin)'s; what the server sent of it, it
    /// takes off with [`skip_front`](Self::skip_front).
    pub(crate) fn front(&self, keep: u64) -> Option<ByteRange> {
        let State::Idle(_) = &self.state else {
            return None;
        };
        let (Some(Segment::Range(range)), 1) = (self.segments.front(), self.segments.len()) else {
            return None;
        };
        (range.len() > keep).then(|| ByteRange {
            start: range.start,
            end: range.end - keep,
        })
    }

    /// The open file, and the version every byte sent from it must be of, for the
    /// [`front`](Self::front). An error once the body has begun.
    pub(crate) fn pin(&self) -> io::Result<Pinned> {
        let State::Idle(file) = &self.state else {
            return Err(io::Error::other("the body has begun"));
        };
        Ok(Pinned {
            file: file.try_clone()?,
            version: self.version,
        })
    }

    /// Takes the first `sent` bytes of the [`front`](Self::front) off the body: the
    /// server sent them itself. The rest streams as chunks.
    pub(crate) fn skip_front(&mut self, sent: u64) {
        let Some(Segment::Range(range)) = self.segments.front_mut() else {
            return;
        };
        let sent = sent.min(range.len());
        if sent == range.len() {
            self.segments.clear();
        } else {
            range.start += sent;
        }
        self.remaining -= sent;
    }
}

/// A setting of the kernel's (`/proc/sys/<name>`, say `net/core/wmem_max`), as text;
/// `None` where it cannot be read.
pub(crate) fn kernel_setting(name: &str) -> Option<String> {
    std::fs::read_to_string(format!("/proc/sys/{name}")).ok()
}

/// Files for the tests of the `sendfile` path.
#[cfg(test)]
pub(crate) mod scratch {
    use std::io::Write as _;
    use std::path::{Path, PathBuf};

    use super::{FileVersion, Pinned};

    /// A file of `len` bytes of 1 in the temporary folder (`name`, made unique to the
    /// process), open, and its version.
    pub(crate) fn file(name: &str, len: usize) -> (PathBuf, Pinned) {
        let path = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
        std::fs::write(&path, vec![1u8; len]).unwrap();
        let file = std::fs::File::open(&path).unwrap();
        let version = FileVersion::of(&file.metadata().unwrap());
        (path, Pinned { file, version })
    }

    /// Writes 100 bytes of 2 over the start of the file at `path`, in place.
    pub(crate) fn write_in_place(path: &Path) {
        std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .unwrap()
            .write_all(&[2u8; 100])
            .unwrap();
    }

    /// Removes the file at `path`.
    pub(crate) fn remove(path: &Path) {
        std::fs::remove_file(path).unwrap();
    }
}
