//! [`ServeAssets`] in actix-web 4: as the app's (or a scope's) default service, or
//! mounted under a prefix like actix-files' `Files`.
//!
//! ```no_run
//! use actix_web::{web, App, HttpResponse, HttpServer};
//! use embed_assets::adapters::actix_web::Mount;
//! use embed_assets::{embed_assets, Assets};
//!
//! static ASSETS: Assets = embed_assets!("../examples/public");
//!
//! async fn health() -> HttpResponse {
//!     HttpResponse::Ok().body("ok")
//! }
//!
//! fn main() -> std::io::Result<()> {
//!     actix_web::rt::System::new().block_on(async {
//!         // At the root: every path the routes before it do not take.
//!         let root = HttpServer::new(|| {
//!             App::new()
//!                 .route("/api/health", web::get().to(health))
//!                 .default_service(ASSETS.service())
//!         })
//!         .bind(("127.0.0.1", 3000))?
//!         .run();
//!
//!         // Under `/static`: `/static/css/app.css`, and `/static` redirects to
//!         // `./static/`; other paths but the route get actix's 404.
//!         let mounted = HttpServer::new(|| {
//!             App::new()
//!                 .route("/api/health", web::get().to(health))
//!                 .service(Mount::new("/static", ASSETS.service()))
//!         })
//!         .bind(("127.0.0.1", 3001))?
//!         .run();
//!
//!         actix_web::rt::spawn(mounted);
//!         root.await
//!     })
//! }
//! ```
//!
//! A scope works as well: `web::scope("/static").default_service(ASSETS.service())`,
//! or `web::scope("/static").service(ASSETS.service())` (the service takes every path
//! left in the scope, so register it after the scope's other routes). Guards, data
//! and middleware apply as to any actix service.
//!
//! # What the adapter does
//!
//! - `ServeAssets` is an actix [`ServiceFactory`] (for `default_service`) and an
//!   [`HttpServiceFactory`] (for `service`, taking every path under the current
//!   scope); [`Mount`] is an `HttpServiceFactory` for a prefix of its own.
//! - The request's method, version and header fields (every line; the lines of one
//!   name in order) are converted by bytes from actix's `http` 0.2 types to `http` 1. The path the core
//!   sees is the **raw** one, cut from `HttpRequest::uri()`: actix routes on a copy in
//!   which percent escapes other than `%25`, `%2F` and `%2B` are decoded (and invalid
//!   UTF-8 replaced), so its `match_info().unprocessed()` is not what the client sent.
//!   Since that copy keeps every `/` where the raw path has one, the adapter counts
//!   the slashes actix's router consumed and cuts the raw path at the same slash.
//!   `/st%61tic/css/app.css` thus reaches a mount at `/static` (actix matched it) as
//!   `/css/app.css`, and `/%2e%2e/x` reaches the core still encoded (and gets 404).
//! - A target in absolute form (`GET http://host/path`, or HTTP/2's `:authority`)
//!   is passed on as such, so the core does not ask for a `Host` field.
//! - The response keeps its status and every header field as the core set it,
//!   repeated fields included (their order among fields of other names is actix's
//!   hash order, which carries no meaning). The body is streamed frame by frame: actix
//!   polls it only while its write buffer has room. Its size is exact, so actix writes
//!   the `Content-Length` the core computed. A body that fails (an on-disk file
//!   changed mid-download) ends the stream with an error: actix logs it and closes
//!   the connection, so the client sees a short read, never a complete response.
//!
//! # Where actix would change the response, and what the adapter does about it
//!
//! - **`Content-Length` is always actix's own**: it drops the field from the header
//!   map and writes one from the body's size. For GET the sizes agree. For HEAD the
//!   core sends no body and a `Content-Length` of the GET's, which actix would
//!   replace with `0`; the adapter declares the core's length as the size of the
//!   (empty) body instead, which is what actix itself does for HEAD: it writes the
//!   length and sends no bytes. For 304 actix keeps the header map's length, and the
//!   core sends none.
//! - An empty body (301, 405, 412) gets `content-length: 0`, and every response a
//!   `date` field, as with hyper.
//! - actix compresses only behind its `Compress` middleware: don't wrap the assets in
//!   it (put it on a scope of API routes instead). Their bodies are precompressed and
//!   negotiated already; `Compress` leaves 206 and encoded responses alone, but would
//!   gzip an identity 200 under the identity's strong ETag, and replace a HEAD's
//!   `Content-Length`.
//! - `NormalizePath` and other path-rewriting middleware change `uri()` before the
//!   adapter sees it; the core then serves what they made of the path.
//! - Request heads over actix-http's fixed limits get 431 from actix before the
//!   service runs: 128 KiB for the whole head (a constant, not configurable) and 96
//!   fields. hyper allows ~400 KiB and 100 fields, so a 128 KiB `Range` value that
//!   hyper hands to the core is refused here (the last `Range` case of
//!   `header_values_of_64_kib_are_parsed_not_rejected` in `tests/tests/hostile.rs`).
//!
//! # Panics
//!
//! Nothing here panics. [`Mount::new`] takes an actix path pattern (as
//! `web::scope` does); a malformed one (unbalanced `{`) makes actix panic when the
//! `App` is built, as with actix-files' `Files::new`.

use std::fmt;
use std::future::{Future, Ready, ready};
use std::pin::Pin;
use std::task::{Context, Poll};

use actix_web::body::{BodySize, MessageBody};
use actix_web::dev::{
    AppService, HttpServiceFactory, ResourceDef, Service, ServiceFactory, ServiceRequest,
    ServiceResponse,
};
use actix_web::http::{Method as ActixMethod, Version as ActixVersion, header as actix_header};
use actix_web::{HttpRequest, HttpResponse};
use bytes::Bytes;
use http::{HeaderMap, Method, Response, Version};
use http_body::Body as _;

use super::{convert, mount};
use crate::body::Body;
use crate::error::Error;
use crate::service::{RequestHead, ResponseFuture, ServeAssets};

/// `ServeAssets` as the service of `App::default_service` or `Scope::default_service`:
/// every request the routes before it did not take.
impl ServiceFactory<ServiceRequest> for ServeAssets {
    type Response = ServiceResponse;
    type Error = actix_web::Error;
    type Config = ();
    type Service = ServeAssets;
    type InitError = ();
    type Future = Ready<Result<ServeAssets, ()>>;

    fn new_service(&self, _config: ()) -> Self::Future {
        ready(Ok(self.clone()))
    }
}

/// Answers one request: never an `Err`, every outcome is a response.
impl Service<ServiceRequest> for ServeAssets {
    type Response = ServiceResponse;
    type Error = actix_web::Error;
    type Future = ServeFuture;

    actix_web::dev::always_ready!();

    fn call(&self, request: ServiceRequest) -> ServeFuture {
        let is_head = request.method() == ActixMethod::HEAD;
        let pending = match self.start(&request) {
            Some(future) => Pending::Core(future),
            None => Pending::Refused,
        };
        let (request, _payload) = request.into_parts();
        ServeFuture {
            state: Some(State {
                request,
                pending,
                is_head,
            }),
        }
    }
}

/// `App::service(ASSETS.service())` or `web::scope("/static").service(..)`: every
/// path under the current scope, the scope's own path included. Register it after
/// the routes it must not shadow.
impl HttpServiceFactory for ServeAssets {
    fn register(self, config: &mut AppService) {
        Mount::new("", self).register(config);
    }
}

impl ServeAssets {
    /// The core's response future for this request, or `None` if its head cannot be
    /// expressed in `http` 1 types (never for a head actix parsed).
    fn start(&self, request: &ServiceRequest) -> Option<ResponseFuture> {
        let uri = request.uri();
        let path = request.match_info();
        let below = mount::actix(uri.path(), path.as_str(), path.unprocessed())?;
        let method = Method::from_bytes(request.method().as_str().as_bytes()).ok()?;
        let version = version(request.version())?;
        let fields = request.headers();
        let headers = convert::header_map(fields.iter(), fields.len())?;
        // An absolute target (or HTTP/2's `:authority`) names the host.
        let head = RequestHead::new(&method, uri.path(), uri.query(), version, &headers)
            .with_target_authority(uri.authority().is_some());
        Some(self.respond_head(below.place(head)))
    }
}

/// A field line of actix's `http` 0.2 map.
impl convert::Field for (&actix_header::HeaderName, &actix_header::HeaderValue) {
    fn name(&self) -> &[u8] {
        self.0.as_str().as_bytes()
    }

    fn value(&self) -> &[u8] {
        self.1.as_bytes()
    }
}

fn version(version: ActixVersion) -> Option<Version> {
    Some(match version {
        ActixVersion::HTTP_09 => Version::HTTP_09,
        ActixVersion::HTTP_10 => Version::HTTP_10,
        ActixVersion::HTTP_11 => Version::HTTP_11,
        ActixVersion::HTTP_2 => Version::HTTP_2,
        ActixVersion::HTTP_3 => Version::HTTP_3,
        _ => return None,
    })
}

/// The response to one request, from `ServeAssets` as an actix [`Service`]: ready at
/// once for embedded assets, after reading from disk for on-disk ones.
#[must_use = "futures do nothing unless polled"]
pub struct ServeFuture {
    state: Option<State>,
}

struct State {
    request: HttpRequest,
    pending: Pending,
    is_head: bool,
}

enum Pending {
    Core(ResponseFuture),
    /// A request head that `http` 1 cannot hold: 400.
    Refused,
}

impl Future for ServeFuture {
    type Output = Result<ServiceResponse, actix_web::Error>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let Some(mut state) = this.state.take() else {
            // Polled after completion: a contract violation; an error, not a panic.
            return Poll::Ready(Err(actix_web::error::ErrorInternalServerError(
                "ServeFuture polled after completion",
            )));
        };
        let response = match &mut state.pending {
            Pending::Core(future) => match Pin::new(future).poll(cx) {
                Poll::Ready(response) => to_actix(response, state.is_head, cx),
                Poll::Pending => {
                    this.state = Some(state);
                    return Poll::Pending;
                }
            },
            Pending::Refused => HttpResponse::BadRequest().finish(),
        };
        Poll::Ready(Ok(ServiceResponse::new(state.request, response)))
    }
}

impl fmt::Debug for ServeFuture {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = match &self.state {
            Some(State {
                pending: Pending::Core(future),
                ..
            }) => format!("{future:?}"),
            Some(State {
                pending: Pending::Refused,
                ..
            }) => "refused".to_owned(),
            None => "done".to_owned(),
        };
        f.debug_struct("ServeFuture")
            .field("state", &state)
            .finish()
    }
}

/// The core's response as actix's: status, every field, and the body streamed.
fn to_actix(response: Response<Body>, is_head: bool, cx: &mut Context<'_>) -> HttpResponse {
    let (parts, body) = response.into_parts();
    let Ok(status) = actix_web::http::StatusCode::from_u16(parts.status.as_u16()) else {
        return HttpResponse::InternalServerError().finish();
    };
    let mut body = AssetBody::new(body);
    // HEAD: no bytes, but the GET's length (see the module docs).
    if is_head && status_allows_length(parts.status) {
        if let Some(length) = content_length(&parts.headers) {
            body.size = Some(length);
        }
    } else {
        body.peek(cx);
    }
    let mut out = HttpResponse::with_body(status, body);
    let headers = out.headers_mut();
    headers.reserve(parts.headers.len());
    for (name, value) in &parts.headers {
        let name = actix_header::HeaderName::from_bytes(name.as_str().as_bytes());
        let value = actix_header::HeaderValue::from_bytes(value.as_bytes());
        let (Ok(name), Ok(value)) = (name, value) else {
            return HttpResponse::InternalServerError().finish();
        };
        headers.append(name, value);
    }
    out.map_into_boxed_body()
}

/// Statuses whose `Content-Length` actix writes from the body's size; it writes none
/// for 1xx and 204, and keeps the header map's for 304.
fn status_allows_length(status: http::StatusCode) -> bool {
    !(status.is_informational()
        || status == http::StatusCode::NO_CONTENT
        || status == http::StatusCode::NOT_MODIFIED)
}

fn content_length(headers: &HeaderMap) -> Option<u64> {
    headers
        .get(http::header::CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .parse()
        .ok()
}

/// The core's [`Body`] as an actix [`MessageBody`] of exact size.
struct AssetBody {
    body: Body,
    /// What actix writes as `Content-Length`; `None` (chunked) only if the core ever
    /// sent a body of unknown length.
    size: Option<u64>,
    /// A frame taken before actix asked, to hand a one-frame body over whole.
    peeked: Option<Result<Bytes, Error>>,
}

impl AssetBody {
    fn new(body: Body) -> Self {
        let size = body.size_hint().exact();
        AssetBody {
            body,
            size,
            peeked: None,
        }
    }

    /// Takes the first frame if it is there at once (embedded bodies), so that a body
    /// of one frame becomes actix's plain `Bytes` body (`try_into_bytes`) and is not
    /// boxed as a stream. An on-disk body starts reading its first chunk, with this
    /// task's waker.
    fn peek(&mut self, cx: &mut Context<'_>) {
        if self.body.is_end_stream() {
            return;
        }
        if let Poll::Ready(Some(frame)) = convert::poll_data(&mut self.body, cx) {
            self.peeked = Some(frame);
        }
    }
}

impl MessageBody for AssetBody {
    type Error = Error;

    fn size(&self) -> BodySize {
        match self.size {
            Some(size) => BodySize::Sized(size),
            None => BodySize::Stream,
        }
    }

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Bytes, Error>>> {
        let this = self.get_mut();
        if let Some(frame) = this.peeked.take() {
            return Poll::Ready(Some(frame));
        }
        convert::poll_data(&mut this.body, cx)
    }

    fn try_into_bytes(self) -> Result<Bytes, Self> {
        if !self.body.is_end_stream() {
            return Err(self);
        }
        match self.peeked {
            Some(Ok(bytes)) if Some(bytes.len() as u64) == self.size => Ok(bytes),
            None if self.size == Some(0) => Ok(Bytes::new()),
            peeked => Err(AssetBody { peeked, ..self }),
        }
    }
}

/// [`ServeAssets`] under a path prefix, like actix-files' `Files::new`:
/// `App::new().service(Mount::new("/static", ASSETS.service()))` serves
/// `/static/css/app.css` as `/css/app.css`, and redirects `/static` to `./static/`.
///
/// The prefix is an actix path pattern matched segment by segment (`/static` matches
/// `/static` and `/static/...`, not `/staticfoo`); a leading slash is added and
/// trailing ones are dropped, so `static/` means `/static`.
/// Inside a `web::scope` it is relative to the scope.
#[derive(Debug, Clone)]
pub struct Mount {
    prefix: String,
    service: ServeAssets,
}

impl Mount {
    /// Serves `service` under `prefix` (`"/static"`; `""` for every path).
    pub fn new(prefix: &str, service: ServeAssets) -> Self {
        Mount {
            prefix: prefix.trim_end_matches('/').to_owned(),
            service,
        }
    }
}

impl HttpServiceFactory for Mount {
    fn register(self, config: &mut AppService) {
        // With a leading slash, as actix's own resources get one, in scopes too.
        let rdef = ResourceDef::root_prefix(&self.prefix);
        config.register_service(rdef, None, self.service, None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static ASSETS: crate::Assets = crate::embed_assets!("../examples/public");

    /// Status, `Location`, and the declared body size of `method uri` in `app`.
    fn call<F, T>(app: F, method: ActixMethod, uri: &str) -> (u16, Option<String>, BodySize)
    where
        F: FnOnce() -> actix_web::App<T>,
        T: ServiceFactory<
                ServiceRequest,
                Config = (),
                Response = ServiceResponse,
                Error = actix_web::Error,
                InitError = (),
            > + 'static,
    {
        actix_web::rt::System::new().block_on(async {
            let app = actix_web::test::init_service(app()).await;
            let request = actix_web::test::TestRequest::default()
                .method(method)
                .uri(uri)
                .insert_header(("host", "a.test"))
                .to_request();
            let response = actix_web::test::call_service(&app, request).await;
            let location = response
                .headers()
                .get("location")
                .map(|v| v.to_str().unwrap().to_owned());
            let size = response.response().body().size();
            (response.status().as_u16(), location, size)
        })
    }

    /// What is tested, the path of the scope around the mount, the app.
    type Case<T> = (&'static str, &'static str, fn() -> actix_web::App<T>);

    #[test]
    fn every_way_of_mounting_serves_the_raw_rest_of_the_path() {
        let css = ASSETS.get("/css/app.css").unwrap().len();
        let mounts: [Case<_>; 4] = [
            ("Mount", "", || {
                actix_web::App::new().service(Mount::new("/static/", ASSETS.service()))
            }),
            ("scope default", "", || {
                actix_web::App::new()
                    .service(actix_web::web::scope("/static").default_service(ASSETS.service()))
            }),
            ("scope service", "", || {
                actix_web::App::new()
                    .service(actix_web::web::scope("/static").service(ASSETS.service()))
            }),
            ("Mount in a dynamic scope", "/%65n", || {
                actix_web::App::new().service(
                    actix_web::web::scope("/{lang}")
                        .service(Mount::new("static", ASSETS.service())),
                )
            }),
        ];
        for (what, base, app) in mounts {
            let get = |path: &str| call(app, ActixMethod::GET, &format!("{base}{path}"));
            let at = |path| get(path).0;
            assert_eq!(
                get("/static"),
                (301, Some("./static/".into()), BodySize::Sized(0)),
                "{what}"
            );
            assert_eq!(
                get("/static?a=b").1.as_deref(),
                Some("./static/?a=b"),
                "{what}"
            );
            assert_eq!(at("/static/"), 200, "{what}");
            assert_eq!(get("/static/css/app.css").2, BodySize::Sized(css), "{what}");
            // actix routes on a decoded copy; the core still gets the raw rest.
            assert_eq!(at("/st%61tic/css/app.css"), 200, "{what}");
            assert_eq!(at("/static/css%2Fapp.css"), 200, "{what}");
            assert_eq!(at("/static/css/%2e%2e/css/app.css"), 404, "{what}");
            assert_eq!(at("/static/%2e%2e/static/css/app.css"), 404, "{what}");
            assert_eq!(at("/static/about"), 301, "{what}");
            assert_eq!(at("/css/app.css"), 404, "{what}: outside the prefix");
            assert_eq!(
                at("/staticx/css/app.css"),
                404,
                "{what}: outside the prefix"
            );
            let head = call(
                app,
                ActixMethod::HEAD,
                &format!("{base}/static/css/app.css"),
            );
            assert_eq!(
                (head.0, head.2),
                (200, BodySize::Sized(css)),
                "{what}: HEAD"
            );
            let post = call(
                app,
                ActixMethod::POST,
                &format!("{base}/static/css/app.css"),
            );
            assert_eq!(post.0, 405, "{what}");
        }
    }

    #[test]
    fn as_the_default_service_every_path_is_passed_whole() {
        let app = || {
            actix_web::App::new()
                .route("/api/health", actix_web::web::get().to(|| async { "ok" }))
                .default_service(ASSETS.service())
        };
        assert_eq!(call(app, ActixMethod::GET, "/api/health").0, 200);
        assert_eq!(call(app, ActixMethod::GET, "/css/app.css").0, 200);
        assert_eq!(call(app, ActixMethod::GET, "/%63ss/app.css").0, 200);
        assert_eq!(call(app, ActixMethod::GET, "/css/..%2fcss/app.css").0, 404);
        assert_eq!(
            call(app, ActixMethod::GET, "/about").1.as_deref(),
            Some("./about/")
        );
        // The absolute form names the host; no `Host` field needed.
        let absolute = actix_web::rt::System::new().block_on(async {
            let app = actix_web::test::init_service(app()).await;
            let request = actix_web::test::TestRequest::get()
                .uri("http://a.test/css/app.css")
                .version(ActixVersion::HTTP_11)
                .to_request();
            actix_web::test::call_service(&app, request).await.status()
        });
        assert_eq!(absolute.as_u16(), 200);
    }

    #[test]
    fn an_embedded_body_is_handed_over_as_one_bytes_not_boxed() {
        let body = actix_web::rt::System::new().block_on(async {
            let app = actix_web::App::new().default_service(ASSETS.service());
            let app = actix_web::test::init_service(app).await;
            let request = actix_web::test::TestRequest::get()
                .uri("/css/app.css")
                .insert_header(("host", "a.test"))
                .to_request();
            let response = actix_web::test::call_service(&app, request).await;
            response.into_body().try_into_bytes()
        });
        let bytes = body.map_err(|_| "boxed as a stream").unwrap();
        assert_eq!(
            &bytes[..],
            ASSETS
                .get("/css/app.css")
                .unwrap()
                .body(crate::Encoding::Identity)
                .unwrap()
        );
    }
}
