//! [`RequestHead`]: what the service reads of a request, as any framework can give it.

use http::{HeaderMap, Method, Uri, Version};

#[cfg(doc)]
use super::ServeAssets;

/// The parts of a request that [`ServeAssets`] reads: method, target, version and
/// header fields. The body is never read.
///
/// Servers that speak `http::Request` use [`ServeAssets::respond`]; a framework
/// adapter builds a `RequestHead` from its own request type and calls
/// [`ServeAssets::respond_head`].
///
/// ```
/// # use embed_assets::{embed_assets, Assets, RequestHead};
/// # use http::{HeaderMap, HeaderValue, Method, StatusCode, Version};
/// # static ASSETS: Assets = embed_assets!("../examples/public");
/// let mut headers = HeaderMap::new();
/// headers.insert(http::header::HOST, HeaderValue::from_static("example.com"));
/// let head = RequestHead::new(&Method::GET, "/css/app.css", None, Version::HTTP_11, &headers);
/// let service = ASSETS.service();
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let response = service.respond_head(head).await;
/// assert_eq!(response.status(), StatusCode::OK);
/// # });
/// ```
#[derive(Debug, Clone, Copy)]
pub struct RequestHead<'a> {
    pub(crate) method: &'a Method,
    pub(crate) path: &'a str,
    pub(crate) query: Option<&'a str>,
    pub(crate) version: Version,
    pub(crate) headers: &'a HeaderMap,
    pub(crate) mount: Option<&'a str>,
    /// The target was in absolute form (or HTTP/2's `:authority`): it names the host.
    pub(crate) has_authority: bool,
}

impl<'a> RequestHead<'a> {
    /// The head of a request given by its parts with its target as an `http` URI, its
    /// path taken as relative to the service: a target in absolute form (or HTTP/2's
    /// `:authority`) names the host. What the adapters of `http`-speaking frameworks
    /// build.
    pub(crate) fn of_uri(
        method: &'a Method,
        uri: &'a Uri,
        version: Version,
        headers: &'a HeaderMap,
    ) -> Self {
        RequestHead::new(method, uri.path(), uri.query(), version, headers)
            .with_target_authority(uri.authority().is_some())
    }

    /// A request for `path` (as sent, still percent-encoded, starting with `/`)
    /// relative to where the service is mounted, with the query without its `?`.
    pub fn new(
        method: &'a Method,
        path: &'a str,
        query: Option<&'a str>,
        version: Version,
        headers: &'a HeaderMap,
    ) -> Self {
        RequestHead {
            method,
            path,
            query,
            version,
            headers,
            mount: None,
            has_authority: false,
        }
    }

    /// The same request with `path` (as sent, still percent-encoded, starting with `/`)
    /// as its path relative to the service: what is left once a framework has matched
    /// the mount point.
    pub fn with_path(mut self, path: &'a str) -> Self {
        self.path = path;
        self
    }

    /// Says whether the request target named the host: an absolute-form target
    /// (RFC 9112 §3.2.2) or HTTP/2's `:authority`. Such a request needs no `Host`
    /// field. [`from_request`](Self::from_request) sets it from the URI.
    pub fn with_target_authority(mut self, has_authority: bool) -> Self {
        self.has_authority = has_authority;
        self
    }

    /// Marks a request that named the mount point itself without its trailing slash
    /// (`/static` for a service mounted at `/static`): it is then redirected to
    /// `./static/`, so the relative links of the index page resolve. `mount_point`
    /// is the mount path (`/static`) or its last segment; the request's own path is
    /// then `/`.
    pub fn at_bare_mount(mut self, mount_point: &'a str) -> Self {
        self.mount = mount_point
            .trim_end_matches('/')
            .rsplit('/')
            .next()
            .filter(|segment| !segment.is_empty());
        self
    }
}
