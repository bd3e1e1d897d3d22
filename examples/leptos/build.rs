//! The server build (feature `ssr`) embeds `target/site`, which cargo-leptos writes
//! before it: compile again when a file there is added, removed or changed.
//!
//! A release server serves only what it embedded, so its build fails when the site has
//! no wasm yet: cargo-leptos builds the client and the server side by side unless it
//! precompresses (`cargo leptos build --release --precompress`), and the server would
//! then embed a site still being written.

use std::path::Path;

const WASM: &str = "target/site/pkg/example-leptos.wasm";

fn main() {
    if std::env::var_os("CARGO_FEATURE_SSR").is_none() {
        return;
    }
    embed_assets_build::track("target/site");
    if std::env::var("PROFILE").as_deref() == Ok("release") && !Path::new(WASM).is_file() {
        eprintln!(
            "{WASM} is missing: build with `cargo leptos build --release --precompress`, \
             which builds the client before the server that embeds it"
        );
        std::process::exit(1);
    }
}
