//! Content-hashed URLs (`/js/app.3f2a1b9c.js`) and the `paths` module of the item form.

use std::collections::HashMap;

use proc_macro2::{Span, TokenStream};
use quote::quote;

use crate::encode::{Body, EncodedAsset};
use crate::errors::Errors;
use crate::options::Options;

/// Hex digits of the content hash in a fingerprinted name: 32 bits, as bundlers use.
/// Two versions of one file colliding only costs a stale cache for that file.
const HASH_DIGITS: usize = 8;

/// Gives every embedded asset the options select its fingerprinted URL. A file on disk
/// is never fingerprinted: its bytes can change after the build, the URL could not.
pub(crate) fn apply(assets: &mut [EncodedAsset], options: &Options) -> syn::Result<()> {
    let Some(fingerprint) = &options.fingerprint else {
        return Ok(());
    };
    for asset in assets.iter_mut() {
        let relative = asset.url_path.trim_start_matches('/');
        if matches!(asset.body, Body::Embedded { .. }) && fingerprint.covers(relative) {
            asset.fingerprinted = Some(hashed_url(&asset.url_path, &asset.etag));
        }
    }
    // A hashed URL must not shadow a file of the folder (`app.3f2a1b9c.js` committed
    // next to `app.js`), nor another hashed URL.
    let mut errors = Errors::default();
    let mut taken: HashMap<&str, &str> = assets
        .iter()
        .map(|a| (a.url_path.as_str(), a.url_path.as_str()))
        .collect();
    for asset in assets.iter() {
        let Some(url) = &asset.fingerprinted else {
            continue;
        };
        if let Some(other) = taken.insert(url, &asset.url_path) {
            errors.at_span(
                options.root_span,
                format!(
                    "the fingerprinted URL of `{}` is `{url}`, which `{other}` already answers to; rename or `exclude` one of them",
                    asset.url_path
                ),
            );
        }
    }
    errors.finish()
}

/// `/js/app.js` with ETag `"3f2a1b9c…"` → `/js/app.3f2a1b9c.js`; the hash goes before
/// the last extension (`app.min.js` → `app.min.<hash>.js`), or at the end without one.
pub(crate) fn hashed_url(url_path: &str, etag: &str) -> String {
    let hash: String = etag.trim_matches('"').chars().take(HASH_DIGITS).collect();
    let (dir, name) = url_path.rsplit_once('/').unwrap_or(("", url_path));
    match name.rsplit_once('.') {
        // A leading dot is part of the name (`.htaccess`), not an extension.
        Some((stem, ext)) if !stem.is_empty() => format!("{dir}/{stem}.{hash}.{ext}"),
        _ => format!("{dir}/{name}.{hash}"),
    }
}

/// `pub mod paths { pub const JS_APP_JS: &str = "/js/app.3f2a1b9c.js"; … }`: the URL
/// each file is best requested at (its fingerprinted one when it has one), as a
/// constant, so a mistyped asset name fails the build.
pub(crate) fn paths_module(
    assets: &[EncodedAsset],
    vis: &syn::Visibility,
    root_span: Span,
) -> syn::Result<TokenStream> {
    let mut errors = Errors::default();
    let mut names: HashMap<String, &str> = HashMap::new();
    let mut consts = Vec::with_capacity(assets.len());
    for asset in assets {
        let name = const_name(&asset.url_path);
        if let Some(other) = names.insert(name.clone(), &asset.url_path) {
            errors.at_span(
                root_span,
                format!(
                    "`{other}` and `{}` would both be `paths::{name}`; rename or `exclude` one of them",
                    asset.url_path
                ),
            );
            continue;
        }
        let ident = syn::Ident::new(&name, Span::call_site());
        let url = asset.fingerprinted.as_deref().unwrap_or(&asset.url_path);
        let doc = format!("`{}`", asset.url_path);
        consts.push(quote! {
            #[doc = #doc]
            pub const #ident: &str = #url;
        });
    }
    errors.finish()?;
    Ok(quote! {
        /// The URL of every embedded file, fingerprinted where it is: use these in
        /// templates, so a mistyped asset name fails the build.
        #vis mod paths {
            #(#consts)*
        }
    })
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
    use std::path::PathBuf;

    fn asset(url: &str, etag: &str) -> EncodedAsset {
        EncodedAsset {
            url_path: url.into(),
            content_type: "text/javascript".into(),
            last_modified: "Wed, 01 Jan 2025 00:00:00 GMT".into(),
            modified: 0,
            len: 1,
            etag: etag.into(),
            body: Body::Embedded {
                identity: PathBuf::from("/x"),
                source: PathBuf::from("/x"),
                store_identity: true,
                gzip: None,
                br: None,
                zstd: None,
            },
            fingerprinted: None,
        }
    }

    fn options(value: TokenStream) -> Options {
        let args = syn::parse2(quote!("src", fingerprint = #value)).unwrap();
        crate::options::validate(args).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn true_covers_all_but_pages_and_globs_cover_their_matches() {
        let mut assets = vec![asset("/app.js", ETAG), asset("/index.html", ETAG)];
        apply(&mut assets, &options(quote!(true))).unwrap();
        assert_eq!(assets[0].fingerprinted.as_deref(), Some("/app.3f2a1b9c.js"));
        assert_eq!(assets[1].fingerprinted, None);
        let mut assets = vec![asset("/app.js", ETAG), asset("/app.css", ETAG)];
        apply(&mut assets, &options(quote!("*.css"))).unwrap();
        assert_eq!(assets[0].fingerprinted, None);
        assert_eq!(
            assets[1].fingerprinted.as_deref(),
            Some("/app.3f2a1b9c.css")
        );
    }

    #[test]
    fn a_hashed_url_that_names_a_file_is_an_error() {
        let mut assets = vec![asset("/app.3f2a1b9c.js", "\"00\""), asset("/app.js", ETAG)];
        let err = apply(&mut assets, &options(quote!(true))).unwrap_err();
        assert!(
            err.to_string().contains("`/app.js` is `/app.3f2a1b9c.js`"),
            "{err}"
        );
    }

    #[test]
    fn colliding_constant_names_are_an_error() {
        let assets = [asset("/a-b.js", ETAG), asset("/a_b.js", ETAG)];
        let vis = syn::Visibility::Inherited;
        let err = paths_module(&assets, &vis, Span::call_site()).unwrap_err();
        assert!(
            err.to_string().contains("would both be `paths::A_B_JS`"),
            "{err}"
        );
    }

    const ETAG: &str = "\"3f2a1b9c0d1e2f3a4b5c6d7e8f901234\"";

    #[test]
    fn the_hash_goes_before_the_last_extension() {
        assert_eq!(hashed_url("/js/app.js", ETAG), "/js/app.3f2a1b9c.js");
        assert_eq!(hashed_url("/app.min.css", ETAG), "/app.min.3f2a1b9c.css");
        assert_eq!(hashed_url("/LICENSE", ETAG), "/LICENSE.3f2a1b9c");
        assert_eq!(
            hashed_url("/a/.well-known", ETAG),
            "/a/.well-known.3f2a1b9c"
        );
        assert_eq!(hashed_url("/dir.v2/file", ETAG), "/dir.v2/file.3f2a1b9c");
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
}
