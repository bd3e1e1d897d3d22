//! A request's path → the one thing that answers it: an asset with the header policy
//! of the URL it was reached at, a redirect, 405, or not found. No I/O, no responses.

use std::borrow::Cow;
use std::path::Path;

use embed_assets_shared::select::FileRules;
use http::{HeaderValue, Method};
use percent_encoding::{AsciiSet, CONTROLS, utf8_percent_encode};

use super::config::Config;
use super::head::RequestHead;
use super::options::{DiskFolder, Fields, Options};
use super::tables::Tables;
use crate::asset::Asset;
use crate::negotiate::accepts_html;
use crate::path;
use crate::respond::{self, EmbeddedPolicy};
use crate::table::Assets;

/// Bytes escaped in a redirect's query (RFC 3986 §3.4); not `%`, so the client's own
/// escapes pass through unchanged. Non-ASCII bytes are always escaped.
const QUERY: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'<')
    .add(b'>')
    .add(b'\\')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');

/// Bytes escaped in a redirect's path segment (RFC 3986 §3.3 `pchar` keeps the rest):
/// the query's, and `%`, `/` and `?`, which would read as an escape, a separator or the
/// start of the query.
const SEGMENT: &AsciiSet = &QUERY.add(b'%').add(b'/').add(b'?');

/// The fallback page is the answer at many URLs: caches must revalidate it.
pub(super) static FALLBACK_CACHE_CONTROL: HeaderValue = respond::NO_CACHE;

/// What answers a request.
#[derive(Debug)]
pub(super) enum Target<'t> {
    /// An asset, with the header policy of the URL it was reached at.
    Asset(&'static Asset, Policy<'t>),
    /// 301 to this `Location`.
    Redirect(HeaderValue),
    MethodNotAllowed,
    NotFound,
    /// A version of a content-hashed file that this build does not have (a page of
    /// another release asking for its own): 404, final, and kept by no cache.
    OtherVersion,
    /// Dev mode: a file of the folder that the table does not list (added since the
    /// build), selected by the macro's rules; its path below the folder. It may not
    /// exist: reading it tells.
    DevFile(String),
    /// The list of releases, at `release_endpoint`'s path.
    Releases,
}

/// The header policy of an asset's response: chosen by the URL, not by the asset
/// alone (its own URL, its fingerprinted URL, or the single-page app's fallback).
#[derive(Debug, Clone, Copy)]
pub(super) struct Policy<'t> {
    /// How the asset is answered: the fields added, the header maps built once for
    /// it (`None` where the response is assembled per request: the fallback page, dev
    /// mode, files on disk), whether the choice depended on `Accept`.
    pub(super) answer: EmbeddedPolicy<'t>,
    /// The `header` rules' fields for the asset's path, as a file read from disk
    /// keeps them.
    pub(super) fields: &'t Fields,
}

/// Where a request's path leads, with the policy resolved from the options.
///
/// `tables` are `config`'s; `dev` is dev mode's folder, which a table in dev mode reads
/// its files from.
pub(super) fn route<'t>(
    assets: &'static Assets,
    config: &'t Config,
    tables: &'t Tables,
    dev: Option<&DiskFolder>,
    head: &RequestHead<'_>,
) -> Target<'t> {
    let options = &config.options;
    let method = head.method;
    let get_or_head = is_get_or_head(method);
    // A miss: in dev mode, a file added to the folder since the build may answer it
    // (`path`: the request's path as `find` decoded it, `None` when it refused it).
    let miss = |target, path: Option<&str>| match dev_file(tables.dev_rules.as_ref(), head, path) {
        Some(relative) => Target::DevFile(relative),
        None => target,
    };
    let (asset, index, url) = match find(assets, options, tables, head) {
        Found::Asset(asset, index, url) => (asset, index, url),
        Found::Redirect(location) if get_or_head => return Target::Redirect(location),
        Found::Redirect(_) => return Target::MethodNotAllowed,
        Found::OtherVersion(path) => return miss(Target::OtherVersion, Some(&path)),
        Found::Nothing(path) => return miss(Target::NotFound, path.as_deref()),
    };
    if !get_or_head {
        return Target::MethodNotAllowed;
    }
    let dev = dev.is_some();
    let fields = &tables.fields[index];
    let (cache_control, prebuilt, vary_accept, purge_tags) = match url {
        // In dev mode the file behind a hashed URL can change: no immutable policy;
        // an earlier release's file cannot.
        Url::Fingerprinted if !dev || asset.earlier_release().is_some() => (
            &options.fingerprinted_cache_control,
            Some(tables.prebuilt_fingerprinted[index].as_slice()),
            false,
            tables
                .purge_tags
                .fingerprinted
                .get(index)
                .and_then(Option::as_ref),
        ),
        Url::Own | Url::Fingerprinted => (
            &tables.cache_control[index],
            Some(tables.prebuilt[index].as_slice()).filter(|_| !dev),
            false,
            tables.purge_tags.own.get(index).and_then(Option::as_ref),
        ),
        Url::Fallback => (
            &FALLBACK_CACHE_CONTROL,
            None,
            true,
            tables.purge_tags.own.get(index).and_then(Option::as_ref),
        ),
    };
    let answer = EmbeddedPolicy {
        added: respond::Added {
            cache_control,
            fields: &fields[..],
            shared_deltas: options.shared_deltas,
            purge_tags,
        },
        prebuilt,
        vary_accept,
    };
    Target::Asset(asset, Policy { answer, fields })
}

/// The redirect of a directory named without its slash (`segment`, its last) to it.
pub(super) fn to_directory<'t>(segment: &str, head: &RequestHead<'_>) -> Target<'t> {
    match redirect_to_directory(segment, head.query) {
        Found::Redirect(location) if is_get_or_head(head.method) => Target::Redirect(location),
        Found::Redirect(_) => Target::MethodNotAllowed,
        _ => Target::NotFound,
    }
}

/// The URL an asset was reached at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Url {
    /// Its path, a directory's index or a clean URL.
    Own,
    Fingerprinted,
    /// The single-page app's page for an unknown page-like path.
    Fallback,
}

/// What `find` found; a miss carries the path it decoded, so that nothing decodes it
/// again.
enum Found<'p> {
    Asset(&'static Asset, usize, Url),
    Redirect(HeaderValue),
    /// Another version of a file the table has at a content-hashed URL.
    OtherVersion(Cow<'p, str>),
    /// `None` when the path was refused (see `path::decode`).
    Nothing(Option<Cow<'p, str>>),
}

fn find<'p>(
    assets: &'static Assets,
    options: &Options,
    tables: &Tables,
    head: &RequestHead<'p>,
) -> Found<'p> {
    let hit = |(index, asset, fingerprinted)| {
        let url = if fingerprinted {
            Url::Fingerprinted
        } else {
            Url::Own
        };
        Found::Asset(asset, index, url)
    };
    let at = |index: usize, url| match assets.files().get(index) {
        Some(asset) => Found::Asset(asset, index, url),
        None => Found::Nothing(None),
    };
    let raw = head.path;
    // A path without escapes that is a key of the table is safe by construction
    // (the table is the security model, see `path`): skip the checks.
    if !raw.contains('%') {
        if let Some(found) = assets.lookup(raw) {
            return hit(found);
        }
    }
    let Some(path) = path::decode(raw) else {
        return Found::Nothing(None);
    };
    // Decoded or merged, the path is a new key; borrowed, it is `raw`, already looked up
    // unless it had a `%`.
    if matches!(path, Cow::Owned(_)) || raw.contains('%') {
        if let Some(found) = assets.lookup(&path) {
            return hit(found);
        }
    }
    if let Some(&index) = tables.directories.get(&*path) {
        return match head.mount.filter(|_| &*path == "/") {
            // Mounted at `/static`, the request for `/static` arrives as `/`: redirect
            // to `static/` so the page's relative links resolve.
            Some(mount) => redirect_to_directory(mount, head.query),
            None => at(index, Url::Own),
        };
    }
    if let Some(segment) = tables.bare_directories.get(&*path) {
        return redirect_to_directory(segment, head.query);
    }
    if let Some(&index) = tables.clean.get(&*path) {
        return at(index, Url::Own);
    }
    // Never the single-page app's page: a script loaded as HTML breaks the page that
    // asked, and a cache must not keep the miss past the deploy that brings the file.
    if tables.is_other_version(&path) {
        return Found::OtherVersion(path);
    }
    match options.spa_fallback {
        Some(index) if takes_spa_page(options, head, &path) => at(index, Url::Fallback),
        _ => Found::Nothing(Some(path)),
    }
}

/// Whether `path` is one of `prefixes` or below one, segment by segment: `/api` covers
/// `/api` and `/api/users`, not `/apiary`.
fn is_excluded(prefixes: &[String], path: &str) -> bool {
    prefixes.iter().any(|prefix| {
        path.strip_prefix(prefix.as_str())
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    })
}

/// The path below the dev folder of a GET or HEAD for a file the table does not list,
/// when the macro's rules would have selected it: `path`, decoded and safe (no `.`/`..`
/// segments, see `path`), naming a file (no empty segment, no trailing `/`).
fn dev_file(dev: Option<&FileRules>, head: &RequestHead<'_>, path: Option<&str>) -> Option<String> {
    let dev = dev?;
    if !is_get_or_head(head.method) {
        return None;
    }
    let relative = path?.strip_prefix('/')?;
    let names_a_file = !relative.split('/').any(str::is_empty);
    (names_a_file && dev.selects(Path::new(relative))).then(|| relative.to_owned())
}

fn redirect_to_directory<'p>(segment: &str, query: Option<&str>) -> Found<'p> {
    match directory_location(segment, query) {
        Some(location) => Found::Redirect(location),
        None => Found::Nothing(None),
    }
}

/// No extension in the last segment: `/settings/profile`, not `/app.js`.
fn is_page_like(path: &str) -> bool {
    !path.rsplit('/').next().unwrap_or_default().contains('.')
}

pub(super) fn is_get_or_head(method: &Method) -> bool {
    method == Method::GET || method == Method::HEAD
}

/// Whether a 404 depends on `Accept` (a single-page app's fallback is configured).
pub(super) fn varies_by_accept(config: &Config) -> bool {
    let options = &config.options;
    options.spa_fallback.is_some()
        || options
            .folder_site()
            .is_some_and(|site| site.spa_page.is_some())
}

/// Whether the single-page app's page answers a request for the unknown `path`
/// (decoded): a GET or HEAD of a page-like path from a client that accepts HTML, not
/// below a [`spa_exclude`](crate::ServeAssets::spa_exclude) prefix.
pub(super) fn takes_spa_page(options: &Options, head: &RequestHead<'_>, path: &str) -> bool {
    is_get_or_head(head.method)
        && is_page_like(path)
        && accepts_html(head.headers)
        && !is_excluded(&options.spa_excluded, path)
}

/// `./dir/?query`: relative to the request's own URL, so it is right under any mount
/// prefix (`nest_service`) and can never name another host, whatever the path held.
pub(super) fn directory_location(segment: &str, query: Option<&str>) -> Option<HeaderValue> {
    let mut location = format!("./{}/", utf8_percent_encode(segment, SEGMENT));
    if let Some(query) = query {
        location.push('?');
        // `http::Uri` lets raw UTF-8 into a query: escape it, a Location is a URI.
        location.extend(utf8_percent_encode(query, QUERY));
    }
    HeaderValue::try_from(location).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excluded_prefixes_cover_whole_segments() {
        let prefixes = ["/api".to_owned(), "/admin/tools".to_owned()];
        for (path, excluded) in [
            ("/api", true),
            ("/api/", true),
            ("/api/users/42", true),
            ("/apiary", false),
            ("/v2/api", false),
            ("/admin/tools/x", true),
            ("/admin", false),
            ("/", false),
        ] {
            assert_eq!(is_excluded(&prefixes, path), excluded, "{path}");
        }
        assert!(!is_excluded(&[], "/api"));
    }

    #[test]
    fn directory_locations_stay_relative_and_escaped() {
        let location = |segment, query| directory_location(segment, query).unwrap();
        assert_eq!(location("docs", None), "./docs/");
        assert_eq!(location("docs", Some("a=1")), "./docs/?a=1");
        assert_eq!(location("my dir", None), "./my%20dir/");
        assert_eq!(location("café", None), "./caf%C3%A9/");
        assert_eq!(location("docs", Some("q=café")), "./docs/?q=caf%C3%A9");
        assert_eq!(location("docs", Some("q=%2F/x?y")), "./docs/?q=%2F/x?y");
        // A colon in the first segment would read as a scheme without the `./`.
        assert_eq!(
            location("javascript:alert(1)", None),
            "./javascript:alert(1)/"
        );
    }
}
