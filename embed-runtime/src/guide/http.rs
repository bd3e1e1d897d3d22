//! HTTP behaviour: methods, content negotiation, validators and preconditions, ranges,
//! `Host` and paths, as RFC 9110 has them.
//!
//! [`ServeAssets`](crate::ServeAssets) follows RFC 9110:
//!
//! - GET and HEAD; 405 with `Allow` otherwise.
//! - `Accept-Encoding` with real q-values (`br;q=0`, `identity;q=0`, `*`); br is
//!   preferred over gzip at equal q.
//! - A distinct strong ETag per stored encoding.
//! - `If-Match`, `If-Unmodified-Since`, `If-None-Match` (weak comparison over lists)
//!   and `If-Modified-Since`, in the RFC's order (304/412).
//! - `Vary: Accept-Encoding` exactly on assets that have encoded variants, and `Vary:
//!   accept-encoding, available-dictionary` on those that also have bodies compressed
//!   against earlier versions (RFC 9842, with the `releases` option: see [dictionary
//!   compression](crate::guide::deploying#only-the-difference-dictionary-compression-rfc-9842)).
//! - `Range` (single and `multipart/byteranges`, at most 32 ranges), `If-Range`, and
//!   416 with `Content-Range: bytes */len`. A range applies to the representation that
//!   `Accept-Encoding` selected, so its ETag, `Content-Encoding` and `Content-Range`
//!   describe the same bytes.
//! - An HTTP/1.1 request without a valid `Host` gets 400.
//! - Paths are percent-decoded once, then `//` and `/./` merge into `/` as nginx merges
//!   them (`/css//app.css` is `/css/app.css`, `/docs/.` is `/docs/`). `..`, encoded
//!   traversal, backslashes, NUL and unknown paths are 404. Only what the macro
//!   embedded or listed can ever be served.
//!
//! What each framework adds or changes on top (its own headers, its own 400s) is in
//! [the frameworks guide](crate::guide::frameworks); files streamed from disk are in
//! [big files](crate::guide::big_files).
