//! URL paths: a link resolved against its page (decoded, dots resolved), a path of the
//! folder written as a valid URL, and the fingerprinted URL of a path. Helpers of the
//! rewrite, preload and codegen phases, and of fingerprinting.

use percent_encoding::{AsciiSet, CONTROLS, percent_decode_str, utf8_percent_encode};

/// Hex digits of the content hash in a fingerprinted name: 32 bits, as bundlers use.
/// Two versions of one file colliding only costs a stale cache for that file.
const HASH_DIGITS: usize = 8;

/// The file a reference names, as a decoded URL path of the folder (`/img/logo.png`),
/// its escapes decoded and `.` and `..` resolved against `document` (the document's
/// URL path); `None` for references that are not to a file of this site, or whose
/// escapes are not UTF-8 or hide a `/`.
pub(crate) fn resolve(reference: &str, document: &str) -> Option<String> {
    let path = path_part(reference);
    if path.is_empty()
        || path.starts_with("//")
        || path.contains('\\')
        || path
            .split('/')
            .next()
            .is_some_and(|first| first.contains(':'))
    {
        return None;
    }
    let mut segments: Vec<String> = if path.starts_with('/') {
        Vec::new()
    } else {
        let dir = document.rsplit_once('/').map_or("", |(dir, _)| dir);
        dir.split('/')
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect()
    };
    for segment in path.split('/') {
        let segment = percent_decode_str(segment).decode_utf8().ok()?;
        match &*segment {
            "" | "." => {}
            ".." => {
                segments.pop()?;
            }
            // `%2F` is no separator: no file of a folder has a `/` in its name.
            named if named.contains('/') => return None,
            named => segments.push(named.to_owned()),
        }
    }
    (!path.ends_with('/')).then(|| format!("/{}", segments.join("/")))
}

/// What a URL path cannot hold as it is (the WHATWG URL standard's path
/// percent-encode set): it is escaped in what the rewrite writes.
pub(crate) const PATH: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'`')
    .add(b'{')
    .add(b'}');

/// A file name made a path segment: [`PATH`], and `%` and `/`, which would otherwise be
/// read as an escape or a separator.
pub(crate) const SEGMENT: &AsciiSet = &PATH.add(b'%').add(b'/');

/// A URL path of the folder (decoded, `/café menu.txt`) as a valid URL path
/// (`/caf%C3%A9%20menu.txt`).
pub(crate) fn encode_url_path(path: &str) -> String {
    path.split('/')
        .map(|segment| utf8_percent_encode(segment, SEGMENT).to_string())
        .collect::<Vec<_>>()
        .join("/")
}

/// The reference without its `?query` or `#fragment`.
pub(crate) fn path_part(reference: &str) -> &str {
    let end = reference.find(['?', '#']).unwrap_or(reference.len());
    &reference[..end]
}

/// `/js/app.js` with ETag `"3f2a1b9c…"` → `/js/app.3f2a1b9c.js`; the hash goes before
/// the last extension (`app.min.js` → `app.min.<hash>.js`), or at the end without one.
pub(crate) fn hashed_url(url_path: &str, etag: &str) -> String {
    let hash: String = etag.trim_matches('"').chars().take(HASH_DIGITS).collect();
    let (dir, name) = url_path.rsplit_once('/').unwrap_or(("", url_path));
    match name.rsplit_once('.') {
        // A leading dot is part of the name (`.htaccess`), not an extension.
        Some((stem, ext)) if !stem.is_empty() => format!("{dir}/{stem}.{hash}.{ext}"),
        _ => format!("{dir}/{name}.{hash}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolution_handles_dots_and_refuses_what_is_not_a_site_file() {
        assert_eq!(
            resolve("../img/a.png", "/css/x.css").as_deref(),
            Some("/img/a.png")
        );
        assert_eq!(
            resolve("./a.png", "/css/x.css").as_deref(),
            Some("/css/a.png")
        );
        assert_eq!(
            resolve("/a/./b/../c.js?x#y", "/i.html").as_deref(),
            Some("/a/c.js")
        );
        assert_eq!(resolve("../../a.png", "/css/x.css"), None, "above the root");
        for foreign in [
            "https://x/a.js",
            "//cdn/a.js",
            "data:x",
            "mailto:a@b",
            "#f",
            "a%FFb.js",
            "a%2Fb.js",
            "dir/",
        ] {
            assert_eq!(resolve(foreign, "/index.html"), None, "{foreign}");
        }
    }

    #[test]
    fn references_are_decoded_before_they_are_matched() {
        assert_eq!(
            resolve("my%20file.txt", "/index.html").as_deref(),
            Some("/my file.txt")
        );
        assert_eq!(
            resolve("/caf%c3%a9%20menu.txt", "/docs/a.html").as_deref(),
            Some("/café menu.txt")
        );
        assert_eq!(
            resolve("/café menu.txt", "/index.html").as_deref(),
            Some("/café menu.txt")
        );
        assert_eq!(
            resolve("a/%2e%2e/b.js", "/index.html").as_deref(),
            Some("/b.js"),
            "an escaped dot segment is a dot segment, as browsers read it"
        );
    }

    #[test]
    fn folder_paths_are_written_as_valid_url_paths() {
        assert_eq!(encode_url_path("/100%/a b?.txt"), "/100%25/a%20b%3F.txt");
        assert_eq!(
            encode_url_path("/js/app.3f2a1b9c.js"),
            "/js/app.3f2a1b9c.js"
        );
    }

    const ETAG: &str = "\"3f2a1b9c0d1e2f3a4b5c6d7e8f901234\"";

    #[test]
    fn the_hash_goes_before_the_last_extension() {
        assert_eq!(hashed_url("/js/app.js", ETAG), "/js/app.3f2a1b9c.js");
        assert_eq!(hashed_url("/app.min.css", ETAG), "/app.min.3f2a1b9c.css");
        assert_eq!(hashed_url("/LICENSE", ETAG), "/LICENSE.3f2a1b9c");
        assert_eq!(
            hashed_url("/a/.well-known", ETAG),
            "/a/.well-known.3f2a1b9c"
        );
        assert_eq!(hashed_url("/dir.v2/file", ETAG), "/dir.v2/file.3f2a1b9c");
    }
}
