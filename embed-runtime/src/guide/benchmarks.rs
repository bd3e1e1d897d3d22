//! Benchmarks: requests per second and CPU time beside nginx, large files from disk,
//! real frontends beside rust-embed, and what the assets add to the binary.
//!
//! # Serving, beside nginx
//!
//! One run on a 2-core virtual machine: the server pinned to one core, the load
//! generator (wrk) to the other. Req/s moves 20–40% between rounds there. So read the
//! ratios, and the server CPU time per response, rather than any single req/s. The
//! repository's `bench/README.md` has the commands, the method and the full tables.
//!
//! A small embedded site (`bench-static --rounds 7`). Each cell is req/s as a ratio to
//! nginx, then the server CPU time per response:
//!
//! | URL | nginx | ours, axum `Router` fallback | ours, `with_fallback` under `axum::serve` | ours under hyper-util | hand-written ceiling, hyper-util |
//! |---|---:|---:|---:|---:|---:|
//! | /index.html (2 KB) | 85,222 · 11.1 µs | 0.94× · 11.2 µs | 1.15× · 10.3 µs | 1.16× · 9.7 µs | 1.19× · 9.4 µs |
//! | /favicon.ico (5 KB) | 93,610 · 10.2 µs | 0.91× · 11.8 µs | 0.93× · 10.6 µs | 1.06× · 10.1 µs | 1.03× · 9.7 µs |
//! | /css/app.css 304 | 104,436 · 8.7 µs | 0.89× · 10.7 µs | 0.93× · 9.9 µs | 1.05× · 8.8 µs | 1.14× · 8.2 µs |
//! | /js/app.js br (15 KB) | 105,439 · 9.4 µs | 0.81× · 11.6 µs | 0.82× · 11.2 µs | 0.83× · 11.5 µs | 0.88× · 10.3 µs |
//!
//! The library's own server, [`serve`](crate::serve), in another run, on a 2-core AMD
//! EPYC VM (`bench-static --servers ceiling-raw,ours-serve,ceiling-hyper,ours-hyper,nginx
//! --rounds 5`, nginx with its brotli module; each cell req/s, its ratio to nginx, and
//! the server CPU time per response). The hand-written loop parses each request with
//! `httparse` and writes a prebuilt response with one `writev`, with no `Date` and no
//! checks: the most the machine allows.
//!
//! | URL | nginx | ours under hyper-util | ours, `serve` | hand-written loop |
//! |---|---:|---:|---:|---:|
//! | /index.html (2 KB) | 54,077 · 18.1 µs | 1.54× · 12.1 µs | 75,449 · 1.40× · 12.3 µs | 1.53× · 10.6 µs |
//! | /favicon.ico (5 KB) | 53,372 · 19.5 µs | 1.39× · 13.4 µs | 77,531 · 1.45× · 12.4 µs | 1.42× · 11.8 µs |
//! | /css/app.css 304 | 82,807 · 11.7 µs | 0.84× · 12.8 µs | 81,953 · 0.99× · 11.4 µs | 0.99× · 10.9 µs |
//! | /js/app.js br (15 KB) | 53,659 · 17.8 µs | 1.11× · 14.9 µs | 57,737 · 1.08× · 14.5 µs | 1.17× · 12.5 µs |
//!
//! In that run wrk, on its own core, used 93–97% of it for every server but nginx: the
//! requests per second are the client's limit as much as the servers' (from run to
//! run `serve` lands within 0.91–1.02× of the hand-written loop), and the CPU time per
//! response is the fairer comparison (`serve` 1.47× nginx's on the index, 1.57× on the
//! favicon, 1.03× on the 304, 1.23× on the br body). On the 304 even the hand-written
//! loop spends 10.9 µs, against nginx's 11.7: what is left there is the kernel's (one
//! `recvfrom` and one `sendto` per response, as nginx; a profile puts 78% of
//! `serve`'s CPU on a 304 in the kernel).
//!
//! - Our code costs 0.3–1.2 µs per response more than a hand-written lookup in the same
//!   set-up. That lookup skips `Host` checks, q-value negotiation and most
//!   preconditions. The set-up matters more. Answering hits before axum's router ([the
//!   fastest set-up](crate::guide::frameworks#the-fastest-set-up)) saves about 1 µs per
//!   response. hyper-util's server, where a hit's body is not boxed, saves about
//!   another 0.6 µs.
//! - System calls per response: ours 2.09 in every set-up (`recvfrom`, then one
//!   `writev` for head and body), as the hand-written ceiling. nginx makes 5.08 on a
//!   200 and 2.07 on a 304. On the 15 KB br body, nginx's `sendfile` saves the copy
//!   into the socket that a hyper body always makes (about 2 µs per response).
//! - A 64 MiB file from disk, at the default 1 MiB chunk (`bench-disk --rounds 15`, a
//!   2-core AMD EPYC VM): 2969 MB/s single-stream (0.60× nginx) and 2928 MB/s with 8
//!   streams (0.71×), at 1.87× nginx's CPU per GB; 1.71× and 1.56× tower-http's
//!   `ServeDir`. The gap to nginx is the two copies `sendfile` avoids, which no hyper
//!   body can skip. Each chunk is read half a page away from its file offset modulo a
//!   page: on AMD Zen the kernel's copy into a buffer a few bytes after the source
//!   modulo 4 KiB (where the allocator puts a large block) is up to 9 times slower,
//!   and the same benchmark measured 0.31× and 0.44× nginx at 3.5× its CPU per GB
//!   before. 32 concurrent downloads grow RSS by 31 MiB (the bound is 2 × 32 × chunk
//!   + 8 MiB = 72 MiB).
//! - [`serve`](crate::serve) sends that file with `sendfile` but for a copied tail
//!   (see [`Server::sendfile_whole_files`](crate::Server::sendfile_whole_files)): for a
//!   client on the same machine, as the benchmark's is, what the client had not read
//!   when `sendfile` stopped plus 3 MiB, about 6.6 MB of the 64 here. In the same run:
//!   0.99× nginx single-stream and 1.14× with 8 streams, at 1.07× its CPU per GB; with
//!   `sendfile_whole_files(true)`, 1.11× and 1.16× at 0.98×. The same VM on another
//!   day gave 0.64–0.79× single-stream, until `serve` corked the socket while
//!   `sendfile` feeds it (`TCP_CORK`, nginx's `tcp_nopush`). Runs of seven rounds,
//!   alternated with the server before that change: 0.73–0.74× single-stream before,
//!   0.97–1.00× after (whole files: 0.70× before, 1.02–1.07× after); fifteen rounds
//!   after: 0.93× single-stream and 1.12× with 8 streams at 1.14× its CPU per GB, and
//!   0.97×, 1.00× and 1.01× with whole files. The first downloads after a start
//!   (`bench-disk first`: each server started afresh, four downloads in a row): the
//!   first at 0.91–0.96× nginx and the next ones at 0.93–1.00×, since the hash of a
//!   file for its content ETag waits for the downloads in flight (5 s at most) and
//!   runs at the lowest priority; 0.54× and 0.76–0.81× when the hash took half of the
//!   core beside them, 0.79× and 0.88–1.00× with the lowest priority alone. (With the tail sized from
//!   the kernel's limits, which clients on other machines get, 43 MiB on this machine,
//!   and before the chunks' placement above: 0.56×, 0.71× and 2.10×.) From a cold page
//!   cache (`bench-disk cold`, 32 files of 128 MiB, 1, 8 and 32 downloads at once, two
//!   rounds): 0.97–1.38× nginx's MB/s at 0.80–1.12× its CPU per GB by default (one
//!   download at 1.01× and 1.50× in the run before), and 1.02–1.49× at 0.60–1.03× with
//!   whole files.
//! - Embedded bodies of 16 KiB and more go from sealed memory with `sendfile`
//!   ([`Server::sendfile_embedded`](crate::Server::sendfile_embedded)), as nginx
//!   sends a `.br` file. Runs alternated with it on and off (`serve` on one core, wrk
//!   on the other, `bench-static serve --mode ours-serve`): the 43 KB br body of the
//!   site's CSS and its 45 KB image at 1.09–1.12× the requests per second and
//!   0.89–0.95× the CPU per response; the 15 KB br body of its script, no difference.
//! - With the client out of the way (`bench-static --pipeline 16`: 16 requests written
//!   at once per connection), `serve` writes the answers to the requests it read
//!   together, with one `writev`: 2.6× nginx on the favicon, 1.75× on the br body and
//!   6.8× on the 304 (1.3–3.8 µs of CPU per response against nginx's 8.3–10.8), within
//!   0.75–1.04× of a hand-written loop that does the same. nginx writes each answer on
//!   its own.
//! - HTTP Arena's static profile (`bench-arena`: 20 files, 1.27 MB, br where the file
//!   has it), one request at a time as HTTP Arena runs it: 1.04× nginx's requests/s
//!   with wrk at 98–99% of its core, 1.23× by CPU per response (14.2 against 17.5 µs):
//!   most of a response is the kernel copying 16 KB of br. Pipelined (`--pipeline
//!   16`): 4.98× nginx's requests/s, 3.3× by CPU per response (4.0 against 13.3 µs),
//!   0.98× the hand-written loop.
//! - Every framework adapter serves the same site; their ratios to axum are in the
//!   repository's `bench/README.md`.
//!
//! # Real frontends, beside rust-embed
//!
//! `bench-frontends` embeds four npm packages as they ship, and a one-page site, with
//! our defaults and with rust-embed 8 (through axum-embed), each in an axum server
//! built in release, in the same run (the repository's `bench/README.md`, section
//! "bench-frontends: real frontends from npm", has the method and the figures).
//! Ratios ours ÷ rust-embed:
//!
//! | folder | build, compression cache empty | edit rebuild, 4 KB file / largest bundle | rustc peak memory | stripped binary | first load on the wire |
//! |---|---:|---:|---:|---:|---:|
//! | monaco-editor 0.57 `min/` (151 files, 25 MB) | 1.92× | 0.94× / 1.03× | 0.94× | 0.45× | 0.20× |
//! | swagger-ui-dist 5.35 (27 files, 12.5 MB) | 1.45× | 0.91× / 0.95× | 0.99× | 0.57× | 0.22× |
//! | esbuild-wasm 0.28 (14 MB `.wasm`) | 1.52× | 0.96× / 0.98× | 0.75× | 0.54× | 0.22× |
//! | katex 0.16 `dist/` (81 files, 2.9 MB) | 1.27× | 0.94× / 0.99× | 0.99× | 0.81× | 0.35× |
//! | one 1 KB page | 0.96× | 0.93× / 0.92× | 1.00× | 0.98× | 1.00× |
//!
//! (Medians of three rounds for Monaco, katex and the page, one round for the others.)
//! Every file is served from memory, br to browsers. What the build spends is
//! compression, done once per file content and kept in a cache (the target folder):
//! with the cache kept, ours builds in 0.91–0.98× rust-embed's time. An edit rebuild
//! is mostly LLVM compiling the binary's own crate (the server code `main`
//! instantiates), the same for both; the macro's share of it is about 3%.
//!
//! The one-page row is the fixed cost: beside the same axum server with no embedder,
//! ours adds 262 KB and rust-embed 284 KB. The code that reads files at run time (the
//! on-disk stream, dev mode, mime_guess's table of media types) and the gzip decoder
//! of `compressed_only` are reached only through what the macro's table holds: a
//! binary whose files are all embedded, not stored compressed only, and that does not
//! call [`dev_folder`](crate::ServeAssets::dev_folder) links neither (before, the fixed
//! cost was 635 KB, and the page's binary 1.24× rust-embed's).
//!
//! # Binary size
//!
//! What the assets add to a stripped release binary (the same bytes
//! [`Assets::report()`](crate::Assets::report) lists, plus the table):
//!
//! | options | example site (48 KiB, 6 files) | 1000 files, 20 MB (750 text) |
//! |---|---|---|
//! | `gzip = false, brotli = false` (identity only) | 116 KiB | 20.1 MiB |
//! | `brotli = false, compressed_only = false` (identity + gzip) | 125 KiB | 26.0 MiB |
//! | `compressed_only = false` (identity + gzip + br) | 133 KiB | 31.3 MiB |
//! | `compressed_only = false`, `features = ["zstd"]` | 141 KiB | 36.8 MiB |
//! | **default** (gzip + br, compressed only) | 84 KiB | 16.5 MiB |
//! | `features = ["zstd"]` (gzip + br + zstd, compressed only) | 93 KiB | 22.1 MiB |
//! | `brotli = false` (gzip, compressed only) | 77 KiB | 11.3 MiB |
//!
//! (`bash bench/size/run.sh` in the repository; release builds, so the macro's
//! `compression = "best"`: brotli 11 up to 256 KiB a file, 9 above.)
//!
//! The example site's figures include about 65 KiB of serving code. By default a file
//! that compresses is stored only as its br and gzip bodies (`compressed_only`), which
//! together are smaller than the file: binaries are smaller than with every file stored
//! as it is (rust-embed's way), and every client that accepts gzip or br (every
//! browser) is served without decoding anything. A client that asks for the bytes as
//! they are (`curl` without `--compressed`, a `Range` request) costs one gzip decode of
//! that file, once per process; `compressed_only = false` stores them too.
//!
//! The fixed cost, beside a plain axum binary (one route, `axum::serve`; release,
//! stripped, the same `Cargo.lock`, the README's quick start otherwise, measured on
//! the example site's 70 KB):
//!
//! | binary | bytes |
//! |---|---:|
//! | axum alone | 1,247,560 |
//! | with embed-assets, default features (`axum`, `serve`) | 1,596,456 |
//! | with the `http2` feature too | 2,491,568 |
//!
//! So the library and the site add about 350 KB (670 KB before the code that reads
//! files at run time was linked only where a table or `dev_folder` needs it). `serve` costs nothing in a binary that
//! does not call it. HTTP/2 is not linked unless asked for (`http2`), since hyper
//! with it makes every hyper server of the binary carry h2. The glob patterns (the
//! `header` rules, dev mode's `include`/`exclude`) are matched by a small automaton of
//! the project's own, not by a regular-expression engine: that took 1.14 MB off the
//! default binary (3,055,080 bytes before).
//!
//! Source maps are often the largest files of an npm package (half of swagger-ui-dist's
//! bytes), and browsers fetch them only with the developer tools open: `exclude =
//! "**/*.map"` leaves them out. zstd bodies, on bench-static's site (230 KB CSS, 90 KB
//! JS): 4.5% larger than br, 12% smaller than gzip, and decoded 2× faster than br.
