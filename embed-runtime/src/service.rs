//! [`ServeAssets`]: routing (index files, directory redirects, 404 page), the
//! Cache-Control policy, and the tower `Service` impl. No RFC logic lives here.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use http::{HeaderMap, HeaderValue, Method, Request, Response};
use percent_encoding::{utf8_percent_encode, AsciiSet, CONTROLS};

use crate::asset::{Asset, Assets};
use crate::body::Body;
use crate::{path, respond};

/// The default `Cache-Control`: caches may store every response but must revalidate it
/// before each reuse, which costs a 304 with the precomputed ETag. Safe for URLs whose
/// content changes between deploys; see [`ServeAssets::cache_control_for`] for
/// fingerprinted ones.
pub const DEFAULT_CACHE_CONTROL: &str = "no-cache";

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
///   redirects to `dir/` with 301 when that index exists.
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
    /// `(path prefix, value)`, applied longest prefix first.
    cache_rules: Vec<(String, HeaderValue)>,
    not_found_page: Option<&'static Asset>,
    // Derived from the above by `Config::derive`, so a request only looks up.
    /// `Cache-Control` per asset, by index in the table.
    cache_control: Vec<HeaderValue>,
    /// `/dir/` → index of `/dir/index.html`.
    directories: HashMap<&'static str, usize>,
    /// `/dir` → `dir`, for the redirect to `dir/`.
    bare_directories: HashMap<&'static str, &'static str>,
}

impl Assets {
    /// A service answering requests for these assets, with default options: index file
    /// `index.html`, `Cache-Control: no-cache`, a plain-text 404.
    pub fn service(&'static self) -> ServeAssets {
        let mut config = Config {
            index_file: Some("index.html".to_owned()),
            default_cache_control: HeaderValue::from_static(DEFAULT_CACHE_CONTROL),
            cache_rules: Vec::new(),
            not_found_page: None,
            cache_control: Vec::new(),
            directories: HashMap::new(),
            bare_directories: HashMap::new(),
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
        self.directories.clear();
        self.bare_directories.clear();
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

    /// The assets this service answers for.
    pub fn assets(&self) -> &'static Assets {
        self.assets
    }

    /// Answers one request. Never fails and never panics: every outcome, 404 and 405
    /// included, is a response. Only the head of the request is read.
    pub fn respond<B>(&self, request: &Request<B>) -> Response<Body> {
        self.respond_parts(request.method(), request.uri(), request.headers())
    }

    fn respond_parts(
        &self,
        method: &Method,
        uri: &http::Uri,
        headers: &HeaderMap,
    ) -> Response<Body> {
        let config = &*self.config;
        let not_found = || respond::not_found(config.not_found_page, method, headers);
        let Some(path) = path::decode(uri.path()) else {
            return not_found();
        };
        let index = match self.assets.index_of(&path) {
            Some(index) => index,
            None => match config.directories.get(&*path) {
                Some(&index) => index,
                None => {
                    let Some(segment) = config.bare_directories.get(&*path) else {
                        return not_found();
                    };
                    if !is_get_or_head(method) {
                        return respond::method_not_allowed();
                    }
                    return match directory_location(segment, uri.query()) {
                        Some(location) => respond::redirect(location),
                        None => not_found(),
                    };
                }
            },
        };
        if !is_get_or_head(method) {
            return respond::method_not_allowed();
        }
        let asset = &self.assets.files()[index];
        if !asset.is_embedded() {
            // Files over `max_embed_size` are listed but not yet served.
            return not_found();
        }
        respond::respond_embedded(asset, method, headers, &config.cache_control[index])
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
        location.push_str(query);
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
            .finish()
    }
}

#[cfg(feature = "axum")]
mod tower {
    use std::convert::Infallible;
    use std::future::{ready, Ready};
    use std::task::{Context, Poll};

    use http::{Request, Response};

    use super::ServeAssets;
    use crate::body::Body;

    /// Ready at once, never fails: usable as axum's `fallback_service` and
    /// `nest_service`, or with hyper-util's `TowerToHyperService`.
    impl<B> tower_service::Service<Request<B>> for ServeAssets {
        type Response = Response<Body>;
        type Error = Infallible;
        type Future = Ready<Result<Response<Body>, Infallible>>;

        fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
            Poll::Ready(Ok(()))
        }

        fn call(&mut self, request: Request<B>) -> Self::Future {
            ready(Ok(self.respond(&request)))
        }
    }
}

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
        // A colon in the first segment would read as a scheme without the `./`.
        assert_eq!(
            location("javascript:alert(1)", None),
            "./javascript:alert(1)/"
        );
    }
}
