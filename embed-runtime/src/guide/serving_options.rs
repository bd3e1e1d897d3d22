//! The serving options: every method of [`ServeAssets`](crate::ServeAssets), a strict
//! Content-Security-Policy with no nonce, and preload links for 103 Early Hints.
//!
//! `ASSETS.service()` returns a [`ServeAssets`](crate::ServeAssets): `Clone + Send +
//! Sync`, and a tower `Service` with the `tower` feature.
//!
//! # Options
//!
//! | method | default | what it does |
//! |---|---|---|
//! | [`.index_file(name)`](crate::ServeAssets::index_file) / [`.without_index()`](crate::ServeAssets::without_index) | `index.html` | the file served for `/dir/`. `/dir` redirects to `dir/` (relative, so it works under `nest_service`) |
//! | [`.cache_control(value)`](crate::ServeAssets::cache_control) | `no-cache` ([`ServeAssets::DEFAULT_CACHE_CONTROL`](crate::ServeAssets::DEFAULT_CACHE_CONTROL)) | `Cache-Control` of every asset: store, but revalidate (a cheap 304). A page that is a dictionary (with `releases`) has [its own default](crate::guide::deploying#only-the-difference-dictionary-compression-rfc-9842) until you set this or a rule covers it |
//! | [`.cache_control_for(prefix, value)`](crate::ServeAssets::cache_control_for) | none | `Cache-Control` for paths under a prefix; the longest prefix wins |
//! | [`.fingerprinted_cache_control(value)`](crate::ServeAssets::fingerprinted_cache_control) | `public, max-age=31536000, immutable` ([`ServeAssets::FINGERPRINTED_CACHE_CONTROL`](crate::ServeAssets::FINGERPRINTED_CACHE_CONTROL)) | `Cache-Control` at fingerprinted URLs (the `fingerprint` option). In dev mode they revalidate like the rest |
//! | [`.header(glob, name, value)`](crate::ServeAssets::header) | none | a response field for assets whose path matches. `/admin/**` is matched against the path, `*.wasm` (no `/`) against the file name. It comes on every response about the asset: 200, 206, 416, 304; at its own and its fingerprinted URL; as SPA or 404 page; from disk; in dev mode. It is folded into the header maps built once, so it is free per request. For one name, the last matching rule wins. Fields the service sets itself (`Content-Type`, `ETag`, `Vary`, `Cache-Control`, …) are refused at start-up |
//! | [`.content_security_policy(template)`](crate::ServeAssets::content_security_policy) | none | a `Content-Security-Policy` on every HTML page, from a template whose `{scripts}` and `{styles}` are that page's own inline hashes (see [below](#strict-content-security-policy-with-no-nonce)). Prebuilt per page, also as SPA and 404 page, and on 304. It replaces a `header` rule's policy on pages |
//! | [`.preload_links()`](crate::ServeAssets::preload_links) | off | a `Link` field on every HTML page, announcing what its `<head>` loads (see [below](#preload-links-and-103-early-hints)). Computed by the macro, prebuilt, on 200/206/304. None in dev mode |
//! | [`.without_nosniff()`](crate::ServeAssets::without_nosniff) | `X-Content-Type-Options: nosniff` | drops the nosniff field sent on every asset response (the type sent is always exact) |
//! | [`.shared_cache_deltas()`](crate::ServeAssets::shared_cache_deltas) | off: `private` | lets shared caches store dictionary-compressed (`dcb`, `dcz`) answers; only for caches that key on `Available-Dictionary` ([deploying](crate::guide::deploying)) |
//! | [`.cache_tags(prefix)`](crate::ServeAssets::cache_tags) | off | `Cache-Tag` and `Surrogate-Key` on every answer about an asset: the prefix, what it is (page, hashed, other, disk) and its release, to purge a CDN by tag ([deploying](crate::guide::deploying#purging-a-cdn-by-tag)) |
//! | [`.release_endpoint(path)`](crate::ServeAssets::release_endpoint) | off | `Release-Id` (this build's release) on every answer about an asset, and the list of releases as JSON at `path`, for a deploy job that waits until every replica serves the new build ([deploying](crate::guide::deploying#which-release-a-replica-serves)) |
//! | [`.not_found_page(path)`](crate::ServeAssets::not_found_page) | plain text | an embedded page sent with status 404 |
//! | [`.spa_fallback(path)`](crate::ServeAssets::spa_fallback) | off | single-page apps: unknown paths that look like pages get this page, with 200 and `no-cache`. A page is a browser navigating (`Accept: text/html`) to a path with no extension. Unknown assets still get 404 |
//! | [`.spa_exclude(prefix)`](crate::ServeAssets::spa_exclude) | none | keeps the `spa_fallback` page away from a path prefix and everything below it, whole segments only. With `"/api"`: `/api`, `/api/` and `/api/userz` get 404, while `/apiary` still gets the app. Call it once per prefix |
//! | [`.clean_urls()`](crate::ServeAssets::clean_urls) | off | `/about` serves `/about.html` |
//! | [`.dev_folder(path)`](crate::ServeAssets::dev_folder) | off | dev mode: re-read embedded assets from this folder on every request. Edits show on refresh; ETags come from the current bytes; bodies are identity; embedded bytes are used if a file is missing. Files added since the build are served too, by the macro's rules (`include`/`exclude`, dotfiles, links). Pages are not rewritten, and no preload `Link` is sent. An explicit option, never tied to debug builds |
//! | [`ServeAssets::folder(path)`](crate::ServeAssets::folder) | | not an option but a service of its own: a folder read at run time, with no table built at compile time (see [below](#embed-or-follow-a-folder)) |
//! | [`.cache_size(bytes)`](crate::ServeAssets::cache_size) | [`ServeAssets::DEFAULT_CACHE_SIZE`](crate::ServeAssets::DEFAULT_CACHE_SIZE) (64 MiB) | what a folder's service keeps in memory of the small files it read, each with its file's version, given again only while the file is unchanged |
//! | [`.disk_root(path)`](crate::ServeAssets::disk_root) | the folder the macro read | where files over `max_embed_size` are read from at run time |
//! | [`.chunk_size(bytes)`](crate::ServeAssets::chunk_size) | [`ServeAssets::DEFAULT_CHUNK_SIZE`](crate::ServeAssets::DEFAULT_CHUNK_SIZE) (1 MiB) | read size for on-disk files. Memory per download is about one chunk. Values under 4 KiB are raised to 4 KiB |
//! | [`.read_budget(bytes)`](crate::ServeAssets::read_budget) | [`ServeAssets::DEFAULT_READ_BUDGET`](crate::ServeAssets::DEFAULT_READ_BUDGET) (32 MiB) | what the downloads of files over `max_embed_size` may hold in full-size chunks at once, across all of them (see [big files](crate::guide::big_files)) |
//! | [`.check_disk()`](crate::ServeAssets::check_disk) | | a start-up check that every on-disk file is there and readable; it lists all problems |
//!
//! The `http` types come from [`embed_assets::http`](crate::http), a re-export of the
//! `http` crate (1.x). Use it rather than a dependency of your own. An axum project has
//! no `http` dependency, so `use http::…` fails there with `unresolved import http`.
//! actix-web 4 uses `http` 0.2, so its types give "multiple different versions of crate
//! `http`".
//!
//! ```rust
//! # #[embed_assets::embed("../examples/public")]
//! # mod frontend {}
//! use embed_assets::http::{header, HeaderName, HeaderValue};
//! use embed_assets::ServeAssets;
//!
//! fn assets() -> ServeAssets {
//!     frontend::ASSETS
//!         .service()
//!         .spa_fallback("/index.html")
//!         .spa_exclude("/api")
//!         .header("/**", header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"))
//!         .header(
//!             "*.wasm",
//!             HeaderName::from_static("cross-origin-embedder-policy"),
//!             HeaderValue::from_static("require-corp"),
//!         )
//! }
//! # let _ = assets();
//! ```
//!
//! # Embed, or follow a folder
//!
//! **Embed** what ships with the binary: the app shell, its scripts, styles, fonts and
//! images. They are compressed at build time (br, gzip, zstd), their tags computed
//! once, their hashed URLs and the rewritten links fixed, and they are served from
//! memory with no file I/O, the fastest way there is; the binary is the deploy.
//!
//! **Follow a folder** ([`ServeAssets::folder`](crate::ServeAssets::folder)) for files
//! known only at run time: user uploads, a media library, a frontend deployed apart
//! from the binary, a theme swapped without a rebuild. The same service answers (the
//! same preconditions, ranges and multipart ranges, `HEAD` and 405, index files and
//! directory redirects, `Cache-Control` and `header` rules, the single-page app's
//! page and the 404 page (each a URL path in the folder, read when it is needed),
//! every framework adapter and `serve`), with each file read when it is asked for.
//! A program that serves only folders needs no proc macro: depend on the library with
//! `default-features = false, features = ["serve", "axum"]` (no `macros`), as
//! `examples/folder` does, a folder given on the command line served as nginx's `root`
//! serves one (`cargo run -p example-folder -- /srv/www 0.0.0.0:8080`, with an access
//! log).
//!
//! - its `ETag` is the SHA-256 of its current bytes, computed once per version of the
//!   file (inode, length, modification and status change times), so a file replaced
//!   with the same length and its mtime put back still gets a new tag, and a file
//!   changed while it streams ends its download short rather than mixing two
//!   versions ([big files](crate::guide::big_files));
//! - files of one [chunk](crate::ServeAssets::chunk_size) or less are read whole, with
//!   a `charset` for UTF-8 text, and kept in memory
//!   ([`.cache_size`](crate::ServeAssets::cache_size), 64 MiB by default) with the
//!   version they were read from: a request looks at the file's metadata (one
//!   `lstat`; the folders on the way were checked for links when it was read) and
//!   reads nothing while the version is the same; larger files are streamed (`sendfile`
//!   under `serve`), and their tag comes once it is computed in the background;
//! - a `.br` or `.gz` sibling (`app.js.br`), and `.zst` with the `zstd` feature, is
//!   sent to a client that accepts its coding, with `Vary: Accept-Encoding` and a tag
//!   of its own, but only once it has been found to decode to exactly the file's bytes
//!   (checked once per version of both, as streams: files of any size, in bounded
//!   memory): a sibling left from an earlier version of the
//!   file is passed over, never sent; it states its file's date when that is later
//!   than its own, so a file rolled back beside an old sibling is no 304 by date;
//! - paths stay inside the folder: no `.`/`..` segment, backslash or control
//!   character, no dot file or dot folder but the root's `.well-known/` (RFC 8615:
//!   `security.txt`, ACME's HTTP challenge; refused with
//!   [`.well_known(false)`](crate::ServeAssets::well_known)), no symbolic link on the way;
//! - a folder that is missing, not a folder or unreadable fails
//!   [`check_disk`](crate::ServeAssets::check_disk) and `serve` at start, naming it;
//! - nothing is compressed at run time: a file with no sibling goes as it is.
//!
//! The two combine: the embedded shell in front, the folder behind it. Under axum:
//!
//! ```rust,no_run
//! # #[embed_assets::embed("../examples/public")]
//! # mod frontend {}
//! use axum::Router;
//! use embed_assets::ServeAssets;
//!
//! # #[cfg(feature = "axum")]
//! # fn app() -> Router {
//! Router::new()
//!     .nest_service("/uploads", ServeAssets::folder("/srv/uploads"))
//!     .fallback_service(frontend::ASSETS.service())
//! # }
//! ```
//!
//! # Strict Content-Security-Policy, with no nonce
//!
//! The macro reads every embedded HTML page. It computes the CSP hash source
//! (`'sha256-…'`, Content Security Policy Level 3) of each inline `<script>` that runs
//! and of each `<style>`, over its text as the browser parses it.
//! [`Asset::script_hashes()`](crate::Asset::script_hashes) and
//! [`Asset::style_hashes()`](crate::Asset::style_hashes) return them, for a policy of
//! your own. [`content_security_policy`](crate::ServeAssets::content_security_policy)
//! sends one built from a template, each page with its own hashes, at no cost per
//! request:
//!
//! ```rust
//! # #[embed_assets::embed("../examples/public")]
//! # mod frontend {}
//! let service = frontend::ASSETS.service().content_security_policy(
//!     "default-src 'self'; script-src 'self' {scripts}; style-src 'self' {styles}; object-src 'none'; base-uri 'none'",
//! );
//! ```
//!
//! The example site is served that way. Its inline script and style run, and a script
//! injected into the page at run time is refused; the browser test checks both.
//!
//! - Hashes cannot allow inline event handlers (`onclick="…"`), `javascript:` URLs, or
//!   `style` attributes without `'unsafe-hashes'`.
//!   [`Asset::unhashable_inline()`](crate::Asset::unhashable_inline) lists them per
//!   page (``line 5: `onclick` on <button>``).
//! - The macro option `strict_csp = true` makes a page with a handler or a
//!   `javascript:` URL a compile error naming each one. So a strict policy cannot
//!   silently break a button.
//! - A template placeholder other than `{scripts}`/`{styles}` panics at start-up.
//! - A page over `max_embed_size` is read from disk and has no hashes.
//! - In dev mode the hashes are those of the build, so an edited inline script needs a
//!   rebuild.
//!
//! # Preload links and 103 Early Hints
//!
//! [`Asset::preload_links()`](crate::Asset::preload_links) lists, for each embedded
//! page, the `Link` values (RFC 8288) of the render-critical files its `<head>` loads;
//! the macro finds them. [`.preload_links()`](crate::ServeAssets::preload_links) sends
//! them in one `Link` field on the page's responses:
//!
//! ```text
//! Link: <css/app.3f2a1b9c.css>; rel=preload; as=style, <js/app.9c1d2e3f.js>; rel=modulepreload, </fonts/inter.0a1b2c3d.woff2>; rel=preload; as=font; crossorigin
//! ```
//!
//! - Style sheets (`as=style`), module scripts (`rel=modulepreload`) and classic
//!   scripts (`as=script`) are named exactly as the page names them (hashed after
//!   `rewrite_references`). So a preload is the very request its element makes: same
//!   URL, resolved against the same page URL, same `crossorigin`.
//! - Fonts are found in those style sheets (`as=font; crossorigin`). They are named by
//!   absolute path, with the macro's `base`.
//! - Only files of the table are announced. Icons, alternate style sheets, data blocks,
//!   scripts of the body and other sites' URLs are not.
//! - A caching proxy stores the field with the page, and sends it on every hit and 304
//!   (the nginx test checks it). CDNs that support 103 Early Hints build them from it.
//! - In Chromium the example site's preloads are used: each file is fetched once, and
//!   no "preloaded but not used" warning appears.
//! - Dev mode (`.dev_folder`) sends no `Link` field. Pages come from disk unrewritten
//!   there, so the build's hashed preload URLs would be wrong.
