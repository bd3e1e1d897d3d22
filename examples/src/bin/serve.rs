//! The example site on the library's own server: `embed_assets::serve` answers the
//! assets' hits on a worker per core and hands every other request to the axum
//! `Router`, which serves the JSON API.
//!
//! `cargo run -p example-site --bin serve`; `PORT` picks the port (default 3000).
//! SIGTERM or Ctrl-C stops it once the responses in flight are sent.

use axum::routing::get;
use axum::{Json, Router};
use embed_assets::{Assets, Server, embed_assets};
use serde_json::{Value, json};

static ASSETS: Assets = embed_assets!("public");

async fn health() -> Json<Value> {
    Json(json!({ "status": "ok", "assets": ASSETS.len() }))
}

fn main() -> std::io::Result<()> {
    let app = Router::new().route("/api/health", get(health));
    let port = std::env::var("PORT").unwrap_or_else(|_| "3000".to_owned());
    let server = Server::bind(format!("127.0.0.1:{port}"))?;
    println!(
        "serving {} assets on http://{}/",
        ASSETS.len(),
        server.local_addr()
    );
    server.serve(ASSETS.service().preload_links(), app)
}
