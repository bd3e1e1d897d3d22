//! The procedural macros behind `embed_assets::embed_assets!` and
//! `#[embed_assets::embed]`.
//!
//! Use it through `embed-assets`, which re-exports it with the path plumbing the
//! generated code needs; this crate on its own only provides the expansion.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

mod args;
mod blob_cache;
mod bundler;
mod check;
mod codec;
mod codegen;
mod delta;
mod encode;
mod errors;
mod expand;
mod fingerprint;
mod folder;
mod interpolate;
mod markup;
mod model;
mod on_disk;
mod opt_level;
mod options;
mod pipeline;
mod preload;
mod releases;
mod reload_guard;
mod rewrite;
mod scan;
mod strict_csp;
mod suggest;
mod url;

use proc_macro::TokenStream;

/// Embeds a folder; see `embed_assets::embed_assets!` for the arguments and the output.
#[proc_macro]
pub fn embed_assets(input: TokenStream) -> TokenStream {
    expand::embed_assets(input.into()).into()
}

/// Embeds a folder into the inline module it annotates; see `embed_assets::embed` for
/// the arguments and the output.
#[proc_macro_attribute]
pub fn embed(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::embed(attr.into(), item.into()).into()
}
