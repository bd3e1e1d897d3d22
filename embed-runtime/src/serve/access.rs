//! The access log of [`serve`](crate::serve): one `tracing` event per request, hits
//! answered by the fast path and requests answered by hyper (misses, the
//! application's routes) alike, at `INFO` on the target `embed_assets::access`.
//!
//! It costs a request nothing but one check of the subscriber's interest (a relaxed
//! atomic load once `tracing` has cached it) unless a subscriber listens to that target:
//! only then is the request's target kept and its time taken.

use std::time::Instant;

use http::header::CONTENT_ENCODING;
use http::uri::PathAndQuery;
use http::{HeaderMap, Method, StatusCode};

/// The target of the access log's events.
pub(super) const TARGET: &str = "embed_assets::access";

/// Whether a subscriber listens to the access log.
pub(super) fn enabled() -> bool {
    tracing::enabled!(target: TARGET, tracing::Level::INFO)
}

/// A request being answered, while the access log is listened to.
#[derive(Debug)]
pub(super) struct Entry {
    method: Method,
    target: Option<PathAndQuery>,
    started: Instant,
}

impl Entry {
    /// An entry for a request, when the access log is listened to (else `None`, and
    /// nothing is kept). Boxed: a request without one carries a pointer's room.
    pub(super) fn start(method: &Method, target: Option<&PathAndQuery>) -> Option<Box<Self>> {
        enabled().then(|| {
            Box::new(Entry {
                method: method.clone(),
                target: target.cloned(),
                started: Instant::now(),
            })
        })
    }

    /// The request's event, once its answer is ready: its status, the body's length
    /// (`None` when not known ahead, as for a stream without `Content-Length`) and its
    /// coding, from the response's fields; the time from the request's head to its
    /// answer's.
    pub(super) fn log(&self, status: StatusCode, fields: &HeaderMap, bytes: Option<u64>) {
        let coding = fields
            .get(CONTENT_ENCODING)
            .and_then(|value| value.to_str().ok())
            .unwrap_or("identity");
        let path = self.target.as_ref().map_or("", PathAndQuery::as_str);
        let micros = u64::try_from(self.started.elapsed().as_micros()).unwrap_or(u64::MAX);
        let bytes_shown = bytes.map_or_else(|| "-".to_owned(), |bytes| bytes.to_string());
        tracing::info!(
            target: TARGET,
            method = %self.method,
            path,
            status = status.as_u16(),
            bytes,
            coding,
            micros,
            "{} {path} {} {bytes_shown} {coding} {micros}us",
            self.method,
            status.as_u16(),
        );
    }
}
