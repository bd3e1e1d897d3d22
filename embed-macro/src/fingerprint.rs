//! Content-hashed URLs (`/js/app.3f2a1b9c.js`): which files get one, and which.

use std::collections::HashMap;

use proc_macro2::Span;

use crate::errors::Errors;
use crate::model::{Body, EncodedAsset, FileEntry, Pass};
use crate::options::{Fingerprint, Globs, Options};
use crate::url::hashed_url;

/// Gives every embedded asset the options select its fingerprinted URL. A file on disk
/// is never fingerprinted: its bytes can change after the build, the URL could not.
/// A `fingerprint` pattern that selects no embedded file is an error at that pattern.
pub(crate) fn assign(
    assets: &mut [EncodedAsset],
    options: &Options,
    pass: Pass,
) -> syn::Result<()> {
    let Some(fingerprint) = &options.fingerprint.value else {
        return Ok(());
    };
    let globs = match fingerprint {
        Fingerprint::Matching(globs) => Some(globs),
        Fingerprint::AllButPages => None,
    };
    let patterns = globs.map_or(0, |g| g.patterns.len());
    let mut hits = vec![false; patterns];
    let mut on_disk_hits = vec![false; patterns];
    for asset in assets.iter_mut() {
        let relative = asset.url_path.trim_start_matches('/');
        // A bundler's hashed file (`bundler.rs`) already has its fingerprinted URL.
        if asset.fingerprinted.is_some() {
            continue;
        }
        if !matches!(asset.body, Body::Embedded { .. }) {
            if let Some(globs) = globs {
                globs.mark(relative, &mut on_disk_hits);
            }
            continue;
        }
        if let Some(globs) = globs {
            globs.mark(relative, &mut hits);
        }
        if fingerprint.covers(relative) {
            asset.fingerprinted = Some(hashed_url(&asset.url_path, &asset.etag));
        }
    }
    if pass == Pass::Earlier {
        return Ok(());
    }
    let mut errors = Errors::default();
    if let Some(globs) = globs {
        report_unmatched(globs, &hits, &on_disk_hits, options, &mut errors);
    }
    errors.finish()
}

/// [`assign`]'s check of the `fingerprint` patterns from the scanned names alone, for
/// when other mistakes stop the build before encoding: every mistake is reported in
/// one round. A file over `max_embed_size` that compresses counts as embedded.
pub(crate) fn check_patterns(files: &[FileEntry], options: &Options, errors: &mut Errors) {
    let Some(Fingerprint::Matching(globs)) = &options.fingerprint.value else {
        return;
    };
    let mut hits = vec![false; globs.patterns.len()];
    let mut on_disk_hits = vec![false; globs.patterns.len()];
    for file in files {
        if file.is_embedded() {
            globs.mark(&file.relative, &mut hits);
        } else {
            globs.mark(&file.relative, &mut on_disk_hits);
        }
    }
    report_unmatched(globs, &hits, &on_disk_hits, options, errors);
}

/// An error at each pattern that selects no embedded file: `fingerprint = "yes"`
/// (meant `true`) would otherwise fingerprint nothing, silently.
fn report_unmatched(
    globs: &Globs,
    hits: &[bool],
    on_disk_hits: &[bool],
    options: &Options,
    errors: &mut Errors,
) {
    for (((pattern, span), _), on_disk) in globs
        .patterns
        .iter()
        .zip(hits)
        .zip(on_disk_hits)
        .filter(|((_, hit), _)| !**hit)
    {
        let hint = if *on_disk {
            " (only files served from disk, which are never fingerprinted)"
        } else if pattern.contains(['*', '?', '/', '.', '[', '{']) {
            ""
        } else {
            " (`fingerprint = true` fingerprints every file but HTML pages)"
        };
        errors.at_span(
            *span,
            format!(
                "`fingerprint` pattern `{pattern}` matches no embedded file in `{}`{hint}",
                options.root_display
            ),
        );
    }
}

/// A hashed URL must not shadow a file of the folder (`app.3f2a1b9c.js` committed
/// next to `app.js`), nor another hashed URL. Checked once the URLs are final, after
/// the rewrite phase.
pub(crate) fn check_collisions(assets: &[EncodedAsset], root_span: Span) -> syn::Result<()> {
    let mut errors = Errors::default();
    let mut taken: HashMap<&str, &str> = assets
        .iter()
        .map(|a| (a.url_path.as_str(), a.url_path.as_str()))
        .collect();
    for asset in assets {
        // A bundler's hashed file answers at its own URL only.
        let Some(url) = asset
            .fingerprinted
            .as_ref()
            .filter(|url| **url != asset.url_path)
        else {
            continue;
        };
        if let Some(other) = taken.insert(url, &asset.url_path) {
            errors.at_span(
                root_span,
                format!(
                    "the fingerprinted URL of `{}` is `{url}`, which `{other}` already answers to; rename or `exclude` one of them",
                    asset.url_path
                ),
            );
        }
    }
    errors.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    const ETAG: &str = "\"3f2a1b9c0d1e2f3a4b5c6d7e8f901234\"";
    use quote::quote;
    use std::path::PathBuf;

    fn asset(url: &str, etag: &str) -> EncodedAsset {
        EncodedAsset::new(
            url.into(),
            "text/javascript".into(),
            "Wed, 01 Jan 2025 00:00:00 GMT".into(),
            0,
            1,
            etag.into(),
            Body::Embedded {
                identity: PathBuf::from("/x"),
                source: PathBuf::from("/x"),
                store_identity: true,
                encoded: Vec::new(),
            },
        )
    }

    fn options(value: proc_macro2::TokenStream) -> Options {
        crate::expand::parse_call(quote!("src", fingerprint = #value))
            .unwrap_or_else(|e| panic!("{e}"))
    }

    fn apply(assets: &mut [EncodedAsset], options: &Options) -> syn::Result<()> {
        assign(assets, options, Pass::Current)?;
        check_collisions(assets, options.root_span)
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
    fn a_pattern_that_selects_no_embedded_file_is_an_error_at_it() {
        let mut assets = vec![asset("/app.js", ETAG)];
        let err = apply(&mut assets, &options(quote!(["*.js", "yes", "*.csss"]))).unwrap_err();
        let found: Vec<String> = err.into_iter().map(|e| e.to_string()).collect();
        assert_eq!(
            found,
            [
                "`fingerprint` pattern `yes` matches no embedded file in `src` (`fingerprint = true` fingerprints every file but HTML pages)",
                "`fingerprint` pattern `*.csss` matches no embedded file in `src`",
            ]
        );
        assert_eq!(assets[0].fingerprinted.as_deref(), Some("/app.3f2a1b9c.js"));
        assets.push(asset("/video.mp4", ETAG));
        assets[1].body = Body::OnDisk {
            relative: "video.mp4".into(),
            reason: crate::model::DiskReason::Incompressible,
        };
        let err = apply(&mut assets, &options(quote!("*.mp4"))).unwrap_err();
        assert!(
            err.to_string().contains("only files served from disk"),
            "{err}"
        );
    }
}
