//! What the fast path writes to a socket: the responses answered and not yet written,
//! gathered so that the answers to pipelined requests go out in one `writev`, the
//! vectored write itself, and a response whose body is not one run of bytes in memory
//! (its head, then the front of an on-disk file with `sendfile`, then its chunks).

use std::future::poll_fn;
use std::io::{self, IoSlice};
use std::pin::pin;

use bytes::Bytes;
use http::header::STRICT_TRANSPORT_SECURITY;
use http::{HeaderValue, Method, Response};
use http_body::Body as _;
use tokio::io::{AsyncWrite, AsyncWriteExt as _};
use tokio::net::TcpStream;

use super::encode;
#[cfg(target_os = "linux")]
use super::pages::write_more;
#[cfg(target_os = "linux")]
use super::sendfile::Gate;
use super::transport::Transport;
use crate::body::Body;

/// Responses answered and not written yet: their heads one after another in one
/// buffer, each body a `Bytes` of its own (not copied). A connection writes them when
/// it has no whole request left to answer, before it hands over or streams a body, and
/// when [`Batch::is_full`]: a client that pipelines its requests gets the answers to
/// those that came together in one `writev`, as hyper's `pipeline_flush` does; one that
/// does not gets each answer in its own, as before.
#[derive(Default)]
pub(super) struct Batch {
    heads: Vec<u8>,
    /// Each response's end in `heads` and its body (empty for a head alone).
    responses: Vec<(usize, Bytes)>,
    /// The bytes of the bodies in `responses`.
    body_bytes: usize,
}

impl Batch {
    /// The responses held at most: two slices each, well under the kernel's `IOV_MAX`
    /// (1024).
    const MAX_RESPONSES: usize = 32;
    /// The body bytes held at most before a write (they are not copied: this bounds how
    /// long the first of them waits, not memory).
    const MAX_BODY_BYTES: usize = 256 * 1024;

    /// The buffer the next response's head is written to, after those held.
    pub(super) fn head(&mut self) -> &mut Vec<u8> {
        &mut self.heads
    }

    /// Ends the response whose head was just written to [`Batch::head`] with `body`.
    pub(super) fn push(&mut self, body: Bytes) {
        self.body_bytes += body.len();
        self.responses.push((self.heads.len(), body));
    }

    /// Whether the responses held are to be written before another is answered.
    pub(super) fn is_full(&self) -> bool {
        self.responses.len() >= Self::MAX_RESPONSES || self.body_bytes >= Self::MAX_BODY_BYTES
    }

    /// Writes the responses held, in order, with one `writev` (more if the socket takes
    /// less at once; over TLS, into the session, then flushed), and forgets them.
    pub(super) async fn write(&mut self, stream: &mut impl Transport) -> io::Result<()> {
        if self.responses.is_empty() {
            return Ok(());
        }
        let mut slices = [IoSlice::new(&[]); 2 * Self::MAX_RESPONSES];
        let used = self.slices(&mut slices);
        let written = write_all_vectored(stream, &mut slices[..used]).await;
        self.clear();
        written?;
        stream.flush().await
    }

    /// [`write`](Self::write) to the plain socket, telling the kernel that more bytes
    /// follow (`MSG_MORE`): the last response's body, which goes with `sendfile`.
    pub(super) async fn write_more(&mut self, stream: &mut TcpStream) -> io::Result<()> {
        if self.responses.is_empty() {
            return Ok(());
        }
        let mut slices = [IoSlice::new(&[]); 2 * Self::MAX_RESPONSES];
        let used = self.slices(&mut slices);
        let written = write_more(stream, &mut slices[..used]).await;
        self.clear();
        written
    }

    /// The responses held as slices, head and body in turn: how many of `slices`.
    fn slices<'a>(&'a self, slices: &mut [IoSlice<'a>]) -> usize {
        let mut used = 0;
        let mut start = 0;
        for (end, body) in &self.responses {
            slices[used] = IoSlice::new(&self.heads[start..*end]);
            used += 1;
            if !body.is_empty() {
                slices[used] = IoSlice::new(body);
                used += 1;
            }
            start = *end;
        }
        used
    }

    fn clear(&mut self) {
        self.heads.clear();
        self.responses.clear();
        self.body_bytes = 0;
    }
}

/// Where there is no `MSG_MORE` path (no body goes with `sendfile`), a plain write.
#[cfg(not(target_os = "linux"))]
async fn write_more(stream: &mut TcpStream, slices: &mut [IoSlice<'_>]) -> io::Result<()> {
    write_all_vectored(stream, slices).await
}

/// `writev` until every slice is written.
pub(super) async fn write_all_vectored(
    stream: &mut (impl AsyncWrite + Unpin),
    mut slices: &mut [IoSlice<'_>],
) -> io::Result<()> {
    if let [one] = slices {
        return stream.write_all(one).await;
    }
    while !slices.is_empty() {
        let written = stream.write_vectored(slices).await?;
        if written == 0 {
            return Err(io::ErrorKind::WriteZero.into());
        }
        IoSlice::advance_slices(&mut slices, written);
    }
    Ok(())
}

/// How a response is written: to which method, whether it is the connection's last,
/// and whether an on-disk file goes whole with `sendfile` (`Server::sendfile_whole_files`).
#[derive(Clone, Copy)]
pub(super) struct Writing<'a> {
    pub(super) method: &'a Method,
    pub(super) last: bool,
    pub(super) sendfile_whole: bool,
    /// Over TLS with `Server::hsts`: `Strict-Transport-Security`, unless the response
    /// has its own.
    pub(super) hsts: Option<&'a HeaderValue>,
}

/// Answers with `response`: into `batch` when its body is one run of bytes in memory,
/// else its head and the responses before it written at once, then the body's chunks
/// as they come.
pub(super) async fn write_response(
    stream: &mut impl Transport,
    response: Response<Body>,
    writing: &Writing<'_>,
    batch: &mut Batch,
) -> io::Result<()> {
    let Writing {
        method,
        last,
        sendfile_whole,
        hsts,
    } = *writing;
    let (parts, body) = response.into_parts();
    let len = encode::encode(
        parts.status,
        &parts.headers,
        encode::body_len(&body),
        method,
        last,
        batch.head(),
    );
    if let Some(hsts) = hsts {
        if !parts.headers.contains_key(STRICT_TRANSPORT_SECURITY) {
            encode::add_field(batch.head(), &STRICT_TRANSPORT_SECURITY, hsts);
        }
    }
    if len == 0 {
        batch.push(Bytes::new());
        return Ok(());
    }
    let mut body = match body.into_bytes() {
        Ok(bytes) => {
            batch.push(bytes);
            return Ok(());
        }
        Err(body) => body,
    };
    batch.push(Bytes::new());
    batch.write(stream).await?;
    let (mut sent, mut gate) = match stream.plain() {
        Some(tcp) => send_file_front(tcp, &mut body, sendfile_whole).await?,
        // Over TLS, every byte is read, checked and encrypted here.
        None => (0, None),
    };
    let mut body = pin!(body);
    while let Some(frame) = poll_fn(|cx| body.as_mut().poll_frame(cx)).await {
        // A body that fails (a file changed or unreadable mid-way) ends the connection
        // short of its `Content-Length`: the client cannot take it for the whole.
        let frame = frame.map_err(io::Error::other)?;
        if let Ok(data) = frame.into_data() {
            if sent + data.len() as u64 == len {
                if let Some(gate) = gate.take() {
                    gate.pass(sent).await?;
                }
            }
            stream.write_all(&data).await?;
            sent += data.len() as u64;
        }
    }
    if sent == len {
        stream.flush().await
    } else {
        Err(io::Error::from(io::ErrorKind::UnexpectedEof))
    }
}

/// Without `sendfile`, every byte goes as the body's chunks, and no gate is waited for.
#[cfg(not(target_os = "linux"))]
async fn send_file_front(_: &TcpStream, _: &mut Body, _: bool) -> io::Result<(u64, Option<Gate>)> {
    Ok((0, None))
}

/// Without `sendfile`, nothing to wait for.
#[cfg(not(target_os = "linux"))]
enum Gate {}

#[cfg(not(target_os = "linux"))]
impl Gate {
    async fn pass(self, _: u64) -> io::Result<()> {
        match self {}
    }
}

#[cfg(target_os = "linux")]
impl Body {
    /// The stream of an on-disk file's bytes this body is, if it is one.
    fn disk_mut(&mut self) -> Option<&mut crate::disk::DiskBody> {
        match &mut self.inner {
            crate::body::Inner::Disk(disk) => Some(disk),
            _ => None,
        }
    }
}

/// Sends the front of an on-disk file's body with `sendfile` (see `sendfile`).
#[cfg(target_os = "linux")]
async fn send_file_front(
    stream: &TcpStream,
    body: &mut Body,
    whole: bool,
) -> io::Result<(u64, Option<Gate>)> {
    match body.disk_mut() {
        Some(disk) => super::sendfile::send_front(stream, disk, whole).await,
        None => Ok((0, None)),
    }
}
