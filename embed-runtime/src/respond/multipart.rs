//! The body of a 206 with several ranges: `multipart/byteranges` (RFC 9110 §14.6).

use std::collections::VecDeque;

use bytes::Bytes;
use http::HeaderValue;

use crate::plan::Segment;
use crate::range::ByteRange;
use crate::representation::Representation;

/// The boundary: derived from the ETag (a hash of the bytes), so it cannot occur in
/// them except by a sha256 collision, and the same request gets the same bytes. A file
/// whose content tag is not known yet gets one from its length and time, 40 characters
/// long, as unlikely in its bytes.
fn boundary(rep: &Representation<'_>) -> String {
    match rep.validators.etag {
        Some(etag) => {
            let tag: String = etag.chars().filter(char::is_ascii_alphanumeric).collect();
            format!("embed-{tag}")
        }
        None => format!(
            "embed-{:016x}{:016x}x",
            rep.len,
            rep.validators.modified.unwrap_or(0)
        ),
    }
}

/// Its `Content-Type`, with the boundary.
pub(super) fn content_type(rep: &Representation<'_>) -> HeaderValue {
    HeaderValue::try_from(format!("multipart/byteranges; boundary={}", boundary(rep)))
        .unwrap_or(HeaderValue::from_static("multipart/byteranges"))
}

/// Its segments and length. RFC 9110 §14.6: each part has its own `Content-Type` and
/// `Content-Range`.
pub(super) fn segments(rep: &Representation<'_>, ranges: &[ByteRange]) -> (VecDeque<Segment>, u64) {
    let boundary = boundary(rep);
    let content_type = rep.content_type;
    let mut segments = VecDeque::with_capacity(ranges.len() * 2 + 1);
    let mut len = 0;
    for range in ranges {
        let head = format!(
            "\r\n--{boundary}\r\nContent-Type: {content_type}\r\nContent-Range: bytes {}-{}/{}\r\n\r\n",
            range.start, range.end, rep.len
        );
        len += head.len() as u64 + range.len();
        segments.push_back(Segment::Bytes(Bytes::from(head)));
        segments.push_back(Segment::Range(*range));
    }
    let tail = format!("\r\n--{boundary}--\r\n");
    len += tail.len() as u64;
    segments.push_back(Segment::Bytes(Bytes::from(tail)));
    (segments, len)
}
