//! Swagger UI for a JSON API, in one binary: npm's `swagger-ui-dist`, copied to
//! `frontend/dist` by `build.rs` with an initializer that loads `/openapi.json`, is
//! embedded without its source maps and served compressed from memory; the API and its
//! OpenAPI document are axum routes beside it.

use axum::http::header::CONTENT_TYPE;
use axum::response::IntoResponse;
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{Value, json};

/// Swagger UI's files: `ui::ASSETS` is the table. The source maps (half the package's
/// bytes) are left out; the UI's `index.html` is served at `/`.
#[embed_assets::embed("frontend/dist", exclude = "**/*.map")]
pub mod ui {}

/// The API's OpenAPI 3 document, written by hand.
pub const OPENAPI: &str = include_str!("openapi.json");

/// `GET /openapi.json`.
async fn openapi() -> impl IntoResponse {
    ([(CONTENT_TYPE, "application/json")], OPENAPI)
}

/// `GET /api/pets`, the operation the document describes.
async fn pets() -> Json<Value> {
    Json(json!([{ "id": 1, "name": "Ferris" }, { "id": 2, "name": "Corro" }]))
}

/// The app: the API, its document, and Swagger UI for every other path.
pub fn app() -> Router {
    Router::new()
        .route("/openapi.json", get(openapi))
        .route("/api/pets", get(pets))
        .fallback_service(ui::ASSETS.service())
}
