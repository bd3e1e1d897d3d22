//! [`ServeAssets`] as a Salvo 1 [`Handler`] (feature `salvo`, crate `salvo_core` 1.1,
//! which `salvo` re-exports: the same trait).
//!
//! Route it with a `{**rest}` wildcard and `goal`, so that every method reaches it and
//! the 405 with `Allow` comes from [`ServeAssets`], not from Salvo's router:
//!
//! ```no_run
//! use embed_assets::{embed_assets, Assets};
//! use salvo_core::prelude::*;
//!
//! static ASSETS: Assets = embed_assets!("../examples/public");
//!
//! #[handler]
//! async fn health() -> &'static str {
//!     "ok"
//! }
//!
//! # async fn run() {
//! // At the root, next to an app route: `/`, `/css/app.css`, `/about` → `./about/`.
//! let root = Router::new()
//!     .push(Router::with_path("api/health").get(health))
//!     .push(Router::with_path("{**rest}").goal(ASSETS.service()));
//!
//! // Under `/static`: `/static/css/app.css`; `/static` redirects to `./static/`.
//! let mounted = Router::new()
//!     .push(Router::with_path("api/health").get(health))
//!     .push(
//!         Router::with_path("static")
//!             .push(Router::with_path("{**rest}").goal(ASSETS.service())),
//!     );
//! # let _ = root;
//!
//! let acceptor = TcpListener::new("127.0.0.1:3000").bind().await;
//! Server::new(acceptor).serve(mounted).await;
//! # }
//! ```
//!
//! # What the handler sees and sends
//!
//! - **The path.** Salvo's router matches on percent-decoded segments and collapses
//!   empty ones (`//`), and the `{**rest}` parameter holds that decoded form, which
//!   would lose `%2F`, `%2e%2e` and `//`. The handler therefore serves the *raw* path of
//!   the request URI after the segments the router consumed before the wildcard (found
//!   by matching the wildcard's value against the raw segments), so the core decodes
//!   and checks it exactly once, as under every other framework. `/static` (the mount
//!   point without its slash, for which the wildcard is empty) is passed as
//!   [`at_bare_mount`](crate::RequestHead::at_bare_mount) and answered with a 301 to
//!   `./static/`. The wildcard must span whole segments (`static/{**rest}`, not
//!   `static{**rest}`); when its value does not line up with the raw path (such a
//!   pattern, or a filter that rewrote the URI) the handler answers 404 through Salvo.
//!   On a route without a wildcard (`Router::with_path("favicon.ico").get(..)`) it
//!   serves the whole request path, as if mounted at the root.
//!   `Router::with_path("static/{**rest}")` works the same as the nested form.
//! - **The host.** The core also reads the request URI, whose authority names the host
//!   of a target in absolute form (served without `Host`; one in origin form without
//!   `Host` gets 400). Salvo's default feature `fix-http1-request-uri` copies a `Host`
//!   field into the URI, never one that is absent, so this holds with it too.
//! - **The response.** The status and every header field the core set (repeated ones
//!   included) replace those of the same name already on Salvo's response; headers
//!   that earlier middleware added under other names stay. The body is always set, as
//!   a boxed [`http_body::Body`] polled frame by frame by hyper (no buffering, with
//!   backpressure, exact `size_hint`), even when it is empty: on a 4xx/5xx response
//!   whose body is unset, Salvo runs its catcher, which writes an HTML or JSON error
//!   page with its own `Content-Type`, so an empty 400, 412 or 416 from the core
//!   would otherwise change (the harness test
//!   `unsatisfiable_ranges_get_416_with_the_length` fails without this). Salvo itself
//!   adds no `Content-Type`, no compression and no `Content-Length`; for HEAD it only
//!   drops the (already empty) body, and hyper keeps the core's `Content-Length`. A
//!   body that fails mid-stream (an on-disk file changed) becomes an I/O error in
//!   hyper, which closes the connection.
//! - Middleware of your own that rewrites responses, such as `salvo`'s `Compression`,
//!   must not wrap this handler: the core already negotiates encodings and its ETags
//!   and ranges describe the bytes it sends.

use salvo_core::http::{ResBody, StatusCode};
use salvo_core::{BoxedError, Depot, FlowCtrl, Handler, Request, Response, async_trait};

use http_body_util::BodyExt as _;

use super::mount;
use crate::{RequestHead, ServeAssets};

#[async_trait]
impl Handler for ServeAssets {
    async fn handle(
        &self,
        req: &mut Request,
        _depot: &mut Depot,
        res: &mut Response,
        _ctrl: &mut FlowCtrl,
    ) {
        let uri = req.uri();
        let head = RequestHead::of_uri(req.method(), uri, req.version(), req.headers());
        let below = mount::salvo(uri.path(), req.params().tail());
        let Some(future) = below
            .as_ref()
            .map(|below| self.respond_head(below.place(head)))
        else {
            res.status_code(StatusCode::NOT_FOUND);
            return;
        };
        let response = future.await;
        let (parts, body) = response.into_parts();
        res.status_code = Some(parts.status);
        if res.headers.is_empty() {
            res.headers = parts.headers;
        } else {
            // Each name the core set replaces the same name's values, repeats kept.
            res.headers.extend(parts.headers);
        }
        res.body = ResBody::Boxed(Box::pin(body.map_err(BoxedError::from)));
    }
}
