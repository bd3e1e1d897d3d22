//! A Vite app (`frontend/`, TypeScript), built by `build.rs` during `cargo build` and
//! embedded in the binary, served next to the JSON API it calls.
//!
//! Vite content-hashes everything under `assets/` and says so in
//! `dist/.vite/manifest.json`: the macro reads it, so those files are served with the
//! immutable policy at their own URLs, the manifest itself is not served, and its entry
//! points are constants in [`frontend::paths::entries`].

use axum::routing::get;
use axum::{Json, Router};
use serde_json::{Value, json};

/// Vite's output, `frontend/dist`, built by `build.rs`: `frontend::ASSETS` is the
/// table, `frontend::paths` its URLs, `frontend::paths::entries` the entry points.
#[embed_assets::embed("frontend/dist")]
pub mod frontend {}

/// The API the app calls once its script runs.
async fn hello() -> Json<Value> {
    Json(json!({ "message": "Hello from Rust", "served_by": "axum" }))
}

/// The app: `GET /api/hello`, and the frontend for every other path. With
/// `FRONTEND_DEV` set, the frontend is served from `frontend/dist` as it is on disk
/// (dev mode), for `vite build --watch`.
pub fn app() -> Router {
    let frontend = frontend::ASSETS.service();
    let frontend = match std::env::var_os("FRONTEND_DEV") {
        Some(_) => frontend.dev_folder(concat!(env!("CARGO_MANIFEST_DIR"), "/frontend/dist")),
        None => frontend,
    };
    Router::new()
        .route("/api/hello", get(hello))
        .fallback_service(frontend)
}
