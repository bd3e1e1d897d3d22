//! `Range` and `If-Range` (RFC 9110 §14, §13.1.5) → full, partial or unsatisfiable.

use http::header::{IF_RANGE, RANGE};
use http::{HeaderMap, Method};

use crate::precondition::{EntityTag, Validators, http_date};

/// More ranges than this in one request get the whole representation (RFC 9110
/// §14.3 lets a server ignore a Range it deems abusive); parsing also stops here,
/// so a header with thousands of ranges costs no more than this many.
pub(crate) const MAX_RANGES: usize = 32;

/// An inclusive byte range inside the representation: `start..=end`, `end < len`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ByteRange {
    pub(crate) start: u64,
    pub(crate) end: u64,
}

impl ByteRange {
    pub(crate) fn len(&self) -> u64 {
        self.end - self.start + 1
    }
}

/// What to send, as far as `Range` decides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RangeSelection {
    /// 200 with the whole representation: no Range, or one to ignore.
    Full,
    /// 206 with one range.
    Single(ByteRange),
    /// 206 `multipart/byteranges`, in the order requested.
    Multiple(Vec<ByteRange>),
    /// 416 with `Content-Range: bytes */len`.
    Unsatisfiable,
}

/// Decides how `Range` applies to a representation of `len` bytes.
///
/// - Only GET has range semantics (RFC 9110 §14.2); other methods get the full answer.
/// - A Range that does not parse, names another unit, or is sent as several field
///   lines is ignored (§14.2: a server MAY ignore it; rejecting would break clients).
/// - `If-Range` (§13.1.5) must hold, else the Range is ignored: an entity-tag is
///   compared strongly with the ETag, a date must equal `Last-Modified` exactly, and
///   anything else does not hold.
/// - Unsatisfiable ranges are dropped; none left means 416 (§15.5.17).
/// - More than [`MAX_RANGES`] ranges, or ranges that add up to more than the
///   representation (overlap abuse, §14.3), are answered with the full body.
pub(crate) fn select_ranges(
    method: &Method,
    headers: &HeaderMap,
    v: &Validators<'_>,
    len: u64,
) -> RangeSelection {
    if method != Method::GET {
        return RangeSelection::Full;
    }
    let mut lines = headers.get_all(RANGE).iter();
    let (Some(range), None) = (lines.next(), lines.next()) else {
        return RangeSelection::Full;
    };
    if headers.contains_key(IF_RANGE) && !if_range_holds(headers, v) {
        return RangeSelection::Full;
    }
    let Some(specs) = parse_range(range.as_bytes()) else {
        return RangeSelection::Full;
    };
    let mut ranges: Vec<ByteRange> = specs
        .into_iter()
        .filter_map(|spec| spec.resolve(len))
        .collect();
    let total = ranges
        .iter()
        .try_fold(0u64, |sum, r| sum.checked_add(r.len()));
    match ranges.len() {
        0 => RangeSelection::Unsatisfiable,
        1 => RangeSelection::Single(ranges.remove(0)),
        _ if total.is_none_or(|total| total > len) => RangeSelection::Full,
        _ => RangeSelection::Multiple(ranges),
    }
}

fn if_range_holds(headers: &HeaderMap, v: &Validators<'_>) -> bool {
    let mut lines = headers.get_all(IF_RANGE).iter();
    let (Some(value), None) = (lines.next(), lines.next()) else {
        return false;
    };
    let bytes = value.as_bytes();
    if bytes.starts_with(b"\"") || bytes.starts_with(b"W/") {
        return EntityTag::from_bytes(bytes)
            .is_some_and(|tag| v.etag.is_some_and(|etag| tag.strong_eq(etag)));
    }
    http_date(headers.get_all(IF_RANGE)).is_some_and(|date| {
        date.duration_since(std::time::UNIX_EPOCH)
            .is_ok_and(|since| Some(since.as_secs()) == v.modified && since.subsec_nanos() == 0)
    })
}

/// One `range-spec` before it meets the representation's length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RangeSpec {
    /// `first-last` or `first-` (`last` = `None`).
    FromTo(u64, Option<u64>),
    /// `-suffix`: the last `suffix` bytes.
    Suffix(u64),
}

impl RangeSpec {
    /// RFC 9110 §14.1.2: clamp to the representation, `None` when unsatisfiable.
    fn resolve(self, len: u64) -> Option<ByteRange> {
        match self {
            RangeSpec::FromTo(first, last) if first < len => Some(ByteRange {
                start: first,
                end: last.map_or(len - 1, |last| last.min(len - 1)),
            }),
            RangeSpec::Suffix(suffix) if suffix > 0 && len > 0 => Some(ByteRange {
                start: len.saturating_sub(suffix),
                end: len - 1,
            }),
            _ => None,
        }
    }
}

/// `bytes=` followed by a comma-separated list of range-specs (RFC 9110 §14.1.1).
/// `None` when the value is not one; stops after `MAX_RANGES + 1` specs.
fn parse_range(value: &[u8]) -> Option<Vec<RangeSpec>> {
    let eq = value.iter().position(|&b| b == b'=')?;
    let (unit, specs) = (&value[..eq], &value[eq + 1..]);
    if !unit.eq_ignore_ascii_case(b"bytes") {
        return None;
    }
    let mut out = Vec::new();
    for spec in specs.split(|&b| b == b',') {
        let spec = spec.trim_ascii();
        if spec.is_empty() {
            continue; // RFC 9110 §5.6.1: empty list elements are ignored
        }
        if out.len() == MAX_RANGES {
            return None;
        }
        let dash = spec.iter().position(|&b| b == b'-')?;
        let (first, last) = (&spec[..dash], &spec[dash + 1..]);
        out.push(if first.is_empty() {
            RangeSpec::Suffix(digits(last)?)
        } else {
            let first = digits(first)?;
            let last = if last.is_empty() {
                None
            } else {
                Some(digits(last)?)
            };
            if last.is_some_and(|last| last < first) {
                return None; // §14.1.1: invalid, so the whole field is
            }
            RangeSpec::FromTo(first, last)
        });
    }
    (!out.is_empty()).then_some(out)
}

/// `1*DIGIT` as a u64, saturating: a position past `u64::MAX` is still a valid
/// position (RFC 9110 §14.1.1 puts no bound on it), and past any length, so a last
/// position clamps to the end and a first position is unsatisfiable. `None` on anything
/// that is not digits.
fn digits(bytes: &[u8]) -> Option<u64> {
    if bytes.is_empty() || !bytes.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(bytes.iter().fold(0u64, |n, &d| {
        n.saturating_mul(10).saturating_add(u64::from(d - b'0'))
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_past_u64_saturate_instead_of_voiding_the_range() {
        let huge = "99999999999999999999999";
        assert_eq!(
            select(&format!("bytes=0-{huge}")),
            RangeSelection::Single(ByteRange {
                start: 0,
                end: LEN - 1
            })
        );
        assert_eq!(
            select("bytes=10-18446744073709551616"),
            RangeSelection::Single(ByteRange {
                start: 10,
                end: LEN - 1
            })
        );
        assert_eq!(select(&format!("bytes=-{huge}")), select("bytes=0-"));
        assert_eq!(
            select(&format!("bytes={huge}-")),
            RangeSelection::Unsatisfiable
        );
        assert_eq!(
            select(&format!("bytes={huge}-5")),
            RangeSelection::Full,
            "first > last"
        );
    }

    const LEN: u64 = 10_000;
    const ETAG: &str = "\"abc\"";
    const MODIFIED: u64 = 1_735_689_600;
    const LAST_MODIFIED: &str = "Wed, 01 Jan 2025 00:00:00 GMT";

    fn select_with(
        method: Method,
        fields: &[(http::HeaderName, &str)],
        len: u64,
    ) -> RangeSelection {
        let headers = crate::precondition::tests::header_map(fields);
        let v = Validators {
            etag: Some(ETAG),
            modified: Some(MODIFIED),
        };
        select_ranges(&method, &headers, &v, len)
    }

    fn select(range: &str) -> RangeSelection {
        select_with(Method::GET, &[(RANGE, range)], LEN)
    }

    fn single(start: u64, end: u64) -> RangeSelection {
        RangeSelection::Single(ByteRange { start, end })
    }

    use RangeSelection::*;

    #[test]
    fn single_ranges_of_each_form() {
        for (range, expected) in [
            ("bytes=0-0", single(0, 0)),
            ("bytes=0-499", single(0, 499)),
            ("bytes=500-", single(500, 9_999)),
            ("bytes=-500", single(9_500, 9_999)),
            ("bytes=9999-", single(9_999, 9_999)),
            ("bytes=0-99999", single(0, 9_999)),
            ("bytes=-99999", single(0, 9_999)),
            ("BYTES=1-2", single(1, 2)),
            ("bytes= 1-2 ", single(1, 2)),
            ("bytes=1-2,", single(1, 2)),
        ] {
            assert_eq!(select(range), expected, "Range: {range}");
        }
    }

    #[test]
    fn unsatisfiable_ranges_give_416() {
        for range in [
            "bytes=10000-",
            "bytes=10000-20000",
            "bytes=-0",
            "bytes=20000-, -0",
        ] {
            assert_eq!(select(range), Unsatisfiable, "Range: {range}");
        }
        assert_eq!(
            select_with(Method::GET, &[(RANGE, "bytes=0-")], 0),
            Unsatisfiable
        );
    }

    #[test]
    fn unsatisfiable_members_are_dropped_from_a_list() {
        assert_eq!(select("bytes=20000-30000, 0-9"), single(0, 9));
    }

    #[test]
    fn malformed_or_foreign_ranges_are_ignored() {
        for range in [
            "bytes=5-1",
            "bytes=abc",
            "bytes=1-2-3",
            "bytes=-",
            "bytes=",
            "bytes 1-2",
            "items=0-5",
            "bytes=+1-2",
            "bytes=1--2",
            "",
        ] {
            assert_eq!(select(range), Full, "Range: {range}");
        }
    }

    #[test]
    fn several_ranges_stay_in_request_order() {
        let expected = Multiple(vec![
            ByteRange {
                start: 500,
                end: 599,
            },
            ByteRange { start: 0, end: 9 },
        ]);
        assert_eq!(select("bytes=500-599, 0-9"), expected);
    }

    #[test]
    fn abusive_range_sets_get_the_whole_body() {
        let many = format!(
            "bytes={}",
            (0..=MAX_RANGES)
                .map(|i| format!("{i}-{i}"))
                .collect::<Vec<_>>()
                .join(",")
        );
        assert_eq!(select(&many), Full, "more than MAX_RANGES");
        let just_enough = format!(
            "bytes={}",
            (0..MAX_RANGES)
                .map(|i| format!("{i}-{i}"))
                .collect::<Vec<_>>()
                .join(",")
        );
        assert!(matches!(select(&just_enough), Multiple(r) if r.len() == MAX_RANGES));
        assert_eq!(
            select("bytes=0-9999, 0-9999"),
            Full,
            "overlap beyond the length"
        );
        let thousands = format!("bytes={}", "0-1,".repeat(5_000));
        assert_eq!(select(&thousands), Full);
    }

    #[test]
    fn range_applies_to_get_only_and_to_one_field_line() {
        assert_eq!(
            select_with(Method::HEAD, &[(RANGE, "bytes=0-1")], LEN),
            Full
        );
        assert_eq!(
            select_with(
                Method::GET,
                &[(RANGE, "bytes=0-1"), (RANGE, "bytes=2-3")],
                LEN
            ),
            Full
        );
    }

    #[test]
    fn if_range_with_a_strong_matching_etag_allows_the_range() {
        let with = |if_range: &str| {
            select_with(
                Method::GET,
                &[(RANGE, "bytes=0-9"), (IF_RANGE, if_range)],
                LEN,
            )
        };
        assert_eq!(with(ETAG), single(0, 9));
        assert_eq!(with("\"other\""), Full);
        assert_eq!(with("W/\"abc\""), Full, "weak tags never match If-Range");
        assert_eq!(with(LAST_MODIFIED), single(0, 9));
        assert_eq!(
            with("Wed, 01 Jan 2025 00:00:01 GMT"),
            Full,
            "dates must match exactly"
        );
        assert_eq!(with("garbage"), Full);
    }

    #[test]
    fn if_range_without_range_changes_nothing() {
        assert_eq!(
            select_with(Method::GET, &[(IF_RANGE, "\"other\"")], LEN),
            Full
        );
    }
}
