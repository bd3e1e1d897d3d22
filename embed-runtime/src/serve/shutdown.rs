//! [`ShutdownHandle`]: the one flag every worker and every connection watches, and the
//! signals that set it.

use std::sync::Arc;

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
    stop: Arc<watch::Sender<bool>>,
}

impl ShutdownHandle {
    pub(super) fn new() -> Self {
        ShutdownHandle {
            stop: Arc::new(watch::Sender::new(false)),
        }
    }

    /// Starts the shutdown: the listeners close, and the connections finish what they
    /// have in flight (see [`Server::serve`](crate::Server::serve)). Returns at once;
    /// `serve` returns when the workers are done.
    pub fn shutdown(&self) {
        self.stop.send_replace(true);
    }

    /// Whether a shutdown has started.
    pub fn is_shutting_down(&self) -> bool {
        *self.stop.borrow()
    }

    /// Completes once a shutdown has started (at once if it has).
    pub(super) fn stopped(&self) -> impl Future<Output = ()> + 'static {
        let mut stop = self.stop.subscribe();
        async move {
            // `wait_for` sees a shutdown that started before the call too. The sender
            // lives in `self`, so an error (a dropped sender) cannot happen; it would
            // mean stopping all the same.
            let _ = stop.wait_for(|stopping| *stopping).await;
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
        super::worker::first(
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
