//! The answers made from memory alone, for `dispatch` and `file` both: an embedded
//! asset's answer under the policy of its URL (made in `respond::embedded`) and the
//! one 404.

use http::{HeaderMap, Method, Response};

use super::ServeAssets;
use super::route::{self, Policy};
use crate::asset::Asset;
use crate::body::Body;
use crate::respond::{self, Embedded, EmbeddedPolicy};

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
    answer_embedded(asset, policy, method, headers).into_response()
}

/// An embedded asset's answer under `policy` (see [`respond::answer_embedded`]).
pub(super) fn answer_embedded<'a>(
    asset: &'static Asset,
    policy: Policy<'a>,
    method: &Method,
    headers: &HeaderMap,
) -> Embedded<'a> {
    let policy = EmbeddedPolicy {
        added: respond::Added {
            cache_control: policy.cache_control,
            fields: &policy.fields[..],
            shared_deltas: policy.shared_deltas,
            purge_tags: policy.purge_tags,
        },
        prebuilt: policy.prebuilt,
        vary_accept: policy.vary_accept,
    };
    respond::answer_embedded(asset, policy, method, headers)
}
