//! Content-hashed file names: what every version of one file served at a hashed URL has
//! in common. `/js/app.3f2a1b9c.js` (the macro's `fingerprint`), `/assets/index-BxK3abc1.js`
//! (Vite and Rollup's `[name]-[hash]`) and `/main.a1b2c3d4e5.js` (webpack's
//! `[name].[contenthash]`) are one [`HashedName`] each, `/js/app.*.js`,
//! `/assets/index-*.js` and `/main.*.js`, which later versions share.
//!
//! The runtime uses it to tell a request for another version of a file it serves (a page
//! of an earlier release asking for its own chunk) from any other miss; the macro, to find
//! the earlier versions of a file in kept releases.

/// Fewest characters a hash is read as: shorter tokens (`v2`, `min`) are parts of names.
const MIN_HASH: usize = 6;
/// Most characters a hash is read as: a whole SHA-512 in base64url is 86.
const MAX_HASH: usize = 88;
/// Rollup's and Vite's default hash length: when a name's stem ends in a separator and
/// this many hash characters, those are the hash even if they hold a separator (`-`, `_`
/// are base64url digits).
const BUNDLER_HASH: usize = 8;

/// The parts of a hashed URL path around its hash: `/js/app.` and `.js` in
/// `/js/app.3f2a1b9c.js`. Two paths with the same parts name versions of one file.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HashedName {
    /// Everything before the hash, its separator included (`/js/app.`).
    pub prefix: String,
    /// Everything after the hash (`.js`; empty for a name with no extension).
    pub suffix: String,
}

impl HashedName {
    /// The parts of `path`, a decoded URL path that is known to be content-hashed (the
    /// macro fingerprinted it, or a bundler named it so): the hash is the last `.`- or
    /// `-`-separated part of the file name before its extension (`app.3f2a1b9c.js`,
    /// `index-BxK3abc1.js`), or, in a name of two parts, the last one (`LICENSE.3f2a1b9c`).
    /// `None` when no part looks like a hash (6 to 88 letters, digits, `_` or `-`).
    pub fn of(path: &str) -> Option<HashedName> {
        let name_start = path.rfind('/').map_or(0, |slash| slash + 1);
        let name = &path[name_start..];
        let (stem, ext) = match name.rfind('.') {
            Some(dot) if dot > 0 => (&name[..dot], &name[dot..]),
            _ => (name, ""),
        };
        let split = |hash_start: usize, suffix: &str| HashedName {
            prefix: path[..name_start + hash_start].to_owned(),
            suffix: suffix.to_owned(),
        };
        if let Some(start) = hash_start(stem) {
            return Some(split(start, ext));
        }
        // `LICENSE.3f2a1b9c`: the hash is the extension.
        let hash = ext.strip_prefix('.')?;
        (is_hash(hash) && !stem.contains(['.', '-'])).then(|| split(stem.len() + 1, ""))
    }

    /// Whether `path` (decoded) names a version of this file: these parts around a hash.
    pub fn matches(&self, path: &str) -> bool {
        path.len() > self.prefix.len() + self.suffix.len()
            && path.starts_with(&self.prefix)
            && path.ends_with(&self.suffix)
            && is_hash(&path[self.prefix.len()..path.len() - self.suffix.len()])
    }

    /// The folder part of the prefix, up to and including its last `/`: requests are
    /// grouped by it, so a miss is compared with the names of its own folder only.
    pub fn folder(&self) -> &str {
        folder(&self.prefix)
    }
}

/// The folder part of a URL path, up to and including its last `/` (`/js/` of
/// `/js/app.js`): what [`HashedName::folder`] groups names by.
pub fn folder(path: &str) -> &str {
    &path[..path.rfind('/').map_or(0, |slash| slash + 1)]
}

/// Where the hash starts in a file name's stem: after its last `.` or `-`, or after the
/// separator before the last [`BUNDLER_HASH`] characters when those are a hash.
fn hash_start(stem: &str) -> Option<usize> {
    if stem.len() > BUNDLER_HASH {
        let start = stem.len() - BUNDLER_HASH;
        let before = stem.as_bytes()[start - 1];
        if stem.is_char_boundary(start)
            && matches!(before, b'.' | b'-')
            && start > 1
            && is_hash(&stem[start..])
        {
            return Some(start);
        }
    }
    let separator = stem.rfind(['.', '-'])?;
    let start = separator + 1;
    (separator > 0 && is_hash(&stem[start..])).then_some(start)
}

/// Whether `token` reads as a content hash: 6 to 88 ASCII letters, digits, `_` or `-`
/// (hex and base64url alike).
pub fn is_hash(token: &str) -> bool {
    (MIN_HASH..=MAX_HASH).contains(&token.len())
        && token
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(path: &str) -> Option<(String, String)> {
        HashedName::of(path).map(|name| (name.prefix, name.suffix))
    }

    fn pair(prefix: &str, suffix: &str) -> Option<(String, String)> {
        Some((prefix.to_owned(), suffix.to_owned()))
    }

    #[test]
    fn the_hash_is_found_in_each_bundlers_naming() {
        assert_eq!(parts("/js/app.3f2a1b9c.js"), pair("/js/app.", ".js"));
        assert_eq!(
            parts("/app.min.3f2a1b9c.css"),
            pair("/app.min.", ".css"),
            "the macro's fingerprint goes before the last extension"
        );
        assert_eq!(parts("/LICENSE.3f2a1b9c"), pair("/LICENSE.", ""));
        assert_eq!(
            parts("/assets/index-BxK3abc1.js"),
            pair("/assets/index-", ".js")
        );
        assert_eq!(
            parts("/assets/index-DiwrgTda.css"),
            pair("/assets/index-", ".css"),
            "a base64url hash may have no digit"
        );
        assert_eq!(
            parts("/assets/vendor-a-Bc_12-4x.js"),
            pair("/assets/vendor-a-", ".js"),
            "Rollup's 8 characters, a `-` among them"
        );
        assert_eq!(
            parts("/main.a1b2c3d4e5f6a7b8c9d0.js"),
            pair("/main.", ".js")
        );
        assert_eq!(
            parts("/assets/logo-2b8c9f1e.svg"),
            pair("/assets/logo-", ".svg")
        );
    }

    #[test]
    fn names_without_a_hash_have_no_parts() {
        for path in [
            "/js/app.js",
            "/app.min.js",
            "/LICENSE",
            "/a/.well-known",
            "/index.html",
            "/js/jquery-3.7.1.js",
            "/js/app.3f2a.js",
            "/.3f2a1b9c",
            "/-3f2a1b9c.js",
            "/dir.3f2a1b9c/file",
        ] {
            assert_eq!(parts(path), None, "{path}");
        }
    }

    #[test]
    fn other_versions_match_and_other_files_do_not() {
        let name = HashedName::of("/js/app.3f2a1b9c.js").unwrap();
        assert!(name.matches("/js/app.3f2a1b9c.js"));
        assert!(name.matches("/js/app.0000aaaa.js"));
        assert!(name.matches("/js/app.BxK3abc1-_.js"));
        for other in [
            "/js/app.js",
            "/js/app..js",
            "/js/app.3f2.js",
            "/js/app.3f2a1b9c.css",
            "/js/app.3f2a/1b9c.js",
            "/js/app.3f2a1b9c.map.js",
            "/js/other.3f2a1b9c.js",
            "/app.3f2a1b9c.js",
        ] {
            assert!(!name.matches(other), "{other}");
        }
        assert_eq!(name.folder(), "/js/");
        assert_eq!(HashedName::of("/x.3f2a1b9c").unwrap().folder(), "/");
    }

    #[test]
    fn non_ascii_names_never_split_a_character() {
        assert_eq!(parts("/café-3f2a1b9c.js"), pair("/café-", ".js"));
        assert_eq!(parts("/ééééééééé.js"), None);
        assert_eq!(parts("/aé-éééééééé.js"), None);
    }
}
