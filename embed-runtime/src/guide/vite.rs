//! With Vite: a frontend built by npm in the build script, its development loop, and
//! real frontends from npm (Swagger UI, a 14 MB `.wasm`).
//!
//! The repository's `examples/vite` is a Vite + TypeScript app built by `cargo build`.
//! Its `build.rs` runs npm, the macro embeds the output, and axum serves it next to the
//! API the app calls:
//!
//! ```sh
//! cargo run -p example-vite     # builds frontend/ with npm, serves http://127.0.0.1:3000/
//! ```
//!
//! The crate's `Cargo.toml` adds the build helper:
//!
//! ```toml
//! [build-dependencies]
//! embed-assets-build = "0.1"
//! ```
//!
//! `build.rs`:
//!
//! ```rust,ignore
//! fn main() -> Result<(), embed_assets_build::Error> {
//!     embed_assets_build::Npm::new("frontend").run()?; // builds frontend/dist
//!     Ok(())
//! }
//! ```
//!
//! and the crate embeds `frontend/dist`:
//!
//! ```rust,ignore
//! #[embed_assets::embed("frontend/dist")]
//! pub mod frontend {}
//! ```
//!
//! - `npm ci` runs when `node_modules` is missing, or was installed from another
//!   `package-lock.json`. `npm run build` runs when a source, the lockfile or the
//!   output differs from the last build. Both are compared by content. So a `git
//!   checkout` that only touches modification times runs no npm, and a `cargo build`
//!   with nothing changed does not start the build script at all.
//! - Measured on the example, copied into a fresh crate whose dependencies were built:
//!   first build 5.4 s (`npm ci` from npm's cache, `vite build`, compile), no-op
//!   build 0.07 s, one-file edit 2.1 s.
//! - A failed npm step fails the build, with npm's output and the command that
//!   reproduces it. A missing npm says what to install.
//! - `EMBED_SKIP_NPM=1` skips npm when the output was built beforehand (a Docker stage,
//!   a CI step). `NPM` names another npm program.
//! - With `build.manifest = true` in `vite.config.ts`, Vite writes
//!   `dist/.vite/manifest.json`, and the macro reads it. Every file Vite content-hashed
//!   (all of `assets/`) is served with `public, max-age=31536000, immutable` at its own
//!   URL, with no second hash. `index.html` and the files of `public/` keep `no-cache`.
//!   The manifest is never served. For other bundlers, `hashed = "assets/**"` marks the
//!   files they hashed.
//! - The module also gets `paths::entries`, one constant per entry point (an
//!   [`Entry`](crate::Entry)), for server-rendered pages:
//!
//!   ```rust
//!   # // A Vite build with its manifest, as `frontend/dist` would hold.
//!   # #[embed_assets::embed("../tests/fixtures/vite-releases/public")]
//!   # pub mod frontend {}
//!   let entry = frontend::paths::entries::INDEX_HTML; // an embed_assets::Entry
//!   let tags = format!(r#"<script type="module" src="{}"></script>"#, entry.file());
//!   // entry.css(): its style sheets; entry.imports(): chunks for <link rel="modulepreload">
//!   # assert!(tags.contains("/assets/index-") && !entry.css().is_empty());
//!   ```
//!
//! # The development loop
//!
//! No rebuild of the crate is needed. `vite build --watch` rewrites `frontend/dist` on
//! every save. The crate's dev mode ([`.dev_folder`](crate::ServeAssets::dev_folder),
//! here behind `FRONTEND_DEV=1`) serves that folder as it is, new hashed files
//! included:
//!
//! ```sh
//! (cd examples/vite/frontend && npm run watch) &   # vite build --watch
//! FRONTEND_DEV=1 cargo run -p example-vite         # reload the page after a save
//! ```
//!
//! The example turns dev mode on like this:
//!
//! ```rust
//! # #[embed_assets::embed("../examples/public")]
//! # mod frontend {}
//! let service = frontend::ASSETS.service();
//! let service = match std::env::var_os("FRONTEND_DEV") {
//!     Some(_) => service.dev_folder(concat!(env!("CARGO_MANIFEST_DIR"), "/frontend/dist")),
//!     None => service,
//! };
//! ```
//!
//! Or use Vite's own dev server, with hot module reload. `npm run dev` in `frontend/`
//! serves the sources on 127.0.0.1:5173, and proxies `/api` to the Rust server on port
//! 3000 (change `API_PORT` in `vite.config.ts` if you move it).
//!
//! # Real frontends from npm
//!
//! Two examples of the repository embed packages from npm as they ship, each installed
//! from its committed lockfile by its `build.rs` (`embed_assets_build::Npm`), and each
//! checked in Chromium by the repository's `tests/tests/browser_frontends.rs`:
//!
//! ```sh
//! cargo run -p example-swagger-ui   # Swagger UI for a JSON API, http://127.0.0.1:3000/
//! cargo run -p example-wasm         # esbuild's 14 MB .wasm, compiled in the browser
//! ```
//!
//! - **Swagger UI** (`examples/swagger-ui`): `swagger-ui-dist` copied to
//!   `frontend/dist` with an initializer that loads the API's `/openapi.json` (a
//!   hand-written OpenAPI 3 document served by an axum route), embedded with `exclude =
//!   "**/*.map"`:
//!
//!   ```rust,ignore
//!   #[embed_assets::embed("frontend/dist", exclude = "**/*.map")]
//!   pub mod ui {}
//!   ```
//!
//!   The UI renders the document; `swagger-ui-bundle.js` (1.7 MB) reaches the browser
//!   as a 391 KB br body with a strong ETag, and a reload revalidates it with a 304.
//!
//!   Beside utoipa-swagger-ui 10.0.2 (axum, the same swagger-ui-dist 5.35.0, a one-path
//!   document; release builds, stripped; bodies as sent to `Accept-Encoding: gzip,
//!   deflate, br, zstd` for the page and everything it loads, both favicons included):
//!
//!   | | this example | utoipa-swagger-ui | with `gzip` | with `gzip, minified` |
//!   |---|---:|---:|---:|---:|
//!   | binary | 5.4 MB | 14.4 MB | 5.4 MB | 3.3 MB |
//!   | first load on the wire | 489 KB (br) | 2,192 KB (identity) | 577 KB (gzip) | 577 KB (gzip) |
//!   | reload: 304s of 9 requests | 8 (all but the document, an axum route) | 0 | 0 | 0 |
//!
//!   utoipa-swagger-ui sends no `ETag`, `Last-Modified` or `Cache-Control`, so a reload
//!   downloads everything again; with `gzip` it sends gzip whatever `Accept-Encoding`
//!   says, with no `Vary`. Its smallest binary stores gzip bodies only, where this
//!   example stores br and gzip (`brotli = false` would store gzip alone, as the
//!   binary size table in the benchmarks guide shows); its default embeds the source
//!   maps, which `minified` (or `exclude` here) leaves out.
//! - **WebAssembly** (`examples/wasm`): esbuild-wasm's `esbuild.wasm` (14 MB) is over
//!   `max_embed_size`, but it compresses: it is embedded as its br and gzip bodies only
//!   (3.1 and 3.8 MB) and served `application/wasm`, br, from memory. The page compiles
//!   it with `WebAssembly.instantiateStreaming` and runs esbuild on a line of
//!   TypeScript. A Leptos or Dioxus app's `.wasm` is served the same way.
