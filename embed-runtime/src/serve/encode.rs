//! The bytes of an HTTP/1.1 response head, written as hyper 1 writes them for the same
//! response, so that a hit answered on the fast path and one answered through hyper
//! carry the same fields: lowercase names in the map's order, the values of a repeated
//! `Connection` joined, `Content-Length` from the body when the map has none (and
//! never for 204, 304 or a HEAD's implicit zero), a `Date` when the map has none, and
//! `Connection: close` on the last response of a connection.
//!
//! hyper's encoder is not public, and a response head is a few lines: writing them
//! here is what lets the fast path send head and body with one `writev`. The suite
//! compares the two paths' heads field by field (`tests/tests/serve.rs`).

use std::cell::RefCell;
use std::io::Write as _;
use std::time::{SystemTime, UNIX_EPOCH};

use http::header::{CONNECTION, CONTENT_LENGTH, DATE, TRAILER, TRANSFER_ENCODING};
use http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode};
use http_body::Body as _;

use crate::body::Body;
use crate::respond::Prebuilt;

/// Writes the head of a response to a request with `method` at the end of `out`:
/// `status`, `headers`, and the body's length as hyper reads it (`None` for a body
/// that has ended: empty, or a HEAD's), `last` when the connection closes after it.
/// Returns the number of body bytes to send after the head: zero for HEAD, 204 and
/// 304, whatever the body holds.
pub(super) fn encode(
    status: StatusCode,
    headers: &HeaderMap,
    body_len: Option<u64>,
    method: &Method,
    last: bool,
    out: &mut Vec<u8>,
) -> u64 {
    if status == StatusCode::OK {
        out.extend_from_slice(b"HTTP/1.1 200 OK\r\n");
    } else {
        out.extend_from_slice(b"HTTP/1.1 ");
        out.extend_from_slice(status.as_str().as_bytes());
        out.push(b' ');
        out.extend_from_slice(status.canonical_reason().unwrap_or("<none>").as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    let is_head = method == Method::HEAD;
    let mut wrote_len = false;
    let mut wrote_date = false;
    // The values of one name come one after another: `Connection`'s are joined on one
    // line, which stays open until the next name (`closes`: one of them says close).
    let mut connection: Option<bool> = None;
    for (name, value) in headers {
        if name == CONNECTION {
            match &mut connection {
                Some(closes) => {
                    out.extend_from_slice(b", ");
                    *closes |= has_close(value);
                }
                None => {
                    out.extend_from_slice(b"connection: ");
                    connection = Some(has_close(value));
                }
            }
            out.extend_from_slice(value.as_bytes());
            continue;
        }
        if let Some(closes) = connection.take() {
            end_connection(out, last && !closes);
        }
        if name == CONTENT_LENGTH {
            // A length with no body is dropped, but for a HEAD's; the first one counts.
            if wrote_len || (body_len.is_none() && !is_head) {
                continue;
            }
            wrote_len = true;
        } else if name == DATE {
            wrote_date = true;
        }
        out.extend_from_slice(name.as_str().as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(value.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    match connection {
        Some(closes) => end_connection(out, last && !closes),
        None if last => out.extend_from_slice(b"connection: close\r\n"),
        None => {}
    }
    let can_have_length = !matches!(status, StatusCode::NO_CONTENT | StatusCode::NOT_MODIFIED)
        && !status.is_informational();
    if !wrote_len && can_have_length {
        match body_len {
            Some(len) if len > 0 => {
                // Writing to a `Vec` cannot fail.
                let _ = write!(out, "content-length: {len}\r\n");
            }
            _ if !is_head => out.extend_from_slice(b"content-length: 0\r\n"),
            _ => {}
        }
    }
    if !wrote_date {
        out.extend_from_slice(b"date: ");
        DATE_NOW.with(|date| out.extend_from_slice(date.borrow_mut().now()));
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"\r\n");
    if can_have_length && !is_head {
        body_len.unwrap_or(0)
    } else {
        0
    }
}

/// Adds the field `name: value` at the end of the head just written to the end of
/// `out` (before its closing empty line).
pub(super) fn add_field(out: &mut Vec<u8>, name: &HeaderName, value: &HeaderValue) {
    if out.ends_with(b"\r\n\r\n") {
        out.truncate(out.len() - 2);
        out.extend_from_slice(name.as_str().as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(value.as_bytes());
        out.extend_from_slice(b"\r\n\r\n");
    }
}

/// [`encode`] for a prebuilt answer: its field lines copied at once when they can be
/// (every case but a GET of an empty body, whose length hyper moves to the end).
pub(super) fn encode_prebuilt(
    prebuilt: &Prebuilt<'_>,
    method: &Method,
    last: bool,
    out: &mut Vec<u8>,
) -> u64 {
    let is_head = method == Method::HEAD;
    let body_len = (!prebuilt.body.is_empty()).then_some(prebuilt.body.len() as u64);
    let not_modified = prebuilt.status == StatusCode::NOT_MODIFIED;
    let lines = field_lines(prebuilt).filter(|_| not_modified || is_head || body_len.is_some());
    let Some(lines) = lines else {
        return encode(
            prebuilt.status,
            prebuilt.headers(),
            body_len,
            method,
            last,
            out,
        );
    };
    out.extend_from_slice(if not_modified {
        b"HTTP/1.1 304 Not Modified\r\n".as_slice()
    } else {
        b"HTTP/1.1 200 OK\r\n".as_slice()
    });
    out.extend_from_slice(lines);
    if last {
        out.extend_from_slice(b"connection: close\r\n");
    }
    out.extend_from_slice(b"date: ");
    DATE_NOW.with(|date| out.extend_from_slice(date.borrow_mut().now()));
    out.extend_from_slice(b"\r\n\r\n");
    if not_modified || is_head {
        0
    } else {
        body_len.unwrap_or(0)
    }
}

/// The fields of a prebuilt 200 or 304 as HTTP/1.1 field lines, `name: value` and
/// CRLF each, in the map's order, so that a common answer's head is one copy; made on
/// first use, and kept with the service's prebuilt map. `None` when the map holds a
/// field this server adds or rewrites (`Connection`, `Date`, `Transfer-Encoding`,
/// `Trailer`, a `Content-Length` other than the 200's one): that head is then written
/// field by field.
fn field_lines<'p>(prebuilt: &'p Prebuilt<'_>) -> Option<&'p [u8]> {
    let not_modified = prebuilt.status == StatusCode::NOT_MODIFIED;
    let fields = &*prebuilt.fields;
    let map = fields.fields(not_modified);
    let lengths = usize::from(!not_modified);
    fields.wire[usize::from(not_modified)]
        .get_or_init(|| {
            let rewritten = [CONNECTION, DATE, TRANSFER_ENCODING, TRAILER];
            if rewritten.iter().any(|name| map.contains_key(name))
                || map.get_all(CONTENT_LENGTH).iter().count() != lengths
            {
                return None;
            }
            let mut lines = Vec::new();
            for (name, value) in map {
                lines.extend_from_slice(name.as_str().as_bytes());
                lines.extend_from_slice(b": ");
                lines.extend_from_slice(value.as_bytes());
                lines.extend_from_slice(b"\r\n");
            }
            Some(lines.into_boxed_slice())
        })
        .as_deref()
}

/// Ends the `Connection` line, adding `close` when asked.
fn end_connection(out: &mut Vec<u8>, add_close: bool) {
    if add_close {
        out.extend_from_slice(b", close");
    }
    out.extend_from_slice(b"\r\n");
}

/// The body's length as hyper reads it: none once it has ended, else its exact size
/// (every body of this crate has one).
pub(super) fn body_len(body: &Body) -> Option<u64> {
    (!body.is_end_stream()).then(|| body.size_hint().exact().unwrap_or(0))
}

/// Whether a `Connection` value lists `close` (its tokens, any case).
pub(super) fn has_close(value: &HeaderValue) -> bool {
    has_close_token(value.as_bytes())
}

/// [`has_close`] of a value's bytes.
pub(super) fn has_close_token(value: &[u8]) -> bool {
    value
        .split(|&b| b == b',')
        .any(|token| token.trim_ascii().eq_ignore_ascii_case(b"close"))
}

thread_local! {
    /// This thread's `Date` value, formatted once a second (as hyper caches its own).
    static DATE_NOW: RefCell<CachedDate> = const {
        RefCell::new(CachedDate { second: u64::MAX, text: Vec::new() })
    };
}

/// The IMF-fixdate of the current second.
struct CachedDate {
    second: u64,
    text: Vec<u8>,
}

impl CachedDate {
    fn now(&mut self) -> &[u8] {
        let now = SystemTime::now();
        let second = now.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
        if second != self.second {
            self.second = second;
            self.text = httpdate::fmt_http_date(now).into_bytes();
        }
        &self.text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use http::Response;

    fn head(response: Response<Body>, method: &Method, last: bool) -> (String, u64) {
        let mut out = Vec::new();
        let (status, headers) = (response.status(), response.headers());
        let len = encode(
            status,
            headers,
            body_len(response.body()),
            method,
            last,
            &mut out,
        );
        (String::from_utf8(out).expect("ASCII head"), len)
    }

    fn lines(head: &str) -> Vec<&str> {
        head.split("\r\n")
            .filter(|l| !l.starts_with("date: "))
            .collect()
    }

    #[test]
    fn a_200_gets_its_length_from_the_body_and_a_date() {
        let mut response = Response::new(Body::from_static(b"hello"));
        response
            .headers_mut()
            .insert("content-type", HeaderValue::from_static("text/plain"));
        let (text, len) = head(response, &Method::GET, false);
        assert_eq!(len, 5);
        assert_eq!(
            lines(&text),
            [
                "HTTP/1.1 200 OK",
                "content-type: text/plain",
                "content-length: 5",
                "",
                ""
            ]
        );
        let date = text
            .lines()
            .find(|l| l.starts_with("date: "))
            .expect("a date");
        assert!(httpdate::parse_http_date(&date[6..]).is_ok(), "{date}");
    }

    #[test]
    fn a_head_keeps_the_length_of_the_map_and_sends_no_body() {
        let mut response = Response::new(Body::empty());
        response
            .headers_mut()
            .insert(CONTENT_LENGTH, HeaderValue::from_static("1234"));
        let (text, len) = head(response, &Method::HEAD, false);
        assert_eq!(len, 0);
        assert_eq!(
            lines(&text),
            ["HTTP/1.1 200 OK", "content-length: 1234", "", ""]
        );
    }

    #[test]
    fn a_304_has_no_length_and_other_empty_answers_a_zero_one() {
        let mut response = Response::new(Body::empty());
        *response.status_mut() = StatusCode::NOT_MODIFIED;
        let (text, _) = head(response, &Method::GET, false);
        assert_eq!(lines(&text), ["HTTP/1.1 304 Not Modified", "", ""]);

        let mut response = Response::new(Body::empty());
        *response.status_mut() = StatusCode::MOVED_PERMANENTLY;
        let (text, _) = head(response, &Method::GET, false);
        assert_eq!(
            lines(&text),
            [
                "HTTP/1.1 301 Moved Permanently",
                "content-length: 0",
                "",
                ""
            ]
        );
        // A HEAD's empty body says nothing of the length.
        let mut response = Response::new(Body::empty());
        *response.status_mut() = StatusCode::MOVED_PERMANENTLY;
        let (text, _) = head(response, &Method::HEAD, false);
        assert_eq!(lines(&text), ["HTTP/1.1 301 Moved Permanently", "", ""]);
    }

    #[test]
    fn the_last_response_says_close_once() {
        let (text, _) = head(Response::new(Body::from_static(b"x")), &Method::GET, true);
        assert!(lines(&text).contains(&"connection: close"), "{text}");
        let mut response = Response::new(Body::from_static(b"x"));
        response
            .headers_mut()
            .insert(CONNECTION, HeaderValue::from_static("Close"));
        let (text, _) = head(response, &Method::GET, true);
        assert_eq!(text.matches("onnection").count(), 1, "{text}");
        assert!(has_close(&HeaderValue::from_static("keep-alive, CLOSE")));
        assert!(!has_close(&HeaderValue::from_static("closed")));
    }
}
