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
//! - the last bytes of the response go as chunks read into buffers (the same
//!   `DiskBody`, within the read budget, checked after each read), and the last of
//!   them is not sent before a check that comes after the client read every byte sent
//!   from the page cache. How that is known depends on where the client is.
//!
//! **A client on this machine** (in this network namespace: a reverse proxy in front,
//! a local tool, a benchmark) has a socket the kernel reports on (`unread`): how many
//! of the bytes sent it has not read, the connection's send queue plus its receive
//! queue. `sendfile` stops where what is left of the file is no more than that, and the
//! rest, [`SLACK`] and two chunks more, goes as copies; the last chunk waits at a
//! [`Gate`] until the client is behind by no more than the copies written before it,
//! so that every byte it has not read is a copy, and then the version is checked
//! once more. The copies are then what the client was behind by, typically a few
//! MiB, not the kernel's largest queues.
//!
//! **Any other client** (another machine, a container behind a virtual link) has no
//! socket here to ask about, so the copied tail is [`copied_tail`] long: when its last
//! chunk is read, all of the tail but its last two chunks has entered the socket's
//! queue (the last is read while the one before it is sent). The queue holds at most
//! the socket's send buffer, so every byte before those is acknowledged; of the
//! acknowledged bytes, the client holds unread at most its receive window. The tail is
//! longer than the two together: every byte sent from the page cache has been read by
//! the client, or has left the machine, before that last read, and the check after it
//! covers them all.
//!
//! "Read" is the client's `read`: a client that moves the bytes on without copying
//! them (`splice` into a pipe, `TCP_ZEROCOPY_RECEIVE`) keeps the pages past it, which
//! neither measure sees; [`SLACK`] is its only margin.
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

use std::io;
use std::sync::LazyLock;
use std::time::Duration;

use tokio::net::TcpStream;

use super::ready::write_some;
use super::unread::Client;
use crate::disk::DiskBody;
use crate::disk::sendfile::{Pinned, kernel_setting};
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
fn copied_tail(chunk_size: usize) -> Option<u64> {
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
    let autotuned = kernel_setting(tcp)?
        .split_whitespace()
        .nth(2)?
        .parse::<u64>()
        .ok()?;
    let set = kernel_setting(core)?.trim().parse::<u64>().ok()?;
    Some(autotuned.max(set.saturating_mul(2)))
}

/// The longest pause between two looks at how far behind the client is, at the
/// [`Gate`].
const MOST_PAUSE: Duration = Duration::from_millis(100);

/// Sends the front of `disk`'s file with `sendfile` and takes it off the body; the
/// rest goes as the body's chunks. The bytes sent, and the [`Gate`] the body's last
/// chunk must pass when the copies that follow are all the module's docs ask for.
///
/// How much goes as copies: none when `whole` (`Server::sendfile_whole_files`); when
/// the client is a socket of this machine, what it is behind by when `sendfile`
/// stops, plus [`SLACK`] and two chunks, and a [`Gate`]; else [`copied_tail`].
pub(super) async fn send_front(
    stream: &TcpStream,
    disk: &mut DiskBody,
    whole: bool,
) -> io::Result<(u64, Option<Gate>)> {
    let (keep, client) = if whole {
        (0, None)
    } else {
        let least = SLACK + 2 * disk.chunk_size() as u64;
        // A file no longer than the shortest tail goes as chunks, without asking the
        // kernel about the client.
        if disk.front(least).is_none() {
            return Ok((0, None));
        }
        match Client::on_this_machine(stream) {
            Some(client) => (least, Some(client)),
            None => match copied_tail(disk.chunk_size()) {
                Some(tail) => (tail, None),
                None => return Ok((0, None)),
            },
        }
    };
    let Some(range) = disk.front(keep) else {
        return Ok((0, None));
    };
    let file = disk.pin()?;
    let sent = send(stream, &file, range, client.as_ref()).await?;
    let gate = match client {
        Some(client) if sent > 0 => Some(Gate { client, file, sent }),
        _ => None,
    };
    disk.skip_front(sent);
    Ok((sent, gate))
}

/// What the last chunk of a response whose client is a socket of this machine waits
/// for: every byte sent from the page cache read by the client, and then the file
/// still of its version. The chunk is a copy, read and checked itself; with it held
/// back until then, the client cannot have the whole response before the check that
/// covers the bytes it read from the page cache.
#[derive(Debug)]
pub(super) struct Gate {
    client: Client,
    /// The file, and the version its bytes must be of.
    file: Pinned,
    /// The body's bytes sent with `sendfile`, its first.
    sent: u64,
}

impl Gate {
    /// Waits until the client is behind by no more than the copies written after the
    /// bytes sent with `sendfile` (`written` is the body's bytes written so far), so
    /// that all it has not read are copies; then checks the file's version. An error
    /// (and the connection ends short) when the file changed, or the client's socket
    /// can no longer be asked about.
    pub(super) async fn pass(self, written: u64) -> io::Result<()> {
        let copies = written.saturating_sub(self.sent);
        let mut pause = Duration::from_micros(200);
        loop {
            let behind = self.client.unread()?;
            if behind <= copies {
                break;
            }
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(MOST_PAUSE);
        }
        if self.file.holds()? {
            Ok(())
        } else {
            Err(io::Error::other(Error::Changed))
        }
    }
}

/// `TCP_CORK` on a socket while `sendfile` feeds it, as nginx's `tcp_nopush`: the
/// kernel sends only full segments until it is taken off (when this is dropped, on
/// every way out of [`send`]), which then pushes the rest at once, so the copies
/// after the front and the next response are not held back. In `bench-disk`'s
/// single 64 MiB download over loopback, runs alternated with and without it gave
/// 0.73–0.74× nginx's rate without and 0.97–1.00× with (whole files: 0.70×, then
/// 1.02–1.07×).
struct Corked<'a>(&'a TcpStream);

impl<'a> Corked<'a> {
    fn new(stream: &'a TcpStream) -> Self {
        // A socket that refuses it is only slower.
        let _ = rustix::net::sockopt::set_tcp_cork(stream, true);
        Corked(stream)
    }
}

impl Drop for Corked<'_> {
    fn drop(&mut self) {
        let _ = rustix::net::sockopt::set_tcp_cork(self.0, false);
    }
}

/// Sends `range` of `file` to `stream` with `sendfile`, checking after each call that
/// the file still holds its version. With a `client` of this machine, stops where what
/// is left of `range` is no more than the client is behind by (the rest, and more, go
/// as copies). The number of bytes sent; an error (and the connection then ends) when
/// the socket fails or the file changed or shrank.
async fn send(
    stream: &TcpStream,
    file: &Pinned,
    range: ByteRange,
    client: Option<&Client>,
) -> io::Result<u64> {
    // Farther from the end than this, no client can be behind by what is left.
    let reach = copied_tail(0).unwrap_or(u64::MAX);
    let end = range.end + 1;
    let mut offset = range.start;
    let _corked = Corked::new(stream);
    while offset < end {
        let left = end - offset;
        if let Some(client) = client.filter(|_| left <= reach) {
            match client.unread() {
                Ok(behind) if left > behind => {}
                // A client that closed the connection ends the response here, not after
                // a chunk read from the disk for nobody.
                Err(gone) if gone.kind() == io::ErrorKind::ConnectionReset => return Err(gone),
                _ => break,
            }
        }
        let want = left.min(CHUNK);
        if !file.in_cache(offset, want) {
            file.warm(offset, want).await?;
        }
        let sent = write_some(stream, want as usize, || {
            file.send_to(stream, offset, want as usize)
        })
        .await?;
        // Nothing sent with room in the socket: the file is shorter than its version.
        if sent == 0 {
            return Err(io::Error::other(Error::Changed));
        }
        offset += sent as u64;
        if !file.holds()? {
            return Err(io::Error::other(Error::Changed));
        }
    }
    Ok(offset - range.start)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use tokio::io::AsyncReadExt as _;
    use tokio::net::{TcpListener, TcpStream};

    use super::*;
    use crate::disk::sendfile::scratch;

    /// A loopback connection's two ends: the server's, then the client's.
    async fn connection() -> (TcpStream, TcpStream) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        let (server, _) = listener.accept().await.unwrap();
        (server, client)
    }

    /// The gate holds the last chunk back while the client has bytes from the page
    /// cache unread, and once it has read them, lets it go only if the file is still
    /// of its version: a write in place meanwhile fails it.
    #[tokio::test]
    async fn the_gate_waits_for_the_client_then_checks_the_file() {
        const LEN: usize = 256 * 1024;
        for changed in [false, true] {
            let (path, file) = scratch::file("embed-assets-gate", LEN);
            let (server, mut client) = connection().await;
            let range = ByteRange {
                start: 0,
                end: LEN as u64 - 1,
            };
            let on_this_machine = Client::on_this_machine(&server).expect("a loopback client");
            let sent = send(&server, &file, range, None).await.unwrap();
            assert_eq!(sent, LEN as u64);
            // Corked while sending, and not after: the copies that follow go at once.
            assert!(!rustix::net::sockopt::tcp_cork(&server).unwrap());
            let gate = Gate {
                client: on_this_machine,
                file,
                sent,
            };
            // No copies written after the page cache's bytes, none read: it waits.
            let mut pass = Box::pin(gate.pass(sent));
            let waited = tokio::time::timeout(Duration::from_millis(300), &mut pass).await;
            assert!(
                waited.is_err(),
                "the gate let the last chunk go before the client read"
            );
            if changed {
                scratch::write_in_place(&path);
            }
            let mut body = vec![0u8; LEN];
            client.read_exact(&mut body).await.unwrap();
            let passed = tokio::time::timeout(Duration::from_secs(5), pass)
                .await
                .expect("the gate opens once the client read everything");
            assert_eq!(passed.is_ok(), !changed, "changed: {changed}");
            scratch::remove(&path);
        }
    }
}
