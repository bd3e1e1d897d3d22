//! Where each framework adapter says a mounted request leads: the path below the mount
//! point, from what the framework's router reports of its match.

use std::borrow::Cow;

use percent_encoding::percent_decode_str;

use super::lines;
use embed_assets::__private::fuzz::mount::{Below, actix, rocket, salvo, warp};

/// Fuzz target `mount`: `data` is two lines, the mount point as the request spells it
/// (`/st%61tic/v1`, or empty for a service at the root) and the rest of the request's
/// path (empty, or starting with `/`). From them, the view of each router is built the
/// way the framework documents it, independently of the adapters:
///
/// - actix-web matches its partly decoded copy of the path and leaves the rest
///   (`match_info().unprocessed()`), for a scope at `/static`, at `/static/` (which
///   takes the rest's slash too), and as the app's default service (nothing consumed);
/// - Rocket matches non-empty, percent-decoded segments against the route's base;
/// - Salvo's `{**rest}` wildcard holds the rest's non-empty segments, each decoded,
///   joined with `/`, with a `/` when the path ends with one;
/// - warp's `path("…")` filters compare raw segments, and `path::tail()` leaves the
///   rest without its leading slash.
///
/// Each adapter must then hand the core exactly the raw rest, escapes kept, or say the
/// request named the mount point itself when the rest is empty (with the mount's last
/// segment). For any two lines, whatever they are, every path an adapter returns is a
/// suffix of the raw path: it never makes a path up.
///
/// # Panics
/// When an adapter's answer is not the one the router's view gives.
pub fn check_mount(data: &[u8]) {
    let mut lines = lines(data);
    let (Some(first), Some(second)) = (lines.next(), lines.next()) else {
        return;
    };
    let (Ok(first), Ok(second)) = (std::str::from_utf8(first), std::str::from_utf8(second)) else {
        return;
    };
    any_input(first, second);
    let (Some(spelled), Some(rest)) = (Spelling::of(first), path_chars(second)) else {
        return;
    };
    if !(rest.is_empty() || rest.starts_with('/')) || spelled.segments.is_empty() && rest.is_empty()
    {
        return;
    }
    let raw = format!("{first}{rest}");
    let context = format!("mount {first:?}, rest {rest:?}");
    let expected = |below: &Below<'_>, mount_last: &str, who: &str| {
        if rest.is_empty() {
            let Below::BareMount(mount) = below else {
                panic!("{who}: {context}: the bare mount point gives {below:?}");
            };
            // The mount's name, decoded: the core escapes it in its redirect itself.
            let last = mount.rsplit('/').next().unwrap_or_default();
            assert_eq!(
                last, mount_last,
                "{who}: {context}: the mount point's last segment"
            );
        } else {
            assert_eq!(below, &Below::Path(rest), "{who}: {context}");
        }
    };
    let last_decoded = spelled.decoded.last().map_or("", |s| s.as_ref());

    // Rocket: the route's base is the mount's decoded segments.
    let base = format!("/{}", spelled.decoded.join("/"));
    expected(&rocket(&raw, &base), last_decoded, "rocket");

    // Salvo: `/static/{**rest}` (or `{**rest}` at the root).
    let tail = salvo_tail(rest);
    match salvo(&raw, Some(&tail)) {
        Some(below) => expected(&below, last_decoded, "salvo"),
        None => panic!("salvo: {context}: tail {tail:?} refused"),
    }
    if spelled.segments.is_empty() {
        assert_eq!(
            salvo(&raw, None),
            Some(Below::Path(&raw)),
            "salvo: {context}"
        );
    }

    // warp and actix-web match the mount only as one slash per segment.
    if !spelled.canonical {
        return;
    }
    // warp: `path("static")`, then `path::full()` and `path::tail()`.
    let warp_tail = rest.strip_prefix('/').unwrap_or(rest);
    match warp(&raw, warp_tail) {
        Some(below) => {
            // warp compares raw segments with the literal: the literal is the raw one.
            let literal = spelled.segments.last().copied().unwrap_or_default();
            expected(&below, literal, "warp");
        }
        None => panic!("warp: {context}: tail {warp_tail:?} refused"),
    }

    // actix-web: a scope at `/static` consumed the decoded mount.
    let routed_mount = format!(
        "{}{}",
        if spelled.segments.is_empty() { "" } else { "/" },
        spelled.decoded.join("/")
    );
    let routed_rest = actix_copy(rest);
    let routed = format!("{routed_mount}{routed_rest}");
    match actix(&raw, &routed, &routed_rest) {
        Some(below) if !routed_mount.is_empty() => expected(&below, last_decoded, "actix"),
        Some(below) => assert_eq!(below, Below::Path(&raw), "actix at the root: {context}"),
        None => panic!("actix: {context}: routed {routed:?} refused"),
    }
    // A scope at `/static/` took the rest's slash too.
    if let (Some(unprocessed), false) = (routed_rest.strip_prefix('/'), routed_mount.is_empty()) {
        match actix(&raw, &routed, unprocessed) {
            Some(below) => expected(&below, last_decoded, "actix, prefix with its slash"),
            None => panic!("actix: {context}: prefix with its slash refused"),
        }
    }
    // The default service: nothing consumed, the whole raw path.
    assert_eq!(
        actix(&raw, &routed, &routed),
        Some(Below::Path(&raw)),
        "actix default service: {context}"
    );
}

/// The mount point as a request spells it.
struct Spelling<'a> {
    /// Its non-empty raw segments.
    segments: Vec<&'a str>,
    /// Each decoded, as the routers that decode compare them.
    decoded: Vec<Cow<'a, str>>,
    /// One slash before each segment, nothing else: the only spelling routers that
    /// compare the raw path (warp) or do not merge slashes (actix) match.
    canonical: bool,
}

impl<'a> Spelling<'a> {
    /// `None` for a spelling no router would take as this mount: a trailing slash (that
    /// belongs to the rest), a segment that decodes to a `/` or to nothing, or bytes
    /// that are not path characters.
    fn of(spelled: &'a str) -> Option<Self> {
        path_chars(spelled)?;
        if !(spelled.is_empty() || spelled.starts_with('/') && !spelled.ends_with('/')) {
            return None;
        }
        let segments: Vec<&str> = spelled.split('/').filter(|s| !s.is_empty()).collect();
        let decoded: Vec<Cow<'_, str>> = segments
            .iter()
            .map(|s| percent_decode_str(s).decode_utf8_lossy())
            .collect();
        if decoded.iter().any(|s| s.contains('/')) {
            return None;
        }
        let canonical = !spelled.contains("//");
        Some(Spelling {
            segments,
            decoded,
            canonical,
        })
    }
}

/// `text` when it is made of characters a request path may carry as sent (visible
/// ASCII but `?` and `#`).
fn path_chars(text: &str) -> Option<&str> {
    text.bytes()
        .all(|b| b.is_ascii_graphic() && b != b'?' && b != b'#')
        .then_some(text)
}

/// What Salvo's `{**rest}` holds for the raw `rest`: its non-empty segments, each
/// percent-decoded, joined with `/`, and a `/` after them when `rest` ends with one.
fn salvo_tail(rest: &str) -> String {
    let segments: Vec<Cow<'_, str>> = rest
        .split('/')
        .filter(|s| !s.is_empty())
        .map(|s| percent_decode_str(s).decode_utf8_lossy())
        .collect();
    let mut tail = segments.join("/");
    if !segments.is_empty() && rest.ends_with('/') {
        tail.push('/');
    }
    tail
}

/// A partly decoded copy of `rest`, as actix routes on: escapes of unreserved
/// characters decoded, every other escape (`%2F`, `%25`, …) kept, so slashes stay
/// exactly where the raw path has them.
fn actix_copy(rest: &str) -> String {
    let bytes = rest.as_bytes();
    let mut out = String::with_capacity(rest.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| char::from(b).to_digit(16);
        if let (b'%', Some(hi), Some(lo)) = (
            bytes[i],
            bytes.get(i + 1).copied().and_then(hex),
            bytes.get(i + 2).copied().and_then(hex),
        ) {
            let c = char::from(u8::try_from(hi * 16 + lo).unwrap_or(0));
            if c.is_ascii_alphanumeric() || "-._~".contains(c) {
                out.push(c);
                i += 3;
                continue;
            }
        }
        out.push(char::from(bytes[i]));
        i += 1;
    }
    out
}

/// For any two strings as the raw path and the router's view: no panic, and every path
/// handed on is a suffix of the raw path.
fn any_input(raw: &str, view: &str) {
    let is_suffix = |below: Option<Below<'_>>, who: &str| {
        if let Some(Below::Path(path)) = below {
            assert!(
                raw.ends_with(path),
                "{who}: {path:?} is no suffix of {raw:?} (view {view:?})"
            );
        }
    };
    is_suffix(Some(rocket(raw, view)), "rocket");
    is_suffix(salvo(raw, Some(view)), "salvo");
    is_suffix(warp(raw, view), "warp");
    is_suffix(actix(raw, view, view), "actix");
    for at in (0..=view.len()).filter(|&at| view.is_char_boundary(at)) {
        is_suffix(actix(raw, view, &view[at..]), "actix");
    }
}
