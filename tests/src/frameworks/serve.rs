//! `embed_assets::serve`: the library's own server, two workers on `127.0.0.1:0`, with
//! the service in front of an axum `Router` that answers `/api/health` and has the
//! service as its fallback too (so the assets' own 404, 405 and single-page answers,
//! which the front leaves to the application, are still theirs). With
//! `EMBED_TEST_TLS=1` it terminates TLS with the harness's test certificate.
//!
//! `Server` has no mount point: under `mount`, the service is nested in the `Router`
//! as in axum's harness, behind a front with an empty table, which claims nothing.

use std::net::SocketAddr;

use axum::Router;
use axum::routing;
use embed_assets::{Assets, ServeAssets, Server, embed_assets};

/// A table with nothing in it: the front of a mounted service, answering no request.
static NOTHING: Assets = embed_assets!("fixtures/site", exclude = "*", allow_empty = true);

pub(super) fn spawn(service: ServeAssets, mount: Option<&'static str>) -> SocketAddr {
    let api = Router::new().route("/api/health", routing::get(|| async { "ok" }));
    let (front, app) = match mount {
        Some(mount) => (NOTHING.service(), api.nest_service(mount, service)),
        None => (service.clone(), api.fallback_service(service)),
    };
    let mut server = Server::bind("127.0.0.1:0")
        .expect("bind 127.0.0.1:0")
        .workers(2)
        .shutdown_on_signals(false);
    if super::uses_tls() {
        server = server.tls(crate::tls::harness_tls());
    }
    let addr = server.local_addr();
    // The server lives until the test process ends; its first listener listens
    // already, so connections made before its workers start wait in the backlog.
    std::thread::Builder::new()
        .name("serve-harness".into())
        .spawn(move || server.serve(front, app).expect("embed_assets::serve"))
        .expect("start the server's thread");
    addr
}
