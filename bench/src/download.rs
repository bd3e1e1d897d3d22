//! A minimal HTTP/1.1 download client on raw tokio TCP: one connection per download
//! (`Connection: close`), the body read into a reused buffer and discarded, or
//! compared byte for byte with the expected content. bench-disk measures with it and
//! bench-load checks every download of its soak with it.

use std::mem::MaybeUninit;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt, Interest};
use tokio::net::TcpStream;

/// Read buffer per download.
const READ_BUF: usize = 256 << 10;
/// A response head longer than this is an error.
const MAX_HEAD: usize = 64 << 10;

/// What to ask for and what to expect.
#[derive(Debug, Clone)]
pub struct Request {
    /// The server.
    pub addr: SocketAddr,
    /// The URL path.
    pub path: &'static str,
    /// `Range: bytes=START-END` (inclusive).
    pub range: Option<(u64, u64)>,
    /// When set, the body must equal `expected[range]` (or all of it without a range).
    pub expected: Option<Arc<Vec<u8>>>,
    /// The whole download must finish within this.
    pub timeout: Duration,
    /// Drop the body in the kernel (`recv` with `MSG_TRUNC`, Linux TCP) instead of
    /// copying it out; ignored when `expected` is set.
    pub discard: bool,
}

/// One finished download.
#[derive(Debug)]
pub struct Download {
    /// The response's status code.
    pub status: u16,
    /// Its `Content-Length`, if it had one.
    pub content_length: Option<u64>,
    /// Whether it came with `Transfer-Encoding: chunked`.
    pub chunked: bool,
    /// Bytes after the head, up to the end of the connection.
    pub body_len: u64,
    /// From before `connect` to the end of the connection.
    pub elapsed: Duration,
    /// Offset of the first byte that differs from the expected content (or the
    /// expected length, if the body ran past it).
    pub first_mismatch: Option<u64>,
}

impl Download {
    /// `None` when the response is `status` with exactly `len` body bytes (and the
    /// right bytes, when they were checked); else what was wrong.
    pub fn problem(&self, status: u16, len: u64) -> Option<String> {
        if self.status != status {
            return Some(format!("status {} instead of {status}", self.status));
        }
        if self.chunked {
            return Some("chunked transfer coding instead of Content-Length".into());
        }
        if self.content_length != Some(len) {
            return Some(format!(
                "Content-Length {:?} instead of {len}",
                self.content_length
            ));
        }
        if self.body_len != len {
            return Some(format!(
                "{} body bytes instead of {len} (short by {})",
                self.body_len,
                len as i128 - self.body_len as i128
            ));
        }
        self.first_mismatch
            .map(|at| format!("bytes differ from the file from offset {at}"))
    }
}

/// Downloads once; an error is a failed connection, a malformed head or the timeout.
pub async fn download(request: Request) -> Result<Download, String> {
    let timeout = request.timeout;
    match tokio::time::timeout(timeout, download_inner(request)).await {
        Ok(result) => result,
        Err(_) => Err(format!("no complete response within {timeout:?}")),
    }
}

async fn download_inner(request: Request) -> Result<Download, String> {
    let start = Instant::now();
    let mut stream = TcpStream::connect(request.addr)
        .await
        .map_err(|e| format!("connect {}: {e}", request.addr))?;
    stream.set_nodelay(true).map_err(|e| e.to_string())?;
    let range = request
        .range
        .map(|(a, b)| format!("Range: bytes={a}-{b}\r\n"))
        .unwrap_or_default();
    let head = format!(
        "GET {} HTTP/1.1\r\nHost: {}\r\nUser-Agent: bench-disk\r\nAccept: */*\r\n{range}\
         Connection: close\r\n\r\n",
        request.path, request.addr
    );
    stream
        .write_all(head.as_bytes())
        .await
        .map_err(|e| format!("send request: {e}"))?;

    let mut buf = vec![0u8; READ_BUF];
    // Read until the end of the head.
    let mut filled = 0;
    let head_end = loop {
        if filled == buf.len() || filled >= MAX_HEAD {
            return Err("response head too long".into());
        }
        let n = stream
            .read(&mut buf[filled..])
            .await
            .map_err(|e| format!("read head: {e}"))?;
        if n == 0 {
            return Err(format!(
                "connection closed after {filled} bytes, before the end of the head"
            ));
        }
        filled += n;
        if let Some(end) = find(&buf[..filled], b"\r\n\r\n") {
            break end + 4;
        }
    };
    let (status, content_length, chunked) = parse_head(&buf[..head_end])?;

    let expected = request.expected.as_deref().map(|all| match request.range {
        Some((a, b)) => &all[a as usize..=(b as usize).min(all.len() - 1)],
        None => &all[..],
    });
    let mut body_len = 0u64;
    let mut first_mismatch = None;
    let mut check = |piece: &[u8], body_len: u64| {
        if first_mismatch.is_some() {
            return;
        }
        if let Some(expected) = expected {
            let at = body_len as usize;
            let want = expected.get(at..).unwrap_or(&[]);
            let same = piece.len().min(want.len());
            if piece[..same] != want[..same] {
                let i = (0..same).find(|&i| piece[i] != want[i]).unwrap_or(0);
                first_mismatch = Some((at + i) as u64);
            } else if piece.len() > want.len() {
                first_mismatch = Some(expected.len() as u64);
            }
        }
    };
    check(&buf[head_end..filled], 0);
    body_len += (filled - head_end) as u64;
    if request.discard && expected.is_none() {
        body_len += discard_rest(&stream).await?;
    }
    loop {
        let n = match stream.read(&mut buf).await {
            Ok(0) => break,
            Ok(n) => n,
            // A reset after a complete body still counts as a body; the length check
            // catches the rest.
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => break,
            Err(e) => return Err(format!("read body after {body_len} bytes: {e}")),
        };
        check(&buf[..n], body_len);
        body_len += n as u64;
    }
    Ok(Download {
        status,
        content_length,
        chunked,
        body_len,
        elapsed: start.elapsed(),
        first_mismatch,
    })
}

/// `MSG_TRUNC` on Linux: for TCP, the kernel drops the data instead of copying it.
const MSG_TRUNC: i32 = 0x20;

/// Reads to the end of the connection without copying the bytes to user space; the
/// number of bytes dropped.
async fn discard_rest(stream: &TcpStream) -> Result<u64, String> {
    let socket = socket2::SockRef::from(stream);
    // Never written: with MSG_TRUNC the length only caps one call.
    let mut sink = vec![MaybeUninit::<u8>::uninit(); 4 << 20];
    let mut total = 0u64;
    loop {
        stream
            .readable()
            .await
            .map_err(|e| format!("read body after {total} bytes: {e}"))?;
        match stream.try_io(Interest::READABLE, || {
            socket.recv_with_flags(&mut sink, MSG_TRUNC)
        }) {
            Ok(0) => return Ok(total),
            Ok(n) => total += n as u64,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return Ok(total),
            Err(e) => return Err(format!("read body after {total} bytes: {e}")),
        }
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Status, `Content-Length`, whether `Transfer-Encoding: chunked`.
fn parse_head(head: &[u8]) -> Result<(u16, Option<u64>, bool), String> {
    let text = std::str::from_utf8(head).map_err(|_| "response head is not UTF-8")?;
    let mut lines = text.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("bad status line `{status_line}`"))?;
    let mut content_length = None;
    let mut chunked = false;
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        if name.eq_ignore_ascii_case("content-length") {
            content_length = Some(
                value
                    .parse()
                    .map_err(|_| format!("bad Content-Length `{value}`"))?,
            );
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            chunked = value.to_ascii_lowercase().contains("chunked");
        }
    }
    Ok((status, content_length, chunked))
}
