//! [`ServeAssets`] as a Poem 3 [`Endpoint`](poem::Endpoint): the catch-all route of
//! an app, or nested under a prefix like Poem's own `StaticFilesEndpoint`.
//!
//! ```no_run
//! use embed_assets::{embed_assets, Assets};
//! use poem::listener::TcpListener;
//! use poem::{get, handler, Route, Server};
//!
//! static ASSETS: Assets = embed_assets!("../examples/public");
//!
//! #[handler]
//! fn health() -> &'static str {
//!     "ok"
//! }
//!
//! # async fn run() -> std::io::Result<()> {
//! // At the root: every path the other routes leave is an asset (or the core's 404).
//! let app = Route::new()
//!     .at("/api/health", get(health))
//!     .at("/*", ASSETS.service());
//! Server::new(TcpListener::bind("127.0.0.1:3000")).run(app).await?;
//!
//! // Under a prefix: `/static/css/app.css` is `/css/app.css`, and `/static`
//! // redirects to `./static/` so the index page's relative links resolve.
//! let app = Route::new()
//!     .at("/api/health", get(health))
//!     .nest("/static", ASSETS.service());
//! Server::new(TcpListener::bind("127.0.0.1:3000")).run(app).await?;
//! # Ok(())
//! # }
//! ```
//!
//! The request head goes to [`ServeAssets::respond_head`] as sent: the path still
//! percent-encoded (relative to the prefix `nest` stripped), the query, the version,
//! every header field. The response comes back as the core built it: status, every
//! header field (repeated ones included), and the body streamed frame by frame as
//! Hyper asks for it. A body read from disk that fails mid-way (the file changed) ends
//! the stream with an error, and Hyper closes the connection instead of ending the
//! message as if it were complete.
//!
//! What Poem does around the endpoint, and what this adapter does about it:
//! - `nest` strips its prefix from the URI, so `/static` and `/static/` both reach the
//!   endpoint as `/`. [`Request::original_uri`](poem::Request::original_uri) still holds
//!   the path as sent; when it names the mount point without its slash, the request is
//!   marked [`at_bare_mount`](crate::RequestHead::at_bare_mount) and gets the 301.
//! - Poem's router matches the raw path, but it percent-decodes what a `*` captures and
//!   drops the capture when it is not UTF-8; `nest` then answers 400 (its
//!   `ParsePathError`) before the endpoint runs. So under `nest`, a path such as
//!   `/static/caf%e9.txt` or `/static/%ff` gets Poem's 400, not the core's 404 (no
//!   asset path can match it, and nothing is served). A catch-all route does not check
//!   its capture, which is why the root is `.at("/*", ..)` rather than
//!   `.nest("/", ..)`; the latter serves the same files but has the same 400.
//! - Poem sets no header of its own on the response: `Content-Length`, `Content-Type`
//!   and the rest are the core's, also on HEAD and 304, where Hyper sends the head
//!   without a body. Poem's conversion of the body drops its size hint; Hyper then
//!   goes by the `Content-Length` the core set, and adds none where the core sets none
//!   (a 304).
//! - Poem answers HEAD itself only in its method routers (`get(..)`); this endpoint
//!   sees HEAD and every other method, so 405 with `Allow` is the core's.
//! - Requests that did not come from Poem's server, such as those of `poem::test`'s
//!   `TestClient`, have no `Host` field (the core answers an HTTP/1.1 request without
//!   one with 400: give the client a `Host` default header) and an original URI of `/`
//!   (so under `nest` a bare `/static` serves the index page instead of redirecting).

use std::future::Future;
use std::io;

use http_body_util::BodyExt as _;

use crate::future::ResponseFuture;
use crate::{Body, RequestHead, ServeAssets};

/// Answers every method, for the path left once `nest` has stripped its prefix (the
/// whole path with a catch-all route `.at("/*", ..)`). Never fails: 404, 405 and the
/// rest are responses, so the `Err` of [`poem::Result`] is never returned.
impl poem::Endpoint for ServeAssets {
    type Output = poem::Response;

    fn call(
        &self,
        request: poem::Request,
    ) -> impl Future<Output = poem::Result<poem::Response>> + Send {
        // The request (and its unread body) is dropped before any disk read.
        let response = respond(self, &request);
        async move { Ok(into_poem(response.await)) }
    }
}

/// Starts the response to a Poem request: the core reads only its head.
fn respond(service: &ServeAssets, request: &poem::Request) -> ResponseFuture {
    // The URI is what `nest` left: the path relative to the mount point, still
    // percent-encoded, and the query. An absolute target (or HTTP/2's `:authority`)
    // names the host.
    let uri = request.uri();
    let head = RequestHead::of_uri(request.method(), uri, request.version(), request.headers());
    let original = request.original_uri().path();
    if uri.path() == "/" && original != "/" && !original.ends_with('/') {
        // `/static` under `nest("/static", ..)`: it arrives as `/`, like `/static/`.
        service.respond_head(head.at_bare_mount(original))
    } else {
        service.respond_head(head)
    }
}

/// The core's response as Poem's: status, version, header map and extensions moved
/// as they are; the body wrapped, not collected.
fn into_poem(response: http::Response<Body>) -> poem::Response {
    poem::Response::from(response.map(|body| body.map_err(io::Error::other)))
}

#[cfg(test)]
mod tests {
    use http::header::{CONTENT_LENGTH, HOST, LOCATION};
    use http::{HeaderMap, Method, StatusCode, Uri, Version};
    use poem::{Endpoint, Request, Route};

    use crate::{Assets, RequestHead};

    static ASSETS: Assets = crate::embed_assets!("../examples/public");

    /// A request as Poem's server would hand it on, but built in memory (its
    /// original URI stays `/`).
    fn request(method: Method, target: &'static str) -> Request {
        Request::builder()
            .method(method)
            .uri(Uri::from_static(target))
            .header(HOST, "localhost")
            .finish()
    }

    async fn body(response: poem::Response) -> Vec<u8> {
        response.into_body().into_vec().await.unwrap()
    }

    #[tokio::test]
    async fn the_response_is_the_cores_with_every_header_field() {
        let mut headers = HeaderMap::new();
        headers.insert(HOST, "localhost".parse().unwrap());
        let expected = ASSETS
            .service()
            .respond_head(RequestHead::new(
                &Method::GET,
                "/css/app.css",
                None,
                Version::HTTP_11,
                &headers,
            ))
            .await;
        let app = Route::new().at("/*", ASSETS.service());
        let response = app.get_response(request(Method::GET, "/css/app.css")).await;
        assert_eq!(response.status(), expected.status());
        assert_eq!(response.headers(), expected.headers());
        let css = ASSETS.get("/css/app.css").unwrap();
        assert_eq!(
            body(response).await,
            css.body(crate::Encoding::Identity).unwrap()
        );
    }

    #[tokio::test]
    async fn head_keeps_the_content_length_of_get() {
        let app = Route::new().nest("/static", ASSETS.service());
        let get = app
            .get_response(request(Method::GET, "/static/js/app.js"))
            .await;
        let head = app
            .get_response(request(Method::HEAD, "/static/js/app.js"))
            .await;
        assert_eq!(head.status(), StatusCode::OK);
        assert_eq!(
            head.headers().get(CONTENT_LENGTH),
            get.headers().get(CONTENT_LENGTH)
        );
        assert!(body(head).await.is_empty());
    }

    #[tokio::test]
    async fn nest_strips_its_prefix_and_other_methods_reach_the_core() {
        let app = Route::new().nest("/static", ASSETS.service());
        let response = app.get_response(request(Method::GET, "/static/")).await;
        assert_eq!(response.status(), StatusCode::OK);
        let response = app.get_response(request(Method::POST, "/static/")).await;
        assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED);
        assert!(response.headers().contains_key(http::header::ALLOW));
        let response = app
            .get_response(request(Method::GET, "/static/about"))
            .await;
        assert_eq!(response.status(), StatusCode::MOVED_PERMANENTLY);
        assert_eq!(response.headers()[LOCATION], "./about/");
    }

    #[tokio::test]
    async fn an_absolute_target_names_the_host() {
        let app = Route::new().at("/*", ASSETS.service());
        let bare = Request::builder()
            .uri(Uri::from_static("/css/app.css"))
            .finish();
        assert_eq!(
            app.get_response(bare).await.status(),
            StatusCode::BAD_REQUEST
        );
        let absolute = Request::builder()
            .uri(Uri::from_static("http://localhost/css/app.css"))
            .finish();
        assert_eq!(app.get_response(absolute).await.status(), StatusCode::OK);
    }

    /// Poem's quirk, documented in the module: `nest` answers 400 itself when what it
    /// captured is not UTF-8 once decoded; a catch-all route lets the core answer 404.
    #[tokio::test]
    async fn nest_refuses_a_capture_that_is_not_utf8_before_the_endpoint() {
        let nested = Route::new().nest("/", ASSETS.service());
        let caught = Route::new().at("/*", ASSETS.service());
        for target in ["/%ff", "/caf%e9.txt"] {
            let response = nested.get_response(request(Method::GET, target)).await;
            assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{target}");
            let response = caught.get_response(request(Method::GET, target)).await;
            assert_eq!(response.status(), StatusCode::NOT_FOUND, "{target}");
        }
        // Under a prefix there is no such way around it.
        let mounted = Route::new().nest("/static", ASSETS.service());
        let response = mounted
            .get_response(request(Method::GET, "/static/%ff"))
            .await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    }

    /// A request built in memory has `/` as its original URI: the bare mount point
    /// cannot be told from `/static/` (a server's requests can, see the HTTP tests).
    #[tokio::test]
    async fn an_in_memory_request_for_the_bare_mount_gets_the_index() {
        let app = Route::new().nest("/static", ASSETS.service());
        let response = app.get_response(request(Method::GET, "/static")).await;
        assert_eq!(response.status(), StatusCode::OK);
    }

    #[test]
    fn the_service_is_an_endpoint() {
        fn endpoint<E: Endpoint>(_: &E) {}
        endpoint(&ASSETS.service());
    }
}
