//! `reload_on_stale = true`: a small inline script added to every HTML page, which
//! reloads the page once when a file it loads (a script, a style sheet, a module it
//! imports) is a version the server no longer has. After a deploy that dropped the
//! release an open tab was loaded from, that tab's next lazy import fails; the guard
//! reloads it onto the release the server has now, instead of leaving a white screen.
//!
//! It reloads only when the server itself confirms the file is gone for good: a `HEAD`
//! of the failed URL (same origin only) answers `404` with `Cache-Control: no-store`,
//! which the runtime sends for an unknown version of a content-hashed file and for
//! nothing else. A network error, a plain 404, an API call's 404, or a page's own
//! error never reload. Such an answer says nothing either way (the server may be
//! restarting, a proxy answering 502, a replica still holding the file), so the
//! check is made again 1, 2, 4, 8 and 16 seconds later, then left until the URL fails
//! again. At most one reload a minute per tab (`sessionStorage`), so a release that
//! is broken in itself is not reloaded in a loop.
//!
//! It watches for what failed in four ways, one per browser's way of telling it:
//! Vite's `vite:preloadError` event, an unhandled `import()` rejection (its message
//! names the URL in Chromium and Firefox), a script's or style sheet's `error` event,
//! and a resource-timing entry with status 404 (Chromium: also when the page handles
//! the failed import itself). Being an inline script, it is hashed into the
//! `Content-Security-Policy` of `strict_csp` like the page's own.

use crate::markup::script_site;

/// The guard, as inlined: `<script>` and its text. Not minified by a tool: written
/// short, and kept readable enough to audit here.
const GUARD: &str = concat!(
    "<script>(()=>{const K=\"embed-assets-reload\",L=location,S=new Set,",
    // c: check a URL that failed (n: the how-manyth check); reload when the server
    // says it is gone for good. Any other answer, or none, says nothing: checked
    // again 1, 2, 4, 8 and 16 s on (a server restarting, a replica that still has the
    // file), then left until it fails again.
    "c=(u,n=0)=>{let x;try{x=new URL(u,L.href)}catch(e){return}const h=x.href,",
    "a=()=>n>4?S.delete(h):setTimeout(()=>c(h,n+1),1e3<<n);",
    "if(x.origin!=L.origin||x.pathname==L.pathname||!n&&S.has(h))return;S.add(h);",
    "fetch(h,{method:\"HEAD\",cache:\"no-store\"}).then(r=>{",
    "if(r.status!=404||!/no-store/i.test(r.headers.get(\"cache-control\")))return a();",
    "const s=sessionStorage,t=Date.now();if(t-s.getItem(K)<6e4)return;",
    "s.setItem(K,t);L.reload()}).catch(a)},",
    // f: the URL an error's message names.
    "f=m=>{m=/(https?:\\/\\/|\\/)[^\\s'\"()]+/.exec(m&&m.message||m);m&&c(m[0])};",
    "addEventListener(\"vite:preloadError\",e=>f(e.payload));",
    "addEventListener(\"unhandledrejection\",e=>f(e.reason));",
    "addEventListener(\"error\",e=>{const t=e.target;",
    "/^(SCRIPT|LINK)$/.test(t.tagName)&&c(t.src||t.href)},true);",
    "try{new PerformanceObserver(l=>{for(const e of l.getEntries())",
    "e.responseStatus==404&&/^(script|link|css|other)$/.test(e.initiatorType)&&c(e.name)})",
    ".observe({type:\"resource\",buffered:true})}catch(e){}})()</script>",
);

/// `html` with the guard added where [`script_site`] says, or `None` when the page is
/// not UTF-8 or the tokenizer gives up on it (it is then served as it is).
pub(crate) fn add(html: &[u8]) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(html).ok()?;
    let at = script_site(text)?;
    let mut out = Vec::with_capacity(html.len() + GUARD.len());
    out.extend_from_slice(&html[..at]);
    out.extend_from_slice(GUARD.as_bytes());
    out.extend_from_slice(&html[at..]);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_guard(html: &str) -> String {
        String::from_utf8(add(html.as_bytes()).unwrap()).unwrap()
    }

    #[test]
    fn the_guard_goes_after_the_head_start_tag_or_the_encoding_declaration() {
        assert_eq!(
            with_guard("<!doctype html><html><head><title>t</title></head></html>"),
            format!("<!doctype html><html><head>{GUARD}<title>t</title></head></html>")
        );
        assert_eq!(
            with_guard("<html><HEAD lang=x><meta charset=utf-8><script src=a.js></script>"),
            format!("<html><HEAD lang=x><meta charset=utf-8>{GUARD}<script src=a.js></script>")
        );
        assert_eq!(
            with_guard("<!DOCTYPE html><title>t</title><script src=a.js></script>"),
            format!("<!DOCTYPE html>{GUARD}<title>t</title><script src=a.js></script>")
        );
        assert_eq!(
            with_guard("<html lang=en><body>x</body></html>"),
            format!("<html lang=en>{GUARD}<body>x</body></html>")
        );
        assert_eq!(with_guard("plain"), format!("{GUARD}plain"));
    }

    #[test]
    fn a_page_that_is_not_utf8_is_left_alone() {
        assert_eq!(add(b"<head>\xff</head>"), None);
    }

    #[test]
    fn the_guard_is_one_script_a_few_hundred_bytes_long() {
        assert!(GUARD.starts_with("<script>") && GUARD.ends_with("</script>"));
        assert_eq!(GUARD.matches("<script").count(), 1);
        assert_eq!(GUARD.matches("</").count(), 1, "no `</` inside the script");
        assert!(GUARD.len() < 1000, "{}", GUARD.len());
    }
}
