//! `rewrite_references = true`: links inside embedded HTML and CSS are pointed at the
//! fingerprinted URLs of the files they name, at compile time.
//!
//! A reference is an HTML `href`/`src`/`poster` attribute value, a `srcset` candidate,
//! a CSS `url(...)` (also in HTML `style` attributes and `<style>` elements), a CSS
//! `@import "..."` or an `image-set()` string, found by parsing (`markup/`). Only
//! references
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
//! root; relative links need none. With `integrity = true`, `<script src>`,
//! `<link rel=stylesheet>` and `<link rel=modulepreload>` that load an embedded file
//! get its Subresource Integrity value.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use percent_encoding::utf8_percent_encode;
use proc_macro2::Span;

use crate::encode::Encoder;
use crate::errors::Errors;
use crate::markup::{self, Quote, SiteKind};
use crate::model::{Document, EncodedAsset, FileEntry};
use crate::url::{PATH, SEGMENT, hashed_url, path_part, resolve};

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
    rules: Rules<'_>,
    root_span: Span,
) -> syn::Result<()> {
    let documents: Vec<bool> = files.iter().map(FileEntry::is_document).collect();
    let mut pending: Vec<usize> = (0..files.len()).filter(|&i| documents[i]).collect();
    let mut targets: HashMap<String, Target> = assets
        .iter()
        .zip(&documents)
        .filter(|&(_, &document)| !document)
        .map(|(asset, _)| (asset.url_path.clone(), target_of(asset)))
        .collect();
    let mut errors = Errors::default();
    let mut stuck = false;
    while !pending.is_empty() {
        // A document whose links change with its bytes is worth waiting for: a
        // fingerprinted one (its hashed URL), any one when `integrity` is written.
        let waiting: HashSet<&str> = pending
            .iter()
            .filter(|&&i| rules.integrity || assets[i].fingerprinted.is_some())
            .map(|&i| files[i].url_path.as_str())
            .collect();
        let mut later = Vec::new();
        for &i in &pending {
            let file = &files[i];
            let (bytes, guarded) = match encoder.source(file) {
                Ok(source) => source,
                Err(msg) => {
                    errors.at_span(root_span, msg);
                    continue;
                }
            };
            let (bytes, rewritten) = match String::from_utf8(bytes) {
                // Not UTF-8: served as it is.
                Err(not_text) => (not_text.into_bytes(), guarded),
                Ok(text) => {
                    let kind = Document::of(&file.url_path).unwrap_or(Document::Html);
                    let url = file.url_path.as_str();
                    let waits = references(kind, &text)
                        .into_iter()
                        .filter_map(|reference| resolve(&reference, url))
                        .any(|target| target != url && waiting.contains(target.as_str()));
                    if waits && !stuck {
                        later.push(i);
                        continue;
                    }
                    match rewrite(kind, &text, url, rules, |file| targets.get(file).cloned()) {
                        Some(new) => (new.into_bytes(), true),
                        None => (text.into_bytes(), guarded),
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
                            asset.fingerprinted = Some(url);
                        }
                        None => {}
                    }
                    targets.insert(asset.url_path.clone(), target_of(&asset));
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

/// What a link to `asset` is rewritten with.
fn target_of(asset: &EncodedAsset) -> Target {
    Target {
        hashed: asset.fingerprinted.clone(),
        integrity: asset.integrity.clone(),
    }
}

/// The references of `text`, as the browser reads them (entities and CSS escapes
/// decoded, percent escapes kept), in document order.
pub(crate) fn references(kind: Document, text: &str) -> Vec<String> {
    let mut found = Vec::new();
    edit(kind, text, &mut |reference, _| {
        found.push(reference.to_owned());
        Change::default()
    });
    found
}

/// What the rewrite knows of the file a reference names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Target {
    /// Its fingerprinted URL path (decoded), if it has one.
    pub(crate) hashed: Option<String>,
    /// Its Subresource Integrity value, if it is embedded.
    pub(crate) integrity: Option<String>,
}

/// How references are rewritten.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Rules<'a> {
    /// Put in front of rewritten absolute links (`base = "/static"`).
    pub(crate) base: Option<&'a str>,
    /// Add `integrity` to the subresources that take it (`integrity = true`).
    pub(crate) integrity: bool,
}

/// `text` with every reference whose file `lookup` knows a hashed URL of pointed at
/// it, `base` before the absolute ones, and with `integrity` the subresource elements
/// given the value of the file they load; `None` when nothing changes.
pub(crate) fn rewrite(
    kind: Document,
    text: &str,
    document: &str,
    rules: Rules<'_>,
    lookup: impl Fn(&str) -> Option<Target>,
) -> Option<String> {
    edit(kind, text, &mut |reference, subresource| {
        let Some(file) = resolve(reference, document) else {
            return Change::default();
        };
        let Some(target) = lookup(&file) else {
            return Change::default();
        };
        Change {
            reference: target
                .hashed
                .map(|url| hashed_reference(reference, &url, rules.base)),
            integrity: target.integrity.filter(|_| subresource && rules.integrity),
        }
    })
}

/// `reference` (to a file of the folder) pointed at `url`, the file's hashed URL path:
/// only its last segment changes, and `base` comes before an absolute one.
fn hashed_reference(reference: &str, url: &str, base: Option<&str>) -> String {
    let path = path_part(reference);
    let new_name = url.rsplit('/').next().unwrap_or(url);
    let keep = path.rfind('/').map_or(0, |slash| slash + 1);
    let mut out = String::with_capacity(reference.len() + 16);
    if path.starts_with('/') {
        out.push_str(base.unwrap_or(""));
    }
    // The kept part as written, its escapes kept (`%` is not in `PATH`).
    out.extend(utf8_percent_encode(&path[..keep], PATH));
    out.extend(utf8_percent_encode(new_name, SEGMENT));
    out.push_str(&reference[path.len()..]);
    out
}

/// What to do at one reference.
#[derive(Debug, Default)]
struct Change {
    /// The reference to write instead.
    reference: Option<String>,
    /// An `integrity` value to add to its element.
    integrity: Option<String>,
}

/// `text` with the changes `change` asks for at each reference (given as the browser
/// reads it, and whether its element takes `integrity`), every other byte as written;
/// `None` when nothing changes. An HTML document the tokenizer gives up on is left
/// alone.
fn edit(
    kind: Document,
    text: &str,
    change: &mut dyn FnMut(&str, bool) -> Change,
) -> Option<String> {
    let mut edits: Vec<(Range<usize>, String)> = Vec::new();
    match kind {
        Document::Css => edits.extend(edit_css(text, 0, change)),
        Document::Html => {
            for site in markup::html_sites(text)? {
                let raw = &text[site.range.clone()];
                match site.kind {
                    SiteKind::StyleText => edits.extend(edit_css(raw, site.range.start, change)),
                    SiteKind::Url { quote, subresource } => {
                        let Some(value) = markup::decode_attribute(raw) else {
                            continue;
                        };
                        let found = change(value.trim(), subresource);
                        if let Some(new) = found.reference {
                            edits.push((site.range.clone(), markup::encode_attribute(&new, quote)));
                        }
                        if let Some(integrity) = found.integrity {
                            let after = site.range.end + usize::from(quote != Quote::None);
                            edits.push((after..after, format!(" integrity=\"{integrity}\"")));
                        }
                    }
                    SiteKind::Srcset { quote } => {
                        let Some(value) = markup::decode_attribute(raw) else {
                            continue;
                        };
                        let mut inner = Vec::new();
                        for url in markup::srcset_urls(&value) {
                            if let Some(new) = change(&value[url.clone()], false).reference {
                                inner.push((url, new));
                            }
                        }
                        if let Some(new) = splice(&value, inner) {
                            edits.push((site.range, markup::encode_attribute(&new, quote)));
                        }
                    }
                    SiteKind::StyleAttribute { quote } => {
                        let Some(value) = markup::decode_attribute(raw) else {
                            continue;
                        };
                        if let Some(new) = splice(&value, edit_css(&value, 0, change)) {
                            edits.push((site.range, markup::encode_attribute(&new, quote)));
                        }
                    }
                }
            }
        }
    }
    edits.sort_by_key(|(range, _)| range.start);
    splice(text, edits)
}

/// The edits of the links of the CSS `css`, which starts at byte `offset` of the
/// document.
fn edit_css(
    css: &str,
    offset: usize,
    change: &mut dyn FnMut(&str, bool) -> Change,
) -> Vec<(Range<usize>, String)> {
    markup::css_urls(css)
        .into_iter()
        .filter_map(|found| {
            let new = change(found.url.trim(), false).reference?;
            let range = found.range.start + offset..found.range.end + offset;
            Some((range, markup::css_token(&new, found.quote)))
        })
        .collect()
}

/// `text` with each range of `edits` (in order, not overlapping) replaced; `None`
/// when there are none.
fn splice(text: &str, edits: Vec<(Range<usize>, String)>) -> Option<String> {
    if edits.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(text.len() + 64 * edits.len());
    let mut copied = 0;
    for (range, new) in edits {
        out.push_str(&text[copied..range.start]);
        out.push_str(&new);
        copied = range.end;
    }
    out.push_str(&text[copied..]);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `rewrite` with `hashed` giving the hashed URLs, no integrity.
    fn rw(
        kind: Document,
        text: &str,
        document: &str,
        base: Option<&str>,
        hashed: impl Fn(&str) -> Option<String>,
    ) -> Option<String> {
        let rules = Rules {
            base,
            integrity: false,
        };
        rewrite(kind, text, document, rules, |file| {
            Some(Target {
                hashed: Some(hashed(file)?),
                integrity: None,
            })
        })
    }

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
        let out = rw(Document::Html, html, "/sub/index.html", None, hashed);
        let expected = r##"<link rel="stylesheet" href="css/app.css">
<script src='/js/app.abcd1234.js?v=2' defer></script>
<img src=../img/logo.abcd1234.png alt="logo" data-src="img/logo.png">
<a href="https://example.com/js/app.js">x</a> <a href="#top">top</a>
<div style="background: url( '/img/logo.abcd1234.png' )"></div>
<a href="/docs/">docs</a> <a href="/missing.css">gone</a>"##;
        // `css/app.css` from /sub/ is /sub/css/app.css: not a file, left alone.
        assert_eq!(out.as_deref(), Some(expected));
        let root = rw(
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
        let out = rw(Document::Css, css, "/css/theme.css", None, hashed).unwrap();
        assert_eq!(
            out,
            r##"@import "app.abcd1234.css";
@import url(../css/app.abcd1234.css);
.a { background: url(../img/logo.abcd1234.png) no-repeat; }
@font-face { src: url("../fonts/a.abcd1234.woff2#iefix") format("woff2"), url(data:font/woff2;base64,AAAA); }"##
        );
        assert_eq!(
            rw(Document::Css, "a { color: red }", "/x.css", None, hashed),
            None
        );
    }

    #[test]
    fn written_urls_are_escaped_and_absolute_ones_carry_the_base() {
        let hashed =
            |file: &str| (file == "/café menu.txt").then(|| "/café menu.4da7f91f.txt".to_owned());
        let html = r#"<a href="/caf%C3%A9%20menu.txt">1</a> <a href='/café menu.txt?x#y'>2</a> <a href=caf%C3%A9%20menu.txt>3</a>"#;
        assert_eq!(
            rw(Document::Html, html, "/index.html", None, hashed).as_deref(),
            Some(
                r#"<a href="/caf%C3%A9%20menu.4da7f91f.txt">1</a> <a href='/caf%C3%A9%20menu.4da7f91f.txt?x#y'>2</a> <a href=caf%C3%A9%20menu.4da7f91f.txt>3</a>"#
            )
        );
        assert_eq!(
            rw(Document::Html, html, "/index.html", Some("/static"), hashed).as_deref(),
            Some(
                r#"<a href="/static/caf%C3%A9%20menu.4da7f91f.txt">1</a> <a href='/static/caf%C3%A9%20menu.4da7f91f.txt?x#y'>2</a> <a href=caf%C3%A9%20menu.4da7f91f.txt>3</a>"#
            )
        );
        // The kept folder part: its escapes stay, its raw characters are escaped.
        let nested =
            |file: &str| (file == "/my dir/a.css").then(|| "/my dir/a.1234abcd.css".to_owned());
        assert_eq!(
            rw(
                Document::Css,
                "@import 'my dir/a.css'; @import 'my%20dir/a.css';",
                "/x.css",
                None,
                nested
            )
            .as_deref(),
            Some("@import 'my%20dir/a.1234abcd.css'; @import 'my%20dir/a.1234abcd.css';")
        );
    }

    #[test]
    fn only_real_links_change_text_and_comments_stay_as_written() {
        let html = r#"<script>var s = '<img src="/img/logo.png">'; // src="/js/app.js"
</script><!-- <img src="/img/logo.png"> --><p>src="/img/logo.png"</p>
<textarea><img src="/img/logo.png"></textarea><img src="/img/logo.png">"#;
        let out = rw(Document::Html, html, "/index.html", None, hashed).unwrap();
        assert_eq!(
            out,
            html.replace(
                r#"</textarea><img src="/img/logo.png">"#,
                r#"</textarea><img src="/img/logo.abcd1234.png">"#
            ),
            "only the one <img> element is a link"
        );
        let css = r#"/* url(/img/logo.png) */ .a::before { content: "url(/img/logo.png)" }
.b { background: URL(/img/logo.png) }"#;
        let out = rw(Document::Css, css, "/x.css", None, hashed).unwrap();
        assert_eq!(
            out,
            css.replace("URL(/img/logo.png)", "url(/img/logo.abcd1234.png)"),
            "a comment and a string are not links; url() is case-insensitive"
        );
    }

    #[test]
    fn a_page_the_tokenizer_cannot_be_sure_of_is_still_rewritten() {
        let html = r#"<select><xmp><script>x</script></xmp></select><img src="/img/logo.png">"#;
        assert_eq!(
            rw(Document::Html, html, "/index.html", None, hashed).as_deref(),
            Some(
                r#"<select><xmp><script>x</script></xmp></select><img src="/img/logo.abcd1234.png">"#
            )
        );
    }

    #[test]
    fn srcset_style_poster_svg_and_image_set_are_links() {
        let html = r#"<img srcset="/img/logo.png 1x, img/logo.png 2x,/img/logo.png 3x, img/logo.png, img/logo.png,img/logo.png" src="/img/logo.png">
<source srcset='/img/logo.png (min-width: 5px, x) 300w'>
<video poster=/img/logo.png></video><svg><image xlink:href="/img/logo.png"/></svg>
<style>.a { background-image: image-set("/img/logo.png" 1x, url(/img/logo.png) 2x) }</style>
<p style="background:url(&quot;/img/logo.png&quot;)">"#;
        let out = rw(Document::Html, html, "/index.html", None, hashed).unwrap();
        // `a.png,b.png` is one URL, as the HTML standard's srcset parser reads it.
        let expected = r#"<img srcset="/img/logo.abcd1234.png 1x, img/logo.abcd1234.png 2x,/img/logo.abcd1234.png 3x, img/logo.abcd1234.png, img/logo.png,img/logo.png" src="/img/logo.abcd1234.png">
<source srcset='/img/logo.abcd1234.png (min-width: 5px, x) 300w'>
<video poster=/img/logo.abcd1234.png></video><svg><image xlink:href="/img/logo.abcd1234.png"/></svg>
<style>.a { background-image: image-set("/img/logo.abcd1234.png" 1x, url(/img/logo.abcd1234.png) 2x) }</style>
<p style="background:url(&quot;/img/logo.abcd1234.png&quot;)">"#;
        assert_eq!(out, expected);
    }

    #[test]
    fn entities_are_read_as_the_browser_reads_them() {
        let html = r#"<a href="/js/app.js?a=1&amp;b=2">a</a> <a href="/js/app&#46;js">b</a> <a href="/js/app.js?&eacute;">c</a>"#;
        assert_eq!(
            rw(Document::Html, html, "/index.html", None, hashed).as_deref(),
            Some(
                r#"<a href="/js/app.abcd1234.js?a=1&amp;b=2">a</a> <a href="/js/app.abcd1234.js">b</a> <a href="/js/app.js?&eacute;">c</a>"#
            ),
            "an unknown named reference leaves its attribute as written"
        );
        assert_eq!(
            markup::encode_attribute("a'b\"c&d e", Quote::None),
            "a&#39;b&quot;c&amp;d&#32;e"
        );
        assert_eq!(markup::encode_attribute("a'b", Quote::Double), "a'b");
        assert_eq!(markup::css_token("a'b", Some('\'')), "'a\\'b'");
    }

    #[test]
    fn integrity_goes_on_scripts_stylesheets_and_module_preloads() {
        let html = r#"<script src="/js/app.js"></script><link rel="stylesheet" href=css/app.css>
<link rel="modulepreload" href='/js/app.js'><img src="/img/logo.png">
<link rel="icon" href="/img/logo.png"><script src="/js/app.js" integrity="sha384-mine"></script>
<link rel="preload" as="style" href="/css/app.css"><link rel=stylesheet href="/js/app.js" data-no-integrity>"#;
        let lookup = |file: &str| {
            hashed(file).map(|url| Target {
                hashed: (file != "/css/app.css").then_some(url),
                integrity: Some(format!("sha384-{}", file.len())),
            })
        };
        let rules = Rules {
            base: None,
            integrity: true,
        };
        let out = rewrite(Document::Html, html, "/index.html", rules, lookup).unwrap();
        let expected = r#"<script src="/js/app.abcd1234.js" integrity="sha384-10"></script><link rel="stylesheet" href=css/app.css integrity="sha384-12">
<link rel="modulepreload" href='/js/app.abcd1234.js' integrity="sha384-10"><img src="/img/logo.abcd1234.png">
<link rel="icon" href="/img/logo.abcd1234.png"><script src="/js/app.abcd1234.js" integrity="sha384-mine"></script>
<link rel="preload" as="style" href="/css/app.css"><link rel=stylesheet href="/js/app.abcd1234.js" data-no-integrity>"#;
        assert_eq!(out, expected);
        let off = Rules {
            base: None,
            integrity: false,
        };
        let out = rewrite(Document::Html, html, "/index.html", off, lookup).unwrap();
        assert!(!out.contains("sha384-1"), "{out}");
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
