//! What the macro (at compile time) and the runtime (for files it reads at run time)
//! must compute alike: the strong ETag formats, the media types, which files of a
//! folder are selected, and the parts of a content-hashed name. Not a stable API: use
//! `embed-assets`.
//!
//! A proc-macro crate can export nothing but macros, and a source file shared with
//! `#[path]` would fall outside each crate's published package: hence this crate,
//! published with the other two and depended on by both.

mod content_type;
pub mod etag;
pub mod glob;
pub mod hashed;
pub mod release;
pub mod select;

pub use content_type::{content_type, is_precompressed};

/// Lowercase hex of `bytes`: how digests are written in ETags, release lists and the
/// names of kept files.
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        let _ = write!(out, "{byte:02x}");
    }
    out
}
