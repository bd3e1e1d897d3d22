//! The site with kept releases that the `dictionary` and `release_lookup` targets
//! serve, and what its documentation says each URL serves, worked out from its folders
//! rather than from the table.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use http::{HeaderMap, HeaderName, HeaderValue, Request};
use percent_encoding::percent_decode_str;
use sha2::{Digest, Sha256};

use super::hashed::hashed_parts;
use super::respond::{collect, ready};
use super::trim_ows;
use embed_assets::{Assets, Body, RequestHead, ServeAssets};

/// Option `spa`: `spa_fallback("/index.html")`.
pub(crate) const SPA: usize = 1;
/// Option `404`: `not_found_page("/404.html")`.
pub(crate) const NOT_FOUND_PAGE: usize = 2;

/// A folder embedded with `fingerprint = true`, `hashed = "assets/*"` and the releases
/// kept in another folder (`releases`), which must hold `index.html` and `404.html`
/// (as `fuzz/releases/public` does). [`release_site!`](crate::release_site) embeds it
/// and makes one.
#[derive(Debug)]
pub struct ReleaseSite {
    pub(crate) assets: &'static Assets,
    /// Plain, `spa`, `404`, both (indexed by the options' bits).
    pub(crate) services: Vec<ServeAssets>,
    /// Every URL path (decoded) the documentation says is served, with the bytes of
    /// the file it names.
    pub(crate) served: HashMap<String, Vec<u8>>,
    /// The URLs of `served` that are content-hashed.
    pub(crate) hashed: Vec<String>,
    /// The SHA-256 of every file of every kept release: the dictionaries a client can
    /// have been sent.
    pub(crate) kept: HashSet<[u8; 32]>,
}

/// `static NAME: LazyLock<ReleaseSite>` over the folder `public` and the kept releases in
/// `releases` (relative to the calling crate, as for `embed_assets!`). The caller
/// depends on `embed-assets`.
#[macro_export]
macro_rules! release_site {
    ($vis:vis static $name:ident = $public:literal, releases = $releases:tt) => {
        $vis static $name: ::std::sync::LazyLock<$crate::ReleaseSite> =
            ::std::sync::LazyLock::new(|| {
                use ::embed_assets::{embed_assets, Assets};
                static SITE: Assets = embed_assets!(
                    $public,
                    fingerprint = true,
                    hashed = "assets/*",
                    releases = $releases
                );
                $crate::ReleaseSite::new(
                    &SITE,
                    concat!(env!("CARGO_MANIFEST_DIR"), "/", $public),
                    concat!(env!("CARGO_MANIFEST_DIR"), "/", $releases),
                )
            });
    };
}

impl ReleaseSite {
    /// The services over `assets`, which embeds `public` with the releases kept in
    /// `releases`, and the URLs the documentation says they serve.
    ///
    /// # Panics
    /// If a folder cannot be read, or the table does not serve what the documentation
    /// says at some URL (a fixture the checks cannot rely on).
    pub fn new(
        assets: &'static Assets,
        public: impl Into<PathBuf>,
        releases: impl Into<PathBuf>,
    ) -> Self {
        let (public, releases) = (public.into(), releases.into());
        let mut site = ReleaseSite {
            assets,
            services: (0..4)
                .map(|options| {
                    let mut service = assets.service();
                    if options & SPA != 0 {
                        service = service.spa_fallback("/index.html");
                    }
                    if options & NOT_FOUND_PAGE != 0 {
                        service = service.not_found_page("/404.html");
                    }
                    service
                })
                .collect(),
            served: HashMap::new(),
            hashed: Vec::new(),
            kept: HashSet::new(),
        };
        // This build: every file at its own path, a folder's `index.html` at the
        // folder, and at a content-hashed URL the files `fingerprint = true` covers
        // (all but pages) and those `hashed` names so already.
        for (relative, bytes) in files_below(&public) {
            if let Some(folder) = relative.strip_suffix("index.html") {
                if folder.is_empty() || folder.ends_with('/') {
                    site.serve(format!("/{folder}"), bytes.clone(), false);
                }
            }
            site.serve_hashed(&relative, bytes.clone());
            site.serve(
                format!("/{relative}"),
                bytes,
                relative.starts_with("assets/"),
            );
        }
        // Earlier releases: only their files at a content-hashed URL.
        for list in std::fs::read_dir(&releases).expect("the releases folder") {
            let list = list.expect("the releases folder").path();
            if list.extension().is_none_or(|ext| ext != "release") {
                continue;
            }
            let text = std::fs::read_to_string(&list).expect("a release list");
            for line in text.lines().skip(1) {
                let Some((hash, path)) = line.split_once(' ').filter(|(hash, _)| hash.len() == 64)
                else {
                    continue;
                };
                let path = percent_decode_str(path).decode_utf8_lossy().into_owned();
                let object = releases.join("objects").join(&hash[..2]).join(&hash[2..]);
                let bytes = std::fs::read(&object).expect("a kept object");
                site.kept.insert(Sha256::digest(&bytes).into());
                if path.starts_with("assets/") {
                    site.serve(format!("/{path}"), bytes, true);
                } else {
                    site.serve_hashed(&path, bytes);
                }
            }
        }
        site.check_table();
        site
    }

    /// At the URL `fingerprint = true` gives the file at `relative`: its name with the
    /// first 8 hex digits of its SHA-256 before the extension (`/js/app.3f2a1b9c.js`,
    /// `/LICENSE.3f2a1b9c`); not for pages or files a bundler hashed.
    fn serve_hashed(&mut self, relative: &str, bytes: Vec<u8>) {
        if relative.ends_with(".html") || relative.starts_with("assets/") {
            return;
        }
        let hash: String = Sha256::digest(&bytes)[..4]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let (folder, name) = relative.rsplit_once('/').unwrap_or(("", relative));
        let folder = if folder.is_empty() {
            String::new()
        } else {
            format!("{folder}/")
        };
        let url = match name.rsplit_once('.') {
            Some((stem, ext)) if !stem.is_empty() => format!("/{folder}{stem}.{hash}.{ext}"),
            _ => format!("/{folder}{name}.{hash}"),
        };
        self.serve(url, bytes, true);
    }

    fn serve(&mut self, url: String, bytes: Vec<u8>, hashed: bool) {
        if let Some(before) = self.served.get(&url) {
            assert!(*before == bytes, "{url} names two files");
            return;
        }
        if hashed {
            assert!(
                hashed_parts(&url).is_some(),
                "{url} reads as no hashed name"
            );
            self.hashed.push(url.clone());
        }
        self.served.insert(url, bytes);
    }

    /// Whether `path` names a version of a file served at a content-hashed URL that
    /// this build does not have: the parts around the hash of one of those URLs, with
    /// another hash.
    pub(crate) fn is_other_version(&self, path: &str) -> bool {
        !self.served.contains_key(path)
            && self.hashed.iter().any(|url| {
                let Some((prefix, suffix)) = hashed_parts(url) else {
                    return false;
                };
                path.len() > prefix.len() + suffix.len()
                    && path.starts_with(prefix)
                    && path.ends_with(suffix)
                    && path.is_char_boundary(prefix.len())
                    && path.is_char_boundary(path.len() - suffix.len())
                    && super::hashed::is_hash_token(&path[prefix.len()..path.len() - suffix.len()])
            })
    }

    /// The table serves what the documentation says at each URL, and its dictionary
    /// bodies are against files of the kept releases.
    fn check_table(&self) {
        for (url, bytes) in &self.served {
            let asset = self
                .assets
                .get(url)
                .or_else(|| self.assets.get(&format!("{url}index.html")))
                .unwrap_or_else(|| panic!("the table has nothing at {url}"));
            let identity = asset.variant(embed_assets::Encoding::Identity).unwrap();
            assert!(identity.body() == &bytes[..], "{url} serves other bytes");
        }
        assert!(
            self.assets.iter().any(|asset| !asset.deltas().is_empty()),
            "no dictionary bodies: the checks would see none"
        );
        for asset in self.assets.iter() {
            for delta in asset.deltas() {
                let named = delta.dictionary().unwrap_or_default();
                let hash = super::dictionary::sf_binary(named.as_bytes())
                    .unwrap_or_else(|| panic!("{} names {named}", asset.path()));
                assert!(hash.canonical && self.kept.contains(&hash.bytes));
                assert_eq!(super::dictionary::framed_hash(delta), Some(hash.bytes));
            }
        }
    }

    /// The table the site's services serve.
    pub fn assets(&self) -> &'static Assets {
        self.assets
    }

    /// The response of the service with `options` to `request`, its body collected.
    pub(crate) fn respond(
        &self,
        options: usize,
        request: &Request<()>,
    ) -> (http::response::Parts, Vec<u8>) {
        let future = self.services[options].respond_head(RequestHead::from_request(request));
        let (parts, body): (_, Body) = ready(future).into_parts();
        (parts, collect(body))
    }
}

/// The `name: value` lines of `data` whose name is one of `names` (in any case), as
/// a header map; other lines, and values that are no valid header value, are dropped.
pub(crate) fn request_fields<'a>(
    data: impl IntoIterator<Item = &'a [u8]>,
    names: &[HeaderName],
) -> HeaderMap {
    let mut headers = HeaderMap::new();
    for line in data {
        let Some(colon) = line.iter().position(|&b| b == b':') else {
            continue;
        };
        let Ok(name) = HeaderName::from_bytes(trim_ows(&line[..colon])) else {
            continue;
        };
        if !names.contains(&name) {
            continue;
        }
        if let Ok(value) = HeaderValue::from_bytes(trim_ows(&line[colon + 1..])) {
            headers.append(name, value);
        }
    }
    headers
}

/// Every file below `dir`, by `/`-separated relative path.
fn files_below(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        let entries = std::fs::read_dir(&folder)
            .unwrap_or_else(|err| panic!("cannot list {}: {err}", folder.display()));
        for entry in entries {
            let path = entry.expect("a folder entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let relative = path.strip_prefix(dir).expect("below the folder");
                let relative = relative
                    .components()
                    .map(|part| part.as_os_str().to_string_lossy())
                    .collect::<Vec<_>>()
                    .join("/");
                found.push((relative, std::fs::read(&path).expect("a fixture file")));
            }
        }
    }
    found.sort();
    found
}
