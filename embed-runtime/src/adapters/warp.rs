//! [`ServeAssets`] as a warp 0.4 [`Filter`]: [`assets`] answers what the service has
//! and rejects the rest with [`warp::reject::not_found`], so it composes with
//! `.or(...)` like any warp route.
//!
//! ```no_run
//! use embed_assets::{adapters::warp::assets, embed_assets, Assets};
//! use warp::Filter;
//!
//! static ASSETS: Assets = embed_assets!("../examples/public");
//!
//! # async fn run() {
//! // At the root, next to an app route: `/api/health` is the app's, the rest the site's.
//! let health = warp::path!("api" / "health").and(warp::get()).map(|| "ok");
//! let root = health.or(assets(ASSETS.service()));
//!
//! // Mounted: `/static/css/app.css`, and `/static` redirects to `./static/`.
//! let mounted = warp::path("static").and(assets(ASSETS.service()));
//!
//! # let _ = mounted.clone();
//! warp::serve(root).run(([127, 0, 0, 1], 3000)).await;
//! # warp::serve(mounted).run(([127, 0, 0, 1], 3001)).await;
//! # }
//! ```
//!
//! The filter reads the method, the raw path (what follows the path filters before it:
//! `warp::path("static")` mounts the service at `/static`), the query and every header
//! field, and replies with the service's status and header fields unchanged, repeated
//! fields included. Bodies are streamed frame by frame as warp's server polls for them;
//! an on-disk file that changes mid-download ends the stream with an error, and the
//! server then closes the connection instead of ending the body early.
//!
//! A path the service has nothing for (its plain 404) is rejected with
//! [`warp::reject::not_found`], so filters after it get the request, and one nothing
//! answers gets warp's own empty 404. With a
//! [`not_found_page`](crate::ServeAssets::not_found_page) that page is the reply
//! instead; with a [`spa_fallback`](crate::ServeAssets::spa_fallback) so is the 404
//! of every miss, since it carries `Vary: Accept` (another `Accept` would have got the
//! app): put the filter last. Every other outcome (200, 206, 301, 304, 400, 405, 412,
//! 416) is a reply.
//!
//! # What warp changes, and what it cannot do
//!
//! - warp gives a filter no access to the request's HTTP version (its route's version is
//!   private; only the `log` and `trace` wrappers see it). The filter takes every
//!   request for HTTP/1.1, the version of virtually all warp traffic, so an HTTP/1.0
//!   request that has no `Host` field is answered with 400 like an HTTP/1.1 one
//!   (RFC 9112 §3.2 asks that only of HTTP/1.1). A target that names its host
//!   (absolute form, or HTTP/2's `:authority`) still counts as a `Host`.
//! - Do not put `warp::compression` around this filter: the service already sends
//!   the stored gzip/brotli bodies with their own ETags, `Vary` and ranges.
//! - warp's one public streaming body (`warp::reply::stream`) has no size hint, so
//!   hyper frames a body by the `Content-Length` field, which the service sets on
//!   every response with a body. Empty bodies go out as warp's empty body, whose size
//!   hyper knows: a HEAD keeps the `Content-Length` a GET would get, and an empty GET
//!   answer (405, 301) gets `content-length: 0`, as with the service on hyper alone.
//!   warp adds no field of its own; hyper adds `Date`.
//! - An unhandled rejection is answered by warp: an empty 404 for paths nothing
//!   matched; handle it with `recover` to send your own page.

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::header::HOST;
use http::uri::Authority;
use http::{HeaderMap, Method, Version};
use http_body::Body as _;
use warp::path::{FullPath, Tail};
use warp::{Filter, Rejection, Reply};

use super::{convert, mount};
use crate::future::ResponseFuture;
use crate::service::Claim;
use crate::{Body, Error, RequestHead, ServeAssets};

/// A filter answering every request `service` has something for, with the response
/// [`ServeAssets::respond_head`] builds; it rejects with
/// [`warp::reject::not_found`] where the service has nothing (see the
/// [module docs](self)).
///
/// The path it serves is what the filters before it left unmatched: at the root on its
/// own, under `/static` after `warp::path("static")`. A request for the mount point
/// without its slash (`/static`) is redirected to `./static/`.
pub fn assets(
    service: ServeAssets,
) -> impl Filter<Extract = (warp::reply::Response,), Error = Rejection> + Clone {
    warp::method()
        .and(warp::path::full())
        .and(warp::path::tail())
        .and(raw_query())
        .and(warp::header::headers_cloned())
        .and(target_authority())
        .and_then(
            move |method: Method,
                  full: FullPath,
                  tail: Tail,
                  query: Option<String>,
                  headers: HeaderMap,
                  authority: Option<Authority>| {
                let request = Parts {
                    method,
                    query,
                    headers,
                    authority,
                };
                let response = respond(&service, request, full.as_str(), tail.as_str());
                async move {
                    match response {
                        Some(response) => Ok(reply(response.await)),
                        None => Err(warp::reject::not_found()),
                    }
                }
            },
        )
}

/// The query as sent, if the target has one (`?` alone is `Some("")`).
fn raw_query() -> impl Filter<Extract = (Option<String>,), Error = Infallible> + Clone {
    warp::query::raw()
        .map(Some)
        .or(warp::any().map(|| None))
        .unify()
}

/// The authority of the request target when it names one (absolute form, HTTP/2's
/// `:authority`). Only used when there is no `Host` field, where warp's `host` filter
/// returns exactly that; when `Host` is there and does not parse, nothing.
fn target_authority() -> impl Filter<Extract = (Option<Authority>,), Error = Infallible> + Clone {
    warp::host::optional().or(warp::any().map(|| None)).unify()
}

/// The request, as the filters above extracted it.
struct Parts {
    method: Method,
    query: Option<String>,
    headers: HeaderMap,
    authority: Option<Authority>,
}

/// The service's response, or `None` for a path that matched no mount point or one the
/// service has nothing for (its plain 404: see [`assets`]).
fn respond(service: &ServeAssets, parts: Parts, full: &str, tail: &str) -> Option<ResponseFuture> {
    let below = mount::warp(full, tail)?;
    // NOTE: warp hides the version (see the module docs): HTTP/1.1 is assumed.
    let version = Version::HTTP_11;
    let Parts {
        method,
        query,
        headers,
        authority,
    } = parts;
    let query = query.as_deref();
    // warp's `host` filter gives the target's authority when there is no `Host`
    // field: an absolute target, or HTTP/2's `:authority`.
    let names_host = authority.is_some() && !headers.contains_key(HOST);
    let head =
        RequestHead::new(&method, full, query, version, &headers).with_target_authority(names_host);
    service.answer(below.place(head), Claim::AllButPlainNotFound)
}

/// The reply: status and header fields as the service set them, the body streamed.
fn reply(response: http::Response<Body>) -> warp::reply::Response {
    response.map(|body| {
        if body.is_end_stream() {
            // Exactly empty, as the service's own body says, so hyper keeps the
            // `Content-Length` of a HEAD or 304 as it is.
            Default::default()
        } else {
            warp::reply::stream(Frames(body))
                .into_response()
                .into_body()
        }
    })
}

/// The data frames of a [`Body`], as the stream `warp::reply::stream` sends: polled
/// only when the connection can take more, so an on-disk file is read a chunk at a
/// time; its error (a file changed mid-way) is the stream's, and the server then closes
/// the connection.
struct Frames(Body);

impl warp::Stream for Frames {
    type Item = Result<Bytes, Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        convert::poll_data(&mut self.0, cx)
    }
}
