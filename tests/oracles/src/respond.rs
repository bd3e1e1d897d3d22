//! The whole answer of [`ServeAssets::respond`] to an arbitrary request.

use std::collections::HashMap;
use std::future::Future;
use std::path::PathBuf;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use http::header::{
    ACCEPT, ALLOW, CACHE_CONTROL, CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_RANGE, CONTENT_TYPE,
    ETAG, LAST_MODIFIED, LOCATION, VARY,
};
use http::{HeaderMap, HeaderName, HeaderValue, Method, Request, Response, StatusCode};
use http_body::Body as _;
use percent_encoding::percent_decode;

use super::negotiate::Weights;
use super::path::key_of;
use super::{
    ByteRange, Precondition, RangeSelection, evaluate_preconditions, lines, select_ranges, trim_ows,
};
use embed_assets::{Asset, Assets, Body, Encoding, RequestHead, ServeAssets};

/// Option `spa`: `spa_fallback("/index.html")`.
const SPA: u8 = 1;
/// Option `clean`: `clean_urls()`.
const CLEAN: u8 = 2;
/// Option `404`: `not_found_page("/docs/index.html")`.
const NOT_FOUND_PAGE: u8 = 4;
/// Option `cache`: [`CACHE_RULES`] and [`CACHE_DEFAULT`].
const CACHE: u8 = 8;
/// Option `dev`: `dev_folder` of the fixture's own folder.
const DEV: u8 = 16;
/// Option `fingerprint`: the table built with `fingerprint = true`.
const FINGERPRINT: u8 = 32;
/// Option `disk`: the table built with `max_embed_size = "2 KiB"` and its style sheets
/// listed in `disk` (files on disk).
const DISK: u8 = 64;
/// Option `mount`: the request names the mount point `/static` without its slash
/// (`RequestHead::at_bare_mount`, as adapters and axum's `nest_service` report it).
const MOUNT: u8 = 128;

/// `cache_control_for` rules of option `cache`: nested prefixes, so the longest wins.
const CACHE_RULES: [(&str, &str); 3] = [
    ("/css/", "public, max-age=60"),
    ("/css/site", "max-age=1"),
    ("/docs/", "no-store"),
];
/// `cache_control` of option `cache`.
const CACHE_DEFAULT: &str = "private, no-cache";

/// The services the `respond` target chooses from: one per combination of options,
/// over four tables of the same folder (which must hold `/index.html`, the single-page
/// app's page, and `/docs/index.html`, the 404 page, both under 2 KiB, as
/// `fuzz/fixture` does). [`fixture!`](crate::fixture) embeds them and makes one.
#[derive(Debug)]
pub struct Fixture {
    tables: [&'static Assets; 4],
    services: Vec<ServeAssets>,
    /// The bytes of the files left on disk, by URL path.
    on_disk: HashMap<&'static str, Vec<u8>>,
    /// Runs the answers that read files.
    runtime: tokio::runtime::Runtime,
}

impl Fixture {
    /// The services over `tables` (plain, fingerprinted, on disk, both), in dev mode
    /// reading `folder`, the folder the tables embed.
    ///
    /// # Panics
    /// If a table lacks the two pages, or a file on disk cannot be read.
    pub fn new(tables: [&'static Assets; 4], folder: impl Into<PathBuf>) -> Self {
        let folder = folder.into();
        let services = (0..MOUNT)
            .map(|options| {
                let table = usize::from((options & (FINGERPRINT | DISK)) / FINGERPRINT);
                let mut service = tables[table].service();
                if options & SPA != 0 {
                    service = service.spa_fallback("/index.html");
                }
                if options & CLEAN != 0 {
                    service = service.clean_urls();
                }
                if options & NOT_FOUND_PAGE != 0 {
                    service = service.not_found_page("/docs/index.html");
                }
                if options & CACHE != 0 {
                    service = service.cache_control(HeaderValue::from_static(CACHE_DEFAULT));
                    for (prefix, value) in CACHE_RULES {
                        service =
                            service.cache_control_for(prefix, HeaderValue::from_static(value));
                    }
                }
                if options & DEV != 0 {
                    service = service.dev_folder(&folder);
                }
                service
            })
            .collect();
        let on_disk = tables
            .iter()
            .flat_map(|table| table.iter())
            .filter_map(|asset| Some((asset.path(), asset.disk_path()?)))
            .map(|(path, relative)| {
                let file = folder.join(relative);
                let bytes = std::fs::read(&file)
                    .unwrap_or_else(|err| panic!("cannot read {}: {err}", file.display()));
                (path, bytes)
            })
            .collect();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap_or_else(|err| panic!("no tokio runtime: {err}"));
        Fixture {
            tables,
            services,
            on_disk,
            runtime,
        }
    }
}

impl Fixture {
    /// The tables: plain, fingerprinted, with files on disk, both.
    pub fn tables(&self) -> [&'static Assets; 4] {
        self.tables
    }
}

/// `static NAME: LazyLock<Fixture>` over the folder `dir` (relative to the calling
/// crate, as for `embed_assets!`), embedded four times as [`Fixture`] needs. The
/// caller depends on `embed-assets`.
#[macro_export]
macro_rules! fixture {
    ($vis:vis static $name:ident = $dir:literal) => {
        $vis static $name: ::std::sync::LazyLock<$crate::Fixture> =
            ::std::sync::LazyLock::new(|| {
                use ::embed_assets::{embed_assets, Assets};
                static PLAIN: Assets = embed_assets!($dir);
                static FINGERPRINTED: Assets = embed_assets!($dir, fingerprint = true);
                static ON_DISK: Assets = embed_assets!(
                    $dir,
                    max_embed_size = "2 KiB",
                    disk = "**/*.css",
                    on_disk = "allow"
                );
                static BOTH: Assets = embed_assets!(
                    $dir,
                    fingerprint = true,
                    max_embed_size = "2 KiB",
                    disk = "**/*.css",
                    on_disk = "allow"
                );
                let folder = concat!(env!("CARGO_MANIFEST_DIR"), "/", $dir);
                $crate::Fixture::new([&PLAIN, &FINGERPRINTED, &ON_DISK, &BOTH], folder)
            });
    };
}

/// The words of an optional first line `@ word…` of `data` (none without it), and the
/// rest of `data`: how the request-level targets name their options.
pub(crate) fn option_words(data: &[u8]) -> (Vec<&[u8]>, &[u8]) {
    let Some(rest) = data.strip_prefix(b"@") else {
        return (Vec::new(), data);
    };
    let (line, rest) = match rest.iter().position(|&b| b == b'\n') {
        Some(end) => (&rest[..end], &rest[end + 1..]),
        None => (rest, &b""[..]),
    };
    (line.split(|&b| b == b' ').collect(), rest)
}

/// The options named on an optional first line `@ word…` of `data` (`spa`, `clean`,
/// `404`, `cache`, `dev`, `fingerprint`, `disk`, `mount`; other words are ignored),
/// and the rest of `data`.
fn options(data: &[u8]) -> (u8, &[u8]) {
    let (words, rest) = option_words(data);
    let options = words
        .into_iter()
        .map(|word| match word {
            b"spa" => SPA,
            b"clean" => CLEAN,
            b"404" => NOT_FOUND_PAGE,
            b"cache" => CACHE,
            b"dev" => DEV,
            b"fingerprint" => FINGERPRINT,
            b"disk" => DISK,
            b"mount" => MOUNT,
            _ => 0,
        })
        .fold(0, |all, option| all | option);
    (options, rest)
}

/// Fuzz target `respond`: `data` is an optional line `@ option…` choosing the service
/// of `fixture` and how the request reaches it (`spa`, `clean`, `404`, `cache`, `dev`,
/// `fingerprint`, `disk`, `mount`: see [`Fixture`]), then a request head,
/// `METHOD TARGET` on the first line (a line without a space is a target for GET) and
/// `name: value` on each further line; parts that are not valid HTTP are dropped, as a
/// server's parser would.
///
/// - The status is the one the decisions give: 404 exactly when the path, decoded once
///   and refused when unsafe, names no asset and no directory with an index; 301 to a
///   relative `./dir/` for a directory without its slash; 405 for other methods;
///   then 412, 304, 416, 206 or 200 as the preconditions and ranges decide.
/// - The encoding is the stored one of highest q in `Accept-Encoding`, never one the
///   request gives q=0; `ETag`, `Content-Encoding`, `Content-Type`, `Vary` and
///   `Last-Modified` all describe that stored variant.
/// - A 200 carries the variant's bytes, a 206 exactly the requested slices of them
///   (each part of a `multipart/byteranges` body too), with a `Content-Length` equal
///   to the body's length; HEAD, 304, 412, 416, 405 and 301 carry no body.
/// - With `clean`, `/x` names `/x.html` when nothing else answers `/x`; with `spa`, an
///   unknown GET/HEAD path whose last segment has no `.` and whose `Accept` lists
///   `text/html` (q > 0) gets the page with `no-cache` and `Vary: Accept`, and every
///   404 varies on `Accept`; with `404`, a 404 carries the page's negotiated bytes and
///   no validators; 200, 206 and 304 carry the `Cache-Control` of the longest rule
///   prefixing the asset's path (or the default), [`ServeAssets::FINGERPRINTED_CACHE_CONTROL`] at a
///   fingerprinted URL outside dev mode; in dev mode and for a file on disk, the
///   identity bytes read from the file, with the ETag the build gave them; mounted,
///   the mount point itself redirects to `./static/`.
///
/// # Panics
/// When an invariant does not hold, or when the service answers an embedded asset
/// outside dev mode asynchronously (it must not do I/O).
pub fn check_response(fixture: &Fixture, data: &[u8]) {
    let (options, data) = options(data);
    let Some(request) = parse_request(data) else {
        return;
    };
    let service = &fixture.services[usize::from(options & !MOUNT)];
    let head = RequestHead::from_request(&request);
    let head = if options & MOUNT != 0 {
        head.at_bare_mount("static")
    } else {
        head
    };
    let future = service.respond_head(head);
    let (parts, body) = if options & (DEV | DISK) == 0 {
        let (parts, body) = ready(future).into_parts();
        (parts, collect(body))
    } else {
        fixture.runtime.block_on(async {
            let (parts, body) = future.await.into_parts();
            (parts, collect_async(body).await)
        })
    };
    let context = format!(
        "options {options:#b}, {request:?}\n-> {} {:?}",
        parts.status, parts.headers
    );
    Expectation::new(fixture, service.assets(), options, &request).check(
        parts.status,
        &parts.headers,
        &body,
        &context,
    );
}

/// What the request should get, worked out from the table and the request alone.
struct Expectation<'r> {
    request: &'r Request<()>,
    /// The asset the path names, directly or as a directory's index file.
    asset: Option<&'static Asset>,
    /// `/dir` when `/dir/index.html` exists.
    redirect: bool,
    /// The asset is the single-page app's page, for an unknown path.
    fallback: bool,
    options: u8,
    not_found_page: Option<&'static Asset>,
    weights: Weights,
    /// The request named the asset by its fingerprinted URL.
    fingerprinted: bool,
    /// The mount point itself was requested (`/static` for a service at `/static/`).
    at_mount: bool,
    fixture: &'r Fixture,
}

impl<'r> Expectation<'r> {
    fn new(
        fixture: &'r Fixture,
        assets: &'static Assets,
        options: u8,
        request: &'r Request<()>,
    ) -> Self {
        let key = key_of(request.uri().path());
        let index = |dir: &str| assets.get(&format!("{dir}index.html"));
        let asset = key.as_deref().and_then(|key| {
            assets
                .get(key)
                .or_else(|| key.ends_with('/').then(|| index(key)).flatten())
        });
        let at_mount = options & MOUNT != 0 && key.as_deref() == Some("/") && index("/").is_some();
        let asset = asset.filter(|_| !at_mount);
        let fingerprinted = asset
            .zip(key.as_deref())
            .is_some_and(|(asset, key)| asset.fingerprinted_path() == Some(key));
        let redirect = at_mount
            || asset.is_none()
                && key
                    .as_deref()
                    .is_some_and(|key| !key.ends_with('/') && index(&format!("{key}/")).is_some());
        let mut asset = asset;
        if asset.is_none() && !redirect && options & CLEAN != 0 {
            asset = key
                .as_deref()
                .filter(|key| !key.ends_with('/'))
                .and_then(|key| assets.get(&format!("{key}.html")));
        }
        let method = request.method();
        let fallback = asset.is_none()
            && !redirect
            && options & SPA != 0
            && (method == Method::GET || method == Method::HEAD)
            && key
                .as_deref()
                .is_some_and(|key| !key.rsplit('/').next().unwrap_or_default().contains('.'))
            && accepts_html(request.headers());
        if fallback {
            asset = assets.get("/index.html");
        }
        Expectation {
            request,
            asset,
            redirect,
            fallback,
            options,
            not_found_page: assets
                .get("/docs/index.html")
                .filter(|_| options & NOT_FOUND_PAGE != 0),
            weights: Weights::of(request.headers()),
            fingerprinted,
            at_mount,
            fixture,
        }
    }

    fn check(&self, status: StatusCode, headers: &HeaderMap, body: &[u8], context: &str) {
        let method = self.request.method();
        let is_head = method == Method::HEAD;
        let is_get_or_head = method == Method::GET || is_head;
        if !has_one_valid_host(self.request) {
            assert_eq!(status, StatusCode::BAD_REQUEST, "{context}");
            assert!(body.is_empty(), "{context}");
            return;
        }
        if !is_get_or_head && (self.asset.is_some() || self.redirect) {
            assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED, "{context}");
            assert_eq!(headers[ALLOW], "GET, HEAD", "{context}");
            assert!(body.is_empty(), "{context}");
            return;
        }
        let Some(asset) = self.asset else {
            if self.redirect {
                assert_eq!(status, StatusCode::MOVED_PERMANENTLY, "{context}");
                // A URI-reference: visible ASCII only, relative, the query kept.
                let location = headers[LOCATION].as_bytes();
                assert!(location.iter().all(u8::is_ascii_graphic), "{context}");
                let location = std::str::from_utf8(location).unwrap();
                let (path, query) = match location.split_once('?') {
                    Some((path, query)) => (path, Some(query)),
                    None => (location, None),
                };
                assert!(path.starts_with("./") && path.ends_with('/'), "{context}");
                if self.at_mount {
                    assert_eq!(path, "./static/", "{context}");
                }
                let decoded = |query: &str| percent_decode(query.as_bytes()).collect::<Vec<u8>>();
                assert_eq!(
                    query.map(decoded),
                    self.request.uri().query().map(decoded),
                    "{context}"
                );
                assert!(body.is_empty(), "{context}");
                return;
            }
            assert_eq!(status, StatusCode::NOT_FOUND, "{context}");
            assert_eq!(
                vary(headers).contains(&"accept".to_owned()),
                self.options & SPA != 0,
                "Vary: Accept on a 404 exactly with a single-page app, {context}"
            );
            let Some(page) = self.not_found_page else {
                let expected: &[u8] = if is_head { b"" } else { b"404 Not Found\n" };
                assert_eq!(body, expected, "{context}");
                assert_eq!(headers[CONTENT_LENGTH], "14", "{context}");
                return;
            };
            // The page, negotiated, without validators a cache could revalidate.
            assert!(!headers.contains_key(ETAG), "{context}");
            assert!(!headers.contains_key(LAST_MODIFIED), "{context}");
            assert_eq!(headers[CONTENT_TYPE], page.content_type(), "{context}");
            let encoding = if page.is_negotiated() {
                self.weights
                    .best(|encoding| page.variant(encoding).is_some())
            } else {
                Encoding::Identity
            };
            let variant = page.variant(encoding).unwrap();
            assert_eq!(
                headers[CONTENT_LENGTH],
                variant.len().to_string(),
                "{context}"
            );
            if !is_head {
                assert!(body == variant.body(), "404 page body differs, {context}");
            }
            return;
        };
        let served = self.served(asset);
        let (encoding, modified) = (served.encoding, modified_secs(asset));
        let etag = &*served.etag;
        let len = served.bytes.len() as u64;
        let request = self.request.headers();
        let expected = match evaluate_preconditions(method, request, etag, modified) {
            Precondition::Failed => StatusCode::PRECONDITION_FAILED,
            Precondition::NotModified => StatusCode::NOT_MODIFIED,
            Precondition::Proceed => match select_ranges(method, request, etag, modified, len) {
                RangeSelection::Full => StatusCode::OK,
                RangeSelection::Unsatisfiable => StatusCode::RANGE_NOT_SATISFIABLE,
                RangeSelection::Single(_) | RangeSelection::Multiple(_) => {
                    StatusCode::PARTIAL_CONTENT
                }
            },
        };
        assert_eq!(status, expected, "{context}");
        if status == StatusCode::PRECONDITION_FAILED {
            assert!(body.is_empty(), "{context}");
            return;
        }
        // Every other answer describes the variant: its validators, and whether it varies.
        assert_eq!(headers[ETAG], etag, "{context}");
        assert_eq!(headers[LAST_MODIFIED], asset.last_modified(), "{context}");
        let varies = vary(headers);
        assert_eq!(
            varies.contains(&"accept-encoding".to_owned()),
            served.negotiated,
            "{context}"
        );
        assert_eq!(
            varies.contains(&"accept".to_owned()),
            self.fallback,
            "{context}"
        );
        if status != StatusCode::RANGE_NOT_SATISFIABLE {
            let expected = self.cache_control(asset);
            assert_eq!(headers[CACHE_CONTROL], expected, "{context}");
        }
        if status == StatusCode::NOT_MODIFIED || status == StatusCode::RANGE_NOT_SATISFIABLE {
            assert!(body.is_empty(), "{context}");
            for name in [CONTENT_TYPE, CONTENT_ENCODING, CONTENT_LENGTH] {
                assert!(
                    !headers.contains_key(&name),
                    "{name} on {status}, {context}"
                );
            }
            if status == StatusCode::RANGE_NOT_SATISFIABLE {
                let unsatisfied = format!("bytes */{}", len);
                assert_eq!(headers[CONTENT_RANGE], *unsatisfied, "{context}");
            }
            return;
        }
        match headers.get(CONTENT_ENCODING) {
            Some(coding) => {
                assert_eq!(coding, encoding.as_str(), "{context}");
                assert!(
                    self.weights.quality(encoding) > 0,
                    "q=0 coding sent, {context}"
                );
            }
            None => assert_eq!(encoding, Encoding::Identity, "{context}"),
        }
        if is_head {
            assert!(body.is_empty(), "HEAD with a body, {context}");
        } else {
            assert_eq!(headers[CONTENT_LENGTH], body.len().to_string(), "{context}");
        }
        if status == StatusCode::OK {
            assert_eq!(headers[CONTENT_TYPE], asset.content_type(), "{context}");
            assert_eq!(headers[CONTENT_LENGTH], len.to_string(), "{context}");
            if !is_head {
                assert!(body == served.bytes, "200 body differs, {context}");
            }
            return;
        }
        let ranges = match select_ranges(method, request, etag, modified, len) {
            RangeSelection::Single(range) => vec![range],
            RangeSelection::Multiple(ranges) => ranges,
            other => panic!("206 for {other:?}, {context}"),
        };
        if let [range] = ranges[..] {
            assert_eq!(headers[CONTENT_TYPE], asset.content_type(), "{context}");
            let content_range = format!("bytes {}-{}/{}", range.start, range.end, len);
            assert_eq!(headers[CONTENT_RANGE], *content_range, "{context}");
            assert!(
                body == slice(served.bytes, range),
                "206 body differs, {context}"
            );
            return;
        }
        let content_type = headers[CONTENT_TYPE].to_str().unwrap();
        let boundary = content_type
            .strip_prefix("multipart/byteranges; boundary=")
            .unwrap_or_else(|| panic!("not multipart, {context}"));
        let parts = multipart_parts(body, boundary, context);
        assert_eq!(parts.len(), ranges.len(), "{context}");
        for (part, range) in parts.iter().zip(&ranges) {
            assert_eq!(part.content_type, asset.content_type(), "{context}");
            assert_eq!((part.range, part.complete), (*range, len), "{context}");
            assert!(
                part.bytes == slice(served.bytes, *range),
                "part differs, {context}"
            );
        }
    }
}

impl Expectation<'_> {
    /// The `Cache-Control` of a 200, 206 or 304 for `asset` (RFC 9110 §15.4.5: a 304
    /// sends what the 200 would).
    fn cache_control(&self, asset: &Asset) -> &'static str {
        if self.fallback {
            return "no-cache";
        }
        if self.fingerprinted && self.options & DEV == 0 {
            return ServeAssets::FINGERPRINTED_CACHE_CONTROL;
        }
        if self.options & CACHE == 0 {
            return ServeAssets::DEFAULT_CACHE_CONTROL;
        }
        CACHE_RULES
            .iter()
            .filter(|(prefix, _)| asset.path().starts_with(prefix))
            .max_by_key(|(prefix, _)| prefix.len())
            .map_or(CACHE_DEFAULT, |(_, value)| value)
    }
}

/// The representation a request for an asset gets.
struct Served<'a> {
    encoding: Encoding,
    etag: std::borrow::Cow<'a, str>,
    bytes: &'a [u8],
    /// Other encodings could have been chosen: `Vary: Accept-Encoding`.
    negotiated: bool,
}

impl Expectation<'_> {
    /// From memory, the stored variant of highest q; from a file (dev mode, on disk),
    /// its identity bytes with the content ETag of those bytes (the build's, for an
    /// unchanged file in dev mode; computed when the file is read, for one on disk).
    fn served(&self, asset: &'static Asset) -> Served<'_> {
        if !asset.is_embedded() {
            let bytes = &self.fixture.on_disk[asset.path()];
            use sha2::Digest;
            let etag = embed_assets_shared::etag::content(&sha2::Sha256::digest(bytes));
            return Served {
                encoding: Encoding::Identity,
                etag: etag.into(),
                bytes,
                negotiated: false,
            };
        }
        if self.options & DEV != 0 {
            let identity = asset.variant(Encoding::Identity).unwrap();
            return Served {
                encoding: Encoding::Identity,
                etag: identity.etag().into(),
                bytes: identity.body(),
                negotiated: false,
            };
        }
        let encoding = if asset.is_negotiated() {
            self.weights
                .best(|encoding| asset.variant(encoding).is_some())
        } else {
            Encoding::Identity
        };
        let variant = asset.variant(encoding).unwrap();
        Served {
            encoding,
            etag: variant.etag().into(),
            bytes: variant.body(),
            negotiated: asset.is_negotiated(),
        }
    }
}

/// The members of every `Vary` line, lowercased.
pub(crate) fn vary(headers: &HeaderMap) -> Vec<String> {
    headers
        .get_all(VARY)
        .iter()
        .flat_map(|line| line.to_str().unwrap_or_default().split(','))
        .map(|member| member.trim().to_ascii_lowercase())
        .collect()
}

/// Whether some member of `Accept` (RFC 9110 §12.5.1) is `text/html` with q > 0.
pub(crate) fn accepts_html(headers: &HeaderMap) -> bool {
    headers
        .get_all(ACCEPT)
        .iter()
        .flat_map(|line| line.as_bytes().split(|&b| b == b','))
        .any(|member| {
            let mut parts = member.split(|&b| b == b';').map(trim_ows);
            let range = parts.next().unwrap_or_default();
            range.eq_ignore_ascii_case(b"text/html")
                && parts.all(|param| match param.split_first() {
                    Some((b'q' | b'Q', rest)) if rest.first() == Some(&b'=') => {
                        crate::negotiate::qvalue(&rest[1..]).is_some_and(|q| q > 0)
                    }
                    _ => true,
                })
        })
}

/// RFC 9112 §3.2 for the HTTP/1.1 requests this target builds: exactly one `Host`
/// line, whose value is `host [ ":" port ]` as RFC 3986 §3.2.2 spells `reg-name` and
/// `IP-literal` (no userinfo, no path).
fn has_one_valid_host(request: &Request<()>) -> bool {
    let hosts: Vec<&HeaderValue> = request
        .headers()
        .get_all(http::header::HOST)
        .iter()
        .collect();
    if request.uri().authority().is_some() && hosts.is_empty() {
        return true;
    }
    let [host] = hosts[..] else {
        return false;
    };
    let unreserved = |b: u8| b.is_ascii_alphanumeric() || b"-._~".contains(&b);
    let sub_delim = |b: u8| b"!$&'()*+,;=".contains(&b);
    host.as_bytes()
        .iter()
        .all(|&b| unreserved(b) || sub_delim(b) || b"%:[]".contains(&b))
}

fn slice(body: &[u8], range: ByteRange) -> &[u8] {
    let (start, end) = (range.start as usize, range.end as usize);
    assert!(
        start <= end && end < body.len(),
        "{range:?} outside the body"
    );
    &body[start..=end]
}

/// One part of a `multipart/byteranges` body (RFC 9110 §14.6).
struct Part<'a> {
    content_type: &'a str,
    range: ByteRange,
    complete: u64,
    bytes: &'a [u8],
}

/// Splits a `multipart/byteranges` body into its parts, reading each part's length
/// from its `Content-Range`.
fn multipart_parts<'a>(body: &'a [u8], boundary: &str, context: &str) -> Vec<Part<'a>> {
    let delimiter = format!("\r\n--{boundary}");
    let mut parts = Vec::new();
    let mut rest = body;
    loop {
        rest = rest
            .strip_prefix(delimiter.as_bytes())
            .unwrap_or_else(|| panic!("no delimiter, {context}"));
        if rest == b"--\r\n" {
            return parts;
        }
        rest = rest.strip_prefix(b"\r\n").unwrap();
        let end = rest
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .unwrap_or_else(|| panic!("unterminated part head, {context}"));
        let head = std::str::from_utf8(&rest[..end]).unwrap();
        rest = &rest[end + 4..];
        let (mut content_type, mut content_range) = (None, None);
        for field in head.split("\r\n") {
            let (name, value) = field.split_once(": ").unwrap();
            let name = HeaderName::from_bytes(name.as_bytes()).unwrap();
            if name == CONTENT_TYPE {
                content_type = Some(value);
            } else if name == CONTENT_RANGE {
                content_range = Some(value);
            } else {
                panic!("unexpected part field {name}, {context}");
            }
        }
        let (range, complete) = content_range
            .and_then(|value| {
                let (span, complete) = value.strip_prefix("bytes ")?.split_once('/')?;
                let (start, end) = span.split_once('-')?;
                let range = ByteRange {
                    start: start.parse().ok()?,
                    end: end.parse().ok()?,
                };
                Some((range, complete.parse().ok()?))
            })
            .unwrap_or_else(|| panic!("bad part Content-Range, {context}"));
        let len = (range.end - range.start + 1) as usize;
        assert!(rest.len() >= len, "short part, {context}");
        parts.push(Part {
            content_type: content_type.unwrap_or_default(),
            range,
            complete,
            bytes: &rest[..len],
        });
        rest = &rest[len..];
    }
}

/// The request head in `data`, or `None` when its first line is no valid request line.
/// It is an HTTP/1.1 request; without a `Host` line it gets `Host: localhost`.
pub(crate) fn parse_request(data: &[u8]) -> Option<Request<()>> {
    let mut lines = lines(data);
    let first = lines.next()?;
    let (method, target) = match first.iter().position(|&b| b == b' ') {
        Some(space) => (
            Method::from_bytes(&first[..space]).ok()?,
            &first[space + 1..],
        ),
        None => (Method::GET, first),
    };
    let mut request = Request::builder()
        .method(method)
        .uri(http::Uri::try_from(target).ok()?)
        .body(())
        .ok()?;
    for line in lines {
        let Some(colon) = line.iter().position(|&b| b == b':') else {
            continue;
        };
        let name = HeaderName::from_bytes(trim_ows(&line[..colon]));
        let value = HeaderValue::from_bytes(trim_ows(&line[colon + 1..]));
        if let (Ok(name), Ok(value)) = (name, value) {
            request.headers_mut().append(name, value);
        }
    }
    // A head without `Host` is given one, so that inputs reach the asset decisions;
    // repeated and invalid `Host` lines stay as written and must get 400.
    if !request.headers().contains_key(http::header::HOST) {
        let localhost = HeaderValue::from_static("localhost");
        request.headers_mut().insert(http::header::HOST, localhost);
    }
    Some(request)
}

/// The response of a future that must be ready at once (embedded assets).
pub(crate) fn ready(future: impl Future<Output = Response<Body>>) -> Response<Body> {
    let mut cx = Context::from_waker(Waker::noop());
    match pin!(future).poll(&mut cx) {
        Poll::Ready(response) => response,
        Poll::Pending => panic!("an embedded asset's response was not ready at once"),
    }
}

/// Every byte of a body, however it arrives.
async fn collect_async(body: Body) -> Vec<u8> {
    let mut body = pin!(body);
    let mut bytes = Vec::new();
    while let Some(frame) = std::future::poll_fn(|cx| body.as_mut().poll_frame(cx)).await {
        let frame = frame.unwrap_or_else(|err| panic!("body failed: {err}"));
        if let Ok(data) = frame.into_data() {
            bytes.extend_from_slice(&data);
        }
    }
    bytes
}

/// Every byte of a body whose frames are all ready (embedded bytes).
pub(crate) fn collect(body: Body) -> Vec<u8> {
    let mut body = pin!(body);
    let mut cx = Context::from_waker(Waker::noop());
    let mut bytes = Vec::new();
    loop {
        match body.as_mut().poll_frame(&mut cx) {
            Poll::Ready(Some(Ok(frame))) => {
                if let Ok(data) = frame.into_data() {
                    bytes.extend_from_slice(&data);
                }
            }
            Poll::Ready(None) => return bytes,
            Poll::Ready(Some(Err(err))) => panic!("body failed: {err}"),
            Poll::Pending => panic!("an embedded body was not ready at once"),
        }
    }
}

/// `Last-Modified` of `asset` in seconds since the Unix epoch.
fn modified_secs(asset: &Asset) -> u64 {
    asset
        .modified()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_secs())
}
