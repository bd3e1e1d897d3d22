//! Request path → the key the assets are stored under.
//!
//! The security model is the table itself: only paths the macro embedded or listed
//! can ever be served. Decoding is still strict, so that nothing odd reaches a lookup
//! and a directory redirect can never be steered elsewhere.

use std::borrow::Cow;

use percent_encoding::percent_decode_str;

/// Percent-decodes a request path once (upper- or lower-case hex; the result must be
/// UTF-8), merges `//` and `/./` as nginx does (`/css//app.css` and `/./app.css` name
/// `/css/app.css` and `/app.css`), and refuses what no asset key can contain: `..`
/// segments, backslashes, NUL and other control characters, a missing leading `/`.
///
/// Returns `None` for a path that must be answered with 404. Borrows when the path
/// has no `%` and nothing to merge, so the common request allocates nothing.
pub(crate) fn decode(raw: &str) -> Option<Cow<'_, str>> {
    // Most paths have no escape: `raw` is already the key (a `&str` from `http::Uri`).
    let decoded = if raw.contains('%') {
        // NOTE: decode exactly once: `%252e` must stay `%2e`, never become `.`.
        percent_decode_str(raw).decode_utf8().ok()?
    } else {
        Cow::Borrowed(raw)
    };
    if !is_safe_to_merge(&decoded) {
        return None;
    }
    Some(match merged(&decoded) {
        Some(merged) => Cow::Owned(merged),
        None => decoded,
    })
}

/// Whether a decoded URL path can only name a file below the root: it starts with `/`
/// and has no `..` segment, backslash or control character (`.` and empty segments
/// are merged away by [`decode`]).
fn is_safe_to_merge(path: &str) -> bool {
    path.starts_with('/')
        && !path.contains(|c: char| c == '\\' || c.is_control())
        && !path.split('/').any(|segment| segment == "..")
}

/// `path` without its empty and `.` segments, a trailing `/` kept (`/docs/.` is
/// `/docs/`); `None` when there is none to drop.
fn merged(path: &str) -> Option<String> {
    let (folders, last) = path.rsplit_once('/')?;
    // Every segment but the last must be a name; the last may also be empty (`/dir/`).
    let drop = |segment: &str| segment.is_empty() || segment == ".";
    if last != "." && !folders.split('/').skip(1).any(drop) {
        return None;
    }
    let mut merged = String::with_capacity(path.len());
    for segment in path.split('/').filter(|segment| !drop(segment)) {
        merged.push('/');
        merged.push_str(segment);
    }
    if drop(last) || merged.is_empty() {
        merged.push('/');
    }
    Some(merged)
}

/// Whether a decoded URL path is an asset key: it starts with `/` and has no `.` or
/// `..` segment, backslash or control character.
pub(crate) fn is_safe(path: &str) -> bool {
    path.starts_with('/')
        && !path.contains(|c: char| c == '\\' || c.is_control())
        && !path
            .split('/')
            .any(|segment| segment == "." || segment == "..")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_paths_are_borrowed_unchanged() {
        let decoded = decode("/css/app.css").unwrap();
        assert!(matches!(decoded, Cow::Borrowed("/css/app.css")));
    }

    #[test]
    fn percent_escapes_decode_in_either_case() {
        assert_eq!(decode("/caf%C3%A9.txt").unwrap(), "/café.txt");
        assert_eq!(decode("/caf%c3%a9.txt").unwrap(), "/café.txt");
        assert_eq!(decode("/with%20space.txt").unwrap(), "/with space.txt");
        assert_eq!(
            decode("/a+b").unwrap(),
            "/a+b",
            "`+` is not a space in a path"
        );
    }

    #[test]
    fn traversal_in_any_encoding_is_refused() {
        for raw in [
            "/../secret",
            "/css/../index.html",
            "/%2e%2e/secret",
            "/%2E%2E/secret",
            "/.%2e/secret",
            "/css/%2e%2e%2fsecret",
            "/css/./../secret",
            "/css//../secret",
            "/..",
            "/..\\secret",
            "/%5c..%5csecret",
            "/a\\b",
            "/a%00b",
            "/a%0ab",
            "/%ff",
            "/%c0%ae%c0%ae/secret",
            "relative",
            "",
        ] {
            assert_eq!(decode(raw), None, "{raw:?} must be refused");
        }
    }

    #[test]
    fn empty_and_dot_segments_merge_as_nginx_merges_them() {
        for (raw, key) in [
            ("//css/app.css", "/css/app.css"),
            ("/css//app.css", "/css/app.css"),
            ("/css///app.css", "/css/app.css"),
            ("/./index.html", "/index.html"),
            ("/css/./app.css", "/css/app.css"),
            ("/css/%2e/app.css", "/css/app.css"),
            ("/css%2f%2fapp.css", "/css/app.css"),
            ("/docs//", "/docs/"),
            ("/docs/.", "/docs/"),
            ("/docs/./", "/docs/"),
            ("//", "/"),
            ("/.", "/"),
            ("/./", "/"),
        ] {
            assert_eq!(decode(raw).as_deref(), Some(key), "{raw:?}");
        }
        for kept in ["/", "/docs/", "/css/app.css", "/a.b/.c"] {
            assert!(
                matches!(decode(kept), Some(Cow::Borrowed(_))),
                "{kept:?} has nothing to merge"
            );
        }
    }

    #[test]
    fn double_encoding_decodes_only_once() {
        assert_eq!(decode("/%252e%252e/secret").unwrap(), "/%2e%2e/secret");
    }

    #[test]
    fn dots_inside_names_are_fine() {
        assert_eq!(decode("/.well-known/x").unwrap(), "/.well-known/x");
        assert_eq!(decode("/a..b/c...").unwrap(), "/a..b/c...");
    }
}
