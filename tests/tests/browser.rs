//! End to end in a real browser: headless Chromium, driven through chromedriver's W3C
//! WebDriver HTTP API, loads the example site (`examples/public`, embedded here with
//! `embed_assets!`) from our server on 127.0.0.1, then reloads it.
//!
//! Both ends are checked: what the browser shows and measures (computed style, the DOM
//! change made by the script, Resource Timing sizes) and what the server saw (a
//! recording middleware: path, request validators, status, `Content-Encoding`). A
//! screenshot is saved to `<target dir>/test-artifacts/browser-example.png`.
//!
//! Needs `chromium` and `chromedriver` (Debian packages `chromium` and
//! `chromium-driver`); `bash tests/run.sh` installs them.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::middleware;
use axum::routing::get;
use axum::{Json, Router};
use embed_assets::{Assets, embed_assets};
use http::StatusCode;
use integration_tests::browser::{
    BrowserPrograms, PAGE_TIMEOUT, Png, Seen, ServerLog, Session, Timings, artifact_dir,
    in_browser, only_request, record, resource_timings, wait_for_request,
};
use integration_tests::spawn_router;
use serde_json::json;

/// The example site, embedded the way `examples/src/main.rs` embeds it.
static EXAMPLE: Assets = embed_assets!("../examples/public");

/// The example server's policy (`examples/src/main.rs`).
const POLICY: &str = "default-src 'self'; script-src 'self' {scripts}; style-src 'self' {styles}; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

/// The whole test, browser start to screenshot, must finish within this.
const TEST_TIMEOUT: Duration = Duration::from_secs(180);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_renders_the_example_site_from_brotli_bodies_and_revalidates_it_on_reload() {
    let Some(programs) = BrowserPrograms::find() else {
        return;
    };
    in_browser(&programs, TEST_TIMEOUT, |session| async move {
        let log = ServerLog::default();
        let addr = spawn_example(log.clone()).await;
        drive(&session, addr, &log).await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_lost_under_a_test_is_replaced_once_and_an_assertion_is_not_retried() {
    let Some(programs) = BrowserPrograms::find() else {
        return;
    };
    let scenario = |attempts: Arc<AtomicUsize>, lose: usize| {
        move |session: Arc<Session>| {
            let attempts = attempts.clone();
            async move {
                let attempt = attempts.fetch_add(1, Ordering::SeqCst) + 1;
                if attempt <= lose {
                    session.close_window().await;
                }
                session.execute("return 6 * 7").await
            }
        }
    };
    let attempts = Arc::new(AtomicUsize::new(0));
    let value = in_browser(&programs, TEST_TIMEOUT, scenario(attempts.clone(), 1)).await;
    assert_eq!((value, attempts.load(Ordering::SeqCst)), (json!(42), 2));

    // Lost twice: the test fails, with chromedriver's words. (These failures are
    // meant: their profiles are not kept.)
    let programs = BrowserPrograms {
        keep_failed: false,
        ..programs
    };
    let attempts = Arc::new(AtomicUsize::new(0));
    let twice = tokio::spawn({
        let (programs, attempts) = (programs.clone(), attempts.clone());
        async move { in_browser(&programs, TEST_TIMEOUT, scenario(attempts, 2)).await }
    })
    .await
    .expect_err("a browser lost twice fails the test");
    let message = twice.into_panic();
    let message = message.downcast_ref::<String>().expect("a panic message");
    assert!(message.contains("no such window"), "{message}");
    assert_eq!(attempts.load(Ordering::SeqCst), 2);

    // An assertion fails at once.
    let attempts = Arc::new(AtomicUsize::new(0));
    let failed = tokio::spawn({
        let (programs, attempts) = (programs.clone(), attempts.clone());
        in_browser_assertion(programs, attempts)
    })
    .await;
    assert!(failed.is_err_and(|error| error.is_panic()));
    assert_eq!(attempts.load(Ordering::SeqCst), 1);
}

async fn in_browser_assertion(programs: BrowserPrograms, attempts: Arc<AtomicUsize>) {
    in_browser(&programs, TEST_TIMEOUT, move |session: Arc<Session>| {
        let attempts = attempts.clone();
        async move {
            attempts.fetch_add(1, Ordering::SeqCst);
            let value = session.execute("return 6 * 7").await;
            assert_eq!(value, json!(41), "an assertion of the test");
        }
    })
    .await;
}

#[cfg(feature = "vite")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_runs_the_vite_app_and_reloads_its_hashed_files_from_the_cache() {
    let Some(programs) = BrowserPrograms::find() else {
        return;
    };
    in_browser(&programs, TEST_TIMEOUT, |session| async move {
        let log = ServerLog::default();
        let router = example_vite::app().layer(middleware::from_fn_with_state(log.clone(), record));
        let addr = spawn_router(router).await;
        drive_vite(&session, addr, &log).await;
    })
    .await;
}

#[cfg(feature = "vite")]
/// Loads the Vite app, waits for `#app-ready` (its script ran and `/api/hello`
/// answered), then reloads: the page revalidates, the hashed files are not asked for.
async fn drive_vite(session: &Session, addr: SocketAddr, log: &ServerLog) {
    let ready =
        "document.readyState === 'complete' && document.querySelector('#app-ready') !== null";
    let entry = example_vite::frontend::paths::entries::INDEX_HTML;
    let hashed: Vec<&str> = std::iter::once(entry.file())
        .chain(entry.css().iter().copied())
        .collect();

    session.navigate(&format!("http://{addr}/")).await;
    assert!(
        session.wait_until(ready).await,
        "first load: no #app-ready within {PAGE_TIMEOUT:?}: {}",
        session.execute("return document.body.innerHTML").await
    );
    let text = session
        .execute("return document.querySelector('#status').textContent")
        .await;
    assert_eq!(text, "Hello from Rust (axum)", "the API's answer is shown");
    let color = session
        .execute("return getComputedStyle(document.querySelector('#status')).color")
        .await;
    assert_eq!(color, "rgb(26, 127, 69)", "the hashed stylesheet applied");
    let first = log.snapshot();
    for path in std::iter::once("/").chain(hashed.iter().copied()) {
        let seen = only_request(&first, path);
        assert_eq!(seen.status, StatusCode::OK, "{seen:?}");
        let compressible = example_vite::frontend::ASSETS
            .get(if path == "/" { "/index.html" } else { path })
            .is_some_and(|a| a.is_negotiated());
        // Chromium asks for br; a file with stored encodings says it varies by them.
        let (encoding, vary) = match compressible {
            true => (Some("br"), Some("accept-encoding")),
            false => (None, None),
        };
        assert_eq!(seen.content_encoding.as_deref(), encoding, "{seen:?}");
        assert_eq!(seen.vary.as_deref(), vary, "{seen:?}");
    }
    assert_eq!(only_request(&first, "/api/hello").status, StatusCode::OK);

    session.refresh().await;
    assert!(session.wait_until(ready).await, "reload: no #app-ready");
    let reload = log.snapshot()[first.len()..].to_vec();
    let page = only_request(&reload, "/");
    assert_eq!(
        page.status,
        StatusCode::NOT_MODIFIED,
        "the page revalidates: {page:?}"
    );
    assert_eq!(page.if_none_match, only_request(&first, "/").etag);
    for path in &hashed {
        assert!(
            reload.iter().all(|seen| seen.path != *path),
            "{path} is immutable: the reload must take it from the cache, but asked: {reload:?}"
        );
    }
    let timings = resource_timings(session).await;
    for path in &hashed {
        assert_eq!(
            timings.get(path)["transferSize"],
            0,
            "{path}: a cache hit transfers nothing"
        );
    }
}

async fn drive(session: &Session, addr: SocketAddr, log: &ServerLog) {
    let url = format!("http://{addr}/");

    // First visit, with the fresh profile's empty cache.
    session.navigate(&url).await;
    assert_page_works(session, "first load").await;
    assert_policy_holds(session).await;
    assert_preloads_are_used(session, log).await;
    let favicon = wait_for_request(log, "/favicon.ico").await;
    assert_eq!(favicon.status, StatusCode::OK, "favicon: {favicon:?}");
    let first_load = log.snapshot();
    let first_timings = assert_first_load_is_compressed(session, &first_load).await;

    // Reload: the cache holds every response (`Cache-Control: no-cache`, strong ETags),
    // so each must come back as a conditional request answered 304.
    session.refresh().await;
    assert_page_works(session, "reload").await;
    let reload = log.snapshot()[first_load.len()..].to_vec();
    assert_reload_revalidates(session, (&first_load, &first_timings), &reload).await;

    save_screenshot(session).await;
}

/// Under the strict policy (Content Security Policy Level 3: hash sources, no
/// `'unsafe-inline'`), the page's own inline script and style, allowed by the hashes
/// the macro computed, ran and applied with no violation in the console; a script
/// injected into the DOM at run time is refused, with a `securitypolicyviolation`.
async fn assert_policy_holds(session: &Session) {
    let page = session
        .execute(
            "return {
               inline: document.documentElement.dataset.inlineScript || null,
               border: getComputedStyle(document.querySelector('.inline-note')).borderLeftColor,
             };",
        )
        .await;
    assert_eq!(page["inline"], "ran", "the inline script ran: {page}");
    assert_eq!(
        page["border"], "rgb(51, 102, 204)",
        "the inline style applied: {page}"
    );
    let log = session.browser_log().await;
    let violations: Vec<_> = log
        .iter()
        .filter(|entry| entry.message.contains("Content Security Policy"))
        .collect();
    assert!(
        violations.is_empty(),
        "the page's own code broke its policy: {violations:?}"
    );
    let injected = session
        .execute(
            "window.__violations = [];
             document.addEventListener('securitypolicyviolation', (event) =>
               window.__violations.push({ directive: event.effectiveDirective, blocked: event.blockedURI }));
             const script = document.createElement('script');
             script.textContent = 'window.__injected = true;';
             document.head.appendChild(script);
             return window.__injected === true;",
        )
        .await;
    assert_eq!(injected, false, "an injected inline script ran");
    assert!(
        session.wait_until("window.__violations.length > 0").await,
        "no securitypolicyviolation for the injected script"
    );
    let seen = session.execute("return window.__violations").await;
    assert_eq!(seen[0]["directive"], "script-src-elem", "{seen}");
    assert_eq!(seen[0]["blocked"], "inline", "{seen}");
}

/// The page's `Link` preloads (`preload_links()`) are the requests its elements use:
/// each file is fetched once, by the preload (Resource Timing gives the script the
/// initiator `link`, where its element alone gives `script`), and a few seconds after the load event Chromium has not warned that a
/// preload went unused (it does when the URL, `as` or CORS mode does not match).
async fn assert_preloads_are_used(session: &Session, log: &ServerLog) {
    let links = EXAMPLE
        .get("/index.html")
        .expect("embedded")
        .preload_links();
    assert_eq!(links.len(), 2, "{links:?}");
    for path in ["/css/app.css", "/js/app.js"] {
        let seen = log.snapshot();
        only_request(&seen, path);
    }
    let timings = resource_timings(session).await;
    let script = timings.get("/js/app.js");
    assert_eq!(
        script["initiatorType"], "link",
        "the script came from the Link preload, not from its element: {script}"
    );
    // Chromium warns 3 s after the load event.
    tokio::time::sleep(Duration::from_secs(4)).await;
    let log = session.browser_log().await;
    let unused: Vec<_> = log
        .iter()
        .filter(|entry| {
            entry
                .message
                .contains("preloaded using link preload but not used")
        })
        .collect();
    assert!(unused.is_empty(), "unused preloads: {unused:?}");
}

/// Computed style proves the stylesheet applied, `#status` proves the script ran, the
/// `#health` text proves its fetch of `/api/health` worked, the logo decoded.
async fn assert_page_works(session: &Session, when: &str) {
    let ready = session
        .wait_until(
            "document.readyState === 'complete' \
             && document.querySelector('#status').textContent === 'JavaScript ran' \
             && document.querySelector('#health').textContent.includes('\"status\": \"ok\"')",
        )
        .await;
    assert!(
        ready,
        "{when}: the script did not run or /api/health did not answer within {PAGE_TIMEOUT:?}; \
         page state: {}",
        session
            .execute(
                "return {readyState: document.readyState, \
                 status: document.querySelector('#status').textContent, \
                 health: document.querySelector('#health').textContent}",
            )
            .await
    );
    let page = session
        .execute(
            "const status = document.querySelector('#status');
             const logo = document.querySelector('header img');
             return {
               background: getComputedStyle(document.body).backgroundColor,
               statusClass: status.className,
               statusColor: getComputedStyle(status).color,
               logoWidth: logo.naturalWidth,
               logoComplete: logo.complete,
             };",
        )
        .await;
    assert_eq!(page["background"], "rgb(250, 250, 245)", "{when}: {page}");
    assert_eq!(page["statusClass"], "ok", "{when}: {page}");
    // `#status.ok` in app.css: the class the script added met the rule the CSS holds.
    assert_eq!(page["statusColor"], "rgb(0, 128, 0)", "{when}: {page}");
    assert_eq!(page["logoComplete"], true, "{when}: {page}");
    assert_eq!(
        page["logoWidth"], 64,
        "{when}: logo.png is 64 px wide: {page}"
    );
}

/// What the browser measured and what the server sent on the first visit: every text
/// resource came brotli-encoded, and smaller on the wire than decoded. Returns the
/// browser's measurements.
async fn assert_first_load_is_compressed(session: &Session, first_load: &[Seen]) -> Timings {
    let timings = resource_timings(session).await;
    assert_eq!(
        timings.navigation["type"], "navigate",
        "{}",
        timings.navigation
    );
    for path in ["/", "/css/app.css", "/js/app.js"] {
        let entry = timings.get(path);
        let decoded = entry["decodedBodySize"].as_u64().expect("decodedBodySize");
        let encoded = entry["encodedBodySize"].as_u64().expect("encodedBodySize");
        let transferred = entry["transferSize"].as_u64().expect("transferSize");
        assert_eq!(
            decoded,
            example_file(path).len() as u64,
            "{path}: decoded size is the file's: {entry}"
        );
        assert!(
            0 < encoded && encoded < decoded,
            "{path}: a compressed body arrived: {entry}"
        );
        assert!(
            transferred > encoded,
            "{path}: the body came over the network, not from a cache: {entry}"
        );
        assert_eq!(entry["responseStatus"], 200, "{path}: {entry}");

        let seen = only_request(first_load, path);
        assert_eq!(seen.status, StatusCode::OK, "{seen:?}");
        assert_eq!(
            seen.if_none_match, None,
            "a fresh profile has no ETag: {seen:?}"
        );
        let accepted = seen.accept_encoding.as_deref().unwrap_or_default();
        assert!(
            accepted.split(',').any(|coding| coding.trim() == "br"),
            "Chromium offers br on http://127.0.0.1: {seen:?}"
        );
        assert_eq!(seen.content_encoding.as_deref(), Some("br"), "{seen:?}");
    }
    // An image is stored as-is: PNG does not compress further.
    let logo = only_request(first_load, "/img/logo.png");
    assert_eq!(logo.status, StatusCode::OK, "{logo:?}");
    assert_eq!(logo.content_encoding, None, "{logo:?}");
    let entry = timings.get("/img/logo.png");
    assert_eq!(
        entry["encodedBodySize"],
        example_file("/img/logo.png").len(),
        "{entry}"
    );
    let health = only_request(first_load, "/api/health");
    assert_eq!(health.status, StatusCode::OK, "{health:?}");
    timings
}

/// The reload revalidated the page, the stylesheet and the script: each request
/// carried the ETag from the first visit and got 304, and the browser measured no body
/// on the wire.
async fn assert_reload_revalidates(
    session: &Session,
    (first_load, first_timings): (&[Seen], &Timings),
    reload: &[Seen],
) {
    let timings = resource_timings(session).await;
    assert_eq!(
        timings.navigation["type"], "reload",
        "{}",
        timings.navigation
    );
    for path in ["/", "/css/app.css", "/js/app.js"] {
        let first = only_request(first_load, path);
        let again = only_request(reload, path);
        assert_eq!(
            again.if_none_match, first.etag,
            "{path}: the reload sent the ETag of the first response: {again:?}"
        );
        assert_eq!(again.status, StatusCode::NOT_MODIFIED, "{again:?}");

        // Resource Timing counts a revalidated response as its header octets only
        // (Chromium: a flat 300) and a cache hit as 0; the body sent again would add
        // the first visit's encodedBodySize. (Chromium reports the body sizes of a
        // revalidated subresource as 0, so only transferSize tells.)
        let entry = timings.get(path);
        let first_entry = first_timings.get(path);
        let transferred = entry["transferSize"].as_u64().expect("transferSize");
        let body = first_entry["encodedBodySize"]
            .as_u64()
            .expect("encodedBodySize");
        assert!(
            transferred < body,
            "{path}: no body was transferred on reload: {entry}, first visit {first_entry}"
        );
    }
    // The script's fetch asks for `no-store`, so it reaches the server every time.
    let health = only_request(reload, "/api/health");
    assert_eq!(health.status, StatusCode::OK, "{health:?}");
    // Nothing was sent again in full except the API answer and, at most, the favicon
    // (which Chromium may re-request or not).
    for seen in reload {
        assert!(
            seen.status == StatusCode::NOT_MODIFIED
                || seen.path == "/api/health"
                || seen.path == "/favicon.ico",
            "the reload fetched {} in full: {seen:?}",
            seen.path
        );
    }
}

/// Saves the rendered page as `<target dir>/test-artifacts/browser-example.png` and
/// checks that it is a PNG of the window showing the styled page.
async fn save_screenshot(session: &Session) {
    let png = session.screenshot().await;
    let dir = artifact_dir();
    std::fs::create_dir_all(&dir)
        .unwrap_or_else(|err| panic!("cannot create {}: {err}", dir.display()));
    let path = dir.join("browser-example.png");
    std::fs::write(&path, &png)
        .unwrap_or_else(|err| panic!("cannot write {}: {err}", path.display()));

    let viewport = session
        .execute(
            "return [Math.round(innerWidth * devicePixelRatio), \
                     Math.round(innerHeight * devicePixelRatio)]",
        )
        .await;
    let image = Png::decode(&png);
    assert_eq!(
        json!([image.width, image.height]),
        viewport,
        "{}: the screenshot covers the viewport",
        path.display()
    );
    let mut counts: HashMap<[u8; 3], usize> = HashMap::new();
    for pixel in &image.pixels {
        *counts.entry(*pixel).or_default() += 1;
    }
    let most_common = counts
        .iter()
        .max_by_key(|(_, count)| **count)
        .map(|(colour, _)| *colour);
    assert_eq!(
        most_common,
        Some([250, 250, 245]),
        "{}: the page background from app.css fills most of the screenshot",
        path.display()
    );
    let pre_background = counts.get(&[31, 41, 55]).copied().unwrap_or_default();
    assert!(
        pre_background > 1000,
        "{}: the dark #health box is drawn ({pre_background} pixels)",
        path.display()
    );
    assert!(
        counts.len() > 50,
        "{}: text and images are drawn, not a blank page ({} colours)",
        path.display(),
        counts.len()
    );
}

/// Serves the example site the way `examples/src/main.rs` does, with every exchange
/// recorded in `log`.
async fn spawn_example(log: ServerLog) -> SocketAddr {
    let router = Router::new()
        .route(
            "/api/health",
            get(|| async { Json(json!({ "status": "ok", "assets": EXAMPLE.len() })) }),
        )
        .fallback_service(
            EXAMPLE
                .service()
                .content_security_policy(POLICY)
                .preload_links(),
        )
        .layer(middleware::from_fn_with_state(log, record));
    spawn_router(router).await
}

/// The bytes of an example file, read from disk.
fn example_file(url_path: &str) -> Vec<u8> {
    let relative = match url_path {
        "/" => "index.html",
        other => other.trim_start_matches('/'),
    };
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/public")
        .join(relative);
    std::fs::read(&path).unwrap_or_else(|err| panic!("cannot read {}: {err}", path.display()))
}
