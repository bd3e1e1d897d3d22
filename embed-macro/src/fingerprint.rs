//! Content-hashed URLs (`/js/app.3f2a1b9c.js`): which files get one, and which.

use std::collections::HashMap;

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
        // A bundler's hashed file (`bundler.rs`) already has its fingerprinted URL.
        if asset.fingerprinted.is_none()
            && matches!(asset.body, Body::Embedded { .. })
            && fingerprint.covers(relative)
        {
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
        let Some(url) = asset
            .fingerprinted
            .as_ref()
            .filter(|url| **url != asset.url_path)
        else {
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

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;
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

    fn options(value: proc_macro2::TokenStream) -> Options {
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
}
