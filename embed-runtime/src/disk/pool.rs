//! Where the disk path meets its async runtime: work that blocks on the file system
//! (opening and checking a file, reading a chunk, warming the page cache before
//! `sendfile`) runs on a pool of threads through [`Pool`], and comes back as a future.
//! Nothing else of the disk path names a runtime, so it runs the same under a
//! framework's multi-threaded runtime and on each current-thread worker of `serve`.
//!
//! tokio's blocking pool is the one implementation ([`Runtime`]); another runtime is
//! one more `impl Pool`. The content-ETag hashing needs none: it has a thread of its
//! own (`tags`), whatever runs the requests.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

/// A pool of threads that may block.
pub(crate) trait Pool {
    /// A job handed to the pool, as the future of what it returns: an error only when
    /// the job did not return (it panicked, or the runtime is shutting down).
    type Job<R: Send + 'static>: Future<Output = io::Result<R>> + Send + Unpin;

    /// Runs `job` on the pool; it starts at once, whether or not its future is polled.
    fn spawn<R: Send + 'static>(job: impl FnOnce() -> R + Send + 'static) -> Self::Job<R>;
}

/// The pool of this build: tokio's blocking pool (each of `serve`'s workers has its
/// own, as each has its own runtime).
pub(crate) type Runtime = Tokio;

/// tokio's blocking pool, through `spawn_blocking`.
#[derive(Debug)]
pub(crate) struct Tokio;

impl Pool for Tokio {
    type Job<R: Send + 'static> = TokioJob<R>;

    fn spawn<R: Send + 'static>(job: impl FnOnce() -> R + Send + 'static) -> TokioJob<R> {
        TokioJob(tokio::task::spawn_blocking(job))
    }
}

/// A job on tokio's blocking pool.
#[derive(Debug)]
pub(crate) struct TokioJob<R>(tokio::task::JoinHandle<R>);

impl<R> Future for TokioJob<R> {
    type Output = io::Result<R>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<R>> {
        Pin::new(&mut self.0).poll(cx).map_err(io::Error::other)
    }
}

/// Runs `job` on [`Runtime`]'s pool and hands back its result; a job that did not
/// return is an error too.
pub(crate) async fn blocking<T: Send + 'static>(
    job: impl FnOnce() -> io::Result<T> + Send + 'static,
) -> io::Result<T> {
    <Runtime as Pool>::spawn(job).await?
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On a current-thread runtime, as each of `serve`'s workers is.
    #[tokio::test]
    async fn a_job_returns_through_its_future_and_one_that_panics_is_an_error() {
        let thread = std::thread::current().id();
        let (ran_on, value) = blocking(|| Ok((std::thread::current().id(), 7)))
            .await
            .unwrap();
        assert_eq!(value, 7);
        assert_ne!(ran_on, thread, "the job ran on the pool, not the worker");
        let lost = <Runtime as Pool>::spawn(|| -> u8 { panic!("a job that panics") })
            .await
            .unwrap_err();
        assert_eq!(lost.kind(), io::ErrorKind::Other);
        let failed = blocking::<()>(|| Err(io::ErrorKind::NotFound.into())).await;
        assert_eq!(failed.unwrap_err().kind(), io::ErrorKind::NotFound);
    }
}
