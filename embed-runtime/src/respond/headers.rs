//! The header fields of the responses about a representation: assembled in one place
//! for 200, 206, 304, 416 and the 404 page, and built once per service for the common
//! answers. Beside them, the one list of the fields the service owns, which the `header`
//! rules are checked against.

use http::header::{
    ACCEPT_RANGES, ALLOW, CACHE_CONTROL, CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_RANGE,
    CONTENT_TYPE, ETAG, LAST_MODIFIED, LOCATION, VARY,
};
use http::{HeaderMap, HeaderName, HeaderValue};

use crate::asset::{Asset, Variant};
use crate::coding::Encoding;
use crate::range::ByteRange;
use crate::representation::{HeaderValues, Negotiated, Representation};

const BYTES: HeaderValue = HeaderValue::from_static("bytes");
const ACCEPT_ENCODING_VARY: HeaderValue = HeaderValue::from_static("accept-encoding");
pub(super) const DICTIONARY_VARY: HeaderValue =
    HeaderValue::from_static("accept-encoding, available-dictionary");
/// RFC 9842 §2.1: the response field that makes a response a dictionary.
const USE_AS_DICTIONARY: HeaderName = HeaderName::from_static("use-as-dictionary");
/// Cloudflare's purge tags, comma-separated.
const CACHE_TAG: HeaderName = HeaderName::from_static("cache-tag");
/// Fastly's and Varnish's (xkey) purge keys, space-separated.
const SURROGATE_KEY: HeaderName = HeaderName::from_static("surrogate-key");
/// The release a server answers from (`ServeAssets::release_endpoint`).
pub(crate) const RELEASE_ID: HeaderName = HeaderName::from_static("release-id");

/// Every field the service sets itself on the responses about an asset: those stating
/// the representation (`representation_headers` sets these and no others, but the
/// `header` rules' own), those of its redirects and refusals (`Location`, `Allow`),
/// and `Cache-Control` and the purge tags from its options. `ServeAssets::header`
/// refuses each of them: a rule's value would be overwritten, or would contradict the
/// representation.
pub(crate) const SERVICE_FIELDS: [HeaderName; 15] = [
    CONTENT_TYPE,
    CONTENT_LENGTH,
    CONTENT_ENCODING,
    CONTENT_RANGE,
    ACCEPT_RANGES,
    ETAG,
    LAST_MODIFIED,
    VARY,
    USE_AS_DICTIONARY,
    LOCATION,
    ALLOW,
    CACHE_CONTROL,
    CACHE_TAG,
    SURROGATE_KEY,
    RELEASE_ID,
];
pub(crate) const NO_CACHE: HeaderValue = HeaderValue::from_static("no-cache");

/// The header fields the service's options add to an asset's responses, on top of
/// those stating the representation: its `Cache-Control`, and the fields of the
/// `header` rules matching its path (`X-Content-Type-Options` among them by default).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Added<'a> {
    pub(crate) cache_control: &'a HeaderValue,
    pub(crate) fields: &'a [(HeaderName, HeaderValue)],
    /// Shared caches may store dictionary-compressed bodies
    /// ([`ServeAssets::shared_cache_deltas`](crate::ServeAssets::shared_cache_deltas)):
    /// else a `dcb`/`dcz` answer's `Cache-Control` is made [`private`].
    pub(crate) shared_deltas: bool,
    /// The response's purge tags, with
    /// [`ServeAssets::cache_tags`](crate::ServeAssets::cache_tags).
    pub(crate) purge_tags: Option<&'a PurgeTags>,
}

/// The tags a CDN or cache purges a response by: the same tags as a `Cache-Tag` value
/// (Cloudflare, comma-separated) and a `Surrogate-Key` value (Fastly, Varnish's xkey,
/// space-separated).
#[derive(Debug, Clone)]
pub(crate) struct PurgeTags {
    cache_tag: HeaderValue,
    surrogate_key: HeaderValue,
}

impl PurgeTags {
    /// The fields of `tags`, each a token without spaces or commas (the builder checks
    /// the prefix; classes and release ids are ASCII letters, digits and `-`).
    pub(crate) fn new(tags: &[String]) -> Option<PurgeTags> {
        Some(PurgeTags {
            cache_tag: HeaderValue::try_from(tags.join(",")).ok()?,
            surrogate_key: HeaderValue::try_from(tags.join(" ")).ok()?,
        })
    }
}

/// The headers of a 200 and of a 304 for one stored variant, built once per service so
/// the common answers clone a finished map instead of inserting field by field. A
/// service keeps them per asset in the order of its bodies (`Asset::bodies`), so the
/// index negotiation gives finds them.
pub(crate) struct PrebuiltHeaders {
    /// The header values the maps were built from.
    pub(crate) values: HeaderValues,
    /// The fields of a whole 200.
    pub(super) ok: HeaderMap,
    /// The fields of a 304.
    pub(super) not_modified: HeaderMap,
    /// The hook for a server that writes HTTP/1.1 itself (`serve`): a slot each for
    /// `ok` and `not_modified` in its own wire form, which it fills on first use and
    /// reads from then on, held with the maps so it lives as long as they do. The core
    /// never fills it (`None` inside: the server found the map not writable as it is).
    pub(crate) wire: [std::sync::OnceLock<Option<Box<[u8]>>>; 2],
    /// The same kind of hook for the body these fields go with, where fields and body
    /// are cached together (a file of a folder served whole): `serve` copies the body
    /// once into sealed memory of its own, to send it with `sendfile`. Opaque to the
    /// core, which never fills it.
    pub(crate) body_pages: std::sync::OnceLock<Option<Box<dyn std::any::Any + Send + Sync>>>,
}

impl Clone for PrebuiltHeaders {
    /// A copy of the fields and their wire forms; the body's sealed copy is the
    /// original's own, not copied.
    fn clone(&self) -> Self {
        PrebuiltHeaders {
            values: self.values.clone(),
            ok: self.ok.clone(),
            not_modified: self.not_modified.clone(),
            wire: self.wire.clone(),
            body_pages: std::sync::OnceLock::new(),
        }
    }
}

impl std::fmt::Debug for PrebuiltHeaders {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PrebuiltHeaders")
            .field("values", &self.values)
            .field("ok", &self.ok)
            .field("not_modified", &self.not_modified)
            .field(
                "wire_forms_made",
                &self.wire.iter().filter(|slot| slot.get().is_some()).count(),
            )
            .field(
                "body_in_sealed_memory",
                &self.body_pages.get().is_some_and(Option::is_some),
            )
            .finish()
    }
}

impl PrebuiltHeaders {
    /// The headers of `variant`, a stored body of `asset`.
    pub(crate) fn new(asset: &Asset, variant: &'static Variant, added: Added<'_>) -> Self {
        Self::of(&Representation::embedded(asset, variant), added)
    }

    /// The headers of `rep`, with `added`: a file of a folder served whole keeps
    /// them with its bytes while it does not change.
    pub(crate) fn of(rep: &Representation<'_>, added: Added<'_>) -> Self {
        let not_modified = representation_headers(rep, added, Part::NotModified);
        let ok = representation_headers(rep, added, Part::Whole);
        PrebuiltHeaders {
            values: rep.values.clone(),
            ok,
            not_modified,
            wire: Default::default(),
            body_pages: std::sync::OnceLock::new(),
        }
    }

    /// The fields of the 200, or (`not_modified`) of the 304.
    pub(crate) fn fields(&self, not_modified: bool) -> &HeaderMap {
        if not_modified {
            &self.not_modified
        } else {
            &self.ok
        }
    }
}

/// Which response a representation's header fields are for.
#[derive(Debug)]
pub(crate) enum Part {
    /// 200: the whole representation.
    Whole,
    /// 206 with one range.
    Range(ByteRange),
    /// 206 with `multipart/byteranges` of this type and length.
    Multipart { content_type: HeaderValue, len: u64 },
    /// 304 (RFC 9110 §15.4.5): what a 200 would carry for caches to update, and no
    /// representation metadata (no Content-Type/Length/Encoding).
    NotModified,
    /// 416 (RFC 9110 §15.5.17): say how long the representation is.
    Unsatisfiable,
    /// The 404 page: its content, but no validators and no ranges, so a cache never
    /// revalidates it into a 304 that hands out another URL's bytes.
    ErrorPage,
}

/// The header fields of a response about `rep`: the one place they are assembled,
/// for 200, 206, 304, 416, the 404 page and the maps built once per service.
///
/// The added fields come on every one of them, the 304 included: they are no
/// representation metadata (RFC 9110 §15.4.5 keeps those off a 304), and a cache
/// updates its stored response with the fields a 304 carries (RFC 9111 §4.3.4), so a
/// changed policy reaches copies whose bytes did not change.
pub(crate) fn representation_headers(
    rep: &Representation<'_>,
    added: Added<'_>,
    part: Part,
) -> HeaderMap {
    // Room for every field below (up to 9) at once: no regrowth mid-response.
    let mut out = HeaderMap::with_capacity(12 + added.fields.len());
    if !matches!(part, Part::ErrorPage) {
        if let Some(etag) = &rep.values.etag {
            out.insert(ETAG, etag.clone());
        }
        if let Some(last_modified) = &rep.values.last_modified {
            out.insert(LAST_MODIFIED, last_modified.clone());
        }
    }
    if rep.encoding.needs_dictionary() && !added.shared_deltas {
        out.insert(CACHE_CONTROL, private(added.cache_control));
    } else {
        out.insert(CACHE_CONTROL, added.cache_control.clone());
    }
    // Rules never name the fields set here (`header` refuses them), so the order
    // does not matter and nothing is overwritten.
    for (name, value) in added.fields {
        out.append(name.clone(), value.clone());
    }
    if let Some(tags) = added.purge_tags {
        out.insert(CACHE_TAG, tags.cache_tag.clone());
        out.insert(SURROGATE_KEY, tags.surrogate_key.clone());
    }
    // Send Vary even for identity: a cache must not reuse it for a client that accepts br.
    // And only then: without variants, Vary would split caches for nothing.
    match rep.negotiated {
        Negotiated::No => {}
        Negotiated::Encoding => {
            out.insert(VARY, ACCEPT_ENCODING_VARY);
        }
        Negotiated::EncodingAndDictionary => {
            out.insert(VARY, DICTIONARY_VARY);
        }
    }
    if let (Some(pattern), false) = (rep.dictionary_match, matches!(part, Part::ErrorPage)) {
        out.insert(USE_AS_DICTIONARY, HeaderValue::from_static(pattern));
    }
    let (content_length, content_type) = match part {
        Part::NotModified => return out,
        Part::Unsatisfiable => {
            out.insert(CONTENT_RANGE, content_range_unsatisfied(rep.len));
            out.insert(ACCEPT_RANGES, BYTES);
            return out;
        }
        Part::ErrorPage => (
            rep.values.content_length.clone(),
            rep.values.content_type.clone(),
        ),
        Part::Whole => {
            out.insert(ACCEPT_RANGES, BYTES);
            (
                rep.values.content_length.clone(),
                rep.values.content_type.clone(),
            )
        }
        Part::Range(range) => {
            out.insert(ACCEPT_RANGES, BYTES);
            out.insert(CONTENT_RANGE, content_range(&range, rep.len));
            (
                HeaderValue::from(range.len()),
                rep.values.content_type.clone(),
            )
        }
        Part::Multipart { content_type, len } => {
            out.insert(ACCEPT_RANGES, BYTES);
            (HeaderValue::from(len), content_type)
        }
    };
    out.insert(CONTENT_LENGTH, content_length);
    if rep.encoding != Encoding::Identity {
        out.insert(
            CONTENT_ENCODING,
            HeaderValue::from_static(rep.encoding.as_str()),
        );
    }
    out.insert(CONTENT_TYPE, content_type);
    out
}

/// `policy` for a body only the client that named its dictionary can decode: with
/// `private`, so no shared cache stores it. A cache that does not key on
/// `Available-Dictionary` (one that ignores `Vary`, or honours `Vary: accept-encoding`
/// alone, as some CDNs do) would otherwise hand the `dcb`/`dcz` body to every client.
/// `public` and `s-maxage`, which speak to shared caches only, are dropped; a policy
/// that already says `private` or `no-store` is kept as it is. The browser's own cache
/// is private: it keeps the body, and its lifetime, as before.
fn private(policy: &HeaderValue) -> HeaderValue {
    // Directives split at commas, as RFC 9111 §5.2 lists them. A comma inside a quoted
    // argument (`no-cache="a, b"`) splits it too, but the pieces are joined again as
    // they were: only a whole `public` or `s-maxage=…` piece is ever dropped.
    let directives: Vec<&[u8]> = policy
        .as_bytes()
        .split(|&byte| byte == b',')
        .map(<[u8]>::trim_ascii)
        .filter(|directive| !directive.is_empty())
        .collect();
    let name = |directive: &[u8]| -> Vec<u8> {
        let end = directive
            .iter()
            .position(|&byte| byte == b'=')
            .unwrap_or(directive.len());
        directive[..end].trim_ascii().to_ascii_lowercase()
    };
    if directives
        .iter()
        .any(|directive| matches!(&name(directive)[..], b"private" | b"no-store"))
    {
        return policy.clone();
    }
    let mut value = b"private".to_vec();
    for directive in directives {
        if !matches!(&name(directive)[..], b"public" | b"s-maxage") {
            value.extend_from_slice(b", ");
            value.extend_from_slice(directive);
        }
    }
    // Built from a valid value's own bytes and ASCII: valid too.
    HeaderValue::from_bytes(&value).unwrap_or(HeaderValue::from_static("private"))
}

fn content_range(range: &ByteRange, len: u64) -> HeaderValue {
    // Digits, '-', '/' and a space: always a valid header value.
    HeaderValue::try_from(format!("bytes {}-{}/{len}", range.start, range.end)).unwrap_or(BYTES)
}

fn content_range_unsatisfied(len: u64) -> HeaderValue {
    HeaderValue::try_from(format!("bytes */{len}")).unwrap_or(BYTES)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 10-byte style sheet of a file with deltas, in `encoding`.
    fn style_sheet(
        encoding: Encoding,
        dictionary_match: Option<&'static str>,
    ) -> Representation<'static> {
        Representation {
            content_type: "text/css",
            encoding,
            validators: crate::precondition::Validators {
                etag: Some("\"a\""),
                modified: Some(0),
            },
            len: 10,
            values: HeaderValues {
                etag: Some(HeaderValue::from_static("\"a\"")),
                last_modified: Some(HeaderValue::from_static("Sat, 26 Oct 1985 08:15:00 GMT")),
                content_type: HeaderValue::from_static("text/css"),
                content_length: HeaderValue::from_static("10"),
            },
            negotiated: Negotiated::EncodingAndDictionary,
            dictionary_match,
        }
    }

    #[test]
    fn every_field_a_response_states_is_on_the_service_list() {
        let rep = style_sheet(Encoding::Brotli, Some("/app.*.css"));
        let added = Added {
            cache_control: &NO_CACHE,
            fields: &[],
            shared_deltas: false,
            purge_tags: None,
        };
        for part in [
            Part::Whole,
            Part::Range(ByteRange { start: 0, end: 4 }),
            Part::NotModified,
            Part::Unsatisfiable,
            Part::ErrorPage,
        ] {
            let headers = representation_headers(&rep, added, part);
            for name in headers.keys() {
                assert!(SERVICE_FIELDS.contains(name), "{name} is not on the list");
            }
        }
    }

    #[test]
    fn a_dictionary_body_is_private_and_others_keep_the_policy() {
        let cases = [
            (
                "public, max-age=31536000, immutable",
                "private, max-age=31536000, immutable",
            ),
            (
                "max-age=0, stale-while-revalidate=2592000, proxy-revalidate",
                "private, max-age=0, stale-while-revalidate=2592000, proxy-revalidate",
            ),
            ("PUBLIC,max-age=60 , S-MaxAge=300", "private, max-age=60"),
            ("no-cache", "private, no-cache"),
            (
                "no-cache=\"set-cookie, x-a\", public",
                "private, no-cache=\"set-cookie, x-a\"",
            ),
            ("private, max-age=60", "private, max-age=60"),
            ("no-store", "no-store"),
            ("", "private"),
        ];
        for (policy, expected) in cases {
            let policy = HeaderValue::from_static(policy);
            assert_eq!(private(&policy), expected, "{policy:?}");
        }
        let mut rep = style_sheet(Encoding::DictionaryBrotli, None);
        let immutable = HeaderValue::from_static("public, max-age=31536000, immutable");
        let policy = |rep: &Representation<'_>, shared_deltas, part| {
            let added = Added {
                cache_control: &immutable,
                fields: &[],
                shared_deltas,
                purge_tags: None,
            };
            representation_headers(rep, added, part)[CACHE_CONTROL].clone()
        };
        for part in [
            || Part::Whole,
            || Part::NotModified,
            || Part::Range(ByteRange { start: 0, end: 4 }),
        ] {
            assert_eq!(
                policy(&rep, false, part()),
                "private, max-age=31536000, immutable"
            );
            assert_eq!(policy(&rep, true, part()), immutable);
        }
        rep.encoding = Encoding::Brotli;
        assert_eq!(policy(&rep, false, Part::Whole), immutable);
    }
}
