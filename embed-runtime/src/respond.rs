//! The one place that builds `http::Response`s: composes the decisions of `negotiate`
//! and `precondition` for an asset.

use http::header::{
    ACCEPT_ENCODING, ALLOW, CACHE_CONTROL, CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_TYPE, ETAG,
    LAST_MODIFIED, LOCATION, VARY,
};
use http::{HeaderMap, HeaderValue, Method, Response, StatusCode};

use crate::asset::{Asset, Encoding, Variant};
use crate::body::Body;
use crate::negotiate::choose_encoding;
use crate::precondition::{evaluate, Precondition, Validators};

const ALLOWED: HeaderValue = HeaderValue::from_static("GET, HEAD");
const TEXT_PLAIN: HeaderValue = HeaderValue::from_static("text/plain; charset=utf-8");

/// The stored representation a request gets: negotiated from `Accept-Encoding`.
pub(crate) fn select_variant<'a>(asset: &'a Asset, headers: &HeaderMap) -> &'a Variant {
    if !asset.is_negotiated() {
        return asset.identity();
    }
    let encoding = choose_encoding(
        headers.get_all(ACCEPT_ENCODING),
        asset.variant(Encoding::Gzip).is_some(),
        asset.variant(Encoding::Brotli).is_some(),
    );
    asset.variant(encoding).unwrap_or(asset.identity())
}

/// The response for an embedded asset to a GET or HEAD request.
pub(crate) fn respond_embedded(
    asset: &'static Asset,
    method: &Method,
    headers: &HeaderMap,
    cache_control: &HeaderValue,
) -> Response<Body> {
    let variant = select_variant(asset, headers);
    let validators = Validators {
        etag: variant.etag(),
        modified: asset.modified_secs(),
    };
    match evaluate(method, headers, &validators) {
        Precondition::Proceed => {}
        Precondition::NotModified => {
            // RFC 9110 §15.4.5: the headers a 200 would carry for caches to update,
            // and no representation metadata (no Content-Type/Length/Encoding).
            let mut response = Response::new(Body::empty());
            *response.status_mut() = StatusCode::NOT_MODIFIED;
            put_cache_headers(response.headers_mut(), asset, variant, cache_control);
            return response;
        }
        Precondition::Failed => return status_only(StatusCode::PRECONDITION_FAILED),
    }
    let body = if method == Method::HEAD {
        Body::empty()
    } else {
        Body::from_static(variant.body())
    };
    let mut response = Response::new(body);
    let headers = response.headers_mut();
    put_cache_headers(headers, asset, variant, cache_control);
    put_representation_headers(headers, asset, variant);
    response
}

/// Validators and caching policy: on 200, 206 and 304 alike.
fn put_cache_headers(
    headers: &mut HeaderMap,
    asset: &Asset,
    variant: &Variant,
    cache_control: &HeaderValue,
) {
    headers.insert(ETAG, variant.etag_value().clone());
    headers.insert(LAST_MODIFIED, asset.last_modified_value().clone());
    headers.insert(CACHE_CONTROL, cache_control.clone());
    // Send Vary even for identity: a cache must not reuse it for a client that accepts br.
    // And only then: without variants, Vary would split caches for nothing.
    if asset.is_negotiated() {
        headers.insert(VARY, HeaderValue::from_static("accept-encoding"));
    }
}

fn put_representation_headers(headers: &mut HeaderMap, asset: &Asset, variant: &Variant) {
    headers.insert(CONTENT_TYPE, asset.content_type_value().clone());
    // Set even when the body is empty (HEAD): it states the length a GET would send.
    headers.insert(CONTENT_LENGTH, variant.content_length_value().clone());
    if variant.encoding() != Encoding::Identity {
        headers.insert(
            CONTENT_ENCODING,
            HeaderValue::from_static(variant.encoding().as_str()),
        );
    }
}

/// 404, with the configured page's bytes when there is one.
pub(crate) fn not_found(
    page: Option<&'static Asset>,
    method: &Method,
    headers: &HeaderMap,
) -> Response<Body> {
    let Some(page) = page.filter(|page| page.is_embedded()) else {
        let mut response = text(StatusCode::NOT_FOUND, method, b"404 Not Found\n");
        response.headers_mut().insert(CONTENT_TYPE, TEXT_PLAIN);
        return response;
    };
    let variant = select_variant(page, headers);
    let body = if method == Method::HEAD {
        Body::empty()
    } else {
        Body::from_static(variant.body())
    };
    let mut response = Response::new(body);
    *response.status_mut() = StatusCode::NOT_FOUND;
    let headers = response.headers_mut();
    // An error page has no validators: a 404 must not revalidate into a 304 for a
    // different URL's bytes. It still varies by encoding.
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    if page.is_negotiated() {
        headers.insert(VARY, HeaderValue::from_static("accept-encoding"));
    }
    put_representation_headers(headers, page, variant);
    response
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

fn status_only(status: StatusCode) -> Response<Body> {
    let mut response = Response::new(Body::empty());
    *response.status_mut() = status;
    response
}

fn text(status: StatusCode, method: &Method, message: &'static [u8]) -> Response<Body> {
    let body = if method == Method::HEAD {
        Body::empty()
    } else {
        Body::from_static(message)
    };
    let mut response = Response::new(body);
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_LENGTH, HeaderValue::from(message.len()));
    response
}
