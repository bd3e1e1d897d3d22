//! Conditional requests (RFC 9110 §13): `If-Match`, `If-Unmodified-Since`,
//! `If-None-Match`, `If-Modified-Since` → proceed, 304 or 412.

use std::time::{Duration, SystemTime};

use http::header::{GetAll, IF_MATCH, IF_MODIFIED_SINCE, IF_NONE_MATCH, IF_UNMODIFIED_SINCE};
use http::{HeaderMap, HeaderValue, Method};

/// The validators of the selected representation.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Validators<'a> {
    /// Quoted strong entity tag, e.g. `"abc"`; `None` while a file read at run time
    /// has none yet (its content tag is being computed): then no entity tag matches,
    /// and `*` still does.
    pub(crate) etag: Option<&'a str>,
    /// `Last-Modified`, in whole seconds since the Unix epoch; `None` for a file read
    /// at run time that changed less than a second ago (see `Representation::on_disk`),
    /// whose date cannot tell a later change within the same second: then no date
    /// condition holds, and `If-Modified-Since` and `If-Unmodified-Since` are ignored
    /// (RFC 9110 §13.1.3, §13.1.4: no modification date available).
    pub(crate) modified: Option<u64>,
}

/// Outcome of evaluating preconditions (RFC 9110 §13.2.2), in the RFC's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Precondition {
    /// No precondition stops the request: send the representation (or its ranges).
    Proceed,
    /// 304: the client's copy is current.
    NotModified,
    /// 412: a precondition the client set does not hold.
    Failed,
}

/// Evaluates the preconditions of RFC 9110 §13.2.2 for a resource that exists.
pub(crate) fn evaluate(method: &Method, headers: &HeaderMap, v: &Validators<'_>) -> Precondition {
    let is_get_or_head = method == Method::GET || method == Method::HEAD;
    // Step 1 and 2: If-Match, else If-Unmodified-Since.
    if headers.contains_key(IF_MATCH) {
        if !EntityTagList::new(headers.get_all(IF_MATCH)).matches_strong(v.etag) {
            return Precondition::Failed;
        }
    } else if let (Some(since), Some(modified)) =
        (http_date(headers.get_all(IF_UNMODIFIED_SINCE)), v.modified)
    {
        if !is_unmodified_since(modified, since) {
            return Precondition::Failed;
        }
    }
    // Step 3 and 4: If-None-Match, else If-Modified-Since (GET/HEAD only).
    let if_none_match = headers.get_all(IF_NONE_MATCH);
    let mut lines = if_none_match.iter();
    if let Some(first) = lines.next() {
        let alone = lines.next().is_none();
        if (alone && v.etag.is_some_and(|etag| is_exactly(first, etag)))
            || EntityTagList::new(if_none_match).matches_weak(v.etag)
        {
            return if is_get_or_head {
                Precondition::NotModified
            } else {
                Precondition::Failed
            };
        }
    } else if is_get_or_head {
        if let (Some(since), Some(modified)) =
            (http_date(headers.get_all(IF_MODIFIED_SINCE)), v.modified)
        {
            if is_unmodified_since(modified, since) {
                return Precondition::NotModified;
            }
        }
    }
    Precondition::Proceed
}

/// Whether a field line is our ETag alone, strong or weak: what a browser or cache
/// revalidating sends. A shortcut taken before parsing the list (the answer is the same).
fn is_exactly(line: &HeaderValue, etag: &str) -> bool {
    let line = line.as_bytes();
    line.strip_prefix(b"W/").unwrap_or(line) == etag.as_bytes()
}

/// RFC 9110 §13.1.3 and §13.1.4: the representation has not changed after `since` when
/// its modification date is earlier than or equal to it (both at one-second resolution).
fn is_unmodified_since(modified: u64, since: SystemTime) -> bool {
    SystemTime::UNIX_EPOCH + Duration::from_secs(modified) <= since
}

/// The date of an `If-Modified-Since`/`If-Unmodified-Since`/`If-Range` field.
///
/// RFC 9110 §13.1.3/§13.1.4: a value that is not a valid HTTP-date, or a field sent
/// more than once, is ignored (`None`). All three HTTP-date forms are accepted
/// (IMF-fixdate, obsolete RFC 850 and asctime, §5.6.7).
pub(crate) fn http_date(lines: GetAll<'_, HeaderValue>) -> Option<SystemTime> {
    let mut lines = lines.iter();
    let value = lines.next()?;
    if lines.next().is_some() {
        return None;
    }
    httpdate::parse_http_date(value.to_str().ok()?).ok()
}

/// One `entity-tag` (RFC 9110 §8.8.3): `W/"opaque"` or `"opaque"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct EntityTag<'a> {
    pub(crate) weak: bool,
    /// The opaque tag with its quotes, comparable to our quoted ETags.
    pub(crate) opaque: &'a [u8],
}

impl<'a> EntityTag<'a> {
    /// Parses exactly one entity-tag; `None` if `bytes` is anything else.
    pub(crate) fn from_bytes(bytes: &'a [u8]) -> Option<Self> {
        match EntityTagList::parse_one(bytes)? {
            (ListMember::Tag(tag), []) => Some(tag),
            _ => None,
        }
    }

    /// RFC 9110 §8.8.3.2: strong comparison — both strong, same opaque tag.
    pub(crate) fn strong_eq(&self, etag: &str) -> bool {
        !self.weak && self.opaque == etag.as_bytes()
    }

    /// RFC 9110 §8.8.3.2: weak comparison — same opaque tag, weakness ignored. Needed
    /// because proxies such as nginx weaken tags (`W/"…"`) when they transform bodies.
    pub(crate) fn weak_eq(&self, etag: &str) -> bool {
        self.opaque == etag.as_bytes()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ListMember<'a> {
    Any,
    Tag(EntityTag<'a>),
}

/// `If-Match` / `If-None-Match`: `"*"` or a comma-separated list of entity-tags,
/// possibly over several field lines (RFC 9110 §5.3).
///
/// An unparseable list matches nothing: for `If-None-Match` the full response is
/// sent (always safe), for `If-Match` the request fails with 412 (the client asked
/// for a condition we cannot confirm).
struct EntityTagList<'h> {
    lines: GetAll<'h, HeaderValue>,
}

impl<'h> EntityTagList<'h> {
    fn new(lines: GetAll<'h, HeaderValue>) -> Self {
        EntityTagList { lines }
    }

    fn matches_strong(&self, etag: Option<&str>) -> bool {
        self.any(|member| match member {
            ListMember::Any => true,
            ListMember::Tag(tag) => etag.is_some_and(|etag| tag.strong_eq(etag)),
        })
    }

    fn matches_weak(&self, etag: Option<&str>) -> bool {
        self.any(|member| match member {
            ListMember::Any => true,
            ListMember::Tag(tag) => etag.is_some_and(|etag| tag.weak_eq(etag)),
        })
    }

    /// Whether any member satisfies `pred`; `false` for a list with a syntax error
    /// anywhere (checked first, so a valid prefix cannot match).
    fn any(&self, mut pred: impl FnMut(ListMember<'_>) -> bool) -> bool {
        self.members(|_| false) == Some(false) && self.members(&mut pred) == Some(true)
    }

    /// Calls `pred` on each member until it returns `true` (`Some(true)`); `Some(false)`
    /// when the list ends, `None` at a syntax error.
    fn members(&self, mut pred: impl FnMut(ListMember<'_>) -> bool) -> Option<bool> {
        // `"*" / #entity-tag`: a `*` is the whole list or a syntax error.
        let (mut seen, mut star) = (0usize, false);
        for line in self.lines.iter() {
            let mut rest = line.as_bytes();
            loop {
                rest = skip_separators(rest);
                if rest.is_empty() {
                    break;
                }
                let (member, after) = Self::parse_one(rest)?;
                let whole_line_is_star = || {
                    let line = skip_ows(line.as_bytes());
                    line.strip_prefix(b"*")
                        .is_some_and(|rest| skip_ows(rest).is_empty())
                };
                if star || (member == ListMember::Any && (seen > 0 || !whole_line_is_star())) {
                    return None;
                }
                star = member == ListMember::Any;
                seen += 1;
                if pred(member) {
                    return Some(true);
                }
                rest = after;
                // Members are separated by a comma (after optional whitespace).
                let after_ows = skip_ows(rest);
                if !after_ows.is_empty() && after_ows[0] != b',' {
                    return None;
                }
            }
        }
        Some(false)
    }

    /// One member at the start of `bytes` and what follows it.
    fn parse_one(bytes: &[u8]) -> Option<(ListMember<'_>, &[u8])> {
        if let Some(rest) = bytes.strip_prefix(b"*") {
            return Some((ListMember::Any, rest));
        }
        let (weak, quoted) = match bytes.strip_prefix(b"W/") {
            Some(rest) => (true, rest),
            None => (false, bytes),
        };
        let inner = quoted.strip_prefix(b"\"")?;
        let close = inner.iter().position(|&b| b == b'"')?;
        // etagc = %x21 / %x23-7E / obs-text
        if !inner[..close]
            .iter()
            .all(|&b| b == 0x21 || (0x23..=0x7e).contains(&b) || b >= 0x80)
        {
            return None;
        }
        let opaque = &quoted[..close + 2];
        Some((
            ListMember::Tag(EntityTag { weak, opaque }),
            &quoted[close + 2..],
        ))
    }
}

fn skip_ows(bytes: &[u8]) -> &[u8] {
    let start = bytes
        .iter()
        .position(|&b| b != b' ' && b != b'\t')
        .unwrap_or(bytes.len());
    &bytes[start..]
}

fn skip_separators(bytes: &[u8]) -> &[u8] {
    let start = bytes
        .iter()
        .position(|&b| b != b' ' && b != b'\t' && b != b',')
        .unwrap_or(bytes.len());
    &bytes[start..]
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    const ETAG: &str = "\"abc\"";
    /// 2025-01-01T00:00:00Z
    const MODIFIED: u64 = 1_735_689_600;
    const AT: &str = "Wed, 01 Jan 2025 00:00:00 GMT";
    const BEFORE: &str = "Tue, 31 Dec 2024 23:59:59 GMT";
    const AFTER: &str = "Wed, 01 Jan 2025 00:00:01 GMT";

    /// A header map with `fields` appended in order (a name twice is two field lines).
    pub(crate) fn header_map(fields: &[(http::HeaderName, &str)]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in fields {
            headers.append(name.clone(), HeaderValue::from_str(value).unwrap());
        }
        headers
    }

    fn eval_with(method: Method, fields: &[(http::HeaderName, &str)]) -> Precondition {
        let headers = header_map(fields);
        let v = Validators {
            etag: Some(ETAG),
            modified: Some(MODIFIED),
        };
        evaluate(&method, &headers, &v)
    }

    fn eval(fields: &[(http::HeaderName, &str)]) -> Precondition {
        eval_with(Method::GET, fields)
    }

    use Precondition::*;

    #[test]
    fn no_preconditions_proceed() {
        assert_eq!(eval(&[]), Proceed);
    }

    #[test]
    fn if_none_match_uses_weak_comparison_over_lists() {
        for (value, expected) in [
            ("\"abc\"", NotModified),
            ("W/\"abc\"", NotModified),
            ("\"x\", \"abc\"", NotModified),
            ("\"x\",W/\"abc\"", NotModified),
            ("*", NotModified),
            ("\"x\"", Proceed),
            ("\"ABC\"", Proceed),
            ("abc", Proceed),
            ("\"abc", Proceed),
            ("\"a,b\", \"abc\"", NotModified),
            ("", Proceed),
        ] {
            assert_eq!(
                eval(&[(IF_NONE_MATCH, value)]),
                expected,
                "If-None-Match: {value}"
            );
        }
    }

    #[test]
    fn if_none_match_lines_are_combined() {
        assert_eq!(
            eval(&[(IF_NONE_MATCH, "\"x\""), (IF_NONE_MATCH, "\"abc\"")]),
            NotModified
        );
    }

    #[test]
    fn a_list_with_a_syntax_error_anywhere_matches_nothing() {
        for value in [
            "\"abc\"garbage",
            "\"abc\", garbage",
            "W/\"abc\" \"x\"",
            "*junk",
        ] {
            assert_eq!(
                eval(&[(IF_NONE_MATCH, value)]),
                Proceed,
                "If-None-Match: {value}"
            );
            assert_eq!(eval(&[(IF_MATCH, value)]), Failed, "If-Match: {value}");
        }
        // Also when the bad part is another field line (one list, RFC 9110 §5.3).
        assert_eq!(
            eval(&[(IF_NONE_MATCH, ETAG), (IF_NONE_MATCH, "garbage")]),
            Proceed
        );
        assert_eq!(
            eval(&[(IF_NONE_MATCH, ETAG), (IF_NONE_MATCH, "\"x\"")]),
            NotModified
        );
    }

    #[test]
    fn if_none_match_on_unsafe_methods_fails_instead_of_304() {
        assert_eq!(eval_with(Method::POST, &[(IF_NONE_MATCH, "*")]), Failed);
        assert_eq!(
            eval_with(Method::HEAD, &[(IF_NONE_MATCH, "\"abc\"")]),
            NotModified
        );
    }

    #[test]
    fn if_match_uses_strong_comparison() {
        for (value, expected) in [
            ("\"abc\"", Proceed),
            ("*", Proceed),
            ("\"x\", \"abc\"", Proceed),
            ("W/\"abc\"", Failed),
            ("\"x\"", Failed),
            ("garbage", Failed),
        ] {
            assert_eq!(eval(&[(IF_MATCH, value)]), expected, "If-Match: {value}");
        }
    }

    #[test]
    fn if_unmodified_since_fails_only_when_modified_later() {
        assert_eq!(eval(&[(IF_UNMODIFIED_SINCE, AT)]), Proceed);
        assert_eq!(eval(&[(IF_UNMODIFIED_SINCE, AFTER)]), Proceed);
        assert_eq!(eval(&[(IF_UNMODIFIED_SINCE, BEFORE)]), Failed);
        assert_eq!(
            eval(&[(IF_UNMODIFIED_SINCE, "yesterday")]),
            Proceed,
            "invalid date is ignored"
        );
    }

    #[test]
    fn if_match_takes_precedence_over_if_unmodified_since() {
        assert_eq!(
            eval(&[(IF_MATCH, ETAG), (IF_UNMODIFIED_SINCE, BEFORE)]),
            Proceed
        );
    }

    #[test]
    fn if_modified_since_gives_304_when_not_modified_after_the_date() {
        assert_eq!(eval(&[(IF_MODIFIED_SINCE, AT)]), NotModified);
        assert_eq!(eval(&[(IF_MODIFIED_SINCE, AFTER)]), NotModified);
        assert_eq!(eval(&[(IF_MODIFIED_SINCE, BEFORE)]), Proceed);
        // The two obsolete HTTP-date forms are accepted too (RFC 9110 §5.6.7).
        assert_eq!(
            eval(&[(IF_MODIFIED_SINCE, "Wednesday, 01-Jan-25 00:00:00 GMT")]),
            NotModified
        );
        assert_eq!(
            eval(&[(IF_MODIFIED_SINCE, "Wed Jan  1 00:00:00 2025")]),
            NotModified
        );
    }

    #[test]
    fn if_modified_since_is_ignored_when_invalid_repeated_or_not_get() {
        assert_eq!(eval(&[(IF_MODIFIED_SINCE, "not a date")]), Proceed);
        assert_eq!(
            eval(&[(IF_MODIFIED_SINCE, AT), (IF_MODIFIED_SINCE, AT)]),
            Proceed
        );
        assert_eq!(eval_with(Method::POST, &[(IF_MODIFIED_SINCE, AT)]), Proceed);
    }

    #[test]
    fn if_none_match_wins_over_if_modified_since() {
        // A non-matching tag means modified, whatever the date says.
        assert_eq!(
            eval(&[(IF_NONE_MATCH, "\"x\""), (IF_MODIFIED_SINCE, AFTER)]),
            Proceed
        );
        assert_eq!(
            eval(&[(IF_NONE_MATCH, ETAG), (IF_MODIFIED_SINCE, BEFORE)]),
            NotModified
        );
    }

    #[test]
    fn failed_if_match_wins_over_matching_if_none_match() {
        assert_eq!(eval(&[(IF_MATCH, "\"x\""), (IF_NONE_MATCH, ETAG)]), Failed);
    }

    #[test]
    fn single_entity_tags_parse_exactly() {
        assert_eq!(
            EntityTag::from_bytes(b"W/\"a\""),
            Some(EntityTag {
                weak: true,
                opaque: b"\"a\""
            })
        );
        assert_eq!(EntityTag::from_bytes(b"\"a\" "), None);
        assert_eq!(EntityTag::from_bytes(b"*"), None);
        assert_eq!(EntityTag::from_bytes(b"\"a b\""), None);
    }
}
