//! Poem 3: the service at the root as the catch-all route `/*`, or given to
//! `Route::nest` at the mount point, beside `GET /api/health`, on a thread with its own
//! tokio runtime.

use std::net::SocketAddr;

use embed_assets::ServeAssets;
use poem::listener::TcpAcceptor;
use poem::{Route, Server, get, handler};

#[handler]
fn health() -> &'static str {
    "ok"
}

pub(super) fn spawn(service: ServeAssets, mount: Option<&'static str>) -> SocketAddr {
    let (listener, addr) = super::bind_loopback();
    let api = Route::new().at("/api/health", get(health));
    let app = match mount {
        Some(mount) => api.nest(mount, service),
        // Not `nest("/", ..)`: it answers 400 to a path that is not UTF-8 once decoded.
        None => api.at("/*", service),
    };
    std::thread::Builder::new()
        .name("poem-server".to_owned())
        .spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("tokio runtime");
            runtime.block_on(async move {
                let acceptor = TcpAcceptor::from_std(listener).expect("poem acceptor");
                Server::new_with_acceptor(acceptor)
                    .run(app)
                    .await
                    .expect("poem server");
            });
        })
        .expect("server thread");
    addr
}
