//! A Leptos app rendered on the server and hydrated in the browser. cargo-leptos builds
//! this library twice: for the server (feature `ssr`, linked into `src/main.rs`) and
//! for the browser (feature `hydrate`, compiled to wasm32 and bound by wasm-bindgen
//! into `target/site/pkg`).

pub mod app;

/// Called by the script of `HydrationScripts` once the wasm is loaded: attaches the
/// app to the HTML the server rendered. `hydrate_lazy` hydrates asynchronously, so a
/// page whose route is loaded lazily (`/lazy`) can wait for its wasm chunk first.
#[cfg(feature = "hydrate")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    leptos::mount::hydrate_lazy(app::App);
}
