//! Runs the phases in order and turns the result into tokens.

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use quote::quote;

use crate::args::{Args, ItemHeader};
use crate::{bundler, codegen, encode, fingerprint, options, scan};

/// The macro's expansion: the table (an expression, or in the item form a `static` and
/// its `paths` module), or our errors next to an empty table.
pub(crate) fn embed_assets(input: TokenStream) -> TokenStream {
    let runtime = runtime_path(&input);
    let item = item_header(&input);
    match try_embed_assets(input) {
        Ok(tokens) => tokens,
        Err(err) => {
            let empty = codegen::empty_assets_with(err, &runtime);
            match item {
                // No `paths` module: its uses fail, but our error comes first.
                Some(ItemHeader { vis, name }) => {
                    quote!(#vis static #name: #runtime::Assets = #empty;)
                }
                None => empty,
            }
        }
    }
}

fn try_embed_assets(input: TokenStream) -> syn::Result<TokenStream> {
    let args: Args = syn::parse2(input)?;
    let options = options::validate(args)?;
    let files = scan::scan_dir(&options)?;
    let mut assets = encode::encode_all(files, &options)?;
    let entries = bundler::apply(&mut assets, &options)?;
    fingerprint::apply(&mut assets, &options)?;
    let table = codegen::assets_expr(
        &assets,
        &options.root,
        &codegen::selection(&options),
        &options.runtime_path,
    );
    let Some(ItemHeader { vis, name }) = &options.item else {
        return Ok(table);
    };
    let runtime = &options.runtime_path;
    let paths = codegen::paths_module(&assets, &entries, vis, options.root_span, runtime)?;
    Ok(quote! {
        #vis static #name: #runtime::Assets = #table;
        #paths
    })
}

/// The `[$crate]` prefix the `embed_runtime::embed_assets!` wrapper adds, found even
/// when the rest does not parse, so the error output still names the runtime.
fn runtime_path(input: &TokenStream) -> TokenStream {
    match input.clone().into_iter().next() {
        Some(TokenTree::Group(group)) if group.delimiter() == Delimiter::Bracket => group.stream(),
        _ => quote!(::embed_runtime),
    }
}

/// `pub static NAME =` when the input starts with it, found even when the rest does
/// not parse, so an error still defines the static and nothing cascades from it.
fn item_header(input: &TokenStream) -> Option<ItemHeader> {
    let parser = |stream: syn::parse::ParseStream<'_>| {
        if stream.peek(syn::token::Bracket) {
            let _runtime: proc_macro2::Group = stream.parse()?;
        }
        let vis: syn::Visibility = stream.parse()?;
        stream.parse::<syn::Token![static]>()?;
        let name: syn::Ident = stream.parse()?;
        let _rest: TokenStream = stream.parse()?;
        Ok(ItemHeader { vis, name })
    };
    syn::parse::Parser::parse2(parser, input.clone()).ok()
}
