//! `Accept-Encoding` (RFC 9110 §12.5.3).

use std::cmp::Reverse;

use http::HeaderMap;
use http::header::ACCEPT_ENCODING;

use super::{Encoding, choose_encoding, field_lines, lines, trim_ows};

/// Fuzz target `accept_encoding`: each line of `data` is one `Accept-Encoding` field
/// line (an empty input sends no field at all).
///
/// For every combination of stored br, zstd and gzip bodies, the chosen encoding is
/// stored, has q > 0 in the request unless it is identity, and is the one of highest
/// q with ties going to br, then zstd, then gzip, then identity (as `Weights` reads
/// the request).
///
/// # Panics
/// When an invariant does not hold.
pub fn check_accept_encoding(data: &[u8]) {
    let headers = field_lines(&ACCEPT_ENCODING, lines(data));
    let weights = Weights::of(&headers);
    for subset in 0..8u8 {
        let stored: Vec<Encoding> = [Encoding::Brotli, Encoding::Zstd, Encoding::Gzip]
            .into_iter()
            .enumerate()
            .filter(|(bit, _)| subset & (1 << bit) != 0)
            .map(|(_, encoding)| encoding)
            .collect();
        let chosen = choose_encoding(&headers, &stored);
        assert!(
            chosen == Encoding::Identity || stored.contains(&chosen),
            "{chosen} chosen but not stored, for {headers:?}"
        );
        if chosen != Encoding::Identity {
            assert!(
                weights.quality(chosen) > 0,
                "{chosen} chosen with q=0, for {headers:?}"
            );
        }
        assert_eq!(
            chosen,
            weights.best(|encoding| stored.contains(&encoding)),
            "stored: {stored:?}, for {headers:?}"
        );
    }
}

/// What a request's `Accept-Encoding` says about each coding we can store, read straight
/// from the grammar: `#( codings [ OWS ";" OWS "q=" qvalue ] )` over every field line.
/// A member with an invalid qvalue says nothing; a coding listed twice keeps its
/// highest weight.
#[derive(Debug, Default)]
pub(crate) struct Weights {
    present: bool,
    /// The dictionary codings of RFC 9842, which only count when listed by name.
    dcb: Option<u16>,
    dcz: Option<u16>,
    br: Option<u16>,
    zstd: Option<u16>,
    gzip: Option<u16>,
    identity: Option<u16>,
    any: Option<u16>,
}

impl Weights {
    pub(crate) fn of(headers: &HeaderMap) -> Self {
        let mut weights = Weights::default();
        for line in headers.get_all(ACCEPT_ENCODING) {
            weights.present = true;
            for member in line.as_bytes().split(|&b| b == b',') {
                let mut parts = member.split(|&b| b == b';').map(trim_ows);
                let coding = parts.next().unwrap_or_default().to_ascii_lowercase();
                let mut q = Some(1000);
                for param in parts {
                    let Some(eq) = param.iter().position(|&b| b == b'=') else {
                        continue;
                    };
                    if param[..eq].eq_ignore_ascii_case(b"q") {
                        q = qvalue(&param[eq + 1..]);
                    }
                }
                let Some(q) = q else { continue };
                let slot = match &coding[..] {
                    b"dcb" => &mut weights.dcb,
                    b"dcz" => &mut weights.dcz,
                    b"br" => &mut weights.br,
                    b"zstd" => &mut weights.zstd,
                    b"gzip" | b"x-gzip" => &mut weights.gzip,
                    b"identity" => &mut weights.identity,
                    b"*" => &mut weights.any,
                    _ => continue,
                };
                *slot = (*slot).max(Some(q));
            }
        }
        weights
    }

    /// The q-value of a content coding: listed, else `*`'s, else 0 (RFC 9110 §12.5.3).
    pub(crate) fn quality(&self, encoding: Encoding) -> u16 {
        let listed = match encoding {
            Encoding::Brotli => self.br,
            Encoding::Zstd => self.zstd,
            Encoding::Gzip => self.gzip,
            // Identity is acceptable unless excluded; unlisted, it ranks just above 0.
            Encoding::Identity => return self.identity.or(self.any).unwrap_or(1),
            // A coding this reading does not know: never acceptable.
            _ => return 0,
        };
        listed.or(self.any).unwrap_or(0)
    }

    /// The encoding the server should send: identity without a field; otherwise the
    /// stored coding of highest q (q > 0), ties to br, then zstd, then gzip, then
    /// identity, and identity when nothing stored is acceptable (RFC 9110 §12.1
    /// permits it).
    pub(crate) fn best(&self, stored: impl Fn(Encoding) -> bool) -> Encoding {
        if !self.present {
            return Encoding::Identity;
        }
        [Encoding::Brotli, Encoding::Zstd, Encoding::Gzip]
            .into_iter()
            .filter(|&encoding| stored(encoding) && self.quality(encoding) > 0)
            .chain([Encoding::Identity])
            // `Encoding`'s order is the server's preference: the smaller wins a tie.
            .max_by_key(|&encoding| (self.quality(encoding), Reverse(encoding)))
            .unwrap_or(Encoding::Identity)
    }

    /// [`best`](Self::best) when the dictionary codings are on offer too (`dcb` and
    /// `dcz`: the asset has a body against the dictionary the request names). They
    /// count only when listed by name with q > 0, never through `*` (a client that
    /// lists `*` has not said it can decode against a dictionary), and win ties over
    /// every other coding, `dcb` first.
    pub(crate) fn best_with_dictionary(
        &self,
        stored: impl Fn(Encoding) -> bool,
        dcb: bool,
        dcz: bool,
    ) -> Encoding {
        let ordinary = self.best(&stored);
        let named = |offered: bool, listed: Option<u16>, encoding: Encoding| {
            listed
                .filter(|&q| offered && q > 0)
                .map(|q| (q, Reverse(encoding)))
        };
        [
            named(dcb, self.dcb, Encoding::DictionaryBrotli),
            named(dcz, self.dcz, Encoding::DictionaryZstd),
            Some((self.quality(ordinary), Reverse(ordinary))),
        ]
        .into_iter()
        .flatten()
        .max()
        .map_or(ordinary, |(_, Reverse(encoding))| encoding)
    }
}

/// `qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )` in thousandths.
pub(crate) fn qvalue(text: &[u8]) -> Option<u16> {
    let text = std::str::from_utf8(text).ok()?;
    let (int, frac) = text.split_once('.').unwrap_or((text, ""));
    if frac.len() > 3 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let thousandths: u16 = format!("{frac:0<3}").parse().ok()?;
    match (int, thousandths) {
        ("0", q) => Some(q),
        ("1", 0) => Some(1000),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qvalues_follow_the_grammar() {
        for (text, expected) in [
            ("1", Some(1000)),
            ("1.000", Some(1000)),
            ("1.", Some(1000)),
            ("0.5", Some(500)),
            ("0.05", Some(50)),
            ("0", Some(0)),
            ("1.5", None),
            ("0.1234", None),
            (".5", None),
            ("", None),
        ] {
            assert_eq!(qvalue(text.as_bytes()), expected, "q={text}");
            assert_eq!(
                embed_assets::__private::fuzz::parse_quality(text.as_bytes()),
                expected
            );
        }
    }

    #[test]
    fn the_seed_forms_hold() {
        for accept in ["gzip, br", "br;q=0, gzip", "*;q=0", "identity;q=0", ""] {
            check_accept_encoding(accept.as_bytes());
        }
    }
}
