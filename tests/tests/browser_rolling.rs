//! A rolling deploy in a real browser: headless Chromium opens a page of release 2,
//! then the server behind its origin becomes release 3 (one listener whose service is
//! swapped, as a balancer moves a client to a new replica), and the open page loads its
//! lazy chunk, `/assets/lazy-B2b2b2b2.js`, which release 3 does not have.
//!
//! With the `releases` option release 3 still serves that chunk, and the page gets
//! release 2's own bytes; without it, the import fails on a 404 that no cache keeps.
//! The fixtures are `tests/fixtures/rolling/` (see `releases.rs`).
//!
//! Needs `chromium` and `chromedriver`, as `browser.rs`.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use embed_assets::ServeAssets;
use http::StatusCode;
use integration_tests::browser::{
    BrowserPrograms, Current, ServerLog, Session, in_browser, spawn_origin, wait_for_request,
};
use serde_json::{Value, json};

mod release_2 {
    embed_assets::embed_assets!(
        pub static SITE = "fixtures/rolling/release-2",
        fingerprint = true,
        hashed = "assets/*",
    );
}

/// Release 3, with the releases kept before it.
use integration_tests::rolling as release_3;

mod release_3_alone {
    embed_assets::embed_assets!(
        pub static SITE = "fixtures/rolling/public",
        fingerprint = true,
        hashed = "assets/*",
    );
}

/// The whole test, browser start to the last check, must finish within this.
const TEST_TIMEOUT: Duration = Duration::from_secs(180);

/// Release 2's lazy chunk, as its `js/app.js` imports it.
const CHUNK: &str = "/assets/lazy-B2b2b2b2.js";

/// What the open page got when it imported its lazy chunk: the chunk's export, or the
/// error the import failed with.
async fn load_lazy_chunk(session: &Session) -> (Value, Value) {
    session
        .execute(
            "window.__chunk = undefined; window.__failed = undefined;
             import('/js/app.js')
               .then(app => app.lazy())
               .then(chunk => { window.__chunk = chunk.chunk; },
                     error => { window.__failed = String(error); });",
        )
        .await;
    assert!(
        session
            .wait_until("window.__chunk !== undefined || window.__failed !== undefined")
            .await,
        "the import neither loaded nor failed"
    );
    let outcome = session
        .execute("return [window.__chunk ?? null, window.__failed ?? null];")
        .await;
    (outcome[0].clone(), outcome[1].clone())
}

/// Opens release 2's page, deploys `next`, and returns what the page's lazy import got
/// and what the server saw for the chunk.
async fn deploy_under_an_open_page(
    programs: &BrowserPrograms,
    next: ServeAssets,
) -> ((Value, Value), integration_tests::browser::Seen) {
    in_browser(programs, TEST_TIMEOUT, move |session| {
        let next = next.clone();
        async move {
            let current: Current = Arc::new(Mutex::new(release_2::SITE.service()));
            let log = ServerLog::default();
            let addr = spawn_origin(current.clone(), log.clone(), axum::Router::new()).await;
            session.navigate(&format!("http://{addr}/index.html")).await;
            assert!(
                session
                    .wait_until("document.querySelector('h1').dataset.release === '2'")
                    .await,
                "release 2's page ran its script"
            );
            assert!(
                log.snapshot().iter().all(|seen| seen.path != CHUNK),
                "the chunk is loaded only when asked for"
            );
            // The deploy: the origin's replica is release 3 from now on.
            *current.lock().expect("current service") = next;
            let got = load_lazy_chunk(&session).await;
            (got, wait_for_request(&log, CHUNK).await)
        }
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_open_page_of_the_last_release_loads_its_lazy_chunk_from_the_new_one() {
    let Some(programs) = BrowserPrograms::find() else {
        return;
    };
    assert_eq!(
        release_3::SITE.get(CHUNK).and_then(|a| a.earlier_release()),
        Some("5bf77a53ffd05cec")
    );
    let ((chunk, failed), seen) =
        deploy_under_an_open_page(&programs, release_3::SITE.service()).await;
    assert_eq!(
        (chunk, failed),
        (json!("lazy chunk of release 2"), Value::Null),
        "release 2's own chunk, from release 3's server"
    );
    assert_eq!(seen.status, StatusCode::OK);

    // The control: release 3 without its releases breaks the same page.
    let ((chunk, failed), seen) =
        deploy_under_an_open_page(&programs, release_3_alone::SITE.service()).await;
    assert_eq!(chunk, Value::Null);
    assert!(
        failed
            .as_str()
            .is_some_and(|e| e.contains("Failed to fetch dynamically imported module")),
        "{failed}"
    );
    assert_eq!(seen.status, StatusCode::NOT_FOUND);
}
