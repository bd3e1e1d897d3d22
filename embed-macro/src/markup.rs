//! Where the links of an HTML or CSS document are, found by parsing it: HTML with
//! `lol_html`'s tokenizer (the browser's tokenization rules, so a `src="…"` inside a
//! script string is text, not an attribute), CSS with `cssparser`'s (so a `url(` inside
//! a comment or a string is not a link).
//!
//! Nothing here changes a document: it reports byte ranges of the source, and the
//! rewrite (`rewrite.rs`) replaces only the bytes of the links it changes, so the rest
//! of a page (quoting, spacing, entities) comes out exactly as written.

use std::cell::RefCell;
use std::ops::Range;

use cssparser::{Parser, ParserInput, ToCss, Token};
use lol_html::html_content::Element;
use lol_html::{element, text, RewriteStrSettings};

use crate::model::{Inline, Unhashable};

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

/// How an attribute value was written: it decides what a new value must escape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Quote {
    Double,
    Single,
    None,
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

/// `lol_html`'s settings with its strict mode off: a document whose parsing context
/// it cannot tell for sure (`<select><xmp>`) is read by its best guess, not given up
/// on, so one odd construct does not leave a whole page unrewritten.
fn relaxed<'h, 's>() -> RewriteStrSettings<'h, 's> {
    RewriteStrSettings {
        strict: false,
        ..RewriteStrSettings::new()
    }
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

/// A link in CSS: the byte range of its token and the URL it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CssUrl {
    /// The whole token: `url(x)` for an unquoted URL, `"x"` (quotes included) for a
    /// string.
    pub(crate) range: Range<usize>,
    /// The URL, CSS escapes decoded.
    pub(crate) url: String,
    /// The quote of a string token; `None` for `url(x)`.
    pub(crate) quote: Option<char>,
}

/// The links of a style sheet or declaration list: `url(x)`, `url("x")`,
/// `@import "x"`, and the strings of `image-set()`, at any depth.
pub(crate) fn css_urls(css: &str) -> Vec<CssUrl> {
    let mut input = ParserInput::new(css);
    let mut parser = Parser::new(&mut input);
    let mut found = Vec::new();
    walk_css(&mut parser, Context::Plain, &mut found);
    found
}

/// Which strings of a block are URLs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Context {
    Plain,
    /// Inside `url(` … `)`: its first string.
    Url,
    /// Inside `image-set(` … `)`: every string.
    ImageSet,
}

fn walk_css(parser: &mut Parser<'_, '_>, context: Context, found: &mut Vec<CssUrl>) {
    let mut after_import = false;
    let mut strings_seen = 0;
    loop {
        let from = parser.position();
        let Ok(token) = parser.next_including_whitespace_and_comments() else {
            return;
        };
        let token = token.clone();
        let (start, end) = (from.byte_index(), parser.position().byte_index());
        let mut was_import = false;
        match &token {
            Token::WhiteSpace(_) | Token::Comment(_) => {
                was_import = after_import;
            }
            Token::UnquotedUrl(url) => found.push(CssUrl {
                range: start..end,
                url: url.to_string(),
                quote: None,
            }),
            Token::QuotedString(value) => {
                let is_url = after_import
                    || context == Context::ImageSet
                    || (context == Context::Url && strings_seen == 0);
                strings_seen += 1;
                if is_url {
                    let quote = parser.slice_from(from).chars().next().unwrap_or('"');
                    found.push(CssUrl {
                        range: start..end,
                        url: value.to_string(),
                        quote: Some(quote),
                    });
                }
            }
            Token::AtKeyword(name) => was_import = name.eq_ignore_ascii_case("import"),
            Token::Function(name) => {
                let inner = if name.eq_ignore_ascii_case("url") {
                    Context::Url
                } else if name.eq_ignore_ascii_case("image-set")
                    || name.eq_ignore_ascii_case("-webkit-image-set")
                {
                    Context::ImageSet
                } else {
                    Context::Plain
                };
                nested(parser, inner, found);
            }
            Token::ParenthesisBlock | Token::SquareBracketBlock | Token::CurlyBracketBlock => {
                nested(parser, Context::Plain, found);
            }
            _ => {}
        }
        after_import = was_import;
    }
}

fn nested(parser: &mut Parser<'_, '_>, context: Context, found: &mut Vec<CssUrl>) {
    let _ = parser.parse_nested_block(|inner| -> Result<(), cssparser::ParseError<'_, ()>> {
        walk_css(inner, context, found);
        Ok(())
    });
}

/// A URL written as a CSS token of the form `like` was: a string with the same quote,
/// or `url(…)`.
pub(crate) fn css_token(url: &str, quote: Option<char>) -> String {
    match quote {
        None => Token::UnquotedUrl(url.into()).to_css_string(),
        Some(quote) => {
            let mut out = String::with_capacity(url.len() + 2);
            out.push(quote);
            for c in url.chars() {
                match c {
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\a "),
                    c if c == quote => {
                        out.push('\\');
                        out.push(c);
                    }
                    c => out.push(c),
                }
            }
            out.push(quote);
            out
        }
    }
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

/// The inline scripts and styles of `html` and their hash sources. `None` when the
/// tokenizer gives up on the document.
pub(crate) fn inline_code(html: &str) -> Option<Inline> {
    #[derive(Default)]
    struct State {
        inline: Inline,
        /// The text of the `<script>` or `<style>` being read, if it counts.
        text: Option<String>,
    }
    let state = RefCell::new(State::default());
    // Where lines end, found once, and only if something is reported.
    let newlines = std::cell::LazyCell::new(|| newline_offsets(html));
    let line = |at: usize| newlines.partition_point(|&newline| newline < at) + 1;
    let finish = |chunk: &lol_html::html_content::TextChunk<'_>, styles: bool| {
        let mut state = state.borrow_mut();
        if let Some(text) = state.text.as_mut() {
            text.push_str(chunk.as_str());
        }
        if chunk.last_in_text_node() {
            if let Some(text) = state.text.take().filter(|text| !text.is_empty()) {
                let hash = csp_hash(&text);
                let list = match styles {
                    true => &mut state.inline.styles,
                    false => &mut state.inline.scripts,
                };
                if !list.contains(&hash) {
                    list.push(hash);
                }
            }
        }
    };
    let settings = RewriteStrSettings {
        element_content_handlers: vec![
            element!("*", |el| {
                let tag = el.tag_name();
                let mut state = state.borrow_mut();
                match tag.as_str() {
                    "script" => {
                        let kind = el.get_attribute("type").unwrap_or_default();
                        state.text =
                            (!el.has_attribute("src") && is_script_type(&kind)).then(String::new);
                    }
                    "style" => state.text = Some(String::new()),
                    _ => {}
                }
                // Counted only for what is reported: a page has few, if any.
                let start = el.source_location().bytes().start;
                let at = std::cell::LazyCell::new(|| line(start));
                for attribute in el.attributes() {
                    let name = attribute.name();
                    let value = attribute.value();
                    let found = if name.starts_with("on") {
                        Some((true, format!("line {}: `{name}` on <{tag}>", *at)))
                    } else if matches!(
                        name.as_str(),
                        "href" | "src" | "action" | "formaction" | "xlink:href"
                    ) && decode_attribute(&value).is_some_and(|url| {
                        url.trim_start()
                            .get(..11)
                            .is_some_and(|scheme| scheme.eq_ignore_ascii_case("javascript:"))
                    }) {
                        Some((
                            true,
                            format!("line {}: a `javascript:` URL in `{name}` of <{tag}>", *at),
                        ))
                    } else if name == "style" {
                        Some((
                            false,
                            format!("line {}: a `style` attribute on <{tag}>", *at),
                        ))
                    } else {
                        None
                    };
                    if let Some((script, what)) = found {
                        state.inline.unhashable.push(Unhashable { script, what });
                    }
                }
                Ok(())
            }),
            text!("script", |chunk| {
                finish(chunk, false);
                Ok(())
            }),
            text!("style", |chunk| {
                finish(chunk, true);
                Ok(())
            }),
        ],
        ..relaxed()
    };
    lol_html::rewrite_str(html, settings).ok()?;
    Some(state.into_inner().inline)
}

/// The byte offsets of the `\n`s of `text`.
fn newline_offsets(text: &str) -> Vec<usize> {
    text.bytes()
        .enumerate()
        .filter(|&(_, b)| b == b'\n')
        .map(|(i, _)| i)
        .collect()
}

/// Whether a `<script type>` is run as script (HTML §4.12.1: no type, a JavaScript
/// MIME type, `module`, or one of the other kinds CSP governs), not a data block.
fn is_script_type(kind: &str) -> bool {
    let kind = kind.trim().to_ascii_lowercase();
    let essence = kind.split(';').next().unwrap_or_default().trim();
    matches!(essence, "" | "module" | "importmap" | "speculationrules")
        || ["javascript", "ecmascript", "jscript", "livescript"]
            .iter()
            .any(|name| essence.ends_with(name) || essence.ends_with(&format!("{name}1.5")))
}

/// The CSP hash source of an element's text: `'sha256-'`, the base64 of the SHA-256
/// of its UTF-8 bytes, `'`. The text is the browser's: the HTML parser turns CR LF and
/// lone CR into LF before anything else.
pub(crate) fn csp_hash(text: &str) -> String {
    use base64::Engine as _;
    use sha2::{Digest, Sha256};
    let normalized = text.replace("\r\n", "\n").replace('\r', "\n");
    let digest = Sha256::digest(normalized.as_bytes());
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

/// A file the `<head>` of a page loads before it can render.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HeadLoad {
    /// The reference as the browser reads it (entities decoded).
    pub(crate) reference: String,
    pub(crate) kind: LoadKind,
    /// The element's `crossorigin` value, if it has one (`""` for anonymous).
    pub(crate) crossorigin: Option<String>,
    /// The element's `integrity` value, if it has one: its preload must carry the same.
    pub(crate) integrity: Option<String>,
}

/// How a [`HeadLoad`] is fetched, which its preload must match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LoadKind {
    /// `<link rel=stylesheet>`.
    Style,
    /// `<script type=module src>`, `<link rel=modulepreload>`.
    Module,
    /// A classic `<script src>`.
    Script,
}

/// The style sheets and scripts the `<head>` of `html` loads, in document order.
/// `None` when the tokenizer gives up on the document.
pub(crate) fn head_loads(html: &str) -> Option<Vec<HeadLoad>> {
    let found = RefCell::new(Vec::new());
    let settings = RewriteStrSettings {
        element_content_handlers: vec![
            element!("head link[href]", |el| {
                let rel = el
                    .get_attribute("rel")
                    .unwrap_or_default()
                    .to_ascii_lowercase();
                let words: Vec<&str> = rel.split_ascii_whitespace().collect();
                let kind = if words.contains(&"stylesheet") && !words.contains(&"alternate") {
                    LoadKind::Style
                } else if words.contains(&"modulepreload") {
                    LoadKind::Module
                } else {
                    return Ok(());
                };
                push_load(&found, el, "href", kind);
                Ok(())
            }),
            element!("head script[src]", |el| {
                let kind = el.get_attribute("type").unwrap_or_default();
                let kind = match kind.trim().to_ascii_lowercase().as_str() {
                    "module" => LoadKind::Module,
                    other if is_script_type(other) => LoadKind::Script,
                    _ => return Ok(()),
                };
                push_load(&found, el, "src", kind);
                Ok(())
            }),
        ],
        ..relaxed()
    };
    lol_html::rewrite_str(html, settings).ok()?;
    Some(found.into_inner())
}

fn push_load(found: &RefCell<Vec<HeadLoad>>, el: &Element<'_, '_>, name: &str, kind: LoadKind) {
    let reference = el
        .get_attribute(name)
        .and_then(|raw| decode_attribute(&raw))
        .map(|url| url.trim().to_owned())
        .filter(|url| !url.is_empty());
    if let Some(reference) = reference {
        let attribute = |name| {
            el.get_attribute(name)
                .and_then(|raw| decode_attribute(&raw))
        };
        found.borrow_mut().push(HeadLoad {
            reference,
            kind,
            crossorigin: attribute("crossorigin"),
            integrity: attribute("integrity"),
        });
    }
}
