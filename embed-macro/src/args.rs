//! Syntax of the macro input: `[$crate] "dir", key = value, ...`, or in item position
//! `[$crate] pub static NAME = "dir", key = value, ...`.
//!
//! Only the shape is checked here; what the keys and values mean is `options.rs`'s job,
//! so that one malformed token stops parsing but every semantic mistake is reported.

use proc_macro2::{Span, TokenStream};
use syn::ext::IdentExt;
use syn::parse::{Parse, ParseStream};
use syn::{bracketed, Expr, Ident, LitStr, Token};

/// The parsed macro input.
pub(crate) struct Args {
    /// The runtime's path as passed by the `embed_runtime::embed_assets!` wrapper
    /// (`$crate`), absent when the proc macro is called directly.
    pub(crate) runtime_path: Option<TokenStream>,
    /// `pub static NAME =`: the item form, which also defines a `paths` module.
    pub(crate) item: Option<ItemHeader>,
    /// The folder literal, exactly as written.
    pub(crate) path: LitStr,
    /// `key = value` pairs in source order, duplicates included.
    pub(crate) options: Vec<KeyValue>,
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

impl Parse for Args {
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
        if input.is_empty() {
            return Err(syn::Error::new(
                Span::call_site(),
                "expected the folder to embed, relative to the crate root: `embed_assets!(\"public\")`",
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
        Ok(Args {
            runtime_path,
            item,
            path,
            options,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    #[test]
    fn parses_path_and_options_in_order() {
        let args: Args =
            syn::parse2(quote!("public", max_embed_size = "1 MiB", gzip = false,)).unwrap();
        assert_eq!(args.path.value(), "public");
        let keys: Vec<String> = args.options.iter().map(|o| o.key.to_string()).collect();
        assert_eq!(keys, ["max_embed_size", "gzip"]);
        assert!(args.runtime_path.is_none());
    }

    #[test]
    fn accepts_crate_as_a_key_and_the_hidden_runtime_prefix() {
        let args: Args = syn::parse2(quote!([::rt] "public", crate = ::my::rt)).unwrap();
        assert_eq!(
            args.runtime_path.unwrap().to_string(),
            quote!(::rt).to_string()
        );
        assert_eq!(args.options[0].key.to_string(), "crate");
    }

    #[test]
    fn parses_the_item_form() {
        let args: Args =
            syn::parse2(quote!([::rt] pub(crate) static SITE = "public", gzip = false)).unwrap();
        let item = args.item.unwrap();
        assert_eq!(item.name.to_string(), "SITE");
        assert!(matches!(item.vis, syn::Visibility::Restricted(_)));
        assert_eq!(args.path.value(), "public");
        let private: Args = syn::parse2(quote!(static SITE = "public")).unwrap();
        assert!(matches!(
            private.item.unwrap().vis,
            syn::Visibility::Inherited
        ));
        assert!(syn::parse2::<Args>(quote!(static SITE "public")).is_err());
        assert!(syn::parse2::<Args>(quote!(pub static = "public")).is_err());
    }

    #[test]
    fn rejects_missing_path_and_non_literal_path() {
        assert!(syn::parse2::<Args>(quote!()).is_err());
        assert!(syn::parse2::<Args>(quote!(public)).is_err());
        assert!(syn::parse2::<Args>(quote!("public", gzip)).is_err());
        assert!(syn::parse2::<Args>(quote!("public" gzip = true)).is_err());
    }
}
