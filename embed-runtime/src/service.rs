//! [`ServeAssets`]: routing (index files, directory redirects, 404 page), the
//! Cache-Control policy, and the tower `Service` impl. No RFC logic lives here.

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::io;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::{HeaderMap, HeaderValue, Method, Request, Response, StatusCode, Version};
use percent_encoding::{utf8_percent_encode, AsciiSet, CONTROLS};

use crate::asset::{Asset, Assets, Encoding};
use crate::body::Body;
use crate::disk::{self, DiskBody, Segment, DEFAULT_CHUNK_SIZE};
use crate::error::{DiskProblem, Error};
use crate::negotiate::accepts_html;
use crate::path;
use crate::precondition::Validators;
use crate::respond::{self, HeaderValues, PrebuiltHeaders, Representation, Slices};

/// The default `Cache-Control`: caches may store every response but must revalidate it
/// before each reuse, which costs a 304 with the precomputed ETag. Safe for URLs whose
/// content changes between deploys; see [`ServeAssets::cache_control_for`] for
/// fingerprinted ones.
pub const DEFAULT_CACHE_CONTROL: &str = "no-cache";

/// `Cache-Control` at fingerprinted URLs: a year, and `immutable` (RFC 8246), since
/// the URL changes whenever the bytes do.
pub const FINGERPRINTED_CACHE_CONTROL: &str = "public, max-age=31536000, immutable";

/// Bytes escaped in a redirect's path segment (RFC 3986 §3.3 `pchar` keeps the rest).
const SEGMENT: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'/')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'\\')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');

/// Bytes escaped in a redirect's query (RFC 3986 §3.4); not `%`, so the client's own
/// escapes pass through unchanged. Non-ASCII bytes are always escaped.
const QUERY: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'<')
    .add(b'>')
    .add(b'\\')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');

/// Serves an [`Assets`] table over HTTP: a `Clone + Send + Sync` tower `Service`
/// (with the default `axum` feature) and a plain [`respond`](Self::respond) method.
///
/// Made by [`Assets::service`]; each option returns the changed service:
///
/// ```
/// # use embed_runtime::{embed_assets, Assets};
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
///   serves its asset with [`FINGERPRINTED_CACHE_CONTROL`]: its bytes can never change.
/// - Methods other than GET and HEAD on an existing asset get 405 with `Allow`.
/// - Otherwise: content negotiation, preconditions (304/412), `ETag`, `Last-Modified`,
///   `Cache-Control`, `Vary`, as RFC 9110 specifies.
#[derive(Clone)]
pub struct ServeAssets {
    assets: &'static Assets,
    config: Arc<Config>,
}

#[derive(Clone)]
struct Config {
    index_file: Option<String>,
    default_cache_control: HeaderValue,
    /// `Cache-Control` at fingerprinted URLs.
    fingerprinted_cache_control: HeaderValue,
    /// `(path prefix, value)`, applied longest prefix first.
    cache_rules: Vec<(String, HeaderValue)>,
    not_found_page: Option<&'static Asset>,
    /// Index of the page sent for unknown page-like paths (single-page apps).
    spa_fallback: Option<usize>,
    clean_urls: bool,
    /// Dev mode: embedded assets are re-read from this folder on every request.
    dev_folder: Option<PathBuf>,
    /// Where on-disk assets are read from; `None` if the table has none.
    disk_root: Option<PathBuf>,
    chunk_size: usize,
    // Derived from the above by `Config::derive`, so a request only looks up.
    /// `Cache-Control` per asset, by index in the table.
    cache_control: Vec<HeaderValue>,
    /// Finished 200/304 header maps per embedded asset and stored variant.
    prebuilt: Vec<Vec<PrebuiltHeaders>>,
    /// The same at the fingerprinted URL, for assets that have one (else empty).
    prebuilt_fingerprinted: Vec<Vec<PrebuiltHeaders>>,
    /// `/dir/` → index of `/dir/index.html`.
    directories: HashMap<&'static str, usize>,
    /// `/dir` → `dir`, for the redirect to `dir/`.
    bare_directories: HashMap<&'static str, &'static str>,
    /// `/about` → index of `/about.html`, with clean URLs on.
    clean: HashMap<&'static str, usize>,
}

impl Assets {
    /// A service answering requests for these assets, with default options: index file
    /// `index.html`, `Cache-Control: no-cache`, a plain-text 404.
    pub fn service(&'static self) -> ServeAssets {
        let mut config = Config {
            index_file: Some("index.html".to_owned()),
            default_cache_control: HeaderValue::from_static(DEFAULT_CACHE_CONTROL),
            fingerprinted_cache_control: HeaderValue::from_static(FINGERPRINTED_CACHE_CONTROL),
            cache_rules: Vec::new(),
            not_found_page: None,
            spa_fallback: None,
            clean_urls: false,
            dev_folder: None,
            disk_root: self.build_root().map(PathBuf::from),
            chunk_size: DEFAULT_CHUNK_SIZE,
            cache_control: Vec::new(),
            prebuilt: Vec::new(),
            prebuilt_fingerprinted: Vec::new(),
            directories: HashMap::new(),
            bare_directories: HashMap::new(),
            clean: HashMap::new(),
        };
        config.derive(self);
        ServeAssets {
            assets: self,
            config: Arc::new(config),
        }
    }
}

impl Config {
    fn derive(&mut self, assets: &'static Assets) {
        let mut rules: Vec<&(String, HeaderValue)> = self.cache_rules.iter().collect();
        rules.sort_by_key(|(prefix, _)| std::cmp::Reverse(prefix.len()));
        self.cache_control = assets
            .iter()
            .map(|asset| {
                rules
                    .iter()
                    .find(|(prefix, _)| asset.path().starts_with(prefix.as_str()))
                    .map_or(&self.default_cache_control, |(_, value)| value)
                    .clone()
            })
            .collect();
        let prebuild = |asset: &'static Asset, cache_control: &HeaderValue| {
            asset
                .variants()
                .map(|variant| {
                    PrebuiltHeaders::new(&Representation::embedded(asset, variant), cache_control)
                })
                .collect::<Vec<_>>()
        };
        self.prebuilt = assets
            .iter()
            .zip(&self.cache_control)
            .map(|(asset, cache_control)| {
                if asset.is_embedded() {
                    prebuild(asset, cache_control)
                } else {
                    Vec::new()
                }
            })
            .collect();
        self.prebuilt_fingerprinted = assets
            .iter()
            .map(|asset| match asset.fingerprinted_path() {
                Some(_) => prebuild(asset, &self.fingerprinted_cache_control),
                None => Vec::new(),
            })
            .collect();
        self.directories.clear();
        self.bare_directories.clear();
        self.clean.clear();
        if self.clean_urls {
            for (i, asset) in assets.iter().enumerate() {
                if let Some(bare) = asset.path().strip_suffix(".html") {
                    if !bare.ends_with('/') {
                        self.clean.insert(bare, i);
                    }
                }
            }
        }
        let Some(index_file) = &self.index_file else {
            return;
        };
        for (i, asset) in assets.iter().enumerate() {
            let path = asset.path();
            let Some(dir) = path.strip_suffix(index_file.as_str()) else {
                continue;
            };
            if !dir.ends_with('/') {
                continue; // `/notindex.html`
            }
            self.directories.insert(dir, i);
            let bare = &dir[..dir.len() - 1];
            if let Some(slash) = bare.rfind('/') {
                let segment = &bare[slash + 1..];
                if !segment.is_empty() {
                    self.bare_directories.insert(bare, segment);
                }
            }
        }
    }
}

impl ServeAssets {
    fn configure(mut self, change: impl FnOnce(&mut Config)) -> Self {
        let config = Arc::make_mut(&mut self.config);
        change(config);
        config.derive(self.assets);
        self
    }

    /// The file served for a directory path ending in `/` (default `index.html`); a
    /// directory path without the slash is redirected to it.
    ///
    /// # Panics
    /// If `name` is empty or contains `/`: it is a file name, not a path.
    pub fn index_file(self, name: &str) -> Self {
        assert!(
            !name.is_empty() && !name.contains('/'),
            "index_file takes a file name such as \"index.html\", got {name:?}"
        );
        let name = name.to_owned();
        self.configure(|config| config.index_file = Some(name))
    }

    /// Serves no index files and makes no directory redirects.
    pub fn without_index(self) -> Self {
        self.configure(|config| config.index_file = None)
    }

    /// The `Cache-Control` of every asset not matched by
    /// [`cache_control_for`](Self::cache_control_for); default
    /// [`DEFAULT_CACHE_CONTROL`].
    pub fn cache_control(self, value: HeaderValue) -> Self {
        self.configure(|config| config.default_cache_control = value)
    }

    /// The `Cache-Control` of responses at fingerprinted URLs (the macro's
    /// `fingerprint` option); default [`FINGERPRINTED_CACHE_CONTROL`]. In
    /// [dev mode](Self::dev_folder) they get the asset's usual policy instead, since
    /// the file behind them can change.
    pub fn fingerprinted_cache_control(self, value: HeaderValue) -> Self {
        self.configure(|config| config.fingerprinted_cache_control = value)
    }

    /// The `Cache-Control` of assets whose path starts with `prefix` (e.g. `/assets/`
    /// for fingerprinted files: `public, max-age=31536000, immutable`). The longest
    /// matching prefix wins.
    pub fn cache_control_for(self, prefix: &str, value: HeaderValue) -> Self {
        let prefix = prefix.to_owned();
        self.configure(|config| {
            config.cache_rules.retain(|(p, _)| *p != prefix);
            config.cache_rules.push((prefix, value));
        })
    }

    /// Answers unknown paths with this asset's bytes and status 404 (instead of a
    /// plain-text 404). The page is negotiated like any asset but carries no
    /// validators, so a cache never turns it into a 304.
    ///
    /// # Panics
    /// If `path` is not an embedded asset of this table: a typo should fail at
    /// start-up, not turn every 404 into a different error.
    #[allow(clippy::panic)] // a configuration mistake, documented above
    pub fn not_found_page(self, path: &str) -> Self {
        let page = self.assets.get(path).filter(|page| page.is_embedded());
        let Some(page) = page else {
            panic!("not_found_page: {path:?} is not an embedded asset");
        };
        self.configure(|config| config.not_found_page = Some(page))
    }

    /// Serves this page, with status 200 and `Cache-Control: no-cache`, for unknown
    /// paths that look like pages of a single-page app: GET or HEAD, `Accept` listing
    /// `text/html` (a browser navigating), and no file extension in the last segment.
    /// Other unknown paths (`/app.js`, an `<img>`, `fetch()`) still get 404, so a
    /// missing asset is never answered with HTML. Responses that depend on this carry
    /// `Vary: Accept`. Separate from [`not_found_page`](Self::not_found_page).
    ///
    /// # Panics
    /// If `path` is not an embedded asset of this table.
    #[allow(clippy::panic)] // a configuration mistake, documented above
    pub fn spa_fallback(self, path: &str) -> Self {
        let index = self
            .assets
            .index_of(path)
            .filter(|&i| self.assets.files()[i].is_embedded());
        let Some(index) = index else {
            panic!("spa_fallback: {path:?} is not an embedded asset");
        };
        self.configure(|config| config.spa_fallback = Some(index))
    }

    /// Serves `/about.html` at `/about` too (clean URLs). The `.html` URL keeps working.
    pub fn clean_urls(self) -> Self {
        self.configure(|config| config.clean_urls = true)
    }

    /// Dev mode: answer every embedded asset from this folder instead, re-read on each
    /// request, so CSS/JS edits show on a browser refresh without recompiling. Usually
    /// the folder the macro embeds:
    /// `.dev_folder(concat!(env!("CARGO_MANIFEST_DIR"), "/public"))`.
    ///
    /// The same header, precondition and range code runs; the ETag is computed from
    /// the current bytes (equal to the build's while the file is unchanged); bodies go
    /// out uncompressed. A file (or the whole folder) that is missing falls back to the
    /// embedded bytes. Only assets the macro listed are served: files added since the
    /// build need a rebuild. It is an explicit option, never tied to debug builds:
    /// enable it from your own flag or environment variable.
    pub fn dev_folder(self, folder: impl Into<PathBuf>) -> Self {
        let folder = folder.into();
        self.configure(|config| config.dev_folder = Some(folder))
    }

    /// The folder on-disk assets (files over `max_embed_size`) are read from. The
    /// default is the absolute folder the macro read at build time, so `cargo run`
    /// works as is; a deployment that ships the binary and its media folder elsewhere
    /// sets this (and calls [`check_disk`](Self::check_disk) at start-up).
    pub fn disk_root(self, root: impl Into<PathBuf>) -> Self {
        let root = root.into();
        self.configure(|config| config.disk_root = Some(root))
    }

    /// How many bytes of an on-disk asset are read at a time (default
    /// [`DEFAULT_CHUNK_SIZE`], 1 MiB); memory per download is about one chunk.
    /// Values under 4 KiB are raised to 4 KiB.
    pub fn chunk_size(self, bytes: usize) -> Self {
        self.configure(|config| config.chunk_size = bytes.max(4096))
    }

    /// Checks that every on-disk asset exists under the [disk root](Self::disk_root)
    /// as a readable file, so a deployment fails at start-up instead of answering 404
    /// later.
    ///
    /// # Errors
    /// [`Error::Disk`] listing every asset that is missing, not a file, or unreadable.
    pub fn check_disk(&self) -> Result<(), Error> {
        let problems: Vec<DiskProblem> = self
            .assets
            .iter()
            .filter_map(|asset| {
                let relative = asset.disk_path()?;
                let path = self.disk_path(relative);
                let result = match &path {
                    Some(path) => disk::check(path),
                    None => Err(io::Error::new(
                        io::ErrorKind::NotFound,
                        "no disk root is set",
                    )),
                };
                result.err().map(|source| DiskProblem {
                    path: path.unwrap_or_else(|| PathBuf::from(relative)),
                    asset: asset.path(),
                    source,
                })
            })
            .collect();
        if problems.is_empty() {
            Ok(())
        } else {
            Err(Error::Disk(problems))
        }
    }

    fn disk_path(&self, relative: &str) -> Option<PathBuf> {
        // NOTE: `relative` comes from the macro's table (`/`-separated, no `..`), never
        // from the request, so it cannot leave the root.
        self.config
            .disk_root
            .as_ref()
            .map(|root| root.join(relative))
    }

    /// The assets this service answers for.
    pub fn assets(&self) -> &'static Assets {
        self.assets
    }

    /// Answers one request: ready at once for embedded assets, after reading from
    /// disk for on-disk ones. Never fails and never panics: every outcome, 404 and 405
    /// included, is a response. Only the head of the request is read.
    pub fn respond<B>(&self, request: &Request<B>) -> ResponseFuture {
        let head = RequestHead::from_request(request);
        match mount_path(request) {
            Some(mount) => self.respond_head(head.at_bare_mount(mount)),
            None => self.respond_head(head),
        }
    }

    /// Answers one request given as its head: the entry point of the framework
    /// adapters, and of any server that does not speak `http::Request`.
    pub fn respond_head(&self, head: RequestHead<'_>) -> ResponseFuture {
        let RequestHead {
            method,
            path,
            query,
            headers,
            ..
        } = head;
        if !head.has_valid_host() {
            return ResponseFuture::ready(respond::status_only(StatusCode::BAD_REQUEST));
        }
        let config = &*self.config;
        let (index, fingerprinted, fallback) = match self
            .route(method, path, query, headers, head.mount)
        {
            Route::Asset(index) => (index, false, false),
            // In dev mode the file behind a hashed URL can change: no immutable policy.
            Route::Fingerprinted(index) => (index, config.dev_folder.is_none(), false),
            Route::Fallback(index) => (index, false, true),
            Route::Redirect(location) => return ResponseFuture::ready(respond::redirect(location)),
            Route::MethodNotAllowed => return ResponseFuture::ready(respond::method_not_allowed()),
            Route::NotFound => {
                let mut response = respond::not_found(config.not_found_page, method, headers);
                if config.spa_fallback.is_some() {
                    // Whether an unknown path gets the app or a 404 depends on Accept.
                    respond::add_vary_accept(response.headers_mut());
                }
                return ResponseFuture::ready(response);
            }
        };
        let asset = &self.assets.files()[index];
        let cache_control = if fallback {
            &respond::NO_CACHE
        } else if fingerprinted {
            &config.fingerprinted_cache_control
        } else {
            &config.cache_control[index]
        };
        if asset.is_embedded() {
            if let Some(folder) = &config.dev_folder {
                let request = DevRequest {
                    asset,
                    path: folder.join(asset.path().trim_start_matches('/')),
                    method: method.clone(),
                    headers: headers.clone(),
                    cache_control: cache_control.clone(),
                    fallback,
                };
                return ResponseFuture {
                    inner: FutureInner::Disk(Box::pin(request.respond())),
                };
            }
            // The SPA page goes out with its own `no-cache`, not the asset's prebuilt maps.
            let prebuilt = match (fallback, fingerprinted) {
                (true, _) => None,
                (false, true) => Some(config.prebuilt_fingerprinted[index].as_slice()),
                (false, false) => Some(config.prebuilt[index].as_slice()),
            };
            let response =
                respond_embedded(asset, prebuilt, method, headers, cache_control, fallback);
            return ResponseFuture::ready(response);
        }
        let Some(path) = asset
            .disk_path()
            .and_then(|relative| self.disk_path(relative))
        else {
            return ResponseFuture::ready(respond::not_found(
                config.not_found_page,
                method,
                headers,
            ));
        };
        let request = DiskRequest {
            asset,
            path,
            method: method.clone(),
            headers: headers.clone(),
            cache_control: cache_control.clone(),
            chunk_size: config.chunk_size,
            not_found_page: config.not_found_page,
        };
        ResponseFuture {
            inner: FutureInner::Disk(Box::pin(request.respond())),
        }
    }

    fn route(
        &self,
        method: &Method,
        raw: &str,
        query: Option<&str>,
        headers: &HeaderMap,
        mount: Option<&str>,
    ) -> Route {
        let config = &*self.config;
        // A path without escapes that is a key of the table is safe by construction
        // (the table is the security model, see `path`): skip the checks.
        let found = |(index, fingerprinted)| {
            if !is_get_or_head(method) {
                Route::MethodNotAllowed
            } else if fingerprinted {
                Route::Fingerprinted(index)
            } else {
                Route::Asset(index)
            }
        };
        if !raw.contains('%') {
            if let Some(hit) = self.assets.lookup(raw) {
                return found(hit);
            }
        }
        let Some(path) = path::decode(raw) else {
            return Route::NotFound;
        };
        if let Some(hit) = self.assets.lookup(&path) {
            return found(hit);
        }
        let route = if let Some(&index) = config.directories.get(&*path) {
            match mount.filter(|_| &*path == "/") {
                // Mounted with `nest_service("/static", ..)`, `/static` arrives as `/`:
                // redirect to `static/` so the page's relative links resolve.
                Some(mount) => redirect_to_directory(mount, query),
                None => Route::Asset(index),
            }
        } else if let Some(segment) = config.bare_directories.get(&*path) {
            redirect_to_directory(segment, query)
        } else if let Some(&index) = config.clean.get(&*path) {
            Route::Asset(index)
        } else {
            return match config.spa_fallback {
                Some(index)
                    if is_get_or_head(method) && is_page_like(&path) && accepts_html(headers) =>
                {
                    Route::Fallback(index)
                }
                _ => Route::NotFound,
            };
        };
        if is_get_or_head(method) {
            route
        } else {
            Route::MethodNotAllowed
        }
    }
}

fn redirect_to_directory(segment: &str, query: Option<&str>) -> Route {
    match directory_location(segment, query) {
        Some(location) => Route::Redirect(location),
        None => Route::NotFound,
    }
}

/// No extension in the last segment: `/settings/profile`, not `/app.js`.
fn is_page_like(path: &str) -> bool {
    !path.rsplit('/').next().unwrap_or_default().contains('.')
}

/// The last segment of the mount point when this service is nested and the request
/// named the mount point without its slash (`/static` for `nest_service("/static")`).
#[cfg(feature = "axum")]
fn mount_path<B>(request: &Request<B>) -> Option<&str> {
    let original = request
        .extensions()
        .get::<axum::extract::OriginalUri>()?
        .0
        .path();
    if original.ends_with('/') || original == request.uri().path() {
        return None;
    }
    original
        .rsplit('/')
        .next()
        .filter(|segment| !segment.is_empty())
}

#[cfg(not(feature = "axum"))]
fn mount_path<B>(_request: &Request<B>) -> Option<&str> {
    None
}

/// An embedded asset's response: the stored variant the request negotiates.
fn respond_embedded(
    asset: &'static Asset,
    prebuilt: Option<&[PrebuiltHeaders]>,
    method: &Method,
    headers: &HeaderMap,
    cache_control: &HeaderValue,
    fallback: bool,
) -> Response<Body> {
    let variant = respond::select_variant(asset, headers);
    let prebuilt = prebuilt.and_then(|all| all.iter().find(|p| p.encoding == variant.encoding()));
    let rep = match prebuilt {
        Some(prebuilt) => prebuilt.representation(asset, variant),
        None => Representation::embedded(asset, variant),
    };
    // Asked for only when a body is sent: a `compressed_only` asset's identity bytes
    // are decoded on first use, never for a HEAD or a 304.
    let mut response = respond::respond(&rep, method, headers, cache_control, prebuilt, |slices| {
        respond::memory_body(Bytes::from_static(variant.body()), slices)
    });
    if fallback {
        respond::add_vary_accept(response.headers_mut());
    }
    response
}

enum Route {
    Asset(usize),
    /// An asset at its fingerprinted URL.
    Fingerprinted(usize),
    /// The single-page app's page for an unknown page-like path.
    Fallback(usize),
    Redirect(HeaderValue),
    MethodNotAllowed,
    NotFound,
}

/// An embedded asset answered from the dev folder: re-read on every request, so edits
/// show on refresh; identity only (nothing is compressed at run time); the embedded
/// bytes when the file is missing.
struct DevRequest {
    asset: &'static Asset,
    path: PathBuf,
    method: Method,
    headers: HeaderMap,
    cache_control: HeaderValue,
    fallback: bool,
}

impl DevRequest {
    async fn respond(self) -> Response<Body> {
        let Ok((bytes, identity)) = disk::read_whole(self.path).await else {
            return respond_embedded(
                self.asset,
                None,
                &self.method,
                &self.headers,
                &self.cache_control,
                self.fallback,
            );
        };
        // The same ETag the macro would compute for these bytes.
        let etag = content_etag(&bytes);
        let Some(rep) = file_representation(self.asset, &etag, identity, bytes.len() as u64) else {
            return respond::status_only(StatusCode::INTERNAL_SERVER_ERROR);
        };
        let mut response = respond::respond(
            &rep,
            &self.method,
            &self.headers,
            &self.cache_control,
            None,
            |slices| respond::memory_body(bytes.clone(), slices),
        );
        // The answer no longer depends on Accept-Encoding: identity only.
        response.headers_mut().remove(http::header::VARY);
        if self.fallback {
            respond::add_vary_accept(response.headers_mut());
        }
        response
    }
}

/// The identity representation of a file read at run time (on-disk assets, the dev
/// folder): `etag` for validators, `Last-Modified` from the file's time. `None` only if
/// a value cannot be a header, which our formats rule out.
fn file_representation<'a>(
    asset: &'a Asset,
    etag: &'a str,
    identity: disk::FileIdentity,
    len: u64,
) -> Option<Representation<'a>> {
    let last_modified = httpdate::fmt_http_date(identity.modified);
    Some(Representation {
        asset,
        encoding: Encoding::Identity,
        validators: Validators {
            etag,
            modified: identity.modified_secs(),
        },
        len,
        values: HeaderValues {
            etag: HeaderValue::try_from(etag).ok()?,
            last_modified: HeaderValue::try_from(last_modified).ok()?,
            content_type: HeaderValue::from_static(asset.content_type()),
            content_length: HeaderValue::from(len),
        },
    })
}

/// NOTE: the macro's ETag format (`encode::etag`): a quoted hex of the first 128 bits
/// of the content's sha256, so an unchanged file keeps its build-time ETag.
fn content_etag(bytes: &[u8]) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(bytes);
    let hex: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
    format!("\"{hex}\"")
}

/// What a response from disk needs, owned, so the future is `'static`.
struct DiskRequest {
    asset: &'static Asset,
    path: PathBuf,
    method: Method,
    headers: HeaderMap,
    cache_control: HeaderValue,
    chunk_size: usize,
    not_found_page: Option<&'static Asset>,
}

impl DiskRequest {
    async fn respond(self) -> Response<Body> {
        let opened = match disk::open(self.path).await {
            Ok(opened) => opened,
            // Deleted or replaced by a folder since start-up: as if never listed.
            Err(err) if err.kind() == io::ErrorKind::NotFound => {
                return respond::not_found(self.not_found_page, &self.method, &self.headers)
            }
            Err(err) if err.kind() == io::ErrorKind::PermissionDenied => {
                return respond::status_only(StatusCode::FORBIDDEN)
            }
            Err(_) => return respond::status_only(StatusCode::INTERNAL_SERVER_ERROR),
        };
        // Validators from the open file, not the build: a file changed since then
        // gets a new ETag and Last-Modified.
        let identity = opened.identity;
        let etag = identity.etag();
        let Some(rep) = file_representation(self.asset, &etag, identity, identity.len) else {
            return respond::status_only(StatusCode::INTERNAL_SERVER_ERROR);
        };
        let chunk_size = self.chunk_size;
        respond::respond(
            &rep,
            &self.method,
            &self.headers,
            &self.cache_control,
            None,
            |slices| {
                let segments = match slices {
                    Slices::Whole if identity.len == 0 => return Body::empty(),
                    Slices::Whole => [Segment::File(crate::range::ByteRange {
                        start: 0,
                        end: identity.len - 1,
                    })]
                    .into(),
                    Slices::One(range) => [Segment::File(range)].into(),
                    Slices::Multipart(segments) => segments,
                };
                Body::from_disk(DiskBody::new(opened, segments, chunk_size))
            },
        )
    }
}

/// The response to one request, from [`ServeAssets::respond`]: ready at once for
/// embedded assets (no allocation), a boxed future for on-disk ones.
#[must_use = "futures do nothing unless polled"]
pub struct ResponseFuture {
    inner: FutureInner,
}

enum FutureInner {
    Ready(Option<Response<Body>>),
    Disk(Pin<Box<dyn Future<Output = Response<Body>> + Send>>),
}

impl ResponseFuture {
    fn ready(response: Response<Body>) -> Self {
        ResponseFuture {
            inner: FutureInner::Ready(Some(response)),
        }
    }
}

impl Future for ResponseFuture {
    type Output = Response<Body>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Response<Body>> {
        match &mut self.get_mut().inner {
            FutureInner::Ready(response) => match response.take() {
                Some(response) => Poll::Ready(response),
                // Polled after completion: a contract violation; answer, don't panic.
                None => Poll::Ready(respond::status_only(StatusCode::INTERNAL_SERVER_ERROR)),
            },
            FutureInner::Disk(future) => future.as_mut().poll(cx),
        }
    }
}

impl fmt::Debug for ResponseFuture {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.inner {
            FutureInner::Ready(_) => "ready",
            FutureInner::Disk(_) => "disk",
        };
        f.debug_struct("ResponseFuture")
            .field("kind", &kind)
            .finish()
    }
}

fn is_get_or_head(method: &Method) -> bool {
    method == Method::GET || method == Method::HEAD
}

/// `./dir/?query`: relative to the request's own URL, so it is right under any mount
/// prefix (`nest_service`) and can never name another host, whatever the path held.
fn directory_location(segment: &str, query: Option<&str>) -> Option<HeaderValue> {
    let mut location = format!("./{}/", utf8_percent_encode(segment, SEGMENT));
    if let Some(query) = query {
        location.push('?');
        // `http::Uri` lets raw UTF-8 into a query: escape it, a Location is a URI.
        location.extend(utf8_percent_encode(query, QUERY));
    }
    HeaderValue::try_from(location).ok()
}

impl fmt::Debug for ServeAssets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let config = &*self.config;
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
            .field("clean_urls", &config.clean_urls)
            .field("dev_folder", &config.dev_folder)
            .field("disk_root", &config.disk_root)
            .field("chunk_size", &config.chunk_size)
            .finish()
    }
}

#[cfg(feature = "tower")]
mod tower {
    use std::convert::Infallible;
    use std::future::Future;
    use std::pin::Pin;
    use std::task::{Context, Poll};

    use http::{Request, Response};

    use super::{ResponseFuture, ServeAssets};
    use crate::body::Body;

    /// Ready at once and never fails: usable as axum's `fallback_service` and
    /// `nest_service`, or with hyper-util's `TowerToHyperService`.
    impl<B> tower_service::Service<Request<B>> for ServeAssets {
        type Response = Response<Body>;
        type Error = Infallible;
        type Future = ServiceFuture;

        fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
            Poll::Ready(Ok(()))
        }

        fn call(&mut self, request: Request<B>) -> ServiceFuture {
            ServiceFuture(self.respond(&request))
        }
    }

    /// [`ResponseFuture`] as a tower service's infallible result.
    #[derive(Debug)]
    #[must_use = "futures do nothing unless polled"]
    pub struct ServiceFuture(ResponseFuture);

    impl Future for ServiceFuture {
        type Output = Result<Response<Body>, Infallible>;

        fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
            Pin::new(&mut self.0).poll(cx).map(Ok)
        }
    }
}

#[cfg(feature = "tower")]
pub use self::tower::ServiceFuture;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directory_locations_stay_relative_and_escaped() {
        let location = |segment, query| directory_location(segment, query).unwrap();
        assert_eq!(location("docs", None), "./docs/");
        assert_eq!(location("docs", Some("a=1")), "./docs/?a=1");
        assert_eq!(location("my dir", None), "./my%20dir/");
        assert_eq!(location("café", None), "./caf%C3%A9/");
        assert_eq!(location("docs", Some("q=café")), "./docs/?q=caf%C3%A9");
        assert_eq!(location("docs", Some("q=%2F/x?y")), "./docs/?q=%2F/x?y");
        // A colon in the first segment would read as a scheme without the `./`.
        assert_eq!(
            location("javascript:alert(1)", None),
            "./javascript:alert(1)/"
        );
    }
}

/// RFC 3986 §3.2: the bytes an `authority` without userinfo can hold (`reg-name` or an
/// IP literal, then `:port`). Checked byte by byte, with no allocation, on every request.
fn is_authority(host: &[u8]) -> bool {
    host.iter()
        .all(|&b| b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=%:[]".contains(&b))
}

/// The parts of a request that [`ServeAssets`] reads: method, target, version and
/// header fields. The body is never read.
///
/// Servers that speak `http::Request` use [`ServeAssets::respond`]; a framework
/// adapter builds a `RequestHead` from its own request type and calls
/// [`ServeAssets::respond_head`].
///
/// ```
/// # use embed_runtime::{embed_assets, Assets, RequestHead};
/// # use http::{HeaderMap, HeaderValue, Method, StatusCode, Version};
/// # static ASSETS: Assets = embed_assets!("../examples/public");
/// let mut headers = HeaderMap::new();
/// headers.insert(http::header::HOST, HeaderValue::from_static("example.com"));
/// let head = RequestHead::new(&Method::GET, "/css/app.css", None, Version::HTTP_11, &headers);
/// let service = ASSETS.service();
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let response = service.respond_head(head).await;
/// assert_eq!(response.status(), StatusCode::OK);
/// # });
/// ```
#[derive(Debug, Clone, Copy)]
pub struct RequestHead<'a> {
    method: &'a Method,
    path: &'a str,
    query: Option<&'a str>,
    version: Version,
    headers: &'a HeaderMap,
    mount: Option<&'a str>,
    /// The target was in absolute form (or HTTP/2's `:authority`): it names the host.
    has_authority: bool,
}

impl<'a> RequestHead<'a> {
    /// A request for `path` (as sent, still percent-encoded, starting with `/`)
    /// relative to where the service is mounted, with the query without its `?`.
    pub fn new(
        method: &'a Method,
        path: &'a str,
        query: Option<&'a str>,
        version: Version,
        headers: &'a HeaderMap,
    ) -> Self {
        RequestHead {
            method,
            path,
            query,
            version,
            headers,
            mount: None,
            has_authority: false,
        }
    }

    /// The head of an `http::Request`, its path taken as relative to the service.
    pub fn from_request<B>(request: &'a Request<B>) -> Self {
        let uri = request.uri();
        let mut head = Self::new(
            request.method(),
            uri.path(),
            uri.query(),
            request.version(),
            request.headers(),
        );
        head.has_authority = uri.authority().is_some();
        head
    }

    /// The same request with `path` (as sent, still percent-encoded, starting with `/`)
    /// as its path relative to the service: what is left once a framework has matched
    /// the mount point.
    pub fn with_path(mut self, path: &'a str) -> Self {
        self.path = path;
        self
    }

    /// Marks a request that named the mount point itself without its trailing slash
    /// (`/static` for a service mounted at `/static`): it is then redirected to
    /// `./static/`, so the relative links of the index page resolve. `mount_point`
    /// is the mount path (`/static`) or its last segment; the request's own path is
    /// then `/`.
    pub fn at_bare_mount(mut self, mount_point: &'a str) -> Self {
        self.mount = mount_point
            .trim_end_matches('/')
            .rsplit('/')
            .next()
            .filter(|segment| !segment.is_empty());
        self
    }

    /// RFC 9112 §3.2: a request with more than one `Host` field line or an invalid one,
    /// or an HTTP/1.1 request with none, is answered with 400. A target in absolute
    /// form names the host itself (§3.2.2), as HTTP/2's `:authority` does; HTTP/1.0
    /// predates `Host`.
    fn has_valid_host(&self) -> bool {
        let mut hosts = self.headers.get_all(http::header::HOST).iter();
        match (hosts.next(), hosts.next()) {
            (Some(_), Some(_)) => false,
            (Some(host), None) => is_authority(host.as_bytes()),
            (None, _) => self.has_authority || self.version != Version::HTTP_11,
        }
    }
}
