//! Embed a web frontend in the binary at compile time and serve it from memory.
//!
//! One macro call walks a folder while your crate compiles; the binary then carries
//! every file with its strong ETag, MIME type, `Last-Modified`, and precompressed gzip
//! and brotli bodies. Serving is a perfect-hash lookup and a `&'static [u8]` handed to
//! the socket: no file system, no hashing, no compression at run time. Files over a
//! size limit stay on disk and are streamed, with Range support.
//!
//! # Quick start
//!
//! `Cargo.toml`:
//!
//! ```toml
//! [dependencies]
//! embed-assets = "0.1"
//!
//! [build-dependencies]
//! embed-assets-build = "0.1"
//!
//! # The macro compresses inside rustc: build it optimised.
//! [profile.dev.build-override]
//! opt-level = 3
//! [profile.release.build-override]
//! opt-level = 3
//! ```
//!
//! `src/main.rs`, with the frontend in `public/` next to `Cargo.toml`:
//!
//! ```no_run
//! use axum::{routing::get, Router};
//!
//! // Embeds the folder (relative to the crate root, CARGO_MANIFEST_DIR) into this
//! // module: it gets `pub static ASSETS` (the table) and `pub mod paths` (the URLs).
//! #[embed_assets::embed("../examples/public")]
//! mod frontend {
//!     // Your own items can live here too.
//! }
//!
//! # #[cfg(feature = "tower")] // the `axum` feature, on by default
//! # async fn run() {
//! let app = Router::new()
//!     .route("/api/health", get(|| async { "ok" }))
//!     .fallback_service(frontend::ASSETS.service());
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:3000").await.unwrap();
//! axum::serve(listener, app).await.unwrap();
//! # }
//! ```
//!
//! `build.rs`, so that files *added* to the folder are embedded too (cargo sees edits to
//! embedded files on its own, not new ones), with
//! [`embed-assets-build`](https://docs.rs/embed-assets-build):
//!
//! ```ignore
//! fn main() {
//!     embed_assets_build::track("public");
//! }
//! ```
//!
//! The same table as an expression, for a `static` of your own ([`embed_assets!`];
//! both forms take the same options):
//!
//! ```
//! static ASSETS: embed_assets::Assets = embed_assets::embed_assets!("../examples/public");
//! # assert!(ASSETS.get("/index.html").is_some());
//! ```
//!
//! Without a web framework, look assets up directly:
//!
//! ```
//! # use embed_assets::{embed_assets, Assets, Encoding};
//! # static ASSETS: Assets = embed_assets!("../examples/public");
//! let css = ASSETS.get("/css/app.css").expect("embedded");
//! assert!(css.content_type().starts_with("text/css"));
//! assert!(css.etag().starts_with('"'));
//! assert!(css.body(Encoding::Brotli).is_some());
//! for asset in ASSETS.iter() {
//!     println!("{} {} bytes", asset.path(), asset.len());
//! }
//! ```
//!
//! # Features
//!
//! | feature | what it enables | default |
//! |---|---|---|
//! | `macros` | [`embed_assets!`] and [`#[embed]`](macro@embed), the proc macro that embeds a folder at build time; a program that only serves folders at run time ([`ServeAssets::folder`]) can leave it out | yes |
//! | `axum` | `tower`, the mount point of axum 0.8's `nest_service` (`/static` redirects to `static/`), and `WithFallback::into_make_service` for `axum::serve` | yes |
//! | `serve` | `serve` and `Server`: a server of its own, thread per core (hyper, HTTP/1.1 and h2c; a tokio current-thread runtime and an `SO_REUSEPORT` listener per worker), with the assets in front of any tower application, an axum `Router` as it is; graceful shutdown | yes |
//! | `tower` | `tower_service::Service` for [`ServeAssets`], for any tower stack and hyper-util's `TowerToHyperService`; `WithFallback` | with `axum` and `serve` |
//! | `actix-web` | [`ServeAssets`] as actix-web 4's default service, and `adapters::actix_web::Mount` for a prefix (Rust 1.89) | no |
//! | `rocket` | [`ServeAssets`] mountable in Rocket 0.5, and `adapters::rocket::AssetServer` to set its rank (Rust 1.89) | no |
//! | `poem` | [`ServeAssets`] as a Poem 3 `Endpoint` | no |
//! | `salvo` | [`ServeAssets`] as a Salvo 1 `Handler` (Rust 1.95) | no |
//! | `warp` | `adapters::warp::assets`, a warp 0.4 `Filter` that rejects what it does not serve | no |
//! | `zstd` | `embed_assets!` also stores a zstd body (RFC 8878) of each compressible file; the macro links libzstd | no |
//!
//! A framework's feature enables only that framework's handler traits: its server
//! features come from your own dependency on it.
//!
//! # HTTP behaviour
//!
//! [`ServeAssets`] follows RFC 9110: GET and HEAD (405 with `Allow` otherwise);
//! `Accept-Encoding` with q-values; a distinct strong ETag per stored encoding;
//! `If-Match`, `If-Unmodified-Since`, `If-None-Match` (weak comparison over lists) and
//! `If-Modified-Since` in the RFC's order, giving 412 and 304; `Vary: Accept-Encoding`
//! on every response of an asset that has encoded variants, and only there.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

mod abi;
pub mod adapters;
mod asset;
mod body;
mod coding;
mod disk;
mod entry;
mod error;
#[cfg(embed_assets_unstable_fuzz)]
mod fuzz;
/// The guides: every option, HTTP behaviour, deploying, big files and benchmarks.
pub mod guide;
mod negotiate;
mod path;
mod plan;
mod precondition;
mod range;
pub mod report;
mod representation;
mod respond;
#[cfg(feature = "serve")]
mod serve;
mod service;
mod table;

/// The `http` crate (1.x), whose types the service speaks: [`ServeAssets::header`] and
/// [`ServeAssets::cache_control`] take its `HeaderName` and `HeaderValue`. Use it from
/// here, so the version always matches, whatever your framework depends on (actix-web
/// 4 uses `http` 0.2):
///
/// ```
/// use embed_assets::http::{header, HeaderValue};
/// # use embed_assets::{embed_assets, Assets};
/// # static ASSETS: Assets = embed_assets!("../examples/public");
///
/// let service = ASSETS
///     .service()
///     .cache_control(HeaderValue::from_static("public, max-age=0, s-maxage=300"))
///     .header("/**", header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
/// ```
pub use http;

#[cfg(feature = "tower")]
pub use adapters::fallback::WithFallback;
pub use asset::{Asset, Variant};
pub use body::Body;
pub use coding::Encoding;
pub use entry::Entry;
pub use error::Error;
#[cfg(feature = "acme")]
pub use serve::Acme;
#[cfg(feature = "tls")]
pub use serve::Tls;
#[cfg(feature = "serve")]
pub use serve::{Server, ShutdownHandle, serve};
pub use service::{RequestHead, ServeAssets};
pub use table::Assets;

/// The futures of the services' responses. Each is `Send`, and ready at once for an
/// embedded asset (no allocation); you only name them to store one.
///
/// - [`ResponseFuture`](future::ResponseFuture): [`ServeAssets::respond`]'s, which
///   awaits to the `http::Response`:
///
///   ```
///   # use embed_assets::{embed_assets, Assets};
///   # static ASSETS: Assets = embed_assets!("../examples/public");
///   # async fn run() {
///   let request = http::Request::get("/css/app.css").header("host", "localhost");
///   let request = request.body(()).unwrap();
///   let future: embed_assets::future::ResponseFuture = ASSETS.service().respond(&request);
///   let response = future.await;
///   assert_eq!(response.status(), 200);
///   # }
///   ```
/// - [`ServiceFuture`](future::ServiceFuture): [`ServeAssets`] as a tower `Service`
///   (feature `tower`);
/// - [`FallbackFuture`](future::FallbackFuture): [`WithFallback`]'s (feature `tower`),
///   whose responses come in a [`FallbackBody`](future::FallbackBody): the assets' body
///   or the application's.
pub mod future {
    #[cfg(feature = "tower")]
    pub use crate::adapters::fallback::{FallbackBody, FallbackFuture};
    pub use crate::service::ResponseFuture;
    #[cfg(feature = "tower")]
    pub use crate::service::ServiceFuture;
}

/// Embeds a folder at compile time; evaluates to an [`Assets`] usable in a `static`.
///
/// [`#[embed]`](macro@embed) is the same on a module, which then holds the table and
/// its URL constants.
///
/// ```
/// use embed_assets::{embed_assets, Assets};
///
/// static ASSETS: Assets = embed_assets!("../examples/public");
/// static SMALL: Assets = embed_assets!(
///     "../examples/public",
///     max_embed_size = "16 KiB", // larger files that do not compress are served from disk
///     include = ["*.css", "*.js"],
///     brotli = false,
/// );
/// assert!(SMALL.iter().all(|a| a.path().ends_with(".css") || a.path().ends_with(".js")));
/// ```
///
/// The first argument is the folder, relative to the crate root (`CARGO_MANIFEST_DIR`)
/// or absolute; `$VAR` and `${VAR}` are replaced from the environment, so a frontend
/// built into `$OUT_DIR/site` by a build script can be embedded. Options follow as
/// `key = value`:
///
/// | option | value | default | meaning |
/// |---|---|---|---|
/// | `max_embed_size` | bytes, or a string like `"5 MiB"`: B, KiB, MiB, GiB are powers of 1024, KB, MB, GB powers of 1000 (`"5 MB"` is 5 000 000 bytes) | `"5 MiB"` | the most one file may store in the binary: a larger file that does not compress is listed and served from disk; one that compresses is embedded compressed only while its gzip body is within the limit |
/// | `disk` | glob or list of globs | nothing | files always served from disk, whatever their size; a pattern that matches no file is an error |
/// | `on_disk` | `"warn"`, `"deny"` or `"allow"` | `"warn"` | what the build says of files `max_embed_size` leaves on disk: a warning at the call naming each (rustc's `deprecated` lint carries it), a compile error, or nothing |
/// | `max_total_size` | a size, as above | `"128 MiB"` | a compile error, naming the largest files, when the embedded files add up to more |
/// | `gzip` | `true`/`false` | `true` | store a gzip body where it pays |
/// | `brotli` | `true`/`false` | `true` | store a brotli body where it pays |
/// | `zstd` | `true`/`false` | `true` with the `zstd` feature | store a zstd body where it pays (needs the feature) |
/// | `compression` | `"best"`, `"max"` or `"fast"` | `"best"` in optimised builds, else `"fast"` | `"best"`: gzip 9 and brotli 11 up to 256 KiB, gzip 6 and brotli 9 above (5-12% larger, 10-20 times faster); `"max"`: gzip 9 and brotli 11 for every file; `"fast"`: gzip 6 and brotli 5 (much faster to build, a few percent larger) |
/// | `compressed_only` | `true`/`false` | `true` (`false` with `gzip = false`) | leave out the own bytes of files that have a gzip body: smaller binaries; they are decoded from gzip, once, on the first request that needs them |
/// | `fingerprint` | `true`, or glob(s) | off | also serve each selected embedded file at a content-hashed URL (`true`: all but HTML pages), see below; a pattern that selects no embedded file is an error |
/// | `hashed` | glob(s) | none | files a bundler already content-hashed: the immutable policy at their own URL, no second hash (a Vite `.vite/manifest.json` in the folder does this on its own) |
/// | `releases` | path | none | the folder `embed_assets_build::Releases` records releases into (need not exist yet): the files every kept release served at a hashed URL are served at that URL too, immutable; [`Assets::release`] is this build's release id and [`Asset::earlier_release`] marks an earlier release's file. This build's changed files are also stored compressed against their earlier versions (RFC 9842 `dcb`/`dcz`, [`Asset::deltas`]), for browsers that kept those ([`Asset::dictionary_match`]) |
/// | `rewrite_references` | `true`/`false` | `false` | with `fingerprint`: point `href`/`src`/`srcset`, `style`, CSS `url()`, `@import` and `image-set()` links in embedded HTML and CSS (found by an HTML and a CSS tokenizer) at the hashed URLs (ETags and hashes are of the rewritten bytes); links are decoded before they are matched and written percent-encoded |
/// | `integrity` | `true`/`false` | `false` | with `rewrite_references`: write `integrity="sha384-…"` on `<script src>`, `<link rel="stylesheet">` and `<link rel="modulepreload">` that load an embedded file |
/// | `strict_csp` | `true`/`false` | `false` | a compile error for each embedded page with an inline event handler or a `javascript:` URL, which no CSP hash can allow (the hashes of inline scripts and styles are computed either way: [`Asset::script_hashes`]) |
/// | `base` | `"/static"` | none | with `rewrite_references`: the URL path the site is served under; rewritten absolute links get it in front |
/// | `include` | glob or list of globs | everything | only embed files whose path below the folder matches one; a pattern that matches no file is an error |
/// | `exclude` | glob or list of globs | nothing | skip files whose path below the folder matches one; a pattern may match nothing (a frontend build may or may not write source maps) |
/// | `dotfiles` | `true`/`false` | `false` | embed files and folders whose name starts with `.` |
/// | `follow_symlinks` | `true`/`false` | `false` | follow symbolic links instead of skipping them |
/// | `allow_empty` | `true`/`false` | `false` | build an empty table when the folder has nothing to embed; otherwise that is a compile error at the folder (a frontend's `dist/` whose build did not run) |
/// | `crate` | a path | `$crate` (whatever the dependency is called); `::embed_assets` for [`#[embed]`](macro@embed) | where the generated code finds this crate |
///
/// Globs match the `/`-separated path below the folder (`css/app.css`); `*` also
/// matches across `/`, so `*.map` excludes source maps at any depth.
///
/// An encoded body is kept only when it pays: at least 10% and at least 128 bytes
/// smaller than the file. Formats that are compressed already (images other than SVG
/// and ICO, fonts, audio, video, archives) are never recompressed.
///
/// Every mistake is a compile error at the offending argument, all reported at once.
///
/// # Fingerprinted URLs and the item form
///
/// With `fingerprint`, `/js/app.js` is also served at `/js/app.3f2a1b9c.js` (the first
/// 8 hex digits of its content hash) with [`ServeAssets::FINGERPRINTED_CACHE_CONTROL`] (a year,
/// `immutable`), while `/js/app.js` keeps its revalidating policy. Link to the hashed
/// URL with [`Assets::url`], or, in item position, with the constants of a `paths`
/// module the macro defines next to the static, so a mistyped name fails the build:
///
/// ```
/// use embed_assets::embed_assets;
///
/// embed_assets!(pub static ASSETS = "../examples/public", fingerprint = true);
///
/// let css = ASSETS.url("/css/app.css").unwrap();
/// assert_eq!(css, paths::CSS_APP_CSS);
/// assert!(css.starts_with("/css/app.") && css.len() == "/css/app.12345678.css".len());
/// assert_eq!(paths::INDEX_HTML, "/index.html"); // pages keep their URL
/// ```
///
/// Editing an embedded file rebuilds the crate (the macro uses `include_bytes!`).
/// Cargo does not notice added or removed files on its own; add a build script that
/// calls `embed_assets_build::track("public")` for that (see the
/// [quick start](crate#quick-start)).
#[cfg(feature = "macros")]
#[macro_export]
macro_rules! embed_assets {
    // The item form: forwarded with braces, which item position requires.
    (pub $($rest:tt)*) => {
        $crate::__private::embed_assets! {[$crate] pub $($rest)*}
    };
    (static $($rest:tt)*) => {
        $crate::__private::embed_assets! {[$crate] static $($rest)*}
    };
    ($($args:tt)*) => {
        $crate::__private::embed_assets!([$crate] $($args)*)
    };
}

/// Embeds a folder at compile time into the inline module it annotates: the module gets
/// `pub static ASSETS: Assets` and `pub mod paths` (the URL constants), next to the
/// items it already has.
///
/// ```
/// #[embed_assets::embed("../examples/public", fingerprint = true)]
/// pub mod frontend {
///     // The module's own items stay as they are, and can use what is generated.
///     pub fn stylesheet() -> &'static str {
///         ASSETS.url("/css/app.css").unwrap_or(paths::CSS_APP_CSS)
///     }
/// }
///
/// let css = frontend::ASSETS.get(frontend::paths::CSS_APP_CSS).unwrap();
/// assert!(css.content_type().starts_with("text/css"));
/// assert_eq!(frontend::stylesheet(), frontend::paths::CSS_APP_CSS);
/// assert_eq!(frontend::paths::INDEX_HTML, "/index.html"); // pages keep their URL
/// ```
///
/// It takes the same arguments as [`embed_assets!`], with the same meaning, defaults
/// and errors: the folder, then the options of [the table there](embed_assets!).
/// Every mistake is a compile error at the offending token, all reported at once, and
/// so are an item other than a module, a module without a body (`mod frontend;`, whose
/// items are in another file the attribute cannot add to) and a module that already
/// has an item named `ASSETS` or `paths`. Each annotated module has its own `ASSETS`
/// and `paths`, so several folders live side by side, one module each.
///
/// # A renamed dependency
///
/// An attribute cannot find out under which name it was imported, so the generated code
/// names this crate `::embed_assets`. When `Cargo.toml` renames the dependency (`web =
/// { package = "embed-assets", ... }`), say so with the `crate` option:
///
/// ```ignore
/// #[web::embed("public", crate = ::web)]
/// mod frontend {}
/// ```
#[cfg(feature = "macros")]
#[doc(inline)]
pub use embed_assets_macros::embed;

/// What generated code uses. Not a stable API: it changes with the macro, which this
/// crate requires at its exact version.
#[doc(hidden)]
pub mod __private {
    pub use crate::abi::{
        AssetInit, EMPTY, Identity, asset, assets, body, entry, identity, release,
    };
    pub use crate::asset::{Asset, PageInit, Variant};
    pub use crate::coding::Encoding;
    pub use crate::table::{FINGERPRINTED, Selection};
    pub use ::core::option::Option::{None, Some};
    #[cfg(feature = "macros")]
    pub use embed_assets_macros::embed_assets;
    pub use phf;

    /// The HTTP decisions one by one, for the fuzz targets in `fuzz/` and the property
    /// tests (`--cfg embed_assets_unstable_fuzz`, see `build.rs`).
    #[cfg(embed_assets_unstable_fuzz)]
    pub mod fuzz {
        pub use crate::fuzz::*;
    }
}
