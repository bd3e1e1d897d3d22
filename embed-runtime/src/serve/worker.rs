//! One worker: a thread's single-threaded runtime, its listener's accept loop under the
//! connection cap, and its part of a shutdown.

use std::cell::Cell;
use std::io;
use std::pin::pin;
use std::rc::Rc;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use bytes::Bytes;
use http::{Request, Response};
use hyper::body::Incoming;
use tokio::net::TcpListener;
use tokio::sync::Notify;

use super::connection;
use super::pages::Pages;
use super::shutdown::{Signals, until};
use super::tls::Acceptor;
use super::{BoxError, Limits, Serving, ShutdownHandle};
use crate::WithFallback;

/// How long the accept loop pauses after an error that is not one connection's:
/// `EMFILE` and `ENFILE` (out of descriptors) or `ENOBUFS`/`ENOMEM`, which last until
/// connections close. Retrying at once would spin.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);

/// What one worker thread serves, with what, on which listener.
pub(super) struct Worker<S> {
    /// Built on the thread that calls `serve`, so that an error is its caller's, and
    /// the signal handlers are installed before any worker serves.
    pub(super) runtime: tokio::runtime::Runtime,
    pub(super) listener: std::net::TcpListener,
    pub(super) front: WithFallback<S>,
    pub(super) limits: Limits,
    /// The large bodies sent from memory with `sendfile`, when there are any.
    pub(super) pages: Option<Arc<Pages>>,
    pub(super) drain_timeout: Duration,
    /// The signal handlers this worker waits for (one worker does).
    pub(super) signals: Option<Signals>,
    pub(super) shutdown: ShutdownHandle,
    /// With `Server::tls`, what each connection's TLS session starts with.
    pub(super) tls: Option<Acceptor>,
    /// With `Server::redirect_http`, this worker's cleartext listener.
    pub(super) redirect: Option<std::net::TcpListener>,
    /// The port the redirects send clients to.
    pub(super) https_port: u16,
}

/// What a worker serves each connection with.
struct Shared<S> {
    front: WithFallback<S>,
    limits: Limits,
    pages: Option<Arc<Pages>>,
    tls: Option<Acceptor>,
    https_port: u16,
}

impl<S, B> Worker<S>
where
    S: tower_service::Service<Request<Incoming>, Response = Response<B>> + Clone + 'static,
    S::Error: Into<BoxError>,
    B: http_body::Body<Data = Bytes> + 'static,
    B::Error: Into<BoxError>,
{
    /// Runs the worker on this thread until a shutdown, and its drain, are done.
    pub(super) fn run(self) -> io::Result<()> {
        // However this worker ends (a listener its runtime cannot take, a panic), the
        // others end too: a server with a worker missing would leave that worker's share of
        // connections waiting in its listener's backlog.
        let _stop_all = StopOnDrop(self.shutdown.clone());
        let Worker {
            runtime,
            listener,
            front,
            limits,
            pages,
            drain_timeout,
            signals,
            shutdown,
            tls,
            redirect,
            https_port,
        } = self;
        // Connections are `spawn_local` tasks: they, the application's futures and
        // their response bodies never leave this thread, so none needs to be `Send`.
        let local = tokio::task::LocalSet::new();
        local.block_on(&runtime, async move {
            if let Some(signals) = signals {
                tokio::task::spawn_local(signals.wait(shutdown.clone()));
            }
            let serving = Shared {
                front,
                limits,
                pages,
                tls,
                https_port,
            };
            let listeners = Listeners::new(listener, redirect)?;
            accept_loop(listeners, serving, drain_timeout, shutdown).await
        })
    }
}

/// Accepts connections, each served by a task of this thread, until a shutdown; then
/// waits for them, for at most `drain_timeout`.
async fn accept_loop<S, B>(
    listener: Listeners,
    serving: Shared<S>,
    drain_timeout: Duration,
    shutdown: ShutdownHandle,
) -> io::Result<()>
where
    S: tower_service::Service<Request<Incoming>, Response = Response<B>> + Clone + 'static,
    S::Error: Into<BoxError>,
    B: http_body::Body<Data = Bytes> + 'static,
    B::Error: Into<BoxError>,
{
    let limits = serving.limits;
    let builder = Rc::new(connection::builder(&limits));
    let serving = Rc::new(serving);
    let open = Rc::new(OpenConnections::default());
    let mut stopped = pin!(shutdown.stopped());
    loop {
        let accepted = until(stopped.as_mut(), async {
            open.below(limits.max_connections).await;
            listener.accept().await
        })
        .await;
        match accepted {
            None => break,
            Some(Ok((stream, redirect))) => {
                // Responses are written whole (a head, then body chunks): Nagle's
                // algorithm would only hold the last segment of each back.
                let _ = stream.set_nodelay(true);
                let guard = open.add();
                let builder = Rc::clone(&builder);
                let stop = shutdown.stopped();
                let serving = Rc::clone(&serving);
                tokio::task::spawn_local(async move {
                    if redirect {
                        let stop = pin!(stop);
                        let acceptor = serving.tls.clone();
                        super::redirect::serve(
                            stream,
                            serving.https_port,
                            acceptor,
                            &serving.limits,
                            stop,
                        )
                        .await;
                    } else {
                        serve_connection(stream, &builder, &serving, stop).await;
                    }
                    drop(guard);
                });
            }
            // One connection's trouble (reset or aborted before it was accepted):
            // the next one is unaffected.
            Some(Err(error)) if is_connection_error(&error) => {}
            Some(Err(_)) => {
                if until(stopped.as_mut(), tokio::time::sleep(ACCEPT_BACKOFF))
                    .await
                    .is_none()
                {
                    break;
                }
            }
        }
    }
    // New connections are refused from here (connections still in this listener's
    // backlog are reset by the kernel); those accepted finish what they have in
    // flight, having seen the same flag.
    drop(listener);
    let _ = tokio::time::timeout(drain_timeout, open.none()).await;
    Ok(())
}

/// Serves one accepted connection, in cleartext or, after its handshake, over TLS.
async fn serve_connection<S, B>(
    stream: tokio::net::TcpStream,
    builder: &connection::Builder,
    shared: &Shared<S>,
    stop: impl std::future::Future<Output = ()>,
) where
    S: tower_service::Service<Request<Incoming>, Response = Response<B>> + Clone + 'static,
    S::Error: Into<BoxError>,
    B: http_body::Body<Data = Bytes> + 'static,
    B::Error: Into<BoxError>,
{
    let serving = Serving {
        limits: &shared.limits,
        pages: shared.pages.as_deref(),
        hsts: None,
    };
    let front = shared.front.clone();
    let stop = pin!(stop);
    match &shared.tls {
        None => connection::serve(stream, builder, front, serving, stop).await,
        #[cfg(feature = "tls")]
        Some(acceptor) => {
            let mut stop = stop;
            let limit = shared.limits.header_read;
            if let Some(stream) =
                super::tls::handshake(acceptor, stream, limit, stop.as_mut()).await
            {
                let serving = Serving {
                    hsts: acceptor.hsts.as_ref(),
                    ..serving
                };
                connection::serve(stream, builder, front, serving, stop).await;
            }
        }
        #[cfg(not(feature = "tls"))]
        Some(never) => match *never {},
    }
}

/// A worker's listener, and beside it the cleartext one that redirects to TLS.
struct Listeners {
    main: TcpListener,
    redirect: Option<TcpListener>,
}

impl Listeners {
    fn new(
        main: std::net::TcpListener,
        redirect: Option<std::net::TcpListener>,
    ) -> io::Result<Self> {
        Ok(Listeners {
            main: TcpListener::from_std(main)?,
            redirect: redirect.map(TcpListener::from_std).transpose()?,
        })
    }

    /// The next connection of either, and whether it came to the redirecting one.
    async fn accept(&self) -> io::Result<(tokio::net::TcpStream, bool)> {
        std::future::poll_fn(|cx| {
            if let Poll::Ready(accepted) = self.main.poll_accept(cx) {
                return Poll::Ready(accepted.map(|(stream, _)| (stream, false)));
            }
            match &self.redirect {
                Some(redirect) => redirect
                    .poll_accept(cx)
                    .map(|accepted| accepted.map(|(stream, _)| (stream, true))),
                None => Poll::Pending,
            }
        })
        .await
    }
}

/// Errors of one incoming connection rather than of the listener.
fn is_connection_error(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::Interrupted
    )
}

/// The connections a worker has open, and a wake-up when one closes.
#[derive(Debug, Default)]
struct OpenConnections {
    count: Cell<usize>,
    closed: Notify,
}

impl OpenConnections {
    fn add(self: &Rc<Self>) -> OpenGuard {
        self.count.set(self.count.get() + 1);
        OpenGuard(Rc::clone(self))
    }

    /// Completes once fewer than `max` are open.
    async fn below(&self, max: usize) {
        loop {
            // Made before the check: `notify_waiters` wakes a `Notified` from its
            // creation on, so a close between the check and the wait is not missed.
            let closed = self.closed.notified();
            if self.count.get() < max {
                return;
            }
            closed.await;
        }
    }

    /// Completes once none is open.
    async fn none(&self) {
        self.below(1).await;
    }
}

/// One open connection, counted until it is dropped (when its task ends, or is
/// dropped with the runtime).
#[derive(Debug)]
struct OpenGuard(Rc<OpenConnections>);

impl Drop for OpenGuard {
    fn drop(&mut self) {
        let open = &self.0;
        open.count.set(open.count.get().saturating_sub(1));
        open.closed.notify_waiters();
    }
}

/// Starts a shutdown when dropped.
#[derive(Debug)]
struct StopOnDrop(ShutdownHandle);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.shutdown();
    }
}
