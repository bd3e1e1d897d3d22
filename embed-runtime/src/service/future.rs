//! The response future: ready at once for embedded assets, a boxed future for bytes
//! read from disk.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use http::{Response, StatusCode};

#[cfg(doc)]
use crate::ServeAssets;
use crate::body::Body;
use crate::respond::{self, Embedded, Prebuilt};

/// The response to one request, from [`ServeAssets::respond`]: ready at once for
/// embedded assets (no allocation), a boxed future for on-disk ones.
#[must_use = "futures do nothing unless polled"]
pub struct ResponseFuture {
    inner: FutureInner,
}

enum FutureInner {
    Ready(Option<Response<Body>>),
    Disk(Pin<Box<dyn Future<Output = Response<Body>> + Send>>),
}

impl ResponseFuture {
    /// A response known at once: no allocation.
    pub(super) fn ready(response: Response<Body>) -> Self {
        ResponseFuture {
            inner: FutureInner::Ready(Some(response)),
        }
    }

    /// A response that needs I/O first.
    pub(super) fn boxed(future: impl Future<Output = Response<Body>> + Send + 'static) -> Self {
        ResponseFuture {
            inner: FutureInner::Disk(Box::pin(future)),
        }
    }
}

impl Future for ResponseFuture {
    type Output = Response<Body>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Response<Body>> {
        match &mut self.get_mut().inner {
            FutureInner::Ready(response) => match response.take() {
                Some(response) => Poll::Ready(response),
                // Polled after completion: a contract violation; answer, don't panic.
                None => Poll::Ready(respond::status_only(StatusCode::INTERNAL_SERVER_ERROR)),
            },
            FutureInner::Disk(future) => future.as_mut().poll(cx),
        }
    }
}

/// [`ResponseFuture`] as a tower service's infallible result: the future of
/// [`ServeAssets`] as a tower `Service` (feature `tower`).
#[cfg(feature = "tower")]
#[derive(Debug)]
#[must_use = "futures do nothing unless polled"]
pub struct ServiceFuture(pub(crate) ResponseFuture);

#[cfg(feature = "tower")]
impl Future for ServiceFuture {
    type Output = Result<Response<Body>, std::convert::Infallible>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        Pin::new(&mut self.0).poll(cx).map(Ok)
    }
}

impl fmt::Debug for ResponseFuture {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.inner {
            FutureInner::Ready(_) => "ready",
            FutureInner::Disk(_) => "disk",
        };
        f.debug_struct("ResponseFuture")
            .field("kind", &kind)
            .finish()
    }
}

/// An answer of the assets before it becomes a [`ResponseFuture`]: what a server that
/// writes its own response heads takes (`serve`'s fast path), so that the common
/// answers copy no field.
#[derive(Debug)]
pub(crate) enum Answer<'a> {
    /// A response whose fields were all built with the service.
    Prebuilt(Prebuilt<'a>),
    /// Any other response made from memory.
    Response(Response<Body>),
    /// A response that needs I/O first.
    Later(ResponseFuture),
}

impl Answer<'_> {
    /// The answer as adapters take it.
    pub(crate) fn into_future(self) -> ResponseFuture {
        let response = match self {
            Answer::Prebuilt(prebuilt) => prebuilt.into_response(),
            Answer::Response(response) => response,
            Answer::Later(future) => return future,
        };
        ResponseFuture {
            inner: FutureInner::Ready(Some(response)),
        }
    }
}

impl<'a> From<Embedded<'a>> for Answer<'a> {
    fn from(embedded: Embedded<'a>) -> Self {
        match embedded {
            Embedded::Prebuilt(prebuilt) => Answer::Prebuilt(prebuilt),
            Embedded::Response(response) => Answer::Response(response),
        }
    }
}
