//! Dictionary compression (RFC 9842) in a real browser: headless Chromium opens release
//! 1 of a site, whose `js/app.<hash>.js` says it is a dictionary for `app.*.js`; the
//! origin then becomes release 2, and the page is opened again in the same browser
//! (one profile). Chromium asks for release 2's bundle naming release 1's in
//! `Available-Dictionary`, gets it as `dcb` or `dcz`, decodes it and runs it.
//!
//! The fixtures are `tests/fixtures/dictionary/` (see `dictionary.rs`). Needs
//! `chromium` and `chromedriver`, as `browser.rs`.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use embed_assets::Encoding;
use http::StatusCode;
use integration_tests::browser::{
    BrowserPrograms, Current, Seen, ServerLog, Session, in_browser, spawn_origin, wait_for_request,
};
use integration_tests::vite_releases::{self, release_1 as vite_1, release_2 as vite_2};

use integration_tests::dictionary_releases::{release_1, release_2};

/// The whole test, browser start to the last check, must finish within this.
const TEST_TIMEOUT: Duration = Duration::from_secs(180);

fn this_build(site: &embed_assets::Assets, path: &str) -> &'static embed_assets::Asset {
    site.iter()
        .find(|a| a.path() == path && a.earlier_release().is_none())
        .unwrap()
}

/// One deploy under an open browser: release 1's page is opened and its script runs
/// (`ran(1)` holds), the origin becomes release 2, the page is opened again and runs
/// (`ran(2)`: the new page is shown at once); returns every request the server saw,
/// once it saw `bundle`, release 2's script.
async fn deploy(
    first: &'static embed_assets::Assets,
    second: &'static embed_assets::Assets,
    routes: fn() -> axum::Router,
    ran: fn(u32) -> String,
    bundle: &'static str,
) -> Vec<Seen> {
    let programs = BrowserPrograms::find().expect("checked by the caller");
    in_browser(&programs, TEST_TIMEOUT, move |session| async move {
        let current: Current = Arc::new(Mutex::new(first.service()));
        let log = ServerLog::default();
        let addr = spawn_origin(current.clone(), log.clone(), routes()).await;
        open(&session, addr, &ran(1)).await;
        // Chromium stores a dictionary once its response is complete, off the page's
        // path: give it a moment before the next navigation needs it.
        tokio::time::sleep(Duration::from_millis(500)).await;
        // The deploy, then the same page again in the same browser.
        *current.lock().expect("current service") = second.service();
        open(&session, addr, &ran(2)).await;
        wait_for_request(&log, bundle).await;
        log.snapshot()
    })
    .await
}

/// Opens `/index.html` and waits until `ran` holds: its script has run.
async fn open(session: &Session, addr: std::net::SocketAddr, ran: &str) {
    session.navigate(&format!("http://{addr}/index.html")).await;
    assert!(
        session.wait_until(ran).await,
        "the script did not run ({ran}): {}",
        session
            .execute("return document.documentElement.outerHTML.slice(0, 400)")
            .await
    );
}

/// What the server saw for a bundle compressed against `old`: Chromium named `old` in
/// `Available-Dictionary`, accepted `dcb`, and got a dictionary coding.
fn assert_dictionary_compressed(seen: &Seen, old: &embed_assets::Asset) {
    let dictionary = integration_tests::available_dictionary(old.body(Encoding::Identity).unwrap());
    assert_eq!(seen.status, StatusCode::OK, "{seen:?}");
    assert_eq!(
        seen.available_dictionary.as_deref(),
        Some(dictionary.as_str()),
        "Chromium names release 1's version as its dictionary: {seen:?}"
    );
    assert!(
        seen.accept_encoding
            .as_deref()
            .is_some_and(|accept| accept.contains("dcb")),
        "{seen:?}"
    );
    assert!(
        matches!(seen.content_encoding.as_deref(), Some("dcb" | "dcz")),
        "release 2's bundle arrives dictionary-compressed: {seen:?}"
    );
    assert_eq!(
        seen.vary.as_deref(),
        Some("accept-encoding, available-dictionary")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_gets_release_2s_bundle_and_page_compressed_against_release_1s() {
    if BrowserPrograms::find().is_none() {
        return;
    }
    let old = this_build(&release_1::SITE, "/js/app.js");
    let new = this_build(&release_2::SITE, "/js/app.js");
    let bundle = new.fingerprinted_path().unwrap();
    let seen = deploy(
        &release_1::SITE,
        &release_2::SITE,
        axum::Router::new,
        |n| format!("document.documentElement.dataset.release === '{n}'"),
        bundle,
    )
    .await;
    let request = seen.iter().find(|seen| seen.path == bundle).unwrap();
    assert_dictionary_compressed(request, old);
    // The page: release 1's was kept as a dictionary (its `Cache-Control` gives it a
    // freshness lifetime), so release 2's, shown at once, came compressed against it.
    let pages: Vec<&Seen> = seen
        .iter()
        .filter(|seen| seen.path == "/index.html")
        .collect();
    assert_eq!(pages.len(), 2, "{seen:#?}");
    assert_eq!(
        pages[0].cache_control.as_deref(),
        Some(embed_assets::ServeAssets::DICTIONARY_PAGE_CACHE_CONTROL)
    );
    assert_dictionary_compressed(pages[1], this_build(&release_1::SITE, "/index.html"));
}

/// The Vite example's app, built twice by Vite (`tests/fixtures/vite-releases`): release
/// 2 has one more line in `src/main.ts`, which sets the status line's `title`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_runs_the_vite_apps_next_release_from_a_dictionary_compressed_bundle() {
    if BrowserPrograms::find().is_none() {
        return;
    }
    let (old, new) = (
        vite_releases::entry(&vite_1::SITE),
        vite_releases::entry(&vite_2::SITE),
    );
    assert_ne!(old.path(), new.path());
    let api = || {
        axum::Router::new().route(
            "/api/hello",
            axum::routing::get(|| async {
                axum::Json(serde_json::json!({ "message": "Hello", "served_by": "test" }))
            }),
        )
    };
    let seen = deploy(
        &vite_1::SITE,
        &vite_2::SITE,
        api,
        |n| match n {
            1 => "document.querySelector('#app-ready') !== null".to_owned(),
            _ => "document.querySelector('#app-ready') !== null \
                  && document.querySelector('#status').title === 'Served by release 2'"
                .to_owned(),
        },
        new.path(),
    )
    .await;
    let request = seen.iter().find(|seen| seen.path == new.path()).unwrap();
    assert_dictionary_compressed(request, old);
}
