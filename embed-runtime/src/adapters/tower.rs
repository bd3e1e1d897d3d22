//! [`ServeAssets`] as a tower `Service` (feature `tower`): what axum's
//! `fallback_service` and `nest_service` and hyper-util's `TowerToHyperService` call.

use std::convert::Infallible;
use std::task::{Context, Poll};

use http::{Request, Response};

use crate::ServeAssets;
use crate::body::Body;
use crate::future::ServiceFuture;

/// Ready at once and never fails: usable as axum's `fallback_service` and
/// `nest_service`, or with hyper-util's `TowerToHyperService`.
impl<B> tower_service::Service<Request<B>> for ServeAssets {
    type Response = Response<Body>;
    type Error = Infallible;
    type Future = ServiceFuture;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> ServiceFuture {
        ServiceFuture(self.respond(&request))
    }
}
