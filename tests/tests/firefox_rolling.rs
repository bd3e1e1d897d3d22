//! Rolling deploys in Firefox, a browser that sends no `Available-Dictionary` and
//! takes no `dcb`/`dcz` body. Headless `firefox-esr`:
//! - opens a page of release 2 of `tests/fixtures/rolling`; the origin becomes release
//!   3 (with `releases`, so it keeps release 2's files); the open page loads its lazy
//!   chunk (release 2's), a navigation brings release 3's page and its own chunk, and
//!   a navigation again revalidates (304s);
//! - runs the Vite app of `tests/fixtures/vite-releases` across its deploy: release 2,
//!   whose bundle and page the server holds compressed against release 1's for the
//!   browsers that ask (Chromium gets those, `browser_dictionary.rs`), comes br, runs,
//!   and revalidates.
//!
//! Every answer is identity, br or gzip, never against a dictionary, and every body
//! decodes (the pages run their scripts, the chunks give their exports).
//!
//! Needs `firefox-esr` (Debian); `tests/run.sh` installs it. Driven over Marionette
//! (`integration_tests::firefox`).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use http::StatusCode;
use integration_tests::browser::{Current, Seen, ServerLog, spawn_origin};
use integration_tests::firefox::Firefox;
use serde_json::{Value, json};

/// Release 3, with the releases kept before it.
use integration_tests::rolling as release_3;
use integration_tests::rolling::release_2;
use integration_tests::vite_releases::{self, release_1 as vite_1, release_2 as vite_2};

/// The whole test, browser start to the last check.
const TEST_TIMEOUT: Duration = Duration::from_secs(180);

/// The release the open page is of, once its script has run.
async fn page_release(firefox: &Firefox) -> Value {
    assert!(
        firefox
            .wait_until("document.querySelector('h1')?.dataset.release !== undefined")
            .await,
        "the page ran its script"
    );
    firefox
        .execute("return document.querySelector('h1').dataset.release;")
        .await
}

/// What the page's lazy import gave: the chunk's export, or the error. The import runs
/// as the page's own code (an inline module script it is given), so it goes through the
/// page's module map as a click handler's would; a script Marionette runs has a loader
/// of its own. The outcome comes back through the DOM, which both sides see.
async fn lazy_chunk(firefox: &Firefox) -> Value {
    firefox
        .execute(
            "delete document.documentElement.dataset.chunk;
             const script = document.createElement('script');
             script.type = 'module';
             script.textContent = `
               const root = document.documentElement;
               import('/js/app.js').then(app => app.lazy())
                 .then(chunk => { root.dataset.chunk = chunk.chunk; },
                       error => { root.dataset.chunk = 'failed: ' + error; });`;
             document.head.append(script);
             return null;",
        )
        .await;
    assert!(
        firefox
            .wait_until("document.documentElement.dataset.chunk !== undefined")
            .await,
        "the import neither loaded nor failed"
    );
    firefox
        .execute("return document.documentElement.dataset.chunk;")
        .await
}

/// An origin on 127.0.0.1 serving `site` until the test swaps it, with its log, in
/// front of the API the Vite app calls.
async fn origin(site: &'static embed_assets::Assets) -> (Current, ServerLog, String) {
    let current: Current = Arc::new(Mutex::new(site.service()));
    let log = ServerLog::default();
    let api = axum::Router::new().route(
        "/api/hello",
        axum::routing::get(|| async {
            axum::Json(json!({ "message": "Hello", "served_by": "test" }))
        }),
    );
    let addr = spawn_origin(current.clone(), log.clone(), api).await;
    (current, log, format!("http://{addr}/index.html"))
}

/// What the server saw after entry `from` of `log` that it answered 304.
fn revalidated(log: &ServerLog, from: usize) -> Vec<String> {
    log.snapshot()[from..]
        .iter()
        .filter(|seen| seen.status == StatusCode::NOT_MODIFIED)
        .inspect(|seen| assert!(seen.if_none_match.is_some(), "{seen:?}"))
        .map(|seen| seen.path.clone())
        .collect()
}

/// Nothing Firefox asked for or got was about dictionaries, and all was found (but a
/// favicon the rolling fixture has not).
fn assert_no_dictionaries(seen: &[Seen]) {
    for seen in seen {
        assert!(
            matches!(seen.status, StatusCode::OK | StatusCode::NOT_MODIFIED)
                || (seen.path == "/favicon.ico" && seen.status == StatusCode::NOT_FOUND),
            "{seen:?}"
        );
        let offered = seen.accept_encoding.as_deref().unwrap_or_default();
        assert!(
            !offered.contains("dcb") && !offered.contains("dcz"),
            "Firefox offered a dictionary coding: {seen:?}"
        );
        assert_eq!(seen.available_dictionary, None, "{seen:?}");
        assert!(
            matches!(seen.content_encoding.as_deref(), None | Some("br" | "gzip")),
            "{seen:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_open_firefox_page_loads_its_lazy_chunk_across_a_deploy_and_revalidates() {
    let Some(program) = Firefox::find() else {
        return;
    };
    tokio::time::timeout(TEST_TIMEOUT, async {
        let firefox = Firefox::start(&program).await;
        let (current, log, page) = origin(&release_2::SITE).await;
        firefox.navigate(&page).await;
        assert_eq!(page_release(&firefox).await, json!("2"));
        // The deploy, under the open page: its lazy chunk comes from release 3's
        // server, release 2's own bytes.
        *current.lock().expect("current service") = release_3::SITE.service();
        assert_eq!(lazy_chunk(&firefox).await, json!("lazy chunk of release 2"));
        // A navigation: release 3's page, and its own chunk.
        firefox.navigate(&page).await;
        assert_eq!(page_release(&firefox).await, json!("3"));
        assert_eq!(lazy_chunk(&firefox).await, json!("lazy chunk of release 3"));
        // Once more: what the page loads is revalidated, and has not changed.
        let before = log.snapshot().len();
        firefox.navigate(&page).await;
        assert_eq!(page_release(&firefox).await, json!("3"));
        // In the background for a page Firefox shows stale: waited for.
        let expected = ["/index.html", "/css/app.css", "/js/app.js"];
        let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
        while !expected
            .iter()
            .all(|path| revalidated(&log, before).iter().any(|p| p == path))
            && tokio::time::Instant::now() < deadline
        {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let revalidated = revalidated(&log, before);
        for path in expected {
            assert!(
                revalidated.iter().any(|p| p == path),
                "{path}: {revalidated:?}"
            );
        }
        assert_no_dictionaries(&log.snapshot());
    })
    .await
    .unwrap_or_else(|_| panic!("the test took more than {TEST_TIMEOUT:?}"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn firefox_runs_the_vite_apps_next_release_br_where_chromium_gets_dictionary_bodies() {
    let Some(program) = Firefox::find() else {
        return;
    };
    let page = vite_2::SITE.get("/index.html").expect("the page");
    let bundle = vite_releases::entry(&vite_2::SITE);
    assert!(
        !bundle.deltas().is_empty() && !page.deltas().is_empty(),
        "the server has dictionary bodies for browsers that ask"
    );
    tokio::time::timeout(TEST_TIMEOUT, async {
        let firefox = Firefox::start(&program).await;
        let (current, log, url) = origin(&vite_1::SITE).await;
        let ready = "document.querySelector('#app-ready') !== null";
        firefox.navigate(&url).await;
        assert!(firefox.wait_until(ready).await, "release 1 ran");
        *current.lock().expect("current service") = vite_2::SITE.service();
        // Release 1's page is a dictionary, sent `max-age=0,
        // stale-while-revalidate=...` (Chromium keeps no page sent `no-cache` as one):
        // Firefox applies that to a navigation too, so the first one after the deploy
        // shows release 1's page from its cache while it revalidates, and works (its
        // files are kept); the next one shows release 2.
        firefox.navigate(&url).await;
        assert!(firefox.wait_until(ready).await, "the page ran");
        let stale = firefox
            .execute("return document.querySelector('#status').title;")
            .await;
        assert_eq!(
            stale,
            json!(""),
            "release 1's page, stale while it revalidated"
        );
        let pages = || {
            log.snapshot()
                .iter()
                .filter(|seen| seen.path == "/index.html")
                .map(|seen| seen.status)
                .collect::<Vec<_>>()
        };
        let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
        while pages().len() < 2 && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert_eq!(
            pages(),
            [StatusCode::OK; 2],
            "revalidated: release 2's page came"
        );
        firefox.navigate(&url).await;
        assert!(
            firefox
                .wait_until(&format!(
                    "{ready} && document.querySelector('#status').title === 'Served by release 2'"
                ))
                .await,
            "release 2 ran"
        );
        let seen = log.snapshot();
        let fetched = seen
            .iter()
            .find(|seen| seen.path == bundle.path())
            .expect("release 2's bundle fetched");
        assert_eq!(fetched.status, StatusCode::OK);
        assert_eq!(
            fetched.content_encoding.as_deref(),
            Some("br"),
            "{fetched:?}"
        );
        let before = seen.len();
        firefox.navigate(&url).await;
        assert!(firefox.wait_until(ready).await, "release 2 ran again");
        // The page is revalidated, in the background when Firefox shows it stale.
        let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
        while !revalidated(&log, before).iter().any(|p| p == "/index.html")
            && tokio::time::Instant::now() < deadline
        {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let revalidated = revalidated(&log, before);
        assert!(
            revalidated.iter().any(|p| p == "/index.html"),
            "{revalidated:?}"
        );
        assert_no_dictionaries(&log.snapshot());
    })
    .await
    .unwrap_or_else(|_| panic!("the test took more than {TEST_TIMEOUT:?}"));
}
