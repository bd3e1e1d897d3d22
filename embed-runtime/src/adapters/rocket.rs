//! Rocket 0.5: [`AssetServer`], a [`Handler`] that is mounted like
//! [`rocket::fs::FileServer`] and answers with [`ServeAssets`].
//!
//! ```no_run
//! use embed_assets::adapters::rocket::AssetServer;
//! use embed_assets::{embed_assets, Assets};
//! use rocket::{get, routes};
//!
//! static ASSETS: Assets = embed_assets!("../examples/public");
//!
//! #[get("/api/health")]
//! fn health() -> &'static str {
//!     "ok"
//! }
//!
//! # async fn run() -> Result<(), rocket::Error> {
//! // At the root, beside an app route: the app's routes win (rank 10, as FileServer).
//! rocket::build()
//!     .mount("/", routes![health])
//!     .mount("/", AssetServer::from(ASSETS.service()))
//!     .launch()
//!     .await?;
//! # Ok(())
//! # }
//! # async fn mounted() -> Result<(), rocket::Error> {
//! // Under a prefix: `/static/css/app.css`, and `/static` redirects to `./static/`.
//! rocket::build()
//!     .mount("/", routes![health])
//!     .mount("/static", AssetServer::from(ASSETS.service()))
//!     .launch()
//!     .await?;
//! # Ok(())
//! # }
//! ```
//!
//! `mount(base, ASSETS.service())` works too (a [`ServeAssets`] converts into the same
//! routes); [`AssetServer::rank`] picks another rank, as `FileServer::rank` does. Two
//! servers whose bases overlap (`/` and `/static`) need different ranks, or Rocket
//! reports a route collision at launch: the one at the longer base first
//! (`.mount("/static", AssetServer::from(STATIC.service()).rank(9))`).
//!
//! The server has one route per method Rocket knows (`/<path..>` under the base), so
//! every request below the mount point reaches [`ServeAssets`]: 405 with `Allow`,
//! 404 and the not-found page come from it. Apart from HEAD (below) it never
//! forwards, so routes ranked after it (a number above its rank) are not reached
//! for paths below its base; the app's 404 catcher still answers paths outside the
//! base.
//!
//! # What Rocket changes, and what the adapter does about it
//!
//! - **Paths.** Rocket matches percent-decoded, non-empty segments. The adapter
//!   hands the core the raw path (`Request::uri`, still percent-encoded) minus the
//!   raw segments that matched the mount base, so the core's own decoding and path
//!   checks see the bytes that were sent (`/%2e%2e/` is a 404 from the core).
//!   Requesting the base without its slash (`/static`) is marked with
//!   [`RequestHead::at_bare_mount`]: the core answers 301 to `./static/`.
//! - **HEAD.** Rocket answers a HEAD itself, running the GET routes and stripping
//!   the body, only when no HEAD route answers. The server's HEAD route marks the
//!   request and forwards, so Rocket runs it again as a GET: the app's own GET
//!   routes answer HEAD exactly where they answer GET, and when the server's GET
//!   route gets the request it hands the core a HEAD (no body is produced;
//!   `Content-Length` is the GET's). Rocket strips the already empty body and keeps
//!   that `Content-Length`.
//! - **Content-Length.** Rocket writes the length of a sized body over any
//!   `Content-Length`. Bodies go out as Rocket's *streamed* (unsized) body, which it
//!   leaves alone, so the core's exact `Content-Length` is the one sent (and hyper
//!   frames the body by it). An empty body is left as Rocket's default empty body:
//!   `Content-Length: 0` on GET, as hyper alone sends, and none on HEAD and 304.
//! - **Streaming.** Rocket reads a body through `AsyncRead` in chunks of at most its
//!   response's `max_chunk_size` (set here to the body's length, at most 64 KiB)
//!   and sends each to hyper through a channel of one frame, so a slow client holds
//!   back the reads from disk. Bytes are copied once into Rocket's chunk buffer (its
//!   body API has no way to hand over `Bytes`). When an on-disk file changes
//!   mid-download the read fails, Rocket stops the body short of its
//!   `Content-Length`, and hyper closes the connection: the client never takes the
//!   short bytes for a whole file.
//! - **Headers added.** Rocket adds `Server: Rocket` (its `ident` setting; a
//!   `Server` the response has is kept) and, through the [`Shield`] fairing it
//!   attaches by default, `X-Content-Type-Options: nosniff`,
//!   `X-Frame-Options: SAMEORIGIN` and `Permissions-Policy: interest-cohort=()`
//!   (plus `Strict-Transport-Security` with TLS in release). None of them is one
//!   the core sets; hyper adds `Date`. Configure them with Rocket's `ident` and
//!   `Shield`.
//! - **HTTP version.** Rocket's [`Request`] does not say which HTTP version the
//!   request used. The adapter passes HTTP/1.1, except for a request with no `Host`
//!   field but a host Rocket knows (HTTP/2's `:authority`, with Rocket's `http2`
//!   feature), passed as HTTP/2. So an
//!   HTTP/1.1 request without `Host` gets the 400 RFC 9112 requires, but so does an
//!   HTTP/1.0 request without `Host`, which the core would otherwise serve; and a
//!   request in absolute form (`GET http://host/x`) still needs a `Host` field, since
//!   Rocket keeps only the path and query of the target.
//! - **Methods.** Rocket knows nine methods; a request with any other (`PROPFIND`)
//!   is answered 400 by Rocket before any route runs, not 405 by the core. Rocket
//!   also turns a form `POST` whose body starts with `_method=get` into a GET (its
//!   method override) before routing, and the core then serves it.
//! - **Header values.** Rocket drops request header fields whose value is not UTF-8
//!   before any handler sees them: an `If-Match: "\xff"` is never seen, so the core
//!   serves a 200 where it would answer 412.
//!
//! The workspace's HTTP tests run through this adapter with
//! `EMBED_TEST_FRAMEWORK=rocket`, and pass but for the HTTP/1.0 case above; the tests
//! beside the harness's Rocket server (`tests/src/frameworks/rocket.rs`) show the
//! HEAD routing, the added headers, the version, method and header-value cases.
//!
//! [`Shield`]: rocket::shield::Shield

use std::borrow::Cow;
use std::io;

use http::Version;
use http_body::Body as _;
use http_body_util::BodyExt as _;
use rocket::http::{Method, Status};
use rocket::route::{Handler, Outcome};
use rocket::{Data, Request, Response, Route};
use tokio_util::io::StreamReader;

use super::{convert, mount};
use crate::body::Body;
use crate::service::{RequestHead, ResponseFuture, ServeAssets};

/// Every method Rocket can route: the server has a route for each.
const METHODS: [Method; 9] = [
    Method::Get,
    Method::Head,
    Method::Post,
    Method::Put,
    Method::Delete,
    Method::Patch,
    Method::Options,
    Method::Trace,
    Method::Connect,
];

/// Whether the request came as a HEAD that the HEAD route forwarded, so that Rocket
/// runs it as a GET (in the request's local cache).
struct ForwardedHead(bool);

/// The largest chunk Rocket reads from a body at a time.
const MAX_CHUNK: usize = 64 * 1024;

/// Serves a [`ServeAssets`] from a Rocket mount point, like `rocket::fs::FileServer`:
/// `rocket::build().mount("/static", AssetServer::from(ASSETS.service()))`.
///
/// Its routes (`/<path..>` for every method) have rank 10 by default, as
/// `FileServer`'s, so the app's own routes at the same paths win. See the
/// [module documentation](self) for what Rocket changes on the way.
#[derive(Debug, Clone)]
pub struct AssetServer {
    service: ServeAssets,
    rank: isize,
}

impl AssetServer {
    /// The rank of the routes unless [`rank`](Self::rank) sets another; the same as
    /// `rocket::fs::FileServer`'s.
    pub const DEFAULT_RANK: isize = 10;

    /// Serves `service` with the [default rank](Self::DEFAULT_RANK).
    pub fn new(service: ServeAssets) -> Self {
        AssetServer {
            service,
            rank: Self::DEFAULT_RANK,
        }
    }

    /// Sets the rank of the routes: a lower number is tried first.
    pub fn rank(mut self, rank: isize) -> Self {
        self.rank = rank;
        self
    }

    /// The response to `request` as the core's future, which borrows nothing; `None`
    /// if a header field cannot be an `http` one, which hyper's parser rules out.
    fn respond(&self, request: &Request<'_>) -> Option<ResponseFuture> {
        let method = if request.local_cache(|| ForwardedHead(false)).0 {
            http::Method::HEAD
        } else {
            http_method(request.method())
        };
        let fields = request.headers();
        let headers = convert::header_map(fields.iter(), fields.len())?;
        let uri = request.uri();
        let raw = uri.path().as_str();
        let query = uri.query().map(|query| query.as_str());
        let version = if !headers.contains_key(http::header::HOST) && request.host().is_some() {
            // Rocket takes HTTP/2's host from `:authority`, HTTP/1's from `Host` only.
            Version::HTTP_2
        } else {
            Version::HTTP_11
        };
        let base = request.route().map_or("/", |route| route.uri.base());
        let head = RequestHead::new(&method, raw, query, version, &headers);
        Some(
            self.service
                .respond_head(mount::rocket(raw, base).place(head)),
        )
    }
}

impl From<ServeAssets> for AssetServer {
    fn from(service: ServeAssets) -> Self {
        AssetServer::new(service)
    }
}

impl From<AssetServer> for Vec<Route> {
    fn from(server: AssetServer) -> Self {
        METHODS
            .iter()
            .map(|&method| {
                let mut route = Route::ranked(server.rank, method, "/<path..>", server.clone());
                route.name = Some(Cow::Borrowed("embed_assets::AssetServer"));
                route
            })
            .collect()
    }
}

impl From<ServeAssets> for Vec<Route> {
    fn from(service: ServeAssets) -> Self {
        AssetServer::new(service).into()
    }
}

#[rocket::async_trait]
impl Handler for AssetServer {
    async fn handle<'r>(&self, request: &'r Request<'_>, data: Data<'r>) -> Outcome<'r> {
        if request.method() == Method::Head {
            // Rocket now runs the request as a GET through every GET route in rank
            // order, the app's first; this server's GET route then answers a HEAD.
            request.local_cache(|| ForwardedHead(true));
            return Outcome::Forward((data, Status::NotFound));
        }
        let Some(response) = self.respond(request) else {
            return Outcome::Success(status_only(Status::BadRequest));
        };
        Outcome::Success(rocket_response(response.await))
    }
}

/// A field line of Rocket's map.
impl convert::Field for rocket::http::Header<'_> {
    fn name(&self) -> &[u8] {
        self.name.as_str().as_bytes()
    }

    fn value(&self) -> &[u8] {
        self.value.as_bytes()
    }
}

fn http_method(method: Method) -> http::Method {
    match method {
        Method::Get => http::Method::GET,
        Method::Head => http::Method::HEAD,
        Method::Post => http::Method::POST,
        Method::Put => http::Method::PUT,
        Method::Delete => http::Method::DELETE,
        Method::Patch => http::Method::PATCH,
        Method::Options => http::Method::OPTIONS,
        Method::Trace => http::Method::TRACE,
        Method::Connect => http::Method::CONNECT,
    }
}

/// The core's response as Rocket's: status, every field line as the core set it,
/// and the body streamed.
fn rocket_response(response: http::Response<Body>) -> Response<'static> {
    let (parts, body) = response.into_parts();
    let mut out = Response::new();
    out.set_status(Status::new(parts.status.as_u16()));
    for (name, value) in &parts.headers {
        let Ok(value) = std::str::from_utf8(value.as_bytes()) else {
            // Rocket holds header values as `str`; the core only writes ASCII.
            return status_only(Status::InternalServerError);
        };
        out.adjoin_raw_header(name.as_str().to_owned(), value.to_owned());
    }
    let len = body.size_hint().exact().unwrap_or(u64::MAX);
    if len > 0 && !body.is_end_stream() {
        let chunk = usize::try_from(len)
            .unwrap_or(MAX_CHUNK)
            .clamp(1, MAX_CHUNK);
        // Its frames in order, then EOF; a failed frame is an I/O error, on which
        // Rocket stops the body.
        let frames = body.map_err(io::Error::other).into_data_stream();
        out.set_streamed_body(StreamReader::new(frames));
        out.set_max_chunk_size(chunk);
    }
    out
}

/// A response with `status` and an empty body.
fn status_only(status: Status) -> Response<'static> {
    let mut response = Response::new();
    response.set_status(status);
    response
}
