//! [`ShutdownHandle`]: the one flag every worker and every connection watches, and the
//! signals that set it.

use std::future::{Future, poll_fn};
use std::pin::pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::Poll;

use tokio::sync::watch;

/// Starts a graceful shutdown of a [`Server`](crate::Server): from
/// [`Server::shutdown_handle`](crate::Server::shutdown_handle). `Clone`, `Send` and
/// `Sync`; calling it again, or after the server has stopped, does nothing.
///
/// ```no_run
/// # use embed_assets::{embed_assets, Assets};
/// # static ASSETS: Assets = embed_assets!("../examples/public");
/// # #[cfg(feature = "axum")]
/// # fn main() -> std::io::Result<()> {
/// let server = embed_assets::Server::bind("127.0.0.1:3000")?;
/// let stop = server.shutdown_handle();
/// let app = axum::Router::new().route(
///     "/admin/stop",
///     axum::routing::post(move || async move {
///         stop.shutdown();
///         "stopping"
///     }),
/// );
/// server.serve(ASSETS.service(), app)
/// # }
/// # #[cfg(not(feature = "axum"))]
/// # fn main() {}
/// ```
#[derive(Debug, Clone)]
pub struct ShutdownHandle {
    shared: Arc<Shared>,
}

/// The flag, as a value its watchers wait on and as an atomic read without a lock.
#[derive(Debug)]
struct Shared {
    stop: watch::Sender<bool>,
    stopping: AtomicBool,
}

impl ShutdownHandle {
    pub(super) fn new() -> Self {
        ShutdownHandle {
            shared: Arc::new(Shared {
                stop: watch::Sender::new(false),
                stopping: AtomicBool::new(false),
            }),
        }
    }

    /// Starts the shutdown: the listeners close, and the connections finish what they
    /// have in flight (see [`Server::serve`](crate::Server::serve)). Returns at once;
    /// `serve` returns when the workers are done.
    pub fn shutdown(&self) {
        // The atomic first: a watcher woken by the value sees it.
        self.shared.stopping.store(true, Ordering::Release);
        self.shared.stop.send_replace(true);
    }

    /// Whether a shutdown has started.
    pub fn is_shutting_down(&self) -> bool {
        self.shared.stopping.load(Ordering::Acquire)
    }

    /// Completes once a shutdown has started (at once if it has).
    ///
    /// Cheap to poll again, as a connection does each time it waits: once a waker is
    /// registered with the value, a poll with the same waker reads the atomic flag and
    /// returns, without the value's lock and list of waiters (the waker registered is
    /// the latest one, which the `Future` contract asks to be woken).
    pub(super) fn stopped(&self) -> impl Future<Output = ()> + 'static {
        let shared = Arc::clone(&self.shared);
        let mut stop = self.shared.stop.subscribe();
        async move {
            // `wait_for` sees a shutdown that started before the call too. The sender
            // lives in `shared`, so an error (a dropped sender) cannot happen; it would
            // mean stopping all the same.
            let mut changed = pin!(async move {
                let _ = stop.wait_for(|stopping| *stopping).await;
            });
            // The waker of the poll that registered one: its data and vtable as seen
            // then (tokio lends a task's waker with another vtable than its clones
            // have, so `Waker::will_wake` on a stored clone would not match).
            let mut registered: Option<(usize, usize)> = None;
            poll_fn(|cx| {
                if shared.stopping.load(Ordering::Acquire) {
                    return Poll::Ready(());
                }
                let waker = cx.waker();
                let this = (waker.data() as usize, waker.vtable() as *const _ as usize);
                if registered == Some(this) {
                    return Poll::Pending;
                }
                let polled = changed.as_mut().poll(cx);
                if polled.is_pending() {
                    registered = Some(this);
                }
                polled
            })
            .await;
        }
    }
}

/// The handlers of SIGTERM and SIGINT (Ctrl-C), as a process manager or a terminal
/// asks for a shutdown; on Windows, Ctrl-C's.
#[derive(Debug)]
pub(super) struct Signals {
    #[cfg(unix)]
    interrupt: tokio::signal::unix::Signal,
    #[cfg(unix)]
    terminate: tokio::signal::unix::Signal,
    #[cfg(windows)]
    ctrl_c: tokio::signal::windows::CtrlC,
}

impl Signals {
    /// Installs the handlers now, in `runtime`, whose worker will wait for them: once
    /// `serve` answers a request, a signal starts a shutdown and never has its default
    /// action (ending the process at once).
    pub(super) fn install(runtime: &tokio::runtime::Runtime) -> std::io::Result<Signals> {
        let _inside = runtime.enter();
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Ok(Signals {
                interrupt: signal(SignalKind::interrupt())?,
                terminate: signal(SignalKind::terminate())?,
            })
        }
        #[cfg(windows)]
        {
            Ok(Signals {
                ctrl_c: tokio::signal::windows::ctrl_c()?,
            })
        }
        #[cfg(not(any(unix, windows)))]
        {
            Ok(Signals {})
        }
    }

    /// Starts a shutdown on the first signal.
    pub(super) async fn wait(mut self, handle: ShutdownHandle) {
        #[cfg(unix)]
        first(
            async {
                self.interrupt.recv().await;
            },
            async {
                self.terminate.recv().await;
            },
        )
        .await;
        #[cfg(windows)]
        self.ctrl_c.recv().await;
        #[cfg(not(any(unix, windows)))]
        std::future::pending::<()>().await;
        handle.shutdown();
    }
}

/// `future`'s output, or `None` when `stop` completes first. `stop` is polled again by
/// the next call, so it must not have completed yet.
pub(super) async fn until<F: Future>(
    mut stop: std::pin::Pin<&mut impl Future<Output = ()>>,
    future: F,
) -> Option<F::Output> {
    let mut future = pin!(future);
    poll_fn(|cx| {
        if stop.as_mut().poll(cx).is_ready() {
            return Poll::Ready(None);
        }
        future.as_mut().poll(cx).map(Some)
    })
    .await
}

/// Completes when either completes (the two signals of unix).
#[cfg(unix)]
async fn first(a: impl Future<Output = ()>, b: impl Future<Output = ()>) {
    let mut b = pin!(b);
    let _ = until(b.as_mut(), a).await;
}
