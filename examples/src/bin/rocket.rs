//! The same site with Rocket 0.5: `AssetServer` mounted at `/` like Rocket's own
//! `FileServer`, beside a JSON API route that wins over it (rank 10 against the
//! route's own).
//!
//! `cargo run -p example-site --bin rocket --features rocket`; `PORT` picks the port
//! (default 3000). Rocket's other settings come from its usual places (`Rocket.toml`,
//! `ROCKET_*` variables), so `ROCKET_LOG_LEVEL=off` quiets it.

use embed_assets::adapters::rocket::AssetServer;
use embed_assets::{Assets, embed_assets};
use rocket::serde::json::{Json, Value, json};
use rocket::{Config, get, routes};

static ASSETS: Assets = embed_assets!("public");

#[get("/api/health")]
fn health() -> Json<Value> {
    Json(json!({ "status": "ok", "assets": ASSETS.len() }))
}

#[rocket::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let port = match std::env::var("PORT") {
        Ok(port) => port
            .parse::<u16>()
            .map_err(|err| format!("PORT={port:?}: {err}"))?,
        Err(_) => 3000,
    };
    let figment = Config::figment()
        .merge(("address", "127.0.0.1"))
        .merge(("port", port));
    rocket::custom(figment)
        .mount("/", routes![health])
        .mount("/", AssetServer::from(ASSETS.service()))
        .launch()
        .await?;
    Ok(())
}
