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

use integration_tests::rolling::release_2;

/// Release 3, with the releases kept before it.
use integration_tests::rolling as release_3;

mod release_3_alone {
    embed_assets::embed_assets!(
        pub static SITE = "fixtures/rolling/public",
        fingerprint = true,
        hashed = "assets/*",
    );
}

/// The same two releases with `reload_on_stale`: release 3 alone (release 2 aged out).
mod guarded {
    pub(super) mod release_2 {
        embed_assets::embed_assets!(
            pub static SITE = "fixtures/rolling/release-2",
            fingerprint = true,
            hashed = "assets/*",
            reload_on_stale = true,
        );
    }

    pub(super) mod release_3_alone {
        embed_assets::embed_assets!(
            pub static SITE = "fixtures/rolling/public",
            fingerprint = true,
            hashed = "assets/*",
            reload_on_stale = true,
        );
    }

    /// The same release without its chunks, nor any file they could be a version of:
    /// the lazy import gets a plain 404, not the final one of an unknown version.
    pub(super) mod missing {
        embed_assets::embed_assets!(
            pub static SITE = "fixtures/rolling-broken",
            exclude = "assets/*",
            reload_on_stale = true,
        );
    }

    /// A release broken in itself: its page's lazy chunk is a version it does not have.
    pub(super) mod broken {
        embed_assets::embed_assets!(
            pub static SITE = "fixtures/rolling-broken",
            fingerprint = true,
            hashed = "assets/*",
            reload_on_stale = true,
        );
    }
}

/// A Vite app with a lazily loaded route, two releases (`fixtures/vite-lazy`), with the
/// guard: Vite's preload helper loads the route's script and style sheet, and reports a
/// failure as `vite:preloadError`.
mod vite_lazy {
    pub(super) mod release_1 {
        embed_assets::embed_assets!(
            pub static SITE = "fixtures/vite-lazy/release-1",
            hashed = "assets/*",
            reload_on_stale = true,
        );
    }

    pub(super) mod release_2 {
        embed_assets::embed_assets!(
            pub static SITE = "fixtures/vite-lazy/release-2",
            hashed = "assets/*",
            reload_on_stale = true,
        );
    }
}

/// Release 1's route, script and style sheet, as its entry loads them.
const VITE_ROUTE: [&str; 2] = ["/assets/route-Cq-MU6ZM.js", "/assets/route-odPED28w.css"];

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

/// How long a test waits for the browser to reload a page, and then watches for a
/// reload that must not come.
const RELOAD_WAIT: Duration = Duration::from_secs(15);
const NO_MORE_RELOADS: Duration = Duration::from_secs(2);

/// How many times the origin served the page: the first load and every reload.
fn page_loads(log: &ServerLog) -> usize {
    log.snapshot()
        .iter()
        .filter(|seen| seen.path == "/index.html")
        .count()
}

/// Waits (on the server's side: no script runs in the page while it reloads) until the
/// page was loaded `n` times; whether it was.
async fn wait_for_page_loads(log: &ServerLog, n: usize) -> bool {
    let deadline = tokio::time::Instant::now() + RELOAD_WAIT;
    while page_loads(log) < n {
        if tokio::time::Instant::now() > deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    true
}

/// Starts the page's lazy import and returns at once: the page may reload under it.
async fn start_lazy_import(session: &Session) {
    session
        .execute("import('/js/app.js').then(app => app.lazy()).catch(() => {}); return null;")
        .await;
}

/// The release the open page is of, once its script has run.
async fn page_release(session: &Session) -> Value {
    assert!(
        session
            .wait_until("document.querySelector('h1')?.dataset.release !== undefined")
            .await,
        "the page ran its script"
    );
    session
        .execute("return document.querySelector('h1').dataset.release;")
        .await
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_the_guard_an_open_page_whose_release_aged_out_reloads_once_onto_the_new_one() {
    let Some(programs) = BrowserPrograms::find() else {
        return;
    };
    let page = guarded::release_2::SITE
        .get("/index.html")
        .expect("the page");
    assert_eq!(
        page.script_hashes().len(),
        1,
        "the guard is the page's one inline script"
    );
    in_browser(&programs, TEST_TIMEOUT, |session| async move {
        let current: Current = Arc::new(Mutex::new(guarded::release_2::SITE.service()));
        let log = ServerLog::default();
        let addr = spawn_origin(current.clone(), log.clone(), axum::Router::new()).await;
        session.navigate(&format!("http://{addr}/index.html")).await;
        assert_eq!(page_release(&session).await, json!("2"));
        // The deploy: release 3, which kept no earlier release.
        *current.lock().expect("current service") = guarded::release_3_alone::SITE.service();
        start_lazy_import(&session).await;
        assert_eq!(
            wait_for_request(&log, CHUNK).await.status,
            StatusCode::NOT_FOUND
        );
        assert!(
            wait_for_page_loads(&log, 2).await,
            "the guard reloaded the page after its chunk's 404"
        );
        assert_eq!(page_release(&session).await, json!("3"), "release 3's page");
        assert_eq!(
            load_lazy_chunk(&session).await,
            (json!("lazy chunk of release 3"), Value::Null),
            "the reloaded page works"
        );
        tokio::time::sleep(NO_MORE_RELOADS).await;
        assert_eq!(page_loads(&log), 2, "one reload, no more");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_guard_the_page_whose_release_aged_out_stays_broken() {
    let Some(programs) = BrowserPrograms::find() else {
        return;
    };
    in_browser(&programs, TEST_TIMEOUT, |session| async move {
        let current: Current = Arc::new(Mutex::new(release_2::SITE.service()));
        let log = ServerLog::default();
        let addr = spawn_origin(current.clone(), log.clone(), axum::Router::new()).await;
        session.navigate(&format!("http://{addr}/index.html")).await;
        assert_eq!(page_release(&session).await, json!("2"));
        *current.lock().expect("current service") = release_3_alone::SITE.service();
        let (chunk, failed) = load_lazy_chunk(&session).await;
        assert_eq!(chunk, Value::Null);
        assert!(
            failed
                .as_str()
                .is_some_and(|e| e.contains("dynamically imported")),
            "{failed}"
        );
        tokio::time::sleep(NO_MORE_RELOADS).await;
        assert_eq!(page_loads(&log), 1, "nothing reloads the page");
        assert_eq!(
            page_release(&session).await,
            json!("2"),
            "still release 2's page"
        );
    })
    .await;
}

/// The server restarts between releases: the page's chunk fails with the final 404,
/// but the guard's check of it finds the server answering 503 (a balancer while the
/// replica restarts). That check says nothing, so the guard checks again a moment
/// later, when release 3 answers, and reloads the page onto it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_guard_checks_again_when_its_check_was_inconclusive() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let Some(programs) = BrowserPrograms::find() else {
        return;
    };
    in_browser(&programs, TEST_TIMEOUT, |session| async move {
        let current: Current = Arc::new(Mutex::new(guarded::release_2::SITE.service()));
        let log = ServerLog::default();
        // The chunk while the server restarts: the final 404 to the browser's GET, 503
        // to the guard's HEAD; once `up`, whatever the release being served answers.
        let up = Arc::new(AtomicBool::new(true));
        let chunk = {
            let (current, up) = (current.clone(), up.clone());
            axum::routing::any(move |request: axum::extract::Request| {
                let mut service = current.lock().expect("current service").clone();
                let up = up.load(Ordering::SeqCst);
                async move {
                    use axum::response::IntoResponse;
                    if up {
                        let response = tower_service::Service::call(&mut service, request)
                            .await
                            .unwrap_or_else(|never| match never {});
                        response.map(axum::body::Body::new)
                    } else if request.method() == http::Method::HEAD {
                        StatusCode::SERVICE_UNAVAILABLE.into_response()
                    } else {
                        (StatusCode::NOT_FOUND, [("cache-control", "no-store")]).into_response()
                    }
                }
            })
        };
        let routes = axum::Router::new().route(CHUNK, chunk);
        let addr = spawn_origin(current.clone(), log.clone(), routes).await;
        session.navigate(&format!("http://{addr}/index.html")).await;
        assert_eq!(page_release(&session).await, json!("2"));
        up.store(false, Ordering::SeqCst);
        start_lazy_import(&session).await;
        let deadline = tokio::time::Instant::now() + RELOAD_WAIT;
        while !log
            .snapshot()
            .iter()
            .any(|seen| seen.path == CHUNK && seen.status == StatusCode::SERVICE_UNAVAILABLE)
        {
            assert!(
                tokio::time::Instant::now() < deadline,
                "the guard did not check the chunk: {:#?}",
                log.snapshot()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        // Restarted as release 3, which kept no earlier release.
        *current.lock().expect("current service") = guarded::release_3_alone::SITE.service();
        up.store(true, Ordering::SeqCst);
        assert!(
            wait_for_page_loads(&log, 2).await,
            "the guard gave up after its inconclusive check: {:#?}",
            log.snapshot()
        );
        assert_eq!(page_release(&session).await, json!("3"), "release 3's page");
        tokio::time::sleep(NO_MORE_RELOADS).await;
        assert_eq!(page_loads(&log), 2, "one reload, no more");
    })
    .await;
}

/// A real Vite app across a server restart between releases: release 1's page is open
/// when its server goes down; the route the user opens then fails (503 while the server
/// restarts), Vite reports it as `vite:preloadError`, and the guard's check of it finds
/// the server still down. It checks again a moment later, finds release 2 answering
/// the final 404 for release 1's route, and reloads the page onto release 2.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_guard_reloads_a_vite_app_whose_route_failed_while_its_server_restarted() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let Some(programs) = BrowserPrograms::find() else {
        return;
    };
    for path in VITE_ROUTE {
        assert!(vite_lazy::release_1::SITE.get(path).is_some(), "{path}");
        assert!(vite_lazy::release_2::SITE.get(path).is_none(), "{path}");
    }
    in_browser(&programs, TEST_TIMEOUT, |session| async move {
        let current: Current = Arc::new(Mutex::new(vite_lazy::release_1::SITE.service()));
        let log = ServerLog::default();
        // While the server restarts, release 1's route answers 503 to everything.
        let up = Arc::new(AtomicBool::new(true));
        let mut routes = axum::Router::new();
        for path in VITE_ROUTE {
            let (current, up) = (current.clone(), up.clone());
            routes = routes.route(
                path,
                axum::routing::any(move |request: axum::extract::Request| {
                    let mut service = current.lock().expect("current service").clone();
                    let up = up.load(Ordering::SeqCst);
                    async move {
                        use axum::response::IntoResponse;
                        if !up {
                            return StatusCode::SERVICE_UNAVAILABLE.into_response();
                        }
                        let response = tower_service::Service::call(&mut service, request)
                            .await
                            .unwrap_or_else(|never| match never {});
                        response.map(axum::body::Body::new)
                    }
                }),
            );
        }
        let addr = spawn_origin(current.clone(), log.clone(), routes).await;
        session.navigate(&format!("http://{addr}/index.html")).await;
        assert!(
            session
                .wait_until("document.querySelector('h1')?.dataset.ready === 'yes'")
                .await,
            "release 1's entry ran"
        );
        assert_eq!(page_release(&session).await, json!("1"));
        up.store(false, Ordering::SeqCst);
        session
            .execute("window.openRoute().catch(() => {}); return null;")
            .await;
        // The route failed, and the guard's first check met the restarting server.
        let deadline = tokio::time::Instant::now() + RELOAD_WAIT;
        loop {
            let failed = log
                .snapshot()
                .iter()
                .filter(|seen| {
                    VITE_ROUTE.contains(&seen.path.as_str())
                        && seen.status == StatusCode::SERVICE_UNAVAILABLE
                })
                .count();
            if failed >= 3 {
                break;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "the route and the guard's checks: {:#?}",
                log.snapshot()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        // Back, as release 2.
        *current.lock().expect("current service") = vite_lazy::release_2::SITE.service();
        up.store(true, Ordering::SeqCst);
        assert!(
            wait_for_page_loads(&log, 2).await,
            "the guard gave up after the restart: {:#?}",
            log.snapshot()
        );
        assert!(
            session
                .wait_until("document.querySelector('h1')?.dataset.ready === 'yes'")
                .await,
            "release 2's entry ran"
        );
        assert_eq!(page_release(&session).await, json!("2"), "release 2's page");
        let route = session
            .execute(
                "window.__route = undefined; window.openRoute().then(t => { window.__route = t; }); return null;",
            )
            .await;
        assert_eq!(route, Value::Null);
        assert!(session.wait_until("window.__route !== undefined").await);
        assert_eq!(
            session.execute("return window.__route;").await,
            json!("route of release 2"),
            "the reloaded page opens its route"
        );
        tokio::time::sleep(NO_MORE_RELOADS).await;
        assert_eq!(page_loads(&log), 2, "one reload, no more");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_guard_reloads_a_release_broken_in_itself_once_and_never_in_a_loop() {
    let Some(programs) = BrowserPrograms::find() else {
        return;
    };
    in_browser(&programs, TEST_TIMEOUT, |session| async move {
        let current: Current = Arc::new(Mutex::new(guarded::broken::SITE.service()));
        let log = ServerLog::default();
        let addr = spawn_origin(current.clone(), log.clone(), axum::Router::new()).await;
        session.navigate(&format!("http://{addr}/index.html")).await;
        assert_eq!(page_release(&session).await, json!("2"));
        start_lazy_import(&session).await;
        assert!(
            wait_for_page_loads(&log, 2).await,
            "the first failure reloads the page"
        );
        assert_eq!(page_release(&session).await, json!("2"));
        // The same failure on the reloaded page: handled by the page, seen by the guard,
        // and no second reload.
        let (chunk, failed) = load_lazy_chunk(&session).await;
        assert_eq!(chunk, Value::Null, "{failed}");
        tokio::time::sleep(NO_MORE_RELOADS).await;
        assert_eq!(page_loads(&log), 2, "one reload, no more");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_guard_leaves_a_page_alone_on_a_plain_404() {
    let Some(programs) = BrowserPrograms::find() else {
        return;
    };
    in_browser(&programs, TEST_TIMEOUT, |session| async move {
        let current: Current = Arc::new(Mutex::new(guarded::missing::SITE.service()));
        let log = ServerLog::default();
        let addr = spawn_origin(current.clone(), log.clone(), axum::Router::new()).await;
        session.navigate(&format!("http://{addr}/index.html")).await;
        assert_eq!(page_release(&session).await, json!("2"));
        let (chunk, failed) = load_lazy_chunk(&session).await;
        assert_eq!(chunk, Value::Null, "{failed}");
        let seen = wait_for_request(&log, CHUNK).await;
        assert_eq!(seen.status, StatusCode::NOT_FOUND);
        tokio::time::sleep(NO_MORE_RELOADS).await;
        assert_eq!(
            page_loads(&log),
            1,
            "a 404 that is not final reloads nothing"
        );
    })
    .await;
}
