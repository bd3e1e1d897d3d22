//! [`ServeAssets`]: the options a service is built with, and the request's walk
//! through it. No RFC logic lives here: the decisions are in `respond` and the modules
//! it calls; every file is read in `disk`.
//!
//! - `builder`: the options, one method each;
//! - `config`: the options and the tables derived from them once;
//! - `head`: [`RequestHead`], what is read of a request;
//! - `dispatch`: a request's head → `route` → `respond` (or `file`), and the one
//!   entry that answers or says "not mine";
//! - `route`: the path → one typed target with its header policy;
//! - `file`: a request answered from a file read at run time;
//! - `memory`: the answers made from memory alone (an embedded asset, the 404), for
//!   `dispatch` and `file` both;
//! - `future`: [`ResponseFuture`].

mod builder;
mod config;
mod dispatch;
mod file;
mod future;
mod head;
mod memory;
mod route;

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use http::HeaderValue;

use self::config::{Config, Options};
use crate::asset::Asset;
use crate::table::Assets;

#[cfg(any(feature = "tower", feature = "warp"))]
pub(crate) use self::dispatch::Claim;
pub use self::future::ResponseFuture;
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
        let options = Options {
            index_file: Some("index.html".to_owned()),
            default_cache_control: HeaderValue::from_static(ServeAssets::DEFAULT_CACHE_CONTROL),
            default_cache_control_set: false,
            fingerprinted_cache_control: HeaderValue::from_static(
                ServeAssets::FINGERPRINTED_CACHE_CONTROL,
            ),
            cache_rules: Vec::new(),
            not_found_page: None,
            spa_fallback: None,
            spa_excluded: Vec::new(),
            clean_urls: false,
            dev_folder: None,
            disk_root: self.build_root().map(PathBuf::from),
            chunk_size: ServeAssets::DEFAULT_CHUNK_SIZE,
            read_budget: ServeAssets::DEFAULT_READ_BUDGET,
            header_rules: Vec::new(),
            nosniff: true,
            csp: None,
            preload: false,
        };
        ServeAssets {
            assets: self,
            config: Arc::new(Config::new(options)),
        }
    }
}

impl fmt::Debug for ServeAssets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let config = &self.config.options;
        f.debug_struct("ServeAssets")
            .field("assets", &self.assets.len())
            .field("index_file", &config.index_file)
            .field("cache_control", &config.default_cache_control)
            .field("cache_rules", &config.cache_rules)
            .field("not_found_page", &config.not_found_page.map(Asset::path))
            .field(
                "spa_fallback",
                &config.spa_fallback.map(|i| self.assets.files()[i].path()),
            )
            .field("spa_excluded", &config.spa_excluded)
            .field("clean_urls", &config.clean_urls)
            .field("dev_folder", &config.dev_folder)
            .field("disk_root", &config.disk_root)
            .field("chunk_size", &config.chunk_size)
            .field("read_budget", &config.read_budget)
            .field(
                "header_rules",
                &config
                    .header_rules
                    .iter()
                    .map(|rule| (&rule.pattern, &rule.name, &rule.value))
                    .collect::<Vec<_>>(),
            )
            .field("nosniff", &config.nosniff)
            .field("content_security_policy", &config.csp)
            .field("preload_links", &config.preload)
            .finish()
    }
}
