//! `rewrite_references = true`: links inside embedded HTML and CSS are pointed at the
//! fingerprinted URLs of the files they name, at compile time.
//!
//! A reference is an HTML `href`/`src` attribute value, a CSS `url(...)` (also in HTML
//! `style` attributes and `<style>` blocks) or a CSS `@import "..."`. Only references
//! that resolve to a file of the folder change, and only in their last path segment
//! (`../img/logo.png?v=2` → `../img/logo.3f2a1b9c.png?v=2`), so relative links stay
//! relative. URLs with a scheme (`https:`, `data:`), protocol-relative ones (`//cdn`)
//! and fragments alone are left as written.
//!
//! A reference is percent-decoded before it is matched (`my%20file.txt` names
//! `/my file.txt`), as the browser's request will be, and what is written is a valid
//! URL: the hashed name percent-encoded (`caf%C3%A9%20menu.4da7f91f.txt`), and any
//! character of the kept part that a URL cannot hold as it is (a raw space, `é`)
//! encoded too. With `base = "/static"`, a rewritten absolute link gets that prefix
//! (`/css/app.css` → `/static/css/app.3f2a1b9c.css`), for a site mounted below the
//! root; relative links need none.
//!
//! NOTE: a scanner, not a parser: it looks for the attribute names and `url(` where
//! they appear, so a `src="..."` inside a `<script>` string is treated as a reference
//! too. It can only ever rename a file of the folder to its hashed name, which still
//! serves the same bytes.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use percent_encoding::{percent_decode_str, utf8_percent_encode, AsciiSet, CONTROLS};
use proc_macro2::Span;

use crate::encode::{EncodedAsset, Encoder};
use crate::errors::Errors;
use crate::fingerprint::hashed_url;
use crate::scan::FileEntry;

/// Whether `file` is a document whose references `rewrite_references` rewrites: an
/// embedded HTML or CSS file.
pub(crate) fn is_rewritten(file: &FileEntry) -> bool {
    file.embed && Document::of(&file.url_path).is_some()
}

/// The rewrite phase, after fingerprinting: encodes each document of `files` (so far
/// only hashed, `assets[i]` being `files[i]`) with its references pointed at the
/// fingerprinted URLs, after the documents it links to, so that a page names its
/// stylesheet's hash as computed on the rewritten stylesheet. A fingerprinted document
/// gets its hashed URL again, from its final bytes. Documents that link to each other
/// in a cycle are done in one pass, without those links.
pub(crate) fn apply(
    assets: &mut [EncodedAsset],
    files: &[FileEntry],
    encoder: &Encoder<'_>,
    base: Option<&str>,
    root_span: Span,
) -> syn::Result<()> {
    let documents: Vec<bool> = files.iter().map(is_rewritten).collect();
    let mut pending: Vec<usize> = (0..files.len()).filter(|&i| documents[i]).collect();
    let mut hashed: HashMap<String, String> = assets
        .iter()
        .zip(&documents)
        .filter(|(_, &document)| !document)
        .filter_map(|(asset, _)| Some((asset.url_path.clone(), asset.fingerprinted.clone()?)))
        .collect();
    let mut errors = Errors::default();
    let mut stuck = false;
    while !pending.is_empty() {
        // Only a fingerprinted document has a hash worth waiting for.
        let waiting: HashSet<&str> = pending
            .iter()
            .filter(|&&i| assets[i].fingerprinted.is_some())
            .map(|&i| files[i].url_path.as_str())
            .collect();
        let mut later = Vec::new();
        for &i in &pending {
            let file = &files[i];
            let bytes = match encoder.read(file) {
                Ok(bytes) => bytes,
                Err(msg) => {
                    errors.at_span(root_span, msg);
                    continue;
                }
            };
            let (bytes, rewritten) = match String::from_utf8(bytes) {
                // Not UTF-8: served as it is.
                Err(not_text) => (not_text.into_bytes(), false),
                Ok(text) => {
                    let kind = Document::of(&file.url_path).unwrap_or(Document::Html);
                    let url = file.url_path.as_str();
                    let waits = references(kind, &text)
                        .into_iter()
                        .filter_map(|range| resolve(&text[range], url))
                        .any(|target| target != url && waiting.contains(target.as_str()));
                    if waits && !stuck {
                        later.push(i);
                        continue;
                    }
                    match rewrite(kind, &text, url, base, |target| hashed.get(target).cloned()) {
                        Some(new) => (new.into_bytes(), true),
                        None => (text.into_bytes(), false),
                    }
                }
            };
            match encoder.encode_document(file, bytes, rewritten) {
                Ok(mut asset) => {
                    match &assets[i].fingerprinted {
                        // A bundler's hashed file keeps its own URL (`bundler.rs`).
                        Some(own) if *own == asset.url_path => {
                            asset.fingerprinted = Some(own.clone());
                        }
                        Some(_) => {
                            let url = hashed_url(&asset.url_path, &asset.etag);
                            hashed.insert(asset.url_path.clone(), url.clone());
                            asset.fingerprinted = Some(url);
                        }
                        None => {}
                    }
                    assets[i] = asset;
                }
                Err(msg) => errors.at_span(root_span, msg),
            }
        }
        stuck = later.len() == pending.len();
        pending = later;
    }
    errors.finish()
}

/// The kinds of file whose references are rewritten.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Document {
    Html,
    Css,
}

impl Document {
    /// By extension: `.html`/`.htm`, `.css`.
    pub(crate) fn of(url_path: &str) -> Option<Self> {
        let name = url_path.rsplit('/').next().unwrap_or(url_path);
        let ext = name.rsplit_once('.')?.1.to_ascii_lowercase();
        match ext.as_str() {
            "html" | "htm" => Some(Document::Html),
            "css" => Some(Document::Css),
            _ => None,
        }
    }
}

/// Where the references of `text` are: byte ranges of the URLs, in order.
pub(crate) fn references(kind: Document, text: &str) -> Vec<Range<usize>> {
    let mut found = css_references(text);
    if kind == Document::Html {
        found.extend(attribute_references(text));
        found.sort_by_key(|range| range.start);
        found.dedup_by(|b, a| b.start < a.end);
    }
    found
}

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
const PATH: &AsciiSet = &CONTROLS
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
const SEGMENT: &AsciiSet = &PATH.add(b'%').add(b'/');

/// A URL path of the folder (decoded, `/café menu.txt`) as a valid URL path
/// (`/caf%C3%A9%20menu.txt`).
pub(crate) fn encode_url_path(path: &str) -> String {
    path.split('/')
        .map(|segment| utf8_percent_encode(segment, SEGMENT).to_string())
        .collect::<Vec<_>>()
        .join("/")
}

/// `text` with every reference whose file `hashed` knows pointed at that file's
/// hashed URL, `base` before the absolute ones; `None` when nothing changes.
pub(crate) fn rewrite(
    kind: Document,
    text: &str,
    document: &str,
    base: Option<&str>,
    hashed: impl Fn(&str) -> Option<String>,
) -> Option<String> {
    let mut out = String::with_capacity(text.len() + 64);
    let mut copied = 0;
    let mut changed = false;
    for range in references(kind, text) {
        let reference = &text[range.clone()];
        let Some(url) = resolve(reference, document).and_then(|file| hashed(&file)) else {
            continue;
        };
        let path = path_part(reference);
        let new_name = url.rsplit('/').next().unwrap_or(&url);
        let keep = path.rfind('/').map_or(0, |slash| slash + 1);
        out.push_str(&text[copied..range.start]);
        if path.starts_with('/') {
            out.push_str(base.unwrap_or(""));
        }
        // The kept part as written, its escapes kept (`%` is not in `PATH`).
        out.extend(utf8_percent_encode(&path[..keep], PATH));
        out.extend(utf8_percent_encode(new_name, SEGMENT));
        out.push_str(&reference[path.len()..]);
        copied = range.end;
        changed = true;
    }
    out.push_str(&text[copied..]);
    changed.then_some(out)
}

/// The reference without its `?query` or `#fragment`.
fn path_part(reference: &str) -> &str {
    let end = reference.find(['?', '#']).unwrap_or(reference.len());
    &reference[..end]
}

/// `url(x)`, `url("x")`, `url('x')` and `@import "x"` / `@import 'x'`.
fn css_references(text: &str) -> Vec<Range<usize>> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let lower = text.to_ascii_lowercase();
    for (at, _) in lower.match_indices("url(") {
        let mut start = at + 4;
        while bytes.get(start).is_some_and(u8::is_ascii_whitespace) {
            start += 1;
        }
        let range = match bytes.get(start) {
            Some(&quote @ (b'"' | b'\'')) => quoted(bytes, start, quote),
            Some(_) => {
                let end = bytes[start..]
                    .iter()
                    .position(|&b| b == b')' || b.is_ascii_whitespace())
                    .map(|n| start + n);
                end.map(|end| start..end)
            }
            None => None,
        };
        found.extend(range.filter(|r| !r.is_empty()));
    }
    for (at, _) in lower.match_indices("@import") {
        let mut start = at + 7;
        while bytes.get(start).is_some_and(u8::is_ascii_whitespace) {
            start += 1;
        }
        if let Some(&quote @ (b'"' | b'\'')) = bytes.get(start) {
            found.extend(quoted(bytes, start, quote).filter(|r| !r.is_empty()));
        }
    }
    found.sort_by_key(|range| range.start);
    found
}

/// `href=` and `src=` attribute values, quoted or not, names case-insensitive.
fn attribute_references(text: &str) -> Vec<Range<usize>> {
    let bytes = text.as_bytes();
    let lower = text.to_ascii_lowercase();
    let mut found = Vec::new();
    for name in ["href", "src"] {
        for (at, _) in lower.match_indices(name) {
            // A whole attribute name: after whitespace, not `data-src` or `xhref`.
            if !at
                .checked_sub(1)
                .is_some_and(|before| bytes[before].is_ascii_whitespace())
            {
                continue;
            }
            let mut i = at + name.len();
            while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
                i += 1;
            }
            if bytes.get(i) != Some(&b'=') {
                continue;
            }
            i += 1;
            while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
                i += 1;
            }
            let range = match bytes.get(i) {
                Some(&quote @ (b'"' | b'\'')) => quoted(bytes, i, quote),
                Some(_) => {
                    let end = bytes[i..]
                        .iter()
                        .position(|&b| b.is_ascii_whitespace() || b == b'>')
                        .map_or(bytes.len(), |n| i + n);
                    Some(i..end)
                }
                None => None,
            };
            found.extend(range.filter(|r| !r.is_empty()));
        }
    }
    found
}

/// The inside of a string opened by `quote` at `open`.
fn quoted(bytes: &[u8], open: usize, quote: u8) -> Option<Range<usize>> {
    let start = open + 1;
    let len = bytes.get(start..)?.iter().position(|&b| b == quote)?;
    Some(start..start + len)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hashed(file: &str) -> Option<String> {
        let known = [
            "/css/app.css",
            "/img/logo.png",
            "/js/app.js",
            "/fonts/a.woff2",
        ];
        known.contains(&file).then(|| {
            let (stem, ext) = file.rsplit_once('.').unwrap();
            format!("{stem}.abcd1234.{ext}")
        })
    }

    #[test]
    fn html_attributes_and_inline_css_are_rewritten_relative_stays_relative() {
        let html = r##"<link rel="stylesheet" href="css/app.css">
<script src='/js/app.js?v=2' defer></script>
<img src=../img/logo.png alt="logo" data-src="img/logo.png">
<a href="https://example.com/js/app.js">x</a> <a href="#top">top</a>
<div style="background: url( '/img/logo.png' )"></div>
<a href="/docs/">docs</a> <a href="/missing.css">gone</a>"##;
        let out = rewrite(Document::Html, html, "/sub/index.html", None, hashed);
        let expected = r##"<link rel="stylesheet" href="css/app.css">
<script src='/js/app.abcd1234.js?v=2' defer></script>
<img src=../img/logo.abcd1234.png alt="logo" data-src="img/logo.png">
<a href="https://example.com/js/app.js">x</a> <a href="#top">top</a>
<div style="background: url( '/img/logo.abcd1234.png' )"></div>
<a href="/docs/">docs</a> <a href="/missing.css">gone</a>"##;
        // `css/app.css` from /sub/ is /sub/css/app.css: not a file, left alone.
        assert_eq!(out.as_deref(), Some(expected));
        let root = rewrite(
            Document::Html,
            r#"<link href="css/app.css">"#,
            "/index.html",
            None,
            hashed,
        );
        assert_eq!(
            root.as_deref(),
            Some(r#"<link href="css/app.abcd1234.css">"#)
        );
    }

    #[test]
    fn css_urls_and_imports_are_rewritten() {
        let css = r##"@import "app.css";
@import url(../css/app.css);
.a { background: url(../img/logo.png) no-repeat; }
@font-face { src: url("../fonts/a.woff2#iefix") format("woff2"), url(data:font/woff2;base64,AAAA); }"##;
        let out = rewrite(Document::Css, css, "/css/theme.css", None, hashed).unwrap();
        assert_eq!(
            out,
            r##"@import "app.abcd1234.css";
@import url(../css/app.abcd1234.css);
.a { background: url(../img/logo.abcd1234.png) no-repeat; }
@font-face { src: url("../fonts/a.abcd1234.woff2#iefix") format("woff2"), url(data:font/woff2;base64,AAAA); }"##
        );
        assert_eq!(
            rewrite(Document::Css, "a { color: red }", "/x.css", None, hashed),
            None
        );
    }

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
    fn written_urls_are_escaped_and_absolute_ones_carry_the_base() {
        let hashed =
            |file: &str| (file == "/café menu.txt").then(|| "/café menu.4da7f91f.txt".to_owned());
        let html = r#"<a href="/caf%C3%A9%20menu.txt">1</a> <a href='/café menu.txt?x#y'>2</a> <a href=caf%C3%A9%20menu.txt>3</a>"#;
        assert_eq!(
            rewrite(Document::Html, html, "/index.html", None, hashed).as_deref(),
            Some(
                r#"<a href="/caf%C3%A9%20menu.4da7f91f.txt">1</a> <a href='/caf%C3%A9%20menu.4da7f91f.txt?x#y'>2</a> <a href=caf%C3%A9%20menu.4da7f91f.txt>3</a>"#
            )
        );
        assert_eq!(
            rewrite(Document::Html, html, "/index.html", Some("/static"), hashed).as_deref(),
            Some(
                r#"<a href="/static/caf%C3%A9%20menu.4da7f91f.txt">1</a> <a href='/static/caf%C3%A9%20menu.4da7f91f.txt?x#y'>2</a> <a href=caf%C3%A9%20menu.4da7f91f.txt>3</a>"#
            )
        );
        // The kept folder part: its escapes stay, its raw characters are escaped.
        let nested =
            |file: &str| (file == "/my dir/a.css").then(|| "/my dir/a.1234abcd.css".to_owned());
        assert_eq!(
            rewrite(
                Document::Css,
                "@import 'my dir/a.css'; @import 'my%20dir/a.css';",
                "/x.css",
                None,
                nested
            )
            .as_deref(),
            Some("@import 'my%20dir/a.1234abcd.css'; @import 'my%20dir/a.1234abcd.css';")
        );
        assert_eq!(encode_url_path("/100%/a b?.txt"), "/100%25/a%20b%3F.txt");
        assert_eq!(
            encode_url_path("/js/app.3f2a1b9c.js"),
            "/js/app.3f2a1b9c.js"
        );
    }

    #[test]
    fn documents_are_known_by_extension() {
        assert_eq!(Document::of("/a/index.HTML"), Some(Document::Html));
        assert_eq!(Document::of("/a.htm"), Some(Document::Html));
        assert_eq!(Document::of("/css/app.css"), Some(Document::Css));
        assert_eq!(Document::of("/app.js"), None);
        assert_eq!(Document::of("/css"), None);
    }
}
