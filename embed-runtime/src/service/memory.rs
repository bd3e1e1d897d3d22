//! The answers made from memory alone, for `dispatch` and `file` both: an embedded
//! asset's response and the one 404.

use bytes::Bytes;
use http::{HeaderMap, Method, Response, StatusCode};

use super::ServeAssets;
use super::route::{self, Policy};
use super::{Answer, Prebuilt};
use crate::asset::Asset;
use crate::body::Body;
use crate::negotiate::select_variant;
use crate::representation::Representation;
use crate::respond::{self, Outcome};

impl ServeAssets {
    /// The one 404: the configured page or a plain text, varying by `Accept` when the
    /// single-page app's fallback made the choice.
    pub(super) fn not_found(&self, method: &Method, headers: &HeaderMap) -> Response<Body> {
        let options = &self.config.options;
        let page_fields = &self.config.tables(self.assets).not_found_fields;
        let mut response = respond::not_found(options.not_found_page, page_fields, method, headers);
        if route::varies_by_accept(&self.config) {
            respond::add_vary_accept(response.headers_mut());
        }
        response
    }
}

/// An embedded asset's response: the stored variant the request negotiates.
pub(super) fn respond_embedded(
    asset: &'static Asset,
    policy: Policy<'_>,
    method: &Method,
    headers: &HeaderMap,
) -> Response<Body> {
    match answer_embedded(asset, policy, method, headers) {
        Embedded::Prebuilt(prebuilt) => prebuilt.into_response(),
        Embedded::Response(response) => response,
    }
}

/// An embedded asset's answer: its whole 200 or its 304 as the fields prebuilt with
/// the service, borrowed (the common answers, which copy nothing), or any other answer
/// as a response.
pub(super) fn answer_embedded<'a>(
    asset: &'static Asset,
    policy: Policy<'a>,
    method: &Method,
    headers: &HeaderMap,
) -> Embedded<'a> {
    let (index, variant) = select_variant(asset, headers);
    // Built for each of the asset's bodies, in their order (`tables.rs`).
    let prebuilt = policy.prebuilt.and_then(|all| all.get(index));
    let rep = match prebuilt {
        Some(prebuilt) => prebuilt.representation(asset, variant),
        None => Representation::embedded(asset, variant),
    };
    let outcome = respond::outcome(&rep, method, headers);
    if let (Some(prebuilt), false) = (prebuilt, policy.vary_accept) {
        match outcome {
            Outcome::Whole => {
                // Asked for only when a body is sent: a `compressed_only` asset's
                // identity bytes are decoded on first use, never for a HEAD or a 304.
                let body = if method == Method::HEAD {
                    Bytes::new()
                } else {
                    Bytes::from_static(variant.body())
                };
                return Embedded::Prebuilt(Prebuilt {
                    status: StatusCode::OK,
                    fields: prebuilt,
                    body,
                });
            }
            Outcome::NotModified => {
                return Embedded::Prebuilt(Prebuilt {
                    status: StatusCode::NOT_MODIFIED,
                    fields: prebuilt,
                    body: Bytes::new(),
                });
            }
            _ => {}
        }
    }
    let mut response = respond::respond_to(
        outcome,
        &rep,
        method,
        respond::Added {
            cache_control: policy.cache_control,
            fields: &policy.fields[..],
            shared_deltas: policy.shared_deltas,
        },
        |slices| Body::from_memory(Bytes::from_static(variant.body()), slices),
    );
    if policy.vary_accept {
        respond::add_vary_accept(response.headers_mut());
    }
    Embedded::Response(response)
}

/// An embedded asset's answer: see [`answer_embedded`].
pub(super) enum Embedded<'a> {
    Prebuilt(Prebuilt<'a>),
    Response(Response<Body>),
}

impl<'a> From<Embedded<'a>> for Answer<'a> {
    fn from(embedded: Embedded<'a>) -> Self {
        match embedded {
            Embedded::Prebuilt(prebuilt) => Answer::Prebuilt(prebuilt),
            Embedded::Response(response) => Answer::Response(response),
        }
    }
}
