//! The response body: static bytes for embedded assets, nothing for HEAD and 304.

use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::{Frame, SizeHint};

use crate::error::Error;

/// The body of a response built by this crate.
///
/// Embedded assets are one frame of `Bytes::from_static`: no copy, no allocation.
#[derive(Debug, Default)]
pub struct Body {
    /// `None` once sent, and for empty bodies.
    once: Option<Bytes>,
}

impl Body {
    /// A body with no bytes (HEAD, 304, redirects).
    pub fn empty() -> Self {
        Body { once: None }
    }

    /// A body of static bytes.
    pub fn from_static(bytes: &'static [u8]) -> Self {
        Body::from(Bytes::from_static(bytes))
    }
}

impl From<Bytes> for Body {
    fn from(bytes: Bytes) -> Self {
        Body {
            once: (!bytes.is_empty()).then_some(bytes),
        }
    }
}

impl http_body::Body for Body {
    type Data = Bytes;
    type Error = Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Error>>> {
        Poll::Ready(
            self.get_mut()
                .once
                .take()
                .map(|bytes| Ok(Frame::data(bytes))),
        )
    }

    fn is_end_stream(&self) -> bool {
        self.once.is_none()
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.once.as_ref().map_or(0, |b| b.len() as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body::Body as _;

    #[test]
    fn static_body_is_one_exact_frame() {
        let mut body = Body::from_static(b"hello");
        assert_eq!(body.size_hint().exact(), Some(5));
        assert!(!body.is_end_stream());
        let waker = std::task::Waker::noop();
        let mut cx = Context::from_waker(waker);
        let frame = Pin::new(&mut body).poll_frame(&mut cx);
        let Poll::Ready(Some(Ok(frame))) = frame else {
            panic!("expected a frame")
        };
        assert_eq!(frame.into_data().unwrap(), "hello");
        assert!(body.is_end_stream());
        assert!(matches!(
            Pin::new(&mut body).poll_frame(&mut cx),
            Poll::Ready(None)
        ));
    }

    #[test]
    fn empty_body_ends_at_once() {
        let body = Body::empty();
        assert!(body.is_end_stream());
        assert_eq!(body.size_hint().exact(), Some(0));
    }
}
