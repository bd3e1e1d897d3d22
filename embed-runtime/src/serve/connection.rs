//! One connection: hyper's HTTP/1.1 builder (with the `http2` feature, hyper-util's,
//! which tells HTTP/1.1 and HTTP/2 with prior knowledge apart by the first bytes) over
//! the assets in front of the application, and what
//! hyper does not bound by itself: the time to a first request in either version, the
//! idle time between requests (HTTP/2's; HTTP/1.1's when shorter than hyper's
//! header-read timeout, which runs between requests too), and the end of a connection
//! at a shutdown.

use std::cell::Cell;
use std::future::{Future, poll_fn};
use std::io;
use std::pin::{Pin, pin};
use std::rc::Rc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use http::header::STRICT_TRANSPORT_SECURITY;
use http::{HeaderValue, Request, Response};
use http_body::{Frame, SizeHint};
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
#[cfg(feature = "http2")]
use hyper_util::server::conn::auto;
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::Instant;

use super::access::Entry;
use super::fast::{self, Outcome};
use super::transport::Transport;
use super::{BoxError, Limits, Serving};
use crate::WithFallback;

/// How long a connection closed for idleness has to end on its own (HTTP/2: a
/// `GOAWAY`, then a ping the client answers) before it is dropped.
const IDLE_CLOSE_GRACE: Duration = Duration::from_secs(1);

/// The connection builder of one worker, shared by its connections.
#[cfg(feature = "http2")]
pub(super) type Builder = auto::Builder<LocalExec>;
/// The connection builder of one worker, shared by its connections.
#[cfg(not(feature = "http2"))]
pub(super) type Builder = hyper::server::conn::http1::Builder;

/// The builder for `limits`: hyper's header-read timeout for HTTP/1.1 (which needs a
/// timer), and the timer HTTP/2's keep-alive pings would use.
#[cfg(feature = "http2")]
pub(super) fn builder(limits: &Limits) -> Builder {
    let mut builder = auto::Builder::new(LocalExec);
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read);
    builder.http2().timer(TokioTimer::new());
    builder
}

/// The builder for `limits`: hyper's header-read timeout (which needs a timer).
#[cfg(not(feature = "http2"))]
pub(super) fn builder(limits: &Limits) -> Builder {
    let mut builder = Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read);
    builder
}

/// Spawns HTTP/2 streams as tasks of this thread: a stream holds the application's
/// future and its response body, which need not be `Send`.
#[cfg(feature = "http2")]
#[derive(Debug, Clone, Copy)]
pub(super) struct LocalExec;

#[cfg(feature = "http2")]
impl<F> hyper::rt::Executor<F> for LocalExec
where
    F: Future + 'static,
    F::Output: 'static,
{
    fn execute(&self, future: F) {
        tokio::task::spawn_local(future);
    }
}

/// What happened first while serving a connection.
enum Event {
    /// The connection ended: the client closed it, an error, or a graceful end done.
    Closed,
    /// A shutdown started.
    Stop,
    /// The deadline to look at the connection's activity again.
    Check,
}

/// Serves one accepted connection to its end: the client closes it, it stays idle past
/// its deadline, or a shutdown has it finish its responses in flight. `stop` completes
/// when a shutdown starts.
///
/// Its hits are answered on the fast path (`fast.rs`) until a request is not one;
/// from then on hyper serves the connection, starting with the bytes read and not
/// answered.
pub(super) async fn serve<T: Transport, S, B>(
    stream: T,
    builder: &Builder,
    front: WithFallback<S>,
    serving: Serving<'_>,
    stop: impl Future<Output = ()>,
) where
    S: tower_service::Service<Request<Incoming>, Response = Response<B>> + Clone + 'static,
    S::Error: Into<BoxError>,
    B: http_body::Body<Data = Bytes> + 'static,
    B::Error: Into<BoxError>,
{
    let mut stop = pin!(stop);
    let (stream, head, read, stopping) =
        match fast::serve_hits(stream, front.assets(), serving, stop.as_mut()).await {
            Outcome::Closed => return,
            Outcome::HandOver {
                stream,
                head,
                read,
                stopping,
            } => (stream, head, read, stopping),
        };
    let io = Rewound { head, read, stream };
    let front = Tracked {
        inner: front,
        activity: Rc::new(Activity::new()),
        hsts: serving.hsts.cloned(),
    };
    serve_with_hyper(io, builder, front, serving.limits, stop, stopping).await;
}

/// The connection served by hyper to its end. `stopped` when a shutdown started before
/// (`stop` has completed, and is not polled again): hyper then ends the connection
/// gracefully once it has read the request handed to it.
async fn serve_with_hyper<T: Transport, S, B>(
    io: Rewound<T>,
    builder: &Builder,
    front: Tracked<WithFallback<S>>,
    limits: &Limits,
    mut stop: Pin<&mut impl Future<Output = ()>>,
    stopped: bool,
) where
    S: tower_service::Service<Request<Incoming>, Response = Response<B>> + Clone + 'static,
    S::Error: Into<BoxError>,
    B: http_body::Body<Data = Bytes> + 'static,
    B::Error: Into<BoxError>,
{
    let activity = Rc::clone(&front.activity);
    let service = TowerToHyperService::new(front);
    #[cfg(feature = "http2")]
    let connection = builder.serve_connection_with_upgrades(TokioIo::new(io), service);
    #[cfg(not(feature = "http2"))]
    let connection = builder
        .serve_connection(TokioIo::new(io), service)
        .with_upgrades();
    let mut connection = pin!(connection);
    let mut check = pin!(tokio::time::sleep(limits.header_read));
    let mut stopping = stopped;
    // Ended gracefully before its first request was read, a connection would drop the
    // request handed over with it: the end waits for that request.
    let mut stop_when_requested = stopped;
    let mut closing_idle = false;
    loop {
        let event = poll_fn(|cx| {
            // An error is the client's (a malformed request, a reset) or a deadline's:
            // either way the connection is over, and nothing waits for its reason.
            if connection.as_mut().poll(cx).is_ready() {
                return Poll::Ready(Event::Closed);
            }
            if stop_when_requested && activity.requested.get() {
                stop_when_requested = false;
                return Poll::Ready(Event::Stop);
            }
            if !stopping && stop.as_mut().poll(cx).is_ready() {
                return Poll::Ready(Event::Stop);
            }
            // A response that just ended (its body dropped while hyper wrote it, or
            // an HTTP/2 stream's task, which wakes the connection to write) moves the
            // deadline: to the moment the idle time is up, not a check later.
            if !closing_idle {
                if let Some(deadline) = activity.idle_deadline(limits) {
                    if check.deadline() != deadline {
                        check.as_mut().reset(deadline);
                    }
                }
            }
            if check.as_mut().poll(cx).is_ready() {
                return Poll::Ready(Event::Check);
            }
            Poll::Pending
        })
        .await;
        match event {
            Event::Closed => return,
            Event::Stop => {
                stopping = true;
                if !closing_idle {
                    connection.as_mut().graceful_shutdown();
                }
            }
            // Closed for idleness, and still not ended: the client did not follow.
            Event::Check if closing_idle => return,
            Event::Check => {
                let now = Instant::now();
                match activity.idle_deadline(limits) {
                    Some(deadline) if deadline > now => check.as_mut().reset(deadline),
                    Some(_) => {
                        closing_idle = true;
                        connection.as_mut().graceful_shutdown();
                        check.as_mut().reset(now + IDLE_CLOSE_GRACE);
                    }
                    // A request in flight: not idle, however long its response takes.
                    None => check.as_mut().reset(now + limits.idle),
                }
            }
        }
    }
}

/// A connection's stream, with the bytes the fast path read and did not answer read
/// first.
struct Rewound<T> {
    /// A request head the fast path parsed and handed over.
    head: Bytes,
    /// What it read after that head.
    read: BytesMut,
    stream: T,
}

impl<T: Transport> AsyncRead for Rewound<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if !this.head.is_empty() {
            read_into(&mut this.head, buf);
        } else if !this.read.is_empty() {
            read_into(&mut this.read, buf);
        } else {
            return Pin::new(&mut this.stream).poll_read(cx, buf);
        }
        Poll::Ready(Ok(()))
    }
}

/// Moves what fits of `from` (bytes the fast path read ahead) into `buf`.
fn read_into(from: &mut impl bytes::Buf, buf: &mut tokio::io::ReadBuf<'_>) {
    let n = from.chunk().len().min(buf.remaining());
    buf.put_slice(&from.chunk()[..n]);
    from.advance(n);
}

impl<T: Transport> AsyncWrite for Rewound<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}

/// What a connection has in flight, and since when it has had nothing.
#[derive(Debug)]
struct Activity {
    /// Requests whose responses have not been sent whole (or dropped).
    in_flight: Cell<usize>,
    /// Whether a request has come yet.
    requested: Cell<bool>,
    /// The connection's start, or the last time a request came or a response ended.
    since: Cell<Instant>,
}

impl Activity {
    fn new() -> Self {
        Activity {
            in_flight: Cell::new(0),
            requested: Cell::new(false),
            since: Cell::new(Instant::now()),
        }
    }

    /// When the connection is to close if nothing happens until then; `None` while a
    /// request is in flight. Before its first request, a connection has the header-read
    /// timeout (which hyper applies to HTTP/1.1 only once it knows the version); after
    /// that, the idle timeout.
    fn idle_deadline(&self, limits: &Limits) -> Option<Instant> {
        if self.in_flight.get() > 0 {
            return None;
        }
        let limit = if self.requested.get() {
            limits.idle
        } else {
            limits.header_read
        };
        Some(self.since.get() + limit)
    }
}

/// One request in flight, from the call of the service to the end (or drop) of its
/// response body.
#[derive(Debug)]
struct InFlight(Rc<Activity>);

impl InFlight {
    fn start(activity: &Rc<Activity>) -> Self {
        activity.in_flight.set(activity.in_flight.get() + 1);
        activity.requested.set(true);
        activity.since.set(Instant::now());
        InFlight(Rc::clone(activity))
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let activity = &self.0;
        activity
            .in_flight
            .set(activity.in_flight.get().saturating_sub(1));
        activity.since.set(Instant::now());
    }
}

/// The front service, counting the requests in flight on its connection (and, over
/// TLS with `Server::hsts`, adding `Strict-Transport-Security` to each answer that
/// has none).
#[derive(Debug, Clone)]
struct Tracked<S> {
    inner: S,
    activity: Rc<Activity>,
    hsts: Option<HeaderValue>,
}

impl<S, T, B> tower_service::Service<Request<T>> for Tracked<S>
where
    S: tower_service::Service<Request<T>, Response = Response<B>>,
    B: http_body::Body,
{
    type Response = Response<TrackedBody<B>>;
    type Error = S::Error;
    type Future = TrackedFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<T>) -> Self::Future {
        let in_flight = InFlight::start(&self.activity);
        let access = Entry::start(request.method(), request.uri().path_and_query());
        TrackedFuture {
            future: self.inner.call(request),
            in_flight: Some(in_flight),
            access,
            hsts: self.hsts.clone(),
        }
    }
}

pin_project_lite::pin_project! {
    /// The front's response future, holding its request's place in flight.
    struct TrackedFuture<F> {
        #[pin]
        future: F,
        in_flight: Option<InFlight>,
        access: Option<Box<Entry>>,
        hsts: Option<HeaderValue>,
    }
}

impl<F, B, E> Future for TrackedFuture<F>
where
    F: Future<Output = Result<Response<B>, E>>,
    B: http_body::Body,
{
    type Output = Result<Response<TrackedBody<B>>, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let mut response = std::task::ready!(this.future.poll(cx));
        if let (Some(hsts), Ok(response)) = (this.hsts.take(), &mut response) {
            let headers = response.headers_mut();
            if !headers.contains_key(STRICT_TRANSPORT_SECURITY) {
                headers.insert(STRICT_TRANSPORT_SECURITY, hsts);
            }
        }
        if let (Some(entry), Ok(response)) = (this.access.take(), &response) {
            let bytes = response.body().size_hint().exact();
            entry.log(response.status(), response.headers(), bytes);
        }
        let in_flight = this.in_flight.take();
        Poll::Ready(response.map(|response| {
            response.map(|body| TrackedBody {
                body,
                _in_flight: in_flight,
            })
        }))
    }
}

pin_project_lite::pin_project! {
    /// A response body, holding its request's place in flight until hyper drops it
    /// (sent whole, or the connection gone). Frames, end and size are the body's.
    struct TrackedBody<B> {
        #[pin]
        body: B,
        _in_flight: Option<InFlight>,
    }
}

impl<B: http_body::Body> http_body::Body for TrackedBody<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<B::Data>, B::Error>>> {
        self.project().body.poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}
