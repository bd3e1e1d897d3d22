//! Tokens only: the perfect-hash map, the asset table and the item form's `paths`.

use std::collections::HashMap;
use std::path::Path;

use proc_macro2::{Span, TokenStream};
use quote::quote;

use crate::errors::Errors;
use crate::model::{Body, Encoded, EncodedAsset, Entry, Recorded};
use crate::options::Options;

/// `use <runtime>::__private as __embed;`: the one place the runtime path is spelled.
/// Everything generated below reaches the runtime (and `Some`/`None`) via `__embed`,
/// so the user's scope can shadow any name and a renamed dependency still works.
fn runtime_import(runtime: &TokenStream) -> TokenStream {
    quote!(use #runtime::__private as __embed;)
}

/// The `Assets` expression for `assets` (sorted by URL path).
///
/// `root` is the absolute folder, emitted only when some file stays on disk: the
/// runtime's default place to find it (so `cargo run` just works), and otherwise kept
/// out of the binary for reproducible builds.
pub(crate) fn assets_expr(
    assets: &[EncodedAsset],
    root: &Path,
    selection: &TokenStream,
    releases: &Recorded,
    runtime: &TokenStream,
) -> TokenStream {
    let import = runtime_import(runtime);
    let release = optional_str(releases.current.as_deref());
    let kept = releases.kept.iter().map(|(id, recorded)| {
        let recorded = match recorded {
            Some(secs) => quote!(__embed::Some(#secs)),
            None => quote!(__embed::None),
        };
        quote!(__embed::release(#id, #recorded))
    });
    let root = if assets.iter().any(|a| matches!(a.body, Body::OnDisk { .. })) {
        let root = root.to_string_lossy();
        quote!(__embed::Some(#root))
    } else {
        quote!(__embed::None)
    };
    let count = assets.len();
    // One list of every asset's bodies; each asset refers to its range of it.
    let mut bodies = Bodies::default();
    let files: Vec<TokenStream> = assets
        .iter()
        .enumerate()
        .map(|(i, asset)| asset_tokens(asset, i, &mut bodies))
        .collect();
    let Bodies { consts, list } = bodies;
    let body_count = list.len();
    let map = phf_map(assets);
    quote! {{
        #import
        #(#consts)*
        static BODIES: [__embed::Variant; #body_count] = [#(#list),*];
        static FILES: [__embed::Asset; #count] = [#(#files),*];
        static MAP: __embed::phf::Map<&'static str, u32> = #map;
        __embed::assets(&MAP, &FILES, #root, #selection, #release, &[#(#kept),*])
    }}
}

/// `table` with a warning of `message` at `span`, the place in the user's call it is
/// about. Stable Rust gives a proc macro no warnings of its own, so this is rustc's
/// `deprecated` lint on an item made for it, named `what` (`FILES_SERVED_FROM_DISK`):
/// the message reads `use of deprecated constant `…::<what>`: <message>` and points at
/// `span`.
pub(crate) fn with_warning(
    table: TokenStream,
    what: &str,
    message: &str,
    span: Span,
) -> TokenStream {
    let name = quote::format_ident!("{}", what, span = span);
    let item = quote::format_ident!("{}", what);
    quote! {{
        #[deprecated(note = #message)]
        #[allow(dead_code)]
        const #item: () = ();
        #[allow(clippy::let_unit_value)]
        const _: () = #name;
        #table
    }}
}

/// `static NAME: Assets = <table>;`, documented, for the item and attribute forms.
pub(crate) fn static_item(
    vis: &syn::Visibility,
    name: &syn::Ident,
    runtime: &TokenStream,
    table: TokenStream,
    folder: &str,
) -> TokenStream {
    let doc = format!(" The files of `{folder}`, embedded at compile time.");
    quote! {
        #[doc = #doc]
        #vis static #name: #runtime::Assets = #table;
    }
}

/// The compile errors, then an empty `Assets`, so `static A: Assets = embed_assets!(..)`
/// still type-checks and the user sees our error alone, not a cascade.
pub(crate) fn empty_assets_with(err: syn::Error, runtime: &TokenStream) -> TokenStream {
    let import = runtime_import(runtime);
    let errors = err.to_compile_error();
    quote! {{
        #errors
        #import
        __embed::EMPTY
    }}
}

/// The table's one list of bodies, as `asset_tokens` fills it.
#[derive(Default)]
struct Bodies {
    /// `const` items of bytes used twice: a gzip body the identity bytes are decoded
    /// from (`compressed_only`), named once so the binary holds it once.
    consts: Vec<TokenStream>,
    /// `__embed::body(..)` and `__embed::identity(..)` calls, every asset's in turn.
    list: Vec<TokenStream>,
}

impl Bodies {
    /// Appends one asset's bodies, in the server's order of preference (identity last),
    /// and returns their range of the list as `AssetInit`'s `first` and `count`.
    fn add(&mut self, asset: &EncodedAsset, index: usize) -> TokenStream {
        let start = self.list.len();
        let encoded = asset.deltas.iter().chain(asset.body.encoded());
        // The one `const` of a `compressed_only` asset's gzip body, which both the
        // gzip body and the identity (decoded from it) name.
        let gzip_const = quote::format_ident!("GZIP_{index}");
        let identity = match &asset.body {
            Body::Embedded {
                identity,
                source,
                store_identity,
                ..
            } => {
                // The folder's file is read (so rustc rebuilds when it changes) even
                // when its bytes are not what is stored, but then never used: not in
                // the binary.
                let track = (!*store_identity || identity != source).then(|| include_bytes(source));
                let track = track.iter();
                let stored = match (*store_identity, asset.body.gzip()) {
                    (false, Some(gzip)) => {
                        let name = &gzip_const;
                        let bytes = include_bytes(&gzip.path);
                        self.consts.push(quote!(const #name: &[u8] = #bytes;));
                        quote!(__embed::Identity::FromGzip(#name))
                    }
                    _ => {
                        let bytes = include_bytes(identity);
                        quote!(__embed::Identity::Stored(#bytes))
                    }
                };
                quote!({
                    #(const _: &[u8] = #track;)*
                    #stored
                })
            }
            Body::OnDisk { .. } => quote!(__embed::Identity::OnDisk),
        };
        for body in encoded {
            let bytes = match asset.body.gzip() {
                Some(gzip) if gzip == &body.blob && !asset.body.stores_identity() => {
                    quote!(#gzip_const)
                }
                _ => include_bytes(&body.blob.path),
            };
            self.list.push(body_tokens(body, bytes));
        }
        let (etag, len) = (&asset.etag, asset.len);
        self.list
            .push(quote!(__embed::identity(#etag, #len, #identity)));
        let (first, count) = (start as u32, (self.list.len() - start) as u32);
        quote!(first: #first, count: #count)
    }
}

/// `__embed::body(..)` of a compressed body whose bytes are `bytes`.
fn body_tokens(body: &Encoded, bytes: TokenStream) -> TokenStream {
    let coding = syn::Ident::new(body.coding.runtime, Span::call_site());
    let dictionary = optional_str(body.dictionary.as_deref());
    let etag = &body.blob.etag;
    quote!(__embed::body(__embed::Encoding::#coding, #dictionary, #etag, #bytes))
}

fn asset_tokens(asset: &EncodedAsset, index: usize, bodies: &mut Bodies) -> TokenStream {
    let EncodedAsset {
        url_path,
        content_type,
        last_modified,
        modified,
        len,
        etag: _,
        body,
        fingerprinted,
        integrity,
        inline,
        preload,
        release,
        deltas: _,
        dictionary_match,
    } = asset;
    let bodies = bodies.add(asset, index);
    let dictionary_match = optional_str(dictionary_match.as_deref());
    let page = match inline {
        Some(inline) => {
            let scripts = &inline.scripts;
            let styles = &inline.styles;
            let unhashable = inline.unhashable.iter().map(|found| found.what.as_str());
            quote!(__embed::Some(&__embed::PageInit {
                script_hashes: &[#(#scripts),*],
                style_hashes: &[#(#styles),*],
                unhashable_inline: &[#(#unhashable),*],
                preload_links: &[#(#preload),*],
            }))
        }
        None => quote!(__embed::None),
    };
    let integrity = optional_str(integrity.as_deref());
    // The URL to link to, percent-encoded as the `paths` constants are; written only
    // where encoding changes it (a space, `?`, `#`, non-ASCII), so most files add `None`.
    let link = fingerprinted.as_deref().unwrap_or(url_path);
    let encoded = crate::url::encode_url_path(link);
    let url = if encoded == link {
        quote!(__embed::None)
    } else {
        quote!(__embed::Some(#encoded))
    };
    let fingerprinted = optional_str(fingerprinted.as_deref());
    let release = optional_str(release.as_deref());
    let disk_path = match body {
        Body::Embedded { .. } => quote!(__embed::None),
        Body::OnDisk { relative, .. } => quote!(__embed::Some(#relative)),
    };
    quote! {
        __embed::asset(__embed::AssetInit {
            path: #url_path,
            content_type: #content_type,
            last_modified: #last_modified,
            modified: #modified,
            len: #len,
            fingerprinted: #fingerprinted,
            url: #url,
            integrity: #integrity,
            page: #page,
            release: #release,
            dictionary_match: #dictionary_match,
            bodies: &BODIES,
            #bodies,
            disk_path: #disk_path,
        })
    }
}

/// `Some("…")` or `None`, in the scope of `assets_expr`'s import.
fn optional_str(value: Option<&str>) -> TokenStream {
    match value {
        Some(text) => quote!(__embed::Some(#text)),
        None => quote!(__embed::None),
    }
}

/// The macro's file selection (`Selection`), for dev mode's files added since the
/// build; in the scope of `assets_expr`'s import.
pub(crate) fn selection(options: &Options) -> TokenStream {
    let (dotfiles, follow_symlinks) = (options.dotfiles.value, options.follow_symlinks.value);
    let patterns = |globs: &Option<crate::options::Globs>| -> Vec<String> {
        globs
            .iter()
            .flat_map(|globs| globs.patterns.iter().map(|(pattern, _)| pattern.clone()))
            .collect()
    };
    let (include, exclude) = (
        patterns(&options.include.value),
        patterns(&options.exclude.value),
    );
    quote!(__embed::Selection {
        dotfiles: #dotfiles,
        follow_symlinks: #follow_symlinks,
        include: &[#(#include),*],
        exclude: &[#(#exclude),*],
    })
}

/// `include_bytes!` of an absolute path: no byte literals (slow and memory-hungry in
/// rustc), and rustc tracks the file, so editing it rebuilds.
fn include_bytes(path: &Path) -> TokenStream {
    let path = syn::LitStr::new(&path.to_string_lossy(), Span::call_site());
    quote!(::core::include_bytes!(#path))
}

/// A `phf::Map` from URL path to index in `FILES`, solved at compile time; a
/// fingerprinted URL maps to its file's index with `FINGERPRINTED` set.
fn phf_map(assets: &[EncodedAsset]) -> TokenStream {
    let mut keys: Vec<&str> = Vec::with_capacity(assets.len());
    let mut values: Vec<TokenStream> = Vec::with_capacity(assets.len());
    for (index, asset) in assets.iter().enumerate() {
        let index = index as u32;
        // Its own URL, unless that is its hashed one (a bundler's hashed file: one key)
        // or it is an earlier release's file, served at its hashed URL only.
        let own = asset.release.is_none()
            && asset.fingerprinted.as_deref() != Some(asset.url_path.as_str());
        if own {
            keys.push(&asset.url_path);
            values.push(quote!(#index));
        }
        if let Some(url) = &asset.fingerprinted {
            keys.push(url);
            values.push(quote!(#index | __embed::FINGERPRINTED));
        }
    }
    if keys.is_empty() {
        return quote!(__embed::phf::Map {
            key: 0,
            disps: &[],
            entries: &[]
        });
    }
    // Deterministic: phf_generator seeds its search with a fixed value.
    let state = phf_generator::generate_hash(&keys);
    let key = state.key;
    let disps = state.disps.iter().map(|(d1, d2)| quote!((#d1, #d2)));
    let entries = state.map.iter().map(|&key| {
        let path = keys[key];
        let value = &values[key];
        quote!((#path, #value))
    });
    quote! {
        __embed::phf::Map {
            key: #key,
            disps: &[#(#disps),*],
            entries: &[#(#entries),*],
        }
    }
}

/// `pub mod paths { pub const JS_APP_JS: &str = "/js/app.3f2a1b9c.js"; … }`: the URL
/// each file is best requested at (its fingerprinted one when it has one), as a
/// constant, so a mistyped asset name fails the build. Each is a valid URL path,
/// percent-encoded where the file's name needs it.
pub(crate) fn paths_module(
    assets: &[EncodedAsset],
    entries: &[Entry],
    vis: &syn::Visibility,
    root_span: Span,
    runtime: &TokenStream,
) -> syn::Result<TokenStream> {
    let mut errors = Errors::default();
    // Earlier releases' files are no file of this build to link to.
    let current: Vec<&EncodedAsset> = assets.iter().filter(|a| a.release.is_none()).collect();
    let consts = named_consts(
        &current,
        |asset| &asset.url_path,
        |other, this, name| {
            format!(
                "`{other}` and `{this}` would both be `paths::{name}`; rename or `exclude` one of them"
            )
        },
        |asset, ident| {
            // A valid URL path: escaped where the file's name needs it
            // (`/caf%C3%A9.txt`); the decoded path is in the doc comment and is
            // `Asset::path`.
            let url = crate::url::encode_url_path(
                asset.fingerprinted.as_deref().unwrap_or(&asset.url_path),
            );
            let doc = format!("`{}`", asset.url_path);
            quote! {
                #[doc = #doc]
                pub const #ident: &str = #url;
            }
        },
        root_span,
        &mut errors,
    );
    let entries = entries_module(entries, root_span, runtime, &mut errors);
    errors.finish()?;
    Ok(quote! {
        /// The URL of every embedded file, fingerprinted where it is: use these in
        /// templates, so a mistyped asset name fails the build.
        // Few programs link to every file, and an unused one is no mistake.
        #[allow(dead_code)]
        #vis mod paths {
            #(#consts)*
            #entries
        }
    })
}

/// `pub mod entries { pub const INDEX_HTML: Entry = …; }` for the entry points of a
/// Vite manifest; nothing without one.
fn entries_module(
    entries: &[Entry],
    root_span: Span,
    runtime: &TokenStream,
    errors: &mut Errors,
) -> TokenStream {
    if entries.is_empty() {
        return TokenStream::new();
    }
    let consts = named_consts(
        entries,
        |entry| &entry.source,
        |other, this, name| {
            format!(
                "the Vite entries `{other}` and `{this}` would both be `paths::entries::{name}`"
            )
        },
        |entry, ident| {
            let doc = format!("The entry point `{}` of the Vite build.", entry.source);
            let (file, css, imports) = (&entry.file, &entry.css, &entry.imports);
            quote! {
                #[doc = #doc]
                pub const #ident: #runtime::Entry =
                    #runtime::__private::entry(#file, &[#(#css),*], &[#(#imports),*]);
            }
        },
        root_span,
        errors,
    );
    quote! {
        /// The entry points of the Vite manifest: the script each page loads, with
        /// the stylesheets and chunks it needs, for server-rendered HTML.
        pub mod entries {
            #(#consts)*
        }
    }
}

/// One constant per item, named after `key` (`/css/app.css` → `CSS_APP_CSS`); two items
/// whose names collide are an error (`clash` says which), at the folder.
fn named_consts<T>(
    items: &[T],
    key: impl Fn(&T) -> &str,
    clash: impl Fn(&str, &str, &str) -> String,
    make: impl Fn(&T, syn::Ident) -> TokenStream,
    root_span: Span,
    errors: &mut Errors,
) -> Vec<TokenStream> {
    let mut names: HashMap<String, &str> = HashMap::new();
    let mut consts = Vec::with_capacity(items.len());
    for item in items {
        let key = key(item);
        let name = const_name(key);
        if let Some(other) = names.insert(name.clone(), key) {
            errors.at_span(root_span, clash(other, key, &name));
            continue;
        }
        consts.push(make(item, syn::Ident::new(&name, Span::call_site())));
    }
    consts
}

/// `/css/app.min.css` → `CSS_APP_MIN_CSS`: ASCII letters and digits upper-cased, any
/// other run of characters one `_`, a leading `_` before a digit.
fn const_name(url_path: &str) -> String {
    let mut name = String::with_capacity(url_path.len());
    for c in url_path.trim_start_matches('/').chars() {
        if c.is_ascii_alphanumeric() {
            name.push(c.to_ascii_uppercase());
        } else if !name.ends_with('_') {
            name.push('_');
        }
    }
    let name = name.trim_end_matches('_');
    match name.chars().next() {
        Some(c) if c.is_ascii_alphabetic() => name.to_owned(),
        Some(_) => format!("_{name}"),
        None => "_".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Blob;
    use std::path::PathBuf;

    fn asset(url: &str, body: Body) -> EncodedAsset {
        EncodedAsset::new(
            url.into(),
            "text/css; charset=utf-8".into(),
            "Wed, 01 Jan 2025 00:00:00 GMT".into(),
            1_735_689_600,
            3,
            "\"00\"".into(),
            body,
        )
    }

    fn embedded(gzip: Option<Blob>) -> Body {
        Body::Embedded {
            identity: PathBuf::from("/abs/public/a.css"),
            source: PathBuf::from("/abs/public/a.css"),
            store_identity: true,
            encoded: gzip
                .into_iter()
                .map(|blob| Encoded {
                    coding: &crate::codec::GZIP,
                    dictionary: None,
                    blob,
                })
                .collect(),
        }
    }

    #[test]
    fn output_is_a_well_formed_expression() {
        let blob = Blob {
            path: PathBuf::from("/cache/x.gz9"),
            etag: "\"11\"".into(),
            len: 2,
        };
        let assets = [
            asset("/a.css", embedded(Some(blob))),
            asset(
                "/video.mp4",
                Body::OnDisk {
                    relative: "video.mp4".into(),
                    reason: crate::model::DiskReason::Incompressible,
                },
            ),
        ];
        let tokens = assets_expr(
            &assets,
            Path::new("/abs/public"),
            &quote!(__embed::Selection::DEFAULT),
            &Recorded::default(),
            &quote!(::embed_assets),
        );
        let expr: syn::Expr = syn::parse2(tokens.clone()).unwrap();
        assert!(matches!(expr, syn::Expr::Block(_)));
        let text = tokens.to_string();
        assert!(
            text.contains("include_bytes ! (\"/abs/public/a.css\")"),
            "{text}"
        );
        assert!(
            text.contains("include_bytes ! (\"/cache/x.gz9\")"),
            "{text}"
        );
        assert!(
            text.contains("disk_path : __embed :: Some (\"video.mp4\")"),
            "{text}"
        );
        assert!(
            text.contains("__embed :: body (__embed :: Encoding :: Gzip , __embed :: None"),
            "{text}"
        );
        // Three bodies: the gzip and identity of a.css, the on-disk identity of the video.
        assert!(
            text.contains("static BODIES : [__embed :: Variant ; 3usize]"),
            "{text}"
        );
        assert!(
            text.contains("bodies : & BODIES , first : 2u32 , count : 1u32"),
            "{text}"
        );
        assert!(!text.contains("b\""), "no byte-string literals: {text}");
        assert!(
            text.contains("Some (\"/abs/public\")"),
            "root for on-disk files: {text}"
        );
    }

    #[test]
    fn an_earlier_release_file_is_in_the_map_at_its_hashed_url_only() {
        let mut old = asset("/js/app.js", embedded(None));
        old.fingerprinted = Some("/js/app.0badf00d.js".into());
        old.release = Some("0123456789abcdef".into());
        let mut current = asset("/js/app.js", embedded(None));
        current.fingerprinted = Some("/js/app.3f2a1b9c.js".into());
        let text = phf_map(&[current, old]).to_string();
        assert_eq!(text.matches("\"/js/app.js\"").count(), 1, "{text}");
        assert_eq!(text.matches("\"/js/app.3f2a1b9c.js\"").count(), 1, "{text}");
        assert!(
            text.contains("(\"/js/app.0badf00d.js\" , 1u32 | __embed :: FINGERPRINTED)"),
            "{text}"
        );
    }

    #[test]
    fn every_key_lands_in_the_map_once() {
        let assets: Vec<EncodedAsset> = (0..50)
            .map(|i| asset(&format!("/f{i}.css"), embedded(None)))
            .collect();
        let text = phf_map(&assets).to_string();
        for i in 0..50 {
            assert_eq!(
                text.matches(&format!("\"/f{i}.css\"")).count(),
                1,
                "/f{i}.css"
            );
        }
    }

    #[test]
    fn output_is_deterministic() {
        let assets = [
            asset("/a.css", embedded(None)),
            asset("/b.css", embedded(None)),
        ];
        let runtime = quote!(::embed_assets);
        let root = Path::new("/abs/public");
        let once = assets_expr(
            &assets,
            root,
            &quote!(__embed::Selection::DEFAULT),
            &Recorded::default(),
            &runtime,
        )
        .to_string();
        assert_eq!(
            once,
            assets_expr(
                &assets,
                root,
                &quote!(__embed::Selection::DEFAULT),
                &Recorded::default(),
                &runtime
            )
            .to_string()
        );
        assert!(
            !once.contains("\"/abs/public\""),
            "no absolute root without on-disk files"
        );
    }

    #[test]
    fn errors_come_with_an_empty_table() {
        let err = syn::Error::new(Span::call_site(), "boom");
        let tokens = empty_assets_with(err, &quote!(::rt));
        let text = tokens.to_string();
        assert!(text.contains("compile_error"), "{text}");
        assert!(text.contains("__embed :: EMPTY"), "{text}");
        syn::parse2::<syn::Expr>(tokens).unwrap();
    }

    #[test]
    fn constant_names_are_screaming_snake_case() {
        assert_eq!(const_name("/css/app.min.css"), "CSS_APP_MIN_CSS");
        assert_eq!(const_name("/index.html"), "INDEX_HTML");
        assert_eq!(const_name("/img/2x/logo-big.png"), "IMG_2X_LOGO_BIG_PNG");
        assert_eq!(const_name("/3d.glb"), "_3D_GLB");
        assert_eq!(const_name("/café.txt"), "CAF_TXT");
        assert_eq!(const_name("/a--b__c.js"), "A_B_C_JS");
    }

    #[test]
    fn colliding_constant_names_are_an_error() {
        let assets = [
            asset("/a-b.js", embedded(None)),
            asset("/a_b.js", embedded(None)),
        ];
        let vis = syn::Visibility::Inherited;
        let err = paths_module(
            &assets,
            &[],
            &vis,
            Span::call_site(),
            &quote!(::embed_assets),
        )
        .unwrap_err();
        assert!(
            err.to_string().contains("would both be `paths::A_B_JS`"),
            "{err}"
        );
    }
}
