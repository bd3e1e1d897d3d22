//! The same site with actix-web 4: `ServeAssets` as the app's default service, next
//! to a JSON API route.
//!
//! `cargo run -p example-site --bin actix-web --features actix-web`; `PORT` picks the
//! port (default 3000).

use actix_web::{App, HttpServer, Responder, web};
use embed_assets::{Assets, embed_assets};
use serde_json::json;

static ASSETS: Assets = embed_assets!("public");

async fn health() -> impl Responder {
    web::Json(json!({ "status": "ok", "assets": ASSETS.len() }))
}

#[actix_web::main]
async fn main() -> std::io::Result<()> {
    let port: u16 = match std::env::var("PORT") {
        Ok(port) => port
            .parse()
            .map_err(|_| std::io::Error::other(format!("PORT={port:?} is not a port")))?,
        Err(_) => 3000,
    };
    let server = HttpServer::new(|| {
        App::new()
            .route("/api/health", web::get().to(health))
            .default_service(ASSETS.service())
    })
    .bind(("127.0.0.1", port))?;
    for addr in server.addrs() {
        println!("serving {} assets on http://{addr}/", ASSETS.len());
    }
    server.run().await
}
