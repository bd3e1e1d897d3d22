//! The same site with Poem 3: the assets as the catch-all route beside a JSON API.
//!
//! `cargo run -p example-site --bin poem --features poem`; `PORT` picks the port
//! (default 3000).

use embed_assets::{Assets, embed_assets};
use poem::listener::TcpAcceptor;
use poem::web::Json;
use poem::{Route, Server, get, handler};
use serde_json::{Value, json};

static ASSETS: Assets = embed_assets!("public");

#[handler]
fn health() -> Json<Value> {
    Json(json!({ "status": "ok", "assets": ASSETS.len() }))
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let app = Route::new()
        .at("/api/health", get(health))
        // Every other path: an asset, a directory redirect, or the core's 404.
        .at("/*", ASSETS.service());
    let port = std::env::var("PORT").unwrap_or_else(|_| "3000".to_owned());
    // Bound before the server starts, so the address printed is the one listening.
    let listener = std::net::TcpListener::bind(format!("127.0.0.1:{port}"))?;
    listener.set_nonblocking(true)?;
    println!(
        "serving {} assets on http://{}/",
        ASSETS.len(),
        listener.local_addr()?
    );
    Server::new_with_acceptor(TcpAcceptor::from_std(listener)?)
        .run(app)
        .await
}
