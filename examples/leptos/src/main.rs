//! The server: renders the app, answers its server functions, and serves the site
//! cargo-leptos built (`target/site`: the wasm, its JavaScript, the style sheet and
//! `public/`) from the binary, compressed, with strong ETags.
//!
//! Build and run with `cargo leptos build --release --precompress --split` (see
//! README.md); the binary, `target/release/example-leptos`, needs no other file.
//! `LEPTOS_SITE_ADDR` (default 127.0.0.1:3000) or `PORT` picks the address.

/// The site cargo-leptos wrote, embedded at compile time, the wasm chunks of `--split`
/// (`pkg/split_*.wasm`, `pkg/chunk_*.wasm`), their loader and their manifest included.
/// Left out: cargo-leptos's own `.br` and `.gz` copies (`--precompress`; the macro
/// compresses each file itself) and wasm-bindgen's TypeScript declarations.
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
    // A debug build leaves it to Leptos to read the manifest from `target/site`, as
    // the rest of the site is served from there.
    if !cfg!(debug_assertions) {
        load_split_manifest(&options)?;
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

/// Hands the embedded manifest of the split wasm to Leptos, once, at start-up.
///
/// `HydrationScripts` reads `<site_root>/<site_pkg_dir>/__wasm_split_manifest.json`
/// with `std::fs` the first time it renders, keeps what it read for the life of the
/// process, and from it adds to a page that shows a lazily loaded route a preload
/// link for each wasm chunk the route needs. No other file of the site is read from
/// disk: the binary serves `/pkg/*` from memory. So the embedded manifest is written
/// to a folder of its own in the temp folder, `HydrationScripts` is rendered once
/// with `site_root` pointing at that folder, and the folder is removed: nothing stays
/// on disk, the binary needs no `target/site` beside it, and no request reads a file.
///
/// Without an embedded manifest (a build without `--split`, which the build script
/// stops in release) the folder stays empty: pages get no chunk preloads.
#[cfg(feature = "ssr")]
fn load_split_manifest(options: &leptos::prelude::LeptosOptions) -> std::io::Result<()> {
    use leptos::prelude::*;

    const MANIFEST: &str = "__wasm_split_manifest.json";
    let pkg = options.site_pkg_dir.trim_matches('/');
    let manifest = site::ASSETS
        .get(&format!("/{pkg}/{MANIFEST}"))
        .and_then(|asset| asset.body(embed_assets::Encoding::Identity));
    let root = std::env::temp_dir().join(format!("example-leptos-{}", std::process::id()));
    let site_root = root
        .to_str()
        .ok_or_else(|| std::io::Error::other(format!("{} is not UTF-8", root.display())))?;
    // A folder left by an earlier process with this id, if any, goes first.
    match std::fs::remove_dir_all(&root) {
        Err(err) if err.kind() != std::io::ErrorKind::NotFound => return Err(err),
        _ => {}
    }
    std::fs::create_dir_all(root.join(pkg))?;
    let read = manifest
        .map_or(Ok(()), |bytes| {
            std::fs::write(root.join(pkg).join(MANIFEST), bytes)
        })
        .map(|()| {
            let mut options = options.clone();
            options.site_root = site_root.into();
            // The component runs as the view is built, in an owner of its own here;
            // only what it keeps is wanted.
            Owner::new().with(|| drop(view! { <HydrationScripts options/> }));
        });
    let removed = std::fs::remove_dir_all(&root);
    read.and(removed)
}

/// Without `ssr` (the browser's build compiles only the library) there is no server.
#[cfg(not(feature = "ssr"))]
fn main() {
    eprintln!("build the server with `cargo leptos build` (feature `ssr`)");
}
