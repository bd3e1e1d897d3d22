//! Collecting every problem before reporting, so the user fixes them in one round.

use std::fmt::Display;

use proc_macro2::Span;
use quote::ToTokens;

/// Every error found so far; combined into one `syn::Error` that shows each at its span.
#[derive(Default)]
pub(crate) struct Errors(Vec<syn::Error>);

impl Errors {
    /// Records an error spanning the tokens of `culprit`.
    pub(crate) fn at(&mut self, culprit: impl ToTokens, msg: impl Display) {
        self.0.push(syn::Error::new_spanned(culprit, msg));
    }

    /// Records an error at `span`.
    pub(crate) fn at_span(&mut self, span: Span, msg: impl Display) {
        self.0.push(syn::Error::new(span, msg));
    }

    /// Whether nothing went wrong so far.
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// How many errors so far.
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// `Ok` when nothing went wrong, else every error at once.
    pub(crate) fn finish(self) -> syn::Result<()> {
        let mut all = self.0.into_iter();
        let Some(mut first) = all.next() else {
            return Ok(());
        };
        first.extend(all);
        Err(first)
    }
}

/// `public` + `css/app.css` → `public/css/app.css`: messages show paths as written.
pub(crate) fn display_path(root_display: &str, relative: &str) -> String {
    if relative.is_empty() {
        return root_display.to_owned();
    }
    format!("{}/{relative}", root_display.trim_end_matches('/'))
}

/// An I/O error's cause, lowercase like the rest of our messages.
pub(crate) fn io_cause(err: &std::io::Error) -> String {
    match err.kind() {
        std::io::ErrorKind::PermissionDenied => "permission denied".to_owned(),
        std::io::ErrorKind::NotFound => "not found".to_owned(),
        _ => {
            let text = err.to_string();
            // Drop the " (os error 13)" suffix: it differs between systems.
            text.split(" (os error")
                .next()
                .unwrap_or(&text)
                .to_lowercase()
        }
    }
}
