//! The cleartext listener beside a TLS server (`Server::redirect_http`): every request
//! answered `308 Permanent Redirect` to the same URL over `https`, by hyper's HTTP/1.1
//! server (no assets, no application: nothing of the site is served in cleartext), but
//! for the answers to an ACME server's HTTP-01 requests while a certificate is ordered.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;

use bytes::Bytes;
use http::header::{CONTENT_TYPE, HOST, LOCATION};
use http::uri::Authority;
use http::{HeaderValue, Request, Response, StatusCode};
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpStream;

use super::Limits;
use super::shutdown::until;
use super::tls::Acceptor;
use crate::body::Body;

/// Answers `stream`'s requests with redirects to `https` on `https_port`, until the
/// client closes it, its header-read timeout passes, or a shutdown starts.
pub(super) async fn serve(
    stream: TcpStream,
    https_port: u16,
    acceptor: Option<Acceptor>,
    limits: &Limits,
    stop: Pin<&mut impl Future<Output = ()>>,
) {
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read);
    let service = hyper::service::service_fn(move |request: Request<Incoming>| {
        let answer = acceptor
            .as_ref()
            .and_then(|acceptor| acceptor.http_01(request.uri().path()));
        async move {
            Ok::<_, Infallible>(match answer {
                // RFC 8555 §8.3: the key authorization, as the body of a 200.
                Some(key_authorization) => {
                    let mut response = Response::new(Body::from(Bytes::from(key_authorization)));
                    response.headers_mut().insert(
                        CONTENT_TYPE,
                        HeaderValue::from_static("application/octet-stream"),
                    );
                    response
                }
                None => redirect(&request, https_port),
            })
        }
    });
    let connection = builder.serve_connection(TokioIo::new(stream), service);
    // A redirect is a few bytes: at a shutdown the connection simply closes.
    let _ = until(stop, connection).await;
}

/// The redirect of `request` to `https`: its host (from `Host`, or the target's own
/// authority) without its port, then `https_port` unless it is 443, then the path and
/// query as they came. 400 without a host that is a valid authority.
fn redirect(request: &Request<Incoming>, https_port: u16) -> Response<Body> {
    let authority = match request.uri().authority() {
        Some(authority) => Some(authority.clone()),
        None => request
            .headers()
            .get(HOST)
            .and_then(|host| Authority::try_from(host.as_bytes()).ok()),
    };
    let Some(authority) = authority.filter(|authority| !authority.host().is_empty()) else {
        return plain(
            StatusCode::BAD_REQUEST,
            "no valid Host field to redirect to\n",
        );
    };
    let host = authority.host();
    let target = request
        .uri()
        .path_and_query()
        .map_or("/", |target| target.as_str());
    let location = if https_port == 443 {
        format!("https://{host}{target}")
    } else {
        format!("https://{host}:{https_port}{target}")
    };
    let Ok(location) = HeaderValue::try_from(location) else {
        return plain(
            StatusCode::BAD_REQUEST,
            "no valid Host field to redirect to\n",
        );
    };
    let mut response = plain(StatusCode::PERMANENT_REDIRECT, "");
    response.headers_mut().insert(LOCATION, location);
    response
}

fn plain(status: StatusCode, text: &'static str) -> Response<Body> {
    let mut response = Response::new(Body::from(Bytes::from_static(text.as_bytes())));
    *response.status_mut() = status;
    if !text.is_empty() {
        response.headers_mut().insert(
            CONTENT_TYPE,
            HeaderValue::from_static("text/plain; charset=utf-8"),
        );
    }
    response
}
