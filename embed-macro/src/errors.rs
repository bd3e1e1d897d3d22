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
