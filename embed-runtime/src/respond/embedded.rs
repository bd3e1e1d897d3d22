//! An embedded asset's answer: the stored variant the request negotiates, then its
//! whole 200 or its 304 borrowed from the fields prebuilt with the service
//! ([`Prebuilt`], which copies nothing), or any other answer (206, 412, 416, a policy
//! assembled per request) made by [`respond_to`](super::respond_to).

use std::ops::Deref;
use std::sync::Arc;

use bytes::Bytes;
use http::{HeaderMap, Method, Response, StatusCode};

use super::{Added, Outcome, PrebuiltHeaders, add_vary_accept, outcome, respond_to};
use crate::asset::Asset;
use crate::body::Body;
use crate::negotiate::select_variant;
use crate::representation::Representation;

/// A response whose fields were all built with the service: a whole 200 or a 304.
#[derive(Debug)]
pub(crate) struct Prebuilt<'a> {
    /// 200 or 304.
    pub(crate) status: StatusCode,
    pub(crate) fields: PrebuiltFields<'a>,
    /// Empty for a HEAD and a 304.
    pub(crate) body: Bytes,
}

/// Where a prebuilt answer's fields live: with the service's tables (an embedded
/// asset), or shared with a cache entry (a file of a folder served whole, kept while
/// it does not change).
#[derive(Debug, Clone)]
pub(crate) enum PrebuiltFields<'a> {
    Borrowed(&'a PrebuiltHeaders),
    Shared(Arc<PrebuiltHeaders>),
}

impl Deref for PrebuiltFields<'_> {
    type Target = PrebuiltHeaders;

    fn deref(&self) -> &PrebuiltHeaders {
        match self {
            PrebuiltFields::Borrowed(fields) => fields,
            PrebuiltFields::Shared(fields) => fields,
        }
    }
}

impl<'a> Prebuilt<'a> {
    /// The whole 200 or the 304 that `outcome` is, with `fields` built before (once
    /// per asset and policy, or per kept version of a file); `body` is asked for only
    /// when a 200 to a GET sends it. `None` for any other outcome, which is assembled
    /// per request ([`respond_to`]).
    pub(crate) fn of(
        outcome: &Outcome,
        fields: PrebuiltFields<'a>,
        method: &Method,
        body: impl FnOnce() -> Bytes,
    ) -> Option<Self> {
        let status = match outcome {
            Outcome::Whole => StatusCode::OK,
            Outcome::NotModified => StatusCode::NOT_MODIFIED,
            Outcome::PreconditionFailed | Outcome::Ranges(_) => return None,
        };
        let body = if status == StatusCode::OK && method != Method::HEAD {
            body()
        } else {
            Bytes::new()
        };
        Some(Prebuilt {
            status,
            fields,
            body,
        })
    }

    /// Its header fields.
    pub(crate) fn headers(&self) -> &HeaderMap {
        self.fields.fields(self.status == StatusCode::NOT_MODIFIED)
    }

    /// The same answer as an `http::Response`, its fields copied.
    pub(crate) fn into_response(self) -> Response<Body> {
        let headers = self.headers().clone();
        let mut response = Response::new(Body::from(self.body));
        *response.status_mut() = self.status;
        *response.headers_mut() = headers;
        response
    }
}

/// An embedded asset's answer: see [`answer`].
#[derive(Debug)]
pub(crate) enum Embedded<'a> {
    Prebuilt(Prebuilt<'a>),
    Response(Response<Body>),
}

impl Embedded<'_> {
    /// The answer as an `http::Response`.
    pub(crate) fn into_response(self) -> Response<Body> {
        match self {
            Embedded::Prebuilt(prebuilt) => prebuilt.into_response(),
            Embedded::Response(response) => response,
        }
    }
}

/// How an embedded asset is answered at the URL it was reached at.
#[derive(Debug, Clone, Copy)]
pub(crate) struct EmbeddedPolicy<'t> {
    /// The fields the options add.
    pub(crate) added: Added<'t>,
    /// The header maps built once for this asset and policy, one per stored body in
    /// the asset's order (`Asset::bodies`); `None` where the response is assembled per
    /// request.
    pub(crate) prebuilt: Option<&'t [PrebuiltHeaders]>,
    /// The choice of this asset depended on `Accept` (the single-page app's fallback):
    /// `Vary` says so. Never with `prebuilt` maps.
    pub(crate) vary_accept: bool,
}

/// An embedded asset's answer to a GET or HEAD: its whole 200 or its 304 as the fields
/// prebuilt with the service, borrowed (the common answers), or any other answer as a
/// response.
pub(crate) fn answer<'a>(
    asset: &'static Asset,
    policy: EmbeddedPolicy<'a>,
    method: &Method,
    headers: &HeaderMap,
) -> Embedded<'a> {
    let (index, variant) = select_variant(asset.bodies(), headers);
    let prebuilt = policy.prebuilt.and_then(|all| all.get(index));
    let rep = match prebuilt {
        Some(prebuilt) => Representation::with_values(asset, variant, prebuilt.values.clone()),
        None => Representation::embedded(asset, variant),
    };
    let outcome = outcome(&rep, method, headers);
    if let (Some(fields), false) = (prebuilt, policy.vary_accept) {
        // The body is asked for only when it is sent: a `compressed_only` asset's
        // identity bytes are decoded on first use, never for a HEAD or a 304.
        let fields = PrebuiltFields::Borrowed(fields);
        let body = || Bytes::from_static(variant.body());
        if let Some(prebuilt) = Prebuilt::of(&outcome, fields, method, body) {
            return Embedded::Prebuilt(prebuilt);
        }
    }
    let mut response = respond_to(outcome, &rep, method, policy.added, |slices| {
        Body::from_memory(Bytes::from_static(variant.body()), slices)
    });
    if policy.vary_accept {
        add_vary_accept(response.headers_mut());
    }
    Embedded::Response(response)
}
