//! The one place that builds `http::Response`s: composes the decisions of
//! `negotiate`, `precondition` and `range` for a representation, whatever its bytes
//! come from (the binary or the disk). One file per job:
//! - this file: a GET or HEAD of a representation, to its status and body;
//! - `headers.rs`: the header fields of those responses (and the maps built once per
//!   service), with the one list of fields the service owns;
//! - `multipart.rs`: the body of a multi-range 206;
//! - `embedded.rs`: an embedded asset's answer, its common 200 and 304 borrowed from
//!   the prebuilt maps;
//! - `canned.rs`: the answers that are no representation: 404, 405, 301, a status.

use http::header::{IF_MATCH, IF_MODIFIED_SINCE, IF_NONE_MATCH, IF_UNMODIFIED_SINCE, RANGE};
use http::{HeaderMap, Method, Response, StatusCode};

use crate::body::Body;
use crate::plan::Slices;
use crate::precondition::{Precondition, evaluate};
use crate::range::{RangeSelection, select_ranges};
use crate::representation::Representation;

mod canned;
mod embedded;
mod headers;
mod multipart;

pub(crate) use canned::{
    add_vary_accept, method_not_allowed, not_found, not_found_no_store, page_as_not_found,
    redirect, release_list, status_only,
};
pub(crate) use embedded::{
    Embedded, EmbeddedPolicy, Prebuilt, PrebuiltFields, answer as answer_embedded,
};
pub(crate) use headers::{
    Added, NO_CACHE, Part, PrebuiltHeaders, PurgeTags, RELEASE_ID, SERVICE_FIELDS,
    representation_headers,
};

/// What a GET or HEAD of a representation comes to, decided from the request's
/// preconditions (RFC 9110 §13.2.2), then its ranges (§14), before any header is built.
#[derive(Debug)]
pub(crate) enum Outcome {
    /// 304: the client's copy is current.
    NotModified,
    /// 412: a precondition failed.
    PreconditionFailed,
    /// 200: the whole representation.
    Whole,
    /// 206 or 416: a range request (never [`RangeSelection::Full`]).
    Ranges(RangeSelection),
}

/// The outcome of a GET or HEAD of `rep`.
pub(crate) fn outcome(rep: &Representation<'_>, method: &Method, headers: &HeaderMap) -> Outcome {
    let fields = Fields::scan(headers);
    if fields.conditional {
        match evaluate(method, headers, &rep.validators) {
            Precondition::Proceed => {}
            Precondition::NotModified => return Outcome::NotModified,
            Precondition::Failed => return Outcome::PreconditionFailed,
        }
    }
    if !fields.range {
        return Outcome::Whole;
    }
    match select_ranges(method, headers, &rep.validators, rep.len) {
        RangeSelection::Full => Outcome::Whole,
        ranges => Outcome::Ranges(ranges),
    }
}

/// The response to a GET or HEAD of `rep`: its [`outcome`], then the representation.
/// `body` turns the chosen slices into a body; it is not called for HEAD, 304, 412 or
/// 416.
///
/// Ranges apply to the selected representation, encoded or not: a 206 of the br
/// variant carries that variant's ETag, `Content-Encoding: br` and byte offsets into
/// the br bytes, so every header of the response describes the same bytes.
pub(crate) fn respond(
    rep: &Representation<'_>,
    method: &Method,
    headers: &HeaderMap,
    added: Added<'_>,
    body: impl FnOnce(Slices) -> Body,
) -> Response<Body> {
    let outcome = outcome(rep, method, headers);
    respond_to(outcome, rep, method, added, body)
}

/// The response of an [`Outcome`] already decided for `rep`. (An embedded asset's
/// whole 200 and its 304 with the fields prebuilt per service are not made here:
/// they are borrowed, `embedded.rs`.)
pub(crate) fn respond_to(
    outcome: Outcome,
    rep: &Representation<'_>,
    method: &Method,
    added: Added<'_>,
    body: impl FnOnce(Slices) -> Body,
) -> Response<Body> {
    let selection = match outcome {
        Outcome::NotModified => {
            // RFC 9110 §15.4.5: the headers a 200 would carry for caches to update,
            // and no representation metadata (no Content-Type/Length/Encoding).
            let mut response = status_only(StatusCode::NOT_MODIFIED);
            *response.headers_mut() = representation_headers(rep, added, Part::NotModified);
            return response;
        }
        Outcome::PreconditionFailed => return status_only(StatusCode::PRECONDITION_FAILED),
        Outcome::Whole => RangeSelection::Full,
        Outcome::Ranges(ranges) => ranges,
    };
    let is_head = method == Method::HEAD;
    let (status, slices, part) = match selection {
        RangeSelection::Full => (StatusCode::OK, Slices::Whole, Part::Whole),
        RangeSelection::Single(range) => (
            StatusCode::PARTIAL_CONTENT,
            Slices::One(range),
            Part::Range(range),
        ),
        RangeSelection::Multiple(ranges) => {
            let (segments, len) = multipart::segments(rep, &ranges);
            let part = Part::Multipart {
                content_type: multipart::content_type(rep),
                len,
            };
            (
                StatusCode::PARTIAL_CONTENT,
                Slices::Multipart(segments),
                part,
            )
        }
        RangeSelection::Unsatisfiable => {
            let mut response = status_only(StatusCode::RANGE_NOT_SATISFIABLE);
            *response.headers_mut() = representation_headers(rep, added, Part::Unsatisfiable);
            return response;
        }
    };
    let mut response = Response::new(Body::empty());
    *response.status_mut() = status;
    *response.headers_mut() = representation_headers(rep, added, part);
    if !is_head {
        *response.body_mut() = body(slices);
    }
    response
}

/// Which of the fields that can change a response's status the request has.
///
/// Most requests have none, and one pass over their few fields costs less than a
/// hashed lookup of each absent name (`evaluate` and `select_ranges` make five).
struct Fields {
    /// `If-Match`, `If-None-Match`, `If-Modified-Since` or `If-Unmodified-Since`.
    conditional: bool,
    /// `Range` (`If-Range` means nothing without it).
    range: bool,
}

impl Fields {
    fn scan(headers: &HeaderMap) -> Self {
        let mut fields = Fields {
            conditional: false,
            range: false,
        };
        for name in headers.keys() {
            if name == IF_NONE_MATCH
                || name == IF_MODIFIED_SINCE
                || name == IF_MATCH
                || name == IF_UNMODIFIED_SINCE
            {
                fields.conditional = true;
            } else if name == RANGE {
                fields.range = true;
            }
        }
        fields
    }
}
