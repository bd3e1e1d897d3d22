//! `ServeAssets::with_fallback`: the assets in front of an axum application, served by
//! `axum::serve` and by hyper-util's server. An embedded hit never reaches the
//! application (its middleware counts every request it sees); every other request
//! does, unchanged: path parameters, state, a JSON request body, middleware and the
//! application's own fallback all work as without the assets.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::extract::{Path, Request, State};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use embed_assets::WithFallback;
use http::header::{CONTENT_TYPE, ETAG, LOCATION};
use http::{HeaderName, HeaderValue, Method, StatusCode};
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use hyper_util::service::TowerToHyperService;
use integration_tests::{SITE, fixture, get as fetch, header, raw_request, send};
use tokio::net::TcpListener;

/// The field the application's middleware adds to every response it sees.
static X_APP: HeaderName = HeaderName::from_static("x-app");

/// What the application shares with its handlers and its middleware.
#[derive(Clone, Default)]
struct AppState {
    /// Requests the middleware saw.
    seen: Arc<AtomicUsize>,
    /// Told apart from another instance's state.
    name: &'static str,
}

/// Counts every request that reaches the application and marks its responses.
async fn count(State(state): State<AppState>, request: Request, next: Next) -> Response {
    state.seen.fetch_add(1, Ordering::SeqCst);
    let mut response = next.run(request).await;
    response
        .headers_mut()
        .insert(X_APP.clone(), HeaderValue::from_static("middleware"));
    response
}

async fn user(State(state): State<AppState>, Path(id): Path<u32>) -> String {
    format!("{} user {id}", state.name)
}

async fn echo(Json(value): Json<serde_json::Value>) -> Json<serde_json::Value> {
    Json(serde_json::json!({ "echo": value }))
}

async fn app_not_found() -> impl IntoResponse {
    (StatusCode::NOT_FOUND, "the application's own 404")
}

/// An application with state, a path parameter, a JSON body, a POST at an asset's
/// path, middleware over everything and its own fallback.
fn application(state: AppState) -> Router {
    Router::new()
        .route("/api/users/{id}", get(user))
        .route("/api/echo", post(echo))
        .route("/tiny.txt", post(|| async { "posted to the application" }))
        .fallback(app_not_found)
        .layer(middleware::from_fn_with_state(state.clone(), count))
        .with_state(state)
}

fn front(state: AppState) -> WithFallback<Router> {
    SITE.service().with_fallback(application(state))
}

async fn listener() -> (TcpListener, SocketAddr) {
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1:0");
    let addr = listener.local_addr().expect("local address");
    (listener, addr)
}

/// Under `axum::serve`, as the README sets it up.
async fn spawn_axum(state: AppState) -> SocketAddr {
    let (listener, addr) = listener().await;
    let service = front(state);
    tokio::spawn(async move {
        axum::serve(listener, service.into_make_service())
            .await
            .expect("axum server");
    });
    addr
}

/// Under hyper-util's server: HTTP/1.1 and HTTP/2 on one port, the service wrapped in
/// hyper-util's `TowerToHyperService`, its hits in the assets' own body.
async fn spawn_hyper_util(state: AppState) -> SocketAddr {
    let (listener, addr) = listener().await;
    tokio::spawn(serve_hyper_util(listener, front(state)));
    addr
}

async fn serve_hyper_util<S, RB>(listener: TcpListener, service: S)
where
    S: tower_service::Service<
            http::Request<hyper::body::Incoming>,
            Response = http::Response<RB>,
            Error = std::convert::Infallible,
        > + Clone
        + Send
        + 'static,
    S::Future: Send,
    RB: hyper::body::Body<Data = bytes::Bytes> + Send + 'static,
    RB::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let service = TowerToHyperService::new(service.clone());
        tokio::spawn(async move {
            let _ = auto::Builder::new(TokioExecutor::new())
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

async fn hits_never_reach_the_application(addr: SocketAddr, state: &AppState) {
    let before = state.seen.load(Ordering::SeqCst);
    for path in [
        "/css/app.css",
        "/index.html",
        "/",
        "/tiny.txt",
        "/favicon.ico",
    ] {
        let (status, headers, body) = fetch(addr, path, &[]).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        let file = if path == "/" { "/index.html" } else { path };
        assert_eq!(&body[..], &fixture(file)[..], "{path}");
        assert!(header(&headers, ETAG).is_some(), "{path}: the assets' ETag");
        assert_eq!(
            header(&headers, X_APP.clone()),
            None,
            "{path} went through the app"
        );
    }
    // A 304 and a HEAD are hits too.
    let (_, headers, _) = fetch(addr, "/css/app.css", &[]).await;
    let etag = header(&headers, ETAG).expect("ETag").to_owned();
    let (status, headers, body) = fetch(addr, "/css/app.css", &[("if-none-match", &etag)]).await;
    assert_eq!(status, StatusCode::NOT_MODIFIED);
    assert!(body.is_empty());
    assert_eq!(header(&headers, X_APP.clone()), None);
    let (status, headers, body) = send(addr, Method::HEAD, "/index.html", &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert!(body.is_empty());
    assert_eq!(header(&headers, X_APP.clone()), None);
    assert_eq!(
        state.seen.load(Ordering::SeqCst),
        before,
        "the application saw an embedded hit"
    );
}

async fn misses_reach_the_application_unchanged(addr: SocketAddr, state: &AppState) {
    let before = state.seen.load(Ordering::SeqCst);
    // A path parameter and the state.
    let (status, headers, body) = fetch(addr, "/api/users/42", &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(&body[..], format!("{} user 42", state.name).as_bytes());
    assert_eq!(header(&headers, X_APP.clone()), Some("middleware"));
    // A request body, read by an extractor.
    let request = b"POST /api/echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
                    Content-Length: 13\r\nConnection: close\r\n\r\n{\"a\":[1,2,3]}";
    let (status, headers, body) = raw_request(addr, request).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(header(&headers, CONTENT_TYPE), Some("application/json"));
    let echoed: serde_json::Value = serde_json::from_slice(&body).expect("JSON body");
    assert_eq!(echoed, serde_json::json!({ "echo": { "a": [1, 2, 3] } }));
    // A method the assets do not serve, at an asset's path: the application's route.
    let (status, headers, body) = send(addr, Method::POST, "/tiny.txt", &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(&body[..], b"posted to the application");
    assert_eq!(header(&headers, X_APP.clone()), Some("middleware"));
    // A path the assets do not have: the application's own fallback, not ours.
    for path in ["/no/such/file.css", "/api/nothing", "/../etc/passwd"] {
        let (status, headers, body) = fetch(addr, path, &[]).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
        assert_eq!(&body[..], b"the application's own 404", "{path}");
        assert_eq!(
            header(&headers, X_APP.clone()),
            Some("middleware"),
            "{path}"
        );
    }
    // The assets' 405 is not given: DELETE of an asset is the application's to answer.
    let (status, _, body) = send(addr, Method::DELETE, "/css/app.css", &[]).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(&body[..], b"the application's own 404");
    // Without a valid Host the assets do not answer either (RFC 9112 §3.2).
    let request = b"GET /index.html HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n";
    let (_, headers, _) = raw_request(addr, request).await;
    assert_eq!(header(&headers, X_APP.clone()), Some("middleware"));
    assert_eq!(state.seen.load(Ordering::SeqCst), before + 8);
}

fn state(name: &'static str) -> AppState {
    AppState {
        seen: Arc::default(),
        name,
    }
}

#[tokio::test]
async fn under_axum_serve_hits_skip_the_application() {
    let state = state("axum");
    let addr = spawn_axum(state.clone()).await;
    hits_never_reach_the_application(addr, &state).await;
}

#[tokio::test]
async fn under_axum_serve_misses_reach_the_application() {
    let state = state("axum");
    let addr = spawn_axum(state.clone()).await;
    misses_reach_the_application_unchanged(addr, &state).await;
}

#[tokio::test]
async fn under_hyper_util_hits_skip_the_application() {
    let state = state("hyper-util");
    let addr = spawn_hyper_util(state.clone()).await;
    hits_never_reach_the_application(addr, &state).await;
}

#[tokio::test]
async fn under_hyper_util_misses_reach_the_application() {
    let state = state("hyper-util");
    let addr = spawn_hyper_util(state.clone()).await;
    misses_reach_the_application_unchanged(addr, &state).await;
}

#[tokio::test]
async fn a_directory_path_is_redirected_by_the_assets() {
    let state = state("axum");
    let addr = spawn_axum(state.clone()).await;
    let (status, headers, _) = fetch(addr, "/docs", &[]).await;
    assert_eq!(status, StatusCode::MOVED_PERMANENTLY);
    assert_eq!(header(&headers, LOCATION), Some("./docs/"));
    assert_eq!(header(&headers, X_APP.clone()), None);
    assert_eq!(state.seen.load(Ordering::SeqCst), 0);
}

/// `front` in front of an application whose fallback is the whole service (with the
/// single-page app's page), under `axum::serve`: the README's set-up.
async fn spawn_with_assets_as_fallback(
    front: embed_assets::ServeAssets,
    state: &AppState,
) -> SocketAddr {
    let app = Router::new()
        .route("/api/users/{id}", get(user))
        .fallback_service(SITE.service().spa_fallback("/index.html"))
        .layer(middleware::from_fn_with_state(state.clone(), count))
        .with_state(state.clone());
    let (listener, addr) = listener().await;
    let service = front.with_fallback(app);
    tokio::spawn(async move {
        axum::serve(listener, service.into_make_service())
            .await
            .expect("axum server");
    });
    addr
}

#[tokio::test]
async fn the_assets_can_also_be_the_applications_fallback() {
    // The front answers hits; the application's fallback is the whole service, so
    // unknown page paths get the single-page app and other misses its 404.
    let state = state("spa");
    let addr = spawn_with_assets_as_fallback(SITE.service(), &state).await;
    let navigate = ("accept", "text/html");
    let (status, headers, body) = fetch(addr, "/settings/profile", &[navigate]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(&body[..], &fixture("/index.html")[..]);
    assert_eq!(header(&headers, X_APP.clone()), Some("middleware"));
    let (status, _, _) = fetch(addr, "/missing.js", &[navigate]).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, headers, _) = fetch(addr, "/tiny.txt", &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(header(&headers, X_APP.clone()), None);
    assert_eq!(state.seen.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn in_dev_mode_files_added_since_the_build_are_answered_in_front() {
    // The README's set-up as written: dev mode on the front service, a fresh service
    // (no dev mode) as the application's fallback.
    let folder = std::env::temp_dir().join(format!("embed-fallback-dev-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).unwrap();
    let state = state("dev");
    let addr = spawn_with_assets_as_fallback(SITE.service().dev_folder(&folder), &state).await;
    let (status, _, _) = fetch(addr, "/assets/chunk-a1b2c3.js", &[]).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "not written yet");
    assert_eq!(
        state.seen.load(Ordering::SeqCst),
        1,
        "a miss is the application's"
    );

    std::fs::create_dir_all(folder.join("assets")).unwrap();
    std::fs::write(
        folder.join("assets/chunk-a1b2c3.js"),
        "export const x = 1;\n",
    )
    .unwrap();
    let (status, headers, body) = fetch(addr, "/assets/chunk-a1b2c3.js", &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(&body[..], b"export const x = 1;\n");
    assert_eq!(
        header(&headers, CONTENT_TYPE),
        Some("text/javascript; charset=utf-8")
    );
    assert_eq!(header(&headers, X_APP.clone()), None, "answered in front");
    let (status, _, body) = fetch(addr, "/api/users/7", &[]).await;
    assert_eq!((status, &body[..]), (StatusCode::OK, &b"dev user 7"[..]));
    // A folder at that path is no file: the application's (its fallback's 404).
    std::fs::create_dir_all(folder.join("assets/dir.js")).unwrap();
    let (status, headers, _) = fetch(addr, "/assets/dir.js", &[]).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(header(&headers, X_APP.clone()), Some("middleware"));
    assert_eq!(state.seen.load(Ordering::SeqCst), 3);
    let _ = std::fs::remove_dir_all(&folder);
}

#[tokio::test]
async fn hits_keep_the_assets_body_and_misses_the_applications() {
    use hyper::body::Body as _;
    use tower_service::Service as _;

    let state = state("direct");
    let mut service = front(state.clone());
    let request = |path: &str| {
        http::Request::get(path)
            .header(http::header::HOST, "127.0.0.1")
            .body(axum::body::Body::empty())
            .expect("request")
    };
    std::future::poll_fn(|cx| {
        tower_service::Service::<http::Request<axum::body::Body>>::poll_ready(&mut service, cx)
    })
    .await
    .expect("ready");
    let hit = service.call(request("/tiny.txt")).await.expect("hit");
    assert_eq!(hit.status(), StatusCode::OK);
    assert!(hit.body().is_assets(), "a hit is the assets' own body");
    let length = fixture("/tiny.txt").len() as u64;
    assert_eq!(hit.body().size_hint().exact(), Some(length));
    let miss = service.call(request("/api/users/7")).await.expect("miss");
    assert!(!miss.body().is_assets(), "a miss is the application's body");
    let body = http_body_util::BodyExt::collect(miss.into_body())
        .await
        .expect("the application's body")
        .to_bytes();
    assert_eq!(&body[..], b"direct user 7");
    assert_eq!(state.seen.load(Ordering::SeqCst), 1);
}
