//! A real nginx with `proxy_cache` in front of our server, both on 127.0.0.1: every
//! response must be correctly cacheable by a CDN or caching proxy (validators, `Vary`,
//! `Cache-Control`), since that is how the assets scale beyond one machine.
//!
//! Each test starts its own server (the fixture site, with a recording middleware
//! that shows which requests got past the cache) and its own nginx (config, pid,
//! logs, temp files and cache in a fresh folder). nginx reports what its cache did
//! in `X-Cache` (`$upstream_cache_status`; see `integration_tests::caches`).
//!
//! Needs nginx (Debian package `nginx-light` or `nginx`); `bash tests/run.sh`
//! installs it.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Request, State};
use axum::middleware::{self, Next};
use axum::response::Response;
use http::header::{
    ACCEPT_ENCODING, CACHE_CONTROL, CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_RANGE, CONTENT_TYPE,
    ETAG, IF_NONE_MATCH, LINK, RANGE, VARY,
};
use http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode};
use integration_tests::caches::{CacheKind, CacheProcess, X_CACHE};
use integration_tests::{
    Reply, SITE, app, decode_body, fixture, get, head, header, list_values, spawn_router,
};

/// A policy long enough that nothing expires during a test, so that whether a request
/// is a HIT never depends on timing.
const LONG: &str = "public, max-age=600";

#[tokio::test]
async fn a_second_request_is_a_cache_hit_that_never_reaches_the_server() {
    let Some(proxy) = Proxy::start(LONG).await else {
        return;
    };
    let br = [("accept-encoding", "br")];

    let first = get(proxy.addr(), "/data.json", &br).await;
    assert_eq!(first.0, StatusCode::OK);
    assert_eq!(cache_status(&first), "MISS");
    assert_eq!(header(&first.1, CACHE_CONTROL), Some(LONG));
    assert_eq!(decode_body(&first.1, &first.2), fixture("/data.json"));

    let second = get(proxy.addr(), "/data.json", &br).await;
    assert_eq!(second.0, StatusCode::OK);
    assert_eq!(cache_status(&second), "HIT");
    assert_eq!(
        second.2, first.2,
        "the cached bytes are the bytes first sent"
    );
    assert_eq!(header(&second.1, ETAG), header(&first.1, ETAG));
    assert_eq!(
        header(&second.1, CONTENT_ENCODING),
        header(&first.1, CONTENT_ENCODING)
    );

    let seen = proxy.log.requests_for("/data.json");
    assert_eq!(seen.len(), 1, "only the MISS reached the server: {seen:#?}");
}

#[tokio::test]
async fn br_gzip_and_identity_clients_each_get_their_own_bytes_from_the_cache() {
    let Some(proxy) = Proxy::start(LONG).await else {
        return;
    };
    let path = "/css/app.css";
    let clients = [
        ("br", Some("br")),
        ("gzip", Some("gzip")),
        ("identity", None),
    ];

    // Each client first: a MISS each, because `Vary: Accept-Encoding` makes nginx keep
    // one cached variant per Accept-Encoding value.
    let mut first_bodies = Vec::new();
    for (accept, coding) in clients {
        let reply = get(proxy.addr(), path, &[("accept-encoding", accept)]).await;
        assert_eq!(reply.0, StatusCode::OK, "{accept}");
        assert_eq!(cache_status(&reply), "MISS", "{accept}");
        assert_representation(&reply, path, coding, accept);
        first_bodies.push(reply.2);
    }
    // Then each again, in another order: every one a HIT with its own coding.
    for ((accept, coding), first_body) in clients.into_iter().zip(first_bodies).rev() {
        let reply = get(proxy.addr(), path, &[("accept-encoding", accept)]).await;
        assert_eq!(reply.0, StatusCode::OK, "{accept}");
        assert_eq!(cache_status(&reply), "HIT", "{accept}");
        assert_representation(&reply, path, coding, accept);
        assert_eq!(reply.2, first_body, "{accept}: the bytes stored for it");
    }

    let seen = proxy.log.requests_for(path);
    let accepted: Vec<Option<&str>> = seen.iter().map(|s| s.accept_encoding.as_deref()).collect();
    assert_eq!(
        accepted,
        [Some("br"), Some("gzip"), Some("identity")],
        "one request per variant reached the server: {seen:#?}"
    );
}

#[tokio::test]
async fn an_expired_entry_is_revalidated_with_if_none_match_and_refreshed_by_a_304() {
    // Short enough to wait for: nginx counts freshness in whole seconds, so an entry
    // with max-age=2 is fresh for at least 2 s and stale at most 3 s after it was
    // stored. (2 s rather than 1: the HIT after the refreshing 304 must come within
    // the freshness it gives, on a loaded machine too.)
    let Some(proxy) = Proxy::start("public, max-age=2").await else {
        return;
    };
    let path = "/js/app.js";
    let br = [("accept-encoding", "br")];

    let first = get(proxy.addr(), path, &br).await;
    assert_eq!(cache_status(&first), "MISS");
    let etag = header(&first.1, ETAG).expect("ETag").to_owned();

    tokio::time::sleep(Duration::from_millis(3500)).await;
    let second = get(proxy.addr(), path, &br).await;
    assert_eq!(second.0, StatusCode::OK);
    assert_eq!(cache_status(&second), "REVALIDATED");
    assert_eq!(second.2, first.2, "the stored body, still valid");
    assert_eq!(header(&second.1, ETAG), Some(etag.as_str()));
    assert_representation(&second, path, Some("br"), "br");

    let seen = proxy.log.requests_for(path);
    let [_, revalidation] = seen.as_slice() else {
        panic!("expected the MISS and one revalidation, the server saw {seen:#?}");
    };
    assert_eq!(revalidation.method, Method::GET);
    assert_eq!(
        revalidation.if_none_match.as_deref(),
        Some(etag.as_str()),
        "nginx revalidated with the stored ETag: {revalidation:?}"
    );
    assert_eq!(
        revalidation.status,
        StatusCode::NOT_MODIFIED,
        "{revalidation:?}"
    );
    assert_eq!(revalidation.content_length, None, "a 304 has no body");

    // The 304 made the entry fresh again.
    let third = get(proxy.addr(), path, &br).await;
    assert_eq!(cache_status(&third), "HIT");
    assert_eq!(third.2, first.2);
    assert_eq!(proxy.log.requests_for(path).len(), 2);
}

#[tokio::test]
async fn head_through_the_cache_has_the_headers_of_get_and_no_body() {
    let Some(proxy) = Proxy::start(LONG).await else {
        return;
    };
    let path = "/data.json";
    let br = [("accept-encoding", "br")];

    let first_head = head(proxy.addr(), path, &br).await;
    assert_eq!(first_head.0, StatusCode::OK);
    assert_eq!(cache_status(&first_head), "MISS");
    assert!(first_head.2.is_empty(), "HEAD has no body");

    let get_reply = get(proxy.addr(), path, &br).await;
    assert_eq!(
        cache_status(&get_reply),
        "HIT",
        "nginx filled the cache with a GET for the HEAD"
    );
    assert_eq!(decode_body(&get_reply.1, &get_reply.2), fixture(path));

    let second_head = head(proxy.addr(), path, &br).await;
    assert_eq!(cache_status(&second_head), "HIT");
    for (which, reply) in [("first HEAD", &first_head), ("cached HEAD", &second_head)] {
        assert!(reply.2.is_empty(), "{which}: no body");
        for name in [CONTENT_LENGTH, CONTENT_TYPE, CONTENT_ENCODING, ETAG, VARY] {
            assert_eq!(
                header(&reply.1, name.clone()),
                header(&get_reply.1, name.clone()),
                "{which}: {name} as for GET"
            );
        }
        assert_eq!(
            header(&reply.1, CONTENT_LENGTH),
            Some(get_reply.2.len().to_string().as_str()),
            "{which}: Content-Length is the GET body's"
        );
    }

    let seen = proxy.log.requests_for(path);
    let methods: Vec<&Method> = seen.iter().map(|s| &s.method).collect();
    assert_eq!(
        methods,
        [&Method::GET],
        "nginx turns a HEAD MISS into one GET (proxy_cache_convert_head): {seen:#?}"
    );
}

#[tokio::test]
async fn a_range_request_through_the_cache_gets_the_requested_bytes() {
    let Some(proxy) = Proxy::start(LONG).await else {
        return;
    };

    // A MISS: with caching on, nginx asks the server for the whole file (it does not
    // forward Range) and cuts the range from what arrives. Whether that copy is kept
    // depends on the client staying until the whole file has arrived (nginx drops the
    // upstream request when the client leaves early), so the cache is not checked here.
    let image = fixture("/image.png");
    let miss = get(proxy.addr(), "/image.png", &[("range", "bytes=100-199")]).await;
    assert_eq!(miss.0, StatusCode::PARTIAL_CONTENT);
    assert_eq!(cache_status(&miss), "MISS");
    assert_eq!(
        header(&miss.1, CONTENT_RANGE),
        Some(format!("bytes 100-199/{}", image.len()).as_str())
    );
    assert_eq!(miss.2, image[100..200], "bytes 100-199 of image.png");
    let seen = proxy.log.requests_for("/image.png");
    let [only] = seen.as_slice() else {
        panic!("expected one request for image.png, the server saw {seen:#?}");
    };
    assert_eq!((only.range.as_deref(), only.status), (None, StatusCode::OK));

    // HITs: ranges cut from a cached copy of a large file.
    let big = fixture("/big.bin");
    let total = big.len();
    let whole = get(proxy.addr(), "/big.bin", &[]).await;
    assert_eq!(whole.0, StatusCode::OK);
    assert_eq!(whole.2, big);
    for (range, start, end) in [
        ("bytes=1000-1999".to_owned(), 1000, 2000),
        ("bytes=-500".to_owned(), total - 500, total),
        (format!("bytes={}-", total - 70_000), total - 70_000, total),
    ] {
        let part = get(proxy.addr(), "/big.bin", &[("range", &range)]).await;
        assert_eq!(part.0, StatusCode::PARTIAL_CONTENT, "{range}");
        assert_eq!(cache_status(&part), "HIT", "{range}");
        assert_eq!(
            header(&part.1, CONTENT_RANGE),
            Some(format!("bytes {start}-{}/{total}", end - 1).as_str()),
            "{range}"
        );
        assert!(part.2 == big[start..end], "{range}: the bytes of big.bin");
    }
    let beyond = get(
        proxy.addr(),
        "/big.bin",
        &[("range", &format!("bytes={total}-"))],
    )
    .await;
    assert_eq!(beyond.0, StatusCode::RANGE_NOT_SATISFIABLE);
    assert_eq!(
        header(&beyond.1, CONTENT_RANGE),
        Some(format!("bytes */{total}").as_str())
    );
    let seen = proxy.log.requests_for("/big.bin");
    assert_eq!(seen.len(), 1, "one request for the whole file: {seen:#?}");

    // A range of an encoded representation is a range of its encoded bytes (RFC 9110
    // §14.1.2): the cached br body, cut.
    let br = [("accept-encoding", "br")];
    let whole = get(proxy.addr(), "/css/app.css", &br).await;
    assert_representation(&whole, "/css/app.css", Some("br"), "br");
    let part = get(
        proxy.addr(),
        "/css/app.css",
        &[("accept-encoding", "br"), ("range", "bytes=100-299")],
    )
    .await;
    assert_eq!(part.0, StatusCode::PARTIAL_CONTENT);
    assert_eq!(cache_status(&part), "HIT");
    assert_eq!(header(&part.1, CONTENT_ENCODING), Some("br"));
    assert_eq!(
        header(&part.1, CONTENT_RANGE),
        Some(format!("bytes 100-299/{}", whole.2.len()).as_str())
    );
    assert_eq!(part.2, whole.2[100..300]);
}

/// Why a shared cache in front needs another policy than the default: the default `Cache-Control: no-cache`
/// lets any cache store a response and reuse it after a 304 (RFC 9111 §5.2.2.4), but
/// nginx reads it as "do not store" (`ngx_http_upstream_process_cache_control` in
/// `src/http/ngx_http_upstream.c` sets `cacheable = 0` on `no-cache`, `no-store` and
/// `private`), and with the cache on it also drops the client's validators on the way
/// to the server, so every browser revalidation costs the whole body.
#[tokio::test]
async fn with_the_default_no_cache_policy_nginx_stores_nothing_and_sends_every_body_again() {
    let Some(proxy) = Proxy::start_with(SITE.service()).await else {
        return;
    };
    let path = "/data.json";

    let first = get(proxy.addr(), path, &[]).await;
    assert_eq!(first.0, StatusCode::OK);
    assert_eq!(header(&first.1, CACHE_CONTROL), Some("no-cache"));
    let etag = header(&first.1, ETAG).expect("ETag").to_owned();

    let revalidation = get(proxy.addr(), path, &[("if-none-match", &etag)]).await;
    assert_ne!(cache_status(&revalidation), "HIT");
    assert_eq!(
        revalidation.0,
        StatusCode::OK,
        "nginx sends the whole body again although the client has it"
    );
    assert_eq!(revalidation.2, fixture(path));

    let seen = proxy.log.requests_for(path);
    let validators: Vec<Option<&str>> = seen.iter().map(|s| s.if_none_match.as_deref()).collect();
    assert_eq!(
        validators,
        [None, None],
        "both requests reached the server, without the client's If-None-Match: {seen:#?}"
    );
}

/// A policy that works behind a shared cache: `s-maxage` lets the proxy
/// keep a copy for a while (nginx prefers it to `max-age`), `max-age=0` keeps browsers
/// revalidating every time, and the proxy answers their If-None-Match itself.
#[tokio::test]
async fn with_s_maxage_nginx_caches_and_answers_browser_revalidations_with_304() {
    let policy = "public, max-age=0, s-maxage=600";
    let Some(proxy) = Proxy::start(policy).await else {
        return;
    };
    let path = "/data.json";
    let br = [("accept-encoding", "br")];

    let first = get(proxy.addr(), path, &br).await;
    assert_eq!(cache_status(&first), "MISS");
    assert_eq!(header(&first.1, CACHE_CONTROL), Some(policy));
    let etag = header(&first.1, ETAG).expect("ETag").to_owned();

    let second = get(proxy.addr(), path, &br).await;
    assert_eq!(cache_status(&second), "HIT");
    assert_eq!(second.2, first.2);

    let revalidation = get(
        proxy.addr(),
        path,
        &[("accept-encoding", "br"), ("if-none-match", &etag)],
    )
    .await;
    assert_eq!(revalidation.0, StatusCode::NOT_MODIFIED);
    assert_eq!(cache_status(&revalidation), "HIT");
    assert!(revalidation.2.is_empty());
    assert_eq!(header(&revalidation.1, ETAG), Some(etag.as_str()));

    let seen = proxy.log.requests_for(path);
    assert_eq!(
        seen.len(),
        1,
        "only the first request reached the server: {seen:#?}"
    );
}

/// The preload `Link` field of a page (RFC 8288) is stored with the page and sent on
/// every HIT, the 304 nginx answers itself included, so a CDN in front can turn it
/// into 103 Early Hints for every visitor.
#[tokio::test]
async fn a_page_s_preload_links_are_cached_with_it_and_sent_on_every_hit() {
    static PRELOAD: embed_assets::Assets = embed_assets::embed_assets!(
        "fixtures/preload",
        fingerprint = true,
        rewrite_references = true
    );
    let service = PRELOAD
        .service()
        .cache_control(HeaderValue::from_static(LONG))
        .preload_links();
    let Some(proxy) = Proxy::start_with(service).await else {
        return;
    };
    let expected = PRELOAD
        .get("/index.html")
        .expect("embedded")
        .preload_links()
        .join(", ");
    assert!(expected.contains("rel=modulepreload"), "{expected}");
    let first = get(proxy.addr(), "/index.html", &[]).await;
    assert_eq!(cache_status(&first), "MISS");
    assert_eq!(header(&first.1, LINK), Some(expected.as_str()));
    let etag = header(&first.1, ETAG).expect("ETag").to_owned();
    let second = get(proxy.addr(), "/index.html", &[]).await;
    assert_eq!(cache_status(&second), "HIT");
    assert_eq!(header(&second.1, LINK), Some(expected.as_str()));
    let revalidation = get(proxy.addr(), "/index.html", &[("if-none-match", &etag)]).await;
    assert_eq!(revalidation.0, StatusCode::NOT_MODIFIED);
    assert_eq!(cache_status(&revalidation), "HIT");
    assert_eq!(header(&revalidation.1, LINK), Some(expected.as_str()));
    let seen = proxy.log.requests_for("/index.html");
    assert_eq!(seen.len(), 1, "only the MISS reached the server: {seen:#?}");
}

/// The reply's `X-Cache`.
fn cache_status(reply: &Reply) -> &str {
    header(&reply.1, X_CACHE).unwrap_or_else(|| {
        panic!(
            "no {X_CACHE} in {:?}: did the reply come from nginx?",
            reply.1
        )
    })
}

/// `reply` is the representation of `path` in `coding` (`None`: identity), with
/// `Vary: Accept-Encoding`, and decodes to the file's bytes.
fn assert_representation(reply: &Reply, path: &str, coding: Option<&str>, client: &str) {
    let (_, headers, body) = reply;
    assert_eq!(
        header(headers, CONTENT_ENCODING),
        coding,
        "{client} client: Content-Encoding of {path}"
    );
    assert_eq!(
        list_values(headers, VARY),
        ["accept-encoding"],
        "{client} client: Vary of {path}"
    );
    assert_eq!(
        decode_body(headers, body),
        fixture(path),
        "{client} client: {path} decodes to the file"
    );
}

// ---------------------------------------------------------------------------------
// Our server, and what reached it

/// One request as our server saw it, behind nginx.
#[derive(Debug, Clone)]
struct Seen {
    method: Method,
    path: String,
    accept_encoding: Option<String>,
    if_none_match: Option<String>,
    range: Option<String>,
    status: StatusCode,
    content_length: Option<String>,
}

/// Every request our server answered, in order.
#[derive(Debug, Clone, Default)]
struct ServerLog(Arc<Mutex<Vec<Seen>>>);

impl ServerLog {
    fn requests_for(&self, path: &str) -> Vec<Seen> {
        let all = self.0.lock().expect("server log");
        all.iter()
            .filter(|seen| seen.path == path)
            .cloned()
            .collect()
    }
}

fn field(headers: &HeaderMap, name: HeaderName) -> Option<String> {
    headers
        .get(name)
        .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned())
}

/// Middleware: passes the request on and records it with the response's status.
async fn record(State(log): State<ServerLog>, request: Request, next: Next) -> Response {
    let method = request.method().clone();
    let path = request.uri().path().to_owned();
    let accept_encoding = field(request.headers(), ACCEPT_ENCODING);
    let if_none_match = field(request.headers(), IF_NONE_MATCH);
    let range = field(request.headers(), RANGE);
    let response = next.run(request).await;
    let seen = Seen {
        method,
        path,
        accept_encoding,
        if_none_match,
        range,
        status: response.status(),
        content_length: field(response.headers(), CONTENT_LENGTH),
    };
    log.0.lock().expect("server log").push(seen);
    response
}

/// Our server with the fixture site, and nginx caching in front of it.
struct Proxy {
    nginx: CacheProcess,
    log: ServerLog,
}

impl Proxy {
    /// With `Cache-Control: cache_control` on every asset; `None` when nginx is not
    /// installed (the test is skipped, see `integration_tests::programs`).
    async fn start(cache_control: &'static str) -> Option<Self> {
        Self::start_with(
            SITE.service()
                .cache_control(HeaderValue::from_static(cache_control)),
        )
        .await
    }

    async fn start_with(service: embed_assets::ServeAssets) -> Option<Self> {
        let program = CacheKind::Nginx.program()?;
        let log = ServerLog::default();
        let router = app(service).layer(middleware::from_fn_with_state(log.clone(), record));
        let upstream = spawn_router(router).await;
        let nginx = CacheProcess::start(CacheKind::Nginx, &program, upstream).await;
        Some(Self { nginx, log })
    }

    fn addr(&self) -> SocketAddr {
        self.nginx.addr
    }
}
