//! Salvo 1: `api/health` beside a `{**rest}` goal, at the root or inside
//! `Router::with_path(mount)`, on a thread with its own tokio runtime.

use std::net::SocketAddr;

use embed_assets::ServeAssets;
use salvo_core::conn::tcp::TcpAcceptor;
use salvo_core::prelude::*;

#[handler]
async fn health() -> &'static str {
    "ok"
}

pub(super) fn spawn(service: ServeAssets, mount: Option<&'static str>) -> SocketAddr {
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("tokio runtime");
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .expect("bind 127.0.0.1:0");
            let addr = listener.local_addr().expect("local address");
            let acceptor = TcpAcceptor::try_from(listener).expect("salvo acceptor");
            let assets = Router::with_path("{**rest}").goal(service);
            let router = Router::new().push(Router::with_path("api/health").get(health));
            let router = match mount {
                Some(mount) => {
                    router.push(Router::with_path(mount.trim_start_matches('/')).push(assets))
                }
                None => router.push(assets),
            };
            sender.send(addr).expect("send the address");
            Server::new(acceptor).serve(router).await;
        });
    });
    receiver.recv().expect("the salvo server started")
}
