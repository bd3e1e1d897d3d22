//! The one place that builds `http::Response`s: composes the decisions of
//! `negotiate`, `precondition` and `range` for a representation, whatever its bytes
//! come from (the binary or the disk).

use std::collections::VecDeque;

use bytes::Bytes;
use http::header::{
    ACCEPT_ENCODING, ACCEPT_RANGES, ALLOW, CACHE_CONTROL, CONTENT_ENCODING, CONTENT_LENGTH,
    CONTENT_RANGE, CONTENT_TYPE, ETAG, IF_MATCH, IF_MODIFIED_SINCE, IF_NONE_MATCH,
    IF_UNMODIFIED_SINCE, LAST_MODIFIED, LOCATION, RANGE, VARY,
};
use http::{HeaderMap, HeaderName, HeaderValue, Method, Response, StatusCode};

use crate::asset::{Asset, Delta, Encoding, Variant};
use crate::body::Body;
use crate::negotiate::{available_dictionary, choose_encoding};
use crate::plan::{Segment, Slices};
use crate::precondition::{evaluate, Precondition};
use crate::range::{select_ranges, ByteRange, RangeSelection};
use crate::representation::{HeaderValues, Negotiated, Representation};

const ALLOWED: HeaderValue = HeaderValue::from_static("GET, HEAD");
const BYTES: HeaderValue = HeaderValue::from_static("bytes");
const ACCEPT_ENCODING_VARY: HeaderValue = HeaderValue::from_static("accept-encoding");
const DICTIONARY_VARY: HeaderValue =
    HeaderValue::from_static("accept-encoding, available-dictionary");
/// RFC 9842 §2.1: the response field that makes a response a dictionary.
const USE_AS_DICTIONARY: HeaderName = HeaderName::from_static("use-as-dictionary");
const TEXT_PLAIN: HeaderValue = HeaderValue::from_static("text/plain; charset=utf-8");

/// Every field the service sets itself on the responses about an asset: those stating
/// the representation (`representation_headers` sets these and no others, but the
/// `header` rules' own), those of its redirects and refusals (`Location`, `Allow`),
/// and `Cache-Control` from its options. `ServeAssets::header` refuses each of them:
/// a rule's value would be overwritten, or would contradict the representation.
pub(crate) const SERVICE_FIELDS: [HeaderName; 12] = [
    CONTENT_TYPE,
    CONTENT_LENGTH,
    CONTENT_ENCODING,
    CONTENT_RANGE,
    ACCEPT_RANGES,
    ETAG,
    LAST_MODIFIED,
    VARY,
    USE_AS_DICTIONARY,
    LOCATION,
    ALLOW,
    CACHE_CONTROL,
];
pub(crate) const NO_CACHE: HeaderValue = HeaderValue::from_static("no-cache");

/// The header fields the service's options add to an asset's responses, on top of
/// those stating the representation: its `Cache-Control`, and the fields of the
/// `header` rules matching its path (`X-Content-Type-Options` among them by default).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Added<'a> {
    pub(crate) cache_control: &'a HeaderValue,
    pub(crate) fields: &'a [(HeaderName, HeaderValue)],
}

/// The stored representation a request gets: negotiated from `Accept-Encoding`, and
/// from `Available-Dictionary` where the asset has bodies compressed against earlier
/// versions of it (RFC 9842 §2.2: only a dictionary whose hash matches is used).
pub(crate) fn select_variant<'a>(asset: &'a Asset, headers: &HeaderMap) -> &'a Variant {
    if !asset.is_negotiated() {
        return asset.identity();
    }
    let (dcb, dcz) = match asset.deltas() {
        [] => (None, None),
        deltas => matching_deltas(deltas, headers),
    };
    let encoding = choose_encoding(
        headers.get_all(ACCEPT_ENCODING),
        |encoding| match encoding {
            Encoding::DictionaryBrotli => dcb.is_some(),
            Encoding::DictionaryZstd => dcz.is_some(),
            other => asset.variant(other).is_some(),
        },
    );
    match encoding {
        Encoding::DictionaryBrotli => dcb,
        Encoding::DictionaryZstd => dcz,
        other => asset.variant(other),
    }
    .unwrap_or(asset.identity())
}

/// The `dcb` and `dcz` bodies compressed against the dictionary the request names
/// (`negotiate::available_dictionary`).
fn matching_deltas<'a>(
    deltas: &'a [Delta],
    headers: &HeaderMap,
) -> (Option<&'a Variant>, Option<&'a Variant>) {
    let Some(hash) = available_dictionary(headers) else {
        return (None, None);
    };
    let with = |encoding: Encoding| {
        deltas
            .iter()
            .find(|delta| {
                delta.dictionary().as_bytes() == hash && delta.variant().encoding() == encoding
            })
            .map(Delta::variant)
    };
    (
        with(Encoding::DictionaryBrotli),
        with(Encoding::DictionaryZstd),
    )
}

/// The response to a GET or HEAD of `rep`: preconditions (RFC 9110 §13.2.2), then
/// ranges (§14), then the representation. `body` turns the chosen slices into a body;
/// it is not called for HEAD, 304, 412 or 416.
///
/// Ranges apply to the selected representation, encoded or not: a 206 of the br
/// variant carries that variant's ETag, `Content-Encoding: br` and byte offsets into
/// the br bytes, so every header of the response describes the same bytes.
pub(crate) fn respond(
    rep: &Representation<'_>,
    method: &Method,
    headers: &HeaderMap,
    added: Added<'_>,
    prebuilt: Option<&PrebuiltHeaders>,
    body: impl FnOnce(Slices) -> Body,
) -> Response<Body> {
    let fields = Fields::scan(headers);
    let precondition = if fields.conditional {
        evaluate(method, headers, &rep.validators)
    } else {
        Precondition::Proceed
    };
    match precondition {
        Precondition::Proceed => {}
        Precondition::NotModified => {
            // RFC 9110 §15.4.5: the headers a 200 would carry for caches to update,
            // and no representation metadata (no Content-Type/Length/Encoding).
            let mut response = status_only(StatusCode::NOT_MODIFIED);
            *response.headers_mut() = match prebuilt {
                Some(prebuilt) => prebuilt.not_modified.clone(),
                None => representation_headers(rep, added, Part::NotModified),
            };
            return response;
        }
        Precondition::Failed => return status_only(StatusCode::PRECONDITION_FAILED),
    }
    let selection = if fields.range {
        select_ranges(method, headers, &rep.validators, rep.len)
    } else {
        RangeSelection::Full
    };
    let is_head = method == Method::HEAD;
    if let (RangeSelection::Full, Some(prebuilt)) = (&selection, prebuilt) {
        // The common answer: every header was built once, with the service.
        let mut response = Response::new(Body::empty());
        *response.headers_mut() = prebuilt.ok.clone();
        if !is_head {
            *response.body_mut() = body(Slices::Whole);
        }
        return response;
    }
    let (status, slices, part) = match selection {
        RangeSelection::Full => (StatusCode::OK, Slices::Whole, Part::Whole),
        RangeSelection::Single(range) => (
            StatusCode::PARTIAL_CONTENT,
            Slices::One(range),
            Part::Range(range),
        ),
        RangeSelection::Multiple(ranges) => {
            let (segments, len) = multipart(rep, &ranges);
            let part = Part::Multipart {
                content_type: multipart_type(rep),
                len,
            };
            (
                StatusCode::PARTIAL_CONTENT,
                Slices::Multipart(segments),
                part,
            )
        }
        RangeSelection::Unsatisfiable => {
            let mut response = status_only(StatusCode::RANGE_NOT_SATISFIABLE);
            *response.headers_mut() = representation_headers(rep, added, Part::Unsatisfiable);
            return response;
        }
    };
    let mut response = Response::new(Body::empty());
    *response.status_mut() = status;
    *response.headers_mut() = representation_headers(rep, added, part);
    if !is_head {
        *response.body_mut() = body(slices);
    }
    response
}

/// Which of the fields that can change a response's status the request has.
///
/// Most requests have none, and one pass over their few fields costs less than a
/// hashed lookup of each absent name (`evaluate` and `select_ranges` make five).
struct Fields {
    /// `If-Match`, `If-None-Match`, `If-Modified-Since` or `If-Unmodified-Since`.
    conditional: bool,
    /// `Range` (`If-Range` means nothing without it).
    range: bool,
}

impl Fields {
    fn scan(headers: &HeaderMap) -> Self {
        let mut fields = Fields {
            conditional: false,
            range: false,
        };
        for name in headers.keys() {
            if name == IF_NONE_MATCH
                || name == IF_MODIFIED_SINCE
                || name == IF_MATCH
                || name == IF_UNMODIFIED_SINCE
            {
                fields.conditional = true;
            } else if name == RANGE {
                fields.range = true;
            }
        }
        fields
    }
}

/// The headers of a 200 and of a 304 for one stored variant, built once per service so
/// the common answers clone a finished map instead of inserting field by field.
#[derive(Debug, Clone)]
pub(crate) struct PrebuiltHeaders {
    /// The variant's ETag, by address: which stored body these are for.
    etag: &'static str,
    values: HeaderValues,
    ok: HeaderMap,
    not_modified: HeaderMap,
}

impl PrebuiltHeaders {
    /// The headers of `variant`, a stored body of `asset`.
    pub(crate) fn new(asset: &Asset, variant: &'static Variant, added: Added<'_>) -> Self {
        let rep = &Representation::embedded(asset, variant);
        let not_modified = representation_headers(rep, added, Part::NotModified);
        let ok = representation_headers(rep, added, Part::Whole);
        PrebuiltHeaders {
            etag: variant.etag(),
            values: rep.values.clone(),
            ok,
            not_modified,
        }
    }

    /// Whether these are the headers of `variant`.
    pub(crate) fn is_for(&self, variant: &Variant) -> bool {
        std::ptr::eq(self.etag, variant.etag())
    }

    /// The representation of `variant` (of `asset`, which these headers were built
    /// for), with the values built once instead of per request.
    pub(crate) fn representation<'a>(
        &self,
        asset: &'a Asset,
        variant: &'a Variant,
    ) -> Representation<'a> {
        Representation::with_values(asset, variant, self.values.clone())
    }
}

/// Which response a representation's header fields are for.
#[derive(Debug)]
pub(crate) enum Part {
    /// 200: the whole representation.
    Whole,
    /// 206 with one range.
    Range(ByteRange),
    /// 206 with `multipart/byteranges` of this type and length.
    Multipart { content_type: HeaderValue, len: u64 },
    /// 304 (RFC 9110 §15.4.5): what a 200 would carry for caches to update, and no
    /// representation metadata (no Content-Type/Length/Encoding).
    NotModified,
    /// 416 (RFC 9110 §15.5.17): say how long the representation is.
    Unsatisfiable,
    /// The 404 page: its content, but no validators and no ranges, so a cache never
    /// revalidates it into a 304 that hands out another URL's bytes.
    ErrorPage,
}

/// The header fields of a response about `rep`: the one place they are assembled,
/// for 200, 206, 304, 416, the 404 page and the maps built once per service.
///
/// The added fields come on every one of them, the 304 included: they are no
/// representation metadata (RFC 9110 §15.4.5 keeps those off a 304), and a cache
/// updates its stored response with the fields a 304 carries (RFC 9111 §4.3.4), so a
/// changed policy reaches copies whose bytes did not change.
pub(crate) fn representation_headers(
    rep: &Representation<'_>,
    added: Added<'_>,
    part: Part,
) -> HeaderMap {
    // Room for every field below (up to 9) at once: no regrowth mid-response.
    let mut out = HeaderMap::with_capacity(12 + added.fields.len());
    if !matches!(part, Part::ErrorPage) {
        if let Some(etag) = &rep.values.etag {
            out.insert(ETAG, etag.clone());
        }
        out.insert(LAST_MODIFIED, rep.values.last_modified.clone());
    }
    out.insert(CACHE_CONTROL, added.cache_control.clone());
    // Rules never name the fields set here (`header` refuses them), so the order
    // does not matter and nothing is overwritten.
    for (name, value) in added.fields {
        out.append(name.clone(), value.clone());
    }
    // Send Vary even for identity: a cache must not reuse it for a client that accepts br.
    // And only then: without variants, Vary would split caches for nothing.
    match rep.negotiated {
        Negotiated::No => {}
        Negotiated::Encoding => {
            out.insert(VARY, ACCEPT_ENCODING_VARY);
        }
        Negotiated::EncodingAndDictionary => {
            out.insert(VARY, DICTIONARY_VARY);
        }
    }
    if let (Some(pattern), false) = (rep.dictionary_match, matches!(part, Part::ErrorPage)) {
        out.insert(USE_AS_DICTIONARY, HeaderValue::from_static(pattern));
    }
    let (content_length, content_type) = match part {
        Part::NotModified => return out,
        Part::Unsatisfiable => {
            out.insert(CONTENT_RANGE, content_range_unsatisfied(rep.len));
            out.insert(ACCEPT_RANGES, BYTES);
            return out;
        }
        Part::ErrorPage => (
            rep.values.content_length.clone(),
            rep.values.content_type.clone(),
        ),
        Part::Whole => {
            out.insert(ACCEPT_RANGES, BYTES);
            (
                rep.values.content_length.clone(),
                rep.values.content_type.clone(),
            )
        }
        Part::Range(range) => {
            out.insert(ACCEPT_RANGES, BYTES);
            out.insert(CONTENT_RANGE, content_range(&range, rep.len));
            (
                HeaderValue::from(range.len()),
                rep.values.content_type.clone(),
            )
        }
        Part::Multipart { content_type, len } => {
            out.insert(ACCEPT_RANGES, BYTES);
            (HeaderValue::from(len), content_type)
        }
    };
    out.insert(CONTENT_LENGTH, content_length);
    if rep.encoding != Encoding::Identity {
        out.insert(
            CONTENT_ENCODING,
            HeaderValue::from_static(rep.encoding.as_str()),
        );
    }
    out.insert(CONTENT_TYPE, content_type);
    out
}

fn content_range(range: &ByteRange, len: u64) -> HeaderValue {
    // Digits, '-', '/' and a space: always a valid header value.
    HeaderValue::try_from(format!("bytes {}-{}/{len}", range.start, range.end)).unwrap_or(BYTES)
}

fn content_range_unsatisfied(len: u64) -> HeaderValue {
    HeaderValue::try_from(format!("bytes */{len}")).unwrap_or(BYTES)
}

/// The boundary: derived from the ETag (a hash of the bytes), so it cannot occur in
/// them except by a sha256 collision, and the same request gets the same bytes. A file
/// whose content tag is not known yet gets one from its length and time, 40 characters
/// long, as unlikely in its bytes.
fn boundary(rep: &Representation<'_>) -> String {
    match rep.validators.etag {
        Some(etag) => {
            let tag: String = etag.chars().filter(char::is_ascii_alphanumeric).collect();
            format!("embed-{tag}")
        }
        None => format!("embed-{:016x}{:016x}x", rep.len, rep.validators.modified),
    }
}

fn multipart_type(rep: &Representation<'_>) -> HeaderValue {
    HeaderValue::try_from(format!("multipart/byteranges; boundary={}", boundary(rep)))
        .unwrap_or(HeaderValue::from_static("multipart/byteranges"))
}

/// RFC 9110 §14.6: each part has its own `Content-Type` and `Content-Range`.
fn multipart(rep: &Representation<'_>, ranges: &[ByteRange]) -> (VecDeque<Segment>, u64) {
    let boundary = boundary(rep);
    let content_type = rep.content_type;
    let mut segments = VecDeque::with_capacity(ranges.len() * 2 + 1);
    let mut len = 0;
    for range in ranges {
        let head = format!(
            "\r\n--{boundary}\r\nContent-Type: {content_type}\r\nContent-Range: bytes {}-{}/{}\r\n\r\n",
            range.start, range.end, rep.len
        );
        len += head.len() as u64 + range.len();
        segments.push_back(Segment::Bytes(Bytes::from(head)));
        segments.push_back(Segment::Range(*range));
    }
    let tail = format!("\r\n--{boundary}--\r\n");
    len += tail.len() as u64;
    segments.push_back(Segment::Bytes(Bytes::from(tail)));
    (segments, len)
}

/// 404, with the configured page's bytes when there is one.
pub(crate) fn not_found(
    page: Option<&'static Asset>,
    page_fields: &[(HeaderName, HeaderValue)],
    method: &Method,
    headers: &HeaderMap,
) -> Response<Body> {
    let is_head = method == Method::HEAD;
    let Some(page) = page.filter(|page| page.is_embedded()) else {
        // NOTE: MESSAGE_LENGTH must stay the length of MESSAGE (a test compares them).
        const MESSAGE: &[u8] = b"404 Not Found\n";
        const MESSAGE_LENGTH: HeaderValue = HeaderValue::from_static("14");
        let mut response = status_only(StatusCode::NOT_FOUND);
        if !is_head {
            *response.body_mut() = Body::from_static(MESSAGE);
        }
        let out = response.headers_mut();
        out.insert(CONTENT_TYPE, TEXT_PLAIN);
        out.insert(CONTENT_LENGTH, MESSAGE_LENGTH);
        return response;
    };
    let variant = select_variant(page, headers);
    let rep = Representation::embedded(page, variant);
    let mut response = status_only(StatusCode::NOT_FOUND);
    let added = Added {
        cache_control: &NO_CACHE,
        fields: page_fields,
    };
    *response.headers_mut() = representation_headers(&rep, added, Part::ErrorPage);
    if !is_head {
        *response.body_mut() = Body::from_static(variant.body());
    }
    response
}

/// The plain 404 with `Cache-Control: no-store`: for a version of a content-hashed file
/// this build does not have, which a later deploy may bring (RFC 9111 §5.2.2.5: no cache
/// keeps it).
pub(crate) fn not_found_no_store(method: &Method) -> Response<Body> {
    let mut response = not_found(None, &[], method, &HeaderMap::new());
    response
        .headers_mut()
        .insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// Adds `Accept` to `Vary`: for responses whose choice between a single-page app and a
/// 404 depended on the request's `Accept` (RFC 9110 §12.5.5).
pub(crate) fn add_vary_accept(headers: &mut HeaderMap) {
    let value = match headers.get(VARY) {
        None => HeaderValue::from_static("accept"),
        Some(vary) if vary == DICTIONARY_VARY => {
            HeaderValue::from_static("accept, accept-encoding, available-dictionary")
        }
        Some(_) => HeaderValue::from_static("accept, accept-encoding"),
    };
    headers.insert(VARY, value);
}

/// 405 with `Allow` (RFC 9110 §15.5.6).
pub(crate) fn method_not_allowed() -> Response<Body> {
    let mut response = status_only(StatusCode::METHOD_NOT_ALLOWED);
    response.headers_mut().insert(ALLOW, ALLOWED);
    response
}

/// 301 to `location`, a reference the service built from a key of the table.
pub(crate) fn redirect(location: HeaderValue) -> Response<Body> {
    let mut response = status_only(StatusCode::MOVED_PERMANENTLY);
    response.headers_mut().insert(LOCATION, location);
    response
}

/// A status with an empty body: 403, 412, 500 and the like.
pub(crate) fn status_only(status: StatusCode) -> Response<Body> {
    let mut response = Response::new(Body::empty());
    *response.status_mut() = status;
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_a_response_states_is_on_the_service_list() {
        let rep = Representation {
            content_type: "text/css",
            encoding: Encoding::Brotli,
            validators: crate::precondition::Validators {
                etag: Some("\"a\""),
                modified: 0,
            },
            len: 10,
            values: HeaderValues {
                etag: Some(HeaderValue::from_static("\"a\"")),
                last_modified: HeaderValue::from_static("Sat, 26 Oct 1985 08:15:00 GMT"),
                content_type: HeaderValue::from_static("text/css"),
                content_length: HeaderValue::from_static("10"),
            },
            negotiated: Negotiated::EncodingAndDictionary,
            dictionary_match: Some("/app.*.css"),
        };
        let added = Added {
            cache_control: &NO_CACHE,
            fields: &[],
        };
        for part in [
            Part::Whole,
            Part::Range(ByteRange { start: 0, end: 4 }),
            Part::NotModified,
            Part::Unsatisfiable,
            Part::ErrorPage,
        ] {
            let headers = representation_headers(&rep, added, part);
            for name in headers.keys() {
                assert!(SERVICE_FIELDS.contains(name), "{name} is not on the list");
            }
        }
    }

    #[test]
    fn the_plain_404_states_its_own_length() {
        let response = super::not_found(None, &[], &http::Method::GET, &http::HeaderMap::new());
        let length = response.headers()[http::header::CONTENT_LENGTH]
            .to_str()
            .unwrap();
        assert_eq!(length, b"404 Not Found\n".len().to_string());
    }
}
