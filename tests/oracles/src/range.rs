//! `Range` and `If-Range` (RFC 9110 §14, §13.1.5).

use http::header::{IF_RANGE, RANGE};
use http::{HeaderMap, HeaderValue, Method};

use super::{ByteRange, MAX_RANGES, RangeSelection, if_range_holds, lines, select_ranges};

/// The validators of the representation the ranges apply to.
const ETAG: &str = "\"fuzz\"";
/// `Wed, 01 Jan 2025 00:00:00 GMT`.
const MODIFIED: u64 = 1_735_689_600;

/// Fuzz target `range`: line 1 of `data` is the representation's length in decimal
/// (1000 when it is not a number), line 2 the `Range` value, line 3 if present the
/// `If-Range` value (the ETag is `"fuzz"`, `Last-Modified` is
/// `Wed, 01 Jan 2025 00:00:00 GMT`).
///
/// - Every range lies inside the representation (`start <= end < len`), a multipart
///   answer has 2 to [`MAX_RANGES`] ranges adding up to no more than the length.
/// - The selection is what RFC 9110 §14.1 and §14.2 give, read by `expected`: the
///   specs clamped in request order, 416 when none is satisfiable, the whole body for a
///   Range that is invalid, abusive or fails `If-Range`.
/// - HEAD and other methods always get the whole body.
///
/// # Panics
/// When an invariant does not hold.
pub fn check_range(data: &[u8]) {
    let mut lines = lines(data);
    let len = lines
        .next()
        .and_then(|line| std::str::from_utf8(line).ok()?.parse::<u64>().ok())
        .unwrap_or(1000);
    let mut headers = HeaderMap::new();
    for (name, line) in [RANGE, IF_RANGE].into_iter().zip(lines) {
        if let Ok(value) = HeaderValue::from_bytes(line) {
            headers.insert(name, value);
        }
    }
    let selection = select_ranges(&Method::GET, &headers, ETAG, MODIFIED, len);
    let inside = |r: &ByteRange| r.start <= r.end && r.end < len;
    match &selection {
        RangeSelection::Single(range) => {
            assert!(
                inside(range),
                "{range:?} outside {len} bytes, for {headers:?}"
            );
        }
        RangeSelection::Multiple(ranges) => {
            assert!((2..=MAX_RANGES).contains(&ranges.len()), "{ranges:?}");
            assert!(ranges.iter().all(inside), "{ranges:?} outside {len} bytes");
            let total: u64 = ranges.iter().map(|r| r.end - r.start + 1).sum();
            assert!(total <= len, "{ranges:?} add up to more than {len} bytes");
        }
        RangeSelection::Full | RangeSelection::Unsatisfiable => {}
    }
    let expected = if headers.contains_key(IF_RANGE) && !if_range_holds(&headers, ETAG, MODIFIED) {
        RangeSelection::Full
    } else {
        headers.get(RANGE).map_or(RangeSelection::Full, |range| {
            expected(range.as_bytes(), len)
        })
    };
    assert_eq!(selection, expected, "{len} bytes, {headers:?}");
    for method in [Method::HEAD, Method::POST] {
        assert_eq!(
            select_ranges(&method, &headers, ETAG, MODIFIED, len),
            RangeSelection::Full,
            "{method} {headers:?}"
        );
    }
}

/// What one `Range` value selects in `len` bytes, read from RFC 9110 §14.1:
/// `ranges-specifier = range-unit "=" range-set`, `range-set = 1#range-spec`,
/// `int-range = first-pos "-" [ last-pos ]`, `suffix-range = "-" suffix-length`.
pub(crate) fn expected(value: &[u8], len: u64) -> RangeSelection {
    let Ok(text) = std::str::from_utf8(value) else {
        return RangeSelection::Full;
    };
    let Some((unit, set)) = text.split_once('=') else {
        return RangeSelection::Full;
    };
    if !unit.eq_ignore_ascii_case("bytes") {
        return RangeSelection::Full;
    }
    // RFC 9110 §14.1.1 bounds no position: one past u64 is past any length.
    let number = |s: &str| -> Option<u64> {
        if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        Some(s.parse().unwrap_or(u64::MAX))
    };
    let mut specs = Vec::new();
    // Empty list elements and whitespace around elements are allowed (§5.6.1).
    fn trim(s: &str) -> &str {
        s.trim_matches(|c: char| c.is_ascii_whitespace())
    }
    for spec in set.split(',').map(trim).filter(|s| !s.is_empty()) {
        let Some((first, last)) = spec.split_once('-') else {
            return RangeSelection::Full;
        };
        let spec = match (first, last) {
            ("", suffix) => match number(suffix) {
                Some(suffix) => (None, Some(suffix)),
                None => return RangeSelection::Full,
            },
            (first, "") => match number(first) {
                Some(first) => (Some(first), None),
                None => return RangeSelection::Full,
            },
            (first, last) => match (number(first), number(last)) {
                // A last-pos below first-pos makes the whole field invalid.
                (Some(first), Some(last)) if first <= last => (Some(first), Some(last)),
                _ => return RangeSelection::Full,
            },
        };
        specs.push(spec);
    }
    if specs.is_empty() || specs.len() > MAX_RANGES {
        return RangeSelection::Full;
    }
    // §14.1.2: clamp to the representation; drop what starts beyond it.
    let ranges: Vec<ByteRange> = specs
        .into_iter()
        .filter_map(|spec| match spec {
            (Some(first), last) if first < len => Some(ByteRange {
                start: first,
                end: last.unwrap_or(u64::MAX).min(len - 1),
            }),
            (None, Some(suffix)) if suffix > 0 && len > 0 => Some(ByteRange {
                start: len - suffix.min(len),
                end: len - 1,
            }),
            _ => None,
        })
        .collect();
    let total = ranges
        .iter()
        .map(|r| u128::from(r.end - r.start) + 1)
        .sum::<u128>();
    match ranges.as_slice() {
        [] => RangeSelection::Unsatisfiable,
        [one] => RangeSelection::Single(*one),
        // §14.3: ranges that overlap into more than the whole are not worth serving.
        _ if total > u128::from(len) => RangeSelection::Full,
        _ => RangeSelection::Multiple(ranges),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seed_forms_hold() {
        for data in [
            "10000\nbytes=0-499",
            "10000\nbytes=-500",
            "10000\nbytes=500-599, 0-9",
            "0\nbytes=0-",
            "10\nbytes=5-1",
            "10000\nbytes=0-9\n\"fuzz\"",
            "10000\nbytes=0-9\nWed, 01 Jan 2025 00:00:00 GMT",
            "10000\nbytes=0-9\nW/\"fuzz\"",
        ] {
            check_range(data.as_bytes());
        }
    }
}
