//! [`ServeAssets`]: the options a service is built with, and the request's walk
//! through it. Routing lives here (and the `Host` check of RFC 9112 §3.2); the HTTP
//! decisions are in `respond` and the modules it calls, and every file is read in
//! `disk`.
//!
//! - `builder`: the options, one method each;
//! - `options`: what they set, their defaults and `Debug`, and the header policy they
//!   give each asset;
//! - `tables`: the lookups derived from the options once per service;
//! - `config`: the options, their tables, and the live state requests share (content
//!   tags, the read budget);
//! - `head`: [`RequestHead`], what is read of a request;
//! - `dispatch`: a request's head → `route` (or `folder`'s) → `respond` (or `file`),
//!   the one entry that answers or says "not mine", the one 404, and dev mode's files
//!   added since the build;
//! - `route`: a table's path → one typed target with its header policy;
//! - `folder`: a folder served whole: its routing, its files' answers, its cache
//!   hits and its 404 page;
//! - `file`: a request answered from a file read at run time;
//! - `future`: [`ResponseFuture`] (and, as a tower service's, `ServiceFuture`) and
//!   `Answer`.

mod builder;
mod config;
mod dispatch;
mod file;
mod folder;
mod future;
mod head;
mod options;
mod route;
mod tables;

use std::path::PathBuf;
use std::sync::Arc;

use self::config::Config;
use self::options::Options;
use crate::table::Assets;

#[cfg(any(feature = "tower", feature = "warp"))]
pub(crate) use self::dispatch::Claim;
pub(crate) use self::future::Answer;
pub use self::future::ResponseFuture;
#[cfg(feature = "tower")]
pub use self::future::ServiceFuture;
pub use self::head::RequestHead;

/// Serves an [`Assets`] table over HTTP: a `Clone + Send + Sync` tower `Service`
/// (with the `tower` feature, part of the default `axum`), a plain
/// [`respond`](Self::respond) method, and with each framework's feature its adapter
/// (see [`adapters`](crate#features)).
///
/// Without the `tower` feature, `axum::Router::fallback_service(ASSETS.service())`
/// fails with "the trait bound `ServeAssets: Service<…>` is not satisfied": enable
/// `axum` (or `tower`). Plain hyper needs neither: call [`respond`](Self::respond)
/// from a `service_fn`.
///
/// Made by [`Assets::service`]; each option returns the changed service:
///
/// ```
/// # use embed_assets::{embed_assets, Assets};
/// # use http::HeaderValue;
/// # static ASSETS: Assets = embed_assets!("../examples/public");
/// let service = ASSETS
///     .service()
///     .index_file("index.html")
///     .cache_control_for("/img/", HeaderValue::from_static("public, max-age=86400"))
///     .not_found_page("/about/index.html");
/// ```
///
/// Requests are answered as follows:
/// - The path is percent-decoded once; `.`/`..` segments, backslashes and control
///   characters, and paths that match nothing, get 404.
/// - `/dir/` serves `/dir/index.html` (the [index file](Self::index_file)); `/dir`
///   redirects to `dir/` with 301 when that index exists (also for the mount point
///   under axum's `nest_service`).
/// - Optionally `/about` serves `/about.html` ([`clean_urls`](Self::clean_urls)), and
///   unknown page-like paths serve a single-page app
///   ([`spa_fallback`](Self::spa_fallback)).
/// - A fingerprinted URL (the macro's `fingerprint` option, `/js/app.3f2a1b9c.js`)
///   serves its asset with
///   [`FINGERPRINTED_CACHE_CONTROL`](ServeAssets::FINGERPRINTED_CACHE_CONTROL): its
///   bytes can never change.
/// - Methods other than GET and HEAD on an existing asset get 405 with `Allow`.
/// - Otherwise: content negotiation, preconditions (304/412), `ETag`, `Last-Modified`,
///   `Cache-Control`, `Vary`, as RFC 9110 specifies.
#[derive(Clone)]
pub struct ServeAssets {
    assets: &'static Assets,
    config: Arc<Config>,
}

impl Assets {
    /// A service answering requests for these assets, with default options: index file
    /// `index.html`, `Cache-Control: no-cache`, a plain-text 404.
    pub fn service(&'static self) -> ServeAssets {
        let options = Options::new(self.build_root().map(PathBuf::from));
        ServeAssets {
            assets: self,
            config: Arc::new(Config::new(options)),
        }
    }
}
