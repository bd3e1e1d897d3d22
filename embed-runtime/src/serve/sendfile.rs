//! On-disk files on the fast path, sent with `sendfile(2)`: the kernel moves the file's
//! pages from the page cache to the socket, with no copy through this process.
//!
//! # Never a complete response of mixed bytes
//!
//! A chunk read into a buffer is a copy: checked against the file's version after it
//! was read (`disk::stream`), it holds the version's bytes whatever happens to the file
//! later. `sendfile` copies nothing: the socket's queue holds references to the page
//! cache's pages, and their bytes are read when they are sent, or, over loopback and
//! virtual links, when the client reads them. A write into the file in place
//! (`dd conv=notrunc`, `rsync --inplace`, a truncation that zeroes part of a page)
//! changes bytes still queued. So:
//!
//! - the file's version is checked after every `sendfile`, as after every chunk read,
//!   and a change ends the connection short of its `Content-Length`;
//! - the last bytes of the response, [`copied_tail`] of them, go as chunks read into
//!   buffers (the same `DiskBody`, within the read budget, checked after each read).
//!   When the tail's last chunk is read, all of the tail but its last two chunks has
//!   entered the socket's queue (the last is read while the one before it is sent).
//!   The queue holds at most the socket's send buffer, so every byte before those is
//!   acknowledged; of the acknowledged bytes, the client holds unread at most its
//!   receive window. The tail is longer than the two together: every byte sent from
//!   the page cache has been read by the client, or has left the machine, before that
//!   last read, and the check after it covers them all.
//!
//! A file shorter than the tail is read in chunks, as everywhere else.
//!
//! # A cold page cache
//!
//! `sendfile` blocks its thread while the disk reads pages not in the cache, and a
//! worker's thread serves every connection it accepted. Before each `sendfile`, the
//! first and last bytes of the chunk are read with `RWF_NOWAIT` (which fails rather
//! than wait for the disk); when either is not in the cache, the chunk is read into the
//! cache on the blocking pool first (a `sendfile` to `/dev/null`: the disk is waited
//! for there, and nothing is copied), and then sent from the worker. (nginx's answer
//! to the same problem is `aio threads`.)

use std::fs::File;
use std::io::{self, IoSliceMut};
use std::sync::LazyLock;

use rustix::io::{Errno, ReadWriteFlags};
use tokio::io::Interest;
use tokio::net::TcpStream;

use crate::disk::FileVersion;
use crate::error::Error;
use crate::range::ByteRange;

/// The most one `sendfile` sends; the file's version is checked after each.
const CHUNK: u64 = 2 << 20;

/// What the kernel may queue past a socket's send buffer (it lets one more packet in
/// when the buffer is not full), with room to spare.
const SLACK: u64 = 1 << 20;

/// The bytes at the end of a response sent as copies read `chunk_size` at a time (see
/// the module's docs): the largest send buffer a socket can have, plus the largest
/// receive window a client can offer, from the kernel's limits (`net.ipv4.tcp_wmem`,
/// `net.core.wmem_max`, and their receive twins), plus [`SLACK`], plus two chunks (the
/// last is read while the one before it is sent). `None` when the limits cannot be
/// read: then nothing is sent with `sendfile`.
pub(super) fn copied_tail(chunk_size: usize) -> Option<u64> {
    static BUFFERS: LazyLock<Option<u64>> = LazyLock::new(|| {
        let send = kernel_limit("net/ipv4/tcp_wmem", "net/core/wmem_max")?;
        let receive = kernel_limit("net/ipv4/tcp_rmem", "net/core/rmem_max")?;
        Some(send + receive + SLACK)
    });
    Some((*BUFFERS)? + 2 * chunk_size as u64)
}

/// The largest buffer a TCP socket can have in one direction: the autotuning maximum
/// (the third number of `tcp_*mem`) or twice what `SO_*BUF` may set (`*mem_max`; the
/// kernel doubles what it is given), whichever is larger.
fn kernel_limit(tcp: &str, core: &str) -> Option<u64> {
    let read = |name: &str| std::fs::read_to_string(format!("/proc/sys/{name}")).ok();
    let autotuned = read(tcp)?.split_whitespace().nth(2)?.parse::<u64>().ok()?;
    let set = read(core)?.trim().parse::<u64>().ok()?;
    Some(autotuned.max(set.saturating_mul(2)))
}

/// Sends `range` of `file` to `stream` with `sendfile`, checking after each call that
/// the file still holds `version`. The number of bytes sent; an error (and the
/// connection then ends) when the socket fails or the file changed or shrank.
pub(super) async fn send(
    stream: &TcpStream,
    file: &File,
    version: FileVersion,
    range: ByteRange,
) -> io::Result<u64> {
    let end = range.end + 1;
    let mut offset = range.start;
    while offset < end {
        let want = (end - offset).min(CHUNK);
        if !in_cache(file, offset, want) {
            warm(file, offset, want).await?;
        }
        let sent = stream
            .async_io(Interest::WRITABLE, || {
                let mut at = offset;
                rustix::fs::sendfile(stream, file, Some(&mut at), want as usize)
                    .map_err(io::Error::from)
            })
            .await?;
        // Nothing sent with room in the socket: the file is shorter than its version.
        if sent == 0 {
            return Err(io::Error::other(Error::Changed));
        }
        // Less than asked: the socket is full.
        if (sent as u64) < want {
            super::out::clear_readiness(stream, Interest::WRITABLE);
        }
        offset += sent as u64;
        if !version.holds(&FileVersion::of(&file.metadata()?)) {
            return Err(io::Error::other(Error::Changed));
        }
    }
    Ok(end - range.start)
}

/// Whether the first and last bytes of `len` bytes at `offset` are in the page cache
/// (a read with `RWF_NOWAIT`). `false` also when the kernel or the file system cannot
/// tell.
fn in_cache(file: &File, offset: u64, len: u64) -> bool {
    let mut byte = [0u8; 1];
    [offset, offset + len - 1].into_iter().all(|at| {
        let read = rustix::io::preadv2(
            file,
            &mut [IoSliceMut::new(&mut byte)],
            at,
            ReadWriteFlags::NOWAIT,
        );
        // `Ok(0)`, past the end: `sendfile` finds out. `EAGAIN`: not in the cache.
        read.is_ok()
    })
}

/// Reads `len` bytes at `offset` of `file` into the page cache on the blocking pool,
/// without copying them anywhere: a `sendfile` to `/dev/null`.
async fn warm(file: &File, offset: u64, len: u64) -> io::Result<()> {
    static NULL: LazyLock<Option<File>> =
        LazyLock::new(|| File::options().write(true).open("/dev/null").ok());
    let Some(null) = NULL.as_ref() else {
        // No `/dev/null`: the worker's `sendfile` waits for the disk itself.
        return Ok(());
    };
    let file = file.try_clone()?;
    crate::disk::blocking(move || {
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
