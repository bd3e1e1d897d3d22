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
use std::io::{BufRead, BufReader, Read};
use std::net::SocketAddr;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use axum::extract::{Request, State};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::get;
use axum::{Json, Router};
use bytes::Bytes;
use embed_runtime::{embed_assets, Assets};
use http::header::{ACCEPT_ENCODING, CONTENT_ENCODING, CONTENT_TYPE, ETAG, IF_NONE_MATCH, VARY};
use http::{HeaderMap, HeaderName, Method, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use integration_tests::{programs, spawn_router};
use serde_json::{json, Value};

/// The example site, embedded the way `examples/src/main.rs` embeds it.
static EXAMPLE: Assets = embed_assets!("../examples/public");

/// The whole test, browser start to screenshot, must finish within this.
const TEST_TIMEOUT: Duration = Duration::from_secs(180);
/// One WebDriver command (a navigation waits for the page's load event).
const COMMAND_TIMEOUT: Duration = Duration::from_secs(60);
/// How long the page's script, its fetch and the favicon request may take to happen.
const PAGE_TIMEOUT: Duration = Duration::from_secs(15);
/// Window size of the headless browser, in CSS pixels.
const WINDOW: (u32, u32) = (1024, 768);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_renders_the_example_site_from_brotli_bodies_and_revalidates_it_on_reload() {
    let Some(programs) = BrowserPrograms::find() else {
        return;
    };
    let log = ServerLog::default();
    let addr = spawn_example(log.clone()).await;
    let driver = Chromedriver::start(&programs.chromedriver);
    let session = tokio::time::timeout(COMMAND_TIMEOUT, Session::start(&driver, &programs))
        .await
        .unwrap_or_else(|_| panic!("no WebDriver session within {COMMAND_TIMEOUT:?}"));
    tokio::time::timeout(TEST_TIMEOUT, drive(&session, addr, &log))
        .await
        .unwrap_or_else(|_| panic!("the browser test took more than {TEST_TIMEOUT:?}"));
    // On a failure, dropping `driver` kills chromedriver and the browser instead.
    session.quit().await;
}

#[cfg(feature = "vite")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_runs_the_vite_app_and_reloads_its_hashed_files_from_the_cache() {
    let Some(programs) = BrowserPrograms::find() else {
        return;
    };
    let log = ServerLog::default();
    let router = example_vite::app().layer(middleware::from_fn_with_state(log.clone(), record));
    let addr = spawn_router(router).await;
    let driver = Chromedriver::start(&programs.chromedriver);
    let session = tokio::time::timeout(COMMAND_TIMEOUT, Session::start(&driver, &programs))
        .await
        .unwrap_or_else(|_| panic!("no WebDriver session within {COMMAND_TIMEOUT:?}"));
    tokio::time::timeout(TEST_TIMEOUT, drive_vite(&session, addr, &log))
        .await
        .unwrap_or_else(|_| panic!("the Vite browser test took more than {TEST_TIMEOUT:?}"));
    session.quit().await;
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

// ---------------------------------------------------------------------------------
// The server and what it saw

/// One request as the server saw it, recorded by [`record`].
#[derive(Debug, Clone)]
struct Seen {
    path: String,
    accept_encoding: Option<String>,
    if_none_match: Option<String>,
    status: StatusCode,
    content_encoding: Option<String>,
    vary: Option<String>,
    etag: Option<String>,
}

/// Every request the example server answered, in order.
#[derive(Debug, Clone, Default)]
struct ServerLog(Arc<Mutex<Vec<Seen>>>);

impl ServerLog {
    fn snapshot(&self) -> Vec<Seen> {
        self.0.lock().expect("server log").clone()
    }
}

fn field(headers: &HeaderMap, name: HeaderName) -> Option<String> {
    headers
        .get(name)
        .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned())
}

/// Middleware: passes the request on and records it with the response's status.
async fn record(State(log): State<ServerLog>, request: Request, next: Next) -> Response {
    let path = request.uri().path().to_owned();
    let accept_encoding = field(request.headers(), ACCEPT_ENCODING);
    let if_none_match = field(request.headers(), IF_NONE_MATCH);
    let response = next.run(request).await;
    let seen = Seen {
        path,
        accept_encoding,
        if_none_match,
        status: response.status(),
        content_encoding: field(response.headers(), CONTENT_ENCODING),
        vary: field(response.headers(), VARY),
        etag: field(response.headers(), ETAG),
    };
    log.0.lock().expect("server log").push(seen);
    response
}

/// Serves the example site the way `examples/src/main.rs` does, with every exchange
/// recorded in `log`.
async fn spawn_example(log: ServerLog) -> SocketAddr {
    let router = Router::new()
        .route(
            "/api/health",
            get(|| async { Json(json!({ "status": "ok", "assets": EXAMPLE.len() })) }),
        )
        .fallback_service(EXAMPLE.service())
        .layer(middleware::from_fn_with_state(log, record));
    spawn_router(router).await
}

/// The one request for `path` in `log`.
fn only_request<'a>(log: &'a [Seen], path: &str) -> &'a Seen {
    let matching: Vec<&Seen> = log.iter().filter(|seen| seen.path == path).collect();
    match matching.as_slice() {
        [one] => one,
        _ => panic!("expected one request for {path}, the server saw {log:#?}"),
    }
}

/// Waits until the server has answered a request for `path`; favicons are fetched
/// after the page, on the browser's own schedule.
async fn wait_for_request(log: &ServerLog, path: &str) -> Seen {
    let deadline = Instant::now() + PAGE_TIMEOUT;
    loop {
        if let Some(seen) = log.snapshot().into_iter().find(|seen| seen.path == path) {
            return seen;
        }
        assert!(
            Instant::now() < deadline,
            "the browser did not request {path} within {PAGE_TIMEOUT:?}; the server saw {:#?}",
            log.snapshot()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
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

// ---------------------------------------------------------------------------------
// What the browser measured

/// The page's Resource Timing: the navigation entry and one entry per resource path.
struct Timings {
    navigation: Value,
    resources: Vec<Value>,
}

impl Timings {
    /// The entry for `path` (`/` is the document itself).
    fn get(&self, path: &str) -> &Value {
        if path == "/" {
            return &self.navigation;
        }
        let matching: Vec<&Value> = self
            .resources
            .iter()
            .filter(|entry| entry["path"] == path)
            .collect();
        match matching.as_slice() {
            [one] => one,
            _ => panic!(
                "expected one timing entry for {path}, got {:#?}",
                self.resources
            ),
        }
    }
}

async fn resource_timings(session: &Session) -> Timings {
    let all = session
        .execute(
            "const pick = (e) => ({
               path: new URL(e.name).pathname,
               type: e.type,
               transferSize: e.transferSize,
               encodedBodySize: e.encodedBodySize,
               decodedBodySize: e.decodedBodySize,
               responseStatus: e.responseStatus,
             });
             return {
               navigation: pick(performance.getEntriesByType('navigation')[0]),
               resources: performance.getEntriesByType('resource').map(pick),
             };",
        )
        .await;
    Timings {
        navigation: all["navigation"].clone(),
        resources: all["resources"].as_array().expect("entries").clone(),
    }
}

// ---------------------------------------------------------------------------------
// Chromium and chromedriver

/// Paths of the browser and its driver, found on `PATH`.
struct BrowserPrograms {
    chromium: PathBuf,
    chromedriver: PathBuf,
}

impl BrowserPrograms {
    /// Both programs, or `None` when one is missing (the test is then skipped, see
    /// `integration_tests::programs`).
    fn find() -> Option<Self> {
        let chromium = programs::require(
            &["chromium", "chromium-browser", "google-chrome"],
            &[],
            "chromium",
        );
        let chromedriver = programs::require(&["chromedriver"], &[], "chromium-driver");
        Some(Self {
            chromium: chromium?,
            chromedriver: chromedriver?,
        })
    }
}

/// A chromedriver child process on a free 127.0.0.1 port, in its own process group
/// so that dropping it also ends the browsers it started. Owns a scratch folder for
/// the browser profile and the driver's log.
struct Chromedriver {
    child: Child,
    port: u16,
    scratch: PathBuf,
}

impl Chromedriver {
    fn start(program: &Path) -> Self {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .expect("clock after 1970")
            .as_nanos();
        let scratch = std::env::temp_dir().join(format!(
            "embed-assets-browser-{}-{nanos}",
            std::process::id()
        ));
        std::fs::create_dir_all(&scratch)
            .unwrap_or_else(|err| panic!("cannot create {}: {err}", scratch.display()));
        let mut child = Command::new(program)
            // Port 0: the driver picks a free port and prints it, so no port race.
            .arg("--port=0")
            .arg(format!(
                "--log-path={}",
                scratch.join("chromedriver.log").display()
            ))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .unwrap_or_else(|err| panic!("cannot start {}: {err}", program.display()));

        let stdout = child.stdout.take().expect("piped stdout");
        let (lines, received) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if lines.send(line).is_err() {
                    return;
                }
            }
        });
        let mut driver = Self {
            child,
            port: 0,
            scratch,
        };
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut banner = Vec::new();
        while driver.port == 0 {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = received.recv_timeout(left).unwrap_or_else(|_| {
                panic!("chromedriver did not announce its port within 30 s; it printed {banner:?}")
            });
            if let Some(rest) = line.split("started successfully on port ").nth(1) {
                driver.port = rest
                    .trim_end_matches('.')
                    .trim()
                    .parse()
                    .unwrap_or_else(|_| panic!("no port in {line:?}"));
            }
            banner.push(line);
        }
        driver
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    fn log_path(&self) -> PathBuf {
        self.scratch.join("chromedriver.log")
    }

    fn user_data_dir(&self) -> PathBuf {
        self.scratch.join("profile")
    }
}

impl Drop for Chromedriver {
    fn drop(&mut self) {
        // The whole group: chromedriver and every Chromium process it started.
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.child.id())])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
        if std::thread::panicking() {
            eprintln!(
                "browser profile and chromedriver log kept in {}",
                self.scratch.display()
            );
        } else {
            let _ = std::fs::remove_dir_all(&self.scratch);
        }
    }
}

/// A WebDriver session with one headless Chromium.
struct Session {
    client: Client<HttpConnector, Full<Bytes>>,
    base: String,
}

impl Session {
    async fn start(driver: &Chromedriver, programs: &BrowserPrograms) -> Self {
        let client = Client::builder(TokioExecutor::new()).build_http::<Full<Bytes>>();
        let mut ready = false;
        for _ in 0..100 {
            let status = command(&client, Method::GET, &driver.url("/status"), None).await;
            if status["ready"] == true {
                ready = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert!(ready, "chromedriver never reported ready");
        let (width, height) = WINDOW;
        let capabilities = json!({
            "capabilities": {
                "alwaysMatch": {
                    "browserName": "chrome",
                    "pageLoadStrategy": "normal",
                    "timeouts": { "pageLoad": 30_000, "script": 30_000 },
                    "goog:chromeOptions": {
                        "binary": programs.chromium,
                        "args": [
                            "--headless",
                            "--no-sandbox",
                            "--disable-gpu",
                            "--no-first-run",
                            "--disable-background-networking",
                            "--disable-component-update",
                            "--disable-sync",
                            "--hide-scrollbars",
                            format!("--window-size={width},{height}"),
                            format!("--user-data-dir={}", driver.user_data_dir().display()),
                        ],
                    },
                },
            },
        });
        let created = command(
            &client,
            Method::POST,
            &driver.url("/session"),
            Some(capabilities),
        )
        .await;
        let id = created["sessionId"].as_str().unwrap_or_else(|| {
            panic!(
                "no session id in {created}; chromedriver log: {}",
                driver.log_path().display()
            )
        });
        Self {
            base: driver.url(&format!("/session/{id}")),
            client,
        }
    }

    async fn navigate(&self, url: &str) {
        self.send(Method::POST, "/url", json!({ "url": url })).await;
    }

    async fn refresh(&self) {
        self.send(Method::POST, "/refresh", json!({})).await;
    }

    /// Runs `script` as a function body in the page and returns its result.
    async fn execute(&self, script: &str) -> Value {
        self.send(
            Method::POST,
            "/execute/sync",
            json!({ "script": script, "args": [] }),
        )
        .await
    }

    /// Polls the JavaScript expression `condition` in the page, every 50 ms, until it
    /// is truthy (`true`) or [`PAGE_TIMEOUT`] has passed (`false`).
    async fn wait_until(&self, condition: &str) -> bool {
        let script = format!(
            "const done = arguments[arguments.length - 1];
             const deadline = Date.now() + {timeout};
             const poll = () => {{
               let ok = false;
               try {{ ok = Boolean({condition}); }} catch (e) {{}}
               if (ok || Date.now() > deadline) done(ok); else setTimeout(poll, 50);
             }};
             poll();",
            timeout = PAGE_TIMEOUT.as_millis(),
        );
        let result = self
            .send(
                Method::POST,
                "/execute/async",
                json!({ "script": script, "args": [] }),
            )
            .await;
        result == true
    }

    /// The viewport as PNG bytes.
    async fn screenshot(&self) -> Vec<u8> {
        let encoded = self.send(Method::GET, "/screenshot", Value::Null).await;
        base64_decode(encoded.as_str().expect("base64 screenshot"))
    }

    /// Ends the session, which closes the browser; a failure here is not the test's.
    async fn quit(&self) {
        let request = command(&self.client, Method::DELETE, &self.base, None);
        let _ = tokio::time::timeout(Duration::from_secs(10), request).await;
    }

    async fn send(&self, method: Method, path: &str, body: Value) -> Value {
        let body = (!body.is_null()).then_some(body);
        command(&self.client, method, &format!("{}{path}", self.base), body).await
    }
}

/// One WebDriver command: JSON in, the response's `value` out.
///
/// # Panics
/// On a transport error, an error response, or after [`COMMAND_TIMEOUT`].
async fn command(
    client: &Client<HttpConnector, Full<Bytes>>,
    method: Method,
    url: &str,
    body: Option<Value>,
) -> Value {
    let body = body.map_or_else(Bytes::new, |body| Bytes::from(body.to_string()));
    let request = http::Request::builder()
        .method(method.clone())
        .uri(url)
        .header(CONTENT_TYPE, "application/json; charset=utf-8")
        .body(Full::new(body))
        .expect("valid request");
    let exchange = async {
        let response = client
            .request(request)
            .await
            .unwrap_or_else(|err| panic!("{method} {url}: {err}"));
        let status = response.status();
        let bytes = response
            .into_body()
            .collect()
            .await
            .unwrap_or_else(|err| panic!("{method} {url}: {err}"))
            .to_bytes();
        (status, bytes)
    };
    let (status, bytes) = tokio::time::timeout(COMMAND_TIMEOUT, exchange)
        .await
        .unwrap_or_else(|_| panic!("{method} {url} took more than {COMMAND_TIMEOUT:?}"));
    let mut reply: Value = serde_json::from_slice(&bytes).unwrap_or_else(|err| {
        panic!(
            "{method} {url}: not JSON ({err}): {}",
            String::from_utf8_lossy(&bytes)
        )
    });
    assert!(
        status.is_success(),
        "{method} {url} failed with {status}: {}",
        reply["value"]
    );
    reply["value"].take()
}

// ---------------------------------------------------------------------------------
// Decoding the screenshot

/// Decodes standard base64 (RFC 4648 §4, with padding), as WebDriver sends screenshots.
fn base64_decode(text: &str) -> Vec<u8> {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let (mut buffer, mut bits) = (0u32, 0u32);
    for byte in text.bytes().filter(|byte| !byte.is_ascii_whitespace()) {
        if byte == b'=' {
            break;
        }
        let value = ALPHABET
            .iter()
            .position(|&c| c == byte)
            .unwrap_or_else(|| panic!("not base64: byte {byte:#04x}"));
        buffer = buffer << 6 | value as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((buffer >> bits) as u8);
            buffer &= (1 << bits) - 1;
        }
    }
    out
}

/// An 8-bit RGB or RGBA PNG, decoded to RGB pixels (alpha dropped).
struct Png {
    width: u32,
    height: u32,
    pixels: Vec<[u8; 3]>,
}

impl Png {
    /// Checks the signature, every chunk's CRC and the header, inflates the image data
    /// and undoes the row filters (PNG spec §9).
    ///
    /// # Panics
    /// On anything else than a well-formed, non-interlaced 8-bit RGB(A) PNG.
    fn decode(bytes: &[u8]) -> Self {
        const SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";
        assert!(bytes.starts_with(SIGNATURE), "not a PNG");
        let mut rest = &bytes[SIGNATURE.len()..];
        let (mut header, mut data, mut ended) = (None, Vec::new(), false);
        while !rest.is_empty() {
            assert!(rest.len() >= 12, "truncated PNG chunk");
            let len = u32::from_be_bytes(rest[..4].try_into().expect("4 bytes")) as usize;
            assert!(rest.len() >= 12 + len, "truncated PNG chunk");
            let (kind, body) = (&rest[4..8], &rest[8..8 + len]);
            let crc = u32::from_be_bytes(rest[8 + len..12 + len].try_into().expect("4 bytes"));
            let mut computed = flate2::Crc::new();
            computed.update(&rest[4..8 + len]);
            assert_eq!(computed.sum(), crc, "bad CRC in PNG chunk {kind:?}");
            match kind {
                b"IHDR" => header = Some(body.to_vec()),
                b"IDAT" => data.extend_from_slice(body),
                b"IEND" => ended = true,
                _ => {}
            }
            rest = &rest[12 + len..];
        }
        assert!(ended, "PNG without IEND");
        let header = header.expect("PNG without IHDR");
        let width = u32::from_be_bytes(header[0..4].try_into().expect("4 bytes"));
        let height = u32::from_be_bytes(header[4..8].try_into().expect("4 bytes"));
        let (depth, colour, interlace) = (header[8], header[9], header[12]);
        let channels = match (depth, colour, interlace) {
            (8, 2, 0) => 3,
            (8, 6, 0) => 4,
            other => panic!("unexpected PNG format (depth, colour type, interlace) {other:?}"),
        };
        let mut raw = Vec::new();
        flate2::read::ZlibDecoder::new(data.as_slice())
            .read_to_end(&mut raw)
            .expect("valid PNG image data");
        let stride = width as usize * channels;
        assert_eq!(
            raw.len(),
            height as usize * (stride + 1),
            "PNG image data size"
        );
        let mut previous = vec![0u8; stride];
        let mut pixels = Vec::with_capacity(width as usize * height as usize);
        for row in raw.chunks(stride + 1) {
            let (filter, filtered) = (row[0], &row[1..]);
            let mut line = vec![0u8; stride];
            for i in 0..stride {
                let left = if i >= channels { line[i - channels] } else { 0 };
                let up = previous[i];
                let up_left = if i >= channels {
                    previous[i - channels]
                } else {
                    0
                };
                let predicted = match filter {
                    0 => 0,
                    1 => left,
                    2 => up,
                    3 => ((u16::from(left) + u16::from(up)) / 2) as u8,
                    4 => paeth(left, up, up_left),
                    other => panic!("bad PNG filter type {other}"),
                };
                line[i] = filtered[i].wrapping_add(predicted);
            }
            pixels.extend(
                line.chunks(channels)
                    .map(|pixel| [pixel[0], pixel[1], pixel[2]]),
            );
            previous = line;
        }
        Self {
            width,
            height,
            pixels,
        }
    }
}

/// PNG spec §9.4: the neighbour closest to `left + up - up_left`.
fn paeth(left: u8, up: u8, up_left: u8) -> u8 {
    let estimate = i16::from(left) + i16::from(up) - i16::from(up_left);
    let distance = |value: u8| (estimate - i16::from(value)).abs();
    if distance(left) <= distance(up) && distance(left) <= distance(up_left) {
        left
    } else if distance(up) <= distance(up_left) {
        up
    } else {
        up_left
    }
}

/// `<target dir>/test-artifacts`, from this test binary's path
/// (`<target dir>/<profile>/deps/browser-<hash>`).
fn artifact_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("path of the test binary");
    let deps = exe.parent().expect("folder of the test binary");
    assert_eq!(
        deps.file_name().and_then(|name| name.to_str()),
        Some("deps"),
        "test binary outside a cargo target folder: {}",
        exe.display()
    );
    deps.parent()
        .and_then(Path::parent)
        .expect("target folder")
        .join("test-artifacts")
}
