//! Content-hashed file names (`embed_assets_shared::hashed`).

use embed_assets_shared::hashed::{self, HashedName};

/// Fuzz target `hashed_name`: the first line of `data` is a decoded URL path (bytes that
/// are not UTF-8 are replaced, so every input is a path); a second line, if any, is
/// another path to match against it, and a third, with the second, the prefix and
/// suffix of a [`HashedName`] made by hand.
///
/// - [`HashedName::of`] finds the hash where its documentation and the deploying guide
///   put it, read again here: in the file name (after the last `/`), the last `.`- or
///   `-`-separated part before the extension (a leading dot starts no extension),
///   with something before its separator; the last 8 characters of the stem when a
///   separator precedes them, even if they hold one (Rollup's and Vite's hash length);
///   in a name of two parts, `stem.hash` with no separator in the stem, the last part.
///   A hash is 6 to 88 ASCII letters, digits, `_` or `-`. Any other name has no parts.
/// - Parts that parse have the documented shape: `prefix + hash + suffix` is the path,
///   the prefix ends with the hash's separator and holds the folder, the suffix is
///   empty or the extension, and the name [`matches`](HashedName::matches) its own
///   path.
/// - Another version (the same parts around another hash of the same length) parses
///   to the same parts, and the name matches the parts around any hash of 6 to 88
///   characters, and nothing else: a shorter or longer token, a `/` or `.` in it.
/// - [`HashedName::matches`] of any path is the documented reading: the parts around a
///   hash; [`hashed::folder`] is everything up to the last `/`.
///
/// # Panics
/// When an invariant does not hold.
pub fn check_hashed_name(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut lines = text.split('\n');
    let path = lines.next().unwrap_or_default();
    let other = lines.next();
    let suffix = lines.next();
    let parsed = check_parts(path);
    if let Some(other) = other {
        if let Some(name) = &parsed {
            check_match(name, other);
        }
        check_parts(other);
        // A name made by hand, of any prefix and suffix: `matches` never panics and says
        // what its documentation says.
        let by_hand = HashedName {
            prefix: other.to_owned(),
            suffix: suffix.unwrap_or_default().to_owned(),
        };
        check_match(&by_hand, path);
    }
}

/// The parts of `path` compared with the documented reading, and their shape.
fn check_parts(path: &str) -> Option<HashedName> {
    let folder = &path[..path.rfind('/').map_or(0, |slash| slash + 1)];
    assert_eq!(hashed::folder(path), folder, "{path:?}");
    let parsed = HashedName::of(path);
    assert_eq!(
        parsed
            .as_ref()
            .map(|name| (name.prefix.as_str(), name.suffix.as_str())),
        hashed_parts(path),
        "the parts of {path:?}"
    );
    let name = parsed?;
    let (prefix, suffix) = (name.prefix.as_str(), name.suffix.as_str());
    let hash = &path[prefix.len()..path.len() - suffix.len()];
    assert_eq!(format!("{prefix}{hash}{suffix}"), path);
    assert!(is_hash_token(hash) && hashed::is_hash(hash), "{path:?}");
    assert!(prefix.ends_with(['.', '-']), "{path:?}: prefix {prefix:?}");
    assert!(
        prefix.starts_with(folder) && prefix.len() >= folder.len() + 2,
        "{path:?}: a name before the separator"
    );
    assert!(
        suffix.is_empty() || suffix.starts_with('.') && !suffix[1..].contains(['.', '/']),
        "{path:?}: suffix {suffix:?} is no extension"
    );
    assert_eq!(name.folder(), folder, "{path:?}");
    assert!(name.matches(path), "{path:?} does not match its own parts");
    // Another version: another hash of the same length.
    let version = format!("{prefix}{}{suffix}", other_hex(hash));
    assert_eq!(
        HashedName::of(&version).as_ref(),
        Some(&name),
        "{version:?}, another version of {path:?}"
    );
    for len in [6, 7, 8, 20, 64, 88] {
        let hash: String = "a1B_-".chars().cycle().take(len).collect();
        assert!(
            name.matches(&format!("{prefix}{hash}{suffix}")),
            "{path:?}, {len}"
        );
    }
    for not_hash in [
        "",
        "a1b2c",
        &"a".repeat(89),
        "a1b2/c3d4",
        "a1b2.c3d4",
        "a1b2é3d4",
    ] {
        let other = format!("{prefix}{not_hash}{suffix}");
        assert!(!name.matches(&other), "{path:?} matches {other:?}");
    }
    Some(name)
}

/// `name.matches(path)` against its documentation: the parts around a hash.
fn check_match(name: &HashedName, path: &str) {
    let (prefix, suffix) = (name.prefix.as_bytes(), name.suffix.as_bytes());
    let bytes = path.as_bytes();
    let expected = bytes.len() > prefix.len() + suffix.len()
        && bytes.starts_with(prefix)
        && bytes.ends_with(suffix)
        && std::str::from_utf8(&bytes[prefix.len()..bytes.len() - suffix.len()])
            .is_ok_and(is_hash_token);
    assert_eq!(name.matches(path), expected, "{name:?} against {path:?}");
}

/// A content hash as the guide defines it: 6 to 88 ASCII letters, digits, `_` or `-`.
pub(crate) fn is_hash_token(token: &str) -> bool {
    (6..=88).contains(&token.len())
        && token
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// The prefix (up to and including the hash's separator) and suffix of a hashed
/// `path`, read from the documentation of `HashedName::of`, of the crate's
/// `BUNDLER_HASH` and of the deploying guide; `None` when no part reads as a hash.
pub(crate) fn hashed_parts(path: &str) -> Option<(&str, &str)> {
    let name_at = path.rfind('/').map_or(0, |slash| slash + 1);
    let name = &path[name_at..];
    // The extension starts at the name's last dot, unless that dot starts the name.
    let (stem, extension) = match name.rfind('.') {
        Some(dot) if dot > 0 => name.split_at(dot),
        _ => (name, ""),
    };
    let is_separator = |c: char| c == '.' || c == '-';
    // A separator, then the last 8 characters of the stem, something before it.
    let bundler = stem.len().checked_sub(8).filter(|&at| {
        at >= 2
            && stem.is_char_boundary(at)
            && stem[..at].ends_with(is_separator)
            && is_hash_token(&stem[at..])
    });
    // The last separated part of the stem, something before its separator.
    let last_part = || {
        let separator = stem.rfind(is_separator)?;
        (separator > 0 && is_hash_token(&stem[separator + 1..])).then_some(separator + 1)
    };
    if let Some(at) = bundler.or_else(last_part) {
        return Some((&path[..name_at + at], extension));
    }
    // Two parts, `LICENSE.3f2a1b9c`: the extension is the hash.
    let hash = extension.strip_prefix('.')?;
    (!stem.contains(is_separator) && is_hash_token(hash))
        .then(|| (&path[..name_at + stem.len() + 1], ""))
}

/// Lowercase hex digits, as many as `hash` has characters (all ASCII).
fn other_hex(hash: &str) -> String {
    hash.bytes()
        .map(|b| {
            let digit = (b as usize + 7) % 16;
            char::from(b"0123456789abcdef"[digit])
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_documented_examples_read_as_documented() {
        for (path, parts) in [
            ("/js/app.3f2a1b9c.js", Some(("/js/app.", ".js"))),
            ("/assets/index-BxK3abc1.js", Some(("/assets/index-", ".js"))),
            ("/main.a1b2c3d4e5.js", Some(("/main.", ".js"))),
            ("/LICENSE.3f2a1b9c", Some(("/LICENSE.", ""))),
            (
                "/assets/vendor-a-Bc_12-4x.js",
                Some(("/assets/vendor-a-", ".js")),
            ),
            ("/js/app.js", None),
            ("/.3f2a1b9c", None),
            ("/-3f2a1b9c.js", None),
            ("/dir.3f2a1b9c/file", None),
        ] {
            assert_eq!(hashed_parts(path), parts, "{path}");
            check_hashed_name(path.as_bytes());
        }
        check_hashed_name(b"/js/app.3f2a1b9c.js\n/js/app.0000aaaa.js\n.js");
    }
}
