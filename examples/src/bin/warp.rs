//! The same site with warp 0.4: a JSON route, then the `assets` filter for every other
//! path; what neither answers gets warp's empty 404.
//!
//! `cargo run -p example-site --bin warp --features warp`; `PORT` picks the port
//! (default 3000).

use embed_assets::adapters::warp::assets;
use embed_assets::{Assets, embed_assets};
use serde_json::json;
use warp::Filter;

static ASSETS: Assets = embed_assets!("public");

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let health = warp::path!("api" / "health")
        .and(warp::get())
        .map(|| warp::reply::json(&json!({ "status": "ok", "assets": ASSETS.len() })));
    let routes = health.or(assets(ASSETS.service()));
    let port = std::env::var("PORT").unwrap_or_else(|_| "3000".to_owned());
    let listener = tokio::net::TcpListener::bind(format!("127.0.0.1:{port}")).await?;
    println!(
        "serving {} assets on http://{}/",
        ASSETS.len(),
        listener.local_addr()?
    );
    warp::serve(routes).incoming(listener).run().await;
    Ok(())
}
