//! One page per topic, beside the API docs; the crate's [front page](crate) has the
//! quick start.
//!
//! - [`frameworks`](crate::guide::frameworks): the set-up of every framework (axum,
//!   hyper and tower, actix-web, Rocket, Poem, Salvo, warp), the fastest set-up in
//!   detail, serving without axum, and the minimum Rust versions.
//! - [`macro_options`](crate::guide::macro_options): every option of
//!   [`#[embed]`](macro@crate::embed) and [`embed_assets!`](crate::embed_assets!), what
//!   goes to disk, fingerprinted URLs, Subresource Integrity, and why the macro is
//!   built optimised.
//! - [`serving_options`](crate::guide::serving_options): every method of
//!   [`ServeAssets`](crate::ServeAssets), a strict Content-Security-Policy with no
//!   nonce, preload links and 103 Early Hints.
//! - [`vite`](crate::guide::vite): a Vite frontend built by npm in the build script,
//!   the development loop, and real frontends from npm (Swagger UI, a 14 MB `.wasm`).
//! - [`http`](crate::guide::http): the HTTP behaviour (RFC 9110): methods, negotiation,
//!   validators, ranges, `Host` and paths.
//! - [`deploying`](crate::guide::deploying): one binary, media beside it, caches and
//!   CDNs, releases and rolling deploys, dictionary compression (RFC 9842).
//! - [`big_files`](crate::guide::big_files): files streamed from disk, slow clients,
//!   and server timeouts.
//! - [`benchmarks`](crate::guide::benchmarks): requests per second and CPU time beside
//!   nginx, large files, real frontends beside rust-embed, and binary size.

pub mod benchmarks;
pub mod big_files;
pub mod deploying;
pub mod frameworks;
pub mod http;
pub mod macro_options;
pub mod serving_options;
pub mod vite;
