//! [`serve`] and [`Server`]: a server of its own, thread per core, with the assets in
//! front of an application, answered as [`WithFallback`] answers them.
//!
//! - `mod.rs`: the options, the listeners (the first bound at once, so its port is
//!   known; the others on that port), the worker threads and their end;
//! - `worker`: one thread's runtime and accept loop, under the connection cap;
//! - `connection`: one connection: its hits on the fast path, then, from the first
//!   request that is not one, hyper's HTTP/1.1 builder (with `http2`, hyper-util's
//!   HTTP/1.1-or-HTTP/2 one), with its idle
//!   and header deadlines and its graceful end;
//! - `fast`: the fast path, HTTP/1.1 hits answered with one `writev`; `parse`: each
//!   request head parsed with `httparse` into what the service reads; `encode`: the
//!   response heads, as hyper writes them; `out`: the writes, the answers to
//!   pipelined requests gathered into one; `sendfile`: the front of an on-disk file,
//!   sent by the kernel; `pages`: large bodies in sealed memory, sent from there by
//!   the kernel too;
//! - `unread`: how far behind a client on this machine is, from the kernel's socket
//!   diagnostics; `ready`: a socket's readiness cleared after a short read or write;
//! - `transport`: what a connection's bytes go over, the TCP socket or (feature `tls`)
//!   a TLS session; `tls`: [`Tls`], rustls and the certificate read again when its
//!   files change; `certificate`: what the server reads of a certificate itself, its
//!   expiry and its names; `acme` (feature `acme`): a certificate from an ACME
//!   directory, as a user sets it; `renewal`: that certificate kept in its cache folder
//!   and renewed on a thread of its own; `redirect`: the cleartext listener beside
//!   TLS, a 308 to https and the HTTP-01 answers;
//! - `access`: the access log, one `tracing` event per request;
//! - `shutdown`: [`ShutdownHandle`] and the signals that start a shutdown.
//!
//! Each worker has its own listener and its own single-threaded runtime, and serves
//! every connection it accepts to the end on that thread: nothing is shared between
//! workers but the service (behind `Arc`s already) and the shutdown flag.

mod access;
mod connection;
mod encode;
mod fast;
mod out;
#[cfg(target_os = "linux")]
mod pages;
/// Elsewhere, no body is sent from memory with `sendfile`: there are never any pages.
#[cfg(not(target_os = "linux"))]
mod pages {
    use std::io;

    use bytes::Bytes;
    use tokio::net::TcpStream;

    use crate::table::Assets;

    #[derive(Debug)]
    pub(crate) enum Pages {}

    impl Pages {
        pub(crate) const FROM: usize = usize::MAX;

        pub(crate) fn of(_: &Assets, _: usize) -> io::Result<Option<Pages>> {
            Ok(None)
        }

        pub(crate) fn offset_of(&self, _: &Bytes) -> Option<u64> {
            match *self {}
        }

        pub(crate) async fn send(&self, _: &TcpStream, _: u64, _: u64) -> io::Result<()> {
            match *self {}
        }
    }

    #[derive(Debug)]
    pub(crate) enum SealedBody {}

    impl SealedBody {
        /// Never: the kernel has no sealed memory to send from here (`Err(false)`).
        pub(crate) fn of(_: &[u8]) -> Result<SealedBody, bool> {
            Err(false)
        }

        pub(crate) async fn send(&self, _: &TcpStream, _: u64) -> io::Result<()> {
            match *self {}
        }
    }
}
#[cfg(feature = "acme")]
mod acme;
#[cfg(feature = "tls")]
mod certificate;
mod parse;
mod ready;
mod redirect;
#[cfg(feature = "acme")]
mod renewal;
#[cfg(target_os = "linux")]
mod sendfile;
mod shutdown;
#[cfg(feature = "tls")]
mod tls;
/// Without the `tls` feature: no TLS, no redirect to it.
#[cfg(not(feature = "tls"))]
mod tls {
    use std::net::{SocketAddr, TcpListener};

    #[derive(Debug, Default)]
    pub(super) struct Secure(());

    /// Never any.
    #[derive(Clone)]
    pub(crate) enum Acceptor {}

    impl Acceptor {
        pub(crate) fn http_01(&self, _: &str) -> Option<String> {
            match *self {}
        }
    }

    impl Secure {
        pub(super) fn acceptor(&self) -> Option<Acceptor> {
            None
        }

        pub(super) fn redirect(&self) -> Option<(&TcpListener, SocketAddr)> {
            None
        }

        pub(super) fn take_redirect(&mut self) -> Option<(TcpListener, SocketAddr)> {
            None
        }

        pub(super) fn check(&self) -> std::io::Result<()> {
            Ok(())
        }
    }
}
mod transport;
#[cfg(target_os = "linux")]
mod unread;
mod worker;

use std::fmt;
use std::io;
use std::net::{SocketAddr, ToSocketAddrs};
use std::num::NonZeroUsize;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::{Request, Response};
use hyper::body::Incoming;

#[cfg(feature = "acme")]
pub use self::acme::Acme;
use self::pages::Pages;
pub use self::shutdown::ShutdownHandle;
use self::shutdown::Signals;
#[cfg(feature = "tls")]
pub use self::tls::Tls;
use self::worker::Worker;
use crate::{ServeAssets, WithFallback};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Serves `service` in front of `app` on `addr` until a shutdown, with the default
/// options of [`Server`]: a worker per core, graceful shutdown on SIGTERM and Ctrl-C.
/// Blocks the calling thread; call it from `main`, not from inside an async runtime.
///
/// Every request is answered as [`ServeAssets::with_fallback`] answers it: an
/// embedded or on-disk asset at its own URL by the assets, without calling `app`;
/// every other request by `app`, as it came. `app` is any tower service that takes
/// hyper's `Request<Incoming>` (an axum `Router` as it is); each worker uses a clone.
///
/// When its workers start, it says where it listens, and every request gets a line
/// of the access log while a `tracing` subscriber listens (see [`Server::serve`]). A port another program listens on is an error (see
/// [`Server::bind`]).
///
/// ```no_run
/// # use embed_assets::{embed_assets, Assets};
/// # static ASSETS: Assets = embed_assets!("../examples/public");
/// use axum::{routing::get, Router};
///
/// # #[cfg(feature = "axum")]
/// fn main() -> std::io::Result<()> {
///     let app = Router::new().route("/api/health", get(|| async { "ok" }));
///     embed_assets::serve("0.0.0.0:3000", ASSETS.service(), app)
/// }
/// # #[cfg(not(feature = "axum"))]
/// # fn main() {}
/// ```
///
/// # Errors
/// When no address of `addr` can be bound, or a worker cannot start (see
/// [`Server::serve`]).
pub fn serve<S, B>(addr: impl ToSocketAddrs, service: ServeAssets, app: S) -> io::Result<()>
where
    S: tower_service::Service<Request<Incoming>, Response = Response<B>> + Clone + Send + 'static,
    S::Error: Into<BoxError>,
    B: http_body::Body<Data = Bytes> + 'static,
    B::Error: Into<BoxError>,
{
    Server::bind(addr)?.serve(service, app)
}

/// A server for [`ServeAssets`] in front of an application, thread per core, with its
/// options: made by [`bind`](Self::bind), started by [`serve`](Self::serve).
///
/// Each worker is an OS thread (named `embed-serve-0`, `embed-serve-1`, …) with a
/// single-threaded tokio runtime and, on Linux and Android, a listener of its own on
/// the same address (`SO_REUSEPORT`: the kernel spreads new connections over the
/// workers); elsewhere the workers share one listener. A connection stays on the
/// worker that accepted it, and speaks HTTP/1.1, or with the `http2` feature HTTP/2
/// with prior knowledge too (h2c, as behind a proxy that terminates TLS). With the
/// `tls` feature, [`tls`](Self::tls) has it terminate TLS itself.
///
/// Its HTTP/1.1 requests that the assets answer are parsed and answered by the server
/// itself, head and body written with one `writev`, without hyper (on Linux, a large
/// on-disk file's bytes with `sendfile`, but for its last megabytes, which are read and
/// checked as everywhere else, so that a file changed in place never arrives whole and
/// mixed; a chunk not in the page cache is read into it on the blocking pool first);
/// the first request
/// that is not such a hit hands the connection, with the bytes already read, to hyper
/// and the application. The answers are those of [`WithFallback`] under hyper, but a
/// hit does not wait for the application's `poll_ready`.
///
/// ```no_run
/// # use embed_assets::{embed_assets, Assets};
/// # static ASSETS: Assets = embed_assets!("../examples/public");
/// use std::time::Duration;
/// use embed_assets::Server;
///
/// # #[cfg(feature = "axum")]
/// fn main() -> std::io::Result<()> {
///     let app = axum::Router::new().route("/api/health", axum::routing::get(|| async { "ok" }));
///     let server = Server::bind("127.0.0.1:0")?
///         .workers(2)
///         .idle_timeout(Duration::from_secs(15))
///         .shutdown_on_signals(false);
///     println!("listening on http://{}", server.local_addr());
///     let stop = server.shutdown_handle();
///     std::thread::spawn(move || {
///         std::thread::sleep(Duration::from_secs(60));
///         stop.shutdown();
///     });
///     server.serve(ASSETS.service(), app)
/// }
/// # #[cfg(not(feature = "axum"))]
/// # fn main() {}
/// ```
pub struct Server {
    /// The first worker's listener, bound (and listening) by `bind`.
    listener: std::net::TcpListener,
    local_addr: SocketAddr,
    workers: NonZeroUsize,
    limits: Limits,
    drain_timeout: Duration,
    signals: bool,
    shutdown: ShutdownHandle,
    /// TLS, and the cleartext listener that redirects to it (feature `tls`).
    secure: tls::Secure,
}

/// What bounds one connection and one worker's connections.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// From accepting a connection, or starting to read a request's head on it, to
    /// having the whole head.
    pub(crate) header_read: Duration,
    /// With no request in flight, from the end of the last response.
    pub(crate) idle: Duration,
    /// Connections one worker serves at once.
    pub(crate) max_connections: usize,
    /// On-disk files go whole with `sendfile`, with no copied tail.
    pub(crate) sendfile_whole: bool,
    /// `Server::sendfile_embedded`: large bodies held in memory (the table's, a
    /// folder's cached files) go with `sendfile` from sealed memory.
    pub(crate) sendfile_embedded: bool,
}

/// What a connection is served with: its bounds, and the large bodies sent from memory
/// with `sendfile`, if any.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Serving<'a> {
    pub(crate) limits: &'a Limits,
    pub(crate) pages: Option<&'a Pages>,
    /// Over TLS with `Server::hsts`, the value of `Strict-Transport-Security`.
    pub(crate) hsts: Option<&'a http::HeaderValue>,
}

impl Server {
    /// The time a client has to send a request's head, by default; hyper's own default.
    pub const DEFAULT_HEADER_READ_TIMEOUT: Duration = Duration::from_secs(30);
    /// How long a connection with no request in flight stays open, by default.
    pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(30);
    /// The connections one worker serves at once, by default.
    pub const DEFAULT_MAX_CONNECTIONS: usize = 8192;
    /// How long a shutdown waits for responses in flight, by default: below the 30
    /// seconds an orchestrator commonly allows between SIGTERM and SIGKILL
    /// (Kubernetes' `terminationGracePeriodSeconds`).
    pub const DEFAULT_DRAIN_TIMEOUT: Duration = Duration::from_secs(25);

    /// Binds the first address of `addr` that can be bound, and listens on it at once:
    /// connections made from now on wait in its backlog until [`serve`](Self::serve)
    /// accepts them. With port 0, the system picks a free port, which
    /// [`local_addr`](Self::local_addr) tells and every worker then listens on.
    ///
    /// ```
    /// let server = embed_assets::Server::bind("127.0.0.1:0")?;
    /// assert_ne!(server.local_addr().port(), 0);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    ///
    /// A port another program listens on is refused, even where this server's own
    /// workers share one port (`SO_REUSEPORT` on Linux, which would otherwise let a
    /// second server, an old build left running, bind the same port and take a share
    /// of its connections):
    ///
    /// ```
    /// let first = embed_assets::Server::bind("127.0.0.1:0")?;
    /// let second = embed_assets::Server::bind(first.local_addr());
    /// assert_eq!(second.unwrap_err().kind(), std::io::ErrorKind::AddrInUse);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    ///
    /// # Errors
    /// When `addr` resolves to no address, or none of them can be bound: an address
    /// in use (`AddrInUse`) says so and names it.
    pub fn bind(addr: impl ToSocketAddrs) -> io::Result<Server> {
        let (listener, local_addr) = bind_first(addr)?;
        Ok(Server {
            listener,
            local_addr,
            workers: std::thread::available_parallelism().unwrap_or(NonZeroUsize::MIN),
            limits: Limits {
                header_read: Self::DEFAULT_HEADER_READ_TIMEOUT,
                idle: Self::DEFAULT_IDLE_TIMEOUT,
                max_connections: Self::DEFAULT_MAX_CONNECTIONS,
                sendfile_whole: false,
                sendfile_embedded: true,
            },
            drain_timeout: Self::DEFAULT_DRAIN_TIMEOUT,
            signals: true,
            shutdown: ShutdownHandle::new(),
            secure: tls::Secure::default(),
        })
    }

    /// The address the server listens on, with the port the system picked for port 0.
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The line of a start (see [`serve`](Self::serve)).
    fn announce(&self) {
        let line = self.start_line();
        if tracing::dispatcher::has_been_set() {
            tracing::info!(
                target: "embed_assets::serve",
                address = %self.local_addr,
                workers = self.workers.get(),
                "{line}"
            );
        } else {
            // No subscriber would show the event: a server says where it listens.
            eprintln!("{line}");
        }
    }

    /// What the server says when it starts: where it listens, how many workers, how to
    /// stop it.
    fn start_line(&self) -> String {
        let workers = self.workers.get();
        let plural = if workers == 1 { "" } else { "s" };
        let stop = if self.signals {
            "; Ctrl-C or SIGTERM stops it"
        } else {
            ""
        };
        let scheme = if self.secure.acceptor().is_some() {
            "https"
        } else {
            "http"
        };
        let redirect = match self.secure.redirect() {
            Some((_, addr)) => format!(" (and on http://{addr}, redirecting to it)"),
            None => String::new(),
        };
        format!(
            "embed-assets: serving on {scheme}://{}{redirect} with {workers} worker{plural}{stop}",
            self.local_addr
        )
    }

    /// Terminates TLS on every connection with `tls` (feature `tls`): the server then
    /// speaks HTTPS only, on its one port. Its hits are answered inside the TLS session
    /// as in cleartext, pipelining included; the TLS handshake counts against the
    /// [header-read timeout](Self::header_read_timeout), so a client that stalls its
    /// `ClientHello` is cut off as one that stalls a request's head.
    #[cfg(feature = "tls")]
    pub fn tls(mut self, tls: Tls) -> Self {
        self.secure.tls = Some(tls);
        self
    }

    /// Also listens for cleartext HTTP on `addr` (`0.0.0.0:80`, say), bound at once,
    /// and answers every request there with `308 Permanent Redirect` to the same URL
    /// over `https` on this server's port (its host from `Host`; 400 without a valid
    /// one). Nothing of the site is served in cleartext. Each worker accepts on it too.
    /// Needs [`tls`](Self::tls): [`serve`](Self::serve) refuses to start without it.
    ///
    /// # Errors
    /// As [`bind`](Self::bind), for `addr`.
    #[cfg(feature = "tls")]
    pub fn redirect_http(mut self, addr: impl ToSocketAddrs) -> io::Result<Self> {
        self.secure.redirect = Some(bind_first(addr)?);
        Ok(self)
    }

    /// The address [`redirect_http`](Self::redirect_http) listens on, with the port the
    /// system picked for port 0.
    #[cfg(feature = "tls")]
    pub fn redirect_addr(&self) -> Option<SocketAddr> {
        self.secure.redirect().map(|(_, addr)| addr)
    }

    /// Sends `Strict-Transport-Security: value` with every response over TLS (none in
    /// cleartext, as RFC 6797 asks), hits and the application's answers alike; off by
    /// default. Browsers then use `https` alone for the host for `max-age` seconds:
    /// start short (`max-age=300`), and add `includeSubDomains` only when every
    /// subdomain has HTTPS.
    ///
    /// ```no_run
    /// # fn main() -> std::io::Result<()> {
    /// use embed_assets::http::HeaderValue;
    /// let tls = embed_assets::Tls::from_pem_files("fullchain.pem", "privkey.pem")?;
    /// let server = embed_assets::Server::bind("0.0.0.0:443")?
    ///     .tls(tls)
    ///     .redirect_http("0.0.0.0:80")?
    ///     .hsts(HeaderValue::from_static("max-age=31536000"));
    /// # Ok(())
    /// # }
    /// ```
    #[cfg(feature = "tls")]
    pub fn hsts(mut self, value: http::HeaderValue) -> Self {
        self.secure.hsts = Some(value);
        self
    }

    /// The number of worker threads (at least 1); by default, one per core
    /// (`std::thread::available_parallelism`).
    pub fn workers(mut self, workers: usize) -> Self {
        self.workers = NonZeroUsize::new(workers).unwrap_or(NonZeroUsize::MIN);
        self
    }

    /// The time a client has to send a whole request head: from the connection's
    /// start to its first request (whatever the version), and for HTTP/1.1 from the
    /// end of each response to the head of the next, so it also bounds how long a
    /// keep-alive connection waits for its next request. Past it, the connection is
    /// closed (a slowloris client holds a connection no longer). Default
    /// [`DEFAULT_HEADER_READ_TIMEOUT`](Self::DEFAULT_HEADER_READ_TIMEOUT).
    pub fn header_read_timeout(mut self, timeout: Duration) -> Self {
        self.limits.header_read = timeout;
        self
    }

    /// How long a connection with no request in flight stays open after its last
    /// response; then it is closed (HTTP/2: after a `GOAWAY`). A response being sent,
    /// however slowly, keeps its connection open. For HTTP/1.1 the
    /// [header-read timeout](Self::header_read_timeout) runs between requests too, so
    /// the shorter of the two applies there. Default
    /// [`DEFAULT_IDLE_TIMEOUT`](Self::DEFAULT_IDLE_TIMEOUT).
    pub fn idle_timeout(mut self, timeout: Duration) -> Self {
        self.limits.idle = timeout;
        self
    }

    /// The most connections one worker serves at once (at least 1): at the cap, the
    /// worker stops accepting until one of its connections closes, and new
    /// connections wait in the listener's backlog. On Linux each worker has its own
    /// listener, so a connection the kernel gave a worker at its cap waits for that
    /// worker. Default [`DEFAULT_MAX_CONNECTIONS`](Self::DEFAULT_MAX_CONNECTIONS).
    pub fn max_connections(mut self, max: usize) -> Self {
        self.limits.max_connections = max.max(1);
        self
    }

    /// Sends on-disk files whole with `sendfile` (Linux), for files that are only ever
    /// replaced, never written in place; off by default.
    ///
    /// By default the last bytes of each on-disk response are read into memory and
    /// checked as the file's other readers are, and only the bytes before them go with
    /// `sendfile`. `sendfile` queues the page cache's own pages, so a write into the
    /// file in place reaches bytes already queued; the copied tail is what keeps such a
    /// download from arriving whole with bytes of two versions (it is cut short of its
    /// `Content-Length` instead). For a client on this machine (a reverse proxy in
    /// front, say) the tail is what the client is behind by when `sendfile` stops, as
    /// the kernel reports it, plus two chunks and a MiB, and its last chunk waits until
    /// the client has read everything before the tail; for any other client, it is as
    /// many bytes as the socket's send buffer and the client's receive window can hold,
    /// from the kernel's limits, plus two chunks and a MiB (about 13 MiB with Linux's
    /// defaults). A file replaced by renaming a new one over it (as deploy tools do)
    /// keeps its pages for the downloads that opened it: with only such changes, the
    /// tail buys nothing, and this sends every byte without a copy.
    pub fn sendfile_whole_files(mut self, whole: bool) -> Self {
        self.limits.sendfile_whole = whole;
        self
    }

    /// Sends embedded bodies of 16 KiB and more with `sendfile` (Linux); on by default.
    ///
    /// When [`serve`](Self::serve) starts, it copies each such body the table stores
    /// (an asset's br, gzip or zstd body, or its own bytes) once into an anonymous
    /// memory file (`memfd_create`: memory, not the file system), sealed against any
    /// write. A response with one of them as its body is then its head, written with
    /// `MSG_MORE`, and the body with `sendfile` from that memory: the kernel gives the
    /// socket references to those pages instead of copying the bytes into it for every
    /// response, as nginx's `sendfile` of a `.br` file does. That saves CPU from a few
    /// tens of KB on; the price is memory the size of those bodies, held for as long as
    /// the server runs. Off, every body is written from the binary's own bytes.
    ///
    /// The same goes for the bodies a [folder's service](crate::ServeAssets::folder)
    /// keeps in memory: each of 16 KiB or more is copied into sealed memory of its own
    /// the first time it is sent whole, and let go with it (at most 512 at once).
    pub fn sendfile_embedded(mut self, on: bool) -> Self {
        self.limits.sendfile_embedded = on;
        self
    }

    /// How long a shutdown waits for the responses in flight to finish, once the
    /// listeners are closed; then the connections still open are closed as they are.
    /// Default [`DEFAULT_DRAIN_TIMEOUT`](Self::DEFAULT_DRAIN_TIMEOUT).
    pub fn drain_timeout(mut self, timeout: Duration) -> Self {
        self.drain_timeout = timeout;
        self
    }

    /// Whether SIGTERM and SIGINT (Ctrl-C; on Windows, Ctrl-C only) start a graceful
    /// shutdown; on by default. The handlers are installed before any worker starts,
    /// and, as tokio's are, stay for the rest of the process, so those signals no
    /// longer end it by themselves: turn this off when the program handles them
    /// itself, and call a [`ShutdownHandle`] from there.
    pub fn shutdown_on_signals(mut self, on: bool) -> Self {
        self.signals = on;
        self
    }

    /// A handle that starts a graceful shutdown from anywhere (another thread, a
    /// signal handler of the program's own, an admin route of the application).
    pub fn shutdown_handle(&self) -> ShutdownHandle {
        self.shutdown.clone()
    }

    /// Serves `service` in front of `app` until a shutdown, then returns once every
    /// worker has drained. Blocks the calling thread; call it outside any async
    /// runtime. Requests are answered as by [`serve`](fn@serve).
    ///
    /// A shutdown (a [`ShutdownHandle`], or a signal) closes every listener first, so
    /// new connections are refused; then each connection finishes the responses it
    /// has in flight and closes (HTTP/1.1 with `Connection: close`, HTTP/2 with a
    /// `GOAWAY`), for at most the [drain timeout](Self::drain_timeout). A worker that
    /// fails to start shuts the others down the same way.
    ///
    /// Once its workers are about to start, it says where it listens: `embed-assets:
    /// serving on http://127.0.0.1:3000 with 2 workers; Ctrl-C or SIGTERM stops it`,
    /// as a `tracing` event at the `INFO` level (target `embed_assets::serve`, with
    /// `address` and `workers` fields) when the application has installed a subscriber
    /// (`tracing_subscriber::fmt::init()`), else on standard error.
    ///
    /// # Access log
    ///
    /// Every request gets one `tracing` event at `INFO` on the target
    /// `embed_assets::access`, hits answered by the server itself and requests
    /// answered by `app` alike (which the application's own middleware cannot do:
    /// hits never reach it), with the fields `method`, `path` (with the query),
    /// `status`, `bytes` (the body's length, when known ahead), `coding`
    /// (`Content-Encoding`, or `identity`) and `micros` (from the request's head to
    /// its answer's), and a line of them as the message:
    /// `GET /css/app.css 200 8123 br 41us`. It is made only while a subscriber listens
    /// to that target (`tracing_subscriber::fmt::init()` shows it; `RUST_LOG` with
    /// `embed_assets::access=off` silences it): otherwise a request pays one check.
    ///
    /// # Errors
    /// When the service is a [folder](ServeAssets::folder) that cannot be served
    /// (missing, not a folder, unreadable: an [`Error::Folder`](crate::Error::Folder)
    /// inside, naming it), before anything listens; when a worker's listener cannot be
    /// bound (on Linux, another program holds the port without `SO_REUSEPORT`), a
    /// worker's thread or runtime cannot be started, the signal handlers cannot be
    /// installed, or a worker panicked.
    pub fn serve<S, B>(mut self, service: ServeAssets, app: S) -> io::Result<()>
    where
        S: tower_service::Service<Request<Incoming>, Response = Response<B>>
            + Clone
            + Send
            + 'static,
        S::Error: Into<BoxError>,
        B: http_body::Body<Data = Bytes> + 'static,
        B::Error: Into<BoxError>,
    {
        self.secure.check()?;
        // A folder that cannot be served fails the start, not every request after it.
        service.check_folder().map_err(|error| {
            let kind = match &error {
                crate::Error::Folder(problem) => problem.source.kind(),
                _ => io::ErrorKind::Other,
            };
            io::Error::new(kind, error)
        })?;
        self.announce();
        // Where the kernel refuses a memory file (an old kernel, a sandbox), every body
        // is written from the binary, as with the option off.
        let pages = if self.limits.sendfile_embedded {
            Pages::of(service.assets(), Pages::FROM)
                .ok()
                .flatten()
                .map(Arc::new)
        } else {
            None
        };
        let front: WithFallback<S> = service.with_fallback(app);
        let tls = self.secure.acceptor();
        let mut listeners = Vec::with_capacity(self.workers.get());
        for _ in 1..self.workers.get() {
            listeners.push(self.worker_listener()?);
        }
        listeners.insert(0, self.listener);
        // Moved out, as the listeners are: a worker's drop of its listener at a
        // shutdown closes the socket.
        let mut redirects = Vec::with_capacity(self.workers.get());
        if let Some((first, addr)) = self.secure.take_redirect() {
            for _ in 1..self.workers.get() {
                redirects.push(reuse_port(&first, addr)?);
            }
            redirects.insert(0, first);
        }
        let mut redirects = redirects.into_iter();

        let mut workers = Vec::with_capacity(listeners.len());
        for (index, listener) in listeners.into_iter().enumerate() {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            // One worker waits for the signals; the flag it sets reaches every one.
            let signals = if self.signals && index == 0 {
                Some(Signals::install(&runtime)?)
            } else {
                None
            };
            workers.push(Worker {
                runtime,
                listener,
                front: front.clone(),
                limits: self.limits,
                pages: pages.clone(),
                drain_timeout: self.drain_timeout,
                signals,
                shutdown: self.shutdown.clone(),
                tls: tls.clone(),
                redirect: redirects.next(),
                https_port: self.local_addr.port(),
            });
        }

        let mut threads = Vec::with_capacity(workers.len());
        let mut result = Ok(());
        // The certificate's renewals (or first order), beside the workers.
        #[cfg(feature = "acme")]
        let renewals = match self.secure.tls.as_ref().and_then(Tls::renewed) {
            Some(renewed) => Some(Arc::clone(renewed).keep_renewed(self.shutdown.clone())?),
            None => None,
        };
        for (index, worker) in workers.into_iter().enumerate() {
            let spawned = std::thread::Builder::new()
                .name(format!("embed-serve-{index}"))
                .spawn(move || worker.run());
            match spawned {
                Ok(thread) => threads.push(thread),
                Err(error) => {
                    self.shutdown.shutdown();
                    result = Err(error);
                    break;
                }
            }
        }
        for thread in threads {
            let ended = match thread.join() {
                Ok(ended) => ended,
                Err(_) => Err(io::Error::other("an embed-assets worker thread panicked")),
            };
            if let Err(error) = ended {
                result = result.and(Err(error));
            }
        }
        // The workers end at a shutdown or on an error: the renewals too.
        #[cfg(feature = "acme")]
        if let Some(renewals) = renewals {
            self.shutdown.shutdown();
            let _ = renewals.join();
        }
        result
    }

    /// The listener of a worker after the first: on the first one's address (its
    /// port, when that was 0) with `SO_REUSEPORT`, where the kernel spreads
    /// connections over listeners; elsewhere, the first listener itself.
    fn worker_listener(&self) -> io::Result<std::net::TcpListener> {
        reuse_port(&self.listener, self.local_addr)
    }
}

/// A worker's listener on `addr`, where `first` listens: one of its own with
/// `SO_REUSEPORT`, where the kernel spreads connections over listeners; elsewhere,
/// `first` itself.
fn reuse_port(
    first: &std::net::TcpListener,
    addr: SocketAddr,
) -> io::Result<std::net::TcpListener> {
    if cfg!(any(target_os = "linux", target_os = "android")) {
        listen(addr)
    } else {
        first.try_clone()
    }
}

/// The first address of `addr` that can be bound, listening, and its local address.
fn bind_first(addr: impl ToSocketAddrs) -> io::Result<(std::net::TcpListener, SocketAddr)> {
    let mut last_error = None;
    for addr in addr.to_socket_addrs()? {
        match unused(addr).and_then(|()| listen(addr)) {
            Ok(listener) => {
                let local_addr = listener.local_addr()?;
                return Ok((listener, local_addr));
            }
            Err(error) => last_error = Some(error),
        }
    }
    Err(last_error.unwrap_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "the address resolved to no socket address",
        )
    }))
}

/// Whether no other socket listens on `addr` (port 0 always passes): a bind without
/// `SO_REUSEPORT`, which a listening socket refuses whatever its own options are, then
/// closed at once. The workers' listeners set `SO_REUSEPORT` so that they share the
/// port; without this check a second server would share it too.
fn unused(addr: SocketAddr) -> io::Result<()> {
    if addr.port() == 0 || !cfg!(any(target_os = "linux", target_os = "android")) {
        return Ok(());
    }
    match tcp_socket(addr)?.bind(&addr.into()) {
        Err(error) if error.kind() == io::ErrorKind::AddrInUse => Err(io::Error::new(
            io::ErrorKind::AddrInUse,
            format!(
                "{addr} is in use: another program listens on it (another server, or an \
                 earlier run of this one still running); stop it or choose another port"
            ),
        )),
        other => other,
    }
}

/// A TCP socket for `addr`, not bound yet, with `SO_REUSEADDR` as the standard
/// library's `TcpListener::bind` sets it on Unix: a restarted server binds again while
/// the last one's connections are in TIME_WAIT.
fn tcp_socket(addr: SocketAddr) -> io::Result<socket2::Socket> {
    use socket2::{Domain, Protocol, Socket, Type};

    let socket = Socket::new(Domain::for_address(addr), Type::STREAM, Some(Protocol::TCP))?;
    #[cfg(unix)]
    socket.set_reuse_address(true)?;
    Ok(socket)
}

/// A listening, non-blocking socket on `addr`.
fn listen(addr: SocketAddr) -> io::Result<std::net::TcpListener> {
    let socket = tcp_socket(addr)?;
    #[cfg(any(target_os = "linux", target_os = "android"))]
    socket.set_reuse_port(true)?;
    socket.bind(&addr.into())?;
    // tokio's backlog: a burst of connections waits rather than being refused.
    socket.listen(1024)?;
    socket.set_nonblocking(true)?;
    Ok(socket.into())
}

impl fmt::Debug for Server {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Server")
            .field("local_addr", &self.local_addr)
            .field("workers", &self.workers)
            .field("header_read_timeout", &self.limits.header_read)
            .field("idle_timeout", &self.limits.idle)
            .field("max_connections", &self.limits.max_connections)
            .field("sendfile_whole_files", &self.limits.sendfile_whole)
            .field("sendfile_embedded", &self.limits.sendfile_embedded)
            .field("drain_timeout", &self.drain_timeout)
            .field("shutdown_on_signals", &self.signals)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_line_says_where_how_many_workers_and_how_to_stop() {
        let server = Server::bind("127.0.0.1:0").unwrap().workers(2);
        let line = server.start_line();
        assert_eq!(
            line,
            format!(
                "embed-assets: serving on http://{} with 2 workers; Ctrl-C or SIGTERM stops it",
                server.local_addr()
            )
        );
        let server = server.workers(1).shutdown_on_signals(false);
        assert!(
            server.start_line().ends_with("with 1 worker"),
            "{}",
            server.start_line()
        );
    }

    /// Every event's target, level and fields (`name=value`), as a subscriber the
    /// application installs would get them.
    #[derive(Default)]
    struct Events(std::sync::Mutex<Vec<String>>);

    impl tracing::Subscriber for Events {
        fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
            true
        }
        fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
            tracing::span::Id::from_u64(1)
        }
        fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
        fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
        fn event(&self, event: &tracing::Event<'_>) {
            struct Fields(String);
            impl tracing::field::Visit for Fields {
                fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn fmt::Debug) {
                    self.0.push_str(&format!(" {}={value:?}", field.name()));
                }
            }
            let meta = event.metadata();
            let mut fields = Fields(format!("{} {}", meta.target(), meta.level()));
            event.record(&mut fields);
            self.0.lock().unwrap().push(fields.0);
        }
        fn enter(&self, _: &tracing::span::Id) {}
        fn exit(&self, _: &tracing::span::Id) {}
    }

    #[test]
    fn the_start_is_a_tracing_event_with_the_address_and_the_workers() {
        let server = Server::bind("127.0.0.1:0").unwrap().workers(3);
        let events = std::sync::Arc::new(Events::default());
        tracing::subscriber::with_default(std::sync::Arc::clone(&events), || server.announce());
        let events = events.0.lock().unwrap();
        assert_eq!(
            *events,
            [format!(
                "embed_assets::serve INFO message={} address={} workers=3",
                server.start_line(),
                server.local_addr()
            )]
        );
    }
}
