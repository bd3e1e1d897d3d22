//! A page's inline scripts and styles, with the CSP hash source of each, and the inline
//! code no hash can allow (event handler attributes, `javascript:` URLs).

use std::cell::RefCell;

use lol_html::{RewriteStrSettings, element, text};

use super::{decode_attribute, is_script_type, relaxed};
use crate::model::{Inline, Unhashable};

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

/// The CSP hash source of an element's text: `'sha256-'`, the base64 of the SHA-256
/// of its UTF-8 bytes, `'`. The text is the browser's: the HTML parser turns CR LF and
/// lone CR into LF before anything else.
fn csp_hash(text: &str) -> String {
    use base64::Engine as _;
    use sha2::{Digest, Sha256};
    let normalized = text.replace("\r\n", "\n").replace('\r', "\n");
    let digest = Sha256::digest(normalized.as_bytes());
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}
