//! Requests for the files of releases the site does or does not hold.

use http::header::{
    ACCEPT, ACCEPT_ENCODING, CACHE_CONTROL, CONTENT_ENCODING, CONTENT_TYPE, ETAG, HOST,
};
use http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode};

use super::path::key_of;
use super::release_site::{NOT_FOUND_PAGE, ReleaseSite, SPA};
use super::respond::{accepts_html, parse_request, vary};
use embed_assets::{Asset, Encoding, ServeAssets};

const AVAILABLE_DICTIONARY: HeaderName = HeaderName::from_static("available-dictionary");
const USE_AS_DICTIONARY: HeaderName = HeaderName::from_static("use-as-dictionary");

/// Fuzz target `release_lookup`: `data` is an optional line `@ option…` (`spa`:
/// `spa_fallback("/index.html")`, `404`: `not_found_page("/404.html")`), then a request
/// head, `METHOD TARGET` on the first line (a line without a space is a target for GET)
/// and `name: value` on each further line, of which `Accept`, `Accept-Encoding` and
/// `Available-Dictionary` are kept; it is sent to [`ReleaseSite`].
///
/// What each URL serves is worked out from the site's folders as the documentation
/// describes the `releases`, `fingerprint` and `hashed` options, not from the table:
/// this build's files at their paths (a folder's `index.html` at the folder), at the
/// URL of the first 8 hex digits of their SHA-256 (all but pages) or at their own
/// bundler-hashed URL (`assets/`), and every kept release's files at such a hashed URL
/// only.
///
/// - A URL that serves a file: 200 for GET and HEAD (405 for other methods), with the
///   bytes of that very file: its own bytes when sent as identity, else a stored body of
///   the table's file whose own bytes they are. At a hashed URL, the immutable policy
///   and `Use-As-Dictionary: match="<name with * for the hash>"`.
/// - A URL that names another version of a file at a hashed URL (the same parts around
///   another hash, as the deploying guide defines it): 404 whatever the method, with
///   `Cache-Control: no-store`, no validator and the plain text body, never the
///   single-page app's page nor the 404 page.
/// - Any other URL: the single-page app's page (with `spa`, for a GET or HEAD of a path
///   whose last segment has no `.`, from a client accepting `text/html`), else 404 with
///   the 404 page (with `404`) or the plain text body. No other file's bytes, ever.
///
/// # Panics
/// When an invariant does not hold.
pub fn check_release_lookup(site: &ReleaseSite, data: &[u8]) {
    let (options, data) = options(data);
    let Some(mut request) = parse_request(data) else {
        return;
    };
    let sent = std::mem::take(request.headers_mut());
    for name in [ACCEPT, ACCEPT_ENCODING, AVAILABLE_DICTIONARY] {
        for value in sent.get_all(&name) {
            request.headers_mut().append(name.clone(), value.clone());
        }
    }
    let localhost = HeaderValue::from_static("localhost");
    request.headers_mut().insert(HOST, localhost);
    let (parts, body) = site.respond(options, &request);
    let (status, headers) = (parts.status, &parts.headers);
    let context = format!(
        "options {options:#b}, {request:?}\n-> {status} {headers:?}, {} bytes",
        body.len()
    );
    let method = request.method();
    let is_head = method == Method::HEAD;
    let get_or_head = is_head || method == Method::GET;
    let key = key_of(request.uri().path());
    let key = key.as_deref();
    if let Some((key, bytes)) = key.and_then(|key| Some((key, site.served.get(key)?))) {
        if !get_or_head {
            assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED, "{context}");
            assert!(body.is_empty(), "{context}");
            return;
        }
        assert_eq!(status, StatusCode::OK, "{context}");
        let asset = site
            .assets
            .get(key)
            .or_else(|| site.assets.get(&format!("{key}index.html")))
            .unwrap();
        if is_head {
            assert!(body.is_empty(), "{context}");
        } else {
            assert!(
                is_body_of(asset, coding(headers), &body, Some(bytes.as_slice())),
                "not the bytes of {key}, {context}"
            );
        }
        if site.hashed.iter().any(|url| url == key) {
            // A body compressed against a dictionary is for this client alone.
            let policy = if coding(headers).is_some_and(Encoding::needs_dictionary) {
                "private, max-age=31536000, immutable"
            } else {
                ServeAssets::FINGERPRINTED_CACHE_CONTROL
            };
            assert_eq!(headers[CACHE_CONTROL], policy, "{context}");
            let (prefix, suffix) = super::hashed::hashed_parts(key).unwrap();
            let name = &prefix[prefix.rfind('/').map_or(0, |slash| slash + 1)..];
            let expected = format!("match=\"{name}*{suffix}\"");
            assert_eq!(
                headers.get(USE_AS_DICTIONARY).map(HeaderValue::as_bytes),
                Some(expected.as_bytes()),
                "{context}"
            );
        }
        return;
    }
    if key.is_some_and(|key| site.is_other_version(key)) {
        assert_eq!(status, StatusCode::NOT_FOUND, "{context}");
        assert_eq!(headers[CACHE_CONTROL], "no-store", "{context}");
        assert!(!headers.contains_key(ETAG), "{context}");
        assert!(
            headers[CONTENT_TYPE].as_bytes().starts_with(b"text/plain"),
            "{context}"
        );
        let expected: &[u8] = if is_head { b"" } else { b"404 Not Found\n" };
        assert_eq!(body, expected, "{context}");
        return;
    }
    let page_like =
        key.is_some_and(|key| !key.rsplit('/').next().unwrap_or_default().contains('.'));
    if options & SPA != 0 && get_or_head && page_like && accepts_html(request.headers()) {
        assert_eq!(status, StatusCode::OK, "{context}");
        assert!(
            vary(headers).iter().any(|member| member == "accept"),
            "{context}"
        );
        let page = site.assets.get("/index.html").unwrap();
        assert!(
            is_head && body.is_empty() || is_body_of(page, coding(headers), &body, None),
            "not the page's bytes, {context}"
        );
        return;
    }
    assert_eq!(status, StatusCode::NOT_FOUND, "{context}");
    if is_head {
        assert!(body.is_empty(), "{context}");
    } else if options & NOT_FOUND_PAGE != 0 {
        let page = site.assets.get("/404.html").unwrap();
        assert!(
            is_body_of(page, coding(headers), &body, None),
            "not the 404 page, {context}"
        );
    } else {
        assert_eq!(body, b"404 Not Found\n", "{context}");
    }
}

/// Whether `body` is `asset`'s stored body in `coding` (one of its dictionary bodies
/// for `dcb`, `dcz`), and, sent as identity, the file's `bytes` when they are known.
fn is_body_of(asset: &Asset, coding: Option<Encoding>, body: &[u8], bytes: Option<&[u8]>) -> bool {
    match coding {
        Some(Encoding::Identity) => {
            let identity = asset.variant(Encoding::Identity).unwrap().body();
            identity == body && bytes.is_none_or(|bytes| bytes == body)
        }
        Some(dictionary @ (Encoding::DictionaryBrotli | Encoding::DictionaryZstd)) => asset
            .deltas()
            .iter()
            .any(|delta| delta.encoding() == dictionary && delta.body() == body),
        Some(encoding) => asset
            .variant(encoding)
            .is_some_and(|variant| variant.body() == body),
        None => false,
    }
}

/// The coding `Content-Encoding` names (identity without the field); `None` for one
/// that is no coding of the crate.
fn coding(headers: &HeaderMap) -> Option<Encoding> {
    let Some(value) = headers.get(CONTENT_ENCODING) else {
        return Some(Encoding::Identity);
    };
    [
        Encoding::DictionaryBrotli,
        Encoding::DictionaryZstd,
        Encoding::Brotli,
        Encoding::Zstd,
        Encoding::Gzip,
    ]
    .into_iter()
    .find(|encoding| value == encoding.as_str())
}

/// The options named on an optional first line `@ word…` of `data`, and the rest.
fn options(data: &[u8]) -> (usize, &[u8]) {
    let (words, rest) = crate::respond::option_words(data);
    let options = words
        .into_iter()
        .map(|word| match word {
            b"spa" => SPA,
            b"404" => NOT_FOUND_PAGE,
            _ => 0,
        })
        .fold(0, |all, option| all | option);
    (options, rest)
}
