//! The raw ceiling (`--mode ceiling-raw`): what this machine allows for the ceiling's
//! responses with no HTTP library at all. One current-thread runtime; each request head
//! parsed with `httparse`; the ceiling's prebuilt response (its head serialized once,
//! at start) written with one `writev` of head and body. No `Date`, no `Host` check, no
//! conditional request but an exact `If-None-Match`: a bound to measure against, not a
//! server.

use std::collections::HashMap;
use std::io::{self, IoSlice};
use std::net::SocketAddr;

use axum::http::HeaderMap;
use bytes::{Buf, BytesMut};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::{Prebuilt, CEILING};

/// One prebuilt answer on the wire.
struct Wire {
    ok: Vec<u8>,
    body: &'static [u8],
    etag: &'static str,
    not_modified: Vec<u8>,
}

struct Entry {
    identity: Wire,
    brotli: Option<Wire>,
}

const NOT_FOUND: &[u8] = b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n";

fn head(status_line: &str, headers: &HeaderMap) -> Vec<u8> {
    let mut out = status_line.as_bytes().to_vec();
    for (name, value) in headers {
        out.extend_from_slice(name.as_str().as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(value.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"\r\n");
    out
}

fn wire(prebuilt: &Prebuilt) -> Wire {
    Wire {
        ok: head("HTTP/1.1 200 OK\r\n", &prebuilt.headers),
        body: prebuilt.body,
        etag: prebuilt.etag,
        not_modified: head("HTTP/1.1 304 Not Modified\r\n", &prebuilt.not_modified),
    }
}

/// Serves on `addr` until the process ends.
///
/// # Errors
/// The runtime or the listener failed.
pub(super) fn serve(addr: SocketAddr) -> io::Result<()> {
    let table: &'static HashMap<&'static str, Entry> = Box::leak(Box::new(
        CEILING
            .iter()
            .map(|(path, entry)| {
                let entry = Entry {
                    identity: wire(&entry.identity),
                    brotli: entry.brotli.as_ref().map(wire),
                };
                (*path, entry)
            })
            .collect(),
    ));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        super::announce(listener.local_addr()?)?;
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let _ = stream.set_nodelay(true);
            tokio::spawn(connection(stream, table));
        }
    })
}

async fn connection(mut stream: TcpStream, table: &'static HashMap<&'static str, Entry>) {
    let mut read = BytesMut::with_capacity(8192);
    loop {
        loop {
            let mut fields = [httparse::EMPTY_HEADER; 32];
            let mut request = httparse::Request::new(&mut fields);
            let Ok(httparse::Status::Complete(len)) = request.parse(&read) else {
                break;
            };
            let path = request.path.unwrap_or("/");
            let field = |name: &str| {
                request
                    .headers
                    .iter()
                    .find(|f| f.name.eq_ignore_ascii_case(name))
                    .map(|f| f.value)
            };
            let written = match table.get(path) {
                None => stream.write_all(NOT_FOUND).await,
                Some(entry) => {
                    let accepts_br = field("accept-encoding")
                        .is_some_and(|value| value.windows(2).any(|w| w == b"br"));
                    let chosen = match &entry.brotli {
                        Some(brotli) if accepts_br => brotli,
                        _ => &entry.identity,
                    };
                    if field("if-none-match").is_some_and(|v| v == chosen.etag.as_bytes()) {
                        stream.write_all(&chosen.not_modified).await
                    } else {
                        write_all_vectored(&mut stream, &chosen.ok, chosen.body).await
                    }
                }
            };
            if written.is_err() {
                return;
            }
            read.advance(len);
        }
        read.reserve(8192);
        match stream.read_buf(&mut read).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
    }
}

async fn write_all_vectored(stream: &mut TcpStream, head: &[u8], body: &[u8]) -> io::Result<()> {
    let mut slices = [IoSlice::new(head), IoSlice::new(body)];
    let mut slices = &mut slices[..];
    while !slices.is_empty() {
        let n = stream.write_vectored(slices).await?;
        if n == 0 {
            return Err(io::ErrorKind::WriteZero.into());
        }
        IoSlice::advance_slices(&mut slices, n);
    }
    Ok(())
}
