//! Large embedded bodies sent with no copy per response (Linux). At start-up, each
//! body the table stores of at least [`Pages::FROM`] bytes is copied once
//! into an anonymous memory file (`memfd_create`: memory, no file system), which is
//! then sealed against any change. A hit whose body is one of them goes as its head,
//! written with `MSG_MORE`, then the body with `sendfile` from that memory: the kernel
//! hands the socket references to the pages, as nginx's `sendfile` of a `.br` file
//! does, instead of copying the bytes into the socket for every response.
//!
//! The bytes cannot change under a response: the seals forbid any write, shrinking or
//! growing, by this process or any other holding the file.

use std::collections::HashMap;
use std::io::{self, IoSlice};
use std::os::fd::OwnedFd;
use std::sync::atomic::{AtomicUsize, Ordering};

use bytes::Bytes;
use rustix::fs::{MemfdFlags, SealFlags};
use rustix::net::{SendAncillaryBuffer, SendFlags};
use tokio::io::Interest;
use tokio::net::TcpStream;

use super::ready::write_some;
use crate::table::Assets;

/// The stored bodies of a table copied into sealed memory, and where each one is.
#[derive(Debug)]
pub(crate) struct Pages {
    memory: OwnedFd,
    /// The shortest body in the pages may have.
    from: usize,
    /// Each body's offset in `memory`, by the address of its first byte and its length.
    at: HashMap<(usize, usize), u64>,
}

impl Pages {
    /// Bodies from this many bytes on are sent from the pages. Measured on this
    /// project's 2-core machine (`serve` on one core, wrk on the other, runs
    /// alternated): a 43 KB br body and a 45 KB image 1.09–1.12× the requests per
    /// second, at 0.89–0.95× the CPU per response; a 15 KB br body, no difference
    /// either way.
    pub(crate) const FROM: usize = 16 * 1024;

    /// The stored bodies of `assets` of at least `from` bytes, copied into sealed
    /// memory; `None` when there are none.
    pub(crate) fn of(assets: &Assets, from: usize) -> io::Result<Option<Pages>> {
        let mut at = HashMap::new();
        let mut bodies = Vec::new();
        let mut end = 0u64;
        for variant in assets.iter().flat_map(|asset| asset.variants()) {
            // A body decoded on demand is not in the binary: it stays out.
            if !variant.is_stored() || (variant.len() as usize) < from {
                continue;
            }
            let body = variant.body();
            if let std::collections::hash_map::Entry::Vacant(slot) =
                at.entry((body.as_ptr() as usize, body.len()))
            {
                slot.insert(end);
                bodies.push(body);
                end += body.len() as u64;
            }
        }
        if bodies.is_empty() {
            return Ok(None);
        }
        let memory = sealed("embed-assets-bodies", &bodies, end)?;
        Ok(Some(Pages { memory, from, at }))
    }

    /// Where `body` is in the pages, if it is one of their bodies. A body shorter than
    /// any of them is told at once, with no lookup: most hits.
    pub(crate) fn offset_of(&self, body: &Bytes) -> Option<u64> {
        if body.len() < self.from {
            return None;
        }
        self.at.get(&(body.as_ptr() as usize, body.len())).copied()
    }

    /// The bytes in the pages in all.
    #[cfg(test)]
    fn len(&self) -> u64 {
        rustix::fs::fstat(&self.memory).map_or(0, |stat| stat.st_size as u64)
    }

    /// Sends `len` bytes of the pages from `offset` to `stream` with `sendfile`.
    pub(crate) async fn send(&self, stream: &TcpStream, offset: u64, len: u64) -> io::Result<()> {
        send_from(&self.memory, stream, offset, len).await
    }
}

/// `bodies` one after the other (`len` bytes in all) in a new memory file named
/// `name`, sealed against writes, shrinking and growing.
fn sealed(name: &str, bodies: &[&[u8]], len: u64) -> io::Result<OwnedFd> {
    let memory = rustix::fs::memfd_create(name, MemfdFlags::CLOEXEC | MemfdFlags::ALLOW_SEALING)?;
    rustix::fs::ftruncate(&memory, len)?;
    let mut offset = 0u64;
    for body in bodies {
        let mut written = 0;
        while written < body.len() {
            let n = rustix::io::pwrite(&memory, &body[written..], offset + written as u64)?;
            if n == 0 {
                return Err(io::ErrorKind::WriteZero.into());
            }
            written += n;
        }
        offset += body.len() as u64;
    }
    rustix::fs::fcntl_add_seals(
        &memory,
        SealFlags::WRITE | SealFlags::SHRINK | SealFlags::GROW | SealFlags::SEAL,
    )?;
    Ok(memory)
}

/// A body cached by the service at run time (a file of a folder served whole), copied
/// once into sealed memory of its own when `serve` first sends it whole, and sent from
/// there with `sendfile` as the table's bodies are. At most [`SealedBody::MOST`] exist at
/// once, so that a large folder does not take a file descriptor per file; past that,
/// bodies are written as before.
#[derive(Debug)]
pub(crate) struct SealedBody {
    memory: OwnedFd,
}

/// How many [`SealedBody`]s exist.
static BODIES: AtomicUsize = AtomicUsize::new(0);

impl SealedBody {
    /// The most that exist at once, across all services of the process.
    const MOST: usize = 512;

    /// `bytes` in sealed memory of its own; `Err(true)` past [`SealedBody::MOST`] (worth
    /// asking again once others are gone), `Err(false)` when the kernel refuses.
    pub(crate) fn of(bytes: &[u8]) -> Result<SealedBody, bool> {
        if BODIES.fetch_add(1, Ordering::Relaxed) >= Self::MOST {
            BODIES.fetch_sub(1, Ordering::Relaxed);
            return Err(true);
        }
        match sealed("embed-assets-kept", &[bytes], bytes.len() as u64) {
            Ok(memory) => Ok(SealedBody { memory }),
            Err(_) => {
                BODIES.fetch_sub(1, Ordering::Relaxed);
                Err(false)
            }
        }
    }

    /// Sends its first `len` bytes to `stream` with `sendfile`.
    pub(crate) async fn send(&self, stream: &TcpStream, len: u64) -> io::Result<()> {
        send_from(&self.memory, stream, 0, len).await
    }
}

impl Drop for SealedBody {
    fn drop(&mut self) {
        BODIES.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Sends `len` bytes of `memory` from `offset` to `stream` with `sendfile`.
async fn send_from(memory: &OwnedFd, stream: &TcpStream, offset: u64, len: u64) -> io::Result<()> {
    let end = offset + len;
    let mut at = offset;
    while at < end {
        let want = (end - at) as usize;
        let sent = write_some(stream, want, || {
            let mut from = at;
            rustix::fs::sendfile(stream, memory, Some(&mut from), want).map_err(io::Error::from)
        })
        .await?;
        if sent == 0 {
            return Err(io::ErrorKind::WriteZero.into());
        }
        at += sent as u64;
    }
    Ok(())
}

/// Writes `slices` with `MSG_MORE`: the kernel holds a segment that is not full for
/// the bytes that follow (the body sent with `sendfile`), as nginx's `tcp_nopush` does
/// with two system calls fewer.
pub(crate) async fn write_more(
    stream: &TcpStream,
    mut slices: &mut [IoSlice<'_>],
) -> io::Result<()> {
    while !slices.is_empty() {
        let written = stream
            .async_io(Interest::WRITABLE, || {
                rustix::net::sendmsg(
                    stream,
                    slices,
                    &mut SendAncillaryBuffer::default(),
                    SendFlags::MORE | SendFlags::NOSIGNAL,
                )
                .map_err(io::Error::from)
            })
            .await?;
        if written == 0 {
            return Err(io::ErrorKind::WriteZero.into());
        }
        IoSlice::advance_slices(&mut slices, written);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use tokio::io::AsyncReadExt as _;
    use tokio::net::TcpListener;

    use super::*;
    use crate::Assets;

    static SITE: Assets = crate::embed_assets!("../examples/public", compressed_only = false);

    /// Every stored body of `SITE` of at least `from` bytes.
    fn stored(from: usize) -> Vec<&'static [u8]> {
        SITE.iter()
            .flat_map(|asset| asset.variants())
            .filter(|variant| variant.is_stored() && variant.len() as usize >= from)
            .map(|variant| variant.body())
            .collect()
    }

    fn read_back(pages: &Pages, offset: u64, len: usize) -> Vec<u8> {
        let mut bytes = vec![0; len];
        let read = rustix::io::pread(&pages.memory, &mut bytes, offset).unwrap();
        assert_eq!(read, len);
        bytes
    }

    #[test]
    fn each_body_from_the_threshold_is_in_the_pages_byte_for_byte_and_none_below() {
        let from = 1024;
        let pages = Pages::of(&SITE, from)
            .unwrap()
            .expect("the site has bodies of 1 KiB");
        let bodies = stored(from);
        assert!(!bodies.is_empty());
        for body in &bodies {
            let offset = pages
                .offset_of(&Bytes::from_static(body))
                .expect("a body from the threshold on is in the pages");
            assert_eq!(read_back(&pages, offset, body.len()), *body);
        }
        let total: usize = bodies.iter().map(|b| b.len()).sum();
        assert_eq!(pages.len(), total as u64, "each body once, nothing else");
        for small in stored(0).into_iter().filter(|b| b.len() < from) {
            assert_eq!(pages.offset_of(&Bytes::from_static(small)), None);
        }
        // The same bytes elsewhere (a copy) are not the table's body.
        let copy = Bytes::from(bodies[0].to_vec());
        assert_eq!(pages.offset_of(&copy), None);
        assert!(Pages::of(&SITE, usize::MAX).unwrap().is_none());
    }

    #[test]
    fn the_pages_refuse_every_change() {
        let pages = Pages::of(&SITE, 1024).unwrap().unwrap();
        let before = read_back(&pages, 0, 16);
        assert!(rustix::io::pwrite(&pages.memory, b"changed", 0).is_err());
        assert!(rustix::fs::ftruncate(&pages.memory, 1).is_err());
        assert!(rustix::fs::ftruncate(&pages.memory, pages.len() + 4096).is_err());
        assert_eq!(read_back(&pages, 0, 16), before);
    }

    #[tokio::test]
    async fn a_head_with_more_then_a_body_from_the_pages_arrive_in_order_and_whole() {
        let pages = Pages::of(&SITE, 1024).unwrap().unwrap();
        let body = stored(1024)[0];
        let offset = pages.offset_of(&Bytes::from_static(body)).unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let client = tokio::spawn(async move {
            let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
            let mut got = Vec::new();
            stream.read_to_end(&mut got).await.unwrap();
            got
        });
        let (stream, _) = listener.accept().await.unwrap();
        let head = b"HTTP/1.1 200 OK\r\n\r\n";
        write_more(&stream, &mut [IoSlice::new(head)])
            .await
            .unwrap();
        pages
            .send(&stream, offset, body.len() as u64)
            .await
            .unwrap();
        drop(stream);
        let got = client.await.unwrap();
        assert_eq!(&got[..head.len()], head);
        assert_eq!(&got[head.len()..], body);
    }
}
