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

use base64::Engine as _;
use embed_assets::Encoding;
use http::StatusCode;
use integration_tests::browser::{
    in_browser, spawn_origin, wait_for_request, BrowserPrograms, Current, Seen, ServerLog, Session,
};
use sha2::{Digest, Sha256};

mod release_1 {
    embed_assets::embed_assets!(
        pub static SITE = "fixtures/dictionary/release-1",
        fingerprint = true,
        rewrite_references = true,
        releases = "fixtures/dictionary/releases",
    );
}

mod release_2 {
    embed_assets::embed_assets!(
        pub static SITE = "fixtures/dictionary/public",
        fingerprint = true,
        rewrite_references = true,
        releases = "fixtures/dictionary/releases",
    );
}

/// The whole test, browser start to the last check, must finish within this.
const TEST_TIMEOUT: Duration = Duration::from_secs(180);

fn this_build(site: &embed_assets::Assets, path: &str) -> &'static embed_assets::Asset {
    site.iter()
        .find(|a| a.path() == path && a.release().is_none())
        .unwrap()
}

/// Opens `/index.html` and waits until its script has run for release `n`.
async fn open(session: &Session, addr: std::net::SocketAddr, n: u32) {
    session.navigate(&format!("http://{addr}/index.html")).await;
    let ran = format!("document.documentElement.dataset.release === '{n}'");
    assert!(
        session.wait_until(&ran).await,
        "release {n}'s script did not run: {}",
        session
            .execute("return document.documentElement.outerHTML.slice(0, 400)")
            .await
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_gets_release_2s_bundle_compressed_against_release_1s_and_runs_it() {
    let Some(programs) = BrowserPrograms::find() else {
        return;
    };
    let old = this_build(&release_1::SITE, "/js/app.js");
    let new = this_build(&release_2::SITE, "/js/app.js");
    let new_url = new.fingerprinted_path().unwrap().to_owned();
    let seen: Seen = in_browser(&programs, TEST_TIMEOUT, move |session| {
        let new_url = new_url.clone();
        async move {
            let current: Current = Arc::new(Mutex::new(release_1::SITE.service()));
            let log = ServerLog::default();
            let addr = spawn_origin(current.clone(), log.clone()).await;
            open(&session, addr, 1).await;
            // Chromium stores a dictionary once its response is complete, off the
            // page's path: give it a moment before the next navigation needs it.
            tokio::time::sleep(Duration::from_millis(500)).await;
            // The deploy, then the same page again in the same browser.
            *current.lock().expect("current service") = release_2::SITE.service();
            open(&session, addr, 2).await;
            wait_for_request(&log, &new_url).await
        }
    })
    .await;
    let dictionary = format!(
        ":{}:",
        base64::engine::general_purpose::STANDARD
            .encode(Sha256::digest(old.body(Encoding::Identity).unwrap()))
    );
    assert_eq!(seen.status, StatusCode::OK, "{seen:?}");
    assert_eq!(
        seen.available_dictionary.as_deref(),
        Some(dictionary.as_str()),
        "Chromium names release 1's bundle as its dictionary: {seen:?}"
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
