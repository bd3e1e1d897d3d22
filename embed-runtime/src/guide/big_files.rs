//! Big files, slow clients and timeouts: how files over `max_embed_size` are streamed
//! from disk, and how to time out clients that send nothing.
//!
//! # Streaming from disk
//!
//! Files over `max_embed_size` (videos) are streamed from disk, a chunk at a time
//! ([`.chunk_size`](crate::ServeAssets::chunk_size), 1 MiB by default). What a download
//! must never do, it never does:
//!
//! - **No mixed bytes.** Every chunk is checked against the file the response was built
//!   from: its inode, length, modification time and status change time (which only the
//!   kernel sets, so an overwrite that puts the mtime back, as `cp -p` and `touch -r`
//!   do, is still seen). When the file changes, the download ends short and the
//!   connection closes: the client sees a failed download, never a complete one of two
//!   versions. A file removed or replaced by a rename (`mv new file`, the atomic way to
//!   deploy) keeps its bytes for the downloads already reading it, which finish whole.
//!   A `chmod` or `chown` also sets the status change time, so downloads in flight end
//!   early then too.
//!
//!   What a client gets of a file written in place, exactly: through a framework, a
//!   prefix of the old bytes, then the end. Under [`serve`](crate::serve), whose
//!   `sendfile` hands the socket the page cache's own pages, the write also reaches
//!   bytes already queued for the socket and not yet sent, so the prefix can end with
//!   bytes of the new version, as many as the socket's buffer and the client's window
//!   held (5.3 MB of them in `tests/tests/disk.rs`'s case on this machine's loopback;
//!   about 13 MiB at most with Linux's defaults), before the download is cut short.
//!   Either way it is short of its `Content-Length`, so a client knows it failed. A
//!   client that resumes must send `If-Range` with the `ETag` (or the date) it was
//!   given, as browsers and download managers do: it then gets the whole new file
//!   (200), not a tail that would complete two versions. `curl -C -` and `wget -c`
//!   resume without one and keep what they got. Deploy by renaming a new file over
//!   the old (`mv`), which no download in flight sees.
//! - **Validators from the content.** The `ETag` of a file on disk is the SHA-256 of
//!   its bytes, as for embedded files: two replicas with the same file under other
//!   mtimes send the same tag, so a CDN's revalidation or a player's `If-Range` resume
//!   across a load balancer works, and a changed file gets a new tag. It is computed
//!   once per version of the file, in the background (files up to 4 MiB on their first
//!   request); a large file's first responses go out at once, without an `ETag` until
//!   it is known. Only requested files are hashed, once per version and process: the
//!   hash reads the file once more from disk, at the lowest priority, and waits while
//!   files are being sent (5 s at most), so that it does not slow the downloads.
//! - **No date that cannot tell.** `Last-Modified` is the later of the mtime and the
//!   status change time, in whole seconds, so a file that changed less than a second
//!   ago is sent without one (its `ETag` still validates): a client given this
//!   second's date could not be told by it that the file changed again within the same
//!   second, an overwrite that puts the mtime back, and would be answered 304 for other
//!   bytes. Once the change is a second old, the date comes back.
//! - **Bounded memory.** A server takes a body's chunks before its socket does (hyper
//!   queues up to ~400 KiB per connection), and a download reads one chunk ahead while
//!   its client takes the last. So a download gets a further chunk while the server
//!   still holds one only within [`.read_budget`](crate::ServeAssets::read_budget) (32
//!   MiB by default, across all downloads); otherwise it waits until the socket takes
//!   it. A download the server holds nothing of reads a full chunk within the budget or
//!   32 KiB outside it, and nothing is read ahead for a client that is slower than the
//!   disk. 400 clients that stop reading grow the server by about 57 MiB (the budget,
//!   32 KiB each, and their connections), not 765 MiB; every byte arrives when they
//!   read again. The default covers 16 downloads at full speed (two 1 MiB chunks each);
//!   serving more at once, raise it to two chunks per download: 32 concurrent downloads
//!   of uncached 256 MiB files went at 420 MB/s with the default and 1,499 MB/s with
//!   `.read_budget(64 << 20)`, ahead of nginx with `sendfile` (1,344 MB/s) on the same
//!   machine.
//!
//! # Slow clients and timeouts
//!
//! A client that opens a connection and sends nothing, or half a request, is your
//! server's to time out. hyper's servers time out request heads only with a timer set;
//! with hyper 1.6 and later the same timeout also closes a keep-alive connection left
//! idle between requests:
//!
//! ```rust,no_run
//! use std::time::Duration;
//!
//! use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
//! use hyper_util::server::conn::auto;
//! use hyper_util::service::TowerToHyperService;
//!
//! #[embed_assets::embed("../examples/public")]
//! mod frontend {}
//!
//! # #[cfg(feature = "axum")]
//! #[tokio::main]
//! async fn main() -> std::io::Result<()> {
//!     let app = axum::Router::new().route("/api/health", axum::routing::get(|| async { "ok" }));
//!     let service = frontend::ASSETS.service().with_fallback(app);
//!     let listener = tokio::net::TcpListener::bind("127.0.0.1:3000").await?;
//!     loop {
//!         let (stream, _) = listener.accept().await?;
//!         let service = TowerToHyperService::new(service.clone());
//!         tokio::spawn(async move {
//!             let mut builder = auto::Builder::new(TokioExecutor::new());
//!             builder
//!                 .http1()
//!                 .timer(TokioTimer::new())
//!                 .header_read_timeout(Duration::from_secs(10));
//!             builder
//!                 .http2()
//!                 .timer(TokioTimer::new())
//!                 .keep_alive_interval(Duration::from_secs(30));
//!             let _ = builder
//!                 .serve_connection(TokioIo::new(stream), service)
//!                 .await;
//!         });
//!     }
//! }
//! # #[cfg(not(feature = "axum"))]
//! # fn main() {}
//! ```
//!
//! `axum::serve` sets no such timeout; serve with hyper-util as above where idle
//! connections matter. actix-web has `HttpServer::client_request_timeout` (5 s by
//! default) and `keep_alive`, and Rocket's `Config` has `keep_alive`. With the other
//! frameworks, look for their server's header-read and idle timeouts, or put a proxy
//! with timeouts (nginx) in front on the open internet.
//!
//! Where the media folder lives in production, and how caches treat these files, is in
//! [deploying](crate::guide::deploying); the throughput figures are in [the
//! benchmarks](crate::guide::benchmarks).
