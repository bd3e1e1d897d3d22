//! Runs the phases in order and turns the result into tokens, for both forms.

use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};
use quote::{ToTokens, quote};
use syn::ext::IdentExt;

use crate::args::{Args, CallInput, ItemHeader};
use crate::bundler;
use crate::encode::Encoder;
use crate::errors::Errors;
use crate::model::{EncodedAsset, Entry, FileEntry, Pass};
use crate::options::{self, Options};
use crate::{codegen, delta, fingerprint, on_disk, preload, releases, rewrite, scan};

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
    /// This build's release id (`releases.rs`).
    release: Option<String>,
    /// The warning about files left on disk (`on_disk.rs`), and where it points.
    warning: Option<(String, Span)>,
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
            self.release.as_deref(),
            &self.options.runtime_path.value,
        );
        match &self.warning {
            Some((message, span)) => codegen::with_warning(table, message, *span),
            None => table,
        }
    }
}

/// The phases, shared by both forms: the options, this build's folder through the
/// pipeline, the on-disk notice, then the kept releases' passes and the deltas against
/// them.
fn run_phases(args: &Args, runtime: Option<TokenStream>) -> syn::Result<Expansion> {
    let options = validated(args, runtime.clone())?;
    let (mut assets, entries, files) = pipeline(&options, Pass::Current)?;
    let warning = on_disk::notice(&assets, &options)?;
    let release = match &options.releases.value {
        Some(dir) => earlier_releases(args, runtime, &options, dir, &files, &mut assets)?,
        None => None,
    };
    Ok(Expansion {
        options,
        assets,
        entries,
        release,
        warning,
    })
}

/// The options, or every mistake in them at once: with those that need the folder
/// (an `include` or `fingerprint` pattern matching nothing), each wrong option at its
/// default meanwhile, so one round of fixes is enough.
fn validated(args: &Args, runtime: Option<TokenStream>) -> syn::Result<Options> {
    let (options, mut errors) = options::validate_collecting(args, runtime);
    if !errors.is_empty() && !options.root.as_os_str().is_empty() {
        let files = scan::walk(&options, Pass::Current, &mut errors);
        fingerprint::check_patterns(&files, &options, &mut errors);
    }
    errors.finish().map(|()| options)
}

/// The `releases` stage: each kept release in `dir` goes through the pipeline again
/// (`Pass::Earlier`) with this build's options, its hashed files not served by this
/// build join `assets`, and this build's files get their deltas against the earlier
/// versions; `assets` ends sorted by path, this build's file first. Returns this
/// build's release id, once recorded.
fn earlier_releases(
    args: &Args,
    runtime: Option<TokenStream>,
    options: &Options,
    dir: &std::path::Path,
    files: &[FileEntry],
    assets: &mut Vec<EncodedAsset>,
) -> syn::Result<Option<String>> {
    let span = options.releases.value_span_or(options.root_span);
    let kept = releases::read(dir, span)?;
    let current = releases::current_id(kept.first(), &options.root, files);
    let cache = crate::blob_cache::cache_dir();
    let mut dropped = Vec::new();
    for (release, listed) in &kept {
        let root = releases::lay_out(dir, release, listed, &cache).map_err(|err| {
            syn::Error::new(
                span,
                format!(
                    "cannot lay out kept release `{}` in `{}`: {}",
                    release.id,
                    cache.display(),
                    crate::errors::io_cause(&err)
                ),
            )
        })?;
        // The same options over the release's folder: its hashed URLs are the ones its
        // pages named. Its pages are not served, so no policy is checked on them.
        let mut earlier_options = options::validate(args, runtime.clone())?;
        earlier_options.root = root;
        earlier_options.root_display = releases::display(release);
        earlier_options.releases.value = None;
        earlier_options.strict_csp.value = false;
        let (earlier, _, _) = pipeline(&earlier_options, Pass::Earlier)
            .map_err(|err| releases::in_release(err, release))?;
        dropped.extend(releases::merge(assets, earlier, release, span)?);
    }
    delta::apply(assets, &dropped, options, span)?;
    // By path, this build's file before earlier releases' at the same path.
    assets.sort_by(|a, b| {
        (&a.url_path, a.release.is_some()).cmp(&(&b.url_path, b.release.is_some()))
    });
    Ok(current)
}

/// One folder's phases: scan, encode, the bundler's hashed files, fingerprint, rewrite,
/// preload. Also returns the entry points of a Vite manifest and the scanned files.
fn pipeline(
    options: &Options,
    pass: Pass,
) -> syn::Result<(Vec<EncodedAsset>, Vec<Entry>, Vec<FileEntry>)> {
    let files = scan::scan_dir(options, pass)?;
    let encoder = Encoder::new(options);
    let mut assets = encoder.encode_all(&files, options.root_span)?;
    let entries = bundler::apply(&mut assets, options)?;
    fingerprint::assign(&mut assets, options, pass)?;
    if options.rewrite_references.value {
        rewrite::apply(
            &mut assets,
            &files,
            &encoder,
            rewrite::Rules {
                base: options.base.value.as_deref(),
                integrity: options.integrity.value,
            },
            options.root_span,
        )?;
    }
    fingerprint::check_collisions(&assets, options.root_span)?;
    preload::apply(&mut assets, options.base.value.as_deref());
    if options.strict_csp.value {
        check_strict_csp(&assets, options.strict_csp.value_span_or(options.root_span))?;
    }
    Ok((assets, entries, files))
}

/// `strict_csp = true`: an error at the option for each page with an event handler
/// attribute or a `javascript:` URL, which no hash source allows.
fn check_strict_csp(assets: &[EncodedAsset], span: proc_macro2::Span) -> syn::Result<()> {
    let mut errors = crate::errors::Errors::default();
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

/// The `crate = path` of `args`, found even when the options have errors, so the
/// empty table still names the runtime the user pointed at.
fn declared_runtime(args: &Args) -> Option<TokenStream> {
    args.options.iter().find_map(|option| match &option.value {
        syn::Expr::Path(path) if option.key.unraw() == "crate" && path.qself.is_none() => {
            Some(path.path.to_token_stream())
        }
        _ => None,
    })
}

/// The `[$crate]` prefix the `embed_assets::embed_assets!` wrapper adds, found even
/// when the rest does not parse, so the error output still names the runtime.
fn runtime_path(input: &TokenStream) -> TokenStream {
    match input.clone().into_iter().next() {
        Some(TokenTree::Group(group)) if group.delimiter() == Delimiter::Bracket => group.stream(),
        _ => quote!(::embed_assets),
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
