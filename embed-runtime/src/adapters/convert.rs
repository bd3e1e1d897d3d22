//! What every adapter converts alike: a body's data frames one by one, and header fields copied by bytes from another crate's (or
//! `http` version's) types. (A body with the error type a framework wants is
//! `http_body_util::BodyExt::map_err`.)

use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::{HeaderMap, HeaderName, HeaderValue};
use http_body::Body as _;

use crate::{Body, Error};

/// The next data frame of `body`: the core sends no trailers, and any frame without
/// data is skipped.
#[cfg_attr(not(any(feature = "actix-web", feature = "warp")), allow(dead_code))]
pub(crate) fn poll_data(
    body: &mut Body,
    cx: &mut Context<'_>,
) -> Poll<Option<Result<Bytes, Error>>> {
    loop {
        return match Pin::new(&mut *body).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => match frame.into_data() {
                Ok(data) => Poll::Ready(Some(Ok(data))),
                Err(_trailers) => continue,
            },
            Poll::Ready(Some(Err(err))) => Poll::Ready(Some(Err(err))),
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending => Poll::Pending,
        };
    }
}

/// Header fields given by bytes (a framework's own map, or `http` 0.2's), `len` of
/// them, every line in order, repeated names kept; `None` if one is no valid `http` field, which no parser
/// in front of us lets through.
#[cfg_attr(not(any(feature = "actix-web", feature = "rocket")), allow(dead_code))]
pub(crate) fn header_map<F: Field>(
    fields: impl Iterator<Item = F>,
    len: usize,
) -> Option<HeaderMap> {
    let mut out = HeaderMap::try_with_capacity(len).ok()?;
    for field in fields {
        let name = HeaderName::from_bytes(field.name()).ok()?;
        let value = HeaderValue::from_bytes(field.value()).ok()?;
        out.try_append(name, value).ok()?;
    }
    Some(out)
}

/// A header field line of a framework's own types, read by bytes.
#[cfg_attr(not(any(feature = "actix-web", feature = "rocket")), allow(dead_code))]
pub(crate) trait Field {
    fn name(&self) -> &[u8];
    fn value(&self) -> &[u8];
}
