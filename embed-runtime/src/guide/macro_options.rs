//! The macro options: every option of [`#[embed]`](macro@crate::embed) and
//! [`embed_assets!`](crate::embed_assets!), what goes to disk, fingerprinted URLs,
//! Subresource Integrity, and why the macro is built optimised.
//!
//! The attribute `#[embed_assets::embed("dir", key = value, ...)]` and the expression
//! `embed_assets!("dir", key = value, ...)` take the same options, with the same
//! defaults and errors. The folder is relative to the crate root, or absolute. `$VAR`
//! and `${VAR}` are taken from the environment (`"$OUT_DIR/site"`). A folder that is
//! not found is an error showing the absolute path it looked at.
//!
//! The attribute goes on an inline module. It adds `pub static ASSETS: Assets` and `pub
//! mod paths` (the URL constants, see [fingerprinted URLs](#fingerprinted-urls)), after
//! the module's own items. Each has a doc comment, so `missing_docs` stays quiet. Each
//! annotated module holds its own table and constants, so several sit side by side. It
//! is a compile error:
//!
//! - on anything but a module;
//! - on a module that already has an item named `ASSETS` or `paths`;
//! - on a module without a body: `mod frontend;` gets the message to write `mod
//!   frontend {}`.
//!
//! # Options
//!
//! | option | default | what it does |
//! |---|---|---|
//! | `max_embed_size` | `"5 MiB"` | the most one file may store in the binary. A file that does not compress (video, audio, images, fonts, archives, or bytes a sample shows not to compress) and is larger is streamed from disk. A file that compresses is embedded whatever its size, stored compressed only, as long as its gzip body is within the limit: a 7 MB bundle or a 14 MB `.wasm` whose gzip body is 2-4 MB is served br from memory. See [what goes to disk](#what-goes-to-disk). Bytes, or a string with a unit: B, KiB, MiB, GiB are powers of 1024; KB, MB, GB powers of 1000 (`"5 MB"` is 5 000 000 bytes, `"5 MiB"` 5 242 880) |
//! | `disk` | nothing | glob or list of globs of files always streamed from disk, whatever their size (`"media/**"`). A glob that matches no file is a compile error at that glob |
//! | `on_disk` | `"warn"` | what the build says about files `max_embed_size` leaves on disk, which the binary then needs beside it at run time: `"warn"`, a warning at the macro call naming each file, its size and why; `"deny"`, the same as a compile error (a build that must carry everything); `"allow"`, nothing (large media served from disk is the plan). Files `disk` names are never reported |
//! | `max_total_size` | `"128 MiB"` | a compile error, naming the largest files, when the embedded files add up to more (rustc time and memory grow with every embedded byte). A file over `max_embed_size` counts only if it stays embedded (it compresses): one that goes to disk never fails the build. A size as above |
//! | `allow_empty` | `false` | `true`: a folder with nothing to embed builds an empty table. Without it, a folder that is empty, or whose files are all left out by `include`/`exclude`, is a compile error at the folder argument that says so. A wiped `dist/` is the usual cause; use `true` only for a folder empty on purpose |
//! | `gzip` | `true` | store a gzip body where it pays: at least 10% and 128 bytes smaller |
//! | `brotli` | `true` | store a brotli body where it pays |
//! | `zstd` | `true` with the `zstd` feature | store a zstd body (RFC 8878; level 19, or 3 with `compression = "fast"`) where it pays. Needs `features = ["zstd"]` on `embed-assets`; the macro then links libzstd, built from C with `cc`. Without the feature, `zstd = true` is a compile error saying so. At equal q-values the preference is br, then zstd, then gzip |
//! | `compression` | by build | `"best"`: gzip 9, brotli 11 (zstd 19) for files up to 256 KiB, gzip 6, brotli 9 (zstd 12) for larger ones, whose bodies are then 5-12% larger but made 10-20 times faster (a 7 MB bundle in about a second instead of twenty). `"max"`: gzip 9, brotli 11 for every file, the smallest bodies at about two seconds per MB of brotli. `"fast"`: gzip 6, brotli 5; a few percent larger, tens of milliseconds per MB. Unset: `"best"` when rustc optimises the crate (`--release`, any `opt-level` but 0), `"fast"` in unoptimised builds, so editing a large bundle rebuilds in about a second. Either way every body decodes to the file and has the ETag of its own bytes |
//! | `compressed_only` | `true` (`false` with `gzip = false`) | a file with a gzip body is stored only compressed (gzip, and br/zstd where they pay). Its own bytes are decoded from gzip once, on the first request that needs them (a client without gzip, a `Range` on identity), and kept. Binaries smaller than the files alone (see [binary size](crate::guide::benchmarks#binary-size)), at the cost of one decode per file per process for the rare client that asks for the bytes as they are; every browser gets br or gzip with nothing decoded. `false` stores every file's own bytes too |
//! | `fingerprint` | off | `true` (every embedded file but HTML pages) or globs: each selected file is also served at a content-hashed URL, `/js/app.3f2a1b9c.js`, with `Cache-Control: public, max-age=31536000, immutable`. See [fingerprinted URLs](#fingerprinted-urls). A glob that selects no embedded file is a compile error at that glob (`fingerprint = "yes"`, meant `true`) |
//! | `rewrite_references` | `false` | with `fingerprint`: links in embedded HTML and CSS that name a fingerprinted file are rewritten to its hashed URL at compile time. Links are `href`, `src`, `srcset`, `poster`, `style` and `<style>`, CSS `url()`, `@import` and `image-set()`. They keep their relative or absolute form (`../img/logo.png` → `../img/logo.3f2a1b9c.png`). A style sheet's hash is computed after its own links are rewritten, and every ETag is of the bytes served. Links are percent-decoded before they are matched, and written percent-encoded |
//! | `integrity` | `false` | with `rewrite_references`: adds `integrity="sha384-…"` to `<script src>`, `<link rel="stylesheet">` and `<link rel="modulepreload">` that load an embedded file. The value is the linked file's [`Asset::integrity()`](crate::Asset::integrity), of the bytes served. An element that already has `integrity` keeps its own; one marked `data-no-integrity` gets none (use it where a script swaps the element's URL at run time, a theme switcher: the first file's value would block every other). With [`.preload_links()`](crate::ServeAssets::preload_links), each preload carries its element's value, which a browser needs to use it |
//! | `strict_csp` | `false` | a compile error for each embedded page with inline script that no CSP hash can allow (an `on…=` event handler attribute, a `javascript:` URL), with its line. The hashes of inline scripts and styles are computed for every page either way ([`Asset::script_hashes()`](crate::Asset::script_hashes)) |
//! | `reload_on_stale` | `false` | adds to every embedded HTML page a small inline script (about 1 KB) that reloads the page once when a file it loads is a version the server no longer has: after a deploy that dropped the release an open tab came from, its next lazy chunk fails, and the tab reloads onto the new release instead of showing a white screen. See [stale tabs after a deploy](crate::guide::deploying#stale-tabs-after-a-deploy) |
//! | `base` | none | with `rewrite_references`: the URL path the site is served under (`"/static"`, as Vite's `base`). Rewritten absolute links get it in front (`/css/app.css` → `/static/css/app.3f2a1b9c.css`). Use it when the service is mounted below the root (`nest_service("/static", ..)`) and pages link with absolute paths. Relative links need none, and the `paths` constants stay the folder's own URLs |
//! | `hashed` | nothing | glob or list of globs of files a bundler already content-hashed (`"assets/**"`): served with the immutable policy at their own URL, with no second hash. A Vite manifest in the folder does this on its own: see [the Vite guide](crate::guide::vite) |
//! | `releases` | none | the folder `embed_assets_build::Releases` records releases into (relative to the crate root, `$VAR`s expanded; it need not exist yet): the files every kept release served at a hashed URL are served at that URL too, and this build's changed files are also stored compressed against their earlier versions (RFC 9842 `dcb`/`dcz`). See [releases and rolling deploys](crate::guide::deploying#releases-and-rolling-deploys) |
//! | `include` | everything | glob or list of globs; only matching files are embedded (`["*.css", "js/**"]`). A glob that matches no file of the folder is a compile error at that glob (`"*.csss"`) |
//! | `exclude` | nothing | glob or list of globs; matching files are skipped (`"**/*.map"` leaves out source maps, the largest files of many npm packages: see [binary size](crate::guide::benchmarks#binary-size)). A glob may match nothing: whether a frontend build writes source maps can depend on its mode |
//! | `dotfiles` | `false` | embed files and folders whose name starts with `.`. Otherwise `.env` and `.git/` are never embedded |
//! | `follow_symlinks` | `false` | follow symbolic links instead of skipping them. Skipped links (among the files `include`, `exclude` and `dotfiles` select) are named in a build warning with where each points, as each is a 404 at run time; `exclude` them to say so |
//! | `crate` | `embed_assets!`: the crate's path, whatever the dependency is named; `#[embed]`: `::embed_assets` | the path to `embed-assets`, for crates that re-export it or rename the dependency (below) |
//!
//! Globs match the `/`-separated path below the folder (`css/app.css`). `*` also
//! matches across `/`, so `*.map` excludes source maps at any depth.
//!
//! An attribute cannot see the name it was called by, so `#[embed]` names the crate
//! `::embed_assets`. With a renamed dependency, say so with `crate`:
//!
//! ```toml
//! [dependencies]
//! web = { package = "embed-assets", version = "0.1" }
//! ```
//!
//! ```rust
//! # extern crate embed_assets as web;
//! #[web::embed("../examples/public", crate = ::web)]
//! mod frontend {}
//! # assert!(frontend::ASSETS.get("/index.html").is_some());
//! ```
//!
//! Already-compressed formats are never recompressed: png, jpeg, gif, webp, avif,
//! woff/woff2, mp4, webm, zip, gz, br, and so on. Every mistake in the arguments is a
//! compile error pointing at that argument, and all of them are reported at once. An
//! unknown option suggests the nearest one (`max_embed_sise` → `max_embed_size`).
//!
//! # What goes to disk
//!
//! The binary carries everything that compresses, and large media stays on disk:
//!
//! - A file up to `max_embed_size` (5 MiB) is embedded, whatever it is.
//! - A larger file that compresses (a bundle, a `.wasm`, JSON, a source map) is
//!   embedded too, stored compressed only, when its gzip body is within
//!   `max_embed_size`. Monaco's 7 MB TypeScript worker is stored as 1.2 MB of br
//!   and 1.5 MB of gzip, and a browser gets the br body from memory.
//! - A larger file that does not compress stays on disk: video, audio, images, fonts
//!   and archives by their extension, and any other file whose first MiB does not
//!   compress (tried with fast gzip before anything else is spent on it).
//! - A file `disk` names stays on disk whatever its size.
//!
//! A build that leaves files on disk says so: a warning at the macro call names each
//! file, its size and why, since the binary then needs the folder beside it at run time
//! (or [`.disk_root(..)`](crate::ServeAssets::disk_root), see [the serving
//! options](crate::guide::serving_options)). `on_disk = "deny"` turns it into an error,
//! `on_disk = "allow"` silences it:
//!
//! ```text
//! warning: use of deprecated constant `frontend::ASSETS::FILES_SERVED_FROM_DISK`: 1 file over `max_embed_size` (5.0 MiB) will be read from disk at run time, so the binary needs `public` beside it: `public/intro.mp4` (48.2 MiB, does not compress); raise `max_embed_size` to embed them, list them in `disk = [..]` to say so, or write `on_disk = "allow"`
//!  --> src/main.rs:1:24
//! ```
//!
//! (Stable Rust gives a macro no warning of its own; rustc's `deprecated` lint carries
//! the message.) [`ServeAssets::check_disk()`](crate::ServeAssets::check_disk) at
//! start-up and [`Assets::report()`](crate::Assets::report) list the same files.
//!
//! # Fingerprinted URLs
//!
//! Browsers can keep a file for a year without asking again, when its URL changes with
//! its content. `fingerprint = true` gives every embedded file but HTML pages such a
//! URL, at compile time. `/js/app.js` is also served at `/js/app.3f2a1b9c.js` (the
//! first 8 hex digits of the sha256 of its bytes), with `public, max-age=31536000,
//! immutable`. `/js/app.js` itself keeps `no-cache`. Files on disk are never
//! fingerprinted, since their bytes can change after the build.
//!
//! Link to the hashed URL at run time with `frontend::ASSETS.url("/js/app.js")`
//! ([`Assets::url`](crate::Assets::url), an `Option`, `None` for an unknown file). Or
//! use the constants of the `paths` module, so a mistyped asset name is a compile
//! error:
//!
//! ```rust
//! #[embed_assets::embed("../examples/public", fingerprint = true)]
//! mod frontend {}
//!
//! fn script_tag() -> String {
//!     // `/js/app.3f2a1b9c.js`
//!     format!(r#"<script src="{}"></script>"#, frontend::paths::JS_APP_JS)
//! }
//! # assert!(script_tag().starts_with(r#"<script src="/js/app."#));
//! # assert_eq!(Some(frontend::paths::JS_APP_JS), frontend::ASSETS.url("/js/app.js"));
//! ```
//!
//! URLs are percent-encoded. [`Asset::url()`](crate::Asset::url),
//! [`Assets::url()`](crate::Assets::url) and the `paths` constants are valid URL paths:
//! `/a b?.txt` is linked as `/a%20b%3F.txt`, and its fingerprinted URL is
//! `/a%20b%3F.3f2a1b9c.txt`. So a `?` or `#` in a file name never starts a query or a
//! fragment. [`Asset::path`](crate::Asset::path) and
//! [`Asset::fingerprinted_path`](crate::Asset::fingerprinted_path) are the decoded
//! forms.
//!
//! With `rewrite_references = true`, pages need no template at all. `<link
//! href="css/app.css">` in an embedded page is served as `<link
//! href="css/app.3f2a1b9c.css">`.
//!
//! - Pages are read with an HTML tokenizer (`lol_html`), style sheets with a CSS one
//!   (`cssparser`). Only real links change. A `src="…"` inside a script string, a
//!   comment or a `<textarea>` stays as written, and so does a `url(` in a CSS comment
//!   or string. Every other byte of the page stays too: quotes, spacing, entities.
//! - `srcset` candidates, `style` attributes and `<style>` elements are links too.
//! - Links to files outside the folder, or with a scheme, are left as written.
//! - A link is decoded before it is matched, as the browser's request will be:
//!   `href="my%20file.txt"` names `my file.txt`. What is written is a valid URL
//!   (`caf%C3%A9%20menu.4da7f91f.txt`), also for a raw `href="/café menu.txt"`.
//! - Under `nest_service("/static", ..)`, rewritten absolute links would miss the mount
//!   point. `base = "/static"` puts it in front of them.
//!
//! A hashed URL that would name a file of the folder is a compile error naming both. So
//! are two files whose constant names collide (`a-b.js` and `a_b.js` are both
//! `A_B_JS`).
//! [`.fingerprinted_cache_control(value)`](crate::ServeAssets::fingerprinted_cache_control)
//! sets the policy of hashed URLs. In dev mode
//! ([`.dev_folder`](crate::ServeAssets::dev_folder)) they revalidate like the others.
//!
//! # Subresource Integrity
//!
//! Every embedded asset carries its Subresource Integrity value, computed at compile
//! time over the bytes served (after rewriting).
//! `frontend::ASSETS.get("/js/app.js").unwrap().integrity()`
//! ([`Asset::integrity`](crate::Asset::integrity)) is `Some("sha384-…")`, and `None`
//! for a file read from disk. Browsers check it after content decoding, so the one
//! value holds for the br and gzip bodies too:
//!
//! ```rust
//! # #[embed_assets::embed("../examples/public", fingerprint = true)]
//! # mod frontend {}
//! fn script_tag() -> String {
//!     let js = frontend::ASSETS.get("/js/app.js").unwrap();
//!     format!(
//!         r#"<script src="{}" integrity="{}"></script>"#,
//!         js.url(),
//!         js.integrity().unwrap(),
//!     )
//! }
//! # assert!(script_tag().contains(r#"integrity="sha384-"#));
//! ```
//!
//! With `integrity = true` (and `rewrite_references`), the macro writes the attribute
//! into the pages itself. `<script src="js/app.js">` is served as `<script
//! src="js/app.3f2a1b9c.js" integrity="sha384-…">`. So are `<link rel="stylesheet">`
//! and `<link rel="modulepreload">`. A page waits for the style sheets it links to be
//! rewritten first, so the value is that of the bytes the browser gets. A file read
//! from disk has no value, and its element is left without one. So is an element marked
//! `data-no-integrity`: `<link id="theme" rel="stylesheet" href="theme/dark.css"
//! data-no-integrity>` lets a script switch it to `theme/light.css`. The `Link` field
//! of [`.preload_links()`](crate::ServeAssets::preload_links) gives each preload the
//! value of its element, as a browser matches the two by it:
//!
//! ```rust
//! #[embed_assets::embed("../examples/public", fingerprint = true, rewrite_references = true, integrity = true)]
//! mod frontend {}
//! # assert!(frontend::ASSETS.get("/index.html").is_some());
//! ```
//!
//! # Why `build-override`
//!
//! The quick start's `Cargo.toml` builds the macro optimised, in both profiles:
//!
//! ```toml
//! [profile.dev.build-override]
//! opt-level = 3
//! [profile.release.build-override]
//! opt-level = 3
//! ```
//!
//! By default cargo builds the macro unoptimised, in every profile. Brotli in an
//! unoptimised macro is several times slower. With both sections, a 20 MB folder takes
//! ~25 s cold in a release build; without them, ~90 s. A debug build takes ~3 s, as it
//! uses faster compression settings. With only the dev section, a release rebuild after
//! editing a 900 KB bundle took 8.0 s instead of 4.0 s. Later builds reuse a cache
//! keyed by content. `build-override` optimises every proc macro and build script of
//! the crate: in an app with dozens of them (Leptos, say), name the macro's crates
//! instead ([the frameworks guide](crate::guide::frameworks#leptos) lists them), or a
//! cold release build takes twice as long.
