//! The options of [`ServeAssets`], one builder method each: every method returns the
//! changed service, and the tables derived from the options are built again, once,
//! when the next request needs them.

use std::io;
use std::path::PathBuf;
use std::sync::Arc;

use embed_assets_shared::glob::Glob;
use http::header;
use http::{HeaderName, HeaderValue};

use super::ServeAssets;
use super::options::{DiskFolder, FolderSite, HeaderRule, Options, Source};
use crate::disk;
use crate::error::{DiskProblem, Error};
use crate::table::{Assets, EMPTY};

impl ServeAssets {
    /// The default `Cache-Control`: caches may store every response but must revalidate
    /// it before each reuse, which costs a 304 with the precomputed ETag. Safe for URLs
    /// whose content changes between deploys; see
    /// [`cache_control_for`](Self::cache_control_for) for fingerprinted ones.
    pub const DEFAULT_CACHE_CONTROL: &'static str = "no-cache";

    /// The default `Cache-Control` of an HTML page that is a dictionary for its next
    /// versions (`Use-As-Dictionary`, with the macro's `releases` option): stale at once,
    /// so a navigation revalidates it as under `no-cache` and a changed page shows at
    /// once, but with a freshness lifetime through `stale-while-revalidate` (30 days),
    /// which Chromium requires before it keeps a response as a dictionary (it keeps
    /// none sent `no-cache`, `max-age=0` or `must-revalidate` alone) and which bounds how
    /// long it keeps it. `proxy-revalidate` keeps shared caches (a CDN, a proxy) from
    /// serving the stale page while they revalidate. A page under a
    /// [`cache_control_for`](Self::cache_control_for) rule, or after
    /// [`cache_control`](Self::cache_control), gets that policy instead.
    ///
    /// A browser may serve a page stale while it revalidates in the background where
    /// `stale-while-revalidate` allows it; Chromium does so for subresource requests
    /// (a `fetch` of the page), never for a navigation.
    pub const DICTIONARY_PAGE_CACHE_CONTROL: &'static str =
        "max-age=0, stale-while-revalidate=2592000, proxy-revalidate";

    /// `Cache-Control` at fingerprinted URLs: a year, and `immutable` (RFC 8246), since
    /// the URL changes whenever the bytes do.
    pub const FINGERPRINTED_CACHE_CONTROL: &'static str = "public, max-age=31536000, immutable";

    /// How many bytes of a file over `max_embed_size` are read at a time, unless
    /// [`chunk_size`](Self::chunk_size) says otherwise: 1 MiB.
    pub const DEFAULT_CHUNK_SIZE: usize = disk::DEFAULT_CHUNK_SIZE;

    /// What the downloads of files over `max_embed_size` may hold in full-size chunks
    /// in all, unless [`read_budget`](Self::read_budget) says otherwise: 32 MiB.
    pub const DEFAULT_READ_BUDGET: usize = disk::DEFAULT_BUDGET;

    /// Whether this service was made by [`folder`](Self::folder).
    fn is_folder(&self) -> bool {
        self.config.options.folder_site().is_some()
    }

    /// Sets a page of a service made by [`folder`](Self::folder) (`option` names the
    /// option for the message): `path` must be a URL path below the folder, such as
    /// `example`: starting with `/`, without `.` or `..` segments, backslashes or
    /// control characters (as a request's decoded path must be).
    #[allow(clippy::panic)] // a configuration mistake, documented by each option
    fn folder_page(
        self,
        option: &str,
        path: &str,
        example: &str,
        set: impl FnOnce(&mut FolderSite, String),
    ) -> Self {
        if !crate::path::is_safe(path) || path.ends_with('/') {
            panic!(
                "{option}({path:?}): the URL path of a file in the folder, starting with `/` \
                 and without `.` or `..` segments, such as {example:?}"
            );
        }
        let page = path.to_owned();
        self.configure(|options| {
            if let Source::Folder(_, site) = &mut options.source {
                set(site, page);
            }
        })
    }

    /// What a service made by [`folder`](Self::folder) keeps of its files' bytes in
    /// memory, unless [`cache_size`](Self::cache_size) says otherwise: 64 MiB.
    pub const DEFAULT_CACHE_SIZE: u64 = 64 << 20;

    fn configure(mut self, change: impl FnOnce(&mut Options)) -> Self {
        Arc::make_mut(&mut self.config).change(change);
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
        self.configure(|options| options.index_file = Some(name))
    }

    /// Serves no index files and makes no directory redirects.
    pub fn without_index(self) -> Self {
        self.configure(|options| options.index_file = None)
    }

    /// The `Cache-Control` of every asset not matched by
    /// [`cache_control_for`](Self::cache_control_for); default
    /// [`DEFAULT_CACHE_CONTROL`](Self::DEFAULT_CACHE_CONTROL), and
    /// [`DICTIONARY_PAGE_CACHE_CONTROL`](Self::DICTIONARY_PAGE_CACHE_CONTROL) for a page
    /// that is a dictionary. Setting it sets it for those pages too.
    pub fn cache_control(self, value: HeaderValue) -> Self {
        self.configure(|options| {
            options.default_cache_control = value;
            options.default_cache_control_set = true;
        })
    }

    /// The `Cache-Control` of responses at fingerprinted URLs (the macro's
    /// `fingerprint` option); default
    /// [`FINGERPRINTED_CACHE_CONTROL`](Self::FINGERPRINTED_CACHE_CONTROL). In
    /// [dev mode](Self::dev_folder) they get the asset's usual policy instead, since
    /// the file behind them can change.
    pub fn fingerprinted_cache_control(self, value: HeaderValue) -> Self {
        self.configure(|options| options.fingerprinted_cache_control = value)
    }

    /// The `Cache-Control` of assets whose path starts with `prefix` (e.g. `/assets/`
    /// for fingerprinted files: `public, max-age=31536000, immutable`). The longest
    /// matching prefix wins.
    pub fn cache_control_for(self, prefix: &str, value: HeaderValue) -> Self {
        let prefix = prefix.to_owned();
        self.configure(|options| {
            options.cache_rules.retain(|(p, _)| *p != prefix);
            options.cache_rules.push((prefix, value));
        })
    }

    /// Adds the field `name: value` to every response of the assets whose path matches
    /// `pattern`, a glob: with a `/`, it is matched against the whole path
    /// (`/admin/**`: everything below `/admin/`; `/index.html`), without one against
    /// the file name (`*.wasm`, `robots.txt`). `*` stays within a segment, `**`
    /// crosses them, `{a,b}` and `[…]` work as in the macro's `include`.
    ///
    /// The fields are folded into the header maps built once per service: a request
    /// clones a finished map, whatever the rules. They come on every response about
    /// the asset: 200, 206, 416 and 304 (they are no representation metadata, and a
    /// cache updates its stored copy with the fields of a 304, RFC 9111 §4.3.4), at its
    /// own URL, its fingerprinted URL, as the single-page app's page or the 404 page,
    /// from disk and in dev mode (new files there too, by their path).
    ///
    /// Rules apply in the order given: when several set the same name for a path, the
    /// last one's value is sent (write general rules first, specific ones after). A rule
    /// with the same pattern and name as an earlier one replaces it.
    ///
    /// ```
    /// # use embed_assets::{embed_assets, Assets};
    /// use http::{header, HeaderName, HeaderValue};
    /// # static ASSETS: Assets = embed_assets!("../examples/public");
    ///
    /// let service = ASSETS
    ///     .service()
    ///     .header("/**", header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"))
    ///     .header("*.wasm", HeaderName::from_static("cross-origin-embedder-policy"), HeaderValue::from_static("require-corp"))
    ///     .header("/admin/**", HeaderName::from_static("x-robots-tag"), HeaderValue::from_static("noindex"));
    /// # let _ = service;
    /// ```
    ///
    /// # Panics
    /// If `pattern` is no valid glob, or `name` is a field the service sets itself from
    /// the representation or its options (`Content-Type`, `Content-Length`,
    /// `Content-Encoding`, `Content-Range`, `Accept-Ranges`, `ETag`, `Last-Modified`,
    /// `Vary`, `Use-As-Dictionary`, `Location`, `Allow`; `Cache-Control`, which
    /// [`cache_control_for`](Self::cache_control_for) sets) or a connection's field
    /// (`Connection`, `Transfer-Encoding`, …): a clash would be silent otherwise.
    #[allow(clippy::panic)] // a configuration mistake, documented above
    pub fn header(self, pattern: &str, name: HeaderName, value: HeaderValue) -> Self {
        if let Some(why) = refused_field(&name) {
            panic!("header({pattern:?}, {name}): {why}");
        }
        let matcher = match Glob::with_literal_separator(pattern) {
            Ok(glob) => glob,
            Err(err) => panic!("header({pattern:?}, {name}): not a valid glob: {err}"),
        };
        let rule = HeaderRule {
            matcher,
            whole_path: pattern.contains('/'),
            name,
            value,
        };
        self.configure(|options| {
            options
                .header_rules
                .retain(|r| !(r.matcher.as_str() == pattern && r.name == rule.name));
            options.header_rules.push(rule);
        })
    }

    /// Sends a `Content-Security-Policy` on every HTML page, built from `template` with
    /// that page's own hash sources: `{scripts}` stands for
    /// [`Asset::script_hashes`](crate::Asset::script_hashes) (`'sha256-…'` of each
    /// inline script, computed by the macro) and `{styles}` for
    /// [`Asset::style_hashes`](crate::Asset::style_hashes), joined by spaces. So a
    /// strict policy, with no `'unsafe-inline'` and no nonce, runs exactly the page's
    /// own inline code, and an injected script is refused.
    ///
    /// Each page's policy is built once, into its prebuilt header maps (free per
    /// request), and comes on every response about the page: its own URL, as the
    /// single-page app's page and as the 404 page (each with its own hashes), 200, 206
    /// and 304. It replaces a `Content-Security-Policy` of a
    /// [`header`](Self::header) rule on pages; other files get none. A page with no
    /// inline script gets an empty `{scripts}`, which allows none. A page read from
    /// disk (over `max_embed_size`) has no hashes, and in dev mode the hashes are
    /// those of the build: an edited inline script needs a rebuild.
    ///
    /// Event handler attributes (`onclick=`) and `javascript:` URLs cannot be allowed
    /// by hashes: [`Asset::unhashable_inline`](crate::Asset::unhashable_inline) lists
    /// them, and the macro's `strict_csp = true` refuses them at compile time.
    ///
    /// ```
    /// # use embed_assets::{embed_assets, Assets};
    /// # static ASSETS: Assets = embed_assets!("../examples/public");
    /// let service = ASSETS.service().content_security_policy(
    ///     "default-src 'self'; script-src 'self' {scripts}; style-src 'self' {styles}; object-src 'none'; base-uri 'none'",
    /// );
    /// # let _ = service;
    /// ```
    ///
    /// # Panics
    /// If `template` holds another `{…}` placeholder, or a character a field value
    /// cannot hold: a typo should fail at start-up, not send a policy that blocks the
    /// site.
    #[allow(clippy::panic)] // a configuration mistake, documented above
    pub fn content_security_policy(self, template: &str) -> Self {
        let bare = template.replace("{scripts}", "").replace("{styles}", "");
        if let Some(at) = bare.find(['{', '}']) {
            let rest = &bare[at..];
            let shown = rest.split_inclusive('}').next().unwrap_or(rest);
            panic!(
                "content_security_policy({template:?}): unknown placeholder `{shown}`; the template knows {{scripts}} and {{styles}}"
            );
        }
        if let Err(err) = HeaderValue::from_str(&bare) {
            panic!("content_security_policy({template:?}): not a field value: {err}");
        }
        let template = template.to_owned();
        self.configure(|options| options.csp = Some(template))
    }

    /// Sends, on every HTML page, a `Link` field that announces the style sheets,
    /// scripts and fonts its `<head>` needs before it can render
    /// ([`Asset::preload_links`](crate::Asset::preload_links), computed by the macro,
    /// with the fingerprinted URLs the page links to): a browser starts fetching them
    /// while it still parses the page, and a CDN turns the field into 103 Early Hints,
    /// sent before the page itself.
    ///
    /// Prebuilt into each page's header maps like the other fields (free per request),
    /// on 200, 206 and 304 (a cache updates its stored fields from a 304), also as the
    /// single-page app's and the 404 page. A `Link` of a [`header`](Self::header) rule
    /// is sent as well. In [dev mode](Self::dev_folder) pages come from disk as they
    /// are written, not as the macro read and rewrote them, so no preload links are
    /// sent there.
    ///
    /// ```
    /// # use embed_assets::{embed_assets, Assets};
    /// # static ASSETS: Assets = embed_assets!("../examples/public");
    /// let service = ASSETS.service().preload_links();
    /// # let _ = service;
    /// ```
    pub fn preload_links(self) -> Self {
        self.configure(|options| options.preload = true)
    }

    /// Sends no `X-Content-Type-Options: nosniff`. It is on by default on every asset
    /// response: the service always states the exact type, so a browser has no reason
    /// to guess one (and a guess can turn an uploaded text into a script). Under
    /// Rocket, its `Shield` fairing sends its own `nosniff` unless configured not to.
    pub fn without_nosniff(self) -> Self {
        self.configure(|options| options.nosniff = false)
    }

    /// Lets shared caches (a CDN, a reverse proxy) store the bodies compressed against
    /// a dictionary (`dcb`, `dcz`; the macro's `releases` option makes them). By
    /// default such an answer is sent with its policy made `private` (`public` and
    /// `s-maxage` dropped, so `public, max-age=31536000, immutable` becomes `private,
    /// max-age=31536000, immutable`): only the client that named the dictionary can
    /// decode it, and a cache that does not key its copies on `Available-Dictionary`
    /// (one that ignores `Vary`, or honours only `Vary: accept-encoding`) would hand
    /// it to every client. Browsers keep it as before; every other answer of the file
    /// (br, gzip, identity) stays shareable, so a client without dictionaries loses
    /// nothing and one with them gets the delta from the server.
    ///
    /// Call this only when every cache in front passes `Available-Dictionary` through
    /// and keeps a copy per value (honours `Vary: accept-encoding,
    /// available-dictionary`, as nginx's `proxy_cache` and Varnish's built-in VCL do):
    /// the deltas are then cached too. [Deploying](crate::guide::deploying) says how to
    /// check a CDN with two `curl` commands.
    ///
    /// ```
    /// # use embed_assets::{embed_assets, Assets};
    /// # static ASSETS: Assets = embed_assets!("../examples/public");
    /// let service = ASSETS.service().shared_cache_deltas();
    /// # let _ = service;
    /// ```
    pub fn shared_cache_deltas(self) -> Self {
        self.configure(|options| options.shared_deltas = true)
    }

    /// Tags every answer about an asset for purges by tag, in the two fields CDNs and
    /// caches read: `Cache-Tag` (Cloudflare; comma-separated) and `Surrogate-Key`
    /// (Fastly, Varnish's xkey; space-separated), with the same tags:
    ///
    /// - `<prefix>`: every answer of this service;
    /// - `<prefix>-page` (HTML pages, the single-page app's fallback included),
    ///   `<prefix>-hashed` (a file at a content-hashed URL, immutable),
    ///   `<prefix>-other` (any other embedded file at its own URL), `<prefix>-disk`
    ///   (a file read from disk): what the answer is;
    /// - `<prefix>-release-<id>`: the release the file is of, with the macro's
    ///   `releases` option (this build's [`Assets::release`](crate::Assets::release), or the kept release an
    ///   earlier file comes from).
    ///
    /// So one purge call empties all pages (`<prefix>-page`), one release
    /// (`<prefix>-release-<id>`), or everything, and hashed files, which never change,
    /// are left alone. 200, 206 and 304 carry them (a 304 updates a cache's stored
    /// fields); redirects, refusals and 404s do not. CDNs remove both fields before
    /// they answer clients; set `header` rules to strip them where nothing in front
    /// does. [Deploying](crate::guide::deploying) shows a purge per CDN.
    ///
    /// # Panics
    /// If `prefix` is empty, longer than 64 bytes, or holds anything but ASCII
    /// letters, digits, `-`, `_` and `.`: CDNs compare tags as such tokens.
    ///
    /// ```
    /// # use embed_assets::{embed_assets, Assets};
    /// # static ASSETS: Assets = embed_assets!("../examples/public");
    /// let service = ASSETS.service().cache_tags("shop");
    /// # let _ = service;
    /// ```
    #[allow(clippy::panic)] // a configuration mistake, documented above
    pub fn cache_tags(self, prefix: &str) -> Self {
        let token = |byte: u8| byte.is_ascii_alphanumeric() || b"-_.".contains(&byte);
        if prefix.is_empty() || prefix.len() > 64 || !prefix.bytes().all(token) {
            panic!(
                "cache_tags({prefix:?}): a prefix of 1 to 64 ASCII letters, digits, `-`, `_` \
                 or `.`, such as \"shop\""
            );
        }
        let prefix = prefix.to_owned();
        self.configure(|options| options.cache_tags = Some(prefix))
    }

    /// Says which release this server answers from: every answer about an asset
    /// carries a `Release-Id` field with this build's release id
    /// ([`Assets::release`](crate::Assets::release)), and `path` answers GET and HEAD with
    /// the list of releases as JSON, `Cache-Control: no-store`:
    ///
    /// ```json
    /// {"release":"0f23ce79dced1716","releases":[
    ///   {"id":"0f23ce79dced1716","recorded":1796472000},
    ///   {"id":"5bf77a53ffd05cec","recorded":1796385600}]}
    /// ```
    ///
    /// `release` is this build's id, `releases` every release whose files it serves,
    /// newest first, with when each was recorded (seconds since the Unix epoch; `null`
    /// for a list recorded without a time). A job that deploys to several replicas
    /// polls `path` on each until all say the new id, then purges the CDN
    /// ([deploying](crate::guide::deploying#which-release-a-replica-serves)). Without the
    /// macro's `releases` option, and in a debug build, `release` is `null`, the list is
    /// empty and no field is sent.
    ///
    /// # Panics
    /// If `path` does not start with `/`, holds anything but ASCII letters, digits and
    /// `-`, `_`, `.`, `~`, `/`, has an empty, `.` or `..` segment, or is the path of
    /// an asset, a fingerprinted URL or a folder of assets: the endpoint would hide a
    /// file, or never be reached.
    ///
    /// ```
    /// # use embed_assets::{embed_assets, Assets};
    /// # static ASSETS: Assets = embed_assets!("../examples/public");
    /// let service = ASSETS.service().release_endpoint("/_release");
    /// # let _ = service;
    /// ```
    #[allow(clippy::panic)] // a configuration mistake, documented above
    pub fn release_endpoint(self, path: &str) -> Self {
        let plain = |byte: u8| byte.is_ascii_alphanumeric() || b"-_.~/".contains(&byte);
        let segments_ok = path
            .strip_prefix('/')
            .is_some_and(|rest| rest.split('/').all(|s| !matches!(s, "" | "." | "..")));
        if !segments_ok || !path.bytes().all(plain) {
            panic!(
                "release_endpoint({path:?}): a URL path of ASCII letters, digits, `-`, `_`, \
                 `.`, `~` and `/`, such as \"/_release\""
            );
        }
        let below = format!("{path}/");
        if let Some(asset) = self.assets.iter().find(|asset| {
            asset.path() == path
                || asset.fingerprinted_path() == Some(path)
                || asset.path().starts_with(&below)
        }) {
            panic!(
                "release_endpoint({path:?}): the asset `{}` is at or below this path: choose \
                 one no file of the folder has",
                asset.path()
            );
        }
        let json = release_list_json(self.assets);
        let id = self
            .assets
            .release()
            .and_then(|id| HeaderValue::try_from(id).ok());
        let path = path.to_owned();
        self.configure(|options| {
            options.release_endpoint = Some((path, json));
            options.release_id = id;
        })
    }

    /// Answers unknown paths with this asset's bytes and status 404 (instead of a
    /// plain-text 404). The page is negotiated like any asset but carries no
    /// validators, so a cache never turns it into a 304.
    ///
    /// # Panics
    /// If `path` is not an embedded asset of this table: a typo should fail at
    /// start-up, not turn every 404 into a different error.
    ///
    /// On a service made by [`folder`](Self::folder), `path` is a URL path in the
    /// folder, read when a 404 is answered (the plain 404 while it is missing); it
    /// panics if `path` is not a URL path of a file below the folder.
    #[allow(clippy::panic)] // a configuration mistake, documented above
    pub fn not_found_page(self, path: &str) -> Self {
        if self.is_folder() {
            return self.folder_page("not_found_page", path, "/404.html", |site, page| {
                site.not_found_page = Some(page);
            });
        }
        let page = self.assets.get(path).filter(|page| page.is_embedded());
        let Some(page) = page else {
            panic!("not_found_page: {path:?} is not an embedded asset");
        };
        self.configure(|options| options.not_found_page = Some(page))
    }

    /// Serves this page, with status 200 and `Cache-Control: no-cache`, for unknown
    /// paths that look like pages of a single-page app: GET or HEAD, `Accept` listing
    /// `text/html` (a browser navigating), and no file extension in the last segment.
    /// Other unknown paths (`/app.js`, an `<img>`, `fetch()`) still get 404, so a
    /// missing asset is never answered with HTML. Responses that depend on this carry
    /// `Vary: Accept`. Separate from [`not_found_page`](Self::not_found_page).
    /// [`spa_exclude`](Self::spa_exclude) keeps prefixes such as `/api` out.
    ///
    /// # Panics
    /// If `path` is not an embedded asset of this table.
    ///
    /// On a service made by [`folder`](Self::folder), `path` is a URL path in the
    /// folder, read when a request needs it (404 while it is missing); it panics if
    /// `path` is not a URL path of a file below the folder.
    #[allow(clippy::panic)] // a configuration mistake, documented above
    pub fn spa_fallback(self, path: &str) -> Self {
        if self.is_folder() {
            return self.folder_page("spa_fallback", path, "/index.html", |site, page| {
                site.spa_page = Some(page);
            });
        }
        let index = self
            .assets
            .index_of(path)
            .filter(|&i| self.assets.files()[i].is_embedded());
        let Some(index) = index else {
            panic!("spa_fallback: {path:?} is not an embedded asset");
        };
        self.configure(|options| options.spa_fallback = Some(index))
    }

    /// Keeps the [single-page app's page](Self::spa_fallback) away from `prefix` and
    /// every path below it, whole segments only: with `"/api"`, `/api`, `/api/` and
    /// `/api/userz` (a typo of the API's route) get the 404 they deserve rather than
    /// the app's `index.html` with 200, while `/apiary` still gets the app. Call it once
    /// per prefix; it changes nothing without `spa_fallback`.
    ///
    /// ```
    /// # use embed_assets::{embed_assets, Assets};
    /// # static ASSETS: Assets = embed_assets!("../examples/public");
    /// let service = ASSETS
    ///     .service()
    ///     .spa_fallback("/index.html")
    ///     .spa_exclude("/api")
    ///     .spa_exclude("/auth/callback");
    /// # let _ = service;
    /// ```
    ///
    /// # Panics
    /// If `prefix` does not start with `/`: it is a URL path, as the request's.
    #[allow(clippy::panic)] // a configuration mistake, documented above
    pub fn spa_exclude(self, prefix: &str) -> Self {
        if !prefix.starts_with('/') {
            panic!("spa_exclude({prefix:?}): a URL path starting with `/`, such as \"/api\"");
        }
        let prefix = prefix.trim_end_matches('/').to_owned();
        self.configure(|options| {
            if !options.spa_excluded.contains(&prefix) {
                options.spa_excluded.push(prefix);
            }
        })
    }

    /// Serves `/about.html` at `/about` too (clean URLs). The `.html` URL keeps working.
    pub fn clean_urls(self) -> Self {
        self.configure(|options| options.clean_urls = true)
    }

    /// Dev mode: answer every embedded asset from this folder instead, re-read on each
    /// request, so CSS/JS edits show on a browser refresh without recompiling. Usually
    /// the folder the macro embeds:
    /// `.dev_folder(concat!(env!("CARGO_MANIFEST_DIR"), "/public"))`.
    ///
    /// The same header, precondition and range code runs; the ETag is computed from
    /// the current bytes (equal to the build's while the file is unchanged); bodies go
    /// out uncompressed. A file (or the whole folder) that is missing falls back to the
    /// embedded bytes. It is an explicit option, never tied to debug builds: enable it
    /// from your own flag or environment variable.
    ///
    /// Files added to the folder since the build are served too (so the new hashed
    /// files of `vite build --watch` are), by the rules the macro embedded by: its
    /// `include` and `exclude` globs, dotfiles only with `dotfiles = true`, symbolic
    /// links only with `follow_symlinks = true`, the macro's media types, read whole;
    /// a new file at a path the single-page app's fallback answers (no extension) is
    /// answered by the fallback until the next build. Behind
    /// [`with_fallback`](Self::with_fallback), an added file that exists is a hit,
    /// answered in front like the others.
    ///
    /// Pages are served as they are on disk: `rewrite_references` does not run in dev
    /// mode. Their links name the plain URLs, which dev mode answers with the current
    /// bytes and `no-cache`, so they work as written; a rewritten link would name a
    /// hashed URL that changes with every edit. For the same reason no
    /// [preload links](Self::preload_links) are sent in dev mode.
    ///
    /// On a service made by [`folder`](Self::folder), it names another folder to serve.
    pub fn dev_folder(self, folder: impl Into<PathBuf>) -> Self {
        let path = folder.into();
        self.configure(|options| {
            let folder = DiskFolder {
                path,
                reader: &disk::READER,
            };
            options.source = match std::mem::replace(&mut options.source, Source::Table) {
                Source::Folder(_, site) => Source::Folder(folder, site),
                Source::Table | Source::Dev(_) => Source::Dev(folder),
            };
        })
    }

    /// What a service made by [`folder`](Self::folder) keeps in memory of the files
    /// it reads whole (those of one [chunk](Self::chunk_size) or less), in all: each
    /// is cached with the version of the file it was read from (inode, length,
    /// modification and status change times) and given again only while the file is
    /// of that version, so a file replaced is read again on its next request, and a
    /// file deleted is forgotten on its next request. Default
    /// [`DEFAULT_CACHE_SIZE`](Self::DEFAULT_CACHE_SIZE); 0 keeps nothing.
    ///
    /// Everything that goes with a cached body counts against it: the body, about 4 KiB
    /// for its path, type, tag and prebuilt header fields, and, for a body of 16 KiB
    /// or more, as much again for the copy in sealed memory that
    /// [`serve`](crate::serve) may make to send it with `sendfile`
    /// ([`Server::sendfile_embedded`](crate::Server::sendfile_embedded), at most 512
    /// such copies at once). So the process holds about this much for the folder's
    /// files, whatever their sizes. What makes room is S3-FIFO (the `quick_cache`
    /// crate): a file is cached on trial first and stays only if asked for again, so a
    /// crawl of files read once does not push out the ones asked for all the time.
    pub fn cache_size(self, bytes: u64) -> Self {
        self.configure(|options| options.cache_size = bytes)
    }

    /// On a service made by [`folder`](Self::folder): serve files reached through
    /// symbolic links too (off by default: a path with a link on its way, or naming
    /// one, is a 404, so that a link cannot lead out of the folder). On, a link is
    /// followed wherever it points, outside the folder included: turn it on only for
    /// a folder whose links you trust (a deploy that links shared assets in).
    ///
    /// # Panics
    /// On a service of an embedded table, whose links the macro's `follow_symlinks`
    /// option decides at build time.
    pub fn follow_symlinks(self, follow: bool) -> Self {
        self.configure_site(
            format_args!("follow_symlinks({follow})"),
            "follows links as the macro's `follow_symlinks` option says",
            |site| site.follow_symlinks = follow,
        )
    }

    /// On a service made by [`folder`](Self::folder): whether the folder's
    /// `.well-known/` folder is served (on by default), for the URIs of RFC 8615 that
    /// others fetch from a site: `/.well-known/security.txt`, ACME's
    /// `/.well-known/acme-challenge/` (certbot's `--webroot`), `assetlinks.json`,
    /// `apple-app-site-association`. Every other file or folder whose name starts
    /// with `.` is never served, nor a `.well-known` below the root, nor a name
    /// starting with `.` inside it. `well_known(false)` refuses it too.
    ///
    /// # Panics
    /// On a service of an embedded table, which serves what the macro's `dotfiles`
    /// option embedded.
    pub fn well_known(self, serve: bool) -> Self {
        self.configure_site(
            format_args!("well_known({serve})"),
            "serves dot files as the macro's `dotfiles` option says",
            |site| site.well_known = serve,
        )
    }

    /// Sets an option of a service made by [`folder`](Self::folder); on an embedded
    /// table, panics: `call` was written, the table `instead` does.
    #[allow(clippy::panic)] // a configuration mistake, documented by each option
    fn configure_site(
        self,
        call: std::fmt::Arguments<'_>,
        instead: &str,
        set: impl FnOnce(&mut FolderSite),
    ) -> Self {
        if !self.is_folder() {
            panic!(
                "{call} is for a service made by ServeAssets::folder; an embedded table {instead}"
            );
        }
        self.configure(|options| {
            if let Source::Folder(folder, site) = &mut options.source {
                set(site);
                site.remake_rules(folder.reader);
            }
        })
    }

    /// A service over a folder read at run time, with no table built at compile time:
    /// for folders known only when the program runs (uploads, a media library, a
    /// frontend deployed apart from the binary).
    ///
    /// It answers by the same rules as an embedded table's service (preconditions,
    /// ranges, `HEAD`, 405, the `Cache-Control`, `header` and single-page app options),
    /// with every file read from the folder when it is asked for:
    ///
    /// - `/dir/` serves `dir/index.html` (the [index file](Self::index_file)); `/dir`
    ///   redirects to `dir/` when `dir` is a directory with that file in it.
    /// - The `ETag` is the SHA-256 of the file's current bytes (computed once per
    ///   version of the file: its inode, length, modification and status change
    ///   times), so a file replaced, even with the same length and its mtime put back,
    ///   gets a new tag. Files of one [chunk](Self::chunk_size) or less are read whole
    ///   and cached in memory while they do not change ([`cache_size`](Self::cache_size)):
    ///   a request looks at the file's metadata, and reads nothing while it is the
    ///   same. Larger files are streamed and hashed in the background, as the macro's
    ///   on-disk files are ([big files](crate::guide::big_files)).
    /// - Paths stay inside the folder: the decoded path may not hold `..` segments,
    ///   backslashes or control characters (`//` and `/./` merge into `/`, as for any
    ///   path, see [the HTTP guide](crate::guide::http)), files and folders whose name
    ///   starts with `.` are not served (but for the root's `.well-known/`, see
    ///   [`well_known`](Self::well_known)), and neither is a path with a symbolic link
    ///   on its way (unless [`follow_symlinks`](Self::follow_symlinks) says so).
    /// - The media type comes from the file's extension (the macro's table of types).
    /// - A `.br` or `.gz` sibling (`app.js.br`), and `.zst` with the `zstd` feature, is
    ///   sent to a client that accepts its coding, with `Vary: Accept-Encoding` and a
    ///   tag of its own, only once it has been found to decode to exactly the file's
    ///   bytes (checked once per version of both): a stale sibling is passed over.
    ///   Nothing is compressed at run time.
    /// - [`spa_fallback`](Self::spa_fallback) and
    ///   [`not_found_page`](Self::not_found_page) take a URL path in the folder; the
    ///   page is read from the folder too.
    ///
    /// ```no_run
    /// use embed_assets::ServeAssets;
    ///
    /// let uploads = ServeAssets::folder("/srv/uploads");
    /// # let _ = uploads;
    /// ```
    pub fn folder(folder: impl Into<PathBuf>) -> ServeAssets {
        let path = folder.into();
        EMPTY.service().configure(|options| {
            let folder = DiskFolder {
                path,
                reader: &disk::READER,
            };
            let site = FolderSite::new(folder.reader);
            options.source = Source::Folder(folder, site);
        })
    }

    /// The folder on-disk assets (files over `max_embed_size`) are read from. The
    /// default is the absolute folder the macro read at build time, so `cargo run`
    /// works as is; a deployment that ships the binary and its media folder elsewhere
    /// sets this (and calls [`check_disk`](Self::check_disk) at start-up).
    pub fn disk_root(self, root: impl Into<PathBuf>) -> Self {
        let root = root.into();
        self.configure(|options| options.disk_root = Some(root))
    }

    /// How many bytes of an on-disk asset are read at a time (default
    /// [`DEFAULT_CHUNK_SIZE`](Self::DEFAULT_CHUNK_SIZE), 1 MiB); memory per download is
    /// about one chunk.
    /// Values under 4 KiB are raised to 4 KiB.
    pub fn chunk_size(self, bytes: usize) -> Self {
        self.configure(|options| options.chunk_size = bytes.max(4096))
    }

    /// What the downloads of files over `max_embed_size` may hold in full-size chunks
    /// at once, across all of them (default
    /// [`DEFAULT_READ_BUDGET`](Self::DEFAULT_READ_BUDGET), 32 MiB).
    ///
    /// A server takes a body's chunks before its socket does (hyper queues up to
    /// ~400 KiB per connection), and a download reads a [chunk](Self::chunk_size)
    /// ahead so that disk and socket overlap: a client that stops reading would pin
    /// all of that, 765 MiB for 400 clients at 1 MiB chunks. So a download gets a
    /// further chunk while the server still holds one only within the budget, and
    /// otherwise waits until the socket takes it; one the server holds nothing of reads
    /// a full chunk within the budget or 32 KiB outside it; nothing is read ahead for a
    /// client slower than the disk. So memory stays under the budget plus 32 KiB per
    /// stalled download, and every download goes on. A consumer that keeps chunks
    /// instead of sending them (collecting a whole body) is served too. Pair it
    /// with your server's header-read and idle timeouts (see [the big files guide](crate::guide::big_files)), so idle
    /// connections do not pile up either. A budget below one chunk counts as one.
    ///
    /// Size it for the downloads you serve at full speed at once: each takes two
    /// chunks (the one being sent and the one read ahead), so the default covers 16 at
    /// the default chunk size. Past that, downloads read 32 KiB at a time, which costs
    /// CPU: 32 concurrent downloads of uncached files went at 420 MB/s with the default
    /// and 1,499 MB/s with 64 MiB (`bench-disk cold` in the repository's `bench/`).
    /// The price is memory under clients that stop reading: up to the budget in all.
    ///
    /// ```
    /// # use embed_assets::{embed_assets, Assets};
    /// # static ASSETS: Assets = embed_assets!("../examples/public");
    /// let service = ASSETS.service().read_budget(64 << 20);
    /// # let _ = service;
    /// ```
    pub fn read_budget(self, bytes: usize) -> Self {
        self.configure(|options| options.read_budget = bytes)
    }

    /// Checks that every on-disk asset exists under the [disk root](Self::disk_root)
    /// as a readable file, so a deployment fails at start-up instead of answering 404
    /// later. It reads no file's bytes: content ETags are computed when a file is
    /// first requested, so a library of large files costs nothing at start-up.
    ///
    /// On a service made by [`folder`](Self::folder), it checks the folder instead: that
    /// it exists, is a folder, and can be listed and searched, so that a wrong path
    /// fails the deploy rather than answering 404 to everything.
    /// [`Server::serve`](crate::Server::serve) makes the same check before it listens.
    ///
    /// # Errors
    /// [`Error::Disk`] listing every asset that is missing, not a file, or unreadable;
    /// [`Error::Folder`] naming a folder that cannot be served.
    pub fn check_disk(&self) -> Result<(), Error> {
        if self.is_folder() {
            return self.check_folder();
        }
        let problems: Vec<DiskProblem> = self
            .assets
            .iter()
            .filter_map(|asset| {
                let relative = asset.disk_path()?;
                let path = self.config.options.disk_path(relative);
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

    /// The start-up check of a service made by [`folder`](Self::folder); `Ok` for
    /// any other.
    pub(crate) fn check_folder(&self) -> Result<(), Error> {
        let Some((folder, _)) = self.config.options.folder() else {
            return Ok(());
        };
        (folder.reader.check_folder)(&folder.path).map_err(|source| {
            Error::Folder(DiskProblem {
                path: folder.path.clone(),
                asset: "/",
                source,
            })
        })
    }

    /// The assets this service answers for.
    pub fn assets(&self) -> &'static Assets {
        self.assets
    }
}

/// Why `header` refuses a field name, if it does: the representation's own fields and
/// those the service sets from its options would clash silently, and a connection's
/// fields are not the service's to send.
fn refused_field(name: &HeaderName) -> Option<&'static str> {
    const CONNECTION: [HeaderName; 6] = [
        header::CONNECTION,
        header::TRANSFER_ENCODING,
        header::TE,
        header::TRAILER,
        header::UPGRADE,
        header::HeaderName::from_static("keep-alive"),
    ];
    if name == header::CACHE_CONTROL {
        Some("use cache_control_for(prefix, value) for Cache-Control")
    } else if crate::respond::SERVICE_FIELDS.contains(name) {
        Some("the service sets this field itself, from the representation and its options")
    } else if CONNECTION.contains(name) {
        Some("a field of the connection, not of the response")
    } else {
        None
    }
}

/// The JSON of [`ServeAssets::release_endpoint`]. Written by hand: its only strings are
/// release ids, 16 lowercase hex digits (`embed_assets_shared::release`), so nothing
/// needs escaping, and the library has no JSON dependency.
fn release_list_json(assets: &Assets) -> bytes::Bytes {
    let quoted =
        |text: Option<&str>| text.map_or_else(|| "null".to_owned(), |t| format!("\"{t}\""));
    let releases: Vec<String> = assets
        .releases()
        .iter()
        .map(|release| {
            let recorded = release
                .recorded_secs()
                .map_or_else(|| "null".to_owned(), |secs| secs.to_string());
            format!(
                "{{\"id\":{},\"recorded\":{recorded}}}",
                quoted(Some(release.id()))
            )
        })
        .collect();
    let json = format!(
        "{{\"release\":{},\"releases\":[{}]}}\n",
        quoted(assets.release()),
        releases.join(",")
    );
    bytes::Bytes::from(json)
}
