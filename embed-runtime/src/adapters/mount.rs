//! Where a framework's router left a request: the path below the mount point, worked
//! out from the raw path as sent and what the router reports of its match.
//!
//! Routers match decoded segments and report a decoded (or partly decoded) rest,
//! while the core must see the raw rest, escapes and all, exactly once decoded by
//! itself. Each function here lines the router's view up with the raw path. They are
//! plain string arithmetic, apart from the frameworks' types, so the fuzz entry
//! reaches them without any framework built.
// `pub` for the fuzz entry (`__private::fuzz::mount`), which re-exports them; no path of the
// public API reaches this module.
#![allow(unreachable_pub)]

use std::borrow::Cow;

#[cfg(any(feature = "actix-web", feature = "salvo", embed_assets_unstable_fuzz))]
use percent_encoding::percent_decode_str;

use crate::RequestHead;

/// What a request names below the mount point.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Below<'a> {
    /// The raw (still percent-encoded) path after the mount point, starting with `/`
    /// unless the request target itself does not (`*`).
    Path(&'a str),
    /// The mount point named without its trailing slash (`/static`): its path or its
    /// last segment, for the redirect to `./static/`.
    BareMount(Cow<'a, str>),
    /// A prefix that ended inside a segment (only an actix-web regex can do that): no
    /// asset's path.
    #[cfg_attr(
        not(any(feature = "actix-web", embed_assets_unstable_fuzz)),
        allow(dead_code)
    )]
    Unknown,
}

impl<'a> Below<'a> {
    /// `head` relative to the mount point.
    #[cfg_attr(
        not(any(
            feature = "actix-web",
            feature = "rocket",
            feature = "salvo",
            feature = "warp"
        )),
        allow(dead_code)
    )]
    pub(crate) fn place(&'a self, head: RequestHead<'a>) -> RequestHead<'a> {
        match self {
            Below::Path(path) => head.with_path(path),
            Below::BareMount(mount) => head.with_path("/").at_bare_mount(mount),
            Below::Unknown => head.with_path(""),
        }
    }
}

/// actix-web: `raw` is the path as sent; `routed` actix's partly decoded copy of it, of
/// which the router has consumed all but `unprocessed`. The copy has a `/` exactly where
/// the raw path has one (`%2F` stays encoded, no escape decodes to `/`), so the consumed
/// part ends at the same slash in both; the lengths differ (escapes, and invalid UTF-8
/// that turns into U+FFFD). `None` if `unprocessed` is no suffix of `routed` or the
/// slashes do not line up.
#[cfg(any(feature = "actix-web", embed_assets_unstable_fuzz))]
pub fn actix<'a>(raw: &'a str, routed: &str, unprocessed: &str) -> Option<Below<'a>> {
    let consumed = routed.get(..routed.len().checked_sub(unprocessed.len())?)?;
    let slashes = consumed.bytes().filter(|&b| b == b'/').count();
    // The raw path from its `n`th slash (counting from 0) on.
    let from_slash = |n: usize| raw.match_indices('/').nth(n).map(|(at, _)| &raw[at..]);
    let below = if consumed.ends_with('/') {
        // A prefix with a trailing slash (`/static/`) took the rest's slash too, even
        // when another one follows (`/static//x` leaves `/x`).
        Below::Path(from_slash(slashes.checked_sub(1)?)?)
    } else if unprocessed.starts_with('/') {
        Below::Path(from_slash(slashes)?)
    } else if consumed.is_empty() {
        // Nothing routed (the app's default service): all of it, `*` included.
        Below::Path(raw)
    } else if unprocessed.is_empty() {
        // The raw path ends with the mount's last segment. Decoded from the raw path,
        // once: actix's copy is partly decoded already, and decoding it again would
        // turn `%2%62` (`%2b` in the copy) into `+`. Decoded, as the core escapes the
        // segment of its redirect itself.
        let segment = raw.rsplit('/').next().unwrap_or(raw);
        Below::BareMount(percent_decode_str(segment).decode_utf8_lossy())
    } else {
        Below::Unknown
    };
    Some(below)
}

/// Rocket: `raw` (the request's path as sent) without the segments that matched the
/// route's `base`: what follows them, from its `/` on, or the bare mount when the
/// request named the base itself. Rocket matches non-empty, percent-decoded segments,
/// so the base's segments are counted, not compared, over the raw ones.
#[cfg(any(feature = "rocket", embed_assets_unstable_fuzz))]
pub fn rocket<'a>(raw: &'a str, base: &'a str) -> Below<'a> {
    let mut skip = base.split('/').filter(|s| !s.is_empty()).count();
    let mut rest = raw;
    while skip > 0 {
        rest = rest.trim_start_matches('/');
        if rest.is_empty() {
            break;
        }
        rest = rest.find('/').map_or("", |slash| &rest[slash..]);
        skip -= 1;
    }
    if rest.is_empty() {
        Below::BareMount(Cow::Borrowed(base))
    } else {
        Below::Path(rest)
    }
}

/// Salvo: splits the raw `path` of the request URI where the router's wildcard began.
///
/// Salvo's router sees the path as its non-empty `/`-separated segments, each
/// percent-decoded on its own; a `{**rest}` wildcard holds the decoded segments from
/// where it matched, joined with `/`, plus a `/` if the path ends with one (nothing
/// when no segment is left). The raw segments are matched against it from the end;
/// `None` if they do not line up with it (a wildcard inside a segment, a rewritten
/// URI). Without a wildcard (`tail` is `None`), the whole path is relative.
#[cfg(any(feature = "salvo", embed_assets_unstable_fuzz))]
pub fn salvo<'a>(path: &'a str, tail: Option<&str>) -> Option<Below<'a>> {
    let Some(tail) = tail else {
        return Some(Below::Path(path));
    };
    let mut segments = segments_from_the_end(path);
    // Skip the segments the wildcard holds; the next one ends the mount point.
    if !tail.is_empty() {
        let mut rest = if path.ends_with('/') {
            tail.strip_suffix('/')?
        } else {
            tail
        };
        loop {
            let (start, end) = segments.next()?;
            rest = rest.strip_suffix(&*decode(&path[start..end]))?;
            if rest.is_empty() {
                break;
            }
            rest = rest.strip_suffix('/')?;
        }
    }
    let Some((start, end)) = segments.next() else {
        return Some(Below::Path(path));
    };
    match &path[end..] {
        "" => Some(Below::BareMount(decode(&path[start..end]))),
        rest => Some(Below::Path(rest)),
    }
}

/// The byte ranges of the non-empty `/`-separated segments of `path`, last first.
#[cfg(any(feature = "salvo", embed_assets_unstable_fuzz))]
fn segments_from_the_end(path: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut end = path.len();
    path.rsplit('/').filter_map(move |segment| {
        let range = (end - segment.len(), end);
        end = range.0.saturating_sub(1);
        (!segment.is_empty()).then_some(range)
    })
}

/// One segment decoded as Salvo's router decodes it.
#[cfg(any(feature = "salvo", embed_assets_unstable_fuzz))]
fn decode(segment: &str) -> Cow<'_, str> {
    if segment.contains('%') {
        percent_decode_str(segment).decode_utf8_lossy()
    } else {
        Cow::Borrowed(segment)
    }
}

/// warp: the path below the mount point, from the whole path (`warp::path::full`) and
/// the `tail` the path filters before left (`warp::path::tail`, without its leading
/// slash). `None` if `tail` is no suffix of `full` or they left half a segment.
#[cfg(any(feature = "warp", embed_assets_unstable_fuzz))]
pub fn warp<'a>(full: &'a str, tail: &str) -> Option<Below<'a>> {
    // What the filters before took: `/` at the root, `/static/` or `/static` mounted.
    let matched = full.strip_suffix(tail)?;
    if matched.ends_with('/') {
        Some(Below::Path(full.get(matched.len() - 1..)?))
    } else if matched.is_empty() {
        // A target that is not a path (`*`): the service answers it.
        Some(Below::Path(full))
    } else if tail.is_empty() {
        Some(Below::BareMount(Cow::Borrowed(matched)))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(below: Option<Below<'_>>) -> String {
        match below {
            Some(Below::Path(path)) => path.to_owned(),
            Some(Below::BareMount(mount)) => format!("bare {mount}"),
            Some(Below::Unknown) => "unknown".to_owned(),
            None => "none".to_owned(),
        }
    }

    #[cfg(any(feature = "actix-web", embed_assets_unstable_fuzz))]
    #[test]
    fn actix_the_raw_rest_is_cut_at_the_slash_actix_stopped_at() {
        let find = |raw, routed, rest| show(actix(raw, routed, rest));
        // The app's default service: nothing consumed.
        assert_eq!(find("/a%2e%2e/b", "/a../b", "/a../b"), "/a%2e%2e/b");
        assert_eq!(find("*", "*", "*"), "*");
        // A mount at `/static` matched a decoded spelling of it.
        assert_eq!(
            find("/st%61tic/%2e%2e/x", "/static/../x", "/../x"),
            "/%2e%2e/x"
        );
        assert_eq!(find("/static/", "/static/", "/"), "/");
        assert_eq!(find("/static//x", "/static//x", "//x"), "//x");
        // Invalid UTF-8 escapes turn into longer U+FFFD in actix's copy.
        assert_eq!(
            find(
                "/%c0%ae/%c0/x",
                "/\u{FFFD}\u{FFFD}/\u{FFFD}/x",
                "/\u{FFFD}/x"
            ),
            "/%c0/x"
        );
        // `%2F` is never decoded: it is no slash in either.
        assert_eq!(
            find("/static%2Fx/y", "/static%2Fx/y", "/static%2Fx/y"),
            "/static%2Fx/y"
        );
        // A prefix with a trailing slash took the rest's slash.
        assert_eq!(
            find("/static/css/a.css", "/static/css/a.css", "css/a.css"),
            "/css/a.css"
        );
        assert_eq!(find("/static/", "/static/", ""), "/");
        assert_eq!(find("/static//x", "/static//x", "/x"), "//x");
        assert_eq!(find("/caf%C3%A9", "/café", ""), "bare café");
        // A regex prefix that ended inside a segment.
        assert_eq!(find("/static/x", "/static/x", "tatic/x"), "unknown");
        // Not a suffix of the routed copy.
        assert_eq!(find("/static", "/static", "/static/x"), "none");
    }

    #[cfg(any(feature = "actix-web", embed_assets_unstable_fuzz))]
    #[test]
    fn actix_the_bare_mount_point_gives_its_decoded_last_segment() {
        let find = |raw, routed, rest| show(actix(raw, routed, rest));
        assert_eq!(find("/static", "/static", ""), "bare static");
        assert_eq!(find("/a/st%61tic", "/a/static", ""), "bare static");
        assert_eq!(find("/a%25b", "/a%25b", ""), "bare a%b");
        assert_eq!(find("/ab", "/ab", "c"), "unknown");
        // Decoded once, from the raw path: actix's copy holds `%2b` here.
        assert_eq!(find("/ea%2%62%61", "/ea%2ba", ""), "bare ea%2ba");
    }

    #[cfg(any(feature = "rocket", embed_assets_unstable_fuzz))]
    #[test]
    fn rocket_the_path_below_the_base_is_the_raw_rest() {
        let rest = |raw, base| show(Some(rocket(raw, base)));
        assert_eq!(rest("/css/app.css", "/"), "/css/app.css");
        assert_eq!(rest("/", "/"), "/");
        assert_eq!(rest("/%2e%2e/", "/"), "/%2e%2e/");
        assert_eq!(rest("/static/css/app.css", "/static"), "/css/app.css");
        assert_eq!(rest("/static/", "/static"), "/");
        assert_eq!(rest("/static", "/static"), "bare /static");
        // Rocket matched decoded, non-empty segments: count them over the raw path.
        assert_eq!(rest("/%73tatic/a%20b", "/static"), "/a%20b");
        assert_eq!(rest("//static//x", "/static"), "//x");
        assert_eq!(rest("/a/b/c/d", "/a/b/"), "/c/d");
        assert_eq!(rest("/a/b", "/a/b"), "bare /a/b");
    }

    #[cfg(any(feature = "salvo", embed_assets_unstable_fuzz))]
    #[test]
    fn salvo_a_root_wildcard_keeps_the_whole_raw_path() {
        let rel = |path, tail| show(salvo(path, tail));
        assert_eq!(rel("/", Some("")), "/");
        assert_eq!(rel("/css/app.css", Some("css/app.css")), "/css/app.css");
        assert_eq!(rel("//evil.com/", Some("evil.com/")), "//evil.com/");
        assert_eq!(rel("/%2e%2e/x", Some("../x")), "/%2e%2e/x");
        assert_eq!(rel("/a%2Fb", Some("a/b")), "/a%2Fb");
        assert_eq!(rel("/docs/", Some("docs/")), "/docs/");
        // No wildcard: the whole path.
        assert_eq!(rel("/favicon.ico", None), "/favicon.ico");
    }

    #[cfg(any(feature = "salvo", embed_assets_unstable_fuzz))]
    #[test]
    fn salvo_a_mounted_wildcard_keeps_the_raw_rest() {
        let rel = |path, tail| show(salvo(path, tail));
        assert_eq!(rel("/static", Some("")), "bare static");
        assert_eq!(rel("/static/", Some("")), "/");
        assert_eq!(rel("/static//", Some("")), "//");
        assert_eq!(
            rel("/static/css/app.css", Some("css/app.css")),
            "/css/app.css"
        );
        assert_eq!(
            rel("/static//css//app.css/", Some("css/app.css/")),
            "//css//app.css/"
        );
        assert_eq!(rel("/st%61tic/%2e%2e%2Fx", Some("../x")), "/%2e%2e%2Fx");
        assert_eq!(rel("/caf%C3%A9", Some("")), "bare café");
        assert_eq!(rel("/a/b/c/d", Some("c/d")), "/c/d");
        // A tail that does not line up with the raw segments.
        assert_eq!(rel("/staticfoo", Some("foo")), "none");
        assert_eq!(rel("/static/x", Some("y")), "none");
        assert_eq!(rel("/static/x", Some("x/")), "none");
    }

    #[cfg(any(feature = "warp", embed_assets_unstable_fuzz))]
    #[test]
    fn warp_the_path_after_the_mount_keeps_its_slash_and_its_escapes() {
        let split = |full, tail| show(warp(full, tail));
        // At the root, warp leaves everything after the first slash.
        assert_eq!(split("/", ""), "/");
        assert_eq!(split("/css/app.css", "css/app.css"), "/css/app.css");
        assert_eq!(split("/%2e%2e/x", "%2e%2e/x"), "/%2e%2e/x");
        assert_eq!(split("//x", "/x"), "//x");
        assert_eq!(split("*", "*"), "*");
        // After `warp::path("static")`.
        assert_eq!(split("/static/", ""), "/");
        assert_eq!(split("/static/css/a.css", "css/a.css"), "/css/a.css");
        assert_eq!(split("/static//a", "/a"), "//a");
        assert_eq!(split("/static", ""), "bare /static");
        assert_eq!(split("/a/b", ""), "bare /a/b");
        // Not a suffix, or half a segment: nothing to serve.
        assert_eq!(split("/static", "x"), "none");
        assert_eq!(split("/staticx", "x"), "none");
    }
}
