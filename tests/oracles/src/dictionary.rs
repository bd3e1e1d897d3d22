//! `Available-Dictionary` and the dictionary codings (RFC 9842), against the site with
//! kept releases.

use http::header::{ACCEPT_ENCODING, CONTENT_ENCODING, CONTENT_LENGTH, ETAG, HOST};
use http::{HeaderMap, HeaderName, HeaderValue, Request, StatusCode};

use super::lines;
use super::negotiate::Weights;
use super::release_site::{ReleaseSite, request_fields};
use super::respond::vary;
use embed_assets::{Asset, Encoding, Variant};

/// RFC 9842 §2.2.
const AVAILABLE_DICTIONARY: HeaderName = HeaderName::from_static("available-dictionary");

/// Fuzz target `dictionary`: each line of `data` is a field line `name: value`; the
/// `Accept-Encoding` and `Available-Dictionary` lines are kept (names in any case),
/// the others dropped. Every file of [`ReleaseSite`] is requested with them (GET at its
/// URL), this build's and the earlier releases'.
///
/// - A dictionary coding (`dcb`, `dcz`) is sent only when the request has exactly one
///   `Available-Dictionary` line holding a structured-field byte sequence (RFC 9651
///   §3.3.5, read again here, padding optional) of 32 bytes that are the SHA-256 of a
///   dictionary the file has a body against, and `Accept-Encoding` lists that coding by
///   name with q > 0. The body sent is that one: its RFC 9842 §4 header (magic number,
///   then the SHA-256 of the dictionary) names the dictionary the request named, and
///   it is one of the kept releases' files.
/// - The coding is the one of highest q among what is on offer, ties to `dcb`, `dcz`,
///   br, zstd, gzip, identity; with no dictionary on offer (no field, two lines, not a
///   byte sequence, another hash, a file without such a body), exactly the ordinary
///   negotiation. A byte sequence spelled otherwise than `:base64:` with padding (no
///   padding, parameters) may get either: the documentation of the runtime matches the
///   hash's one spelling as sent.
/// - `ETag`, `Content-Encoding` and `Content-Length` describe the body sent; `Vary`
///   lists `accept-encoding` when the file has encoded bodies and
///   `available-dictionary` when it has dictionary bodies (RFC 9842 §6.2), whatever
///   was sent.
///
/// # Panics
/// When an invariant does not hold.
pub fn check_dictionary(site: &ReleaseSite, data: &[u8]) {
    let headers = request_fields(
        lines(data),
        &[ACCEPT_ENCODING, AVAILABLE_DICTIONARY.clone()],
    );
    let weights = Weights::of(&headers);
    let offered = available_dictionary(&headers);
    for asset in site.assets.iter() {
        let mut request = Request::get(asset.url()).body(()).unwrap();
        *request.headers_mut() = headers.clone();
        let localhost = HeaderValue::from_static("localhost");
        request.headers_mut().insert(HOST, localhost);
        let (parts, body) = site.respond(0, &request);
        let context = format!(
            "{} with {headers:?}\n-> {} {:?}",
            asset.url(),
            parts.status,
            parts.headers
        );
        assert_eq!(parts.status, StatusCode::OK, "{context}");
        let sent = match parts.headers.get(CONTENT_ENCODING) {
            None => Encoding::Identity,
            Some(coding) => Encoding::ALL
                .into_iter()
                .chain([Encoding::DictionaryBrotli, Encoding::DictionaryZstd])
                .find(|encoding| coding == encoding.as_str())
                .unwrap_or_else(|| panic!("unknown coding, {context}")),
        };
        let expected = expected_codings(asset, &weights, offered.as_ref());
        assert!(
            expected.contains(&sent),
            "{sent} sent, {expected:?} expected, {context}"
        );
        let variant: &Variant = match sent {
            Encoding::DictionaryBrotli | Encoding::DictionaryZstd => {
                let hash = offered.as_ref().map(|offered| offered.bytes);
                let delta = asset
                    .deltas()
                    .iter()
                    .find(|delta| delta.encoding() == sent && delta.body() == body)
                    .unwrap_or_else(|| panic!("no such dictionary body, {context}"));
                assert_eq!(
                    framed_hash(delta),
                    hash,
                    "the body is against another dictionary, {context}"
                );
                assert!(
                    hash.is_some_and(|hash| site.kept.contains(&hash)),
                    "{context}"
                );
                delta
            }
            encoding => {
                let variant = asset.variant(encoding).unwrap();
                assert!(variant.body() == body, "body differs, {context}");
                variant
            }
        };
        assert_eq!(parts.headers[ETAG], variant.etag(), "{context}");
        assert_eq!(
            parts.headers[CONTENT_LENGTH],
            body.len().to_string(),
            "{context}"
        );
        let vary = vary(&parts.headers);
        assert_eq!(
            vary.contains(&"accept-encoding".to_owned()),
            asset.is_negotiated(),
            "{context}"
        );
        assert_eq!(
            vary.contains(&"available-dictionary".to_owned()),
            !asset.deltas().is_empty(),
            "{context}"
        );
    }
}

/// The codings `asset` may be sent in: the full negotiation when the request names a
/// dictionary in its one spelling, the ordinary one when it names none, either when
/// it names one otherwise spelled.
fn expected_codings(asset: &Asset, weights: &Weights, offered: Option<&Bytes>) -> Vec<Encoding> {
    if !asset.is_negotiated() {
        return vec![Encoding::Identity];
    }
    let stored = |encoding| asset.variant(encoding).is_some();
    let ordinary = weights.best(stored);
    let Some(offered) = offered else {
        return vec![ordinary];
    };
    let against = |coding| {
        asset.deltas().iter().any(|delta| {
            delta.encoding() == coding
                && sf_binary(delta.dictionary().unwrap_or_default().as_bytes())
                    .map(|named| named.bytes)
                    == Some(offered.bytes)
        })
    };
    let full = weights.best_with_dictionary(
        stored,
        against(Encoding::DictionaryBrotli),
        against(Encoding::DictionaryZstd),
    );
    if offered.canonical {
        vec![full]
    } else {
        vec![full, ordinary]
    }
}

/// The dictionary a request names: its one `Available-Dictionary` line as an RFC 9651
/// Item holding a 32-byte byte sequence. Two lines combine into `a, b`, which is no
/// Item.
fn available_dictionary(headers: &HeaderMap) -> Option<Bytes> {
    let mut lines = headers.get_all(AVAILABLE_DICTIONARY).iter();
    match (lines.next(), lines.next()) {
        (Some(line), None) => sf_binary(line.as_bytes()),
        _ => None,
    }
}

/// A 32-byte structured-field byte sequence, and whether it was spelled as the
/// runtime's documentation matches it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Bytes {
    pub(crate) bytes: [u8; 32],
    /// `:base64:` with padding and nothing else.
    pub(crate) canonical: bool,
}

/// `value` read as an RFC 9651 Item (§4.2) whose bare item is a Byte Sequence of 32
/// bytes (§4.2.7), with any parameters (§4.2.3.2); `None` for anything else.
pub(crate) fn sf_binary(value: &[u8]) -> Option<Bytes> {
    let trimmed = trim_sp(value);
    let rest = trimmed.strip_prefix(b":")?;
    let end = rest.iter().position(|&b| b == b':')?;
    let (text, parameters) = (&rest[..end], &rest[end + 1..]);
    if !text
        .iter()
        .all(|&b| b.is_ascii_alphanumeric() || b"+/=".contains(&b))
    {
        return None;
    }
    let bytes: [u8; 32] = base64_decode(text)?.try_into().ok()?;
    if !are_parameters(parameters) {
        return None;
    }
    let canonical = parameters.is_empty()
        && trimmed.len() == value.len()
        && text == base64_encode(&bytes).as_bytes();
    Some(Bytes { bytes, canonical })
}

/// The dictionary hash in the header of a `dcb` or `dcz` body (RFC 9842 §4.1, §4.2).
pub(crate) fn framed_hash(variant: &Variant) -> Option<[u8; 32]> {
    let magic: &[u8] = match variant.encoding() {
        Encoding::DictionaryBrotli => &[0xff, 0x44, 0x43, 0x42],
        Encoding::DictionaryZstd => &[0x5e, 0x2a, 0x4d, 0x18, 0x20, 0x00, 0x00, 0x00],
        _ => return None,
    };
    let rest = variant.body().strip_prefix(magic)?;
    rest.get(..32)?.try_into().ok()
}

fn trim_sp(bytes: &[u8]) -> &[u8] {
    let start = bytes.iter().take_while(|&&b| b == b' ').count();
    let end = bytes.len()
        - bytes[start..]
            .iter()
            .rev()
            .take_while(|&&b| b == b' ')
            .count();
    &bytes[start..end]
}

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// RFC 4648 §4, as RFC 9651 §4.2.7 reads it: `=` padding may be left out, pad bits
/// need not be zero; padding that is there must be right.
fn base64_decode(text: &[u8]) -> Option<Vec<u8>> {
    let data_len = text.iter().position(|&b| b == b'=').unwrap_or(text.len());
    let (data, padding) = text.split_at(data_len);
    if padding.iter().any(|&b| b != b'=')
        || padding.len() > 2
        || (!padding.is_empty() && text.len() % 4 != 0)
        || data.len() % 4 == 1
    {
        return None;
    }
    let mut out = Vec::with_capacity(data.len() * 3 / 4);
    for group in data.chunks(4) {
        let mut bits: u32 = 0;
        for (i, &c) in group.iter().enumerate() {
            let value = BASE64.iter().position(|&b| b == c)? as u32;
            bits |= value << (18 - 6 * i);
        }
        let bytes = bits.to_be_bytes();
        out.extend_from_slice(&bytes[1..group.len()]);
    }
    Some(out)
}

fn base64_encode(bytes: &[u8]) -> String {
    let mut out = String::new();
    for group in bytes.chunks(3) {
        let mut bits = [0u8; 3];
        bits[..group.len()].copy_from_slice(group);
        let bits = u32::from_be_bytes([0, bits[0], bits[1], bits[2]]);
        for i in 0..4 {
            if i <= group.len() {
                out.push(char::from(BASE64[(bits >> (18 - 6 * i)) as usize & 63]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// `*( ";" *SP key [ "=" bare-item ] )` (RFC 9651 §4.2.3.2).
fn are_parameters(mut rest: &[u8]) -> bool {
    while let Some(after) = rest.strip_prefix(b";") {
        rest = trim_leading_sp(after);
        let key_len = match rest.first() {
            Some(b'a'..=b'z' | b'*') => rest
                .iter()
                .take_while(|&&b| {
                    b.is_ascii_lowercase() || b.is_ascii_digit() || b"_-.*".contains(&b)
                })
                .count(),
            _ => return false,
        };
        rest = &rest[key_len..];
        if let Some(value) = rest.strip_prefix(b"=") {
            match bare_item(value) {
                Some(after) => rest = after,
                None => return false,
            }
        }
    }
    rest.is_empty()
}

fn trim_leading_sp(bytes: &[u8]) -> &[u8] {
    &bytes[bytes.iter().take_while(|&&b| b == b' ').count()..]
}

/// A bare item (RFC 9651 §4.2.3.1): what follows it, or `None` if it is none.
fn bare_item(value: &[u8]) -> Option<&[u8]> {
    let digits = |bytes: &[u8]| bytes.iter().take_while(|b| b.is_ascii_digit()).count();
    match value.first()? {
        b'-' | b'0'..=b'9' => {
            let sign = usize::from(value[0] == b'-');
            let int = digits(&value[sign..]);
            if int == 0 {
                return None;
            }
            let mut end = sign + int;
            if value.get(end) == Some(&b'.') {
                let frac = digits(&value[end + 1..]);
                if int > 12 || !(1..=3).contains(&frac) {
                    return None;
                }
                end += 1 + frac;
            } else if int > 15 {
                return None;
            }
            Some(&value[end..])
        }
        b'"' => {
            let mut i = 1;
            loop {
                match *value.get(i)? {
                    b'\\' if matches!(value.get(i + 1), Some(b'"' | b'\\')) => i += 2,
                    b'"' => return Some(&value[i + 1..]),
                    0x20..=0x7e if value[i] != b'\\' => i += 1,
                    _ => return None,
                }
            }
        }
        b':' => {
            let end = value[1..].iter().position(|&b| b == b':')? + 1;
            let text = &value[1..end];
            base64_decode(text)?;
            text.iter()
                .all(|&b| b.is_ascii_alphanumeric() || b"+/=".contains(&b))
                .then(|| &value[end + 1..])
        }
        b'?' => matches!(value.get(1), Some(b'0' | b'1')).then(|| &value[2..]),
        b'@' => {
            let sign = usize::from(value.get(1) == Some(&b'-'));
            let int = digits(&value[1 + sign..]);
            (1..=15).contains(&int).then(|| &value[1 + sign + int..])
        }
        b'A'..=b'Z' | b'a'..=b'z' | b'*' => {
            let len = value
                .iter()
                .take_while(|&&b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~:/".contains(&b))
                .count();
            Some(&value[len..])
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_sequences_read_as_rfc_9651_says() {
        let hash = [7u8; 32];
        let text = base64_encode(&hash);
        assert_eq!(text.len(), 44);
        assert!(text.ends_with('='));
        let canonical = format!(":{text}:");
        assert_eq!(
            sf_binary(canonical.as_bytes()),
            Some(Bytes {
                bytes: hash,
                canonical: true
            })
        );
        for other in [
            format!(":{}:", text.trim_end_matches('=')),
            format!(":{text}:;a=1"),
            format!(":{text}:;a;b=?1;c=\"x\";d=tok/en;e=:AAAA:;f=-1.5"),
        ] {
            assert_eq!(
                sf_binary(other.as_bytes()),
                Some(Bytes {
                    bytes: hash,
                    canonical: false
                }),
                "{other}"
            );
        }
        for bad in [
            text.clone(),
            format!(":{text}"),
            format!(":{text}: ;a"),
            format!(":{text}:;A=1"),
            format!(":{text}:,:{text}:"),
            format!(":{text}=:"),
            format!(":{}:", &text[..40]),
            format!(":{}-:", &text[..43]),
            ":AAAA:".to_owned(),
        ] {
            assert_eq!(sf_binary(bad.as_bytes()), None, "{bad}");
        }
        assert_eq!(base64_decode(b"YQ"), Some(b"a".to_vec()));
        assert_eq!(base64_decode(b"YR=="), Some(b"a".to_vec()), "pad bits");
        assert_eq!(base64_decode(b"YQ="), None);
        assert_eq!(base64_encode(b"ab"), "YWI=");
    }
}
