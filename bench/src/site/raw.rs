//! The raw ceiling (`--mode ceiling-raw`): what this machine allows for the ceiling's
//! responses with no HTTP library at all, on [`serve_raw`]'s loop: one current-thread
//! runtime; each request head parsed with `httparse`; the ceiling's prebuilt response
//! (its head serialized once, at start) written with one `writev` of head and body. No
//! `Date`, no `Host` check, no conditional request but an exact `If-None-Match`: a bound
//! to measure against, not a server.

use std::collections::HashMap;
use std::io;
use std::net::SocketAddr;

use axum::http::HeaderMap;

use super::{Prebuilt, CEILING};
use crate::serving::{field, serve_raw, Entry, Reply, NOT_FOUND};

/// One prebuilt answer on the wire.
struct Wire {
    ok: Vec<u8>,
    body: &'static [u8],
    etag: &'static str,
    not_modified: Vec<u8>,
}

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
    let table: &'static HashMap<&'static str, Entry<Wire>> = Box::leak(Box::new(
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
    serve_raw(addr, move |request| -> Reply {
        let Some(entry) = table.get(request.path.unwrap_or("/")) else {
            return (NOT_FOUND, &[]);
        };
        let chosen = entry.choose(request);
        if field(request, "if-none-match").is_some_and(|v| v == chosen.etag.as_bytes()) {
            (&chosen.not_modified, &[])
        } else {
            (&chosen.ok, chosen.body)
        }
    })
}
