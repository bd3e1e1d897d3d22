//! `examples/leptos` end to end: a Leptos app rendered on the server and hydrated in
//! headless Chromium, its whole site (the wasm, its JavaScript, the style sheet, the
//! wasm chunks of its lazily loaded route, `public/`) embedded in the server binary by
//! cargo-leptos's release build.
//!
//! The test builds the example as its README says (`cargo leptos build --release
//! --precompress --split`, the wasm with Debian's Rust and `-Z build-std`), copies the
//! server binary alone to an empty folder and runs it there, so nothing of
//! `target/site` is on disk beside it. Chromium loads the page through a recording proxy on 127.0.0.1, which notes what
//! the binary answered to each request.
//!
//! Needs what `examples/leptos/setup.sh` installs (Debian's `rustc-web`, `cargo-web`,
//! `rust-web-src`, `lld-22`, `rust-web-llvm`, `binaryen`; `wasm-bindgen` 0.2.130 and
//! cargo-leptos), and
//! Chromium with chromedriver; skipped without them (a failure under
//! `EMBED_TEST_REQUIRE_ALL=1`). A cold build takes many minutes, so the test is
//! `#[ignore]`d in a plain `cargo test`; `tests/run.sh` (and so CI) runs it on its own
//! after `examples/leptos/setup.sh`. CONTRIBUTING.md gives the command.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::middleware;
use axum::response::Response;
use http::StatusCode;
use http::header::{CONTENT_ENCODING, CONTENT_TYPE, ETAG};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use integration_tests::browser::{BrowserPrograms, ServerLog, Session, in_browser, record};
use integration_tests::{decode_body, get, header, programs, spawn_router};

/// The browser part, once the binary runs.
const TEST_TIMEOUT: Duration = Duration::from_secs(180);
/// The release build, client and server; a cold one takes several minutes on two cores.
const BUILD_TIMEOUT: Duration = Duration::from_secs(45 * 60);
/// What the browser sends; curl's `--compressed` and Chromium offer the same codings.
const ACCEPT: (&str, &str) = ("accept-encoding", "gzip, deflate, br, zstd");
/// The files of `pkg/` the page loads, as `HydrationScripts` and the app name them.
/// The first two are large enough that the macro stores them compressed (and only
/// compressed); the style sheet, a few hundred bytes, is served as it is.
const PKG: [&str; 3] = [
    "/pkg/example-leptos.js",
    "/pkg/example-leptos.wasm",
    "/pkg/example-leptos.css",
];

/// The coding the binary answers `path` with, for a browser's `Accept-Encoding`:
/// br for all of `pkg/` but the style sheet, the split wasm chunks and their
/// JavaScript loader (a few KB) included.
fn compressed(path: &str) -> Option<&'static str> {
    (path != PKG[2]).then_some("br")
}

/// The app's lazily loaded route.
const LAZY: &str = "/lazy";
/// The JavaScript that loads the split wasm chunks, as cargo-leptos names it.
const SPLIT_LOADER: &str = "/pkg/__wasm_split.______________________.js";

/// What `--split` wrote to `pkg/`: the wasm chunks (`split_*.wasm`, `chunk_*.wasm`)
/// and their loader, as URL paths, sorted.
fn split_files(site: &Path) -> Vec<String> {
    let mut files: Vec<String> = std::fs::read_dir(site.join("pkg"))
        .expect("read target/site/pkg")
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|name| {
            let chunk = (name.starts_with("split_") || name.starts_with("chunk_"))
                && name.ends_with(".wasm");
            chunk || format!("/pkg/{name}") == SPLIT_LOADER
        })
        .map(|name| format!("/pkg/{name}"))
        .collect();
    files.sort();
    files
}

/// The wasm chunks the lazy route needs, from the manifest `--split` wrote
/// (`pkg/__wasm_split_manifest.json`: each split function's modules), as URL paths.
fn lazy_chunks(site: &Path) -> Vec<String> {
    let manifest = std::fs::read(site.join("pkg/__wasm_split_manifest.json"))
        .expect("--split wrote pkg/__wasm_split_manifest.json");
    let manifest: std::collections::BTreeMap<String, Vec<String>> =
        serde_json::from_slice(&manifest).expect("the manifest is a map of lists");
    let mut chunks: Vec<String> = manifest
        .iter()
        .filter(|(function, _)| function.contains("lazy_page_view"))
        .flat_map(|(_, modules)| modules.iter().map(|m| format!("/pkg/{m}.wasm")))
        .collect();
    chunks.sort();
    chunks.dedup();
    chunks
}

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/leptos")
}

/// What the build needs, or `None` after skipping the test with what is missing.
fn toolchain() -> Option<()> {
    let cargo_bin = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".cargo")))
        .map(|home| home.join("bin").to_string_lossy().into_owned())
        .unwrap_or_default();
    let missing: Vec<&str> = [
        ("/usr/bin/cargo", Path::new("/usr/bin/cargo").is_file()),
        (
            "/usr/lib/rustlib/src/rust (rust-web-src)",
            Path::new("/usr/lib/rustlib/src/rust/library").is_dir(),
        ),
        ("/usr/bin/lld-22", Path::new("/usr/bin/lld-22").is_file()),
        (
            "/usr/bin/rust-lld (rust-web-llvm)",
            Path::new("/usr/bin/rust-lld").is_file(),
        ),
        (
            "wasm-opt (binaryen)",
            programs::find(&["wasm-opt"], &[]).is_some(),
        ),
        (
            "wasm-bindgen",
            programs::find(&["wasm-bindgen"], &[&cargo_bin]).is_some(),
        ),
        (
            "cargo-leptos",
            programs::find(&["cargo-leptos"], &[&cargo_bin]).is_some(),
        ),
    ]
    .into_iter()
    .filter(|(_, present)| !present)
    .map(|(name, _)| name)
    .collect();
    if missing.is_empty() {
        return Some(());
    }
    programs::skip(&format!(
        "{} missing: run `bash examples/leptos/setup.sh`",
        missing.join(", ")
    ));
    None
}

/// `cargo leptos build --release --precompress --split` in the example, as its README
/// runs it: Debian's cargo and rustc first on `PATH`, `RUSTC_BOOTSTRAP=1` for
/// `-Z build-std`; the server at opt-level 0. Returns the server binary.
fn build() -> PathBuf {
    let dir = example();
    let path = format!("/usr/bin:{}", std::env::var("PATH").unwrap_or_default());
    let mut command = Command::new("/usr/bin/cargo");
    command
        .args(["leptos", "build", "--release", "--precompress", "--split"])
        .current_dir(&dir)
        .env("PATH", path)
        .env("RUSTC_BOOTSTRAP", "1")
        // The server unoptimised (the wasm keeps its own profile, `wasm-release`, and
        // the macro its `build-override`): what is checked is what the binary serves,
        // not how fast, and the release profile's opt-level 3 adds two minutes of the
        // build on two cores (15 min against 13).
        .env("CARGO_PROFILE_RELEASE_OPT_LEVEL", "0")
        // The outer build's tools and settings are not the example's: CI lints the
        // workspace through clippy's driver, of another Rust.
        .env_remove("RUSTC_WORKSPACE_WRAPPER")
        .env_remove("RUSTC_WRAPPER")
        .env_remove("CLIPPY_ARGS")
        .env_remove("RUSTC")
        .env_remove("RUSTDOC")
        .env_remove("RUSTUP_TOOLCHAIN")
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("CARGO_BUILD_TARGET_DIR")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let shown = "PATH=/usr/bin:$PATH RUSTC_BOOTSTRAP=1 CARGO_PROFILE_RELEASE_OPT_LEVEL=0 cargo leptos build --release --precompress --split";
    let started = Instant::now();
    let child = command
        .spawn()
        .unwrap_or_else(|err| panic!("{shown}: {err}"));
    let output = wait_bounded(child, BUILD_TIMEOUT, shown);
    eprintln!(
        "== {} s: {shown} (in examples/leptos)",
        started.elapsed().as_secs()
    );
    assert!(
        output.status.success(),
        "{shown} failed ({}):\n{}{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    dir.join("target/release/example-leptos")
}

/// The variable `tests/run.sh` sets once [`the_example_builds_as_its_readme_says`]
/// has built the example in the same run: the browser test then takes that build as
/// it is, instead of running cargo-leptos again (half a minute of its own steps).
const BUILT_BY_THIS_RUN: &str = "EMBED_TEST_LEPTOS_BUILT";

/// The server binary, built once per test process: the tests of this file that run
/// at the same time wait for one build (two would write `target/site` together).
fn built() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let binary = example().join("target/release/example-leptos");
            if std::env::var_os(BUILT_BY_THIS_RUN).is_some_and(|value| value == "1")
                && binary.is_file()
            {
                return binary;
            }
            build()
        })
        .clone()
}

/// The child's output, or a panic (after killing it) once `timeout` has passed.
fn wait_bounded(mut child: Child, timeout: Duration, shown: &str) -> std::process::Output {
    // Drained on threads, so a full pipe never blocks the build.
    let drain = |pipe: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let stdout = drain(child.stdout.take().map(|p| Box::new(p) as _));
    let stderr = drain(child.stderr.take().map(|p| Box::new(p) as _));
    let deadline = Instant::now() + timeout;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for the build") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{shown} took more than {timeout:?}");
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    std::process::Output {
        status,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    }
}

/// The server binary, alone in an empty folder, running on a free port; killed on drop.
struct Server {
    child: Child,
    addr: SocketAddr,
    _folder: TempFolder,
}

impl Server {
    fn start(binary: &Path) -> Server {
        let folder = TempFolder::new();
        let copy = folder.0.join("example-leptos");
        std::fs::copy(binary, &copy).expect("copy the server binary");
        let mut child = Command::new(&copy)
            .current_dir(&folder.0)
            // Nothing from a cargo-leptos run: the binary's own defaults, port 0.
            .env_remove("LEPTOS_SITE_ROOT")
            .env_remove("LEPTOS_SITE_ADDR")
            .env_remove("LEPTOS_OUTPUT_NAME")
            .env("PORT", "0")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start the server binary");
        let stdout = child.stdout.take().expect("piped stdout");
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = sender.send(line);
        });
        let line = receiver
            .recv_timeout(Duration::from_secs(20))
            .expect("the server printed its address within 20 s");
        let addr = line
            .trim()
            .strip_prefix("listening on http://")
            .and_then(|addr| addr.parse().ok())
            .unwrap_or_else(|| panic!("the server printed {line:?}"));
        Server {
            child,
            addr,
            _folder: folder,
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An empty folder of its own in the temp folder, removed on drop.
struct TempFolder(PathBuf);

impl TempFolder {
    fn new() -> TempFolder {
        let dir = std::env::temp_dir().join(format!("embed-leptos-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create the temp folder");
        TempFolder(dir)
    }
}

impl Drop for TempFolder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Passes every request to `upstream` unchanged and hands back its response.
async fn forward(State(upstream): State<SocketAddr>, request: Request) -> Response {
    let client = Client::builder(TokioExecutor::new()).build_http::<Body>();
    let (mut parts, body) = request.into_parts();
    let target = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    parts.uri = format!("http://{upstream}{target}")
        .parse()
        .expect("upstream URI");
    let response = client
        .request(Request::from_parts(parts, body))
        .await
        .expect("the server answered");
    response.map(Body::new)
}

/// The text of the element `selector` on the page.
async fn text(session: &Session, selector: &str) -> String {
    let value = session
        .execute(&format!(
            "const e = document.querySelector({selector:?}); return e ? e.textContent : null;"
        ))
        .await;
    value.as_str().unwrap_or_default().to_owned()
}

/// The build alone, as the README says: `tests/run.sh` runs this while the other
/// tests run (it has the CPU they leave), and the browser test after, on the built
/// example (cargo-leptos then finds little to do).
#[test]
#[ignore = "builds a Leptos app with Debian's wasm toolchain (minutes); tests/run.sh runs it"]
fn the_example_builds_as_its_readme_says() {
    if toolchain().is_none() {
        return;
    }
    let binary = built();
    let size = std::fs::metadata(&binary)
        .unwrap_or_else(|err| panic!("{}: {err}", binary.display()))
        .len();
    assert!(size > 0, "{} is empty", binary.display());
    for path in PKG {
        let file = example().join("target/site").join(&path[1..]);
        assert!(file.is_file(), "{} not built", file.display());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "builds a Leptos app with Debian's wasm toolchain (minutes); tests/run.sh runs it: `bash examples/leptos/setup.sh && cargo test -p integration-tests --all-features --test leptos -- --ignored`"]
async fn the_leptos_binary_alone_renders_hydrates_and_serves_its_wasm_compressed_from_memory() {
    if toolchain().is_none() {
        return;
    }
    let Some(programs) = BrowserPrograms::find() else {
        return;
    };
    let binary = tokio::task::spawn_blocking(built).await.expect("build");
    let site = example().join("target/site");
    // The lazy route's code is split out of the main wasm: its chunks, their loader.
    let split = split_files(&site);
    let chunks = lazy_chunks(&site);
    assert!(
        !chunks.is_empty() && chunks.iter().all(|chunk| split.contains(chunk)),
        "the manifest names the lazy route's chunks {chunks:?}, among {split:?}"
    );
    assert!(split.iter().any(|f| f == SPLIT_LOADER), "{split:?}");
    // Every file of pkg/ the browser loads, the lazy route's included.
    let loaded: Vec<String> = PKG
        .iter()
        .map(|p| p.to_string())
        .chain(chunks.iter().cloned())
        .chain([SPLIT_LOADER.to_owned()])
        .collect();
    let server = Server::start(&binary);
    let addr = server.addr;

    // The page arrives rendered: its text is in the HTML, before any script runs, and
    // it names the files of pkg/ where the binary serves them.
    let (status, headers, body) = get(addr, "/", &[ACCEPT]).await;
    assert_eq!(status, StatusCode::OK);
    let html = String::from_utf8(decode_body(&headers, &body)).expect("UTF-8 page");
    // Without the comments that mark where hydration finds dynamic text.
    let text_of_html = html.replace("<!>", "");
    for expected in ["Leptos in one binary", "Clicked 0 times", "Ask the server"] {
        assert!(
            text_of_html.contains(expected),
            "{expected:?} not in {html}"
        );
    }
    for path in PKG {
        assert!(html.contains(path), "{path} not linked from {html}");
    }
    // The home page does not preload the lazy route's chunks.
    for chunk in &chunks {
        assert!(!html.contains(chunk.as_str()), "{chunk} linked from {html}");
    }

    // The lazy route rendered on the server, as a first request: its page, and a
    // preload link for each of its chunks, which the server found in the manifest the
    // binary embedded (it has no target/site beside it).
    let (status, headers, body) = get(addr, LAZY, &[ACCEPT]).await;
    assert_eq!(status, StatusCode::OK);
    let lazy_html = String::from_utf8(decode_body(&headers, &body)).expect("UTF-8 page");
    let text_of_lazy = lazy_html.replace("<!>", "");
    for expected in ["Loaded lazily", "Lazy clicks: 0"] {
        assert!(
            text_of_lazy.contains(expected),
            "{expected:?} not in {lazy_html}"
        );
    }
    for link in chunks.iter().map(String::as_str).chain([SPLIT_LOADER]) {
        assert!(
            lazy_html.contains(&format!("href=\"{link}\"")),
            "no preload of {link} in {lazy_html}: the split manifest was not read"
        );
    }

    // Each file of pkg/ comes from the binary, br, with a strong ETag, and is the file
    // cargo-leptos wrote; a revalidation answers 304. The split chunks too.
    for path in PKG.iter().copied().chain(split.iter().map(String::as_str)) {
        let (status, headers, body) = get(addr, path, &[ACCEPT]).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        assert_eq!(
            header(&headers, CONTENT_ENCODING),
            compressed(path),
            "{path}"
        );
        let etag = header(&headers, ETAG).unwrap_or_else(|| panic!("{path}: no ETag"));
        assert!(etag.starts_with('"'), "{path}: {etag} is not strong");
        let on_disk = std::fs::read(site.join(&path[1..])).expect("the built file");
        assert!(
            decode_body(&headers, &body) == on_disk,
            "{path}: other bytes"
        );
        let (status, ..) = get(addr, path, &[ACCEPT, ("if-none-match", etag)]).await;
        assert_eq!(status, StatusCode::NOT_MODIFIED, "{path}");
    }
    for path in ["/pkg/example-leptos.wasm"]
        .into_iter()
        .chain(chunks.iter().map(String::as_str))
    {
        let (_, headers, _) = get(addr, path, &[ACCEPT]).await;
        assert_eq!(
            header(&headers, CONTENT_TYPE),
            Some("application/wasm"),
            "{path}"
        );
    }
    let (status, ..) = get(addr, "/favicon.svg", &[ACCEPT]).await;
    assert_eq!(status, StatusCode::OK, "public/ is embedded too");
    let (status, ..) = get(addr, "/no/such/page", &[ACCEPT]).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "the app's 404 page");

    // The browser part may run twice (in a new browser, if the first is lost): each run
    // shares these.
    let (chunks, loaded): (Arc<[String]>, Arc<[String]>) = (chunks.into(), loaded.into());
    in_browser(&programs, TEST_TIMEOUT, move |session| {
        let (chunks, loaded) = (Arc::clone(&chunks), Arc::clone(&loaded));
        async move {
        let log = ServerLog::default();
        let proxy = Router::new()
            .fallback(forward)
            .with_state(addr)
            .layer(middleware::from_fn_with_state(log.clone(), record));
        let proxy = spawn_router(proxy).await;
        session.navigate(&format!("http://{proxy}/")).await;
        // A mark on this document: gone if anything below reloads the page.
        session
            .execute("window.__embedMark = 1; return null;")
            .await;

        // Hydrated: a click changes the count, in the page. Clicks made before the wasm
        // attached its handlers change nothing, so click until one counts.
        let counted = "(document.querySelector('#count').textContent !== 'Clicked 0 times') \
                   || (document.querySelector('#count').click(), false)";
        assert!(
            session.wait_until(counted).await,
            "the button never counted a click: not hydrated; console: {:?}",
            session.browser_log().await
        );
        let before = text(&session, "#count").await;
        let n: u32 = before
            .trim_start_matches("Clicked ")
            .trim_end_matches(" times")
            .parse()
            .unwrap_or_else(|_| panic!("{before:?}"));
        session
            .execute("document.querySelector('#count').click(); return null;")
            .await;
        let next = format!(
            "document.querySelector('#count').textContent === 'Clicked {} times'",
            n + 1
        );
        assert!(session.wait_until(&next).await, "one click, one more");

        // The server function answers.
        session
            .execute("document.querySelector('#greet').click(); return null;")
            .await;
        assert!(
            session
                .wait_until(
                    "document.querySelector('#answer').textContent.includes('from the server')"
                )
                .await,
            "no answer from the server function: {:?}",
            text(&session, "#answer").await
        );
        assert_eq!(
            text(&session, "#answer").await.split(" (call").next(),
            Some("Hello, browser, from the server")
        );

        // The second route, reached in the page (client-side routing).
        session
            .execute("document.querySelector('a[href=\"/about\"]').click(); return null;")
            .await;
        assert!(
            session
                .wait_until("document.querySelector('#about') !== null")
                .await,
            "the about page did not show"
        );
        assert_eq!(
            session
                .execute("return window.__embedMark === 1 && location.pathname")
                .await,
            "/about",
            "the page was reloaded"
        );

        // Until the lazy route shows, its chunks are not fetched (their loader is: the
        // JavaScript glue imports it).
        let before_lazy = log.snapshot();
        for path in chunks.iter() {
            assert!(
                !before_lazy.iter().any(|s| s.path == *path),
                "{path} fetched before the lazy route showed: {before_lazy:#?}"
            );
        }
        // The lazy route, reached in the page: the router fetches its chunk, then
        // renders it; its button's signal counts.
        session
            .execute("document.querySelector('a[href=\"/lazy\"]').click(); return null;")
            .await;
        assert!(
            session
                .wait_until("document.querySelector('#lazy') !== null")
                .await,
            "the lazy page did not show; console: {:?}",
            session.browser_log().await
        );
        assert_eq!(
            session
                .execute("return window.__embedMark === 1 && location.pathname")
                .await,
            LAZY,
            "the page was reloaded"
        );
        session
            .execute("document.querySelector('#lazy-count').click(); return null;")
            .await;
        assert!(
            session
                .wait_until(
                    "document.querySelector('#lazy-count').textContent === 'Lazy clicks: 1'"
                )
                .await,
            "the lazy page's button did not count: {:?}",
            text(&session, "#lazy-count").await
        );

        let first = log.snapshot();
        let calls: Vec<_> = first
            .iter()
            .filter(|s| s.path.starts_with("/api/"))
            .collect();
        assert!(
            calls.iter().any(|s| s.status == StatusCode::OK),
            "no server function call in {first:#?}"
        );
        for page in ["/about", LAZY] {
            assert!(
                !first.iter().any(|s| s.path == page),
                "{page} came from the server, not the router in the page: {first:#?}"
            );
        }
        for path in loaded.iter() {
            let seen: Vec<_> = first.iter().filter(|s| s.path == *path).collect();
            assert!(!seen.is_empty(), "{path} not requested: {first:#?}");
            for seen in seen {
                assert_eq!(seen.status, StatusCode::OK, "{seen:?}");
                assert_eq!(
                    seen.content_encoding.as_deref(),
                    compressed(path.as_str()),
                    "{seen:?}"
                );
                assert!(
                    seen.etag.as_deref().is_some_and(|e| e.starts_with('"')),
                    "{seen:?}"
                );
            }
        }

        // A reload revalidates each file (304) or takes it from the browser's cache.
        session.navigate(&format!("http://{proxy}/")).await;
        session.refresh().await;
        let hydrated_again = "(document.querySelector('#count').textContent !== 'Clicked 0 times') \
                          || (document.querySelector('#count').click(), false)";
        assert!(
            session.wait_until(hydrated_again).await,
            "reload: not hydrated"
        );
        // The lazy route loaded as a new document: the server renders it, and the
        // page hydrates once its chunk is in: click until a click on its button counts.
        session.navigate(&format!("http://{proxy}{LAZY}")).await;
        let lazy_counted = "(document.querySelector('#lazy-count') !== null \
         && document.querySelector('#lazy-count').textContent !== 'Lazy clicks: 0') \
         || (document.querySelector('#lazy-count')?.click(), false)";
        assert!(
            session.wait_until(lazy_counted).await,
            "{LAZY} loaded directly: not hydrated; console: {:?}",
            session.browser_log().await
        );
        let all = log.snapshot();
        let reload = &all[first.len()..];
        assert!(
            reload
                .iter()
                .any(|s| s.path == LAZY && s.status == StatusCode::OK),
            "{LAZY} was not rendered by the server: {reload:#?}"
        );
        for path in loaded.iter() {
            for seen in reload.iter().filter(|s| s.path == *path) {
                let etag = first
                    .iter()
                    .find(|s| s.path == *path)
                    .and_then(|s| s.etag.clone());
                assert!(
                    seen.status == StatusCode::NOT_MODIFIED && seen.if_none_match == etag
                        || seen.status == StatusCode::OK && seen.etag == etag,
                    "{seen:?}"
                );
            }
        }
        let revalidated = reload
            .iter()
            .filter(|s| s.path.starts_with("/pkg/") && s.status == StatusCode::NOT_MODIFIED)
            .count();
        eprintln!(
            "reload: {revalidated} of pkg/'s requests answered 304, cache-control {:?}",
            first
                .iter()
                .find(|s| s.path == PKG[1])
                .and_then(|s| s.cache_control.clone())
        );
    }
    })
    .await;
    drop(server);
}
