//! The server: renders the app, answers its server functions, and serves the site
//! cargo-leptos built (`target/site`: the wasm, its JavaScript, the style sheet and
//! `public/`) from the binary, compressed, with strong ETags.
//!
//! Build and run with `cargo leptos build --release --precompress` (see README.md); the binary,
//! `target/release/example-leptos`, needs no other file. `LEPTOS_SITE_ADDR`
//! (default 127.0.0.1:3000) or `PORT` picks the address.

/// The site cargo-leptos wrote, embedded at compile time. Left out: cargo-leptos's
/// own `.br` and `.gz` copies (`--precompress`; the macro compresses each file itself)
/// and wasm-bindgen's TypeScript declarations.
#[cfg(feature = "ssr")]
#[embed_assets::embed(
    "target/site",
    exclude = ["**/*.br", "**/*.gz", "**/*.d.ts"],
    allow_empty = true
)]
mod site {}

#[cfg(feature = "ssr")]
#[tokio::main]
async fn main() -> std::io::Result<()> {
    use axum::Router;
    use example_leptos::app::{App, shell};
    use leptos::prelude::*;
    use leptos_axum::{LeptosRoutes, generate_route_list};

    let mut options = get_configuration(None)
        .map_err(std::io::Error::other)?
        .leptos_options;
    if let Some(port) = std::env::var("PORT").ok().and_then(|p| p.parse().ok()) {
        options.site_addr.set_port(port);
    }
    let routes = generate_route_list(App);
    let render = {
        let options = options.clone();
        move || shell(options.clone())
    };
    let app = Router::new()
        .leptos_routes(&options, routes, render.clone())
        .fallback(leptos_axum::render_app_to_stream(render))
        .with_state(options.clone());

    let mut assets = site::ASSETS.service();
    // A debug build (`cargo leptos watch`) serves the site from disk instead, as it is
    // now: cargo-leptos builds the client and the server side by side there.
    if cfg!(debug_assertions) {
        assets = assets.dev_folder(concat!(env!("CARGO_MANIFEST_DIR"), "/target/site"));
    }
    // An embedded file answers first; every other request goes to the app.
    let service = assets.with_fallback(app);

    let listener = tokio::net::TcpListener::bind(options.site_addr).await?;
    println!("listening on http://{}", listener.local_addr()?);
    axum::serve(listener, service.into_make_service()).await
}

/// Without `ssr` (the browser's build compiles only the library) there is no server.
#[cfg(not(feature = "ssr"))]
fn main() {
    eprintln!("build the server with `cargo leptos build` (feature `ssr`)");
}
