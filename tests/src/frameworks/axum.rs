//! axum 0.8: the service as `fallback_service`, or under `nest_service(mount, ..)`.

use std::net::SocketAddr;

use axum::Router;
use axum::routing;
use embed_assets::ServeAssets;

pub(super) async fn spawn(service: ServeAssets, mount: Option<&'static str>) -> SocketAddr {
    let api = Router::new().route("/api/health", routing::get(|| async { "ok" }));
    let router = match mount {
        Some(mount) => api.nest_service(mount, service),
        None => api.fallback_service(service),
    };
    crate::spawn_router(router).await
}
