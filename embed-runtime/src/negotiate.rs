//! `Accept-Encoding` and `Available-Dictionary` → which stored body to send (RFC 9110
//! §12.5.3, RFC 9842 §2.2): the whole choice, dictionary bodies included. Codings are
//! data here (`coding::CODINGS`): nothing below names one, but identity.

use std::cell::RefCell;
use std::sync::LazyLock;

use http::header::{ACCEPT, ACCEPT_ENCODING, GetAll};
use http::{HeaderMap, HeaderName, HeaderValue};

use crate::asset::{NO_BODY, Variant};
use crate::coding::{CODINGS, Encoding};

/// The stored body a request gets among an asset's `bodies` (`Asset::bodies`: identity
/// last), and its place in that list: negotiated from `Accept-Encoding`, and from
/// `Available-Dictionary` where the asset has bodies compressed against earlier
/// versions of it (RFC 9842 §2.2: only a body whose dictionary the request names is a
/// candidate).
pub(crate) fn select_variant(
    bodies: &'static [Variant],
    headers: &HeaderMap,
) -> (usize, &'static Variant) {
    let [encoded @ .., identity] = bodies else {
        return (0, &NO_BODY);
    };
    if encoded.is_empty() {
        return (0, identity);
    }
    // The bodies' fields, read here as the table holds them.
    let named = match encoded.first().and_then(|body| body.dictionary) {
        Some(_) => available_dictionary(headers),
        None => None,
    };
    let offered = encoded.iter().enumerate().filter_map(|(index, body)| {
        let usable = match body.dictionary {
            Some(dictionary) => named == Some(dictionary.as_bytes()),
            None => true,
        };
        usable.then_some((index, body.encoding))
    });
    let index = match choose(headers.get_all(ACCEPT_ENCODING), offered) {
        Some((index, _)) => index,
        None => encoded.len(),
    };
    (index, &bodies[index])
}

/// A q-value scaled to an integer: `q=0.5` is 500, `q=1` is 1000 (RFC 9110 §12.4.2).
pub(crate) type Quality = u16;

/// The weight the client gave each coding the server knows, by its place in
/// [`CODINGS`]: as listed, else the `*` weight, else 0; a dictionary coding only as
/// listed by name, never through `*` (it needs the dictionary the request names, which
/// the caller checked); identity, when neither listed nor covered by `*`, 1: acceptable,
/// ranked just above zero, below every listed coding. Resolved once per field line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Preferences {
    weights: [Quality; CODINGS.len()],
}

impl Preferences {
    /// What no field line, or an empty one, says.
    const NONE: Preferences = {
        let mut weights = [0; CODINGS.len()];
        weights[Encoding::Identity.index()] = 1;
        Preferences { weights }
    };

    /// The weight of `encoding`. (`as usize`: its place in `CODINGS`, as
    /// `Encoding::index` gives it.)
    fn quality(&self, encoding: Encoding) -> Quality {
        self.weights[encoding as usize]
    }

    /// The weights of codings `listed` by name, and of those `*` covers (`any`).
    fn resolve(listed: [Option<Quality>; CODINGS.len()], any: Option<Quality>) -> Self {
        let mut weights = [0; CODINGS.len()];
        for ((weight, listed), coding) in weights.iter_mut().zip(listed).zip(&CODINGS) {
            let unlisted = if coding.encoding == Encoding::Identity {
                Some(1)
            } else {
                None
            };
            *weight = match coding.needs_dictionary {
                true => listed.unwrap_or(0),
                false => listed.or(any).or(unlisted).unwrap_or(0),
            };
        }
        Preferences { weights }
    }
}

/// Picks the body to send among `offered`: the stored bodies other than identity, each
/// with its coding. `None` means identity.
///
/// - No `Accept-Encoding` field: identity. RFC 9110 allows any coding then, but clients
///   that send nothing (scripts, old tools) rarely decode anything.
/// - Otherwise each offered coding gets its listed q-value, else the `*` q-value, else
///   0 (for identity: acceptable, but ranked below every listed coding). The highest
///   q wins; ties go to the server's preference (`Encoding`'s order: a dictionary
///   coding, br, zstd, gzip, identity), then to the first offered in that coding.
/// - The dictionary codings (RFC 9842) only when listed by name, never through `*`.
/// - Codings are case-insensitive, `x-gzip` is `gzip` (RFC 9110 §8.4.1.3), repeated
///   field lines are one list, and members with an invalid q-value are ignored.
/// - When nothing offered is acceptable (`identity;q=0` with no other match), the
///   preference is disregarded and identity is sent, as §12.1 permits, rather than 406:
///   a page that renders beats an error a browser shows raw.
pub(crate) fn choose<T>(
    accept: GetAll<'_, HeaderValue>,
    offered: impl IntoIterator<Item = (T, Encoding)>,
) -> Option<(T, Encoding)> {
    let mut lines = accept.iter().peekable();
    lines.peek()?;
    let prefs = match (lines.next(), lines.peek()) {
        (Some(line), None) => {
            common(line.as_bytes()).unwrap_or_else(|| remembered(line.as_bytes()))
        }
        (first, _) => parse(first.into_iter().chain(lines).map(HeaderValue::as_bytes)),
    };
    let mut best: Option<(Quality, Encoding, T)> = None;
    for (body, encoding) in offered {
        let q = prefs.quality(encoding);
        // A tie goes to the preferred coding, then to the first offered of it.
        let better = |&(top, preferred, _): &(Quality, Encoding, T)| {
            q > top || (q == top && encoding < preferred)
        };
        if q > 0 && best.as_ref().is_none_or(better) {
            best = Some((q, encoding, body));
        }
    }
    best.filter(|(q, _, _)| *q >= prefs.quality(Encoding::Identity))
        .map(|(_, encoding, body)| (body, encoding))
}

/// The coding `choose` picks when the asset has a body in each of `stored` (and in
/// identity), dictionary bodies against the dictionary the request names: codings in
/// the server's order of preference. For the fuzz targets and the tests.
#[cfg(any(test, embed_assets_unstable_fuzz))]
pub(crate) fn choose_encoding(accept: GetAll<'_, HeaderValue>, stored: &[Encoding]) -> Encoding {
    let offered = Encoding::ALL
        .into_iter()
        .filter(|&encoding| encoding != Encoding::Identity && stored.contains(&encoding))
        .map(|encoding| (encoding, encoding));
    choose(accept, offered).map_or(Encoding::Identity, |(encoding, _)| encoding)
}

/// What browsers send, known without parsing: Chrome and Edge (with a dictionary for
/// the URL too, RFC 9842), then Firefox and Safari, then common clients; each parsed
/// once, on first use.
fn common(line: &[u8]) -> Option<Preferences> {
    const LINES: [&[u8]; 7] = [
        b"gzip, deflate, br, zstd",
        b"gzip, deflate, br, zstd, dcb, dcz",
        b"gzip, deflate, br",
        b"br, gzip",
        b"gzip, br",
        b"gzip, deflate",
        b"gzip",
    ];
    static PARSED: LazyLock<[Preferences; LINES.len()]> =
        LazyLock::new(|| LINES.map(|line| parse([line])));
    let index = LINES.iter().position(|common| *common == line)?;
    Some(PARSED[index])
}

/// [`parse`] of one line, remembered: the line this thread parsed last and what it
/// said. A client sends the same `Accept-Encoding` on each of its requests, so a line
/// that is not [`common`] is parsed once for a run of requests that repeat it.
fn remembered(line: &[u8]) -> Preferences {
    /// Longer lines are parsed each time rather than copied.
    const REMEMBERED: usize = 128;
    thread_local! {
        // `parse` of the empty line is `NONE`: the first state is a true entry.
        static LAST: RefCell<(Vec<u8>, Preferences)> =
            const { RefCell::new((Vec::new(), Preferences::NONE)) };
    }
    if line.len() > REMEMBERED {
        return parse([line]);
    }
    LAST.with_borrow_mut(|(last, prefs)| {
        if last.as_slice() != line {
            *prefs = parse([line]);
            last.clear();
            last.extend_from_slice(line);
        }
        *prefs
    })
}

fn parse<'a>(lines: impl IntoIterator<Item = &'a [u8]>) -> Preferences {
    let mut listed: [Option<Quality>; CODINGS.len()] = [None; CODINGS.len()];
    let mut any: Option<Quality> = None;
    for member in lines
        .into_iter()
        .flat_map(|line| line.split(|&b| b == b','))
    {
        let mut parts = member.split(|&b| b == b';');
        let coding = trim(parts.next().unwrap_or_default());
        if coding.is_empty() {
            continue;
        }
        let mut q = Some(1000);
        for param in parts {
            let param = trim(param);
            if let Some(value) = param
                .strip_prefix(b"q=")
                .or_else(|| param.strip_prefix(b"Q="))
            {
                q = parse_quality(value);
            }
        }
        let Some(q) = q else { continue };
        let slot = match Encoding::from_token(coding) {
            Some(encoding) => &mut listed[encoding.index()],
            None if coding == b"*" => &mut any,
            None => continue,
        };
        // A coding listed twice keeps its highest weight.
        *slot = Some(slot.map_or(q, |old| old.max(q)));
    }
    Preferences::resolve(listed, any)
}

/// RFC 9842 §2.2: the request field naming the dictionary the client has.
pub(crate) const AVAILABLE_DICTIONARY: HeaderName = HeaderName::from_static("available-dictionary");

/// The dictionary the request names in its one `Available-Dictionary` field line, as
/// sent (a structured-field byte sequence, `:base64:`, which has one spelling per
/// hash), without surrounding whitespace; `None` without the field or with two lines
/// (the field is a single byte sequence, so neither is trusted).
pub(crate) fn available_dictionary(headers: &HeaderMap) -> Option<&[u8]> {
    let mut lines = headers.get_all(AVAILABLE_DICTIONARY).iter();
    match (lines.next(), lines.next()) {
        (Some(line), None) => Some(trim(line.as_bytes())),
        _ => None,
    }
}

/// Whether the client asks for an HTML page: `Accept` lists `text/html` with a q-value
/// above zero (RFC 9110 §12.5.1). Browsers navigating send it; `fetch()` and `<img>`
/// (`*/*`, `image/*`) do not, so a missing script or image still gets its 404.
pub(crate) fn accepts_html(headers: &HeaderMap) -> bool {
    headers
        .get_all(ACCEPT)
        .iter()
        .flat_map(|line| line.as_bytes().split(|&b| b == b','))
        .any(|member| {
            let mut parts = member.split(|&b| b == b';');
            let range = trim(parts.next().unwrap_or_default());
            range.eq_ignore_ascii_case(b"text/html")
                && parts.all(|param| {
                    let param = trim(param);
                    match param
                        .strip_prefix(b"q=")
                        .or_else(|| param.strip_prefix(b"Q="))
                    {
                        Some(q) => parse_quality(q).is_some_and(|q| q > 0),
                        None => true,
                    }
                })
        })
}

/// `qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )` (RFC 9110 §12.4.2).
pub(crate) fn parse_quality(value: &[u8]) -> Option<Quality> {
    let (int, frac) = match value {
        [int] => (*int, &[][..]),
        [int, b'.', frac @ ..] if frac.len() <= 3 => (*int, frac),
        _ => return None,
    };
    if !frac.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut thousandths: Quality = 0;
    for i in 0..3 {
        let digit = frac.get(i).map_or(0, |d| Quality::from(d - b'0'));
        thousandths = thousandths * 10 + digit;
    }
    match int {
        b'0' => Some(thousandths),
        b'1' if thousandths == 0 => Some(1000),
        _ => None,
    }
}

fn trim(bytes: &[u8]) -> &[u8] {
    let is_ows = |b: &u8| *b == b' ' || *b == b'\t';
    let start = bytes.iter().position(|b| !is_ows(b)).unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|b| !is_ows(b))
        .map_or(start, |i| i + 1);
    &bytes[start..end]
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderMap;
    use http::header::ACCEPT_ENCODING;

    /// `choose_encoding` with br and gzip on offer, one field line per `lines` entry.
    fn choose_lines(lines: &[&str]) -> Encoding {
        choose_from(lines, &[Encoding::Brotli, Encoding::Gzip])
    }

    /// `choose_encoding` with `stored` on offer (and identity, always).
    fn choose_from(lines: &[&str], stored: &[Encoding]) -> Encoding {
        let mut headers = HeaderMap::new();
        for line in lines {
            headers.append(ACCEPT_ENCODING, HeaderValue::from_str(line).unwrap());
        }
        choose_encoding(headers.get_all(ACCEPT_ENCODING), stored)
    }

    #[test]
    fn a_remembered_line_says_what_parsing_it_says() {
        let long = "gzip;q=0.5, ".repeat(20) + "br";
        let lines: [&[u8]; 7] = [
            b"br;q=1, gzip;q=0.8",
            b"gzip;q=0",
            b"",
            b"*;q=0.5, identity;q=0",
            b"br;q=1, gzip;q=0.8",
            b"br;q=1, gzip;q=0.9",
            long.as_bytes(),
        ];
        // Repeated, alternated and back again: each answer is the line's own.
        for line in lines.iter().chain(lines.iter().rev()).chain(&lines) {
            assert_eq!(remembered(line), parse([*line]), "{line:?}");
            assert_eq!(remembered(line), parse([*line]), "{line:?} again");
        }
        assert_ne!(remembered(lines[0]), remembered(lines[5]));
    }

    #[test]
    fn common_lines_are_known_as_written_and_nothing_else() {
        use Encoding::*;
        let listed = |prefs: Preferences| -> Vec<Encoding> {
            Encoding::ALL
                .into_iter()
                .filter(|&e| prefs.quality(e) == 1000)
                .collect()
        };
        // What each line lists of the codings the server stores (`deflate`, which
        // browsers list too, is not among them).
        let chrome = listed(common(b"gzip, deflate, br, zstd").unwrap());
        assert!([Brotli, Zstd, Gzip].iter().all(|e| chrome.contains(e)));
        assert!(!chrome.contains(&DictionaryBrotli) && !chrome.contains(&Identity));
        // No `*`: identity unlisted ranks just above zero.
        let chrome_prefs = common(b"gzip, deflate, br, zstd").unwrap();
        assert_eq!(chrome_prefs.quality(Identity), 1);
        let with_dictionary = listed(common(b"gzip, deflate, br, zstd, dcb, dcz").unwrap());
        assert_eq!(with_dictionary.len(), chrome.len() + 2);
        assert!(
            with_dictionary.contains(&DictionaryBrotli)
                && with_dictionary.contains(&DictionaryZstd)
        );
        assert_eq!(listed(common(b"br, gzip").unwrap()), [Brotli, Gzip]);
        assert_eq!(listed(common(b"gzip").unwrap()), [Gzip]);
        for other in [&b"gzip;q=0"[..], b"gzip, deflate, br, zstd ", b"GZIP", b""] {
            assert_eq!(common(other), None, "{:?}", String::from_utf8_lossy(other));
        }
    }

    #[test]
    fn zstd_ranks_between_br_and_gzip_at_equal_quality() {
        use Encoding::*;
        let all = [Brotli, Zstd, Gzip];
        for (accept, stored, expected) in [
            ("gzip, deflate, br, zstd", &all[..], Brotli),
            ("gzip, zstd", &all[..], Zstd),
            ("zstd, gzip", &[Zstd, Gzip][..], Zstd),
            ("gzip, deflate, br, zstd", &[Zstd, Gzip][..], Zstd),
            ("br;q=0.5, zstd;q=0.6, gzip", &all[..], Gzip),
            ("br;q=0.5, zstd;q=0.6, gzip;q=0.1", &all[..], Zstd),
            ("ZSTD", &all[..], Zstd),
            ("zstd;q=0, gzip", &all[..], Gzip),
            ("zstd", &[Brotli, Gzip][..], Identity),
            ("*", &[Zstd, Gzip][..], Zstd),
            ("*, zstd;q=0", &[Zstd, Gzip][..], Gzip),
            ("zstdx, xzstd", &all[..], Identity),
        ] {
            assert_eq!(
                choose_from(&[accept], stored),
                expected,
                "{accept:?} with {stored:?}"
            );
        }
    }

    #[test]
    fn dictionary_codings_need_their_name_and_an_offered_dictionary() {
        use Encoding::*;
        let all = [DictionaryBrotli, DictionaryZstd, Brotli, Zstd, Gzip];
        for (accept, stored, expected) in [
            (
                "gzip, deflate, br, zstd, dcb, dcz",
                &all[..],
                DictionaryBrotli,
            ),
            (
                "gzip, deflate, br, zstd, dcb, dcz",
                &all[1..],
                DictionaryZstd,
            ),
            ("gzip, deflate, br, zstd, dcb, dcz", &all[2..], Brotli),
            ("br, dcz", &all[..], DictionaryZstd),
            ("br, dcb;q=0.5, dcz;q=0.4", &all[..], Brotli),
            ("br;q=0.1, DCB", &all[..], DictionaryBrotli),
            ("dcb;q=0, br", &all[..], Brotli),
            ("*", &all[..], Brotli),
            ("dcbx, xdcz", &all[..], Identity),
        ] {
            assert_eq!(
                choose_from(&[accept], stored),
                expected,
                "{accept:?} with {stored:?}"
            );
        }
    }

    fn choose(accept: &str) -> Encoding {
        choose_lines(&[accept])
    }

    #[test]
    fn no_field_means_identity_and_an_empty_field_means_identity_only() {
        assert_eq!(choose_lines(&[]), Encoding::Identity);
        assert_eq!(choose(""), Encoding::Identity);
    }

    #[test]
    fn brotli_is_preferred_over_gzip_at_equal_quality() {
        for accept in [
            "gzip, br",
            "br, gzip",
            "gzip, deflate, br, zstd",
            "*",
            "BR, GZIP",
        ] {
            assert_eq!(
                choose(accept),
                Encoding::Brotli,
                "Accept-Encoding: {accept}"
            );
        }
    }

    #[test]
    fn higher_quality_wins_over_server_preference() {
        for (accept, expected) in [
            ("br;q=0.5, gzip", Encoding::Gzip),
            ("br;q=0.5, gzip;q=0.501", Encoding::Gzip),
            ("gzip;q=0.9, identity;q=1", Encoding::Identity),
            ("br;q=0.1, identity;q=0.05", Encoding::Brotli),
            ("gzip;q=0.001", Encoding::Gzip),
            ("*;q=0.5, br;q=0.4", Encoding::Gzip),
        ] {
            assert_eq!(choose(accept), expected, "Accept-Encoding: {accept}");
        }
    }

    #[test]
    fn q_zero_excludes_an_encoding() {
        for (accept, expected) in [
            ("br;q=0, gzip", Encoding::Gzip),
            ("br;q=0.000, gzip;q=0", Encoding::Identity),
            ("gzip;q=0", Encoding::Identity),
            ("*;q=0, identity", Encoding::Identity),
            ("*;q=0, gzip;q=0.2", Encoding::Gzip),
            ("br;Q=0, gzip", Encoding::Gzip),
            ("br ; q=0 , gzip", Encoding::Gzip),
        ] {
            assert_eq!(choose(accept), expected, "Accept-Encoding: {accept}");
        }
    }

    #[test]
    fn identity_excluded_still_gets_a_body() {
        // Nothing acceptable is stored: the preference is disregarded (RFC 9110 §12.1).
        assert_eq!(choose("identity;q=0"), Encoding::Identity);
        assert_eq!(choose("*;q=0"), Encoding::Identity);
        assert_eq!(choose("identity;q=0, gzip"), Encoding::Gzip);
    }

    #[test]
    fn x_gzip_is_gzip_and_unknown_codings_are_ignored() {
        assert_eq!(choose("x-gzip"), Encoding::Gzip);
        assert_eq!(choose("compress, deflate"), Encoding::Identity);
        assert_eq!(choose("zstd;q=1, gzip;q=0.1"), Encoding::Gzip);
    }

    #[test]
    fn repeated_field_lines_are_one_list() {
        assert_eq!(choose_lines(&["gzip", "br"]), Encoding::Brotli);
        assert_eq!(choose_lines(&["br;q=0", "gzip"]), Encoding::Gzip);
        assert_eq!(choose_lines(&["", "gzip"]), Encoding::Gzip);
    }

    #[test]
    fn substrings_do_not_count() {
        // "gzip;q=0" must not be read as "gzip is accepted", nor "brotli" as "br".
        assert_eq!(choose("brotli, xgzip"), Encoding::Identity);
        assert_eq!(choose("gzip;q=0, br;q=0"), Encoding::Identity);
    }

    #[test]
    fn invalid_quality_values_drop_the_member() {
        for accept in [
            "br;q=2",
            "br;q=1.5",
            "br;q=0.1234",
            "br;q=abc",
            "br;q=",
            "br;q=-1",
            "br;q=.5",
        ] {
            assert_eq!(
                choose(accept),
                Encoding::Identity,
                "Accept-Encoding: {accept}"
            );
        }
        assert_eq!(choose("br;q=1.000"), Encoding::Brotli);
        assert_eq!(choose("br;q=1., gzip;q=0.9"), Encoding::Brotli);
    }

    #[test]
    fn only_offered_codings_are_chosen() {
        assert_eq!(
            choose_from(&["br, gzip"], &[Encoding::Gzip]),
            Encoding::Gzip
        );
        assert_eq!(choose_from(&["br, gzip"], &[]), Encoding::Identity);
    }

    #[test]
    fn html_is_accepted_only_when_listed_with_weight() {
        let accepts = |value: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(ACCEPT, HeaderValue::from_str(value).unwrap());
            accepts_html(&headers)
        };
        assert!(accepts(
            "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
        ));
        assert!(accepts("TEXT/HTML"));
        assert!(accepts("text/html;level=1;q=0.5"));
        assert!(!accepts("text/html;q=0"));
        assert!(!accepts("*/*"));
        assert!(!accepts("image/avif,image/webp,*/*;q=0.8"));
        assert!(!accepts("application/json"));
        assert!(!accepts_html(&HeaderMap::new()));
    }

    #[test]
    fn quality_parsing_follows_the_grammar() {
        for (text, expected) in [
            ("0", Some(0)),
            ("1", Some(1000)),
            ("0.5", Some(500)),
            ("0.05", Some(50)),
            ("0.125", Some(125)),
            ("1.0", Some(1000)),
            ("1.", Some(1000)),
            ("1.001", None),
            ("0.", Some(0)),
            ("2", None),
            ("", None),
        ] {
            assert_eq!(parse_quality(text.as_bytes()), expected, "q={text}");
        }
    }
}
