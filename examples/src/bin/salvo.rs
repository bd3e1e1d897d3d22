//! The same site with Salvo 1: `ServeAssets` is a Salvo `Handler`, the goal of a
//! `{**rest}` route beside a JSON API route.
//!
//! `cargo run -p example-site --bin salvo --features salvo`; `PORT` picks the port
//! (default 3000).

use embed_assets::{Assets, embed_assets};
use salvo_core::conn::tcp::TcpAcceptor;
use salvo_core::prelude::*;
use serde_json::json;

static ASSETS: Assets = embed_assets!("public");

#[handler]
async fn health(res: &mut Response) {
    res.render(Json(json!({ "status": "ok", "assets": ASSETS.len() })));
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let router = Router::new()
        .push(Router::with_path("api/health").get(health))
        // Every method goes to the service, which answers 405 with `Allow` itself.
        .push(Router::with_path("{**rest}").goal(ASSETS.service()));
    let port = std::env::var("PORT").unwrap_or_else(|_| "3000".to_owned());
    let listener = tokio::net::TcpListener::bind(format!("127.0.0.1:{port}")).await?;
    println!(
        "serving {} assets on http://{}/",
        ASSETS.len(),
        listener.local_addr()?
    );
    Server::new(TcpAcceptor::try_from(listener)?)
        .try_serve(router)
        .await
}
