//! The HTTP decisions the service makes, callable one by one: the entry of the fuzz
//! targets in `fuzz/` and of the property tests, whose invariant checks live in the
//! unpublished `embed-assets-oracles` crate (`tests/oracles/`).
//!
//! Compiled only with `--cfg embed_assets_unstable_fuzz` (as hyper gates its unstable
//! API), which the repository's `.cargo/config.toml` turns on for its own builds
//! through `build.rs`: no dependent reaches it through a feature, and it is no API.
//! Each function converts to and from the crate's internal types and calls the one
//! the service calls, so what is checked is what serves.

use std::borrow::Cow;
use std::time::SystemTime;

use http::header::ACCEPT_ENCODING;
use http::{HeaderMap, HeaderName, Method};

pub use crate::coding::Encoding;

use crate::precondition::Validators;

/// Which stored encoding a request with these `Accept-Encoding` field lines gets, when
/// the asset has bodies in the `stored` codings (and identity).
pub fn choose_encoding(headers: &HeaderMap, stored: &[Encoding]) -> Encoding {
    crate::negotiate::choose_encoding(headers.get_all(ACCEPT_ENCODING), stored)
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
    let v = Validators {
        etag: Some(etag),
        modified: Some(modified),
    };
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
    let v = Validators {
        etag: Some(etag),
        modified: Some(modified),
    };
    crate::range::select_ranges(method, headers, &v, len).into()
}

/// Percent-decodes a request path once; `None` for a path that must get 404.
pub fn decode_path(raw: &str) -> Option<Cow<'_, str>> {
    crate::path::decode(raw)
}

/// The framework adapters' path arithmetic: where each router left the request (see
/// `adapters/mount.rs`), built without the frameworks.
pub mod mount {
    pub use crate::adapters::mount::{Below, actix, rocket, salvo, warp};
}
