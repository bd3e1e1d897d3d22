//! [`WithFallback`]: the assets in front of an application. An embedded hit is
//! answered here, before the application's router runs; every other request goes to
//! the application as it came.

use std::convert::Infallible;
use std::fmt;
use std::future::{Future, Ready};
use std::pin::Pin;
use std::task::{Context, Poll};

use http::{Request, Response};

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
/// With hyper-util's server, wrap it in `TowerToHyperService` as any tower service.
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
        let inner = match self.assets.respond_hit(&request) {
            Some(hit) => Inner::Hit { hit },
            None => Inner::App {
                future: self.app.call(request),
            },
        };
        FallbackFuture { inner }
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

impl<F, RB, E> Future for FallbackFuture<F>
where
    F: Future<Output = Result<Response<RB>, E>>,
    RB: From<Body>,
{
    type Output = Result<Response<RB>, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.project().inner.project() {
            InnerProj::Hit { hit } => Pin::new(hit)
                .poll(cx)
                .map(|response| Ok(response.map(RB::from))),
            InnerProj::App { future } => future.poll(cx),
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
        let kind = match self.inner {
            Inner::Hit { .. } => "assets",
            Inner::App { .. } => "app",
        };
        f.debug_struct("FallbackFuture")
            .field("answered_by", &kind)
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
