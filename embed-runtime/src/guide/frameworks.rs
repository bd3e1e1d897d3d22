//! Every framework: the set-up of axum, hyper and tower, actix-web, Rocket, Poem, Salvo
//! and warp, the fastest set-up in detail, the library's own server (`serve`), and
//! serving without axum.
//!
//! The HTTP behaviour lives in one framework-neutral core. Each framework reaches it
//! through a thin adapter, behind a cargo feature of `embed-assets`. Adapters only
//! convert, so every framework answers exactly like axum; the test suite compares their
//! heads and bodies side by side. Each example of the table (run in a clone of the
//! repository) serves `examples/public` next to a JSON route, on 127.0.0.1 and `$PORT`
//! (default 3000; 3001 for the hyper one).
//!
//! | framework | feature | minimum Rust | at the root | under `/static` | example |
//! |---|---|---|---|---|---|
//! | axum 0.8 | `axum` (default) | 1.85 | `.fallback_service(ASSETS.service())` | `.nest_service("/static", ASSETS.service())` | `cargo run -p example-site` |
//! | its own server (hyper 1) | `serve` (default) | 1.85 | `embed_assets::serve(addr, ASSETS.service(), app)` | `app.nest_service("/static", ASSETS.service())` as `app` | `cargo run -p example-site --bin serve` |
//! | hyper 1, any tower stack | `tower` (in `axum`), or none | 1.85 | `service.respond(&request)` | `RequestHead::with_path` + `at_bare_mount` | `cargo run -p example-site --bin hyper` |
//! | actix-web 4 | `actix-web` | 1.89 | `.default_service(ASSETS.service())` | `.service(Mount::new("/static", ASSETS.service()))` | `cargo run -p example-site --bin actix-web --features actix-web` |
//! | Rocket 0.5 | `rocket` | 1.89 | `.mount("/", ASSETS.service())` (rank 10: your routes win) | `.mount("/static", ASSETS.service())` | `cargo run -p example-site --bin rocket --features rocket` |
//! | Poem 3 | `poem` | 1.85 | `.at("/*", ASSETS.service())` | `.nest("/static", ASSETS.service())` | `cargo run -p example-site --bin poem --features poem` |
//! | Salvo 1 | `salvo` | 1.95 | `Router::with_path("{**rest}").goal(ASSETS.service())` | `Router::with_path("static/{**rest}").goal(ASSETS.service())` | `cargo run -p example-site --bin salvo --features salvo` |
//! | warp 0.4 | `warp` | 1.85 | `health.or(assets(ASSETS.service()))` | `warp::path("static").and(assets(ASSETS.service()))` | `cargo run -p example-site --bin warp --features warp` |
//!
//! The adapters need only each framework's handler traits. Your own dependency on the
//! framework picks its server features, as the `Cargo.toml` lines below show.
//!
//! The code below embeds `"../examples/public"`, the repository's example site,
//! relative to this crate's `Cargo.toml`. In your crate, name your own folder relative
//! to yours: `#[embed_assets::embed("public")]`.
//!
//! # Minimum Rust version
//!
//! Rust **1.85** for the core. The actix-web and Rocket adapters need 1.89, and the
//! Salvo adapter 1.95, as those frameworks do. On 1.85–1.87, use cargo's MSRV-aware
//! resolver (`resolver = "3"`, the default of edition 2024): the newest encoding_rs
//! asks for 1.88, and it picks a release that fits your toolchain.
//!
//! # Platforms
//!
//! Everything builds and answers the same on Linux, macOS, Windows and the BSDs (CI
//! checks macOS and Windows with every framework feature); what the operating system
//! offers beyond that is used where it exists, and elsewhere the plain way serves:
//!
//! | | Linux | macOS, BSDs | Windows |
//! |---|---|---|---|
//! | `serve`: files and large embedded bodies | `sendfile`, sealed memory files | written from user space | written from user space |
//! | `serve`: one listener per worker | `SO_REUSEPORT` | one listener, shared | one listener, shared |
//! | `serve`: graceful shutdown on | SIGTERM, Ctrl-C | SIGTERM, Ctrl-C | Ctrl-C |
//! | a file replaced since it was read is seen by | inode, length, mtime, ctime, links | the same | length and mtime |
//! | sequential read-ahead hint for big files | `posix_fadvise` | FreeBSD only | — |
//!
//! On Windows, a file rewritten in place with its length and mtime kept is not seen
//! as changed until one of them changes (there is no status change time to compare).
//!
//! # axum
//!
//! ```toml
//! [dependencies]
//! embed-assets = "0.1"
//! axum = "0.8"
//! tokio = { version = "1", features = ["macros", "rt-multi-thread", "net"] }
//! ```
//!
//! ```rust,no_run
//! use axum::{routing::get, Router};
//!
//! #[embed_assets::embed("../examples/public")]
//! mod frontend {}
//!
//! # #[cfg(feature = "axum")]
//! #[tokio::main]
//! async fn main() {
//!     let app = Router::new()
//!         .route("/api/health", get(|| async { "ok" }))
//!         .nest_service("/static", frontend::ASSETS.service()) // assets under /static too
//!         .fallback_service(frontend::ASSETS.service()); // every other path
//!     let listener = tokio::net::TcpListener::bind("127.0.0.1:3000").await.unwrap();
//!     axum::serve(listener, app).await.unwrap();
//! }
//! # #[cfg(not(feature = "axum"))]
//! # fn main() {}
//! ```
//!
//! [`ServeAssets`](crate::ServeAssets) is a tower `Service`. The `axum` feature also
//! reads the mount point of `nest_service`, so `/static` redirects to `static/`. Pages
//! that link with absolute paths under a mount point need the macro's `base` option
//! (see [the macro options](crate::guide::macro_options)). [The fastest
//! set-up](#the-fastest-set-up) puts the assets in front of the router instead.
//!
//! # The fastest set-up
//!
//! `fallback_service` runs axum's router before every asset.
//! [`with_fallback`](crate::ServeAssets::with_fallback) turns this around: an embedded
//! hit is answered before the router runs. A hit is a GET or HEAD of an asset, a
//! directory's index or a directory redirect. Every other request goes to your `Router`
//! unchanged, so its routes, extractors, state, middleware and fallback work as before.
//! This is the recommended axum set-up:
//!
//! ```rust,no_run
//! use axum::{routing::get, Router};
//!
//! #[embed_assets::embed("../examples/public")]
//! mod frontend {}
//!
//! # #[cfg(feature = "axum")]
//! #[tokio::main]
//! async fn main() {
//!     let app = Router::new().route("/api/health", get(|| async { "ok" }));
//!     let service = frontend::ASSETS.service().with_fallback(app);
//!     let listener = tokio::net::TcpListener::bind("127.0.0.1:3000").await.unwrap();
//!     axum::serve(listener, service.into_make_service()).await.unwrap();
//! }
//! # #[cfg(not(feature = "axum"))]
//! # fn main() {}
//! ```
//!
//! - Where the application's routes win: every request the assets do not serve goes
//!   to the router first (unknown paths, other methods, a bad `Host`), and what a
//!   route or the router's own fallback answers stands. Only a path no route has
//!   (a `Router` without a fallback of its own answers it with an empty 404) comes
//!   back to the assets, which give their own answer: 405 with `Allow` on one of
//!   their files, the single-page app's page, the 404 page, or their plain 404. So a
//!   bare `Router` needs no `.fallback_service(..)` for these; with a fallback of your
//!   own, every miss is yours. In dev mode (`.dev_folder` on the front service), files
//!   added since the build are hits too: the front serves them.
//! - Middleware added to the router does not see asset hits. To wrap both (a tracing
//!   layer, say), wrap the [`WithFallback`](crate::WithFallback) itself.
//! - Responses come in a [`FallbackBody`](crate::future::FallbackBody): the assets' own body
//!   for a hit, the application's for a miss, neither boxed. `axum::serve` takes only
//!   axum's body type, so there
//!   [`into_make_service`](crate::WithFallback::into_make_service) boxes a hit's body
//!   (one allocation).
//!
//! Under hyper-util's server nothing is boxed. Wrap the `WithFallback` itself in
//! `TowerToHyperService`. A hit then allocates no more than a hand-written handler. It
//! needs `hyper-util = { version = "0.1", features = ["tokio", "server-auto",
//! "service"] }`:
//!
//! ```rust,no_run
//! use axum::{routing::get, Router};
//! use hyper_util::rt::{TokioExecutor, TokioIo};
//! use hyper_util::server::conn::auto;
//! use hyper_util::service::TowerToHyperService;
//!
//! #[embed_assets::embed("../examples/public")]
//! mod frontend {}
//!
//! # #[cfg(feature = "axum")]
//! #[tokio::main]
//! async fn main() -> std::io::Result<()> {
//!     let app = Router::new().route("/api/health", get(|| async { "ok" }));
//!     let service = frontend::ASSETS.service().with_fallback(app);
//!     let listener = tokio::net::TcpListener::bind("127.0.0.1:3000").await?;
//!     loop {
//!         let (stream, _) = listener.accept().await?;
//!         let service = TowerToHyperService::new(service.clone());
//!         tokio::spawn(async move {
//!             let _ = auto::Builder::new(TokioExecutor::new())
//!                 .serve_connection(TokioIo::new(stream), service)
//!                 .await;
//!         });
//!     }
//! }
//! # #[cfg(not(feature = "axum"))]
//! # fn main() {}
//! ```
//!
//! # Its own server: `serve`
//!
//! [`embed_assets::serve`](crate::serve) runs the server itself, with the same front
//! as `with_fallback`: hits from the assets, everything else to your `Router`
//! (feature `serve`, on by default). It starts a worker per core, each an OS thread
//! with a single-threaded tokio runtime and a listener of its own on the address
//! (`SO_REUSEPORT`: the kernel spreads connections over the workers), speaks HTTP/1.1
//! (and HTTP/2 with prior knowledge with the `http2` feature, off by default: h2's
//! code is some 360 KB that every hyper server of a binary links once hyper has it),
//! terminates TLS itself with the `tls` feature ([HTTPS](super::deploying#https)),
//! closes connections that send no request head in
//! time or stay idle, caps connections per worker, and on SIGTERM or Ctrl-C closes its
//! listeners and lets responses in flight finish. It blocks: call it from `main`, not
//! inside an async runtime. [`Server`](crate::Server) sets the workers, timeouts, cap
//! and drain time, gives the bound address (port 0 works) and a
//! [`ShutdownHandle`](crate::ShutdownHandle). With an axum `Router` `app` for the rest
//! of the site, `main` is one call,
//! `embed_assets::serve("127.0.0.1:3000", frontend::ASSETS.service(), app)`, whole in
//! the example of [`serve`](crate::serve).
//!
//! A plain HTTP/1.1 request the assets answer (a GET or HEAD of an asset, no body, no
//! `Upgrade`) is parsed and answered by the server itself, its head and body written
//! with one `writev`, before any HTTP library runs; its answer is the one
//! `with_fallback` under `axum::serve` gives, field for field (a test compares them).
//! Any other request — a miss, a body, HTTP/1.0, HTTP/2 — hands its connection, with
//! the bytes already read, to hyper and your application for the rest of its life.
//! A hit does not wait for the application's readiness (`poll_ready`), which is the
//! one difference from `with_fallback`; an axum `Router` is always ready.
//!
//! The application runs on the worker that accepted its connection: its handlers need
//! not be `Send`, and a handler that blocks holds up that worker's other connections,
//! as on any single-threaded runtime (use `spawn_blocking` for blocking work). No TLS:
//! put a proxy in front, as for the other set-ups here.
//!
//! To store a response future, name it from [`embed_assets::future`](crate::future):
//! `ResponseFuture` (of [`ServeAssets::respond`](crate::ServeAssets::respond)),
//! `ServiceFuture` (of `ServeAssets` as a tower service) and `FallbackFuture` (of
//! `WithFallback`). [The benchmarks](crate::guide::benchmarks) show what each set-up
//! costs.
//!
//! # hyper and tower
//!
//! Plain hyper needs no feature:
//!
//! ```toml
//! [dependencies]
//! embed-assets = { version = "0.1", default-features = false, features = ["macros"] }
//! hyper = { version = "1", features = ["server", "http1"] }
//! hyper-util = { version = "0.1", features = ["tokio"] }
//! tokio = { version = "1", features = ["macros", "rt-multi-thread", "net"] }
//! ```
//!
//! ```rust,ignore
//! use std::convert::Infallible;
//!
//! use hyper::server::conn::http1;
//! use hyper::service::service_fn;
//! use hyper_util::rt::TokioIo;
//!
//! #[embed_assets::embed("public")]
//! mod frontend {}
//!
//! #[tokio::main]
//! async fn main() -> std::io::Result<()> {
//!     let service = frontend::ASSETS.service();
//!     let listener = tokio::net::TcpListener::bind("127.0.0.1:3000").await?;
//!     loop {
//!         let (stream, _) = listener.accept().await?;
//!         let service = service.clone();
//!         tokio::spawn(async move {
//!             let handler = service_fn(move |request| {
//!                 let response = service.respond(&request);
//!                 async move { Ok::<_, Infallible>(response.await) }
//!             });
//!             let _ = http1::Builder::new()
//!                 .serve_connection(TokioIo::new(stream), handler)
//!                 .await;
//!         });
//!     }
//! }
//! ```
//!
//! [`ServeAssets::respond(&request)`](crate::ServeAssets::respond) returns a future of
//! the `http::Response`. `frontend::ASSETS.get("/css/app.css")` and
//! `frontend::ASSETS.iter()` give each asset's metadata and bodies
//! ([`Assets::get`](crate::Assets::get), [`Assets::iter`](crate::Assets::iter)). `cargo
//! run -p example-site --bin hyper` runs the example site this way. For other tower
//! stacks, and for hyper-util's `TowerToHyperService`, enable the `tower` feature:
//! `ServeAssets` is then a tower `Service`.
//!
//! # actix-web
//!
//! ```toml
//! [dependencies]
//! embed-assets = { version = "0.1", default-features = false, features = ["macros", "actix-web"] }
//! actix-web = "4"
//! ```
//!
//! ```rust,no_run
//! # #[cfg(feature = "actix-web")]
//! # mod doc {
//! use actix_web::{web, App, HttpServer};
//! use embed_assets::adapters::actix_web::Mount;
//!
//! #[embed_assets::embed("../examples/public")]
//! mod frontend {}
//!
//! // `#[actix_web::main] async fn main()` (actix-web's default `macros` feature) writes
//! // the same.
//! fn main() -> std::io::Result<()> {
//!     actix_web::rt::System::new().block_on(async {
//!         HttpServer::new(|| {
//!             App::new()
//!                 .route("/api/health", web::get().to(|| async { "ok" }))
//!                 .service(Mount::new("/static", frontend::ASSETS.service())) // assets under /static too
//!                 .default_service(frontend::ASSETS.service()) // every other path
//!         })
//!         .bind(("127.0.0.1", 3000))?
//!         .run()
//!         .await
//!     })
//! }
//! # }
//! # fn main() {}
//! ```
//!
//! `ServeAssets` is actix's default service as it is. `Mount` serves it under a prefix,
//! the way actix-files does. Inside `web::scope`, `.default_service(ASSETS.service())`
//! works too. actix-http refuses request heads over 128 KiB with 431 before any service
//! runs. Don't wrap the assets in `Compress`: they are compressed already, each
//! encoding with its own ETag. Don't wrap them in `NormalizePath` either: the core
//! decodes and checks paths itself. The module `embed_assets::adapters::actix_web`
//! (feature `actix-web`) has the details.
//!
//! # Rocket
//!
//! ```toml
//! [dependencies]
//! embed-assets = { version = "0.1", default-features = false, features = ["macros", "rocket"] }
//! rocket = "0.5"
//! ```
//!
//! ```rust,no_run
//! # #[cfg(feature = "rocket")]
//! # mod doc {
//! use rocket::{get, routes};
//!
//! #[embed_assets::embed("../examples/public")]
//! mod frontend {}
//!
//! #[get("/api/health")]
//! fn health() -> &'static str {
//!     "ok"
//! }
//!
//! #[rocket::launch]
//! fn rocket() -> _ {
//!     rocket::build()
//!         .mount("/", routes![health])
//!         .mount("/", frontend::ASSETS.service()) // rank 10, like FileServer: the app's routes win
//! }
//! # }
//! # fn main() {}
//! ```
//!
//! - `ASSETS.service()` mounts as it is, at rank 10.
//!   `AssetServer::from(ASSETS.service()).rank(n)` (in
//!   `embed_assets::adapters::rocket`) sets another rank, as two servers with
//!   overlapping bases need.
//! - It takes every method, so 405 comes with `Allow`. A HEAD is tried on the app's GET
//!   routes first, as Rocket does, and reaches the assets as a HEAD.
//! - Rocket adds its own headers: `Server`, and its Shield fairing's `X-Frame-Options`,
//!   `Permissions-Policy` and `X-Content-Type-Options`.
//! - Rocket drops header values that are not UTF-8, and answers methods it does not
//!   know with 400.
//! - Rocket does not tell a handler the HTTP version. Every request is taken for
//!   HTTP/1.1, so an HTTP/1.0 request without `Host` gets 400.
//!
//! # Poem
//!
//! ```toml
//! [dependencies]
//! embed-assets = { version = "0.1", default-features = false, features = ["macros", "poem"] }
//! poem = "3" # its default features include the server
//! tokio = { version = "1", features = ["macros", "rt-multi-thread"] }
//! ```
//!
//! ```rust,no_run
//! # #[cfg(feature = "poem")]
//! # mod doc {
//! use poem::{get, handler, listener::TcpListener, Route, Server};
//!
//! #[embed_assets::embed("../examples/public")]
//! mod frontend {}
//!
//! #[handler]
//! fn health() -> &'static str {
//!     "ok"
//! }
//!
//! #[tokio::main]
//! async fn main() -> std::io::Result<()> {
//!     let app = Route::new()
//!         .at("/api/health", get(health))
//!         .nest("/static", frontend::ASSETS.service()) // assets under /static too
//!         .at("/*", frontend::ASSETS.service()); // every other path
//!     Server::new(TcpListener::bind("127.0.0.1:3000")).run(app).await
//! }
//! # }
//! # fn main() {}
//! ```
//!
//! `ServeAssets` is a Poem `Endpoint`. At the root, mount it with `.at("/*", ..)`, not
//! `nest`. Poem's `nest` answers 400 itself to a path that is not UTF-8 once decoded,
//! before the endpoint runs. Under a prefix, such a path gets that 400 instead of our
//! 404; nothing is served either way.
//!
//! # Salvo
//!
//! ```toml
//! [dependencies]
//! embed-assets = { version = "0.1", default-features = false, features = ["macros", "salvo"] }
//! salvo_core = "1.1" # its default features include the server and HTTP/1
//! tokio = { version = "1", features = ["macros", "rt-multi-thread"] }
//! ```
//!
//! ```rust,no_run
//! # #[cfg(feature = "salvo")]
//! # mod doc {
//! use salvo_core::prelude::*;
//!
//! #[embed_assets::embed("../examples/public")]
//! mod frontend {}
//!
//! #[handler]
//! async fn health() -> &'static str {
//!     "ok"
//! }
//!
//! #[tokio::main]
//! async fn main() {
//!     let router = Router::new()
//!         .push(Router::with_path("api/health").get(health))
//!         .push(Router::with_path("static/{**rest}").goal(frontend::ASSETS.service()))
//!         .push(Router::with_path("{**rest}").goal(frontend::ASSETS.service()));
//!     let acceptor = TcpListener::new("127.0.0.1:3000").bind().await;
//!     Server::new(acceptor).serve(router).await;
//! }
//! # }
//! # fn main() {}
//! ```
//!
//! `ServeAssets` is a Salvo `Handler` (`salvo_core`'s trait, which `salvo` re-exports).
//! Route it with `goal`, so every method reaches it and 405 comes with `Allow`. The
//! wildcard must cover whole segments (`static/{**rest}`). Don't wrap it in Salvo's
//! `Compression`.
//!
//! # warp
//!
//! ```toml
//! [dependencies]
//! embed-assets = { version = "0.1", default-features = false, features = ["macros", "warp"] }
//! warp = { version = "0.4", features = ["server"] }
//! tokio = { version = "1", features = ["macros", "rt-multi-thread"] }
//! ```
//!
//! ```rust,no_run
//! # #[cfg(feature = "warp")]
//! # mod doc {
//! use embed_assets::adapters::warp::assets;
//! use warp::Filter;
//!
//! #[embed_assets::embed("../examples/public")]
//! mod frontend {}
//!
//! #[tokio::main]
//! async fn main() {
//!     let health = warp::path!("api" / "health").map(|| "ok");
//!     let routes = health
//!         .or(warp::path("static").and(assets(frontend::ASSETS.service()))) // under /static
//!         .or(assets(frontend::ASSETS.service())); // every other path
//!     warp::serve(routes).run(([127, 0, 0, 1], 3000)).await;
//! }
//! # }
//! # fn main() {}
//! ```
//!
//! `assets` rejects what the service has no answer for (its plain 404), so `.or(...)`
//! goes on to the next filter. Everything else is a reply, including the configured 404
//! page and a single-page app's answers. warp does not tell a filter the request's HTTP
//! version. Every request is taken for HTTP/1.1, so an HTTP/1.0 request without `Host`
//! gets 400. Don't wrap it in `warp::compression`.
//!
//! # Without axum
//!
//! `default-features = false` leaves out axum and tower, and the macros unless
//! `features` names `macros` (as each framework's lines above do; a program that only
//! serves [folders](crate::ServeAssets::folder) needs none). Then `ServeAssets` is not a
//! tower `Service`, and `Router::fallback_service(ASSETS.service())` fails with rustc's
//! "the trait bound `ServeAssets: tower_service::Service<…>` is not satisfied". Enable
//! the `axum` feature, or `tower` for other tower stacks. Plain hyper needs neither
//! (see [hyper and tower](#hyper-and-tower)).
//!
//! Any other server builds a [`RequestHead`](crate::RequestHead) (method, raw path,
//! query, version, headers) and calls
//! [`service.respond_head(head)`](crate::ServeAssets::respond_head). That is all an
//! adapter does.
//!
//! # Leptos
//!
//! A Leptos 0.8 app with server-side rendering and hydration ships as one binary
//! (the repository's `examples/leptos`): cargo-leptos builds the wasm, its JavaScript
//! and the style sheet into `target/site`, and the server embeds that folder and puts it
//! in front of its router:
//!
//! ```ignore
//! #[embed_assets::embed("target/site", exclude = ["**/*.br", "**/*.gz", "**/*.d.ts"])]
//! mod site {}
//!
//! let service = site::ASSETS.service().with_fallback(leptos_router);
//! ```
//!
//! Build with `cargo leptos build --release --precompress --split`: with `--precompress`
//! cargo-leptos builds the client before the server that embeds it (without it, side by
//! side); `--split` moves the code of the lazily loaded route (`#[lazy_route]`) into a
//! wasm chunk of its own. The paths `HydrationScripts` writes (`/pkg/<name>.js`, `.wasm`)
//! and the chunks are served br from memory with strong ETags, and a reload gets 304s:
//! 1.7 KB on the wire against the 212 KB that cargo-leptos's default set-up (leptos_axum's
//! file handler, a `ServeDir` of `target/site`, which ignores conditional requests) sends
//! again. The binary needs no `target/site` beside it, where that set-up must ship the
//! folder with it: Leptos reads the chunks' manifest from `site_root` for its preload
//! links, and the server hands it the embedded one at start-up.
//!
//! In the release profile, optimise the macro and the crates it spends its time in by
//! name rather than every build dependency (`build-override`, the quick start's set-up):
//! a Leptos app has dozens of proc macros (leptos_macro, server_fn, serde, syn...),
//! built twice, for the wasm and for the server, and optimising them all took this
//! example's cold release build from 6 to 13 minutes on two cores. The example's
//! `Cargo.toml` lists the crates (`[profile.release.package.<name>] opt-level = 3` for
//! `embed-assets-macros`, `embed-assets-shared`, brotli, flate2, sha2, lol_html,
//! cssparser and their helpers); a package setting wins over `build-override`.
//!
//! # Dioxus
//!
//! A Dioxus 0.7 fullstack app works the same way (tried with `dx` 0.7.10, server-side
//! rendering, hydration and a server function, the binary run alone in an empty folder):
//! build with `dx build --release --web --fullstack --force-sequential`, so the client is
//! built before the server that embeds it, after removing `target/dx/<app>/release/web/public`
//! (dx keeps every earlier build's hashed files there). Embed that folder without the
//! HTML template, its `-dxh` names marked as fingerprinted, and put it in front of
//! Dioxus's router without its file server:
//!
//! ```ignore
//! #[embed_assets::embed("target/dx/app/release/web/public",
//!     exclude = ["index.html", "**/*.br", "**/*.gz"], hashed = ["assets/*-dxh*"])]
//! mod site {}
//!
//! let app = Router::new().serve_api_application(ServeConfig::new(), App);
//! let service = site::ASSETS.service().with_fallback(app);
//! ```
//!
//! The wasm and its glue are then sent br from memory (the wasm 298 KB on the wire
//! against 962 KB from dx's own server, which sends no compressed files), immutable
//! under their hashed names. The HTML stays Dioxus's: its server renders each page into
//! `index.html`, which it reads from `public/` beside the binary (or
//! `DIOXUS_PUBLIC_PATH`) at start-up and cannot be handed as a string today, so ship that
//! one file (or write it from a copy compiled in, to a folder `DIOXUS_PUBLIC_PATH` names,
//! before `dioxus::serve`). `dx` offline needs `--features no-downloads` at install, with
//! `wasm-bindgen`, `wasm-opt` and `esbuild` on `PATH`.
