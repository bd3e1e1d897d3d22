//! Where the links of an HTML page are: each attribute that holds a URL, a `srcset`,
//! a `style` attribute or `<style>` text, as a byte range of the source.

use std::cell::RefCell;
use std::ops::Range;

use lol_html::html_content::Element;
use lol_html::{RewriteStrSettings, element, text};

use super::{Quote, relaxed};

/// A place in an HTML document that holds links.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Site {
    /// The bytes of the source it covers: an attribute's value without its quotes, or
    /// a `<style>` element's text.
    pub(crate) range: Range<usize>,
    pub(crate) kind: SiteKind,
}

/// What a [`Site`] holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SiteKind {
    /// An attribute whose value is one URL (`href`, `src`, `poster`, …), entities
    /// and all. `subresource` is set for the elements that take an `integrity`
    /// attribute (`<script src>`, `<link rel=stylesheet|modulepreload>`) and have none.
    Url { quote: Quote, subresource: bool },
    /// A `srcset` / `imagesrcset` attribute: URLs with descriptors, comma separated.
    Srcset { quote: Quote },
    /// A `style` attribute: CSS declarations.
    StyleAttribute { quote: Quote },
    /// The text of a `<style>` element: CSS, no entities.
    StyleText,
}

/// The link-holding places of `html`, in document order. `None` when the tokenizer
/// gives up on the document (it is then served as written).
pub(crate) fn html_sites(html: &str) -> Option<Vec<Site>> {
    let sites = RefCell::new(Vec::new());
    let style_text: RefCell<Option<Range<usize>>> = RefCell::new(None);
    let settings = RewriteStrSettings {
        element_content_handlers: vec![
            element!("*", |el| {
                sites.borrow_mut().extend(element_sites(el, html));
                Ok(())
            }),
            text!("style", |chunk| {
                // A text node can come in several chunks: one site for all of them.
                let at = chunk.source_location().bytes();
                let mut open = style_text.borrow_mut();
                let range = match open.take() {
                    Some(range) => range.start..at.end,
                    None => at,
                };
                if chunk.last_in_text_node() {
                    if !range.is_empty() {
                        sites.borrow_mut().push(Site {
                            range,
                            kind: SiteKind::StyleText,
                        });
                    }
                } else {
                    *open = Some(range);
                }
                Ok(())
            }),
        ],
        ..relaxed()
    };
    lol_html::rewrite_str(html, settings).ok()?;
    let mut sites = sites.into_inner();
    sites.sort_by_key(|site| site.range.start);
    Some(sites)
}

/// The sites among `el`'s attributes.
fn element_sites(el: &Element<'_, '_>, html: &str) -> Vec<Site> {
    let tag = el.tag_name();
    let rel = el
        .get_attribute("rel")
        .unwrap_or_default()
        .to_ascii_lowercase();
    // `data-no-integrity`: an element whose URL a script swaps at run time (a theme
    // switcher) would keep the first file's value and block every other.
    let takes_integrity = !el.has_attribute("integrity")
        && !el.has_attribute("data-no-integrity")
        && match tag.as_str() {
            "script" => true,
            "link" => rel
                .split_ascii_whitespace()
                .any(|word| word == "stylesheet" || word == "modulepreload"),
            _ => false,
        };
    let mut found = Vec::new();
    for attribute in el.attributes() {
        let Some(at) = attribute.value_source_location() else {
            continue;
        };
        let range = at.bytes();
        let quote = match range.start.checked_sub(1).map(|i| html.as_bytes()[i]) {
            Some(b'"') => Quote::Double,
            Some(b'\'') => Quote::Single,
            _ => Quote::None,
        };
        let name = attribute.name();
        let kind = match name.as_str() {
            "src" => SiteKind::Url {
                quote,
                subresource: takes_integrity && tag == "script",
            },
            "href" | "xlink:href" => SiteKind::Url {
                quote,
                subresource: takes_integrity && tag == "link",
            },
            "poster" => SiteKind::Url {
                quote,
                subresource: false,
            },
            "data" if tag == "object" => SiteKind::Url {
                quote,
                subresource: false,
            },
            "srcset" | "imagesrcset" => SiteKind::Srcset { quote },
            "style" => SiteKind::StyleAttribute { quote },
            _ => continue,
        };
        if !range.is_empty() {
            found.push(Site { range, kind });
        }
    }
    found
}

/// One image candidate of a `srcset`: where its URL is in the (decoded) value.
pub(crate) fn srcset_urls(value: &str) -> Vec<Range<usize>> {
    // The HTML standard's "parse a srcset attribute": split on commas that follow a
    // URL, skip descriptors (which may hold commas inside parentheses).
    let bytes = value.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    let space = |b: u8| matches!(b, b' ' | b'\t' | b'\n' | b'\x0c' | b'\r');
    while i < bytes.len() {
        while i < bytes.len() && (space(bytes[i]) || bytes[i] == b',') {
            i += 1;
        }
        let start = i;
        while i < bytes.len() && !space(bytes[i]) {
            i += 1;
        }
        let mut end = i;
        let mut url_ended_with_comma = false;
        while end > start && bytes[end - 1] == b',' {
            end -= 1;
            url_ended_with_comma = true;
        }
        if end > start {
            found.push(start..end);
        }
        if url_ended_with_comma {
            continue;
        }
        // Descriptors, up to the comma that ends the candidate.
        let mut depth = 0usize;
        while i < bytes.len() {
            match bytes[i] {
                b'(' => depth += 1,
                b')' => depth = depth.saturating_sub(1),
                b',' if depth == 0 => break,
                _ => {}
            }
            i += 1;
        }
    }
    found
}
