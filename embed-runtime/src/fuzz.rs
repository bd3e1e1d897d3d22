//! The HTTP decisions made public for fuzzing and property tests (feature `__fuzz`),
//! and one invariant check per fuzz target.
//!
//! Each `check_*` function takes the fuzzer's raw bytes, runs a decision on them and
//! panics when an invariant does not hold: libFuzzer reports the panic as a crash, and
//! the corpus replay test in `tests/` calls the same functions on the committed seeds,
//! so both check exactly the same thing. The invariants are stated from the RFC's
//! grammar and rules, written independently of the code they check where that is
//! short enough to read (a second reading of the same grammar, not a copy of it).
//!
//! Inputs are text where the header syntax is text: one field line per `\n`-separated
//! line, so seeds are readable and libFuzzer's mutations stay close to real headers.
//! The format of each target's input is in its check's documentation.

// Panicking is how a check reports a broken invariant, to libFuzzer and to the tests.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

mod negotiate;
mod path;
mod precondition;
mod range;
mod respond;

use std::borrow::Cow;
use std::time::SystemTime;

use http::header::{ACCEPT_ENCODING, IF_RANGE};
use http::{HeaderMap, HeaderName, HeaderValue, Method};

pub use self::negotiate::check_accept_encoding;
pub use self::path::check_path;
pub use self::precondition::{check_entity_tags, check_http_date};
pub use self::range::check_range;
pub use self::respond::check_response;
pub use crate::asset::Encoding;

use crate::precondition::Validators;

/// Which stored encoding a request with these `Accept-Encoding` field lines gets, when
/// the asset has bodies in the `stored` codings (and identity).
pub fn choose_encoding(headers: &HeaderMap, stored: &[Encoding]) -> Encoding {
    crate::negotiate::choose_encoding(headers.get_all(ACCEPT_ENCODING), |encoding| {
        stored.contains(&encoding)
    })
}

/// A `qvalue` (RFC 9110 §12.4.2) in thousandths: `b"0.5"` is `Some(500)`.
pub fn parse_quality(value: &[u8]) -> Option<u16> {
    crate::negotiate::parse_quality(value)
}

/// The outcome of the preconditions of a request (RFC 9110 §13.2.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precondition {
    /// Send the representation.
    Proceed,
    /// 304.
    NotModified,
    /// 412.
    Failed,
}

/// Evaluates the preconditions of a request for a representation with the quoted strong
/// `etag` and `Last-Modified` of `modified` seconds since the Unix epoch.
pub fn evaluate_preconditions(
    method: &Method,
    headers: &HeaderMap,
    etag: &str,
    modified: u64,
) -> Precondition {
    let v = Validators { etag, modified };
    match crate::precondition::evaluate(method, headers, &v) {
        crate::precondition::Precondition::Proceed => Precondition::Proceed,
        crate::precondition::Precondition::NotModified => Precondition::NotModified,
        crate::precondition::Precondition::Failed => Precondition::Failed,
    }
}

/// One `entity-tag`, as `If-Range` parses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntityTag<'a> {
    /// `W/` prefix.
    pub weak: bool,
    /// The opaque tag with its quotes.
    pub opaque: &'a [u8],
}

/// Parses `bytes` as exactly one entity-tag (RFC 9110 §8.8.3).
pub fn entity_tag(bytes: &[u8]) -> Option<EntityTag<'_>> {
    crate::precondition::EntityTag::from_bytes(bytes).map(|tag| EntityTag {
        weak: tag.weak,
        opaque: tag.opaque,
    })
}

/// The date of the `name` field (`If-Modified-Since`, `If-Unmodified-Since`,
/// `If-Range`): `None` when absent, repeated or not an HTTP-date.
pub fn http_date(headers: &HeaderMap, name: &HeaderName) -> Option<SystemTime> {
    crate::precondition::http_date(headers.get_all(name))
}

/// More ranges than this in one `Range` get the whole representation.
pub const MAX_RANGES: usize = crate::range::MAX_RANGES;

/// An inclusive byte range `start..=end` of a representation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByteRange {
    /// First byte.
    pub start: u64,
    /// Last byte, included.
    pub end: u64,
}

/// How `Range` applies to a representation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RangeSelection {
    /// 200 with the whole representation.
    Full,
    /// 206 with one range.
    Single(ByteRange),
    /// 206 `multipart/byteranges`.
    Multiple(Vec<ByteRange>),
    /// 416.
    Unsatisfiable,
}

impl From<crate::range::RangeSelection> for RangeSelection {
    fn from(selection: crate::range::RangeSelection) -> Self {
        use crate::range::RangeSelection as Inner;
        let range = |r: crate::range::ByteRange| ByteRange {
            start: r.start,
            end: r.end,
        };
        match selection {
            Inner::Full => RangeSelection::Full,
            Inner::Single(r) => RangeSelection::Single(range(r)),
            Inner::Multiple(rs) => RangeSelection::Multiple(rs.into_iter().map(range).collect()),
            Inner::Unsatisfiable => RangeSelection::Unsatisfiable,
        }
    }
}

/// Decides how `Range` and `If-Range` apply to a representation of `len` bytes with
/// the quoted strong `etag` and `Last-Modified` of `modified` seconds.
pub fn select_ranges(
    method: &Method,
    headers: &HeaderMap,
    etag: &str,
    modified: u64,
    len: u64,
) -> RangeSelection {
    let v = Validators { etag, modified };
    crate::range::select_ranges(method, headers, &v, len).into()
}

/// Percent-decodes a request path once; `None` for a path that must get 404.
pub fn decode_path(raw: &str) -> Option<Cow<'_, str>> {
    crate::path::decode(raw)
}

/// The `\n`-separated lines of a fuzz input, each without a trailing `\r`; none for an
/// empty input.
fn lines(data: &[u8]) -> impl Iterator<Item = &[u8]> {
    data.split(|&b| b == b'\n')
        .map(|line| line.strip_suffix(b"\r").unwrap_or(line))
        .take(if data.is_empty() { 0 } else { usize::MAX })
}

/// A header map with one `name` field line per line that is a valid header value;
/// the others are dropped, as a server's parser would reject them before us.
fn field_lines<'a>(name: &HeaderName, lines: impl IntoIterator<Item = &'a [u8]>) -> HeaderMap {
    let mut headers = HeaderMap::new();
    for line in lines {
        if let Ok(value) = HeaderValue::from_bytes(line) {
            headers.append(name.clone(), value);
        }
    }
    headers
}

/// `OWS` trimmed from both ends (RFC 9110 §5.6.3: space and tab).
fn trim_ows(bytes: &[u8]) -> &[u8] {
    let is_ows = |b: &u8| *b == b' ' || *b == b'\t';
    let start = bytes.iter().take_while(|b| is_ows(b)).count();
    let end = bytes.len()
        - bytes[start..]
            .iter()
            .rev()
            .take_while(|b| is_ows(b))
            .count();
    &bytes[start..end]
}

/// Whether `If-Range` holds for our validators, read from the RFC (§13.1.5): an exact
/// strong entity-tag equal to the ETag, or an HTTP-date equal to `Last-Modified`.
fn if_range_holds(headers: &HeaderMap, etag: &str, modified: u64) -> bool {
    let mut values = headers.get_all(IF_RANGE).iter();
    let (Some(value), None) = (values.next(), values.next()) else {
        return false;
    };
    if value.as_bytes() == etag.as_bytes() {
        return true;
    }
    value
        .to_str()
        .ok()
        .and_then(|text| httpdate::parse_http_date(text).ok())
        .and_then(|date| date.duration_since(SystemTime::UNIX_EPOCH).ok())
        .is_some_and(|since| since.as_secs() == modified)
}
