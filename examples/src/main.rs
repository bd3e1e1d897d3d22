//! The example site: every file of `public/` served from memory, beside a JSON API.
//!
//! `cargo run -p example-site`, then open the URL it prints. `PORT` picks the port
//! (default 3000).

use axum::routing::get;
use axum::{Json, Router};
use embed_assets::{Assets, embed_assets};
use serde_json::{Value, json};

static ASSETS: Assets = embed_assets!("public");

/// A strict policy: files of this site, and on each page only its own inline scripts
/// and styles, by the hashes the macro computed.
const POLICY: &str = "default-src 'self'; script-src 'self' {scripts}; style-src 'self' {styles}; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

async fn health() -> Json<Value> {
    Json(json!({ "status": "ok", "assets": ASSETS.len() }))
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let app = Router::new()
        .route("/api/health", get(health))
        .fallback_service(
            ASSETS
                .service()
                .content_security_policy(POLICY)
                .preload_links(),
        );
    let port = std::env::var("PORT").unwrap_or_else(|_| "3000".to_owned());
    let listener = tokio::net::TcpListener::bind(format!("127.0.0.1:{port}")).await?;
    println!(
        "serving {} assets on http://{}/",
        ASSETS.len(),
        listener.local_addr()?
    );
    axum::serve(listener, app).await
}
