//! hyper 1 alone: one `service_fn` that answers `/api/health` and hands every other
//! request to `ServeAssets`, stripping the mount point itself when there is one.

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;

use bytes::Bytes;
use embed_assets::{Body, RequestHead, ServeAssets};
use http::{Request, Response, StatusCode};
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use tokio::net::TcpListener;

pub(super) async fn spawn(service: ServeAssets, mount: Option<&'static str>) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1:0");
    let addr = listener.local_addr().expect("local address");
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let service = service.clone();
            tokio::spawn(async move {
                let handler = hyper::service::service_fn(move |request: Request<_>| {
                    let response = answer(&service, mount, &request);
                    async move { Ok::<_, Infallible>(response.await) }
                });
                // HTTP/1.1 and HTTP/2 with prior knowledge on one port. A client hanging
                // up mid-request is not a test failure by itself.
                let _ = auto::Builder::new(TokioExecutor::new())
                    .serve_connection(TokioIo::new(stream), handler)
                    .await;
            });
        }
    });
    addr
}

/// The response, as a future that borrows nothing from the request.
fn answer<B>(
    service: &ServeAssets,
    mount: Option<&'static str>,
    request: &Request<B>,
) -> Pin<Box<dyn Future<Output = Response<Body>> + Send>> {
    let path = request.uri().path();
    if path == "/api/health" {
        return ready(Response::new(Body::from(Bytes::from_static(b"ok"))));
    }
    let Some(mount) = mount else {
        return Box::pin(service.respond(request));
    };
    let head = RequestHead::from_request(request);
    match path.strip_prefix(mount) {
        Some("") => Box::pin(service.respond_head(head.with_path("/").at_bare_mount(mount))),
        Some(rest) if rest.starts_with('/') => Box::pin(service.respond_head(head.with_path(rest))),
        _ => {
            let mut response = Response::new(Body::empty());
            *response.status_mut() = StatusCode::NOT_FOUND;
            ready(response)
        }
    }
}

fn ready(response: Response<Body>) -> Pin<Box<dyn Future<Output = Response<Body>> + Send>> {
    Box::pin(std::future::ready(response))
}
