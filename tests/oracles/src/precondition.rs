//! `If-Match` / `If-None-Match` lists and HTTP-dates (RFC 9110 §13.1, §5.6.7).

use std::time::{Duration, SystemTime};

use http::header::{
    IF_MATCH, IF_MODIFIED_SINCE, IF_NONE_MATCH, IF_RANGE, IF_UNMODIFIED_SINCE, RANGE,
};
use http::{HeaderMap, HeaderName, HeaderValue, Method};

use super::{
    Precondition, RangeSelection, entity_tag, evaluate_preconditions, field_lines, http_date,
    lines, select_ranges,
};

/// The ETag the lists are compared with when the input names none.
const ETAG: &str = "\"abc\"";

/// Fuzz target `entity_tags`: each line of `data` is one `If-None-Match` field line,
/// and the same lines are tried as `If-Match`.
///
/// - `If-None-Match` on GET gives 304 or proceeds, never 412; on POST a match gives 412.
/// - A strong match (`If-Match` proceeds) is also a weak match (`If-None-Match` → 304).
/// - A list with a syntax error in any line matches nothing (`If-None-Match` proceeds,
///   `If-Match` fails), even where a valid part names the ETag.
/// - When the list is valid (`*` alone, or entity-tags): an added field line holding
///   the ETag matches (unless the list is `*`); each
///   member's tag matches (weakly, and strongly when not weak), `*` matches anything,
///   and exactly the listed tags match.
/// - A single entity-tag parses back to the same bytes.
///
/// # Panics
/// When an invariant does not hold.
pub fn check_entity_tags(data: &[u8]) {
    let headers = field_lines(&IF_NONE_MATCH, lines(data));
    let values: Vec<&HeaderValue> = headers.get_all(IF_NONE_MATCH).iter().collect();
    let parsed: Vec<Option<Vec<Member<'_>>>> =
        values.iter().map(|v| list_members(v.as_bytes())).collect();
    // `"*" / #entity-tag` over all lines together (RFC 9110 §5.3, §13.1.1): a `*` must
    // be the only member.
    let count = parsed.iter().flatten().flatten().count();
    let has_star = parsed.iter().flatten().flatten().any(|m| *m == Member::Any);
    let all_valid = parsed.iter().all(Option::is_some) && !(has_star && count > 1);
    // The ETags compared with the lists: ours, and the listed tags (the first and last
    // eight of a long list: each comparison reads every line, so all of them would cost
    // the square of the list's length).
    let listed: Vec<&str> = parsed
        .iter()
        .flatten()
        .flatten()
        .filter_map(|member| match member {
            Member::Tag { opaque, .. } => std::str::from_utf8(opaque).ok(),
            Member::Any => None,
        })
        .collect();
    let mut etags: Vec<&str> = vec![ETAG];
    etags.extend(listed.iter().take(8));
    etags.extend(listed.iter().skip(8).rev().take(8));
    let as_if_match = with_name(&headers, &IF_NONE_MATCH, &IF_MATCH);
    for &etag in &etags {
        let none_match = evaluate_preconditions(&Method::GET, &headers, etag, 0);
        let if_match = evaluate_preconditions(&Method::GET, &as_if_match, etag, 0);
        // Formatted only when an assertion fails: lists can hold hundreds of tags.
        let context = Context {
            etag,
            values: &values,
        };
        assert_ne!(
            none_match,
            Precondition::Failed,
            "If-None-Match on GET, {context}"
        );
        assert_ne!(if_match, Precondition::NotModified, "If-Match, {context}");
        if if_match == Precondition::Proceed && !values.is_empty() {
            assert_eq!(
                none_match,
                Precondition::NotModified,
                "strong but not weak, {context}"
            );
        }
        let on_post = evaluate_preconditions(&Method::POST, &headers, etag, 0);
        let expected_post = match none_match {
            Precondition::NotModified => Precondition::Failed,
            other => other,
        };
        assert_eq!(on_post, expected_post, "If-None-Match on POST, {context}");

        if !all_valid {
            assert_eq!(
                none_match,
                Precondition::Proceed,
                "invalid If-None-Match, {context}"
            );
            assert_eq!(
                if_match,
                Precondition::Failed,
                "invalid If-Match, {context}"
            );
            continue;
        }
        if has_star {
            // A line added to `*` would make the list invalid.
            continue;
        }
        let mut with_etag = headers.clone();
        with_etag.append(IF_NONE_MATCH, HeaderValue::from_str(etag).unwrap());
        assert_eq!(
            evaluate_preconditions(&Method::GET, &with_etag, etag, 0),
            Precondition::NotModified,
            "an added line with the ETag, {context}"
        );
        let with_etag = with_name(&with_etag, &IF_NONE_MATCH, &IF_MATCH);
        assert_eq!(
            evaluate_preconditions(&Method::GET, &with_etag, etag, 0),
            Precondition::Proceed,
            "an added line with the ETag in If-Match, {context}"
        );

        let members = || parsed.iter().flatten().flatten();
        let weak = members().any(|m| m.matches(etag, false));
        let strong = members().any(|m| m.matches(etag, true));
        if weak {
            assert_eq!(none_match, Precondition::NotModified, "listed, {context}");
        }
        if strong {
            assert_eq!(if_match, Precondition::Proceed, "listed strong, {context}");
        }
        if all_valid {
            let expected = if weak {
                Precondition::NotModified
            } else {
                Precondition::Proceed
            };
            assert_eq!(none_match, expected, "valid If-None-Match, {context}");
            // An If-Match field that is present but lists nothing matching fails.
            let expected = if strong || values.is_empty() {
                Precondition::Proceed
            } else {
                Precondition::Failed
            };
            assert_eq!(if_match, expected, "valid If-Match, {context}");
        }
    }
    for value in &values {
        let bytes = value.as_bytes();
        if let Some(tag) = entity_tag(bytes) {
            let prefix: &[u8] = if tag.weak { b"W/" } else { b"" };
            assert_eq!([prefix, tag.opaque].concat(), bytes, "entity-tag {value:?}");
            assert!(
                matches!(list_members(bytes).as_deref(), Some([Member::Tag { .. }])),
                "{value:?} parsed as one entity-tag but is not one"
            );
        }
    }
}

/// What a failed assertion of [`check_entity_tags`] names: the ETag and the lines.
struct Context<'a> {
    etag: &'a str,
    values: &'a [&'a HeaderValue],
}

impl std::fmt::Display for Context<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "etag {}, lines {:?}", self.etag, self.values)
    }
}

/// A member of an `If-Match`/`If-None-Match` list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Member<'a> {
    Any,
    Tag { weak: bool, opaque: &'a [u8] },
}

impl Member<'_> {
    /// RFC 9110 §8.8.3.2: strong comparison needs both tags strong; weak ignores `W/`.
    fn matches(&self, etag: &str, strong: bool) -> bool {
        match *self {
            Member::Any => true,
            Member::Tag { weak, opaque } => opaque == etag.as_bytes() && !(strong && weak),
        }
    }
}

/// The members of one field line when the whole line is `"*"` or a list of entity-tags
/// (`1#entity-tag`, with the empty elements and OWS of RFC 9110 §5.6.1); `None` for
/// anything else. `entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE`,
/// `etagc = %x21 / %x23-7E / obs-text`.
fn list_members(line: &[u8]) -> Option<Vec<Member<'_>>> {
    if super::trim_ows(line) == b"*" {
        return Some(vec![Member::Any]);
    }
    let is_etagc = |b: u8| b == 0x21 || (0x23..=0x7e).contains(&b) || b >= 0x80;
    let mut members = Vec::new();
    let mut i = 0;
    let mut need_separator = false;
    while i < line.len() {
        match line[i] {
            b' ' | b'\t' => i += 1,
            b',' => {
                need_separator = false;
                i += 1;
            }
            _ if need_separator => return None,
            _ => {
                let weak = line[i..].starts_with(b"W/");
                if weak {
                    i += 2;
                }
                if line.get(i) != Some(&b'"') {
                    return None;
                }
                let open = i;
                i += 1;
                while line.get(i).is_some_and(|&b| is_etagc(b)) {
                    i += 1;
                }
                if line.get(i) != Some(&b'"') {
                    return None;
                }
                i += 1;
                members.push(Member::Tag {
                    weak,
                    opaque: &line[open..i],
                });
                need_separator = true;
            }
        }
    }
    Some(members)
}

/// `headers` with the field `from` renamed to `to`.
fn with_name(headers: &HeaderMap, from: &HeaderName, to: &HeaderName) -> HeaderMap {
    let mut out = HeaderMap::new();
    for value in headers.get_all(from) {
        out.append(to.clone(), value.clone());
    }
    out
}

/// Fuzz target `http_date`: `data` is one date field value (`If-Modified-Since`,
/// `If-Unmodified-Since`, `If-Range`); its first 8 bytes are also read as a time.
///
/// - A value that parses is a whole second from 1970 to 9999, and its three forms
///   (IMF-fixdate, RFC 850, asctime) written back parse to the same time.
/// - `If-Modified-Since`/`If-Unmodified-Since` compare it with `Last-Modified` at one
///   second resolution (304 / 412 exactly when the RFC says); `If-Range` holds only for
///   the exact date. A value that does not parse, or a repeated field, is ignored.
/// - Any time from 1970 to 9999 written in the three forms parses back to itself.
///
/// # Panics
/// When an invariant does not hold.
pub fn check_http_date(data: &[u8]) {
    let mut seed = [0u8; 8];
    for (slot, byte) in seed.iter_mut().zip(data) {
        *slot = *byte;
    }
    // Up to the last second of 9999, the last year HTTP-dates can write.
    let secs = u64::from_le_bytes(seed) % 253_402_300_800;
    check_written_forms(SystemTime::UNIX_EPOCH + Duration::from_secs(secs));

    let Ok(value) = HeaderValue::from_bytes(data) else {
        return;
    };
    let one = |name: HeaderName| {
        let mut headers = HeaderMap::new();
        headers.insert(name, value.clone());
        headers
    };
    let parsed = http_date(&one(IF_MODIFIED_SINCE), &IF_MODIFIED_SINCE);
    let mut twice = one(IF_MODIFIED_SINCE);
    twice.append(IF_MODIFIED_SINCE, value.clone());
    assert_eq!(
        http_date(&twice, &IF_MODIFIED_SINCE),
        None,
        "a repeated field is ignored"
    );
    let modified_since = one(IF_MODIFIED_SINCE);
    let unmodified_since = one(IF_UNMODIFIED_SINCE);
    let mut if_range = one(IF_RANGE);
    if_range.insert(RANGE, HeaderValue::from_static("bytes=0-0"));
    let eval = |headers: &HeaderMap, modified| {
        evaluate_preconditions(&Method::GET, headers, ETAG, modified)
    };
    let Some(date) = parsed else {
        for modified in [0, 1_735_689_600, u64::from(u32::MAX)] {
            assert_eq!(
                eval(&modified_since, modified),
                Precondition::Proceed,
                "{value:?}"
            );
            assert_eq!(
                eval(&unmodified_since, modified),
                Precondition::Proceed,
                "{value:?}"
            );
        }
        return;
    };
    let since = date.duration_since(SystemTime::UNIX_EPOCH).unwrap();
    assert_eq!(
        since.subsec_nanos(),
        0,
        "{value:?} has no fraction of a second"
    );
    check_written_forms(date);
    let at = since.as_secs();
    assert_eq!(
        eval(&modified_since, at),
        Precondition::NotModified,
        "{value:?}"
    );
    assert_eq!(
        eval(&modified_since, at + 1),
        Precondition::Proceed,
        "{value:?}"
    );
    assert_eq!(
        eval(&unmodified_since, at),
        Precondition::Proceed,
        "{value:?}"
    );
    assert_eq!(
        eval(&unmodified_since, at + 1),
        Precondition::Failed,
        "{value:?}"
    );
    if at > 0 {
        assert_eq!(
            eval(&modified_since, at - 1),
            Precondition::NotModified,
            "{value:?}"
        );
        assert_eq!(
            eval(&unmodified_since, at - 1),
            Precondition::Proceed,
            "{value:?}"
        );
    }
    let range = |modified| select_ranges(&Method::GET, &if_range, ETAG, modified, 10);
    assert!(
        matches!(range(at), RangeSelection::Single(_)),
        "If-Range {value:?}"
    );
    assert_eq!(range(at + 1), RangeSelection::Full, "If-Range {value:?}");
}

/// `time` written as IMF-fixdate, RFC 850 (years 1970-2069 only: two digits, read as
/// 19xx from 70) and asctime parses back to `time`, as one `If-Modified-Since` value.
fn check_written_forms(time: SystemTime) {
    let imf = httpdate::fmt_http_date(time);
    // `Sun, 06 Nov 1994 08:49:37 GMT`: day name, day, month, year, time of day.
    let (day_name, day, month, year, clock) = (
        &imf[0..3],
        &imf[5..7],
        &imf[8..11],
        &imf[12..16],
        &imf[17..25],
    );
    let long_day = match day_name {
        "Mon" => "Monday",
        "Tue" => "Tuesday",
        "Wed" => "Wednesday",
        "Thu" => "Thursday",
        "Fri" => "Friday",
        "Sat" => "Saturday",
        _ => "Sunday",
    };
    let asctime_day = day
        .strip_prefix('0')
        .map_or(day.to_owned(), |d| format!(" {d}"));
    let mut forms = vec![
        imf.clone(),
        format!("{day_name} {month} {asctime_day} {clock} {year}"),
    ];
    if ("1970".."2070").contains(&year) {
        forms.push(format!(
            "{long_day}, {day}-{month}-{} {clock} GMT",
            &year[2..]
        ));
    }
    for form in forms {
        let mut headers = HeaderMap::new();
        headers.insert(IF_MODIFIED_SINCE, HeaderValue::from_str(&form).unwrap());
        assert_eq!(
            http_date(&headers, &IF_MODIFIED_SINCE),
            Some(time),
            "{form:?} written for {imf}"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_lists_are_read_whole_and_others_not_at_all() {
        assert_eq!(
            list_members(b" \"a\" ,, W/\"b\","),
            Some(vec![
                Member::Tag {
                    weak: false,
                    opaque: b"\"a\""
                },
                Member::Tag {
                    weak: true,
                    opaque: b"\"b\""
                },
            ])
        );
        assert_eq!(list_members(b"*"), Some(vec![Member::Any]));
        assert_eq!(list_members(b""), Some(vec![]));
        for invalid in [
            &b"\"a\" \"b\""[..],
            b"\"a",
            b"a",
            b"\"a b\"",
            b"w/\"a\"",
            b"*, \"a\"",
        ] {
            assert_eq!(list_members(invalid), None, "{invalid:?}");
        }
    }

    #[test]
    fn the_seed_forms_hold() {
        check_entity_tags(b"\"abc\"\nW/\"x\", \"y\"\n*");
        check_http_date(b"Wed, 01 Jan 2025 00:00:00 GMT");
        check_http_date(b"Sunday, 06-Nov-94 08:49:37 GMT");
        check_http_date(b"Sun Nov  6 08:49:37 1994");
        check_http_date(b"Fri, 31 Dec 9999 23:59:59 GMT");
        check_http_date(&[0xff; 8]);
    }
}
