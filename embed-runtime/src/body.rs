//! The response body: static bytes for embedded assets, chunks read from disk for
//! large files, nothing for HEAD and 304.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::{Frame, SizeHint};

use crate::disk::{Content, DiskBody, ReadBudget};
use crate::error::Error;
use crate::plan::{Segment, Slices};
use crate::range::ByteRange;

/// The body of a response built by this crate.
///
/// Embedded assets are one frame of `Bytes::from_static` (no copy, no allocation);
/// ranges of them are slices of the same static bytes. On-disk assets are read in
/// chunks on tokio's blocking pool; if the file changes or fails mid-way, the body
/// ends with an [`Error`], and the server closes the connection rather than let a
/// client take short bytes for a whole file.
///
/// It is an `http_body::Body` whose size is exact, so servers send `Content-Length`:
///
/// ```
/// # use embed_assets::{embed_assets, Assets};
/// # static ASSETS: Assets = embed_assets!("../examples/public");
/// use http_body::Body as _;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let request = http::Request::get("/css/app.css").header("host", "localhost");
/// let response = ASSETS.service().respond(&request.body(()).unwrap()).await;
/// let css = ASSETS.get("/css/app.css").unwrap();
/// assert_eq!(response.body().size_hint().exact(), Some(css.len()));
/// # }
/// ```
#[derive(Debug, Default)]
pub struct Body {
    pub(crate) inner: Inner,
}

/// What a body is made of (`serve` looks inside, to write a body its own way).
#[derive(Debug, Default)]
pub(crate) enum Inner {
    #[default]
    Empty,
    /// One frame: an embedded body or a range of it. No allocation.
    Once(Bytes),
    /// Frames sent in order: multipart responses.
    Chunks(VecDeque<Bytes>),
    Disk(Box<DiskBody>),
}

impl Body {
    /// A body with no bytes (HEAD, 304, redirects).
    pub fn empty() -> Self {
        Body {
            inner: Inner::Empty,
        }
    }

    /// A body of static bytes.
    pub fn from_static(bytes: &'static [u8]) -> Self {
        Body::from(Bytes::from_static(bytes))
    }

    /// The body's bytes when they are in memory in one run: an embedded asset's body
    /// or one range of it (a slice of the same static bytes, no copy), or no bytes.
    /// The body itself, unchanged, otherwise: an on-disk file's stream, or the parts
    /// of a `multipart/byteranges` body. For a server or framework that sends a plain
    /// byte buffer without polling a body.
    ///
    /// ```
    /// # use embed_assets::{embed_assets, Assets};
    /// # static ASSETS: Assets = embed_assets!("../examples/public");
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let request = http::Request::get("/css/app.css").header("host", "localhost");
    /// let response = ASSETS.service().respond(&request.body(()).unwrap()).await;
    /// let css = ASSETS.get("/css/app.css").unwrap();
    /// let bytes = response.into_body().into_bytes().expect("embedded: one run of bytes");
    /// assert_eq!(bytes, css.body(embed_assets::Encoding::Identity).unwrap());
    /// # }
    /// ```
    ///
    /// # Errors
    /// The body itself, when its bytes are not all in memory in one run.
    pub fn into_bytes(self) -> Result<Bytes, Body> {
        match self.inner {
            Inner::Empty => Ok(Bytes::new()),
            Inner::Once(bytes) => Ok(bytes),
            inner => Err(Body { inner }),
        }
    }

    pub(crate) fn from_chunks(chunks: VecDeque<Bytes>) -> Self {
        Body {
            inner: Inner::Chunks(chunks),
        }
    }

    /// Slices of bytes held in memory: `Bytes::slice` shares them (static bytes stay
    /// static), so no range copies anything.
    pub(crate) fn from_memory(bytes: Bytes, slices: Slices) -> Self {
        let slice = |range: ByteRange| bytes.slice(range.start as usize..=range.end as usize);
        match slices {
            Slices::Whole => Body::from(bytes),
            Slices::One(range) => Body::from(slice(range)),
            Slices::Multipart(segments) => Body::from_chunks(
                segments
                    .into_iter()
                    .map(|segment| match segment {
                        Segment::Bytes(bytes) => bytes,
                        Segment::Range(range) => slice(range),
                    })
                    .collect(),
            ),
        }
    }

    /// The slices of a file read at run time: shared slices of bytes read whole, or
    /// chunks read `chunk_size` at a time from the open file.
    pub(crate) fn from_file(
        content: Content,
        slices: Slices,
        chunk_size: usize,
        budget: Arc<ReadBudget>,
    ) -> Self {
        match content {
            Content::Whole(bytes) => Body::from_memory(bytes, slices),
            Content::Open(opened) => {
                let segments = slices.into_segments(opened.version.len);
                if segments.is_empty() {
                    return Body::empty();
                }
                Body {
                    inner: Inner::Disk(Box::new(DiskBody::new(
                        opened, segments, chunk_size, budget,
                    ))),
                }
            }
        }
    }
}

impl From<Bytes> for Body {
    fn from(bytes: Bytes) -> Self {
        if bytes.is_empty() {
            return Body::empty();
        }
        Body {
            inner: Inner::Once(bytes),
        }
    }
}

impl http_body::Body for Body {
    type Data = Bytes;
    type Error = Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Error>>> {
        let inner = &mut self.get_mut().inner;
        match inner {
            Inner::Empty => Poll::Ready(None),
            Inner::Once(_) => match std::mem::take(inner) {
                Inner::Once(bytes) => Poll::Ready(Some(Ok(Frame::data(bytes)))),
                _ => Poll::Ready(None),
            },
            Inner::Chunks(chunks) => {
                Poll::Ready(chunks.pop_front().map(|bytes| Ok(Frame::data(bytes))))
            }
            Inner::Disk(disk) => disk
                .poll_chunk(cx)
                .map(|chunk| chunk.map(|result| result.map(Frame::data))),
        }
    }

    fn is_end_stream(&self) -> bool {
        match &self.inner {
            Inner::Empty => true,
            Inner::Once(_) => false,
            Inner::Chunks(chunks) => chunks.is_empty(),
            Inner::Disk(disk) => disk.remaining() == 0,
        }
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(match &self.inner {
            Inner::Empty => 0,
            Inner::Once(bytes) => bytes.len() as u64,
            Inner::Chunks(chunks) => chunks.iter().map(|c| c.len() as u64).sum(),
            Inner::Disk(disk) => disk.remaining(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body::Body as _;

    fn next(body: &mut Body) -> Option<Bytes> {
        let mut cx = Context::from_waker(std::task::Waker::noop());
        match Pin::new(body).poll_frame(&mut cx) {
            Poll::Ready(Some(Ok(frame))) => Some(frame.into_data().unwrap()),
            Poll::Ready(None) => None,
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn static_body_is_one_exact_frame() {
        let mut body = Body::from_static(b"hello");
        assert_eq!(body.size_hint().exact(), Some(5));
        assert!(!body.is_end_stream());
        assert_eq!(next(&mut body).unwrap(), "hello");
        assert!(body.is_end_stream());
        assert_eq!(next(&mut body), None);
    }

    #[test]
    fn chunks_come_in_order_with_an_exact_size() {
        let mut body = Body::from_chunks(VecDeque::from([
            Bytes::from_static(b"ab"),
            Bytes::from_static(b"cde"),
        ]));
        assert_eq!(body.size_hint().exact(), Some(5));
        assert_eq!(next(&mut body).unwrap(), "ab");
        assert_eq!(body.size_hint().exact(), Some(3));
        assert_eq!(next(&mut body).unwrap(), "cde");
        assert!(body.is_end_stream());
    }

    #[test]
    fn empty_body_ends_at_once() {
        let body = Body::empty();
        assert!(body.is_end_stream());
        assert_eq!(body.size_hint().exact(), Some(0));
        assert!(Body::from(Bytes::new()).is_end_stream());
    }
}
