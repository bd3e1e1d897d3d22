//! A minimal blocking HTTP/1.1 client for checking each server before it is measured:
//! one request per connection, sent as the load generator sends it (keep-alive, no
//! `Connection: close`, so the response head is the one measured), the whole head kept
//! and the body read by `Content-Length` or the chunked coding.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// Longest a check may wait for the server.
const TIMEOUT: Duration = Duration::from_secs(10);
/// A head or body over this is an error (the largest file is about 230 KB).
const MAX_RESPONSE: usize = 16 << 20;

/// One response.
#[derive(Debug)]
pub struct Reply {
    /// The status code.
    pub status: u16,
    /// Header names lowercased, in order.
    pub headers: Vec<(String, String)>,
    /// Bytes of the head, status line to the empty line included.
    pub head_len: usize,
    /// The body after any chunked coding is removed.
    pub body: Vec<u8>,
    /// Bytes of the body on the wire (with the chunked coding, if any).
    pub wire_body_len: usize,
}

impl Reply {
    /// The first value of header `name` (lowercase).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The bytes one such response takes on the connection.
    pub fn wire_len(&self) -> usize {
        self.head_len + self.wire_body_len
    }
}

/// `GET path` with `headers`, on a new connection to `addr`.
///
/// # Errors
/// The connection failed or timed out (10 s), or the response is malformed or over
/// 16 MiB.
pub fn get(addr: SocketAddr, path: &str, headers: &[(String, String)]) -> Result<Reply, String> {
    let mut stream =
        TcpStream::connect_timeout(&addr, TIMEOUT).map_err(|e| format!("connect: {e}"))?;
    stream
        .set_read_timeout(Some(TIMEOUT))
        .and_then(|()| stream.set_write_timeout(Some(TIMEOUT)))
        .map_err(|e| e.to_string())?;
    exchange(&mut stream, addr, path, headers).map(|(reply, _)| reply)
}

/// [`get`] over `stream`, a connection already open (a TLS session, say): the reply,
/// and every byte of it as read.
pub fn exchange(
    mut stream: impl Read + Write,
    addr: SocketAddr,
    path: &str,
    headers: &[(String, String)],
) -> Result<(Reply, Vec<u8>), String> {
    let mut request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\n");
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    stream
        .write_all(request.as_bytes())
        .map_err(|e| format!("send: {e}"))?;

    let mut buf = Vec::with_capacity(64 << 10);
    let head_len = loop {
        if let Some(at) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        read_more(&mut stream, &mut buf)?;
    };
    let head = std::str::from_utf8(&buf[..head_len]).map_err(|_| "head is not UTF-8")?;
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .ok_or_else(|| format!("bad status line `{status_line}`"))?;
    let headers: Vec<(String, String)> = lines
        .filter(|line| !line.is_empty())
        .filter_map(|line| {
            let (name, value) = line.split_once(':')?;
            Some((name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        })
        .collect();
    let mut reply = Reply {
        status,
        headers,
        head_len,
        body: Vec::new(),
        wire_body_len: 0,
    };
    if status == 304 || status == 204 || (100..200).contains(&status) {
        return Ok((reply, buf));
    }
    if reply
        .header("transfer-encoding")
        .is_some_and(|te| te.eq_ignore_ascii_case("chunked"))
    {
        let mut at = head_len;
        loop {
            let line_end = loop {
                if let Some(end) = buf[at..].windows(2).position(|w| w == b"\r\n") {
                    break at + end;
                }
                read_more(&mut stream, &mut buf)?;
            };
            let size_text = std::str::from_utf8(&buf[at..line_end]).map_err(|e| e.to_string())?;
            let size_text = size_text.split(';').next().unwrap_or_default().trim();
            let size =
                usize::from_str_radix(size_text, 16).map_err(|_| "bad chunk size".to_owned())?;
            let data = line_end + 2;
            while buf.len() < data + size + 2 {
                read_more(&mut stream, &mut buf)?;
            }
            reply.body.extend_from_slice(&buf[data..data + size]);
            at = data + size + 2;
            if size == 0 {
                break;
            }
        }
        reply.wire_body_len = at - head_len;
        buf.truncate(at);
        return Ok((reply, buf));
    }
    let length: usize = reply
        .header("content-length")
        .ok_or("neither Content-Length nor chunked")?
        .parse()
        .map_err(|_| "bad Content-Length".to_owned())?;
    if length > MAX_RESPONSE {
        return Err(format!("Content-Length {length} is too large"));
    }
    while buf.len() < head_len + length {
        read_more(&mut stream, &mut buf)?;
    }
    buf.truncate(head_len + length);
    reply.body = buf[head_len..].to_vec();
    reply.wire_body_len = length;
    Ok((reply, buf))
}

fn read_more(stream: &mut impl Read, buf: &mut Vec<u8>) -> Result<(), String> {
    if buf.len() > MAX_RESPONSE {
        return Err("response too large".into());
    }
    let mut chunk = [0u8; 64 << 10];
    match stream.read(&mut chunk) {
        Ok(0) => Err("connection closed before the response ended".into()),
        Ok(n) => {
            buf.extend_from_slice(&chunk[..n]);
            Ok(())
        }
        Err(e) => Err(format!("receive: {e}")),
    }
}

/// The body with its `Content-Encoding` removed (br, gzip or none).
///
/// # Errors
/// Another coding, or a body that does not decode.
pub fn decode(reply: &Reply) -> Result<Vec<u8>, String> {
    match reply.header("content-encoding") {
        None | Some("identity") => Ok(reply.body.clone()),
        Some("br") => {
            let mut out = Vec::new();
            brotli_decompressor::Decompressor::new(&reply.body[..], 64 << 10)
                .read_to_end(&mut out)
                .map_err(|e| format!("br body does not decode: {e}"))?;
            Ok(out)
        }
        Some("gzip") => {
            let mut out = Vec::new();
            flate2::read::GzDecoder::new(&reply.body[..])
                .read_to_end(&mut out)
                .map_err(|e| format!("gzip body does not decode: {e}"))?;
            Ok(out)
        }
        Some(other) => Err(format!("unexpected Content-Encoding `{other}`")),
    }
}
