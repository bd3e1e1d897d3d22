//! The macro's phases in order, for both forms: the options (`options.rs`, then the
//! checks between them in `check.rs`), this build's folder through the pipeline
//! (`pipeline.rs`), the on-disk notice (`on_disk.rs`), the kept releases (`releases.rs`),
//! then the tokens (`codegen.rs`). The syntax of each form is `args.rs`'s; what is here
//! besides is how each form hands back its errors.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use syn::ext::IdentExt;

use crate::args::{Args, CallInput, ItemHeader, declared_runtime, item_header, runtime_path};
use crate::errors::Errors;
use crate::model::{EncodedAsset, Entry, Pass, Recorded};
use crate::options::{self, Options};
use crate::{check, codegen, fingerprint, on_disk, pipeline, releases, scan};

/// The names the attribute form defines in the module.
const ASSETS: &str = "ASSETS";
const PATHS: &str = "paths";

/// The function-like macro's expansion: the table (an expression, or in the item form
/// a `static` and its `paths` module), or our errors next to an empty table.
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
    let CallInput {
        runtime_path,
        item,
        args,
    } = syn::parse2(input)?;
    let expansion = run_phases(&args, runtime_path)?;
    match &item {
        None => Ok(expansion.table()),
        Some(ItemHeader { vis, name }) => expansion.items(vis, name),
    }
}

/// `#[embed("dir", ...)] mod name { ... }`: the module with its own items, then
/// `pub static ASSETS` and `pub mod paths`. On an error, the item comes back as it was
/// written (with `ASSETS` as an empty table where it can be), so our error is the
/// one the user sees.
pub(crate) fn embed(attr: TokenStream, item: TokenStream) -> TokenStream {
    let module = match syn::parse2::<syn::Item>(item.clone()) {
        Ok(syn::Item::Mod(module)) => module,
        Ok(other) => return with_errors(item, not_a_module(&other)),
        Err(err) => return with_errors(item, err),
    };
    let Some((_, items)) = &module.content else {
        let name = &module.ident;
        let err = syn::Error::new_spanned(
            &module,
            format!(
                "`#[embed]` fills the module with `ASSETS` and `paths`, so it needs an inline module: write `mod {name} {{}}` here, not `mod {name};`"
            ),
        );
        // Given back inline and empty: `mod name;` would make rustc look for
        // `name.rs` and report that first; this way our error is the one to read.
        let mut inline = module.clone();
        inline.content = Some((syn::token::Brace::default(), Vec::new()));
        inline.semi = None;
        let runtime = Args::parse_attribute(attr)
            .ok()
            .and_then(|args| declared_runtime(&args))
            .unwrap_or_else(|| quote!(::embed_assets));
        return fill_module(inline, empty_static(err, &runtime));
    };
    if let Err(err) = check_names_are_free(items) {
        return with_errors(item, err);
    }
    let args = match Args::parse_attribute(attr) {
        Ok(args) => args,
        Err(err) => {
            let runtime = quote!(::embed_assets);
            return fill_module(module, empty_static(err, &runtime));
        }
    };
    match try_embed(&args) {
        Ok(generated) => fill_module(module, generated),
        Err(err) => {
            let runtime = declared_runtime(&args).unwrap_or_else(|| quote!(::embed_assets));
            fill_module(module, empty_static(err, &runtime))
        }
    }
}

fn try_embed(args: &Args) -> syn::Result<TokenStream> {
    let vis: syn::Visibility = syn::parse_quote!(pub);
    let name = syn::Ident::new(ASSETS, Span::call_site());
    run_phases(args, None)?.items(&vis, &name)
}

/// What the phases make of one invocation.
struct Expansion {
    options: Options,
    /// This build's files, then earlier releases' (sorted by path).
    assets: Vec<EncodedAsset>,
    /// The entry points of a Vite manifest.
    entries: Vec<Entry>,
    /// This build's release id and the kept releases (`releases.rs`).
    releases: Recorded,
    /// The build's warnings, each with the name of the item that carries it, its text
    /// and where it points: files left on disk (`on_disk.rs`), symbolic links skipped
    /// (`scan.rs`).
    warnings: Vec<(&'static str, String, Span)>,
}

impl Expansion {
    /// `static NAME: Assets = <table>;` and its `paths` module: the item form and the
    /// attribute's module.
    fn items(&self, vis: &syn::Visibility, name: &syn::Ident) -> syn::Result<TokenStream> {
        let runtime = &self.options.runtime_path.value;
        let paths = codegen::paths_module(
            &self.assets,
            &self.entries,
            vis,
            self.options.root_span,
            runtime,
        )?;
        let assets =
            codegen::static_item(vis, name, runtime, self.table(), &self.options.root_display);
        Ok(quote! {
            #assets
            #paths
        })
    }

    /// The `Assets` expression, the same in both forms.
    fn table(&self) -> TokenStream {
        let selection = codegen::selection(&self.options);
        let table = codegen::assets_expr(
            &self.assets,
            &self.options.root,
            &selection,
            &self.releases,
            &self.options.runtime_path.value,
        );
        self.warnings
            .iter()
            .fold(table, |table, (what, message, span)| {
                codegen::with_warning(table, what, message, *span)
            })
    }
}

/// The phases, shared by both forms: the options and the checks between them, this
/// build's folder through the pipeline, the on-disk notice, then the kept releases'
/// passes and the deltas against them. The tokens are [`Expansion`]'s.
fn run_phases(args: &Args, runtime: Option<TokenStream>) -> syn::Result<Expansion> {
    let (options, errors) = checked_options(args, runtime);
    let options = with_folder_mistakes(options, errors)?;
    let (mut assets, entries, files) = pipeline::run(&options, Pass::Current)?;
    let warnings = [
        (
            "FILES_SERVED_FROM_DISK",
            on_disk::notice(&assets, &options)?,
        ),
        (
            "SYMBOLIC_LINKS_SKIPPED",
            scan::skipped_links_notice(&options),
        ),
    ]
    .into_iter()
    .filter_map(|(what, notice)| notice.map(|(message, span)| (what, message, span)))
    .collect();
    let releases = releases::apply(&options, &files, &mut assets)?;
    Ok(Expansion {
        options,
        assets,
        entries,
        releases,
        warnings,
    })
}

/// Each option's value (`options.rs`), then how they relate (`check.rs`): every mistake
/// that needs no folder, with the options (each wrong one at its default) either way.
fn checked_options(args: &Args, runtime: Option<TokenStream>) -> (Options, Errors) {
    let (options, mut errors) = options::validate_collecting(args, runtime);
    check::cross_options(&options, &mut errors);
    (options, errors)
}

/// The options, or every mistake in them at once: with those that need the folder
/// (an `include` or `fingerprint` pattern matching nothing), each wrong option at its
/// default meanwhile, so one round of fixes is enough.
fn with_folder_mistakes(options: Options, mut errors: Errors) -> syn::Result<Options> {
    if !errors.is_empty() && !options.root.as_os_str().is_empty() {
        let files = scan::walk(&options, Pass::Current, &mut errors);
        fingerprint::check_patterns(&files, &options, &mut errors);
    }
    errors.finish().map(|()| options)
}

/// The options of a function-like call's tokens as the macro checks them before it
/// reads the folder, for the phases' unit tests.
#[cfg(test)]
pub(crate) fn parse_call(tokens: TokenStream) -> syn::Result<Options> {
    let input: CallInput = syn::parse2(tokens)?;
    let (options, errors) = checked_options(&input.args, input.runtime_path);
    errors.finish().map(|()| options)
}

/// The messages of [`parse_call`]'s errors, in order; none when the options are fine.
#[cfg(test)]
pub(crate) fn call_messages(tokens: TokenStream) -> Vec<String> {
    match parse_call(tokens) {
        Ok(_) => Vec::new(),
        Err(err) => err.into_iter().map(|e| e.to_string()).collect(),
    }
}

/// `module` with `generated` appended to its items.
fn fill_module(mut module: syn::ItemMod, generated: TokenStream) -> TokenStream {
    if let Some((_, items)) = &mut module.content {
        items.push(syn::Item::Verbatim(generated));
    }
    module.into_token_stream()
}

/// `pub static ASSETS` as an empty table next to the errors, so uses of it type-check.
fn empty_static(err: syn::Error, runtime: &TokenStream) -> TokenStream {
    let empty = codegen::empty_assets_with(err, runtime);
    let name = syn::Ident::new(ASSETS, Span::call_site());
    quote!(pub static #name: #runtime::Assets = #empty;)
}

/// The item as written, then the errors.
fn with_errors(item: TokenStream, err: syn::Error) -> TokenStream {
    let errors = err.to_compile_error();
    quote!(#item #errors)
}

/// The error for an attribute on anything but a module, at the item's keyword and name.
fn not_a_module(item: &syn::Item) -> syn::Error {
    let (what, culprit): (&str, TokenStream) = match item {
        syn::Item::Fn(f) => ("a function", head(&f.sig.fn_token, &f.sig.ident)),
        syn::Item::Struct(s) => ("a struct", head(&s.struct_token, &s.ident)),
        syn::Item::Enum(e) => ("an enum", head(&e.enum_token, &e.ident)),
        syn::Item::Static(s) => ("a static", head(&s.static_token, &s.ident)),
        syn::Item::Const(c) => ("a constant", head(&c.const_token, &c.ident)),
        syn::Item::Trait(t) => ("a trait", head(&t.trait_token, &t.ident)),
        syn::Item::Type(t) => ("a type alias", head(&t.type_token, &t.ident)),
        syn::Item::Use(u) => ("a `use`", u.use_token.to_token_stream()),
        syn::Item::Impl(i) => ("an `impl` block", i.impl_token.to_token_stream()),
        other => ("this item", other.to_token_stream()),
    };
    syn::Error::new_spanned(
        culprit,
        format!(
            "`#[embed]` goes on an inline module, not {what}: `#[embed_assets::embed(\"public\")] mod frontend {{}}`"
        ),
    )
}

/// `fn name`, `struct Name`: the smallest tokens that say what an item is.
fn head(keyword: &impl ToTokens, name: &syn::Ident) -> TokenStream {
    quote!(#keyword #name)
}

/// `ASSETS` and `paths` are the attribute's: an item of the module with either name is
/// an error at that name.
fn check_names_are_free(items: &[syn::Item]) -> syn::Result<()> {
    let mut errors = Errors::default();
    for item in items {
        for name in defined_names(item) {
            if name == ASSETS || name == PATHS {
                errors.at(
                    &name,
                    format!(
                        "`#[embed]` defines `{name}` in this module, so it cannot have an item of that name; rename this one"
                    ),
                );
            }
        }
    }
    errors.finish()
}

/// The names `item` puts in its module (a `use` can bring several).
fn defined_names(item: &syn::Item) -> Vec<syn::Ident> {
    let ident = match item {
        syn::Item::Const(i) => Some(&i.ident),
        syn::Item::Enum(i) => Some(&i.ident),
        syn::Item::ExternCrate(i) => Some(i.rename.as_ref().map_or(&i.ident, |(_, r)| r)),
        syn::Item::Fn(i) => Some(&i.sig.ident),
        syn::Item::Mod(i) => Some(&i.ident),
        syn::Item::Static(i) => Some(&i.ident),
        syn::Item::Struct(i) => Some(&i.ident),
        syn::Item::Trait(i) => Some(&i.ident),
        syn::Item::TraitAlias(i) => Some(&i.ident),
        syn::Item::Type(i) => Some(&i.ident),
        syn::Item::Union(i) => Some(&i.ident),
        syn::Item::Macro(i) => i.ident.as_ref(),
        syn::Item::Use(u) => return use_names(&u.tree),
        _ => None,
    };
    ident.map(|i| vec![i.unraw()]).unwrap_or_default()
}

fn use_names(tree: &syn::UseTree) -> Vec<syn::Ident> {
    match tree {
        syn::UseTree::Path(path) => use_names(&path.tree),
        syn::UseTree::Name(name) if name.ident != "self" => vec![name.ident.unraw()],
        syn::UseTree::Name(_) | syn::UseTree::Glob(_) => Vec::new(),
        syn::UseTree::Rename(rename) => vec![rename.rename.unraw()],
        syn::UseTree::Group(group) => group.items.iter().flat_map(use_names).collect(),
    }
}
