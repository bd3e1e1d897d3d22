//! `releases = "releases"`: the hashed files of the earlier releases that
//! `embed_assets_build::Releases` kept, served at their hashed URLs beside this build's
//! files, so that a page of an earlier release still loads what it links to.
//!
//! Each kept release is laid out as a folder in the cache (its files linked from the
//! releases folder's objects) and goes through this build's own phases with this build's
//! options: the same fingerprinting, rewriting and compression, so its hashed URLs are
//! the ones its pages named. Of what comes out, the files at a hashed URL that this
//! build does not serve are kept; pages and other un-hashed files are not (they change
//! in place, and this build has its own).

use std::collections::HashMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use embed_assets_shared::hashed::HashedName;
use embed_assets_shared::release::{self, Kept, Release};
use proc_macro2::Span;
use sha2::{Digest, Sha256};

use crate::errors::{Errors, io_cause};
use crate::model::{Body, EncodedAsset, FileEntry, Pass, Recorded};
use crate::options::Options;
use crate::{blob_cache, delta, pipeline};

/// The `releases` stage: each kept release in the `releases` folder goes through the
/// pipeline again (`Pass::Earlier`) with this build's validated options, its hashed files
/// not served by this build join `assets`, and this build's files get their deltas
/// against the earlier versions; `assets` ends sorted by path, this build's file first.
/// `files` are this build's scanned files. Returns this build's release id, once
/// recorded; `None` without the option.
pub(crate) fn apply(
    options: &Options,
    files: &[FileEntry],
    assets: &mut Vec<EncodedAsset>,
) -> syn::Result<Recorded> {
    let Some(dir) = &options.releases.value else {
        return Ok(Recorded::default());
    };
    let span = options.releases.value_span_or(options.root_span);
    let kept = read(dir, span)?;
    let current = current_id(kept.first(), &options.root, files);
    let cache = blob_cache::cache_dir();
    let mut dropped = Vec::new();
    for (release, listed) in &kept {
        let root = lay_out(dir, release, listed, &cache).map_err(|err| {
            syn::Error::new(
                span,
                format!(
                    "cannot lay out kept release `{}` in `{}`: {}",
                    release.id,
                    cache.display(),
                    io_cause(&err)
                ),
            )
        })?;
        // The same options over the release's folder: its hashed URLs are the ones its
        // pages named. Its pages are not served, so no policy is checked on them.
        let mut earlier_options = options.clone();
        earlier_options.root = root;
        earlier_options.root_display = display(release);
        earlier_options.releases.value = None;
        earlier_options.strict_csp.value = false;
        let (earlier, _, _) = pipeline::run(&earlier_options, Pass::Earlier)
            .map_err(|err| in_release(err, release))?;
        dropped.extend(merge(assets, earlier, release, span)?);
    }
    delta::apply(assets, &dropped, options, span)?;
    // By path, this build's file before earlier releases' at the same path.
    assets.sort_by(|a, b| {
        (&a.url_path, a.release.is_some()).cmp(&(&b.url_path, b.release.is_some()))
    });
    let kept = kept
        .iter()
        .map(|(release, listed)| (release.id.clone(), listed.recorded))
        .collect();
    Ok(Recorded { current, kept })
}

/// The kept releases of `dir`, newest first, each with its list.
pub(crate) fn read(dir: &Path, span: Span) -> syn::Result<Vec<(Kept, Release)>> {
    let shown = dir.display();
    let kept = release::list(dir).map_err(|err| {
        syn::Error::new(
            span,
            format!(
                "cannot read the releases folder `{shown}`: {}",
                io_cause(&err)
            ),
        )
    })?;
    let mut errors = Errors::default();
    let mut read = Vec::new();
    for kept in kept.into_iter().rev() {
        match kept.read() {
            Ok(listed) => read.push((kept, listed)),
            Err(why) => errors.at_span(span, why),
        }
    }
    errors.finish().map(|()| read)
}

/// A kept release as a folder below `cache`, made once (its files are hard links to the
/// releases folder's objects, or copies where links cannot be made).
pub(crate) fn lay_out(
    dir: &Path,
    kept: &Kept,
    listed: &Release,
    cache: &Path,
) -> io::Result<PathBuf> {
    let target = cache.join("releases").join(&kept.id);
    if target.is_dir() {
        return Ok(target);
    }
    let partial =
        cache
            .join("releases")
            .join(format!(".{}.{}.partial", kept.id, std::process::id()));
    let _ = fs::remove_dir_all(&partial);
    for (path, hash) in &listed.files {
        let object = dir.join(release::object_path(hash));
        let to = partial.join(path);
        if let Some(parent) = to.parent() {
            fs::create_dir_all(parent)?;
        }
        if fs::hard_link(&object, &to).is_err() {
            fs::copy(&object, &to)?;
        }
    }
    fs::create_dir_all(&partial)?;
    match fs::rename(&partial, &target) {
        Ok(()) => Ok(target),
        // Another compilation laid it out first: the same files.
        Err(_) if target.is_dir() => {
            let _ = fs::remove_dir_all(&partial);
            Ok(target)
        }
        Err(err) => Err(err),
    }
}

/// Adds to `assets` the files of one earlier release (`earlier`, as this build's phases
/// made them from its folder) that are at a hashed URL this build does not serve, marked
/// with the release's id, and returns the others (marked too): the dictionaries of
/// pages, and files this build serves with the same bytes. A hashed URL that names other
/// bytes than this build's, or than a newer release's, is an error naming the release.
pub(crate) fn merge(
    assets: &mut Vec<EncodedAsset>,
    earlier: Vec<EncodedAsset>,
    kept: &Kept,
    span: Span,
) -> syn::Result<Vec<EncodedAsset>> {
    let served: HashMap<String, (String, Option<String>)> = assets
        .iter()
        .flat_map(|asset| {
            let owner = (asset.etag.clone(), asset.release.clone());
            let own = (asset.release.is_none()).then(|| (asset.url_path.clone(), owner.clone()));
            let hashed = asset.fingerprinted.clone().map(|url| (url, owner));
            own.into_iter().chain(hashed)
        })
        .collect();
    let mut errors = Errors::default();
    let mut dropped = Vec::new();
    for mut asset in earlier {
        asset.release = Some(kept.id.clone());
        // Served at a hashed URL: a name later versions differ from by their hash
        // alone (a `hashed` glob may also cover files with no hash in their name).
        let Some(url) = asset
            .fingerprinted
            .clone()
            .filter(|url| HashedName::of(url).is_some())
            .filter(|_| matches!(asset.body, Body::Embedded { .. }))
        else {
            dropped.push(asset);
            continue;
        };
        match served.get(&url) {
            Some((etag, _)) if *etag == asset.etag => dropped.push(asset),
            Some((etag, owner)) => {
                let whose = match owner {
                    Some(id) => format!("release `{id}`"),
                    None => "this build".to_owned(),
                };
                errors.at_span(
                    span,
                    format!(
                        "kept release `{}` (`{}`) has other bytes at `{url}` than {whose} (ETag {} vs {etag}): a hashed URL must name one content. Remove that release's list from the releases folder, or give the file a new name",
                        kept.id,
                        kept.name(),
                        asset.etag
                    ),
                );
            }
            None => assets.push(asset),
        }
    }
    errors.finish().map(|()| dropped)
}

/// The id of the newest kept release when it is this build's folder: every file it lists
/// has the same bytes in the folder, and every file the macro read from the folder to
/// embed is listed. `None` otherwise (a debug build, which records nothing).
pub(crate) fn current_id(
    newest: Option<&(Kept, Release)>,
    root: &Path,
    files: &[FileEntry],
) -> Option<String> {
    let (kept, listed) = newest?;
    let same = |relative: &str, hash: &str| {
        fs::read(root.join(relative))
            .is_ok_and(|bytes| embed_assets_shared::hex(&Sha256::digest(&bytes)) == hash)
    };
    let all_listed_here = listed.files.iter().all(|(path, hash)| same(path, hash));
    let all_here_listed = files
        .iter()
        .filter(|file| file.is_embedded())
        .all(|file| listed.files.contains_key(&file.relative));
    (all_listed_here && all_here_listed).then(|| kept.id.clone())
}

/// Errors from the phases run over an earlier release, named as that release's.
pub(crate) fn in_release(err: syn::Error, kept: &Kept) -> syn::Error {
    let mut errors = Errors::default();
    for one in err {
        errors.at_span(
            one.span(),
            format!("in kept release `{}` (`{}`): {one}", kept.id, kept.name()),
        );
    }
    match errors.finish() {
        Ok(()) => syn::Error::new(Span::call_site(), format!("in kept release `{}`", kept.id)),
        Err(err) => err,
    }
}

/// The root shown in messages about a kept release's laid-out folder.
pub(crate) fn display(kept: &Kept) -> String {
    format!("release {}", kept.id)
}
