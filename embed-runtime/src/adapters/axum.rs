//! axum 0.8 (feature `axum`): the mount point of `nest_service`, read from axum's
//! `OriginalUri`, and [`WithFallback::into_make_service`] for `axum::serve`, which takes
//! axum's body type only.

use http::{Request, Response};

use super::fallback::{BodyInner, FallbackBody, WithFallback};

/// The last segment of the mount point when this service is nested and the request
/// named the mount point without its slash (`/static` for `nest_service("/static")`).
pub(crate) fn mount_path<B>(request: &Request<B>) -> Option<&str> {
    let original = request
        .extensions()
        .get::<axum::extract::OriginalUri>()?
        .0
        .path();
    if original.ends_with('/') || original == request.uri().path() {
        return None;
    }
    original
        .rsplit('/')
        .next()
        .filter(|segment| !segment.is_empty())
}

impl<S> WithFallback<S>
where
    S: tower_service::Service<
            axum::extract::Request,
            Response = axum::response::Response,
            Error = std::convert::Infallible,
        > + Clone
        + Send
        + 'static,
    S::Future: Send,
{
    /// A service that makes a clone of this one for every connection, as
    /// `axum::serve` takes it (as axum's `Router::into_make_service` does), with
    /// responses in axum's body type: a hit's body is boxed into it (axum's body is a
    /// box), a miss's is the application's as it is.
    pub fn into_make_service(self) -> axum::routing::IntoMakeService<IntoAxum<S>> {
        let service: IntoAxum<S> =
            tower::util::MapResponse::new(self, FallbackBody::into_axum_response);
        axum::ServiceExt::<axum::extract::Request>::into_make_service(service)
    }
}

/// [`WithFallback`] with axum's response type, as `axum::serve` requires: what
/// [`WithFallback::into_make_service`] makes per connection.
pub(crate) type IntoAxum<S> = tower::util::MapResponse<
    WithFallback<S>,
    fn(Response<FallbackBody<axum::body::Body>>) -> axum::response::Response,
>;

impl FallbackBody<axum::body::Body> {
    /// The response in axum's body type: the application's body as it is, the assets'
    /// boxed into it (one allocation, the box axum's body is).
    pub(crate) fn into_axum_response(
        response: Response<FallbackBody<axum::body::Body>>,
    ) -> axum::response::Response {
        response.map(|body| match body.inner {
            BodyInner::Assets { body } => axum::body::Body::new(body),
            BodyInner::App { body } => body,
        })
    }
}
