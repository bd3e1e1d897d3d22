//! Servers that speak `http::Request` (hyper 1, and every tower stack through
//! `tower.rs`): the request's head as the core reads it.

use http::Request;

use crate::future::ResponseFuture;
use crate::{RequestHead, ServeAssets};

impl<'a> RequestHead<'a> {
    /// The head of an `http::Request`, its path taken as relative to the service.
    pub fn from_request<B>(request: &'a Request<B>) -> Self {
        RequestHead::of_uri(
            request.method(),
            request.uri(),
            request.version(),
            request.headers(),
        )
    }
}

impl ServeAssets {
    /// Answers one request: ready at once for embedded assets, after reading from
    /// disk for on-disk ones. Never fails and never panics: every outcome, 404 and 405
    /// included, is a response. Only the head of the request is read.
    ///
    /// Under axum's `nest_service` (feature `axum`), a request for the mount point
    /// without its slash is redirected to it, so the index page's relative links
    /// resolve.
    pub fn respond<B>(&self, request: &Request<B>) -> ResponseFuture {
        let head = RequestHead::from_request(request);
        match bare_mount(request) {
            Some(mount) => self.respond_head(head.at_bare_mount(mount)),
            None => self.respond_head(head),
        }
    }
}

#[cfg(feature = "axum")]
use super::axum::mount_path as bare_mount;

/// Without axum, no router tells a nested service's mount point.
#[cfg(not(feature = "axum"))]
fn bare_mount<B>(_request: &Request<B>) -> Option<&str> {
    None
}
