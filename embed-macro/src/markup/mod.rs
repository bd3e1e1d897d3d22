//! Reading HTML and CSS documents by parsing them: HTML with `lol_html`'s tokenizer
//! (the browser's tokenization rules, so a `src="…"` inside a script string is text,
//! not an attribute), CSS with `cssparser`'s (so a `url(` inside a comment or a string
//! is not a link). One file per thing looked for:
//! - `links.rs`: where the links of a page are (for the rewrite phase);
//! - `css.rs`: the links of a style sheet, and how a URL is written back in CSS;
//! - `inline.rs`: a page's inline scripts and styles and their CSP hashes (encode);
//! - `head.rs`: what a page's `<head>` loads before it renders (preload), and where an
//!   inline script that must run first goes (`reload_on_stale`).
//!
//! Nothing here changes a document: it reports byte ranges of the source and values,
//! and the rewrite (`rewrite.rs`) replaces only the bytes of the links it changes, so
//! the rest of a page (quoting, spacing, entities) comes out exactly as written. This
//! file holds what they share: attribute values as written and read.

use lol_html::RewriteStrSettings;

mod css;
mod head;
mod inline;
mod links;

pub(crate) use css::{css_token, css_urls};
pub(crate) use head::{LoadKind, head_loads, script_site};
pub(crate) use inline::inline_code;
pub(crate) use links::{SiteKind, html_sites, srcset_urls};

/// How an attribute value was written: it decides what a new value must escape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Quote {
    Double,
    Single,
    None,
}

/// `lol_html`'s settings with its strict mode off: a document whose parsing context
/// it cannot tell for sure (`<select><xmp>`) is read by its best guess, not given up
/// on, so one odd construct does not leave a whole page unrewritten.
pub(super) fn relaxed<'h, 's>() -> RewriteStrSettings<'h, 's> {
    RewriteStrSettings {
        strict: false,
        ..RewriteStrSettings::new()
    }
}

/// An attribute value with its character references decoded, or `None` when it holds
/// one this does not know. Links hold `&amp;` and numeric references at most; the
/// named ones beyond the five of XML are left alone, and so is their attribute.
// A hand-written decoder rather than a crate: five names and two numeric forms is
// all a URL ever carries, and anything else makes the attribute be left as written.
pub(crate) fn decode_attribute(raw: &str) -> Option<String> {
    if !raw.contains('&') {
        return Some(raw.to_owned());
    }
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let end = rest.find(';')?;
        let name = &rest[1..end];
        let c = match name {
            "amp" => '&',
            "lt" => '<',
            "gt" => '>',
            "quot" => '"',
            "apos" => '\'',
            _ => {
                let number = name.strip_prefix('#')?;
                let code = match number.strip_prefix(['x', 'X']) {
                    Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                    None => number.parse().ok()?,
                };
                char::from_u32(code).filter(|&c| c != '\0')?
            }
        };
        out.push(c);
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    Some(out)
}

/// `value` as the bytes of an attribute value written with `quote`.
pub(crate) fn encode_attribute(value: &str, quote: Quote) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match (c, quote) {
            ('&', _) => out.push_str("&amp;"),
            ('"', Quote::Double | Quote::None) => out.push_str("&quot;"),
            ('\'', Quote::Single | Quote::None) => out.push_str("&#39;"),
            ('<' | '>' | '=' | '`', Quote::None) => {
                out.push_str(&format!("&#{};", u32::from(c)));
            }
            (c, Quote::None) if c.is_ascii_whitespace() => {
                out.push_str(&format!("&#{};", u32::from(c)));
            }
            (c, _) => out.push(c),
        }
    }
    out
}

/// Whether a `<script type>` is run as script (HTML §4.12.1: no type, a JavaScript
/// MIME type, `module`, or one of the other kinds CSP governs), not a data block.
pub(super) fn is_script_type(kind: &str) -> bool {
    let kind = kind.trim().to_ascii_lowercase();
    let essence = kind.split(';').next().unwrap_or_default().trim();
    matches!(essence, "" | "module" | "importmap" | "speculationrules")
        || ["javascript", "ecmascript", "jscript", "livescript"]
            .iter()
            .any(|name| essence.ends_with(name) || essence.ends_with(&format!("{name}1.5")))
}
