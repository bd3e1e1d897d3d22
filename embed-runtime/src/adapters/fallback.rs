//! [`WithFallback`]: the assets in front of an application. An embedded hit is
//! answered here, before the application's router runs; every other request goes to
//! the application as it came, and comes back to the assets only when no route of
//! the application had it.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use bytes::Bytes;
use http::header::CONTENT_TYPE;
use http::{HeaderMap, Method, Request, Response, StatusCode, Uri, Version};
use http_body::{Frame, SizeHint};

use crate::body::Body;
use crate::future::ResponseFuture;
use crate::service::Claim;
use crate::{RequestHead, ServeAssets};

/// [`ServeAssets`] in front of an application (feature `tower`): made by
/// [`ServeAssets::with_fallback`].
///
/// A request the assets answer — a GET or HEAD of an embedded or on-disk asset at its
/// own URL, a directory's index, a fingerprinted or clean URL, or the redirect of a
/// directory path to its slash — is answered by the assets, without calling the
/// application. Every other request is handed to the application unchanged: its
/// routes, extractors, state, middleware and fallback all run as without the assets,
/// and its response is returned as it is.
///
/// The application's routes win: whatever it answers stands, its own 404s included.
/// Only where no route has the request, the assets answer it after all: when the
/// application's answer is a 404 with an empty body and no `Content-Type` (what an
/// axum `Router` without a fallback of its own answers for a path none of its routes
/// has), the assets' own answer takes its place: 405 with `Allow` on one of their
/// files, the [single-page app's page](ServeAssets::spa_fallback), the
/// [404 page](ServeAssets::not_found_page), or their plain 404. So a bare `Router`
/// behind the assets needs no fallback of its own, and no answer tells a path the
/// assets refuse (a symbolic link in a [folder](ServeAssets::folder)) from one they do
/// not have. An application whose fallback answers something (a body, a type) keeps
/// every miss. In [dev mode](ServeAssets::dev_folder), a file added to the folder since
/// the build is a hit too, answered in front (a `stat` tells whether it exists),
/// whatever the application's fallback is.
///
/// One miss is the assets' own: a version of a content-hashed file that the table does
/// not have (`/js/app.0badf00d.js` beside `/js/app.3f2a1b9c.js`, asked for by a page of
/// another release) gets the assets' `404` with `Cache-Control: no-store`, since an
/// application's fallback would answer it with a page.
///
/// Responses come in a [`FallbackBody`]: the assets' [`Body`] for a hit, the
/// application's own body for a miss, neither boxed. With axum 0.8, `axum::serve`
/// takes it through [`into_make_service`](Self::into_make_service) (feature `axum`):
///
/// ```no_run
/// # use embed_assets::{embed_assets, Assets};
/// # static ASSETS: Assets = embed_assets!("../examples/public");
/// use axum::{routing::get, Router};
///
/// # #[cfg(feature = "axum")]
/// # async fn run() -> std::io::Result<()> {
/// let app = Router::new().route("/api/health", get(|| async { "ok" }));
/// let service = ASSETS.service().with_fallback(app);
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:3000").await?;
/// axum::serve(listener, service.into_make_service()).await
/// # }
/// ```
///
/// With hyper-util's server, wrap it in `TowerToHyperService` as any tower service;
/// there a hit allocates nothing for its body:
///
/// ```no_run
/// # use embed_assets::{embed_assets, Assets};
/// # static ASSETS: Assets = embed_assets!("../examples/public");
/// use hyper_util::rt::{TokioExecutor, TokioIo};
/// use hyper_util::server::conn::auto;
/// use hyper_util::service::TowerToHyperService;
///
/// # #[cfg(feature = "axum")] // an axum `Router` as the app needs the `axum` feature
/// # async fn run() -> std::io::Result<()> {
/// let app = axum::Router::new().route("/api/health", axum::routing::get(|| async { "ok" }));
/// let service = ASSETS.service().with_fallback(app);
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:3000").await?;
/// loop {
///     let (stream, _) = listener.accept().await?;
///     let service = TowerToHyperService::new(service.clone());
///     tokio::spawn(async move {
///         let _ = auto::Builder::new(TokioExecutor::new())
///             .serve_connection(TokioIo::new(stream), service)
///             .await;
///     });
/// }
/// # }
/// ```
///
/// Readiness is the application's: `poll_ready` asks the application, so a hit waits
/// while the application is not ready (an axum `Router` always is).
#[derive(Clone)]
pub struct WithFallback<S> {
    assets: ServeAssets,
    app: S,
}

impl ServeAssets {
    /// These assets in front of `app`, a tower service such as an axum `Router`:
    /// embedded hits are answered before `app` runs, every other request goes to
    /// `app` unchanged. See [`WithFallback`].
    pub fn with_fallback<S>(self, app: S) -> WithFallback<S> {
        WithFallback { assets: self, app }
    }
}

impl<S> WithFallback<S> {
    /// The assets in front.
    pub fn assets(&self) -> &ServeAssets {
        &self.assets
    }

    /// The application behind them.
    pub fn app(&self) -> &S {
        &self.app
    }
}

impl<S, B, RB> tower_service::Service<Request<B>> for WithFallback<S>
where
    S: tower_service::Service<Request<B>, Response = Response<RB>>,
    RB: http_body::Body,
{
    type Response = Response<FallbackBody<RB>>;
    type Error = S::Error;
    type Future = FallbackFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.app.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let head = RequestHead::from_request(&request);
        let inner = match self.assets.answer(head, Claim::Hits) {
            Some(hit) => Inner::Hit { hit },
            None => {
                // Kept for the assets' own answer, should no route claim the request.
                let miss = Miss {
                    assets: self.assets.clone(),
                    method: request.method().clone(),
                    uri: request.uri().clone(),
                    version: request.version(),
                    headers: request.headers().clone(),
                };
                Inner::App {
                    future: self.app.call(request),
                    miss: Some(miss),
                }
            }
        };
        FallbackFuture { inner }
    }
}

/// A request the application was given, kept until it answers.
struct Miss {
    assets: ServeAssets,
    method: Method,
    uri: Uri,
    version: Version,
    headers: HeaderMap,
}

impl Miss {
    /// The assets' own answer to it: 405 on a file, the single-page app's page, the
    /// 404 page, or the plain 404.
    fn answer(self) -> ResponseFuture {
        let head = RequestHead::new(
            &self.method,
            self.uri.path(),
            self.uri.query(),
            self.version,
            &self.headers,
        )
        .with_target_authority(self.uri.authority().is_some());
        self.assets.respond_head(head)
    }
}

/// Whether the application's answer says only that no route has the path: a 404 with
/// an empty body and no `Content-Type`, as an axum `Router` answers a path none of its
/// routes has when it has no fallback of its own. A 404 that says anything (a body, a
/// type) is the application's own answer, and stands.
fn is_no_route<RB: http_body::Body>(response: &Response<RB>) -> bool {
    response.status() == StatusCode::NOT_FOUND
        && !response.headers().contains_key(CONTENT_TYPE)
        && response.body().size_hint().exact() == Some(0)
}

pin_project_lite::pin_project! {
    /// The response future of [`WithFallback`]: the assets' answer, or the
    /// application's future as it returned it.
    #[must_use = "futures do nothing unless polled"]
    pub struct FallbackFuture<F> {
        #[pin]
        inner: Inner<F>,
    }
}

pin_project_lite::pin_project! {
    #[project = InnerProj]
    enum Inner<F> {
        /// The assets' answer: a hit, or a request no route of the application had.
        Hit { hit: ResponseFuture },
        App { #[pin] future: F, miss: Option<Miss> },
    }
}

impl<F, RB, E> Future for FallbackFuture<F>
where
    F: Future<Output = Result<Response<RB>, E>>,
    RB: http_body::Body,
{
    type Output = Result<Response<FallbackBody<RB>>, E>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let hit = match self.as_mut().project().inner.project() {
            InnerProj::Hit { hit } => {
                return Pin::new(hit).poll(cx).map(|response| {
                    Ok(response.map(|body| FallbackBody {
                        inner: BodyInner::Assets { body },
                    }))
                });
            }
            InnerProj::App { future, miss } => match (ready!(future.poll(cx)), miss.take()) {
                (Ok(response), Some(miss)) if is_no_route(&response) => miss.answer(),
                (answered, _) => {
                    return Poll::Ready(answered.map(|response| {
                        response.map(|body| FallbackBody {
                            inner: BodyInner::App { body },
                        })
                    }));
                }
            },
        };
        self.as_mut().project().inner.set(Inner::Hit { hit });
        self.poll(cx)
    }
}

impl<F> fmt::Debug for FallbackFuture<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let answered_by = match self.inner {
            Inner::Hit { .. } => "assets",
            Inner::App { .. } => "app",
        };
        f.debug_struct("FallbackFuture")
            .field("answered_by", &answered_by)
            .finish()
    }
}

pin_project_lite::pin_project! {
    /// The response body of [`WithFallback`]: the assets' [`Body`] for a hit, the
    /// application's body for a miss, neither boxed. Frames, the end of the stream
    /// and the exact size (hence `Content-Length`) are those of the body inside; an
    /// error is the assets' [`Error`](crate::Error) or the application body's, boxed
    /// (only when one happens).
    ///
    /// ```
    /// # use embed_assets::{embed_assets, Assets};
    /// # static ASSETS: Assets = embed_assets!("../examples/public");
    /// # #[cfg(feature = "axum")]
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// use tower_service::Service;
    ///
    /// let app = axum::Router::new().route("/api/health", axum::routing::get(|| async { "ok" }));
    /// let mut service = ASSETS.service().with_fallback(app);
    /// let get = |path| {
    ///     let request = http::Request::get(path).header("host", "localhost");
    ///     request.body(String::new()).unwrap()
    /// };
    /// let hit = service.call(get("/css/app.css")).await.unwrap();
    /// assert!(hit.body().is_assets());
    /// let miss = service.call(get("/api/health")).await.unwrap();
    /// assert!(!miss.body().is_assets());
    /// # }
    /// # #[cfg(not(feature = "axum"))]
    /// # fn main() {}
    /// ```
    pub struct FallbackBody<B> {
        #[pin]
        pub(crate) inner: BodyInner<B>,
    }
}

pin_project_lite::pin_project! {
    #[project = BodyProj]
    pub(crate) enum BodyInner<B> {
        Assets { #[pin] body: Body },
        App { #[pin] body: B },
    }
}

impl<B> FallbackBody<B> {
    /// Whether the assets answered (rather than the application).
    pub fn is_assets(&self) -> bool {
        matches!(self.inner, BodyInner::Assets { .. })
    }
}

impl<B> fmt::Debug for FallbackBody<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.inner {
            BodyInner::Assets { body } => {
                f.debug_tuple("FallbackBody::Assets").field(body).finish()
            }
            BodyInner::App { .. } => f.write_str("FallbackBody::App(..)"),
        }
    }
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

impl<B> http_body::Body for FallbackBody<B>
where
    B: http_body::Body<Data = Bytes>,
    B::Error: Into<BoxError>,
{
    type Data = Bytes;
    type Error = Box<dyn std::error::Error + Send + Sync>;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        match self.project().inner.project() {
            BodyProj::Assets { body } => body.poll_frame(cx).map_err(BoxError::from),
            BodyProj::App { body } => body.poll_frame(cx).map_err(Into::into),
        }
    }

    fn is_end_stream(&self) -> bool {
        match &self.inner {
            BodyInner::Assets { body } => body.is_end_stream(),
            BodyInner::App { body } => body.is_end_stream(),
        }
    }

    fn size_hint(&self) -> SizeHint {
        match &self.inner {
            BodyInner::Assets { body } => body.size_hint(),
            BodyInner::App { body } => body.size_hint(),
        }
    }
}

impl<S: fmt::Debug> fmt::Debug for WithFallback<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WithFallback")
            .field("assets", &self.assets)
            .field("app", &self.app)
            .finish()
    }
}
