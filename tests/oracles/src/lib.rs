//! The invariants of embed-assets's HTTP decisions, one `check_*` function per fuzz
//! target of `fuzz/`.
//!
//! Each check takes the fuzzer's raw bytes, runs a decision on them and panics when an
//! invariant does not hold: libFuzzer reports the panic as a crash, and the corpus
//! replay and property tests in `tests/` call the same functions, so all of them check
//! exactly the same thing. The invariants are stated from the RFC's grammar and rules,
//! written independently of the code they check where that is short enough to read (a
//! second reading of the same grammar, not a copy of it).
//!
//! Inputs are text where the header syntax is text: one field line per `\n`-separated
//! line, so seeds are readable and libFuzzer's mutations stay close to real headers.
//! The format of each target's input is in its check's documentation.
//!
//! The decisions themselves come from `embed_assets::__private::fuzz`, which exists only with
//! `--cfg embed_assets_unstable_fuzz` (the repository's `.cargo/config.toml` sets it);
//! `check_response`, `check_dictionary` and `check_release_lookup` need only the public
//! API, and `check_release_list` and `check_hashed_name` call `embed-assets-shared`.

mod dictionary;
mod hashed;
mod lookup;
mod mount;
mod negotiate;
mod path;
mod precondition;
mod range;
mod release_list;
mod release_site;
mod respond;

use std::time::SystemTime;

use http::header::IF_RANGE;
use http::{HeaderMap, HeaderName, HeaderValue};

pub use self::dictionary::check_dictionary;
pub use self::hashed::check_hashed_name;
pub use self::lookup::check_release_lookup;
pub use self::mount::check_mount;
pub use self::negotiate::check_accept_encoding;
pub use self::path::check_path;
pub use self::precondition::{check_entity_tags, check_http_date};
pub use self::range::check_range;
pub use self::release_list::check_release_list;
pub use self::release_site::ReleaseSite;
pub use self::respond::{Fixture, check_response};

use embed_assets::__private::fuzz::{
    ByteRange, MAX_RANGES, Precondition, RangeSelection, choose_encoding, decode_path, entity_tag,
    evaluate_preconditions, http_date, select_ranges,
};
use embed_assets::Encoding;

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
