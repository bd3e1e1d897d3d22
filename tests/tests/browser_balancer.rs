//! Replicas of releases 1 and 2 behind a real nginx load balancer, as in the middle of
//! a rolling deploy: round-robin over one replica still serving release 1 of the Vite
//! app (`tests/fixtures/vite-releases/release-1`) and one already serving release 2
//! (which keeps release 1's hashed files, `releases`). Release 2's bundle is a hashed
//! file release 1's replica has never heard of.
//!
//! With the balancer retrying a 404 on the other replica (`proxy_next_upstream ...
//! http_404`, as `guide::deploying` says), headless Chromium loads the page again and
//! again: pages of both releases come, each runs its own bundle, and no request fails.
//! Without it, one of two requests for release 2's bundle fails (so the test can fail).
//!
//! Needs `chromium`, `chromedriver` and nginx, as `browser.rs` and `proxy.rs`.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use http::StatusCode;
use integration_tests::browser::{BrowserPrograms, ServerLog, in_browser, spawn_origin};
use integration_tests::caches::{CacheKind, CacheProcess};
use integration_tests::get;
use serde_json::Value;

mod release_1 {
    // Release 1 as it was deployed: it knows no later release.
    embed_assets::embed_assets!(pub static SITE = "fixtures/vite-releases/release-1");
}

mod release_2 {
    embed_assets::embed_assets!(
        pub static SITE = "fixtures/vite-releases/public",
        releases = "fixtures/vite-releases/releases",
    );
}

/// The whole test, browser start to the last check, must finish within this.
const TEST_TIMEOUT: Duration = Duration::from_secs(180);
/// How long the page is loaded again and again, at the most.
const ALTERNATION: Duration = Duration::from_secs(60);
/// How many times, at the most.
const LOADS: usize = 16;

/// This build's Vite bundle of `site`.
fn bundle(site: &embed_assets::Assets) -> &'static str {
    site.iter()
        .find(|a| {
            a.earlier_release().is_none()
                && a.path().starts_with("/assets/index-")
                && a.path().ends_with(".js")
        })
        .expect("a Vite bundle")
        .path()
}

/// The app's API, which its page calls once its bundle runs.
fn api() -> axum::Router {
    axum::Router::new().route(
        "/api/hello",
        axum::routing::get(|| async {
            axum::Json(serde_json::json!({ "message": "Hello", "served_by": "test" }))
        }),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_of_both_releases_load_whole_through_a_round_robin_balancer() {
    let Some(programs) = BrowserPrograms::find() else {
        return;
    };
    let Some(nginx) = CacheKind::Nginx.program() else {
        return;
    };
    let (old_bundle, new_bundle) = (bundle(&release_1::SITE), bundle(&release_2::SITE));
    assert_ne!(old_bundle, new_bundle);
    assert!(release_1::SITE.get(new_bundle).is_none());
    in_browser(&programs, TEST_TIMEOUT, move |session| {
        let nginx = nginx.clone();
        async move {
            let one = spawn_origin(
                Arc::new(Mutex::new(release_1::SITE.service())),
                ServerLog::default(),
                api(),
            )
            .await;
            let two = spawn_origin(
                Arc::new(Mutex::new(release_2::SITE.service())),
                ServerLog::default(),
                api(),
            )
            .await;

            // The control: without the retry, one of two requests for release 2's
            // bundle reaches release 1's replica, which has no such file.
            let plain = CacheProcess::start_balancer(&nginx, &[one, two], false).await;
            let mut statuses = Vec::new();
            for _ in 0..2 {
                statuses.push(get(plain.addr, new_bundle, &[]).await.0);
            }
            statuses.sort();
            assert_eq!(statuses, [StatusCode::OK, StatusCode::NOT_FOUND]);
            drop(plain);

            // With it, each release's files from either replica.
            let balancer = CacheProcess::start_balancer(&nginx, &[one, two], true).await;
            for _ in 0..4 {
                for path in [old_bundle, new_bundle, "/index.html"] {
                    let status = get(balancer.addr, path, &[]).await.0;
                    assert_eq!(status, StatusCode::OK, "{path} through the balancer");
                }
            }
            // Chromium, page after page, its cache off so that every load asks the
            // balancer for every file: each page runs its own release's bundle, and no
            // request of the page fails.
            session.disable_cache().await;
            let started = Instant::now();
            let mut bundles_run = BTreeSet::new();
            for load in 0..LOADS {
                if started.elapsed() > ALTERNATION {
                    break;
                }
                let url = format!("http://{}/index.html?load={load}", balancer.addr);
                session.navigate(&url).await;
                assert!(
                    session
                        .wait_until("document.querySelector('#app-ready') !== null")
                        .await,
                    "load {load}: the page's bundle did not run"
                );
                let page = session
                    .execute(
                        "return [
                           document.querySelector('script[type=module]').getAttribute('src'),
                           document.querySelector('#status').title,
                           performance.getEntriesByType('navigation')
                             .concat(performance.getEntriesByType('resource'))
                             .filter(e => e.responseStatus === 0 || e.responseStatus >= 400)
                             .map(e => e.name + ' ' + e.responseStatus)
                         ];",
                    )
                    .await;
                let script = page[0].as_str().unwrap_or_default().to_owned();
                // Release 2's page is the one whose bundle sets the status line's title.
                let expected_title = if script == new_bundle {
                    "Served by release 2"
                } else {
                    ""
                };
                assert_eq!(
                    page[1],
                    Value::from(expected_title),
                    "load {load}: {script}"
                );
                assert_eq!(
                    page[2],
                    serde_json::json!([]),
                    "load {load}: failed requests"
                );
                bundles_run.insert(script);
            }
            assert_eq!(
                bundles_run,
                BTreeSet::from([old_bundle.to_owned(), new_bundle.to_owned()]),
                "pages of both releases came through the balancer"
            );
        }
    })
    .await;
}
