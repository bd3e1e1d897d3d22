//! What the `<head>` of a page loads before it can render: its style sheets, scripts
//! and module preloads, with the attributes their preloads must match.

use std::cell::{Cell, RefCell};

use lol_html::html_content::Element;
use lol_html::{RewriteStrSettings, doctype, element};

use super::{decode_attribute, is_script_type, relaxed};

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

/// Where an inline script that must run before the page's own goes in `html`, as a
/// byte offset: after the `<head>` start tag, or after the `<meta>` in the head that
/// declares the encoding (`charset`, `http-equiv`), which must stay within the first
/// 1024 bytes. Without a `<head>` tag: after the `<html>` start tag, else after the
/// doctype, else at the start. `None` when the tokenizer gives up on the document.
pub(crate) fn script_site(html: &str) -> Option<usize> {
    let end = |el: &Element<'_, '_>| Some(el.source_location().bytes().end);
    let first = |cell: &Cell<Option<usize>>, at: Option<usize>| {
        if cell.get().is_none() {
            cell.set(at);
        }
    };
    let (root, head, meta, doctype_end) = (
        Cell::new(None),
        Cell::new(None),
        Cell::new(None),
        Cell::new(None),
    );
    let settings = RewriteStrSettings {
        element_content_handlers: vec![
            element!("html", |el| {
                first(&root, end(el));
                Ok(())
            }),
            element!("head", |el| {
                first(&head, end(el));
                Ok(())
            }),
            element!("head meta[charset], head meta[http-equiv]", |el| {
                meta.set(end(el));
                Ok(())
            }),
        ],
        document_content_handlers: vec![doctype!(|doctype| {
            first(&doctype_end, Some(doctype.source_location().bytes().end));
            Ok(())
        })],
        ..relaxed()
    };
    lol_html::rewrite_str(html, settings).ok()?;
    Some(
        meta.get()
            .or(head.get())
            .or(root.get())
            .or(doctype_end.get())
            .unwrap_or(0),
    )
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
