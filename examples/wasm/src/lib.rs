//! A WebAssembly frontend in one binary: esbuild's 14 MB `esbuild.wasm` from npm, its
//! browser API, and a page that has it compile the module while it streams
//! (`WebAssembly.instantiateStreaming`) and run esbuild on a line of TypeScript. The module compresses to a 3.8 MB gzip body,
//! under `max_embed_size`, so it is embedded compressed only and served br from memory.

use axum::Router;

/// `frontend/dist`, written by `build.rs`.
#[embed_assets::embed("frontend/dist")]
pub mod site {}

/// The page at `/` and every file beside it.
pub fn app() -> Router {
    Router::new().fallback_service(site::ASSETS.service())
}
