//! The server build (feature `ssr`) embeds `target/site`, which cargo-leptos writes
//! before it: compile again when a file there is added, removed or changed.
//!
//! A release server serves only what it embedded, so its build fails when the site has
//! no wasm yet: cargo-leptos builds the client and the server side by side unless it
//! precompresses (`cargo leptos build --release --precompress --split`), and the server
//! would then embed a site still being written. It fails too when the site has no
//! manifest of split wasm chunks: without `--split`, the JavaScript glue imports a
//! placeholder module (`__wasm_split_placeholder__`) that the browser cannot resolve,
//! and the page never hydrates.

use std::path::Path;

const WASM: &str = "target/site/pkg/example-leptos.wasm";
const MANIFEST: &str = "target/site/pkg/__wasm_split_manifest.json";

fn main() {
    if std::env::var_os("CARGO_FEATURE_SSR").is_none() {
        return;
    }
    embed_assets_build::track("target/site");
    if std::env::var("PROFILE").as_deref() != Ok("release") {
        return;
    }
    for file in [WASM, MANIFEST] {
        if !Path::new(file).is_file() {
            eprintln!(
                "{file} is missing: build with `cargo leptos build --release --precompress \
                 --split`, which builds the client, its wasm split into chunks, before the \
                 server that embeds it"
            );
            std::process::exit(1);
        }
    }
}
