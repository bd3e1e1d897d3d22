//! The whole answer of [`ServeAssets::respond`] to an arbitrary request.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use http::header::{
    ALLOW, CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_RANGE, CONTENT_TYPE, ETAG, LAST_MODIFIED,
    LOCATION, VARY,
};
use http::{HeaderMap, HeaderName, HeaderValue, Method, Request, Response, StatusCode};
use http_body::Body as _;
use percent_encoding::percent_decode;

use super::negotiate::Weights;
use super::path::is_safe_key;
use super::{
    evaluate_preconditions, lines, select_ranges, trim_ows, ByteRange, Precondition, RangeSelection,
};
use crate::asset::{Asset, Assets, Encoding, Variant};
use crate::body::Body;
use crate::service::ServeAssets;

/// Fuzz target `respond`: `data` is a request head, `METHOD TARGET` on the first line
/// (a line without a space is a target for GET) and `name: value` on each further
/// line; parts that are not valid HTTP are dropped, as a server's parser would.
/// `service` must serve embedded assets only, with the default options.
///
/// - The status is the one the decisions give: 404 exactly when the path, decoded once
///   and refused when unsafe, names no asset and no directory with an index; 301 to a
///   relative `./dir/` for a directory without its slash; 405 for other methods;
///   then 412, 304, 416, 206 or 200 as the preconditions and ranges decide.
/// - The encoding is the stored one of highest q in `Accept-Encoding`, never one the
///   request gives q=0; `ETag`, `Content-Encoding`, `Content-Type`, `Vary` and
///   `Last-Modified` all describe that stored variant.
/// - A 200 carries the variant's bytes, a 206 exactly the requested slices of them
///   (each part of a `multipart/byteranges` body too), with a `Content-Length` equal
///   to the body's length; HEAD, 304, 412, 416, 405 and 301 carry no body.
///
/// # Panics
/// When an invariant does not hold, or when the service answers asynchronously (an
/// on-disk asset or a dev folder).
pub fn check_response(service: &ServeAssets, data: &[u8]) {
    let Some(request) = parse_request(data) else {
        return;
    };
    let response = ready(service.respond(&request));
    let (parts, body) = response.into_parts();
    let body = collect(body);
    let context = format!("{request:?}\n-> {} {:?}", parts.status, parts.headers);
    Expectation::new(service.assets(), &request).check(
        parts.status,
        &parts.headers,
        &body,
        &context,
    );
}

/// What the request should get, worked out from the table and the request alone.
struct Expectation<'r> {
    request: &'r Request<()>,
    /// The asset the path names, directly or as a directory's index file.
    asset: Option<&'static Asset>,
    /// `/dir` when `/dir/index.html` exists.
    redirect: bool,
    weights: Weights,
}

impl<'r> Expectation<'r> {
    fn new(assets: &'static Assets, request: &'r Request<()>) -> Self {
        let key = percent_decode(request.uri().path().as_bytes())
            .decode_utf8()
            .ok()
            .filter(|key| is_safe_key(key));
        let index = |dir: &str| assets.get(&format!("{dir}index.html"));
        let asset = key.as_deref().and_then(|key| {
            assets
                .get(key)
                .or_else(|| key.ends_with('/').then(|| index(key)).flatten())
        });
        let redirect = asset.is_none()
            && key
                .as_deref()
                .is_some_and(|key| !key.ends_with('/') && index(&format!("{key}/")).is_some());
        Expectation {
            request,
            asset,
            redirect,
            weights: Weights::of(request.headers()),
        }
    }

    fn check(&self, status: StatusCode, headers: &HeaderMap, body: &[u8], context: &str) {
        let method = self.request.method();
        let is_head = method == Method::HEAD;
        let is_get_or_head = method == Method::GET || is_head;
        if !has_one_valid_host(self.request) {
            assert_eq!(status, StatusCode::BAD_REQUEST, "{context}");
            assert!(body.is_empty(), "{context}");
            return;
        }
        if !is_get_or_head && (self.asset.is_some() || self.redirect) {
            assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED, "{context}");
            assert_eq!(headers[ALLOW], "GET, HEAD", "{context}");
            assert!(body.is_empty(), "{context}");
            return;
        }
        let Some(asset) = self.asset else {
            if self.redirect {
                assert_eq!(status, StatusCode::MOVED_PERMANENTLY, "{context}");
                // A URI-reference: visible ASCII only, relative, the query kept.
                let location = headers[LOCATION].as_bytes();
                assert!(location.iter().all(u8::is_ascii_graphic), "{context}");
                let location = std::str::from_utf8(location).unwrap();
                let (path, query) = match location.split_once('?') {
                    Some((path, query)) => (path, Some(query)),
                    None => (location, None),
                };
                assert!(path.starts_with("./") && path.ends_with('/'), "{context}");
                let decoded = |query: &str| percent_decode(query.as_bytes()).collect::<Vec<u8>>();
                assert_eq!(
                    query.map(decoded),
                    self.request.uri().query().map(decoded),
                    "{context}"
                );
                assert!(body.is_empty(), "{context}");
                return;
            }
            assert_eq!(status, StatusCode::NOT_FOUND, "{context}");
            let expected: &[u8] = if is_head { b"" } else { b"404 Not Found\n" };
            assert_eq!(body, expected, "{context}");
            assert_eq!(headers[CONTENT_LENGTH], "14", "{context}");
            return;
        };
        let encoding = if asset.is_negotiated() {
            self.weights
                .best(|encoding| asset.variant(encoding).is_some())
        } else {
            Encoding::Identity
        };
        let variant = asset.variant(encoding).unwrap();
        let (etag, modified) = (variant.etag(), asset.modified_secs());
        let request = self.request.headers();
        let expected = match evaluate_preconditions(method, request, etag, modified) {
            Precondition::Failed => StatusCode::PRECONDITION_FAILED,
            Precondition::NotModified => StatusCode::NOT_MODIFIED,
            Precondition::Proceed => {
                match select_ranges(method, request, etag, modified, variant.len()) {
                    RangeSelection::Full => StatusCode::OK,
                    RangeSelection::Unsatisfiable => StatusCode::RANGE_NOT_SATISFIABLE,
                    RangeSelection::Single(_) | RangeSelection::Multiple(_) => {
                        StatusCode::PARTIAL_CONTENT
                    }
                }
            }
        };
        assert_eq!(status, expected, "{context}");
        if status == StatusCode::PRECONDITION_FAILED {
            assert!(body.is_empty(), "{context}");
            return;
        }
        // Every other answer describes the variant: its validators, and whether it varies.
        assert_eq!(headers[ETAG], etag, "{context}");
        assert_eq!(headers[LAST_MODIFIED], asset.last_modified(), "{context}");
        assert_eq!(
            headers.get(VARY).is_some(),
            asset.is_negotiated(),
            "{context}"
        );
        if status == StatusCode::NOT_MODIFIED || status == StatusCode::RANGE_NOT_SATISFIABLE {
            assert!(body.is_empty(), "{context}");
            for name in [CONTENT_TYPE, CONTENT_ENCODING, CONTENT_LENGTH] {
                assert!(
                    !headers.contains_key(&name),
                    "{name} on {status}, {context}"
                );
            }
            if status == StatusCode::RANGE_NOT_SATISFIABLE {
                let unsatisfied = format!("bytes */{}", variant.len());
                assert_eq!(headers[CONTENT_RANGE], *unsatisfied, "{context}");
            }
            return;
        }
        match headers.get(CONTENT_ENCODING) {
            Some(coding) => {
                assert_eq!(coding, encoding.as_str(), "{context}");
                assert!(
                    self.weights.quality(encoding) > 0,
                    "q=0 coding sent, {context}"
                );
            }
            None => assert_eq!(encoding, Encoding::Identity, "{context}"),
        }
        if is_head {
            assert!(body.is_empty(), "HEAD with a body, {context}");
        } else {
            assert_eq!(headers[CONTENT_LENGTH], body.len().to_string(), "{context}");
        }
        if status == StatusCode::OK {
            assert_eq!(headers[CONTENT_TYPE], asset.content_type(), "{context}");
            assert_eq!(
                headers[CONTENT_LENGTH],
                variant.len().to_string(),
                "{context}"
            );
            if !is_head {
                assert!(body == variant.body(), "200 body differs, {context}");
            }
            return;
        }
        let ranges = match select_ranges(method, request, etag, modified, variant.len()) {
            RangeSelection::Single(range) => vec![range],
            RangeSelection::Multiple(ranges) => ranges,
            other => panic!("206 for {other:?}, {context}"),
        };
        if let [range] = ranges[..] {
            assert_eq!(headers[CONTENT_TYPE], asset.content_type(), "{context}");
            let content_range = format!("bytes {}-{}/{}", range.start, range.end, variant.len());
            assert_eq!(headers[CONTENT_RANGE], *content_range, "{context}");
            assert!(body == slice(variant, range), "206 body differs, {context}");
            return;
        }
        let content_type = headers[CONTENT_TYPE].to_str().unwrap();
        let boundary = content_type
            .strip_prefix("multipart/byteranges; boundary=")
            .unwrap_or_else(|| panic!("not multipart, {context}"));
        let parts = multipart_parts(body, boundary, context);
        assert_eq!(parts.len(), ranges.len(), "{context}");
        for (part, range) in parts.iter().zip(&ranges) {
            assert_eq!(part.content_type, asset.content_type(), "{context}");
            assert_eq!(
                (part.range, part.complete),
                (*range, variant.len()),
                "{context}"
            );
            assert!(
                part.bytes == slice(variant, *range),
                "part differs, {context}"
            );
        }
    }
}

/// RFC 9112 §3.2 for the HTTP/1.1 requests this target builds: exactly one `Host`
/// line, whose value is `host [ ":" port ]` as RFC 3986 §3.2.2 spells `reg-name` and
/// `IP-literal` (no userinfo, no path).
fn has_one_valid_host(request: &Request<()>) -> bool {
    let hosts: Vec<&HeaderValue> = request
        .headers()
        .get_all(http::header::HOST)
        .iter()
        .collect();
    if request.uri().authority().is_some() && hosts.is_empty() {
        return true;
    }
    let [host] = hosts[..] else {
        return false;
    };
    let unreserved = |b: u8| b.is_ascii_alphanumeric() || b"-._~".contains(&b);
    let sub_delim = |b: u8| b"!$&'()*+,;=".contains(&b);
    host.as_bytes()
        .iter()
        .all(|&b| unreserved(b) || sub_delim(b) || b"%:[]".contains(&b))
}

fn slice(variant: &Variant, range: ByteRange) -> &'static [u8] {
    let body = variant.body();
    let (start, end) = (range.start as usize, range.end as usize);
    assert!(
        start <= end && end < body.len(),
        "{range:?} outside the body"
    );
    &body[start..=end]
}

/// One part of a `multipart/byteranges` body (RFC 9110 §14.6).
struct Part<'a> {
    content_type: &'a str,
    range: ByteRange,
    complete: u64,
    bytes: &'a [u8],
}

/// Splits a `multipart/byteranges` body into its parts, reading each part's length
/// from its `Content-Range`.
fn multipart_parts<'a>(body: &'a [u8], boundary: &str, context: &str) -> Vec<Part<'a>> {
    let delimiter = format!("\r\n--{boundary}");
    let mut parts = Vec::new();
    let mut rest = body;
    loop {
        rest = rest
            .strip_prefix(delimiter.as_bytes())
            .unwrap_or_else(|| panic!("no delimiter, {context}"));
        if rest == b"--\r\n" {
            return parts;
        }
        rest = rest.strip_prefix(b"\r\n").unwrap();
        let end = rest
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .unwrap_or_else(|| panic!("unterminated part head, {context}"));
        let head = std::str::from_utf8(&rest[..end]).unwrap();
        rest = &rest[end + 4..];
        let (mut content_type, mut content_range) = (None, None);
        for field in head.split("\r\n") {
            let (name, value) = field.split_once(": ").unwrap();
            let name = HeaderName::from_bytes(name.as_bytes()).unwrap();
            if name == CONTENT_TYPE {
                content_type = Some(value);
            } else if name == CONTENT_RANGE {
                content_range = Some(value);
            } else {
                panic!("unexpected part field {name}, {context}");
            }
        }
        let (range, complete) = content_range
            .and_then(|value| {
                let (span, complete) = value.strip_prefix("bytes ")?.split_once('/')?;
                let (start, end) = span.split_once('-')?;
                let range = ByteRange {
                    start: start.parse().ok()?,
                    end: end.parse().ok()?,
                };
                Some((range, complete.parse().ok()?))
            })
            .unwrap_or_else(|| panic!("bad part Content-Range, {context}"));
        let len = (range.end - range.start + 1) as usize;
        assert!(rest.len() >= len, "short part, {context}");
        parts.push(Part {
            content_type: content_type.unwrap_or_default(),
            range,
            complete,
            bytes: &rest[..len],
        });
        rest = &rest[len..];
    }
}

/// The request head in `data`, or `None` when its first line is no valid request line.
/// It is an HTTP/1.1 request; without a `Host` line it gets `Host: localhost`.
fn parse_request(data: &[u8]) -> Option<Request<()>> {
    let mut lines = lines(data);
    let first = lines.next()?;
    let (method, target) = match first.iter().position(|&b| b == b' ') {
        Some(space) => (
            Method::from_bytes(&first[..space]).ok()?,
            &first[space + 1..],
        ),
        None => (Method::GET, first),
    };
    let mut request = Request::builder()
        .method(method)
        .uri(http::Uri::try_from(target).ok()?)
        .body(())
        .ok()?;
    for line in lines {
        let Some(colon) = line.iter().position(|&b| b == b':') else {
            continue;
        };
        let name = HeaderName::from_bytes(trim_ows(&line[..colon]));
        let value = HeaderValue::from_bytes(trim_ows(&line[colon + 1..]));
        if let (Ok(name), Ok(value)) = (name, value) {
            request.headers_mut().append(name, value);
        }
    }
    // A head without `Host` is given one, so that inputs reach the asset decisions;
    // repeated and invalid `Host` lines stay as written and must get 400.
    if !request.headers().contains_key(http::header::HOST) {
        let localhost = HeaderValue::from_static("localhost");
        request.headers_mut().insert(http::header::HOST, localhost);
    }
    Some(request)
}

/// The response of a future that must be ready at once (embedded assets).
fn ready(future: impl Future<Output = Response<Body>>) -> Response<Body> {
    let mut cx = Context::from_waker(Waker::noop());
    match pin!(future).poll(&mut cx) {
        Poll::Ready(response) => response,
        Poll::Pending => panic!("an embedded asset's response was not ready at once"),
    }
}

/// Every byte of a body whose frames are all ready (embedded bytes).
fn collect(body: Body) -> Vec<u8> {
    let mut body = pin!(body);
    let mut cx = Context::from_waker(Waker::noop());
    let mut bytes = Vec::new();
    loop {
        match body.as_mut().poll_frame(&mut cx) {
            Poll::Ready(Some(Ok(frame))) => {
                if let Ok(data) = frame.into_data() {
                    bytes.extend_from_slice(&data);
                }
            }
            Poll::Ready(None) => return bytes,
            Poll::Ready(Some(Err(err))) => panic!("body failed: {err}"),
            Poll::Pending => panic!("an embedded body was not ready at once"),
        }
    }
}
