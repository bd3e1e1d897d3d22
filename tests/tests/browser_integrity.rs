//! Subresource Integrity end to end (W3C Subresource Integrity): the `integrity`
//! values the macro writes into a page are the ones a browser accepts, and a browser
//! refuses a file whose value does not match.
//!
//! `fixtures/sri-page` is embedded with `integrity = true`. Over HTTP, the served
//! `index.html` carries on each script, stylesheet and module preload the value of the
//! file it names, and `tampered.html` keeps the wrong values it was written with. In
//! headless Chromium (driven as in `browser.rs`), `index.html` renders with its
//! stylesheet, its module script (and the module it imports, fetched once through the
//! preload) and its classic script, with no integrity error in the console;
//! `tampered.html` runs none of its scripts, applies none of its styles, and the
//! console names each blocked file. With preload links on, Chromium uses each preload
//! (they carry the values too) and warns of none; `theme.html`'s style sheet, marked
//! `data-no-integrity`, is swapped by a script and applied.
//!
//! Needs `chromium` and `chromedriver` for the browser test (Debian packages `chromium`
//! and `chromium-driver`); `bash tests/run.sh` installs them.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use axum::{Router, middleware};
use embed_assets::{Asset, Assets, embed_assets};
use http::StatusCode;
use integration_tests::browser::{
    BrowserPrograms, LogEntry, PAGE_TIMEOUT, ServerLog, Session, in_browser, record,
    resource_timings,
};
use integration_tests::{decode_body, get, spawn_router, spawn_service};
use serde_json::Value;

/// The page and its files; the macro writes the `integrity` attribute of each link of
/// `index.html`, and `tampered.html` has its own. Only the style sheets are
/// fingerprinted: `main.js` imports `./dep.js` by its own name (JavaScript is not
/// rewritten), so the preload must name that same URL to be used.
static PAGE: Assets = embed_assets!(
    "fixtures/sri-page",
    fingerprint = "css/*",
    rewrite_references = true,
    integrity = true
);

/// The whole browser test, browser start to the second page's log, must finish within
/// this.
const TEST_TIMEOUT: Duration = Duration::from_secs(120);

/// What Chromium writes to the console for a file it blocked (its
/// `SubresourceIntegrity` check), followed by the file's URL in quotes.
const BLOCKED: &str = "Failed to find a valid digest in the 'integrity' attribute for resource";

/// The files `index.html` links, each with the value of its own bytes.
const INDEX_LINKS: [&str; 4] = [
    "/css/site.css",
    "/js/classic.js",
    "/js/dep.js",
    "/js/main.js",
];

/// The files `tampered.html` links, each with the value of other bytes.
const TAMPERED_LINKS: [&str; 4] = [
    "/css/tampered.css",
    "/js/tampered-dep.js",
    "/js/tampered-module.js",
    "/js/tampered.js",
];

#[tokio::test]
async fn the_served_page_carries_the_integrity_value_of_each_file_it_links() {
    let addr = spawn_service(PAGE.service()).await;
    let links = served_links(addr, "/index.html").await;
    assert_eq!(
        links.keys().copied().collect::<Vec<_>>(),
        INDEX_LINKS,
        "the scripts, the stylesheet and the module preload of index.html"
    );
    for (asset, link) in links.values() {
        let expected = asset.integrity().expect("an embedded file has a value");
        assert_eq!(
            link.attribute("integrity"),
            Some(expected),
            "{}: {link:?}",
            asset.path()
        );
    }
}

#[tokio::test]
async fn an_integrity_value_written_in_the_page_is_left_as_written() {
    let addr = spawn_service(PAGE.service()).await;
    let served = served_links(addr, "/tampered.html").await;
    let written = links(&String::from_utf8_lossy(&fixture("tampered.html")));
    assert_eq!(served.keys().copied().collect::<Vec<_>>(), TAMPERED_LINKS);
    assert_eq!(written.len(), served.len(), "{written:?}");
    for (asset, link) in served.values() {
        let value = link.attribute("integrity");
        let own = asset.integrity().expect("an embedded file has a value");
        assert!(
            written.iter().any(|element| {
                element.resolved_target("/tampered.html") == asset.path()
                    && element.attribute("integrity") == value
            }),
            "{}: served {link:?}, the page has {written:?}",
            asset.path()
        );
        // Else the browser test below would prove nothing.
        assert_ne!(
            value,
            Some(own),
            "{}: the fixture's value must be wrong",
            asset.path()
        );
        assert!(
            value.is_some_and(|value| value.starts_with("sha384-") && value.len() == 71),
            "{}: a well-formed sha384 value, only of other bytes: {value:?}",
            asset.path()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_runs_what_matches_its_integrity_value_and_blocks_what_does_not() {
    let Some(programs) = BrowserPrograms::find() else {
        return;
    };
    in_browser(&programs, TEST_TIMEOUT, |session| async move {
        let log = ServerLog::default();
        let router = Router::new()
            .fallback_service(PAGE.service())
            .layer(middleware::from_fn_with_state(log.clone(), record));
        let addr = spawn_router(router).await;
        assert_index_runs(&session, addr, &log).await;
        // Chromium reports a module fetched by its importer as `script`, one fetched
        // by the page's modulepreload element as `other`.
        let timings = resource_timings(&session).await;
        let dep = timings.get(PAGE.get("/js/dep.js").expect("embedded").url());
        assert_ne!(
            dep["initiatorType"], "script",
            "dep.js came through the preload: {dep}"
        );
        assert_tampered_is_blocked(&session, addr, &log).await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_uses_the_preloads_of_a_page_with_integrity_values() {
    let Some(programs) = BrowserPrograms::find() else {
        return;
    };
    // The `Link` field announces each file the page's head loads, with the same
    // integrity value as its element: else Chromium discards the preload ("not used
    // due to an integrity mismatch") and fetches the file a second time.
    let service = PAGE.service().preload_links();
    let addr = spawn_service(service.clone()).await;
    let (_, headers, _) = get(addr, "/index.html", &[]).await;
    let links: Vec<&str> = headers
        .get_all(http::header::LINK)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(", <"))
        .collect();
    for path in ["/css/site.css", "/js/dep.js", "/js/main.js"] {
        let asset = PAGE.get(path).expect("embedded");
        let name = asset.url().rsplit('/').next().unwrap_or_default();
        let link = links
            .iter()
            .find(|link| link.contains(name))
            .unwrap_or_else(|| panic!("no preload of {path}: {links:#?}"));
        let value = asset.integrity().expect("a value");
        assert!(
            link.contains(&format!("integrity=\"{value}\"")),
            "{path}: {link}"
        );
    }
    in_browser(&programs, TEST_TIMEOUT, |session| {
        let service = service.clone();
        async move {
            let log = ServerLog::default();
            let router = Router::new()
                .fallback_service(service)
                .layer(middleware::from_fn_with_state(log.clone(), record));
            let addr = spawn_router(router).await;
            assert_index_runs(&session, addr, &log).await;
            // Chromium warns of an unused preload three seconds after the load event.
            tokio::time::sleep(Duration::from_secs(4)).await;
            let console = session.browser_log().await;
            let preload: Vec<&LogEntry> = console
                .iter()
                .filter(|entry| entry.message.contains("preload"))
                .collect();
            assert!(preload.is_empty(), "every preload used: {preload:#?}");
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_link_marked_data_no_integrity_can_be_swapped_at_run_time() {
    // `theme.html` swaps its theme's style sheet from a script; the element is marked
    // `data-no-integrity`, so it gets no value, while the page's other sheet does.
    let addr = spawn_service(PAGE.service()).await;
    let served = served_links(addr, "/theme.html").await;
    let (_, dark) = &served["/css/theme/dark.css"];
    assert_eq!(dark.attribute("integrity"), None, "{dark:?}");
    let (site, fixed) = &served["/css/site.css"];
    assert_eq!(fixed.attribute("integrity"), site.integrity(), "{fixed:?}");
    let Some(programs) = BrowserPrograms::find() else {
        return;
    };
    in_browser(&programs, TEST_TIMEOUT, |session| async move {
        let addr = spawn_service(PAGE.service()).await;
        session.navigate(&format!("http://{addr}/theme.html")).await;
        let swapped = session
            .wait_until("document.body.dataset.theme === 'rgb(128, 0, 128)'")
            .await;
        let console = session.browser_log().await;
        assert!(
            swapped,
            "light.css applied after the swap; console: {console:#?}"
        );
        let errors: Vec<&LogEntry> = console
            .iter()
            .filter(|entry| entry.level == "SEVERE" || entry.message.contains("integrity"))
            .collect();
        assert!(errors.is_empty(), "theme.html: {errors:#?}");
    })
    .await;
}

/// `index.html`: the stylesheet applied, both scripts ran, the preloaded module was
/// fetched once and used by the import, and the console has no error at all.
async fn assert_index_runs(session: &Session, addr: SocketAddr, log: &ServerLog) {
    session.navigate(&format!("http://{addr}/index.html")).await;
    let ran = session
        .wait_until(
            "document.body.dataset.main === 'ran' && document.body.dataset.classic === 'ran'",
        )
        .await;
    let page = page_state(session).await;
    assert!(
        ran,
        "the scripts did not run within {PAGE_TIMEOUT:?}: {page}; console: {:#?}",
        session.browser_log().await
    );
    assert_eq!(page["color"], "rgb(0, 128, 0)", "site.css applied: {page}");
    assert_eq!(
        page["message"], "dep.js loaded",
        "main.js imported dep.js: {page}"
    );
    assert_eq!(page["classic"], "classic.js ran", "{page}");
    assert_eq!(page["sheets"], 1, "{page}");

    let seen = log.snapshot();
    for path in INDEX_LINKS {
        let url = PAGE.get(path).expect("embedded").url();
        let requests: Vec<_> = seen.iter().filter(|seen| seen.path == url).collect();
        // dep.js: the preload's response is the one the import uses.
        assert_eq!(requests.len(), 1, "{url} fetched once: {seen:#?}");
        assert_eq!(requests[0].status, StatusCode::OK, "{:?}", requests[0]);
    }

    let console = session.browser_log().await;
    let errors: Vec<&LogEntry> = console
        .iter()
        .filter(|entry| entry.level == "SEVERE" || entry.message.contains("integrity"))
        .collect();
    assert!(errors.is_empty(), "index.html: {errors:#?}");
}

/// `tampered.html`: every file was fetched and refused. Neither script ran (the inline
/// module after the blocked one did), the stylesheet has no sheet and its colour is not
/// applied, and the console names each file.
async fn assert_tampered_is_blocked(session: &Session, addr: SocketAddr, log: &ServerLog) {
    let before = session.browser_log().await.len();
    let seen_before = log.snapshot().len();
    session
        .navigate(&format!("http://{addr}/tampered.html"))
        .await;
    let control = session
        .wait_until("document.body.dataset.control === 'ran'")
        .await;
    let urls: Vec<String> = TAMPERED_LINKS
        .iter()
        .map(|path| format!("http://{addr}{}", PAGE.get(path).expect("embedded").url()))
        .collect();
    let console = session
        .wait_for_log(|log| {
            urls.iter()
                .all(|url| blocked(&log[before..], url).is_some())
        })
        .await;
    let console = &console[before..];
    let page = page_state(session).await;
    assert!(
        control,
        "the inline module did not run: {page}; console: {console:#?}"
    );
    assert_eq!(page["tamperedModule"], Value::Null, "{page}");
    assert_eq!(page["tamperedClassic"], Value::Null, "{page}");
    // Not tampered.css's rgb(200, 0, 0): the initial colour.
    assert_eq!(page["color"], "rgb(0, 0, 0)", "{page}");
    assert_eq!(
        page["sheets"], 0,
        "a blocked stylesheet is no sheet: {page}"
    );

    let seen = &log.snapshot()[seen_before..];
    for (path, url) in TAMPERED_LINKS.iter().zip(&urls) {
        let served = PAGE.get(path).expect("embedded").url();
        assert!(
            seen.iter()
                .any(|seen| seen.path == served && seen.status == StatusCode::OK),
            "{served} was fetched, and blocked only then: {seen:#?}"
        );
        let entry = blocked(console, url)
            .unwrap_or_else(|| panic!("no integrity error for {url} in the console: {console:#?}"));
        assert_eq!(entry.level, "SEVERE", "{entry:?}");
        let own = PAGE.get(path).and_then(Asset::integrity).expect("a value");
        // Chromium names the value it computed: the file's own, which the page lacks.
        assert!(
            entry.message.contains(own.trim_start_matches("sha384-")),
            "{url}: the computed value {own} is named: {entry:?}"
        );
    }
}

/// The console entry that says `url` was blocked for its integrity value.
fn blocked<'a>(console: &'a [LogEntry], url: &str) -> Option<&'a LogEntry> {
    let quoted = format!("{BLOCKED} '{url}'");
    console.iter().find(|entry| entry.message.contains(&quoted))
}

/// What the scripts and the stylesheets did to the page.
async fn page_state(session: &Session) -> Value {
    session
        .execute(
            "const text = (id) => document.getElementById(id)?.textContent ?? null;
             return {
               color: getComputedStyle(document.body).color,
               sheets: [...document.querySelectorAll('link[rel=stylesheet]')]
                 .filter((link) => link.sheet !== null).length,
               message: text('message'),
               classic: text('classic'),
               main: document.body.dataset.main ?? null,
               tamperedModule: document.body.dataset.tamperedModule ?? null,
               tamperedClassic: document.body.dataset.tamperedClassic ?? null,
             };",
        )
        .await
}

// ---------------------------------------------------------------------------------
// The page's links, read from its HTML

/// A `<script>` or `<link>` start tag: its attributes, names lower-cased, in order.
#[derive(Debug)]
struct Element {
    name: String,
    attributes: Vec<(String, String)>,
}

impl Element {
    fn attribute(&self, name: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    /// Whether it makes the browser fetch a subresource that SRI covers: a script
    /// with `src`, a stylesheet or a module preload (`rel` is a token list).
    fn is_subresource(&self) -> bool {
        let rel = self.attribute("rel").unwrap_or_default();
        let has_rel = |token: &str| {
            rel.split_ascii_whitespace()
                .any(|value| value.eq_ignore_ascii_case(token))
        };
        match self.name.as_str() {
            "script" => self.attribute("src").is_some(),
            "link" => {
                self.attribute("href").is_some()
                    && (has_rel("stylesheet") || has_rel("modulepreload"))
            }
            _ => false,
        }
    }

    /// The path its `src` or `href` names, resolved against the page at `page`.
    fn resolved_target(&self, page: &str) -> String {
        let link = self
            .attribute("src")
            .or_else(|| self.attribute("href"))
            .unwrap_or_default();
        let link = link.split(['?', '#']).next().unwrap_or_default();
        if link.starts_with('/') {
            return link.to_owned();
        }
        let folder = &page[..=page.rfind('/').expect("an absolute page path")];
        format!("{folder}{link}")
    }
}

/// The subresource elements of `html` (see [`Element::is_subresource`]). Comments are
/// skipped; attribute values may be double-, single- or unquoted (HTML §13.1.2.3).
fn links(html: &str) -> Vec<Element> {
    let mut found = Vec::new();
    let mut rest = html;
    while let Some(start) = rest.find('<') {
        rest = &rest[start + 1..];
        if let Some(comment) = rest.strip_prefix("!--") {
            rest = comment.split_once("-->").map_or("", |(_, after)| after);
            continue;
        }
        let name_end = rest
            .find(|c: char| c.is_ascii_whitespace() || c == '>' || c == '/')
            .unwrap_or(rest.len());
        let name = rest[..name_end].to_ascii_lowercase();
        rest = &rest[name_end..];
        let mut attributes = Vec::new();
        loop {
            rest = rest.trim_start_matches(|c: char| c.is_ascii_whitespace() || c == '/');
            if rest.is_empty() || rest.starts_with('>') {
                break;
            }
            let key_end = rest
                .find(|c: char| c.is_ascii_whitespace() || c == '=' || c == '>' || c == '/')
                .unwrap_or(rest.len());
            let key = rest[..key_end].to_ascii_lowercase();
            rest = rest[key_end..].trim_start();
            let mut value = String::new();
            if let Some(after) = rest.strip_prefix('=') {
                let after = after.trim_start();
                let (text, remaining) = match after.chars().next() {
                    Some(quote @ ('"' | '\'')) => {
                        let inner = &after[1..];
                        let end = inner.find(quote).unwrap_or(inner.len());
                        (&inner[..end], inner.get(end + 1..).unwrap_or_default())
                    }
                    _ => {
                        let end = after
                            .find(|c: char| c.is_ascii_whitespace() || c == '>')
                            .unwrap_or(after.len());
                        after.split_at(end)
                    }
                };
                value = text.to_owned();
                rest = remaining;
            }
            attributes.push((key, value));
        }
        let element = Element { name, attributes };
        if element.is_subresource() {
            found.push(element);
        }
    }
    found
}

/// The subresource elements of the page at `page` as served, each with the embedded
/// file it names, sorted by that file's path.
async fn served_links(
    addr: SocketAddr,
    page: &str,
) -> BTreeMap<&'static str, (&'static Asset, Element)> {
    let (status, headers, body) = get(addr, page, &[]).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    let html = String::from_utf8(decode_body(&headers, &body)).expect("UTF-8 page");
    let mut by_file = BTreeMap::new();
    for element in links(&html) {
        let target = element.resolved_target(page);
        // With fingerprinted URLs, the link names the file's URL rather than its path.
        let asset = PAGE
            .iter()
            .find(|asset| asset.url() == target || asset.path() == target)
            .unwrap_or_else(|| panic!("{page}: {element:?} names no embedded file"));
        let previous = by_file.insert(asset.path(), (asset, element));
        assert!(previous.is_none(), "{page} links {} twice", asset.path());
    }
    by_file
}

/// The bytes of a file of `fixtures/sri-page`, read from disk.
fn fixture(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/sri-page")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|err| panic!("cannot read {}: {err}", path.display()))
}
