//! Deploying: one binary, media beside it, caches and CDNs, HTTPS, releases and
//! rolling deploys, and dictionary compression (RFC 9842) for returning browsers.
//!
//! - **One binary.** Everything under `max_embed_size` is inside it. There is nothing
//!   to copy next to it, and no cache to warm.
//! - **Media next to it.** Files over the limit are read from disk at run time. By
//!   default they come from the folder the macro read at build time, so `cargo run`
//!   works. In production, ship that folder and point
//!   [`.disk_root("/srv/media")`](crate::ServeAssets::disk_root) at it. Call
//!   [`.check_disk()`](crate::ServeAssets::check_disk) at start-up, so a missing file
//!   fails the deploy, not a request.
//! - **Caches and CDNs.** Every response carries a strong `ETag` and `Last-Modified`.
//!   Where encodings differ it carries `Vary: Accept-Encoding`, so a shared cache
//!   stores and revalidates each encoding separately. The default `Cache-Control:
//!   no-cache` makes browsers revalidate every time (a cheap 304). But shared caches
//!   such as nginx and Varnish do not store `no-cache` (nor `max-age=0`) responses at
//!   all. nginx with `proxy_cache` on even drops the browser's `If-None-Match`, so
//!   every revalidation becomes a full 200 (the proxy tests show both).
//! - **Behind a CDN or caching proxy**, let it keep copies for a while and revalidate
//!   itself, as `s-maxage=300` below does. Browsers revalidate against the cache. The
//!   cache revalidates against you every five minutes, with `If-None-Match`. After a
//!   deploy, a cache may serve the old version for up to `s-maxage` seconds: keep it
//!   short, or purge on deploy.
//! - **Fingerprinted URLs** (`app.3f2a1b.js`) can be cached for a year, as
//!   [`cache_control_for`](crate::ServeAssets::cache_control_for) below does for
//!   `/assets/`.
//! - **Rolling deploys**: see [releases and rolling
//!   deploys](#releases-and-rolling-deploys).
//!
//! ```rust
//! # #[embed_assets::embed("../examples/public")]
//! # mod frontend {}
//! use embed_assets::http::HeaderValue;
//!
//! let service = frontend::ASSETS
//!     .service()
//!     .cache_control(HeaderValue::from_static("public, max-age=0, s-maxage=300"))
//!     .cache_control_for("/assets/", HeaderValue::from_static("public, max-age=31536000, immutable"));
//! ```
//!
//! # HTTPS
//!
//! With the `tls` feature, [`Server::tls`](crate::Server::tls) has `serve` terminate
//! TLS itself: rustls with its aws-lc-rs provider, TLS 1.3 and 1.2 only (1.1 and
//! below are refused), ALPN `http/1.1` and, with `http2`, `h2`. Hits are answered on
//! the same fast path inside the TLS session (pipelining included); bodies are
//! encrypted in user space, a chunk at a time, so none goes with `sendfile`. The TLS
//! handshake counts against the header-read timeout.
//!
//! The crypto provider is aws-lc-rs, rustls's default, chosen by measurement
//! (`bench-provider`, beside ring on one core): it gives browsers post-quantum key
//! exchange (X25519MLKEM768) for about the server CPU per handshake that ring spends on
//! plain X25519, is 1.1–1.2× ring like for like and 1.7× at AES-GCM encryption, and
//! costs a longer first build (about 40 s more CPU) and about 2 MB more binary.
//!
//! ```no_run
//! # #[embed_assets::embed("../examples/public")]
//! # mod frontend {}
//! # #[cfg(all(feature = "tls", feature = "axum"))]
//! fn main() -> std::io::Result<()> {
//!     let app = axum::Router::new();
//!     // certbot's files, say; a renewal is taken without a restart.
//!     let tls = embed_assets::Tls::from_pem_files(
//!         "/etc/letsencrypt/live/example.com/fullchain.pem",
//!         "/etc/letsencrypt/live/example.com/privkey.pem",
//!     )?;
//!     embed_assets::Server::bind("0.0.0.0:443")?
//!         .tls(tls)
//!         .serve(frontend::ASSETS.service(), app)
//! }
//! # #[cfg(not(all(feature = "tls", feature = "axum")))]
//! # fn main() {}
//! ```
//!
//! - **Certificates from files.** The chain (the server's certificate first) and its
//!   key (PKCS#8, PKCS#1 or SEC1) as PEM. A file that is missing, holds no
//!   certificate or key, a key that is not the certificate's, or a certificate that
//!   names no host (no subjectAltName: a CA's, say), is an error from
//!   [`Tls::from_pem_files`](crate::Tls::from_pem_files) naming the file, before
//!   anything listens. A client that asks (by SNI) for a name the certificate is not
//!   for is logged, once per name, on `embed_assets::tls`: a DNS name pointed at the
//!   server that the certificate misses.
//! - **Certificates from ACME.** With the `acme` feature,
//!   [`Tls::acme`](crate::Tls::acme) has the server obtain its certificate from an
//!   ACME directory (Let's Encrypt's by default) and renew it 30 days before it
//!   expires, swapped in live; the names are proved by TLS-ALPN-01 on the TLS port or,
//!   with `Acme::http_01`, by HTTP-01 on the redirecting listener. The account and the
//!   certificate are kept in a cache folder (keep it private and persistent: a restart
//!   serves the kept certificate and orders nothing, and Let's Encrypt limits how
//!   many certificates a set of names gets a week). Each order, and each failure
//!   (retried 10 s later, then twice as long each time up to an hour), is logged on
//!   the `tracing` target `embed_assets::tls`.
//!
//! ```no_run
//! # #[embed_assets::embed("../examples/public")]
//! # mod frontend {}
//! # #[cfg(all(feature = "acme", feature = "axum"))]
//! fn main() -> std::io::Result<()> {
//!     let app = axum::Router::new();
//!     let acme = embed_assets::Acme::new(["example.com"], "/var/lib/example/acme")
//!         .contact("mailto:admin@example.com");
//!     embed_assets::Server::bind("0.0.0.0:443")?
//!         .tls(embed_assets::Tls::acme(acme)?)
//!         .redirect_http("0.0.0.0:80")?
//!         .serve(frontend::ASSETS.service(), app)
//! }
//! # #[cfg(not(all(feature = "acme", feature = "axum")))]
//! # fn main() {}
//! ```
//!
//! - **Renewals from files.** The two files are looked at again at most once a second, when a
//!   client connects; a changed pair is read and used for new connections, the open
//!   ones keep theirs. A pair that does not match yet (a renewal that has written the
//!   key and not the certificate) leaves the one in use in place, with a warning on
//!   the `tracing` target `embed_assets::tls`, until the files change again.
//! - **Plain HTTP beside it.** [`Server::redirect_http("0.0.0.0:80")`](crate::Server::redirect_http)
//!   answers every cleartext request with `308 Permanent Redirect` to the same URL
//!   over `https` (nothing of the site in cleartext), and
//!   [`Server::hsts`](crate::Server::hsts) sends `Strict-Transport-Security` with every
//!   answer over TLS (never in cleartext).
//! - **When to leave TLS to something in front.** A CDN or a load balancer that
//!   terminates TLS anyway (and keeps certificates for many hosts), client
//!   certificates, OCSP stapling, or a `sendfile` path for large downloads (the kernel
//!   cannot send encrypted bytes without kTLS): keep `serve` in cleartext behind it.
//!
//! # Releases and rolling deploys
//!
//! While replicas of two releases share a balancer, a page loaded from release N asks a
//! replica of release N+1 for its own hashed files (`app.<old hash>.js`, a lazy chunk).
//! A server that knows only its own build answers 404, or worse the single-page app's
//! page, and the page breaks. Two things prevent it:
//!
//! **Earlier releases' hashed files are kept and served.** After each release build,
//! `embed_assets_build::Releases` records the folder into `releases/`; the macro's
//! `releases` option serves, from every kept release, the files it served at a hashed
//! URL (fingerprinted, or hashed by a bundler: Vite's manifest, the `hashed` globs), at
//! that URL, immutable and compressed like this build's files:
//!
//! ```rust,ignore
//! // build.rs ([build-dependencies] embed-assets-build = "0.1")
//! fn main() -> Result<(), embed_assets_build::Error> {
//!     embed_assets_build::track("public");
//!     embed_assets_build::Releases::new("releases").keep(3).record("public")?;
//!     Ok(())
//! }
//! ```
//!
//! ```rust
//! #[embed_assets::embed("../examples/public", fingerprint = true, releases = "releases")]
//! mod frontend {}
//! # assert!(frontend::ASSETS.get("/index.html").is_some());
//! ```
//!
//! - Only release-profile builds record; a debug build records nothing. A release is
//!   its files' paths and bytes: building the same files again adds nothing, and its id
//!   is the same on every machine (`frontend::ASSETS.release()`
//!   ([`Assets::release`](crate::Assets::release)) is this build's, once recorded).
//!   Bytes are stored once across releases, named by their SHA-256, and only the newest
//!   `keep` releases stay. `.max_age(Duration)` also drops a release replaced longer
//!   ago than that, as hosting platforms bound skew protection by count and by age
//!   (`.keep(10).max_age(Duration::from_secs(14 * 86_400))`: ten versions, fourteen
//!   days); a release is replaced when the next one is recorded.
//! - Each kept release goes through this build's phases with this build's options, so
//!   its hashed URLs are the ones its pages named. Its pages and other files at no
//!   hashed URL are not served: they change in place, and this build has its own. Its
//!   files are not in `paths`; [`Asset::earlier_release()`](crate::Asset::earlier_release) marks them
//!   in `ASSETS.iter()`, and [`ASSETS.report()`](crate::Assets::report) says how many
//!   there are and what they add to the binary (a file that did not change between
//!   releases is one file, at one hashed URL).
//! - A kept release whose hashed URL names other bytes than this build's (a `hashed`
//!   glob over a name that is not content-hashed) is a compile error naming the
//!   release.
//! - Keep `releases/` between release builds: commit it with the crate, or keep it as a
//!   CI cache. Only the build reads it (the files are embedded), so a Docker build can
//!   keep it in a cache mount of the builder, which the build script writes and the
//!   macro reads in the same `RUN`:
//!
//!   ```dockerfile
//!   FROM rust:1 AS build
//!   WORKDIR /app
//!   COPY . .
//!   # With releases/ committed, a plain `RUN cargo build --release` is enough.
//!   RUN --mount=type=cache,target=/app/releases cargo build --release
//!
//!   FROM debian:bookworm-slim
//!   COPY --from=build /app/target/release/app /usr/local/bin/app
//!   CMD ["app"]
//!   ```
//!
//! In headless Chromium (the repository's `tests/tests/browser_rolling.rs`): a page of
//! release 2 stays open while its server becomes release 3, then loads its lazy chunk.
//! With `releases` it gets release 2's chunk from release 3's server; without, the
//! import fails.
//!
//! **A version no kept release has is a final 404.** A request for a version of a
//! hashed file that this build does not have (`/js/app.0badf00d.js` where it serves
//! `/js/app.3f2a1b9c.js`, or `/assets/index-Xy12ab_Z.js` beside Vite's
//! `/assets/index-BxK3abc1.js`) gets `404` with `Cache-Control: no-store` and a plain
//! text body: never the single-page app's page (which a `<script>` would run as a
//! script), never the application behind `with_fallback`, and never kept by a CDN past
//! the deploy that brings the file. The hash is read as the last `.`- or `-`-separated
//! part of the name before its extension: 6 to 88 letters, digits, `_` or `-`.
//!
//! **The other way round, the balancer retries a 404.** A page of release N+1 may ask
//! a replica still on release N for N+1's new hashed files, which N has never heard
//! of; no server-side option can make N know them. Let the balancer ask the next
//! replica when one answers 404, so the request finds the new one (a 404 of a GET is
//! safe to retry; nginx):
//!
//! ```nginx
//! upstream replicas { server 10.0.0.1:3000; server 10.0.0.2:3000; }
//! location / {
//!     proxy_pass http://replicas;
//!     proxy_next_upstream error timeout http_404;
//!     proxy_next_upstream_tries 2;
//! }
//! ```
//!
//! HAProxy's `retry-on 404` and Envoy's `retriable_status_codes: [404]` do the same; a
//! balancer that pins a client to one replica (sticky sessions) needs neither. The
//! repository's `tests/tests/browser_balancer.rs` runs replicas of releases 1 and 2 of
//! a Vite app behind nginx's round-robin with this setting: Chromium, its cache off,
//! loads the page again and again, gets pages of both releases, and every page runs
//! its own bundle with no failed request; without the retry, the first page of
//! release 2 fails to load its bundle.
//!
//! ## Stale tabs after a deploy
//!
//! A tab left open longer than the kept releases reach back (or one whose page a
//! proxy kept) still breaks: its next lazy chunk is a version no replica has, a final
//! 404. With `reload_on_stale = true` the macro adds to every page a small inline
//! script (about 1 KB, no file of its own) that reloads the page once when that
//! happens, onto the release the server has now:
//!
//! ```rust
//! #[embed_assets::embed("../examples/public", fingerprint = true, reload_on_stale = true)]
//! mod frontend {}
//! # fn main() {
//! # let page = frontend::ASSETS.get("/index.html").unwrap();
//! # let html = std::str::from_utf8(page.body(embed_assets::Encoding::Identity).unwrap()).unwrap();
//! # assert!(html.contains("embed-assets-reload"));
//! # }
//! ```
//!
//! - **What it watches:** Vite's `vite:preloadError`, a failed `import()` nobody
//!   handled, a `<script>` or `<link>` whose file failed, and (Chromium) any script or
//!   style sheet answered 404, even when the page handles the failed import itself.
//! - **When it reloads:** only when the server confirms the file is gone for good: a
//!   `HEAD` of that URL, same origin only, answers `404` with `Cache-Control:
//!   no-store`, which is the answer to a version of a hashed file this build does not
//!   have, and to nothing else. A network error, an ordinary 404, a 404 of an API call,
//!   or a script's own exception never reloads. Such an answer is inconclusive (a
//!   server restarting, a proxy's 502, a replica that still has the file): the guard
//!   asks again 1, 2, 4, 8 and 16 seconds later, then waits for the URL to fail anew.
//! - **Never in a loop:** at most one reload a minute per tab (`sessionStorage`). A
//!   release broken in itself fails once more after the reload, and stays put.
//! - **CSP:** it is an inline script of the page like the page's own, so its hash is in
//!   [`Asset::script_hashes()`](crate::Asset::script_hashes) and `strict_csp` allows it.
//!
//! In headless Chromium (`tests/tests/browser_rolling.rs`): a page of release 2 stays
//! open while its server becomes release 3 without release 2's files; the page's lazy
//! import fails, the guard reloads the page once, and release 3's page then loads its
//! own chunk. Without the option, the page stays broken; with a release whose own page
//! names a chunk it lacks, the page reloads once and no more; and when the guard's
//! first check meets a server answering 503 (restarting between releases), it checks
//! again and reloads once the new release answers.
//!
//! ## Which release a replica serves
//!
//! [`.release_endpoint("/_release")`](crate::ServeAssets::release_endpoint) puts this
//! build's release id in a `Release-Id` field on every answer about an asset, and
//! answers `/_release` with the releases it serves files of, as JSON that no cache
//! stores:
//!
//! ```text
//! $ curl -s https://replica-1.internal/_release
//! {"release":"0f23ce79dced1716","releases":[{"id":"0f23ce79dced1716","recorded":1796472000},{"id":"5bf77a53ffd05cec","recorded":1796385600}]}
//! ```
//!
//! During a rolling deploy, a job waits until every replica serves the new build, then
//! purges the CDN; the new id is the build's own (`ASSETS.release()`, or the name of the
//! newest list in `releases/`, `<sequence>-<id>.release`):
//!
//! ```sh
//! new=$(ls releases/*.release | sort | tail -n 1 | sed 's/.*-\(.*\)\.release/\1/')
//! for replica in replica-1.internal replica-2.internal; do
//!   for try in $(seq 60); do
//!     [ "$(curl -s "https://$replica/_release" | jq -r .release)" = "$new" ] && break
//!     sleep 5
//!   done
//! done
//! # now purge the pages (below)
//! ```
//!
//! ## Purging a CDN by tag
//!
//! [`.cache_tags("shop")`](crate::ServeAssets::cache_tags) tags every answer about an
//! asset in `Cache-Tag` (Cloudflare) and `Surrogate-Key` (Fastly, Varnish's xkey):
//! `shop`, what it is (`shop-page`, `shop-hashed`, `shop-other`, `shop-disk`) and, with
//! `releases`, the release its file is of (`shop-release-0f23ce79dced1716`). After a
//! deploy, purge the pages, never the hashed files (they cannot change, and pages of
//! the release before still load them):
//!
//! ```sh
//! # Cloudflare
//! curl -X POST "https://api.cloudflare.com/client/v4/zones/$ZONE/purge_cache" \
//!   -H "Authorization: Bearer $TOKEN" --json '{"tags":["shop-page"]}'
//! # Fastly
//! curl -X POST "https://api.fastly.com/service/$SERVICE/purge/shop-page" -H "Fastly-Key: $KEY"
//! ```
//!
//! Varnish purges the same key with the xkey module (`xkey.purge("shop-page")`), or
//! without it by a ban on the field (the regex unquoted, with no space in it):
//! `ban("obj.http.Surrogate-Key ~ (^|[[:space:]])shop-page([[:space:]]|$)")`.
//! The repository's `tests/tests/proxy_purge.rs` does that behind a real Varnish: one
//! ban empties release 3's pages and leaves every hashed file cached, another empties
//! release 1 alone. CDNs remove both fields before they answer clients; where nothing in
//! front does, they show the release ids and classes to anyone (no secret, but say so
//! if that matters).
//!
//! ## Only the difference: dictionary compression (RFC 9842)
//!
//! A browser that comes back after a deploy already has the last release's files. With
//! `releases`, the next release's files are also stored compressed *against* them
//! (Compression Dictionary Transport, RFC 9842), so a returning browser downloads
//! little more than what changed:
//!
//! - Every file at a hashed URL is sent with `Use-As-Dictionary: match="app.*.js"` (its
//!   name with any hash, relative to its own URL, so it holds wherever the service is
//!   mounted), and each page with one for its own URL (`{index.html}?` for a folder's
//!   index). Chromium-based browsers (130+) keep such a response as a dictionary, but
//!   only one with a freshness lifetime: never one sent `no-cache`. So such a page is
//!   sent `Cache-Control: max-age=0, stale-while-revalidate=2592000, proxy-revalidate`
//!   ([`ServeAssets::DICTIONARY_PAGE_CACHE_CONTROL`](crate::ServeAssets::DICTIONARY_PAGE_CACHE_CONTROL))
//!   unless you set its policy: stale at once, so a navigation revalidates it and a
//!   changed page shows at once, kept as a dictionary for 30 days, and never served
//!   stale by a shared cache. Chromium serves a stale page while revalidating only to a
//!   `fetch`, never to a navigation. Firefox, which uses no dictionaries, does serve it
//!   stale to a navigation: the first one after a deploy shows the previous release's
//!   page (which works, its files being kept) while it fetches the new one, and the
//!   next one shows the new release (`tests/tests/firefox_rolling.rs`). Where fresh
//!   pages in every browser matter more than page deltas, set the pages' policy
//!   (`.cache_control_for("/", HeaderValue::from_static("no-cache"))`): the files at
//!   hashed URLs keep theirs.
//! - At build time, each file of this build that a kept release had in another version
//!   (the same name with another hash; for a page, the same path) gets a `dcb` body
//!   (brotli with the earlier version as a raw dictionary) and, with the `zstd`
//!   feature, a `dcz` body (Zstandard), against each kept earlier version. A body is
//!   kept only where it is smaller than the best one a client without the dictionary
//!   gets, by the same margin as any encoded body. They are cached like the other
//!   bodies.
//! - When a request names one of those versions in `Available-Dictionary` and lists
//!   `dcb` or `dcz` in `Accept-Encoding` (q-values honoured; `*` does not stand for a
//!   dictionary coding), it gets that body: its own strong ETag, ranges and 304s as for
//!   any representation. Every response of such a file carries `Vary: accept-encoding,
//!   available-dictionary`; anything else (another dictionary, no dictionary coding,
//!   two `Available-Dictionary` lines) gets what it got before.
//! - Chromium asks with a dictionary only in a secure context it trusts fully: over
//!   `https` with a certificate from a publicly trusted root (a certificate from
//!   [ACME](#https) is one), or on `localhost`. Behind a root an administrator added
//!   (a company's or a test's), or over `http://` to a LAN address, it sends no
//!   `Available-Dictionary` and gets br (`tests/tests/browser_tls.rs`).
//! - [`Asset::deltas()`](crate::Asset::deltas) lists them, and
//!   [`ASSETS.report()`](crate::Assets::report) says what they add.
//! - **Caches in front** (a CDN, nginx, Varnish) never hand a `dcb`/`dcz` body to
//!   another client: by default such an answer is sent `private` (its policy with
//!   `public` and `s-maxage` dropped: `private, max-age=31536000, immutable` at a
//!   hashed URL), so no shared cache stores it, even one that keys its copies on the
//!   URL alone and ignores `Vary`. Every other answer of the file (br, gzip, identity)
//!   is shared as before; a client with the dictionary gets the delta from the server,
//!   or the shared br when the cache already holds it, and never a body it cannot
//!   decode. The repository's `tests/tests/proxy_dictionary.rs` checks this behind
//!   nginx with `proxy_ignore_headers Vary` and Varnish with `Vary` removed, in either
//!   order of clients.
//! - Where every cache in front passes `Accept-Encoding` and `Available-Dictionary`
//!   through unchanged and keeps a copy per value (honours `Vary: accept-encoding,
//!   available-dictionary`), [`ServeAssets::shared_cache_deltas`](crate::ServeAssets::shared_cache_deltas)
//!   lets it store the deltas too. nginx's `proxy_cache` and Varnish with its built-in
//!   VCL do, with nothing about dictionaries in their configuration; Varnish must run
//!   with `-p http_gzip_support=off` (else it asks for gzip whatever the client accepts:
//!   safe, but no client gets br or a delta).
//!
//! | cache in front | what to set |
//! |---|---|
//! | Cloudflare | the default: it passes `Available-Dictionary` through (since April 2026) but has been seen to replay one stored `dcb` body to br, gzip and identity clients; it does not store `private` answers |
//! | Fastly | the default; `shared_cache_deltas()` only with a VCL that keeps `Available-Dictionary` in the request and `Vary` in the stored response |
//! | CloudFront | the default, with `Available-Dictionary` in the origin request policy (else the server never sees it and sends no delta: safe, and no saving); CloudFront keys only on the fields of its cache policy |
//! | nginx `proxy_cache` | either; `shared_cache_deltas()` unless `proxy_ignore_headers Vary` is set |
//! | Varnish | either, with `-p http_gzip_support=off`; the default if the VCL removes or rewrites `Vary` |
//!
//! To check a deployment, with `OLD` the earlier release's URL of a hashed file and
//! `NEW` this release's: ask once as a browser holding the dictionary, then as one
//! without it. The first must say `content-encoding: dcb` (or `dcz`) and `cache-control:
//! private, …` (unless the deltas are shared); the second, asked right after, must say
//! `br`, never `dcb`, whatever the CDN's cache status field says:
//!
//! ```text
//! dict=":$(curl -s "$OLD" | openssl dgst -sha256 -binary | base64):"
//! curl -s -o /dev/null -D - -H 'accept-encoding: dcb, dcz, br' -H "available-dictionary: $dict" "$NEW"
//! curl -s -o /dev/null -D - -H 'accept-encoding: br, gzip' "$NEW"
//! ```
//!
//! What a browser that kept release 1 downloads for release 2's file, and what it costs
//! (`cargo run --release --manifest-path bench/Cargo.toml --bin bench-dictionary` in
//! the repository; the macro's `compression = "best"`, as in a release build):
//!
//! | release 2's file | identity | br | zstd | dcb | dcz |
//! |---|---:|---:|---:|---:|---:|
//! | the Vite example's bundle, one line added to `src/main.ts` | 1,171 B | 536 B | 649 B | 105 B (0.20× br) | 109 B (0.20×) |
//! | its `index.html` (names the new bundle) | 534 B | 236 B | 339 B | 64 B (0.27×) | 71 B (0.30×) |
//! | a 230 KB bundle (Vite's own largest chunk), one line added | 235,685 B | 44,155 B | 46,869 B | 88 B (0.002×) | 105 B (0.002×) |
//!
//! - The binary carries, per kept release, the hashed files that changed, with their
//!   encoded bodies: 2.8 KiB for the Vite example, 371 KiB for the 230 KB bundle; the
//!   deltas themselves add 0.3 KiB and 0.2 KiB.
//! - Build time: a rebuild after a one-line edit of the 230 KB bundle takes 1.0–1.3 s
//!   with `releases` against 0.7–0.9 s without (two runs of two edits each): the deltas
//!   are brotli 11 and zstd 19 against the 230 KB dictionary, about 0.3 s.
//!
//! In headless Chromium (the repository's `tests/tests/browser_dictionary.rs`): the
//! Vite example's app, built by Vite as release 1 and then with one more line in
//! `src/main.ts` as release 2, is opened on one origin, which then becomes release 2,
//! in the same browser. Chromium asks for the new bundle with `Available-Dictionary`
//! naming release 1's, gets it as `dcb`, decodes it and runs the new line. With the
//! test site, the page itself comes the same way: release 2's `index.html`, shown on
//! the first navigation after the deploy, arrives compressed against release 1's.
//!
//! Files too large to embed, slow clients and server timeouts are in [big
//! files](crate::guide::big_files).
