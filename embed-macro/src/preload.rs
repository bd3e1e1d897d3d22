//! The preload phase, last: for each embedded HTML page, the `Link` field values
//! (RFC 8288) of the files its `<head>` needs before it can render, so that a server
//! or a CDN can announce them early (a `Link` header, or 103 Early Hints built from
//! it).
//!
//! The style sheets and scripts are named as the page (after rewriting) names them,
//! so a preload and the element that uses it are the same URL, resolved against the
//! same page URL; the fonts those style sheets load (`url()` of a `.woff2`, `.woff`,
//! `.ttf` or `.otf` file) are absolute paths, `base` in front. Only files served by
//! the table are announced.

use std::collections::HashMap;

use percent_encoding::{AsciiSet, CONTROLS, utf8_percent_encode};

use crate::markup::{self, LoadKind};
use crate::model::{Body, Document, EncodedAsset};
use crate::url::{encode_url_path, resolve};

/// What a URL inside `<…>` of a `Link` value cannot hold as it is. `%`, `?` and `#`
/// stay: the reference keeps its escapes, query and fragment.
const LINK: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'<')
    .add(b'>')
    .add(b'`')
    .add(b'{')
    .add(b'}')
    .add(b'\\');

/// Sets `preload` on every embedded HTML page of `assets`.
pub(crate) fn apply(assets: &mut [EncodedAsset], base: Option<&str>) {
    // Every URL path a file is served at: its own and its fingerprinted one.
    let mut served: HashMap<String, usize> = HashMap::new();
    for (i, asset) in assets.iter().enumerate() {
        if let Body::Embedded { .. } = asset.body {
            served.insert(asset.url_path.clone(), i);
            if let Some(url) = &asset.fingerprinted {
                served.insert(url.clone(), i);
            }
        }
    }
    let links: Vec<(usize, Vec<String>)> = assets
        .iter()
        .enumerate()
        .filter(|(_, asset)| Document::of(&asset.url_path) == Some(Document::Html))
        .filter_map(|(i, page)| Some((i, page_links(page, assets, &served, base)?)))
        .collect();
    for (i, links) in links {
        assets[i].preload = links;
    }
}

/// The `Link` values of `page`; `None` when it is not embedded or not UTF-8 text.
fn page_links(
    page: &EncodedAsset,
    assets: &[EncodedAsset],
    served: &HashMap<String, usize>,
    base: Option<&str>,
) -> Option<Vec<String>> {
    let text = final_text(page)?;
    let mut links: Vec<String> = Vec::new();
    let mut fonts: Vec<String> = Vec::new();
    let lookup = |path: &str| -> Option<usize> {
        let path = match base {
            Some(base) => path
                .strip_prefix(base)
                .filter(|rest| rest.starts_with('/'))
                .unwrap_or(path),
            None => path,
        };
        served.get(path).copied()
    };
    for load in markup::head_loads(&text)? {
        let Some(target) = resolve(&load.reference, &page.url_path).and_then(|p| lookup(&p)) else {
            continue;
        };
        let url = utf8_percent_encode(&load.reference, LINK).to_string();
        let mut value = match load.kind {
            LoadKind::Style => format!("<{url}>; rel=preload; as=style"),
            LoadKind::Module => format!("<{url}>; rel=modulepreload"),
            LoadKind::Script => format!("<{url}>; rel=preload; as=script"),
        };
        value.push_str(&crossorigin(load.crossorigin.as_deref()));
        value.push_str(&integrity(load.integrity.as_deref()));
        if !links.contains(&value) {
            links.push(value);
        }
        if load.kind == LoadKind::Style {
            for font in style_fonts(&assets[target], served) {
                let value = format!(
                    "<{}{}>; rel=preload; as=font; crossorigin",
                    base.unwrap_or(""),
                    encode_url_path(&font)
                );
                if !fonts.contains(&value) {
                    fonts.push(value);
                }
            }
        }
    }
    links.extend(fonts);
    Some(links)
}

/// The `crossorigin` parameter a preload needs to match its element: none, the bare
/// (anonymous) form, or `crossorigin=use-credentials`.
fn crossorigin(value: Option<&str>) -> String {
    match value.map(str::trim) {
        None => String::new(),
        Some(value) if value.eq_ignore_ascii_case("use-credentials") => {
            "; crossorigin=use-credentials".to_owned()
        }
        Some(_) => "; crossorigin".to_owned(),
    }
}

/// The `integrity` parameter a preload needs to be used by an element with that
/// attribute: a browser matches a preload to its element by integrity metadata too,
/// and discards one without it. Written as a quoted string (RFC 8288's `token /
/// quoted-string`); a value that a quoted string cannot hold is left out.
fn integrity(value: Option<&str>) -> String {
    match value.map(str::trim) {
        Some(value)
            if !value.is_empty()
                && value.bytes().all(|b| b.is_ascii_graphic() || b == b' ')
                && !value.contains(['"', '\\']) =>
        {
            format!("; integrity=\"{value}\"")
        }
        _ => String::new(),
    }
}

/// The URL paths of the font files the style sheet `sheet` loads, as served.
fn style_fonts(sheet: &EncodedAsset, served: &HashMap<String, usize>) -> Vec<String> {
    let Some(css) = final_text(sheet) else {
        return Vec::new();
    };
    markup::css_urls(&css)
        .into_iter()
        .filter_map(|found| resolve(found.url.trim(), &sheet.url_path))
        .filter(|path| served.contains_key(path) && is_font(path))
        .collect()
}

fn is_font(path: &str) -> bool {
    let ext = path
        .rsplit_once('.')
        .map(|(_, ext)| ext.to_ascii_lowercase());
    matches!(ext.as_deref(), Some("woff2" | "woff" | "ttf" | "otf"))
}

/// The bytes `asset` serves, as text.
fn final_text(asset: &EncodedAsset) -> Option<String> {
    let Body::Embedded { identity, .. } = &asset.body else {
        return None;
    };
    String::from_utf8(std::fs::read(identity).ok()?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crossorigin_matches_the_element() {
        assert_eq!(crossorigin(None), "");
        assert_eq!(crossorigin(Some("")), "; crossorigin");
        assert_eq!(crossorigin(Some("anonymous")), "; crossorigin");
        assert_eq!(
            crossorigin(Some("USE-CREDENTIALS")),
            "; crossorigin=use-credentials"
        );
        assert!(is_font("/f/a.WOFF2") && !is_font("/f/a.css"));
        assert_eq!(integrity(None), "");
        assert_eq!(integrity(Some(" ")), "");
        assert_eq!(
            integrity(Some("sha384-abc+/= sha256-x")),
            "; integrity=\"sha384-abc+/= sha256-x\""
        );
        assert_eq!(integrity(Some("sha384-\"x")), "", "no quote inside");
        assert_eq!(
            utf8_percent_encode("a b/é.css?x=1#y", LINK).to_string(),
            "a%20b/%C3%A9.css?x=1#y"
        );
    }
}
