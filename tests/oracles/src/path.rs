//! Request path → asset key.

use std::borrow::Cow;

use percent_encoding::percent_decode;

use super::decode_path;

/// Fuzz target `path`: `data` is a request path (not UTF-8: ignored), tried as it is
/// and as the path of an `http::Uri` (what a server hands the service).
///
/// - A path that decodes is absolute and has no `.` or `..` segment, no empty one but
///   a last, no backslash, NUL or other control character: it cannot name anything
///   outside the asset table.
/// - Exactly one round of percent-decoding is done, and a path is refused exactly
///   when that round gives something unsafe or not UTF-8; empty and `.` segments are
///   then merged away, as nginx merges them.
/// - A path without `%` and nothing to merge is its own key; a key, percent-encoded
///   byte by byte, decodes back to itself.
///
/// # Panics
/// When an invariant does not hold.
pub fn check_path(data: &[u8]) {
    let Ok(raw) = std::str::from_utf8(data) else {
        return;
    };
    check_one(raw);
    if let Ok(uri) = http::Uri::try_from(raw) {
        check_one(uri.path());
    }
}

fn check_one(raw: &str) {
    let decoded = decode_path(raw);
    assert_eq!(decoded.as_deref(), key_of(raw).as_deref(), "{raw:?}");
    let Some(key) = decoded else { return };
    assert!(is_safe_key(&key), "{raw:?} gave {key:?}");
    let inner = key.strip_suffix('/').unwrap_or(&key);
    assert!(
        !inner.contains("//") || inner.is_empty(),
        "{raw:?} gave {key:?}"
    );
    if !raw.contains('%') && key == raw {
        assert!(matches!(key, Cow::Borrowed(_)), "{raw:?} was copied");
    }
    let encoded: String = key
        .bytes()
        .map(|b| match b {
            b'/' => "/".to_owned(),
            b => format!("%{b:02X}"),
        })
        .collect();
    assert_eq!(decode_path(&encoded).as_deref(), Some(&*key), "{encoded:?}");
}

/// The key a request path names: decoded once; refused (`None`) when not UTF-8, not
/// absolute, or holding a `..` segment, a backslash or a control character; then its
/// `//` and `/./` merged into `/`, and a last `/.` read as `/`.
pub(crate) fn key_of(raw: &str) -> Option<String> {
    let decoded = percent_decode(raw.as_bytes()).decode_utf8().ok()?;
    let refused = !decoded.starts_with('/')
        || decoded.contains(|c: char| c == '\\' || c.is_control())
        || decoded.split('/').any(|segment| segment == "..");
    if refused {
        return None;
    }
    let mut key = decoded.into_owned();
    loop {
        let merged = key.replace("/./", "/").replace("//", "/");
        if merged == key {
            break;
        }
        key = merged;
    }
    if key.ends_with("/.") {
        key.pop();
    }
    Some(key)
}

/// Whether a decoded path can be a key of the table: absolute, and no segment that
/// `..`-resolution, a Windows path or a C string would read differently.
pub(crate) fn is_safe_key(path: &str) -> bool {
    path.starts_with('/')
        && path.split('/').all(|segment| {
            segment != "."
                && segment != ".."
                && !segment.chars().any(|c| c == '\\' || c.is_control())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seed_forms_hold() {
        for raw in [
            "/",
            "/css/app.css",
            "/%2e%2e/x",
            "/caf%C3%A9.txt",
            "/a%00b",
            "x",
        ] {
            check_path(raw.as_bytes());
        }
        assert!(!is_safe_key("/a/%2e/../b"));
        assert!(is_safe_key("/a..b/.well-known/"));
        assert!(!is_safe_key(""));
        assert_eq!(key_of("/.//.%2F/a//b/.").as_deref(), Some("/a/b/"));
        assert_eq!(key_of("/a/%2e%2e/b"), None);
    }
}
