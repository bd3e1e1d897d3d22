//! A headless Chromium for end-to-end tests, driven through chromedriver's W3C
//! WebDriver HTTP API (plain JSON over HTTP to a chromedriver child process, no
//! WebDriver crate): [`BrowserPrograms`] finds the programs or skips the test,
//! [`Chromedriver`] runs the driver in its own process group, [`Session`] navigates,
//! runs scripts, takes screenshots and reads the browser's console log.
//!
//! Beside the browser: [`ServerLog`] and its [`record`] middleware, which note what the
//! server under test answered; [`Timings`], the page's Resource Timing entries; a
//! decoder for the PNG screenshots ([`Png`]) and [`artifact_dir`], where tests keep
//! what they save. Every wait is bounded: [`COMMAND_TIMEOUT`] per WebDriver command,
//! [`PAGE_TIMEOUT`] for what a page does after its load event.

use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use bytes::Bytes;
use http::header::{
    ACCEPT_ENCODING, CACHE_CONTROL, CONTENT_ENCODING, CONTENT_TYPE, ETAG, IF_NONE_MATCH, VARY,
};
use http::{HeaderMap, HeaderName, Method, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde_json::{Value, json};

use crate::programs;

/// One WebDriver command (a navigation waits for the page's load event).
pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(60);
/// How long the page's script, its fetch and the favicon request may take to happen.
pub const PAGE_TIMEOUT: Duration = Duration::from_secs(15);
/// Window size of the headless browser, in CSS pixels.
pub const WINDOW: (u32, u32) = (1024, 768);

// ---------------------------------------------------------------------------------
// The server and what it saw

/// One request as the server saw it, recorded by [`record`].
#[derive(Debug, Clone)]
pub struct Seen {
    /// The request target's path, as sent (not decoded).
    pub path: String,
    /// The request's `Accept-Encoding`.
    pub accept_encoding: Option<String>,
    /// The request's `If-None-Match`.
    pub if_none_match: Option<String>,
    /// The request's `Available-Dictionary` (RFC 9842): the hash of a dictionary the
    /// browser holds for this URL.
    pub available_dictionary: Option<String>,
    /// The response's status.
    pub status: StatusCode,
    /// The response's `Content-Encoding`.
    pub content_encoding: Option<String>,
    /// The response's `Vary`.
    pub vary: Option<String>,
    /// The response's `ETag`.
    pub etag: Option<String>,
    /// The response's `Cache-Control`.
    pub cache_control: Option<String>,
}

/// Every request the server answered, in order; clones share the one list.
#[derive(Debug, Clone, Default)]
pub struct ServerLog(Arc<Mutex<Vec<Seen>>>);

impl ServerLog {
    /// A copy of the requests recorded so far.
    pub fn snapshot(&self) -> Vec<Seen> {
        self.0.lock().expect("server log").clone()
    }
}

fn field(headers: &HeaderMap, name: HeaderName) -> Option<String> {
    headers
        .get(name)
        .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned())
}

/// Middleware: passes the request on and records it with the response's status;
/// install it with `axum::middleware::from_fn_with_state(log, record)`.
pub async fn record(State(log): State<ServerLog>, request: Request, next: Next) -> Response {
    let path = request.uri().path().to_owned();
    let accept_encoding = field(request.headers(), ACCEPT_ENCODING);
    let if_none_match = field(request.headers(), IF_NONE_MATCH);
    let available_dictionary = field(
        request.headers(),
        HeaderName::from_static("available-dictionary"),
    );
    let response = next.run(request).await;
    let seen = Seen {
        path,
        accept_encoding,
        if_none_match,
        available_dictionary,
        status: response.status(),
        content_encoding: field(response.headers(), CONTENT_ENCODING),
        vary: field(response.headers(), VARY),
        etag: field(response.headers(), ETAG),
        cache_control: field(response.headers(), CACHE_CONTROL),
    };
    log.0.lock().expect("server log").push(seen);
    response
}

/// The service answering an origin's requests now; swapped to deploy.
pub type Current = Arc<Mutex<embed_assets::ServeAssets>>;

/// One origin on 127.0.0.1 whose requests `routes` (an application's own, such as an
/// API) or else the current service answer, recorded: a deploy replaces the service
/// behind it, as a balancer moves a client to a new replica.
pub async fn spawn_origin(
    current: Current,
    log: ServerLog,
    routes: axum::Router,
) -> std::net::SocketAddr {
    let router = routes
        .fallback(move |request: Request| {
            let mut service = current.lock().expect("current service").clone();
            async move {
                let response = tower_service::Service::call(&mut service, request)
                    .await
                    .unwrap_or_else(|never| match never {});
                axum::response::IntoResponse::into_response(response.map(axum::body::Body::new))
            }
        })
        .layer(axum::middleware::from_fn_with_state(log, record));
    crate::spawn_router(router).await
}

/// The one request for `path` in `log`.
pub fn only_request<'a>(log: &'a [Seen], path: &str) -> &'a Seen {
    let matching: Vec<&Seen> = log.iter().filter(|seen| seen.path == path).collect();
    match matching.as_slice() {
        [one] => one,
        _ => panic!("expected one request for {path}, the server saw {log:#?}"),
    }
}

/// Waits until the server has answered a request for `path`; favicons are fetched
/// after the page, on the browser's own schedule.
pub async fn wait_for_request(log: &ServerLog, path: &str) -> Seen {
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

// ---------------------------------------------------------------------------------
// What the browser measured

/// The page's Resource Timing: the navigation entry and one entry per resource path.
#[derive(Debug)]
pub struct Timings {
    /// The navigation entry (`type` is `navigate`, `reload`, ...).
    pub navigation: Value,
    /// One entry per subresource, with its `path`.
    pub resources: Vec<Value>,
}

impl Timings {
    /// The entry for `path` (`/` is the document itself).
    ///
    /// # Panics
    /// Unless there is exactly one.
    pub fn get(&self, path: &str) -> &Value {
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

/// The Resource Timing entries of the page the session shows: path, type, sizes and
/// status of the navigation and of each subresource.
pub async fn resource_timings(session: &Session) -> Timings {
    let all = session
        .execute(
            "const pick = (e) => ({
               path: new URL(e.name).pathname,
               type: e.type,
               initiatorType: e.initiatorType,
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
#[derive(Debug, Clone)]
pub struct BrowserPrograms {
    /// Chromium (or Chrome).
    pub chromium: PathBuf,
    /// The chromedriver of the same version.
    pub chromedriver: PathBuf,
    /// Whether a failed test keeps the browser's profile and the driver's log (the
    /// default). A test that fails a scenario on purpose turns it off, so that each
    /// run leaves nothing behind.
    pub keep_failed: bool,
    /// The browser's `HOME`, where Chromium on Linux reads the certificates it trusts
    /// besides its own roots (the NSS database in `.pki/nssdb`); `None`: the
    /// process's.
    pub home: Option<PathBuf>,
    /// Command-line switches added to the browser's own (`--host-resolver-rules`).
    pub args: Vec<String>,
}

impl BrowserPrograms {
    /// Both programs, or `None` when one is missing (the test is then skipped, see
    /// [`programs`]).
    pub fn find() -> Option<Self> {
        let chromium = programs::require(
            &["chromium", "chromium-browser", "google-chrome"],
            &[],
            "chromium",
        );
        let chromedriver = programs::require(&["chromedriver"], &[], "chromium-driver");
        Some(Self {
            chromium: chromium?,
            chromedriver: chromedriver?,
            keep_failed: true,
            home: None,
            args: Vec::new(),
        })
    }
}

/// What chromedriver says when the browser, or the window a session drives, is gone:
/// Chromium (or its tab) ended under the test, which no assertion of the test caused.
const BROWSER_LOST: [&str; 5] = [
    "no such window",
    "invalid session id",
    "tab crashed",
    "chrome not reachable",
    "session deleted",
];

/// Runs `scenario` in a fresh chromedriver and Chromium (a new empty profile), within
/// `timeout`, and ends the session.
///
/// `scenario` makes its own server (each attempt starts from nothing). When the
/// browser is lost under it (chromedriver answers that the window or the browser is
/// gone: a crashed renderer, a window Chromium closed), the driver's log tail is printed and the scenario runs once more in
/// a new browser; any other failure, every assertion among them, fails the test at
/// once, with the profile and the driver's log kept.
///
/// # Panics
/// As `scenario` does, when no session starts, after `timeout`, or when the browser is
/// lost twice.
pub async fn in_browser<F, Fut, T>(programs: &BrowserPrograms, timeout: Duration, scenario: F) -> T
where
    F: Fn(Arc<Session>) -> Fut,
    Fut: std::future::Future<Output = T> + Send + 'static,
    T: Send + 'static,
{
    for attempt in 1..=2 {
        let mut driver = Chromedriver::start(&programs.chromedriver, programs.home.as_deref());
        driver.keep_failed = programs.keep_failed;
        let session = tokio::time::timeout(COMMAND_TIMEOUT, Session::start(&driver, programs))
            .await
            .unwrap_or_else(|_| panic!("no WebDriver session within {COMMAND_TIMEOUT:?}"));
        let session = Arc::new(session);
        let run = scenario(session.clone());
        let outcome = tokio::spawn(async move {
            tokio::time::timeout(timeout, run)
                .await
                .unwrap_or_else(|_| panic!("the browser test took more than {timeout:?}"))
        })
        .await;
        match outcome {
            Ok(value) => {
                session.quit().await;
                return value;
            }
            Err(error) if !error.is_panic() => panic!("the browser scenario ended: {error}"),
            Err(error) => {
                let payload = error.into_panic();
                let message = payload
                    .downcast_ref::<String>()
                    .map(String::as_str)
                    .or_else(|| payload.downcast_ref::<&str>().copied())
                    .unwrap_or_default();
                let lost = BROWSER_LOST.iter().any(|words| message.contains(words));
                if lost && attempt == 1 {
                    eprintln!(
                        "the browser was lost under the test, which runs again in a new one: \
                         {message}\nthe end of chromedriver's log:\n{}",
                        driver.log_tail(40)
                    );
                    continue;
                }
                // Dropping `driver` while this unwinds keeps its profile and log.
                std::panic::resume_unwind(payload);
            }
        }
    }
    unreachable!("the second attempt returns or panics")
}

/// A chromedriver child process on a free 127.0.0.1 port, in its own process group
/// so that dropping it also ends the browsers it started. Owns a scratch folder for
/// the browser profile and the driver's log, kept when the test fails.
#[derive(Debug)]
pub struct Chromedriver {
    child: Child,
    port: u16,
    scratch: PathBuf,
    /// Whether the scratch folder is kept when the driver is dropped by a panic.
    keep_failed: bool,
}

impl Chromedriver {
    /// Starts `program` on a port it picks itself and waits (at most 30 s) until it
    /// says which; with `home`, the driver and the browsers it starts run with it as
    /// their `HOME`.
    ///
    /// # Panics
    /// If it cannot be started or names no port in time.
    pub fn start(program: &Path, home: Option<&Path>) -> Self {
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
        let mut command = Command::new(program);
        if let Some(home) = home {
            command.env("HOME", home);
        }
        let mut child = command
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
            keep_failed: true,
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

    /// The last `lines` lines of the driver's log.
    fn log_tail(&self, lines: usize) -> String {
        let log = std::fs::read_to_string(self.log_path()).unwrap_or_default();
        let all: Vec<&str> = log.lines().collect();
        all[all.len().saturating_sub(lines)..].join("\n")
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
        if self.keep_failed && std::thread::panicking() {
            eprintln!(
                "browser profile and chromedriver log kept in {}",
                self.scratch.display()
            );
        } else {
            let _ = std::fs::remove_dir_all(&self.scratch);
        }
    }
}

/// A WebDriver session with one headless Chromium, its console log recorded
/// (`goog:loggingPrefs`).
#[derive(Debug)]
pub struct Session {
    client: Client<HttpConnector, Full<Bytes>>,
    base: String,
    /// Every console entry read so far: chromedriver hands each out once.
    log: Mutex<Vec<LogEntry>>,
}

impl Session {
    /// Waits for the driver to be ready, then opens a session with a fresh profile and
    /// a [`WINDOW`]-sized headless window.
    ///
    /// # Panics
    /// If the driver is not ready within 10 s or refuses the session.
    pub async fn start(driver: &Chromedriver, programs: &BrowserPrograms) -> Self {
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
        let mut args: Vec<String> = vec![
            "--headless".to_owned(),
            "--no-sandbox".to_owned(),
            "--disable-gpu".to_owned(),
            // Shared memory in the temporary folder, not /dev/shm,
            // which containers often keep at 64 MiB.
            "--disable-dev-shm-usage".to_owned(),
            "--no-first-run".to_owned(),
            "--disable-background-networking".to_owned(),
            "--disable-component-update".to_owned(),
            "--disable-sync".to_owned(),
            "--hide-scrollbars".to_owned(),
            format!("--window-size={width},{height}"),
            format!("--user-data-dir={}", driver.user_data_dir().display()),
        ];
        args.extend(programs.args.iter().cloned());
        let capabilities = json!({
            "capabilities": {
                "alwaysMatch": {
                    "browserName": "chrome",
                    "pageLoadStrategy": "normal",
                    "timeouts": { "pageLoad": 30_000, "script": 30_000 },
                    // Keeps the console (and the messages Chromium itself logs there,
                    // such as a blocked resource) for `POST /se/log`.
                    "goog:loggingPrefs": { "browser": "ALL" },
                    "goog:chromeOptions": {
                        "binary": programs.chromium,
                        "args": args,
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
            log: Mutex::new(Vec::new()),
        }
    }

    /// Loads `url` and waits for its load event.
    pub async fn navigate(&self, url: &str) {
        self.send(Method::POST, "/url", json!({ "url": url })).await;
    }

    /// Reloads the page and waits for its load event.
    pub async fn refresh(&self) {
        self.send(Method::POST, "/refresh", json!({})).await;
    }

    /// Runs `script` as a function body in the page and returns its result.
    pub async fn execute(&self, script: &str) -> Value {
        self.send(
            Method::POST,
            "/execute/sync",
            json!({ "script": script, "args": [] }),
        )
        .await
    }

    /// Polls the JavaScript expression `condition` in the page, every 50 ms, until it
    /// is truthy (`true`) or [`PAGE_TIMEOUT`] has passed (`false`).
    pub async fn wait_until(&self, condition: &str) -> bool {
        let script = poll_script(condition);
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
    pub async fn screenshot(&self) -> Vec<u8> {
        let encoded = self.send(Method::GET, "/screenshot", Value::Null).await;
        base64_decode(encoded.as_str().expect("base64 screenshot"))
    }

    /// Every entry of the browser's console log since the session started, oldest
    /// first: what pages logged and what Chromium reported there (a blocked resource,
    /// an uncaught exception, a failed load).
    pub async fn browser_log(&self) -> Vec<LogEntry> {
        // chromedriver's legacy log endpoint: it returns the entries buffered since
        // the last call and forgets them, so the session keeps them all.
        let new = self
            .send(Method::POST, "/se/log", json!({ "type": "browser" }))
            .await;
        let new = new
            .as_array()
            .unwrap_or_else(|| panic!("browser log: not a list: {new}"))
            .iter()
            .map(LogEntry::from_json);
        let mut log = self.log.lock().expect("browser log");
        log.extend(new);
        log.clone()
    }

    /// Reads the [`browser_log`](Self::browser_log), every 100 ms, until `done` holds
    /// for it or [`PAGE_TIMEOUT`] has passed, and returns it either way: what the
    /// browser logs about a page may come after its load event.
    pub async fn wait_for_log(&self, done: impl Fn(&[LogEntry]) -> bool) -> Vec<LogEntry> {
        let deadline = Instant::now() + PAGE_TIMEOUT;
        loop {
            let log = self.browser_log().await;
            if done(&log) || Instant::now() >= deadline {
                return log;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Closes the window the session drives, as a crash of its tab would, leaving the
    /// browser another one: the next command fails with chromedriver's "no such
    /// window".
    pub async fn close_window(&self) {
        self.send(Method::POST, "/window/new", json!({ "type": "tab" }))
            .await;
        self.send(Method::DELETE, "/window", Value::Null).await;
    }

    /// Turns the browser's HTTP cache off (Chrome DevTools Protocol,
    /// `Network.setCacheDisabled`, through chromedriver): every load asks the server
    /// again, even for files the page was told are immutable.
    pub async fn disable_cache(&self) {
        let command = |cmd: &str, params: Value| json!({ "cmd": cmd, "params": params });
        self.send(
            Method::POST,
            "/goog/cdp/execute",
            command("Network.enable", json!({})),
        )
        .await;
        self.send(
            Method::POST,
            "/goog/cdp/execute",
            command("Network.setCacheDisabled", json!({ "cacheDisabled": true })),
        )
        .await;
    }

    /// Ends the session, which closes the browser; a failure here is not the test's.
    pub async fn quit(&self) {
        let request = command(&self.client, Method::DELETE, &self.base, None);
        let _ = tokio::time::timeout(Duration::from_secs(10), request).await;
    }

    async fn send(&self, method: Method, path: &str, body: Value) -> Value {
        let body = (!body.is_null()).then_some(body);
        command(&self.client, method, &format!("{}{path}", self.base), body).await
    }
}

/// The asynchronous script (WebDriver's `execute/async`) that polls the JavaScript
/// expression `condition` every 50 ms and finishes with `true` once it is truthy, or
/// with `false` after [`PAGE_TIMEOUT`]: every browser's `wait_until`.
pub fn poll_script(condition: &str) -> String {
    format!(
        "const done = arguments[arguments.length - 1];
         const deadline = Date.now() + {timeout};
         const poll = () => {{
           let ok = false;
           try {{ ok = Boolean({condition}); }} catch (e) {{}}
           if (ok || Date.now() > deadline) done(ok); else setTimeout(poll, 50);
         }};
         poll();",
        timeout = PAGE_TIMEOUT.as_millis(),
    )
}

/// One entry of the browser's console log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogEntry {
    /// `SEVERE`, `WARNING`, `INFO` or `DEBUG` (chromedriver's names for error, warning,
    /// log/info and debug).
    pub level: String,
    /// Where it came from: `javascript` (`console.*`, uncaught exceptions), `security`,
    /// `network`, ...
    pub source: String,
    /// The text; for `javascript` entries it starts with the script's URL and position.
    pub message: String,
}

impl LogEntry {
    fn from_json(entry: &Value) -> Self {
        let text = |key: &str| {
            entry[key]
                .as_str()
                .unwrap_or_else(|| panic!("browser log entry without {key}: {entry}"))
                .to_owned()
        };
        Self {
            level: text("level"),
            // chromedriver leaves it out for entries of no particular source.
            source: entry["source"].as_str().unwrap_or_default().to_owned(),
            message: text("message"),
        }
    }
}

/// One WebDriver command: JSON in, the response's `value` out.
///
/// # Panics
/// On a transport error, an error response, or after [`COMMAND_TIMEOUT`].
pub async fn command(
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
pub fn base64_decode(text: &str) -> Vec<u8> {
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
#[derive(Debug)]
pub struct Png {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// The pixels, row by row from the top left.
    pub pixels: Vec<[u8; 3]>,
}

impl Png {
    /// Checks the signature, every chunk's CRC and the header, inflates the image data
    /// and undoes the row filters (PNG spec §9).
    ///
    /// # Panics
    /// On anything else than a well-formed, non-interlaced 8-bit RGB(A) PNG.
    pub fn decode(bytes: &[u8]) -> Self {
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
/// (`<target dir>/<profile>/deps/<test>-<hash>`).
pub fn artifact_dir() -> PathBuf {
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
