//! warp 0.4: `GET /api/health`, then `assets(service)` at the root or after
//! `warp::path(mount)`; what nothing answers gets an empty 404 from `recover`. Served
//! by `warp::serve` on a thread with its own tokio runtime.

use std::net::SocketAddr;

use embed_assets::ServeAssets;
use embed_assets::adapters::warp::assets;
use warp::http::header::CONTENT_LENGTH;
use warp::http::{HeaderValue, StatusCode};
use warp::{Filter, Rejection, Reply};

pub(super) fn spawn(service: ServeAssets, mount: Option<&'static str>) -> SocketAddr {
    let (listener, addr) = super::bind_loopback();
    let health = warp::path!("api" / "health").and(warp::get()).map(|| "ok");
    let routes = match mount {
        Some(mount) => {
            let segment = mount.trim_matches('/');
            assert!(
                !segment.is_empty() && !segment.contains('/'),
                "the warp harness mounts at one segment, got {mount:?}"
            );
            health
                .or(warp::path(segment).and(assets(service)))
                .recover(not_found)
                .boxed()
        }
        None => health.or(assets(service)).recover(not_found).boxed(),
    };
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("tokio runtime");
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).expect("tokio listener");
            warp::serve(routes).incoming(listener).run().await;
        });
    });
    addr
}

/// What no route took: an empty 404 that states its length, for GET and HEAD alike.
/// (warp's own answer has no `Content-Length`, so hyper adds `0` for GET only.)
async fn not_found(rejection: Rejection) -> Result<warp::reply::Response, Rejection> {
    if !rejection.is_not_found() {
        return Err(rejection);
    }
    let mut response = StatusCode::NOT_FOUND.into_response();
    response
        .headers_mut()
        .insert(CONTENT_LENGTH, HeaderValue::from_static("0"));
    Ok(response)
}
