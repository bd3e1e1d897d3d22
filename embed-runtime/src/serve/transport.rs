//! What a connection's bytes go over: the TCP socket itself, or (feature `tls`) a TLS
//! session over it. The fast path and hyper read and write either the same way; only
//! the plain socket lets the kernel send a body on its own (`sendfile`, `MSG_MORE`),
//! since over TLS every byte is encrypted here first.

use std::io;
use std::task::{Context, Poll};

use bytes::BytesMut;
use tokio::io::{AsyncRead, AsyncWrite, Interest};
use tokio::net::TcpStream;

use super::ready::clear_readiness;

/// A connection's byte stream.
pub(super) trait Transport: AsyncRead + AsyncWrite + Unpin + Send + 'static {
    /// The TCP socket, when what is written to it reaches the client as it is (no TLS):
    /// a body may then go with `sendfile`.
    fn plain(&mut self) -> Option<&mut TcpStream>;

    /// Reads what has come into `read`'s spare room (reserved by the caller): the
    /// number of bytes, 0 at the end of the stream.
    fn poll_fill(&mut self, cx: &mut Context<'_>, read: &mut BytesMut) -> Poll<io::Result<usize>>;
}

impl Transport for TcpStream {
    fn plain(&mut self) -> Option<&mut TcpStream> {
        Some(self)
    }

    fn poll_fill(&mut self, cx: &mut Context<'_>, read: &mut BytesMut) -> Poll<io::Result<usize>> {
        loop {
            std::task::ready!(self.poll_read_ready(cx))?;
            let room = read.capacity() - read.len();
            match self.try_read_buf(read) {
                Ok(n) => {
                    // Less than there was room for: the socket has nothing left to
                    // read now, and says so without another system call.
                    if n > 0 && n < room {
                        clear_readiness(self, Interest::READABLE);
                    }
                    return Poll::Ready(Ok(n));
                }
                Err(error) if error.kind() == io::ErrorKind::WouldBlock => continue,
                Err(error) => return Poll::Ready(Err(error)),
            }
        }
    }
}

#[cfg(feature = "tls")]
impl Transport for tokio_rustls::server::TlsStream<TcpStream> {
    fn plain(&mut self) -> Option<&mut TcpStream> {
        None
    }

    fn poll_fill(&mut self, cx: &mut Context<'_>, read: &mut BytesMut) -> Poll<io::Result<usize>> {
        tokio_util::io::poll_read_buf(std::pin::Pin::new(self), cx, read)
    }
}
