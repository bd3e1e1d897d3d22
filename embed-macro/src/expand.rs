//! Runs the phases in order and turns the result into tokens.

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use quote::quote;

use crate::args::Args;
use crate::{codegen, encode, options, scan};

/// The macro's expansion: the table, or our errors next to an empty table.
pub(crate) fn embed_assets(input: TokenStream) -> TokenStream {
    let runtime = runtime_path(&input);
    match try_embed_assets(input) {
        Ok(tokens) => tokens,
        Err(err) => codegen::empty_assets_with(err, &runtime),
    }
}

fn try_embed_assets(input: TokenStream) -> syn::Result<TokenStream> {
    let args: Args = syn::parse2(input)?;
    let options = options::validate(args)?;
    let files = scan::scan_dir(&options)?;
    let assets = encode::encode_all(files, &options)?;
    Ok(codegen::assets_expr(
        &assets,
        &options.root,
        &options.runtime_path,
    ))
}

/// The `[$crate]` prefix the `embed_runtime::embed_assets!` wrapper adds, found even
/// when the rest does not parse, so the error output still names the runtime.
fn runtime_path(input: &TokenStream) -> TokenStream {
    match input.clone().into_iter().next() {
        Some(TokenTree::Group(group)) if group.delimiter() == Delimiter::Bracket => group.stream(),
        _ => quote!(::embed_runtime),
    }
}
