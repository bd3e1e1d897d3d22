//! The body plan: which bytes of a representation a response carries, before they
//! are read. `respond` decides it, `body` and `disk` carry it out, whether the bytes
//! are in memory or in a file.

use std::collections::VecDeque;

use bytes::Bytes;

use crate::range::ByteRange;

/// Which bytes of the representation a response carries.
#[derive(Debug)]
pub(crate) enum Slices {
    Whole,
    One(ByteRange),
    /// `multipart/byteranges`: part headers and ranges, in order.
    Multipart(VecDeque<Segment>),
}

/// What a multipart body is made of: literal bytes (the part headers) and ranges of
/// the representation.
#[derive(Debug)]
pub(crate) enum Segment {
    Bytes(Bytes),
    Range(ByteRange),
}

impl Slices {
    /// The segments of these slices of a representation `len` bytes long: none for an
    /// empty whole.
    pub(crate) fn into_segments(self, len: u64) -> VecDeque<Segment> {
        match self {
            Slices::Whole if len == 0 => VecDeque::new(),
            Slices::Whole => [Segment::Range(ByteRange {
                start: 0,
                end: len - 1,
            })]
            .into(),
            Slices::One(range) => [Segment::Range(range)].into(),
            Slices::Multipart(segments) => segments,
        }
    }
}
