//! Syntax of the macro input. Both forms share [`Args`], the folder literal and its
//! `key = value` options:
//! - function-like: `[$crate] "dir", key = value, ...`, or in item position
//!   `[$crate] pub static NAME = "dir", key = value, ...` ([`CallInput`]);
//! - attribute: `#[embed("dir", key = value, ...)]` on an inline module.
//!
//! Only the shape is checked here; what the keys and values mean is `options.rs`'s job,
//! so that one malformed token stops parsing but every semantic mistake is reported.

use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};
use quote::{ToTokens, quote};
use syn::ext::IdentExt;
use syn::parse::{Parse, ParseStream};
use syn::{Expr, Ident, LitStr, Token, bracketed};

/// Which of the two forms is being parsed: only the examples in messages differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Form {
    /// `embed_assets!("public")`, as an expression or an item.
    Call,
    /// `#[embed("public")] mod frontend {}`.
    Attribute,
}

impl Form {
    /// How the folder is written in this form, for messages.
    fn example(self) -> &'static str {
        match self {
            Form::Call => "`embed_assets!(\"public\")`",
            Form::Attribute => "`#[embed_assets::embed(\"public\")]`",
        }
    }
}

/// The folder and its options, as written.
pub(crate) struct Args {
    /// The folder literal, exactly as written.
    pub(crate) path: LitStr,
    /// `key = value` pairs in source order, duplicates included.
    pub(crate) options: Vec<KeyValue>,
}

/// The function-like macro's input: the hidden runtime prefix, the item header, then
/// the arguments.
pub(crate) struct CallInput {
    /// The runtime's path as passed by the `embed_assets::embed_assets!` wrapper
    /// (`$crate`), absent when the proc macro is called directly.
    pub(crate) runtime_path: Option<TokenStream>,
    /// `pub static NAME =`: the item form, which also defines a `paths` module.
    pub(crate) item: Option<ItemHeader>,
    pub(crate) args: Args,
}

/// `pub static ASSETS =` before the folder.
pub(crate) struct ItemHeader {
    pub(crate) vis: syn::Visibility,
    pub(crate) name: Ident,
}

/// One `key = value` option.
pub(crate) struct KeyValue {
    pub(crate) key: Ident,
    pub(crate) value: Expr,
}

impl Parse for CallInput {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let runtime_path = if input.peek(syn::token::Bracket) {
            let inner;
            bracketed!(inner in input);
            Some(inner.parse::<TokenStream>()?)
        } else {
            None
        };
        let item = if input.peek(Token![static]) || input.peek(Token![pub]) {
            let vis: syn::Visibility = input.parse()?;
            input.parse::<Token![static]>()?;
            let name: Ident = input.parse()?;
            input.parse::<Token![=]>().map_err(|err| {
                syn::Error::new(
                    err.span(),
                    format!("expected `=` and the folder: `static {name} = \"public\"`"),
                )
            })?;
            Some(ItemHeader { vis, name })
        } else {
            None
        };
        let args = Args::parse_in(input, Form::Call)?;
        Ok(CallInput {
            runtime_path,
            item,
            args,
        })
    }
}

impl Args {
    /// Parses the folder and the options that follow it, up to the end of `input`.
    pub(crate) fn parse_in(input: ParseStream<'_>, form: Form) -> syn::Result<Self> {
        if input.is_empty() {
            return Err(syn::Error::new(
                Span::call_site(),
                format!(
                    "expected the folder to embed, relative to the crate root: {}",
                    form.example()
                ),
            ));
        }
        let path: LitStr = input.parse().map_err(|err| {
            syn::Error::new(
                err.span(),
                "expected the folder as a string literal, like `\"public\"` (the macro runs before constants exist)",
            )
        })?;
        let mut options = Vec::new();
        while !input.is_empty() {
            input.parse::<Token![,]>()?;
            if input.is_empty() {
                break; // trailing comma
            }
            // `crate` is a keyword; accept it (and any other keyword) as an option name.
            let key = Ident::parse_any(input).map_err(|err| {
                syn::Error::new(
                    err.span(),
                    "expected an option name, like `max_embed_size = \"1 MiB\"`",
                )
            })?;
            if !input.peek(Token![=]) {
                let name = key.unraw();
                return Err(syn::Error::new(
                    key.span(),
                    format!("option `{name}` needs a value: `{name} = ...`"),
                ));
            }
            input.parse::<Token![=]>()?;
            let value: Expr = input.parse()?;
            options.push(KeyValue { key, value });
        }
        Ok(Args { path, options })
    }

    /// Parses the attribute's arguments: `"public", key = value, ...`.
    pub(crate) fn parse_attribute(tokens: TokenStream) -> syn::Result<Self> {
        let parser = |input: ParseStream<'_>| Args::parse_in(input, Form::Attribute);
        syn::parse::Parser::parse2(parser, tokens)
    }
}

/// The `[$crate]` prefix the `embed_assets::embed_assets!` wrapper adds, found even
/// when the rest does not parse, so the error output still names the runtime.
pub(crate) fn runtime_path(input: &TokenStream) -> TokenStream {
    match input.clone().into_iter().next() {
        Some(TokenTree::Group(group)) if group.delimiter() == Delimiter::Bracket => group.stream(),
        _ => quote!(::embed_assets),
    }
}

/// `pub static NAME =` when the input starts with it, found even when the rest does
/// not parse, so an error still defines the static and nothing cascades from it.
pub(crate) fn item_header(input: &TokenStream) -> Option<ItemHeader> {
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

/// The `crate = path` of `args`, found even when the options have errors, so the
/// empty table still names the runtime the user pointed at.
pub(crate) fn declared_runtime(args: &Args) -> Option<TokenStream> {
    args.options.iter().find_map(|option| match &option.value {
        syn::Expr::Path(path) if option.key.unraw() == "crate" && path.qself.is_none() => {
            Some(path.path.to_token_stream())
        }
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn call(tokens: TokenStream) -> syn::Result<CallInput> {
        syn::parse2(tokens)
    }

    #[test]
    fn parses_path_and_options_in_order() {
        let input = call(quote!("public", max_embed_size = "1 MiB", gzip = false,)).unwrap();
        assert_eq!(input.args.path.value(), "public");
        let keys: Vec<String> = input
            .args
            .options
            .iter()
            .map(|o| o.key.to_string())
            .collect();
        assert_eq!(keys, ["max_embed_size", "gzip"]);
        assert!(input.runtime_path.is_none());
    }

    #[test]
    fn accepts_crate_as_a_key_and_the_hidden_runtime_prefix() {
        let input = call(quote!([::rt] "public", crate = ::my::rt)).unwrap();
        assert_eq!(
            input.runtime_path.unwrap().to_string(),
            quote!(::rt).to_string()
        );
        assert_eq!(input.args.options[0].key.to_string(), "crate");
    }

    #[test]
    fn parses_the_item_form() {
        let input = call(quote!([::rt] pub(crate) static SITE = "public", gzip = false)).unwrap();
        let item = input.item.unwrap();
        assert_eq!(item.name.to_string(), "SITE");
        assert!(matches!(item.vis, syn::Visibility::Restricted(_)));
        assert_eq!(input.args.path.value(), "public");
        let private = call(quote!(static SITE = "public")).unwrap();
        assert!(matches!(
            private.item.unwrap().vis,
            syn::Visibility::Inherited
        ));
        assert!(call(quote!(static SITE "public")).is_err());
        assert!(call(quote!(pub static = "public")).is_err());
    }

    #[test]
    fn rejects_missing_path_and_non_literal_path() {
        assert!(call(quote!()).is_err());
        assert!(call(quote!(public)).is_err());
        assert!(call(quote!("public", gzip)).is_err());
        assert!(call(quote!("public" gzip = true)).is_err());
    }

    #[test]
    fn the_attribute_takes_the_folder_and_options_and_nothing_else() {
        let args = Args::parse_attribute(quote!("public", fingerprint = true)).unwrap();
        assert_eq!(args.path.value(), "public");
        assert_eq!(args.options.len(), 1);
        let err = Args::parse_attribute(quote!()).err().unwrap();
        assert!(err.to_string().contains("#[embed_assets::embed"), "{err}");
        assert!(Args::parse_attribute(quote!([::rt] "public")).is_err());
        assert!(Args::parse_attribute(quote!(pub static A = "public")).is_err());
    }
}
