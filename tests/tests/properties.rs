//! Properties of the pure HTTP decisions (negotiation, preconditions, ranges, dates,
//! paths) over generated inputs, and of whole answers over generated requests.

use std::time::{Duration, SystemTime};

use embed_assets::__private::fuzz::{
    ByteRange, Encoding, Precondition, RangeSelection, choose_encoding, decode_path,
    evaluate_preconditions, http_date, parse_quality, select_ranges,
};
use embed_assets_oracles as oracles;
use http::header::{ACCEPT_ENCODING, IF_MATCH, IF_MODIFIED_SINCE, IF_NONE_MATCH, RANGE};
use http::{HeaderMap, HeaderName, HeaderValue, Method};
use proptest::prelude::*;
use proptest::sample::select;

const ETAG: &str = "\"0123456789abcdef\"";
const MODIFIED: u64 = 1_735_689_600;

/// A header map with one `name` field line per item of `lines`.
fn headers(name: HeaderName, lines: impl IntoIterator<Item = impl AsRef<str>>) -> HeaderMap {
    let mut map = HeaderMap::new();
    for line in lines {
        map.append(name.clone(), HeaderValue::from_str(line.as_ref()).unwrap());
    }
    map
}

/// A qvalue in thousandths, written with `digits` decimals (0-3) where the value
/// allows, or as `1.`/`0.` for 4.
fn qvalue_text(q: u16, digits: usize) -> String {
    let (int, thousandths) = if q >= 1000 { ("1", 0) } else { ("0", q) };
    let fraction = format!("{thousandths:03}");
    let shown = fraction.trim_end_matches('0').len().max(digits.min(3));
    match (shown, digits) {
        (0, 4) => format!("{int}."),
        (0, _) => int.to_owned(),
        _ => format!("{int}.{}", &fraction[..shown]),
    }
}

fn qvalue() -> impl Strategy<Value = u16> {
    prop_oneof![Just(0u16), Just(1000u16), 0u16..=1000, Just(1u16)]
}

/// `token;q=…` in either case and with optional spaces: `GZIP ; q=0.5`.
fn member(token: &str, q: u16, upper: bool, spaced: bool, digits: usize) -> String {
    let token = if upper {
        token.to_ascii_uppercase()
    } else {
        token.to_owned()
    };
    let space = if spaced { " " } else { "" };
    format!("{token}{space};{space}q={}", qvalue_text(q, digits))
}

proptest! {
    #[test]
    fn qvalues_in_every_valid_form_parse_to_their_value(q in 0u16..=1000, digits in 0usize..5) {
        let text = qvalue_text(q, digits);
        prop_assert_eq!(parse_quality(text.as_bytes()), Some(q), "q={}", text);
    }

    #[test]
    fn the_highest_weighted_stored_coding_wins_with_br_zstd_gzip_identity_ties(
        br in proptest::option::of(qvalue()),
        zstd in proptest::option::of(qvalue()),
        gzip in proptest::option::of(qvalue()),
        identity in proptest::option::of(qvalue()),
        any in proptest::option::of(qvalue()),
        order in Just(vec![0usize, 1, 2, 3, 4]).prop_shuffle(),
        style in any::<(bool, bool, usize, bool)>(),
        stored in any::<(bool, bool, bool)>(),
    ) {
        let (upper, spaced, digits, split) = style;
        let (gzip_stored, br_stored, zstd_stored) = stored;
        let listed = [("br", br), ("gzip", gzip), ("identity", identity), ("*", any), ("zstd", zstd)];
        let members: Vec<String> = order
            .iter()
            .filter_map(|&i| listed[i].1.map(|q| member(listed[i].0, q, upper, spaced, digits % 5)))
            .collect();
        // One field line, or one line per member: the same list (RFC 9110 §5.3).
        let lines = if split { members.clone() } else { vec![members.join(", ")] };
        let offered: Vec<Encoding> = [(br_stored, Encoding::Brotli), (zstd_stored, Encoding::Zstd), (gzip_stored, Encoding::Gzip)]
            .into_iter()
            .filter_map(|(stored, encoding)| stored.then_some(encoding))
            .collect();
        let chosen = choose_encoding(&headers(ACCEPT_ENCODING, &lines), &offered);

        let weight = |listed: Option<u16>| listed.or(any).unwrap_or(0);
        let mut expected = (identity.or(any).unwrap_or(1), Encoding::Identity);
        // From least to most preferred, so `>=` lets the preferred win a tie.
        for (stored, q, encoding) in [(gzip_stored, weight(gzip), Encoding::Gzip), (zstd_stored, weight(zstd), Encoding::Zstd), (br_stored, weight(br), Encoding::Brotli)] {
            if stored && q > 0 && q >= expected.0 {
                expected = (q, encoding);
            }
        }
        prop_assert_eq!(chosen, expected.1, "Accept-Encoding: {:?}", lines);
        match chosen {
            Encoding::Brotli => prop_assert!(br_stored && weight(br) > 0),
            Encoding::Gzip => prop_assert!(gzip_stored && weight(gzip) > 0),
            Encoding::Zstd => prop_assert!(zstd_stored && weight(zstd) > 0),
            _ => {}
        }
    }

    #[test]
    fn a_list_holding_the_etag_anywhere_matches_if_none_match(
        others in proptest::collection::vec("[a-z0-9]{0,8}", 0..6),
        position in any::<prop::sample::Index>(),
        weak in any::<bool>(),
        others_weak in any::<bool>(),
        spaced in any::<bool>(),
    ) {
        let mut tags: Vec<String> = others
            .iter()
            .map(|tag| format!("{}\"x{tag}\"", if others_weak { "W/" } else { "" }))
            .collect();
        tags.insert(position.index(tags.len() + 1), format!("{}{ETAG}", if weak { "W/" } else { "" }));
        let list = tags.join(if spaced { " , " } else { "," });
        let none_match = headers(IF_NONE_MATCH, [&list]);
        prop_assert_eq!(
            evaluate_preconditions(&Method::GET, &none_match, ETAG, MODIFIED),
            Precondition::NotModified,
            "If-None-Match: {}", list
        );
        prop_assert_eq!(
            evaluate_preconditions(&Method::HEAD, &none_match, ETAG, MODIFIED),
            Precondition::NotModified
        );
        // If-Match compares strongly: a weak tag never matches.
        let if_match = headers(IF_MATCH, [&list]);
        let expected = if weak { Precondition::Failed } else { Precondition::Proceed };
        prop_assert_eq!(
            evaluate_preconditions(&Method::GET, &if_match, ETAG, MODIFIED),
            expected,
            "If-Match: {}", list
        );
        tags.retain(|tag| !tag.ends_with(ETAG));
        let without = headers(IF_NONE_MATCH, [tags.join(",")]);
        prop_assert_eq!(
            evaluate_preconditions(&Method::GET, &without, ETAG, MODIFIED),
            Precondition::Proceed
        );
    }

    #[test]
    fn every_http_date_form_reads_back_to_its_time(secs in 0u64..253_402_300_800) {
        let time = SystemTime::UNIX_EPOCH + Duration::from_secs(secs);
        for form in http_date_forms(secs) {
            let map = headers(IF_MODIFIED_SINCE, [&form]);
            prop_assert_eq!(http_date(&map, &IF_MODIFIED_SINCE), Some(time), "{}", form);
            prop_assert_eq!(
                evaluate_preconditions(&Method::GET, &map, ETAG, secs),
                Precondition::NotModified
            );
            prop_assert_eq!(
                evaluate_preconditions(&Method::GET, &map, ETAG, secs + 1),
                Precondition::Proceed
            );
        }
    }

    #[test]
    fn valid_ranges_stay_inside_and_are_satisfiable_exactly_when_they_start_inside(
        len in prop_oneof![Just(0u64), 1u64..64, 0u64..1_000_000],
        specs in proptest::collection::vec(range_spec(), 1..6),
    ) {
        let value = format!(
            "bytes={}",
            specs.iter().map(Spec::to_string).collect::<Vec<_>>().join(", ")
        );
        let map = headers(RANGE, [&value]);
        let selection = select_ranges(&Method::GET, &map, ETAG, MODIFIED, len);
        let satisfiable: Vec<ByteRange> = specs.iter().filter_map(|spec| spec.resolve(len)).collect();
        let inside = |r: &ByteRange| r.start <= r.end && r.end < len;
        match &selection {
            RangeSelection::Unsatisfiable => prop_assert!(satisfiable.is_empty(), "{}", value),
            RangeSelection::Single(range) => {
                prop_assert!(inside(range));
                prop_assert_eq!(&satisfiable, &vec![*range], "{} of {}", value, len);
            }
            RangeSelection::Multiple(ranges) => {
                prop_assert!(ranges.iter().all(inside));
                prop_assert_eq!(&satisfiable, ranges, "{} of {}", value, len);
            }
            RangeSelection::Full => {
                // Only several ranges adding up to more than the body are refused.
                let total: u64 = satisfiable.iter().map(|r| r.end - r.start + 1).sum();
                prop_assert!(satisfiable.len() > 1 && total > len, "{} of {}", value, len);
            }
        }
    }

    #[test]
    fn decoded_paths_never_hold_traversal_backslashes_or_control_characters(
        raw in proptest::collection::vec(
            select(vec!["/", ".", "..", "%2e", "%2E", "%2f", "%5c", "\\", "%00", "%0a", "%7f",
                        "%c3%a9", "%ff", "%25", "%", "a", "b.txt", "%20", "~", "é"]),
            0..10,
        ),
    ) {
        let raw = raw.concat();
        let path = format!("/{raw}");
        for candidate in [raw.as_str(), path.as_str()] {
            if let Some(decoded) = decode_path(candidate) {
                prop_assert!(decoded.starts_with('/'), "{:?}", candidate);
                prop_assert!(!decoded.contains('\\') && !decoded.contains(char::is_control));
                prop_assert!(
                    decoded.split('/').all(|segment| segment != ".." && segment != "."),
                    "{:?} → {:?}", candidate, decoded
                );
            }
        }
    }

    #[test]
    fn every_adapter_hands_on_the_raw_rest_below_its_mount_point(
        mount in proptest::collection::vec(
            select(vec!["/static", "/st%61tic", "/v1", "//assets", "/caf%C3%A9", "/a%20b",
                        "/%25", "/%2e%2e"]),
            0..3,
        ),
        rest in proptest::collection::vec(
            select(vec!["/", "//", "a", "app.css", "%2e%2e", "%2F", "%252e", "%c0", "%C3%A9",
                        "%20", "*", "~"]),
            0..6,
        ),
    ) {
        let rest = rest.concat();
        let rest = if rest.is_empty() || rest.starts_with('/') { rest } else { format!("/{rest}") };
        oracles::check_mount(format!("{}\n{rest}", mount.concat()).as_bytes());
    }

    #[test]
    fn generated_requests_get_the_answer_the_decisions_give(
        method in select(vec!["GET", "GET", "GET", "HEAD", "POST", "DELETE"]),
        path in select(vec![
            "/", "/index.html", "/css/site.css", "/bytes.png", "/docs", "/docs/", "/docs/guide.txt",
            "/tiny.txt", "/empty.txt", "/caf%C3%A9.txt", "/with%20space.txt", "/.secret",
            "/%2e%2e/fixture/.secret", "/nope", "/css/", "/css",
        ]),
        accept in proptest::option::of(select(vec![
            "gzip, deflate, br", "gzip", "br;q=0, gzip", "identity;q=0", "*;q=0", "br;q=0.5, gzip;q=0.6",
        ])),
        range in proptest::option::of(prop_oneof![
            proptest::collection::vec(range_spec(), 1..4)
                .prop_map(|specs| format!("bytes={}", specs.iter().map(Spec::to_string).collect::<Vec<_>>().join(","))),
            Just("bytes=0-0,0-0,0-0".to_owned()),
        ]),
        condition in proptest::option::of(select(vec![
            "if-none-match: *", "if-match: \"nope\"", "if-match: *",
            "if-modified-since: Fri, 31 Dec 9999 23:59:59 GMT",
            "if-unmodified-since: Thu, 01 Jan 1970 00:00:00 GMT",
            "if-range: \"nope\"",
        ])),
    ) {
        let mut request = format!("{method} {path}");
        if let Some(accept) = accept {
            request.push_str(&format!("\naccept-encoding: {accept}"));
        }
        if let Some(range) = range {
            request.push_str(&format!("\nrange: {range}"));
        }
        if let Some(condition) = condition {
            request.push_str(&format!("\n{condition}"));
        }
        oracles::check_response(&SERVICES, request.as_bytes());
    }
}

oracles::fixture!(static SERVICES = "../fuzz/fixture");

/// A valid `range-spec` (RFC 9110 §14.1.1).
#[derive(Debug, Clone, Copy)]
enum Spec {
    FromTo(u64, Option<u64>),
    Suffix(u64),
}

impl Spec {
    /// RFC 9110 §14.1.2: the bytes it selects in `len`, `None` when unsatisfiable.
    fn resolve(self, len: u64) -> Option<ByteRange> {
        match self {
            Spec::FromTo(first, last) if first < len => Some(ByteRange {
                start: first,
                end: last.map_or(len - 1, |last| last.min(len - 1)),
            }),
            Spec::Suffix(n) if n > 0 && len > 0 => Some(ByteRange {
                start: len - n.min(len),
                end: len - 1,
            }),
            _ => None,
        }
    }
}

impl std::fmt::Display for Spec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Spec::FromTo(first, Some(last)) => write!(f, "{first}-{last}"),
            Spec::FromTo(first, None) => write!(f, "{first}-"),
            Spec::Suffix(n) => write!(f, "-{n}"),
        }
    }
}

fn range_spec() -> impl Strategy<Value = Spec> {
    let position = prop_oneof![0u64..300, 0u64..2_000_000];
    prop_oneof![
        (position.clone(), proptest::option::of(0u64..2_000_000))
            .prop_map(|(first, extra)| Spec::FromTo(first, extra.map(|extra| first + extra))),
        position.prop_map(Spec::Suffix),
    ]
}

/// `secs` after the epoch as IMF-fixdate, asctime and (for 1970-2069, whose two-digit
/// years read back unambiguously) RFC 850.
fn http_date_forms(secs: u64) -> Vec<String> {
    use integration_tests::{DateForm, format_http_date};
    let time = std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs);
    let mut forms = vec![
        format_http_date(time, DateForm::ImfFixdate),
        format_http_date(time, DateForm::Asctime),
    ];
    // 2070-01-01T00:00:00Z
    if secs < 3_155_760_000 {
        forms.push(format_http_date(time, DateForm::Rfc850));
    }
    forms
}
