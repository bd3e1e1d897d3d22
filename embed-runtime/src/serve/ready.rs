//! A socket's readiness, as tokio keeps it: cleared after a short read or write, so
//! the next one waits for the kernel's event instead of making a system call that would
//! only report `EAGAIN`. Used where the fast path reads (`fast.rs`) and where
//! `sendfile` writes ([`write_some`]: `sendfile.rs`, `pages.rs`).

use std::io;

use tokio::io::Interest;
use tokio::net::TcpStream;

/// Clears `stream`'s readiness for `interest` without the system call that would only
/// report `EAGAIN`, after a read or write that took less than it could: the socket has
/// nothing more to give or no more room now, and an event that comes later raises the
/// readiness again (tokio clears it only when no event came since the one it holds).
pub(super) fn clear_readiness(stream: &TcpStream, interest: Interest) {
    let _ = stream.try_io(interest, || Err::<(), _>(io::ErrorKind::WouldBlock.into()));
}

/// One write of up to `want` bytes by `write` (a `sendfile`), once `stream` has room:
/// the bytes it took, its writable readiness cleared when that was less than `want`.
#[cfg(target_os = "linux")]
pub(super) async fn write_some(
    stream: &TcpStream,
    want: usize,
    mut write: impl FnMut() -> io::Result<usize>,
) -> io::Result<usize> {
    let sent = stream.async_io(Interest::WRITABLE, &mut write).await?;
    if sent < want {
        clear_readiness(stream, Interest::WRITABLE);
    }
    Ok(sent)
}
