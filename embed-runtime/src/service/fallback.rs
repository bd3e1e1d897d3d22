//! [`WithFallback`]: the assets in front of an application. An embedded hit is
//! answered here, before the application's router runs; every other request goes to
//! the application as it came.

use std::convert::Infallible;
use std::fmt;
use std::future::{Future, Ready};
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::{Request, Response};
use http_body::{Frame, SizeHint};

use super::{ResponseFuture, ServeAssets};
use crate::body::Body;

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
/// So the assets' own answers for what they do not serve (404, 405, the
/// [single-page app's page](ServeAssets::spa_fallback), the
/// [404 page](ServeAssets::not_found_page)) are never given here: those requests are
/// the application's. To keep them, make a `ServeAssets` the application's own
/// fallback as well. In [dev mode](ServeAssets::dev_folder), files added to the folder
/// since the build go to the application too (whether one exists takes a read), so
/// they are served through that fallback.
///
/// With axum 0.8, `axum::serve` takes it through
/// [`into_make_service`](Self::into_make_service):
///
/// ```no_run
/// # use embed_runtime::{embed_assets, Assets};
/// # static ASSETS: Assets = embed_assets!("../examples/public");
/// use axum::{routing::get, Router};
///
/// # #[cfg(feature = "axum")] // an axum `Router` as the app needs the `axum` feature
/// # async fn run() -> std::io::Result<()> {
/// let app = Router::new().route("/api/health", get(|| async { "ok" }));
/// let service = ASSETS.service().with_fallback(app);
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:3000").await?;
/// axum::serve(listener, service.into_make_service()).await
/// # }
/// ```
///
/// With hyper-util's server, wrap it in `TowerToHyperService` as any tower service;
/// there, [`unboxed`](Self::unboxed) keeps a hit's body as it is, with no box around it.
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
    ///
    /// `app`'s response body must be buildable from this crate's [`Body`]; an axum
    /// `Router`'s is (the `axum` feature).
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

    /// The same service with responses in a [`FallbackBody`]: a hit's body is the
    /// assets' [`Body`], a miss's the application's, each as it is, where
    /// [`WithFallback`] turns a hit's body into the application's body type (for an
    /// axum `Router`, one allocation: the box that axum's body is).
    ///
    /// For servers that take any body type, such as hyper-util's:
    ///
    /// ```no_run
    /// # use embed_runtime::{embed_assets, Assets};
    /// # static ASSETS: Assets = embed_assets!("../examples/public");
    /// use hyper_util::rt::{TokioExecutor, TokioIo};
    /// use hyper_util::server::conn::auto;
    /// use hyper_util::service::TowerToHyperService;
    ///
    /// # #[cfg(feature = "axum")] // an axum `Router` as the app needs the `axum` feature
    /// # async fn run() -> std::io::Result<()> {
    /// let app = axum::Router::new().route("/api/health", axum::routing::get(|| async { "ok" }));
    /// let service = ASSETS.service().with_fallback(app).unboxed();
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
    /// `axum::serve` takes axum's body only: use [`WithFallback`] itself there.
    pub fn unboxed(self) -> UnboxedFallback<S> {
        UnboxedFallback(self)
    }

    /// Where `request` goes: the assets' answer, or the application's future.
    fn route<B>(&mut self, request: Request<B>) -> Inner<S::Future>
    where
        S: tower_service::Service<Request<B>>,
    {
        match self.assets.respond_hit(&request) {
            Some(hit) => Inner::Hit { hit },
            None => Inner::App {
                future: self.app.call(request),
            },
        }
    }

    /// A service that makes a clone of this one for every connection, as
    /// `axum::serve` takes it (axum's `Router::into_make_service` does the same).
    pub fn into_make_service(self) -> MakeWithFallback<S> {
        MakeWithFallback(self)
    }
}

/// Makes a [`WithFallback`] per connection: from [`WithFallback::into_make_service`].
#[derive(Debug, Clone)]
pub struct MakeWithFallback<S>(WithFallback<S>);

/// Whatever the connection's target (`axum::serve`'s `IncomingStream`, a socket
/// address), the answer is a clone of the service, ready at once.
impl<S: Clone, T> tower_service::Service<T> for MakeWithFallback<S> {
    type Response = WithFallback<S>;
    type Error = Infallible;
    type Future = Ready<Result<WithFallback<S>, Infallible>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, _target: T) -> Self::Future {
        std::future::ready(Ok(self.0.clone()))
    }
}

impl<S, B, RB> tower_service::Service<Request<B>> for WithFallback<S>
where
    S: tower_service::Service<Request<B>, Response = Response<RB>>,
    RB: From<Body>,
{
    type Response = Response<RB>;
    type Error = S::Error;
    type Future = FallbackFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.app.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        FallbackFuture {
            inner: self.route(request),
        }
    }
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
        Hit { hit: ResponseFuture },
        App { #[pin] future: F },
    }
}

/// Who answered a request, and how.
enum Answer<RB> {
    Assets(Response<Body>),
    App(Response<RB>),
}

impl<F> Inner<F> {
    fn poll_answer<RB, E>(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<Answer<RB>, E>>
    where
        F: Future<Output = Result<Response<RB>, E>>,
    {
        match self.project() {
            InnerProj::Hit { hit } => Pin::new(hit)
                .poll(cx)
                .map(|response| Ok(Answer::Assets(response))),
            InnerProj::App { future } => future.poll(cx).map(|result| result.map(Answer::App)),
        }
    }

    fn answered_by(&self) -> &'static str {
        match self {
            Inner::Hit { .. } => "assets",
            Inner::App { .. } => "app",
        }
    }
}

impl<F, RB, E> Future for FallbackFuture<F>
where
    F: Future<Output = Result<Response<RB>, E>>,
    RB: From<Body>,
{
    type Output = Result<Response<RB>, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        self.project()
            .inner
            .poll_answer(cx)
            .map_ok(|answer| match answer {
                Answer::Assets(response) => response.map(RB::from),
                Answer::App(response) => response,
            })
    }
}

/// [`WithFallback`] with responses in a [`FallbackBody`], so that no hit's body is
/// boxed: made by [`WithFallback::unboxed`], for servers that take any body type
/// (hyper-util's). Requests go where [`WithFallback`] sends them.
#[derive(Clone, Debug)]
pub struct UnboxedFallback<S>(WithFallback<S>);

impl<S> UnboxedFallback<S> {
    /// The [`WithFallback`] this is made of.
    pub fn into_inner(self) -> WithFallback<S> {
        self.0
    }
}

impl<S, B, RB> tower_service::Service<Request<B>> for UnboxedFallback<S>
where
    S: tower_service::Service<Request<B>, Response = Response<RB>>,
{
    type Response = Response<FallbackBody<RB>>;
    type Error = S::Error;
    type Future = UnboxedFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.0.app.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        UnboxedFuture {
            inner: self.0.route(request),
        }
    }
}

pin_project_lite::pin_project! {
    /// The response future of [`UnboxedFallback`].
    #[must_use = "futures do nothing unless polled"]
    pub struct UnboxedFuture<F> {
        #[pin]
        inner: Inner<F>,
    }
}

impl<F, RB, E> Future for UnboxedFuture<F>
where
    F: Future<Output = Result<Response<RB>, E>>,
{
    type Output = Result<Response<FallbackBody<RB>>, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        self.project()
            .inner
            .poll_answer(cx)
            .map_ok(|answer| match answer {
                Answer::Assets(response) => response.map(|body| FallbackBody {
                    inner: BodyInner::Assets { body },
                }),
                Answer::App(response) => response.map(|body| FallbackBody {
                    inner: BodyInner::App { body },
                }),
            })
    }
}

impl<F> fmt::Debug for UnboxedFuture<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UnboxedFuture")
            .field("answered_by", &self.inner.answered_by())
            .finish()
    }
}

/// An error of a [`FallbackBody`]: the assets' [`Error`](crate::Error) or the
/// application body's, boxed (only when one happens).
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

pin_project_lite::pin_project! {
    /// The response body of [`UnboxedFallback`]: the assets' [`Body`] for a hit, the
    /// application's body for a miss, neither boxed. Frames, the end of the stream
    /// and the exact size (hence `Content-Length`) are those of the body inside.
    pub struct FallbackBody<B> {
        #[pin]
        inner: BodyInner<B>,
    }
}

pin_project_lite::pin_project! {
    #[project = BodyProj]
    enum BodyInner<B> {
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

impl<B> http_body::Body for FallbackBody<B>
where
    B: http_body::Body<Data = Bytes>,
    B::Error: Into<BoxError>,
{
    type Data = Bytes;
    type Error = BoxError;

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

impl<F> fmt::Debug for FallbackFuture<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FallbackFuture")
            .field("answered_by", &self.inner.answered_by())
            .finish()
    }
}

/// An axum response body from ours, for [`WithFallback`] in front of an axum
/// `Router`: one allocation, the box axum's body type is.
#[cfg(feature = "axum")]
impl From<Body> for axum::body::Body {
    fn from(body: Body) -> Self {
        axum::body::Body::new(body)
    }
}
