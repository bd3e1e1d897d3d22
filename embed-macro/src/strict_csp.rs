//! `strict_csp = true`: the last check of a folder's pass (`pipeline.rs`), on the pages
//! as they will be served (after the rewrite), whose inline code `encode.rs` recorded.

use proc_macro2::Span;

use crate::errors::Errors;
use crate::model::EncodedAsset;

/// An error at the option for each page with an event handler attribute or a
/// `javascript:` URL, which no hash source allows.
pub(crate) fn check(assets: &[EncodedAsset], span: Span) -> syn::Result<()> {
    let mut errors = Errors::default();
    for asset in assets {
        let Some(inline) = &asset.inline else {
            continue;
        };
        let found: Vec<&str> = inline
            .unhashable
            .iter()
            .filter(|found| found.script)
            .map(|found| found.what.as_str())
            .collect();
        if !found.is_empty() {
            errors.at_span(
                span,
                format!(
                    "`strict_csp = true`: `{}` has inline script that a policy of hashes cannot allow ({}); attach handlers from a script (`addEventListener`) instead",
                    asset.url_path,
                    found.join("; ")
                ),
            );
        }
    }
    errors.finish()
}
