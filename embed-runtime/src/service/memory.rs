//! The answers made from memory alone, for `dispatch` and `file` both: an embedded
//! asset's response and the one 404.

use bytes::Bytes;
use http::{HeaderMap, Method, Response};

use super::ServeAssets;
use super::route::{self, Policy};
use crate::asset::Asset;
use crate::body::Body;
use crate::negotiate::select_variant;
use crate::representation::Representation;
use crate::respond;

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
    let (index, variant) = select_variant(asset, headers);
    // Built for each of the asset's bodies, in their order (`tables.rs`).
    let prebuilt = policy.prebuilt.and_then(|all| all.get(index));
    let rep = match prebuilt {
        Some(prebuilt) => prebuilt.representation(asset, variant),
        None => Representation::embedded(asset, variant),
    };
    // Asked for only when a body is sent: a `compressed_only` asset's identity bytes
    // are decoded on first use, never for a HEAD or a 304.
    let mut response = respond::respond(
        &rep,
        method,
        headers,
        respond::Added {
            cache_control: policy.cache_control,
            fields: &policy.fields[..],
        },
        prebuilt,
        |slices| Body::from_memory(Bytes::from_static(variant.body()), slices),
    );
    if policy.vary_accept {
        respond::add_vary_accept(response.headers_mut());
    }
    response
}
