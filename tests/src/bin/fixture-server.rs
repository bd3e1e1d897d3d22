//! The fixture site in a process of its own, for tests that watch a server from the
//! outside with `strace` (`tests/zero_io.rs`, `tests/allocations.rs`).
//!
//! - `fixture-server serve`: serves [`SITE`] (every file embedded, `big.bin` too) the
//!   way the quick start wires it ([`integration_tests::app`]), and [`ON_DISK`] under
//!   `/on-disk/`, where `big.bin` is read from disk at request time. Listens on
//!   `127.0.0.1:0`, prints the port on the first line of stdout, and exits when its
//!   stdin closes, so it never outlives the test that started it.
//! - `fixture-server alloc-probe <n>`: answers the requests of [`probe_cases`] `n` times
//!   each, single-threaded and without a network, once with [`SITE`]'s service and once
//!   with [`Ceiling`], a hand-written handler, and the embedded ones also through the
//!   service in front of an application (`with_fallback(..)`). Each run of `n` lies
//!   between two
//!   [marker](Marker) `statx` calls on paths under [`MARKER_DIR`], so a tracer that sees
//!   every allocation as a syscall can count the allocations of each run.

use std::collections::HashMap;
use std::future::Future;
use std::io::{Read, Write};
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use bytes::Bytes;
use embed_assets::{Assets, Encoding, ServeAssets, embed_assets};
use http::header::{ACCEPT_ENCODING, IF_NONE_MATCH, RANGE};
use http::{HeaderMap, HeaderName, HeaderValue, Method, Request, Response, StatusCode};
use http_body_util::Full;
use hyper::body::Body;
use integration_tests::SITE;
use tower_service::Service as _;

/// The fixture site with a 1 MiB limit: `big.bin` (3 MiB) is listed, not embedded,
/// and read from disk on every request.
static ON_DISK: Assets =
    embed_assets!("fixtures/site", max_embed_size = "1 MiB", on_disk = "allow");

/// Where the alloc probe's marker paths live; nothing is there.
const MARKER_DIR: &str = "/nonexistent/embed-alloc-probe";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["serve"] => serve(),
        ["alloc-probe", n] => alloc_probe(n.parse().expect("alloc-probe <n>: a count")),
        _ => {
            eprintln!("usage: fixture-server serve | fixture-server alloc-probe <n>");
            std::process::exit(2);
        }
    }
}

fn serve() {
    // Exit as soon as the parent closes stdin (or dies): a leftover server would hold a
    // port and a tracer's attention after the test is gone.
    std::thread::spawn(|| {
        let mut sink = [0u8; 64];
        while matches!(std::io::stdin().read(&mut sink), Ok(n) if n > 0) {}
        std::process::exit(0);
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime");
    runtime.block_on(async {
        let router =
            integration_tests::app(SITE.service()).nest_service("/on-disk", ON_DISK.service());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1:0");
        let port = listener.local_addr().expect("local address").port();
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "{port}").expect("print the port");
        stdout.flush().expect("flush stdout");
        drop(stdout);
        axum::serve(listener, router).await.expect("axum server");
    });
}

/// One kind of request of the alloc probe.
#[derive(Debug)]
struct ProbeCase {
    /// Names the case in the markers, e.g. `get`.
    name: &'static str,
    /// Whether [`Ceiling`] answers it too (only what it can answer without any HTTP
    /// logic: the embedded cases the claim is about).
    with_ceiling: bool,
    /// The status every answer must have.
    status: StatusCode,
    request: Request<()>,
}

fn request(method: Method, path: &str, headers: &[(HeaderName, &str)]) -> Request<()> {
    let mut request = Request::builder()
        .method(method)
        .uri(path)
        .header(http::header::HOST, "127.0.0.1")
        .body(())
        .expect("valid request");
    for (name, value) in headers {
        let value = HeaderValue::from_str(value).expect("header value");
        request.headers_mut().append(name.clone(), value);
    }
    request
}

/// The requests the alloc probe counts, in order. The names are what the markers and
/// `tests/allocations.rs` use.
fn probe_cases() -> Vec<ProbeCase> {
    let css = SITE.get("/css/app.css").expect("/css/app.css is embedded");
    let big_len = SITE.get("/big.bin").expect("/big.bin is embedded").len();
    let case = |name, with_ceiling, status, request| ProbeCase {
        name,
        with_ceiling,
        status,
        request,
    };
    let last_kib = format!("bytes={}-{}", big_len - 1024, big_len - 1);
    vec![
        case(
            "get",
            true,
            StatusCode::OK,
            request(Method::GET, "/css/app.css", &[]),
        ),
        case(
            "get-br",
            true,
            StatusCode::OK,
            request(
                Method::GET,
                "/css/app.css",
                &[(ACCEPT_ENCODING, "gzip, deflate, br")],
            ),
        ),
        case(
            "not-modified",
            true,
            StatusCode::NOT_MODIFIED,
            request(Method::GET, "/css/app.css", &[(IF_NONE_MATCH, css.etag())]),
        ),
        case(
            "head",
            true,
            StatusCode::OK,
            request(Method::HEAD, "/css/app.css", &[]),
        ),
        case(
            "index",
            true,
            StatusCode::OK,
            request(Method::GET, "/docs/", &[(ACCEPT_ENCODING, "br")]),
        ),
        case(
            "range-small",
            false,
            StatusCode::PARTIAL_CONTENT,
            request(Method::GET, "/css/app.css", &[(RANGE, "bytes=0-99")]),
        ),
        case(
            "range-big",
            false,
            StatusCode::PARTIAL_CONTENT,
            request(Method::GET, "/big.bin", &[(RANGE, &last_kib)]),
        ),
        case(
            "not-found",
            false,
            StatusCode::NOT_FOUND,
            request(Method::GET, "/no/such/file.css", &[]),
        ),
        case(
            "not-found-long",
            false,
            StatusCode::NOT_FOUND,
            request(Method::GET, &format!("/{}", "x".repeat(300)), &[]),
        ),
    ]
}

/// The cheapest handler that still answers with a `Response`: a `HashMap` lookup by
/// path, the status, a fixed list of header fields inserted one by one (cloned from
/// static values: no allocation of their own) and a `Bytes::from_static` body. Its
/// allocations are what any handler building a `Response` pays: the `HeaderMap`.
#[derive(Debug, Default)]
struct Ceiling {
    routes: HashMap<&'static str, CeilingRoute>,
}

#[derive(Debug)]
struct CeilingRoute {
    status: StatusCode,
    headers: Vec<(HeaderName, HeaderValue)>,
    body: &'static [u8],
}

impl Ceiling {
    /// A ceiling answering `path` exactly as `response` was answered, with `body`.
    fn answering(path: &str, response: &Response<embed_assets::Body>, body: &[u8]) -> Self {
        let leak = |bytes: &[u8]| -> &'static [u8] { Box::leak(bytes.to_vec().into_boxed_slice()) };
        let headers = response
            .headers()
            .iter()
            .map(|(name, value)| {
                // Static values, so a clone per request is a copy of a pointer: the
                // ceiling pays for nothing but the map.
                let text = std::str::from_utf8(leak(value.as_bytes())).expect("ASCII value");
                (name.clone(), HeaderValue::from_static(text))
            })
            .collect();
        let path = std::str::from_utf8(leak(path.as_bytes())).expect("UTF-8 path");
        let mut routes = HashMap::new();
        routes.insert(
            path,
            CeilingRoute {
                status: response.status(),
                headers,
                body: leak(body),
            },
        );
        Ceiling { routes }
    }

    /// The handler.
    fn respond<B>(&self, request: &Request<B>) -> Response<Full<Bytes>> {
        let Some(route) = self.routes.get(request.uri().path()) else {
            let mut response = Response::new(Full::new(Bytes::new()));
            *response.status_mut() = StatusCode::NOT_FOUND;
            return response;
        };
        let mut response = Response::new(Full::new(Bytes::from_static(route.body)));
        *response.status_mut() = route.status;
        let headers = response.headers_mut();
        for (name, value) in &route.headers {
            headers.append(name.clone(), value.clone());
        }
        response
    }
}

/// A `statx` on a path under [`MARKER_DIR`] that a tracer can find in its output.
/// The paths are built up front, so entering and leaving a run allocates nothing.
struct Marker {
    begin: String,
    end: String,
}

impl Marker {
    fn new(run: &str) -> Self {
        Marker {
            begin: format!("{MARKER_DIR}/begin/{run}"),
            end: format!("{MARKER_DIR}/end/{run}"),
        }
    }

    /// Runs `work` between the two marker syscalls.
    fn around(&self, work: impl FnOnce()) {
        // Short paths go through a stack buffer and ENOENT is a plain OS error code:
        // neither marker allocates.
        let _ = std::fs::metadata(&self.begin);
        work();
        let _ = std::fs::metadata(&self.end);
    }
}

/// The output of a future that is ready at once; anything else is a failure.
fn ready<F: Future>(future: F) -> F::Output {
    let mut cx = Context::from_waker(Waker::noop());
    match pin!(future).poll(&mut cx) {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("an embedded asset's response was not ready at once"),
    }
}

/// Polls `body` to its end, as a server sending it would; every frame must be ready.
fn drain<B: Body>(body: B) -> usize
where
    B::Error: std::fmt::Debug,
{
    let mut cx = Context::from_waker(Waker::noop());
    let mut body = pin!(body);
    let mut len = 0;
    loop {
        match body.as_mut().poll_frame(&mut cx) {
            Poll::Ready(Some(Ok(frame))) => {
                len += frame.data_ref().map_or(0, bytes::Buf::remaining);
            }
            Poll::Ready(Some(Err(err))) => panic!("body error: {err:?}"),
            Poll::Ready(None) => return len,
            Poll::Pending => panic!("an embedded asset's body was not ready at once"),
        }
    }
}

/// Collects a ready body's bytes, outside any counted run.
fn collect(response: Response<embed_assets::Body>) -> (Response<()>, Vec<u8>) {
    let (parts, body) = response.into_parts();
    let mut cx = Context::from_waker(Waker::noop());
    let mut body = pin!(body);
    let mut bytes = Vec::new();
    while let Poll::Ready(Some(frame)) = body.as_mut().poll_frame(&mut cx) {
        let frame = frame.expect("body frame");
        if let Some(data) = frame.data_ref() {
            bytes.extend_from_slice(data);
        }
    }
    (Response::from_parts(parts, ()), bytes)
}

fn alloc_probe(n: usize) {
    // With `header` rules that match the probed stylesheet (two fields beside the
    // default nosniff), a Content-Security-Policy and preload links on the pages
    // (`/docs/index.html` has a style sheet): they are folded
    // into the prebuilt maps, so they cost nothing.
    let service: ServeAssets = SITE
        .service()
        .header(
            "/css/**",
            http::header::X_FRAME_OPTIONS,
            HeaderValue::from_static("DENY"),
        )
        .header(
            "*.css",
            http::header::HeaderName::from_static("x-probe-rule"),
            HeaderValue::from_static("css"),
        )
        .content_security_policy("script-src 'self' {scripts}; style-src 'self' {styles}")
        .preload_links();

    // Controls for the tracer: a run that allocates nothing and one that allocates
    // exactly `n` times.
    Marker::new("empty").around(|| {});
    Marker::new("boxes").around(|| {
        for i in 0..n {
            drop(std::hint::black_box(Box::new(std::hint::black_box(i))));
        }
    });

    for case in probe_cases() {
        // Check the answer and warm every lazy path up before counting.
        let response = ready(service.respond(&case.request));
        assert_eq!(response.status(), case.status, "{}", case.name);
        let encoded = response
            .headers()
            .get(http::header::CONTENT_ENCODING)
            .cloned();
        let (head, body) = collect(response);
        if case.request.uri().path() == "/css/app.css" {
            // The rules' fields are really there, so the count includes them.
            let rule = head.headers().get("x-probe-rule");
            assert_eq!(
                rule.map(HeaderValue::as_bytes),
                Some(&b"css"[..]),
                "{}",
                case.name
            );
        }
        if case.request.uri().path() == "/docs/" {
            // A page: its policy and preload links are really there.
            let policy = head.headers().get(http::header::CONTENT_SECURITY_POLICY);
            assert!(
                policy.is_some_and(|p| p.as_bytes().starts_with(b"script-src 'self'")),
                "{}: {policy:?}",
                case.name
            );
            let link = head.headers().get(http::header::LINK);
            assert!(
                link.is_some_and(|l| l.as_bytes().starts_with(b"</css/app.css>; rel=preload")),
                "{}: {link:?}",
                case.name
            );
        }
        if case.name == "get-br" {
            assert_eq!(
                encoded.as_ref().map(HeaderValue::as_bytes),
                Some(&b"br"[..])
            );
            let css = SITE.get("/css/app.css").expect("embedded");
            assert_eq!(Some(&body[..]), css.body(Encoding::Brotli));
        }
        let expected_len = body.len();

        Marker::new(&format!("ours/{}", case.name)).around(|| {
            for _ in 0..n {
                let response = ready(service.respond(&case.request));
                let len = drain(response.into_body());
                debug_assert_eq!(len, expected_len);
            }
        });

        if case.with_ceiling {
            // The same service in front of an application, as `with_fallback(app)`
            // serves it: every probed request is a hit, answered before the
            // application. The requests are built before the run (the service takes
            // them by value); dropping one frees and allocates nothing.
            let mut front = service.clone().with_fallback(Unreachable);
            let mut requests: Vec<_> = (0..n).map(|_| copy(&case.request)).collect();
            let answer = ready(front.call(copy(&case.request))).expect("infallible");
            assert!(answer.body().is_assets(), "{}: a hit", case.name);
            assert_eq!(sorted(answer.headers()), sorted(head.headers()));
            Marker::new(&format!("front/{}", case.name)).around(|| {
                for request in requests.drain(..) {
                    let response = ready(front.call(request)).expect("infallible");
                    let len = drain(response.into_body());
                    debug_assert_eq!(len, expected_len);
                }
            });

            let response = head.map(|()| embed_assets::Body::empty());
            let ceiling = Ceiling::answering(case.request.uri().path(), &response, &body);
            let answer = ceiling.respond(&case.request);
            assert_eq!(answer.status(), case.status, "{} (ceiling)", case.name);
            assert_eq!(
                sorted(answer.headers()),
                sorted(response.headers()),
                "{}: the ceiling sends the same header fields",
                case.name
            );
            assert_eq!(drain(answer.into_body()), expected_len);
            Marker::new(&format!("ceiling/{}", case.name)).around(|| {
                for _ in 0..n {
                    let response = ceiling.respond(&case.request);
                    let len = drain(response.into_body());
                    debug_assert_eq!(len, expected_len);
                }
            });
        }
    }
}

/// A copy of a probe request.
fn copy(request: &Request<()>) -> Request<()> {
    let mut copy = Request::new(());
    *copy.method_mut() = request.method().clone();
    *copy.uri_mut() = request.uri().clone();
    *copy.headers_mut() = request.headers().clone();
    copy
}

/// The application behind the assets in the `front/` runs. Every probed request is a
/// hit, so it is never called.
#[derive(Debug, Clone, Copy)]
struct Unreachable;

impl<B> tower_service::Service<Request<B>> for Unreachable {
    type Response = Response<Full<Bytes>>;
    type Error = std::convert::Infallible;
    type Future = std::future::Ready<Result<Self::Response, Self::Error>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        panic!("{} reached the application: not a hit", request.uri())
    }
}

fn sorted(headers: &HeaderMap) -> Vec<(String, Vec<u8>)> {
    let mut fields: Vec<_> = headers
        .iter()
        .map(|(name, value)| (name.to_string(), value.as_bytes().to_vec()))
        .collect();
    fields.sort();
    fields
}
