//! The answers that are no representation of an asset: the 404 (plain, or the
//! configured page), 405, 301, a bare status, and the list of releases.

use http::header::{
    ACCEPT_RANGES, ALLOW, CACHE_CONTROL, CONTENT_LENGTH, CONTENT_TYPE, ETAG, LAST_MODIFIED,
    LOCATION, VARY,
};
use http::{HeaderMap, HeaderName, HeaderValue, Method, Response, StatusCode};

use super::headers::{Added, DICTIONARY_VARY, NO_CACHE, Part, representation_headers};
use crate::asset::Asset;
use crate::body::Body;
use crate::negotiate::select_variant;
use crate::representation::Representation;

const ALLOWED: HeaderValue = HeaderValue::from_static("GET, HEAD");
const TEXT_PLAIN: HeaderValue = HeaderValue::from_static("text/plain; charset=utf-8");

/// The list of releases (`ServeAssets::release_endpoint`): `json`, never stored by a
/// cache (a poll must see the replica itself), with `fields` (the service's own on
/// every answer: `nosniff`, `Release-Id`).
pub(crate) fn release_list(
    json: &bytes::Bytes,
    fields: &[(HeaderName, HeaderValue)],
    method: &Method,
) -> Response<Body> {
    const JSON: HeaderValue = HeaderValue::from_static("application/json");
    const NO_STORE: HeaderValue = HeaderValue::from_static("no-store");
    let mut response = status_only(StatusCode::OK);
    let out = response.headers_mut();
    out.insert(CONTENT_TYPE, JSON);
    out.insert(CONTENT_LENGTH, HeaderValue::from(json.len()));
    out.insert(CACHE_CONTROL, NO_STORE);
    for (name, value) in fields {
        out.append(name.clone(), value.clone());
    }
    if method != Method::HEAD {
        *response.body_mut() = Body::from(json.clone());
    }
    response
}

/// 404, with the configured page's bytes when there is one.
pub(crate) fn not_found(
    page: Option<&'static Asset>,
    page_fields: &[(HeaderName, HeaderValue)],
    method: &Method,
    headers: &HeaderMap,
) -> Response<Body> {
    let is_head = method == Method::HEAD;
    let Some(page) = page.filter(|page| page.is_embedded()) else {
        // NOTE: MESSAGE_LENGTH must stay the length of MESSAGE (a test compares them).
        const MESSAGE: &[u8] = b"404 Not Found\n";
        const MESSAGE_LENGTH: HeaderValue = HeaderValue::from_static("14");
        let mut response = status_only(StatusCode::NOT_FOUND);
        if !is_head {
            *response.body_mut() = Body::from_static(MESSAGE);
        }
        let out = response.headers_mut();
        out.insert(CONTENT_TYPE, TEXT_PLAIN);
        out.insert(CONTENT_LENGTH, MESSAGE_LENGTH);
        return response;
    };
    let (_, variant) = select_variant(page.bodies(), headers);
    let rep = Representation::embedded(page, variant);
    let mut response = status_only(StatusCode::NOT_FOUND);
    let added = Added {
        cache_control: &NO_CACHE,
        fields: page_fields,
        shared_deltas: false,
        purge_tags: None,
    };
    *response.headers_mut() = representation_headers(&rep, added, Part::ErrorPage);
    if !is_head {
        *response.body_mut() = Body::from_static(variant.body());
    }
    response
}

/// A page's whole 200 made its site's 404: status 404, and no validators and no
/// `Accept-Ranges`, so that no cache turns it into a 304 and no range is taken of it.
pub(crate) fn page_as_not_found(mut page: Response<Body>) -> Response<Body> {
    *page.status_mut() = StatusCode::NOT_FOUND;
    let fields = page.headers_mut();
    for name in [ETAG, LAST_MODIFIED, ACCEPT_RANGES] {
        fields.remove(name);
    }
    page
}

/// The plain 404 with `Cache-Control: no-store`: for a version of a content-hashed file
/// this build does not have, which a later deploy may bring (RFC 9111 §5.2.2.5: no cache
/// keeps it).
pub(crate) fn not_found_no_store(method: &Method) -> Response<Body> {
    let mut response = not_found(None, &[], method, &HeaderMap::new());
    response
        .headers_mut()
        .insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// Adds `Accept` to `Vary`: for responses whose choice between a single-page app and a
/// 404 depended on the request's `Accept` (RFC 9110 §12.5.5).
pub(crate) fn add_vary_accept(headers: &mut HeaderMap) {
    let value = match headers.get(VARY) {
        None => HeaderValue::from_static("accept"),
        Some(vary) if vary == DICTIONARY_VARY => {
            HeaderValue::from_static("accept, accept-encoding, available-dictionary")
        }
        Some(_) => HeaderValue::from_static("accept, accept-encoding"),
    };
    headers.insert(VARY, value);
}

/// 405 with `Allow` (RFC 9110 §15.5.6).
pub(crate) fn method_not_allowed() -> Response<Body> {
    let mut response = status_only(StatusCode::METHOD_NOT_ALLOWED);
    response.headers_mut().insert(ALLOW, ALLOWED);
    response
}

/// 301 to `location`, a reference the service built from a key of the table.
pub(crate) fn redirect(location: HeaderValue) -> Response<Body> {
    let mut response = status_only(StatusCode::MOVED_PERMANENTLY);
    response.headers_mut().insert(LOCATION, location);
    response
}

/// A status with an empty body: 403, 412, 500 and the like.
pub(crate) fn status_only(status: StatusCode) -> Response<Body> {
    let mut response = Response::new(Body::empty());
    *response.status_mut() = status;
    response
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_plain_404_states_its_own_length() {
        let response = super::not_found(None, &[], &http::Method::GET, &http::HeaderMap::new());
        let length = response.headers()[http::header::CONTENT_LENGTH]
            .to_str()
            .unwrap();
        assert_eq!(length, b"404 Not Found\n".len().to_string());
    }
}
