//! The fast path's request parser: an HTTP/1.1 request head at the start of the read
//! buffer, parsed with `httparse` into the fields the service reads, and the service's
//! decision on it (`ServeAssets::answer` under `Claim::Hits`): a hit answered by the
//! fast path, or a request handed over to hyper with its bytes.

use std::mem::MaybeUninit;

use bytes::{Bytes, BytesMut};
use http::header::{
    ACCEPT, ACCEPT_ENCODING, CONNECTION, CONTENT_LENGTH, EXPECT, HOST, IF_MATCH, IF_MODIFIED_SINCE,
    IF_NONE_MATCH, IF_RANGE, IF_UNMODIFIED_SINCE, RANGE, TRANSFER_ENCODING, UPGRADE,
};
use http::uri::PathAndQuery;
use http::{HeaderMap, HeaderName, HeaderValue, Method, Version};

use super::access::Entry;
use super::encode;
use crate::service::{Answer, Claim};
use crate::{RequestHead, ServeAssets};

/// The header lines a request of the fast path may have; a request with more goes to
/// hyper, whose limit (100) then applies.
const MAX_HEADERS: usize = 64;

/// The bytes of a request head read here at most: a longer head goes to hyper, whose
/// limits then apply (and whose answer, 431 or 414, is the one the client gets).
pub(super) const MAX_HEAD: usize = 16 * 1024;

/// Every request field the service reads, for this parser, which builds only these into
/// a request's map: `Host` (its check), `Accept-Encoding` and `Available-Dictionary`
/// (negotiation), `Accept` (the single-page app's choice), the preconditions and the
/// range. A field read anywhere in the service must be listed here, or the fast path
/// answers without it.
static READ_FIELDS: [HeaderName; 10] = [
    HOST,
    ACCEPT_ENCODING,
    crate::negotiate::AVAILABLE_DICTIONARY,
    ACCEPT,
    IF_MATCH,
    IF_NONE_MATCH,
    IF_MODIFIED_SINCE,
    IF_UNMODIFIED_SINCE,
    RANGE,
    IF_RANGE,
];

/// What a connection reuses from one request to the next: the request's fields the
/// service reads, and where each lies in its head.
#[derive(Default)]
pub(super) struct Scratch {
    headers: HeaderMap,
    spans: Vec<FieldSpan>,
}

/// A field the service reads, as its index in `READ_FIELDS`, and its value as a start
/// and end offset in the request head.
type FieldSpan = (usize, (usize, usize));

/// A request the assets answer.
pub(super) struct Hit<'a> {
    pub(super) method: Method,
    /// Its `Connection` field says `close`.
    pub(super) close: bool,
    pub(super) answer: Answer<'a>,
    /// Its access log entry, while a subscriber listens.
    pub(super) access: Option<Box<Entry>>,
}

/// What the read buffer starts with.
pub(super) enum Next<'a> {
    /// Not a whole head yet.
    Partial,
    /// A request for hyper and the application (or one hyper answers with an error),
    /// with its head when it was split off the read buffer (else empty).
    NotOurs(Bytes),
    Hit(Hit<'a>),
}

/// Parses the request at the start of `read` and asks `assets` whether it is a hit.
/// A whole head is split off `read` (and given back in `Next::NotOurs`), so that the
/// request's target and field values are slices of it, not copies.
/// `scratch` is the connection's, emptied and filled again for each request (its room
/// kept).
pub(super) fn next<'a>(
    read: &mut BytesMut,
    scratch: &mut Scratch,
    assets: &'a ServeAssets,
) -> Next<'a> {
    let Scratch { headers, spans } = scratch;
    let not_ours = || Next::NotOurs(Bytes::new());
    // Left uninitialised until parsed, as hyper does: no 2 KiB to clear per request.
    let mut fields = [const { MaybeUninit::<httparse::Header<'_>>::uninit() }; MAX_HEADERS];
    let mut request = httparse::Request::new(&mut []);
    let len = match request.parse_with_uninit_headers(read, &mut fields) {
        Ok(httparse::Status::Complete(len)) => len,
        Ok(httparse::Status::Partial) => return Next::Partial,
        Err(_) => return not_ours(),
    };
    // HTTP/1.0 keeps hyper's handling of its keep-alive and version rules.
    if request.version != Some(1) {
        return not_ours();
    }
    let method = match request.method {
        Some("GET") => Method::GET,
        Some("HEAD") => Method::HEAD,
        _ => return not_ours(),
    };
    // Origin form only: an absolute or asterisk target is hyper's to read.
    let Some(target) = request.path.filter(|target| target.starts_with('/')) else {
        return not_ours();
    };
    // Where the target and each field lie in the head, to slice them out of it once it
    // is split off the buffer (offsets from addresses: the split moves no byte).
    let start = read.as_ptr() as usize;
    let span = |part: &[u8]| {
        let from = part.as_ptr() as usize - start;
        (from, from + part.len())
    };
    let (from, to) = span(target.as_bytes());
    // Only the fields the service reads go into the map (each name known, so no name
    // is parsed or allocated); the others are looked at for what makes a request
    // hyper's, and `Connection` for `close`.
    spans.clear();
    let mut close = false;
    for field in request.headers.iter() {
        let name = field.name.as_bytes();
        let is =
            |known: &str| known.len() == name.len() && known.as_bytes().eq_ignore_ascii_case(name);
        if let Some(known) = READ_FIELDS.iter().position(|known| is(known.as_str())) {
            spans.push((known, span(field.value)));
        } else if is(CONNECTION.as_str()) {
            close |= encode::has_close_token(field.value);
        } else if [CONTENT_LENGTH, TRANSFER_ENCODING, EXPECT, UPGRADE]
            .iter()
            .any(|hyper_s| is(hyper_s.as_str()))
        {
            // A body (or the promise of one) and a change of protocol are hyper's.
            return not_ours();
        }
    }
    let head = read.split_to(len).freeze();
    // The same parser hyper gives the target to, so what it rejects goes to it.
    let Ok(target) = PathAndQuery::from_maybe_shared(head.slice(from..to)) else {
        return Next::NotOurs(head);
    };
    headers.clear();
    for &(known, (from, to)) in spans.iter() {
        let Ok(value) = HeaderValue::from_maybe_shared(head.slice(from..to)) else {
            return Next::NotOurs(head);
        };
        headers.append(READ_FIELDS[known].clone(), value);
    }
    let request_head = RequestHead::new(
        &method,
        target.path(),
        target.query(),
        Version::HTTP_11,
        headers,
    );
    let answer = assets.answer_borrowed(request_head, Claim::Hits);
    // The values are slices of `head`: let them go now, so that the read buffer is
    // the connection's alone again and its next `reserve` reclaims it in place rather
    // than allocating another.
    headers.clear();
    match answer {
        Some(answer) => Next::Hit(Hit {
            access: Entry::start(&method, Some(&target)),
            method,
            close,
            answer,
        }),
        None => Next::NotOurs(head),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Assets;

    static SITE: Assets = crate::embed_assets!("../examples/public");

    fn decide(request: &str) -> &'static str {
        let mut read = BytesMut::from(request.as_bytes());
        match next(&mut read, &mut Scratch::default(), &SITE.service()) {
            Next::Partial => {
                assert_eq!(
                    read.len(),
                    request.len(),
                    "a partial head stays in the buffer"
                );
                "partial"
            }
            Next::NotOurs(head) => {
                // What hyper is handed: every byte, in order.
                assert_eq!([&head[..], &read[..]].concat(), request.as_bytes());
                "hyper"
            }
            Next::Hit(_) => {
                assert!(read.is_empty(), "the head is split off the buffer");
                "hit"
            }
        }
    }

    #[test]
    fn plain_http_1_1_hits_are_answered_here_and_the_rest_handed_over() {
        let hit = "GET /css/app.css HTTP/1.1\r\nHost: localhost\r\n\r\n";
        assert_eq!(decide(hit), "hit");
        assert_eq!(
            decide("HEAD / HTTP/1.1\r\nHost: x\r\nRange: bytes=0-1\r\n\r\n"),
            "hit"
        );
        assert_eq!(
            decide("GET /about HTTP/1.1\r\nHost: x\r\n\r\n"),
            "hit",
            "a redirect"
        );
        for not_ours in [
            "GET /no/such/file HTTP/1.1\r\nHost: x\r\n\r\n",
            "POST /css/app.css HTTP/1.1\r\nHost: x\r\n\r\n",
            "GET /css/app.css HTTP/1.0\r\nHost: x\r\n\r\n",
            "GET /css/app.css HTTP/1.1\r\n\r\n",
            "GET /css/app.css HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n",
            "GET /css/app.css HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n",
            "GET /css/app.css HTTP/1.1\r\nHost: x\r\nUpgrade: h2c\r\n\r\n",
            "GET /css/app.css HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n\r\n",
            "GET http://x/css/app.css HTTP/1.1\r\nHost: x\r\n\r\n",
            "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
            "GET /css/app.css HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n",
            "GET /a\x7fb HTTP/1.1\r\nHost: x\r\n\r\n",
        ] {
            assert_eq!(decide(not_ours), "hyper", "{not_ours:?}");
        }
        assert_eq!(decide(&hit[..hit.len() - 2]), "partial");
        assert_eq!(decide("GE"), "partial");
    }

    #[test]
    fn a_pipelined_hit_consumes_its_own_head_only() {
        let first = "GET /css/app.css HTTP/1.1\r\nHost: localhost\r\n\r\n";
        let both = format!("{first}GET /js/app.js HTTP/1.1\r\nHost: localhost\r\n\r\n");
        let mut read = BytesMut::from(both.as_bytes());
        match next(&mut read, &mut Scratch::default(), &SITE.service()) {
            Next::Hit(_) => {}
            _ => panic!("a hit"),
        }
        assert_eq!(&read[..], &both.as_bytes()[first.len()..]);
    }

    #[test]
    fn a_connection_close_marks_the_last_response() {
        let request = "GET / HTTP/1.1\r\nHost: x\r\nConnection: keep-alive, close\r\n\r\n";
        match next(
            &mut BytesMut::from(request.as_bytes()),
            &mut Scratch::default(),
            &SITE.service(),
        ) {
            Next::Hit(hit) => assert!(hit.close),
            _ => panic!("a hit"),
        }
    }
}
