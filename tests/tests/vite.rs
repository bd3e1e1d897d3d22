//! The Vite pipeline end to end: `examples/vite` (a real Vite + TypeScript app, built
//! by real npm in its `build.rs`) served over real HTTP, and the same app copied into a
//! scratch crate to show what each `cargo build` runs. Needs npm: the `vite` feature
//! of this package (on with `--all-features`, as `tests/run.sh` runs it).
#![cfg(feature = "vite")]

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

use http::StatusCode;
use http::header::{
    ACCEPT_ENCODING, CACHE_CONTROL, CONTENT_ENCODING, CONTENT_TYPE, ETAG, IF_NONE_MATCH, VARY,
};
use integration_tests::npm::{NpmCalls, crate_building_frontend};
use integration_tests::{get, spawn_router};
use serde_json::Value;

fn frontend() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/vite/frontend")
}

/// The manifest of the build `example-vite` embedded (its build script ran before this
/// crate compiled).
fn manifest() -> serde_json::Map<String, Value> {
    let path = frontend().join("dist/.vite/manifest.json");
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    match serde_json::from_str(&text).unwrap() {
        Value::Object(map) => map,
        other => panic!("not a manifest: {other}"),
    }
}

/// Every file the manifest names: Vite content-hashed each of them.
fn hashed_files(manifest: &serde_json::Map<String, Value>) -> Vec<String> {
    let mut files = Vec::new();
    for chunk in manifest.values() {
        files.extend(chunk["file"].as_str().map(str::to_owned));
        for key in ["css", "assets"] {
            if let Some(list) = chunk.get(key).and_then(Value::as_array) {
                files.extend(list.iter().filter_map(Value::as_str).map(str::to_owned));
            }
        }
    }
    files.sort();
    files.dedup();
    files
}

#[tokio::test]
async fn vite_hashed_files_are_immutable_pages_revalidate_and_the_manifest_is_not_served() {
    let manifest = manifest();
    let hashed = hashed_files(&manifest);
    assert!(
        hashed.iter().any(|f| f.ends_with(".js")) && hashed.iter().any(|f| f.ends_with(".css")),
        "the example's build has a hashed script and stylesheet: {hashed:?}"
    );
    let addr = spawn_router(example_vite::app()).await;

    for file in &hashed {
        let url = format!("/{file}");
        let on_disk = fs::read(frontend().join("dist").join(file)).unwrap();
        let (status, headers, body) = get(addr, &url, &[]).await;
        assert_eq!(status, StatusCode::OK, "{url}");
        assert_eq!(body, on_disk, "{url}: the identity bytes");
        assert_eq!(
            headers[CACHE_CONTROL], "public, max-age=31536000, immutable",
            "{url}: Vite hashed it, so it is immutable at its own URL"
        );
        assert!(headers.contains_key(ETAG), "{url}");
        // Only the one URL: no second hash of ours next to Vite's.
        let asset = example_vite::frontend::ASSETS.get(&url).unwrap();
        assert_eq!(asset.url(), url, "{url}: no second fingerprint");

        let (status, headers, _) = get(addr, &url, &[("accept-encoding", "br, gzip")]).await;
        assert_eq!(status, StatusCode::OK);
        if asset.is_negotiated() {
            assert_eq!(headers[VARY], "accept-encoding", "{url}");
            assert!(headers.contains_key(CONTENT_ENCODING), "{url}: {headers:?}");
        } else {
            assert!(!headers.contains_key(CONTENT_ENCODING), "{url}");
        }
    }

    // The page and the files of `public/` keep the default (revalidating) policy.
    for url in ["/", "/index.html", "/favicon.svg"] {
        let (status, headers, _) = get(addr, url, &[]).await;
        assert_eq!(status, StatusCode::OK, "{url}");
        assert_eq!(headers[CACHE_CONTROL], "no-cache", "{url}");
        let etag = headers[ETAG].to_str().unwrap().to_owned();
        let (status, _, body) = get(addr, url, &[(IF_NONE_MATCH.as_str(), &etag)]).await;
        assert_eq!(status, StatusCode::NOT_MODIFIED, "{url}");
        assert!(body.is_empty());
    }
    let (_, headers, page) = get(addr, "/", &[(ACCEPT_ENCODING.as_str(), "identity")]).await;
    assert_eq!(headers[CONTENT_TYPE], "text/html; charset=utf-8");
    let entry = &manifest["index.html"];
    let script = format!("/{}", entry["file"].as_str().unwrap());
    assert!(
        String::from_utf8_lossy(&page).contains(&format!("src=\"{script}\"")),
        "the page loads the hashed entry script {script}"
    );

    // Build metadata is never served.
    let (status, _, _) = get(addr, "/.vite/manifest.json", &[]).await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // The entry constants are the manifest's.
    let index = example_vite::frontend::paths::entries::INDEX_HTML;
    assert_eq!(index.file(), script);
    let css: Vec<String> = entry["css"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| format!("/{}", c.as_str().unwrap()))
        .collect();
    assert_eq!(index.css(), css);

    // And the API the app calls.
    let (status, headers, body) = get(addr, "/api/hello", &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers[CONTENT_TYPE], "application/json");
    let hello: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(hello["message"], "Hello from Rust");
}

/// Copies the Vite app's sources (not `node_modules`, not `dist`) to `to`.
fn copy_sources(from: &Path, to: &Path) {
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        if name == "node_modules" || name == "dist" {
            continue;
        }
        let target = to.join(&name);
        if entry.file_type().unwrap().is_dir() {
            fs::create_dir_all(&target).unwrap();
            copy_sources(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[test]
fn cargo_build_builds_the_vite_app_once_and_again_after_an_edit() {
    let krate = crate_building_frontend("vite_pipeline");
    let dir = krate.dir();
    copy_sources(&frontend(), &dir.join("frontend"));
    fs::write(
        dir.join("src/main.rs"),
        "use embed_assets::{embed_assets, Encoding};\n\n\
         embed_assets!(static FRONTEND = \"frontend/dist\");\n\n\
         fn main() {\n    \
             let page = FRONTEND.get(\"/index.html\").and_then(|a| a.body(Encoding::Identity));\n    \
             eprintln!(\"page: {}\", String::from_utf8_lossy(page.unwrap_or_default()));\n    \
             eprintln!(\"entry: {}\", paths::entries::INDEX_HTML.file());\n\
         }\n",
    )
    .unwrap();
    let Some(npm) = NpmCalls::install(dir) else {
        return;
    };
    let calls = || npm.calls();
    let run = |step: &str| {
        let started = Instant::now();
        let outcome = krate.cargo_with_env("run", &[("NPM", npm.program())]);
        assert!(
            outcome.success,
            "{step}: cargo run failed:\n{}",
            outcome.stderr
        );
        eprintln!("{step}: cargo run took {:.1?}", started.elapsed());
        outcome.stderr
    };

    let first = run("first build");
    assert_eq!(calls(), ["ci --no-audit --no-fund", "run build"]);
    assert!(first.contains("<h1>Vite, embedded</h1>"), "{first}");
    assert!(first.contains("entry: /assets/index-"), "{first}");

    let binary = krate.binary_mtime();
    run("no-op build");
    assert_eq!(calls().len(), 2, "a no-op build ran npm: {:?}", calls());
    assert_eq!(krate.binary_mtime(), binary, "a no-op build relinked");

    let page = dir.join("frontend/index.html");
    let html = fs::read_to_string(&page).unwrap();
    fs::write(
        &page,
        html.replace("Vite, embedded</h1>", "Vite, edited</h1>"),
    )
    .unwrap();
    let edited = run("one-file edit");
    assert_eq!(
        calls()[2..],
        ["run build"],
        "an edit builds and does not install"
    );
    assert!(edited.contains("<h1>Vite, edited</h1>"), "{edited}");
}

/// `vite build --watch` running in a copy of the app, killed when dropped.
struct Watch {
    dir: PathBuf,
    child: std::process::Child,
}

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = fs::remove_dir_all(&self.dir);
    }
}

/// The `src` of the page's module script.
fn script_src(page: &[u8]) -> String {
    let page = String::from_utf8_lossy(page);
    let start = page
        .find("<script type=\"module\" crossorigin src=\"")
        .map(|i| i + "<script type=\"module\" crossorigin src=\"".len())
        .unwrap_or_else(|| panic!("no module script in {page}"));
    let end = start + page[start..].find('"').unwrap();
    page[start..end].to_owned()
}

/// Waits up to a minute for `done`, polling.
async fn wait_for(what: &str, mut done: impl AsyncFnMut() -> bool) {
    let deadline = Instant::now() + std::time::Duration::from_secs(60);
    while !done().await {
        assert!(Instant::now() < deadline, "{what}: not within a minute");
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
}

#[tokio::test]
async fn dev_mode_serves_each_rebuild_of_vite_build_watch_new_files_included() {
    let dir = std::env::temp_dir().join(format!("embed-vite-watch-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    copy_sources(&frontend(), &dir);
    // The example's installed packages (its build script ran `npm ci`).
    std::os::unix::fs::symlink(frontend().join("node_modules"), dir.join("node_modules")).unwrap();
    let child = std::process::Command::new(frontend().join("node_modules/.bin/vite"))
        .args(["build", "--watch"])
        .current_dir(&dir)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start vite build --watch");
    let watch = Watch { dir, child };
    let out = watch.dir.join("dist");
    let manifest = out.join(".vite/manifest.json");
    wait_for("the first watch build", async || manifest.is_file()).await;

    // The embedded build is the fallback; the folder Vite writes is read per request.
    let service = example_vite::frontend::ASSETS.service().dev_folder(&out);
    let addr = spawn_router(axum::Router::new().fallback_service(service)).await;
    let first = script_src(&get(addr, "/", &[]).await.2);

    // An edit: Vite writes a new hashed script, which the table has never seen.
    let main_ts = watch.dir.join("src/main.ts");
    let source = fs::read_to_string(&main_ts).unwrap();
    fs::write(
        &main_ts,
        source.replace("The API did not answer", "Edited while watching"),
    )
    .unwrap();
    let mut script = first.clone();
    wait_for("the page to name the rebuilt script", async || {
        let (status, _, page) = get(addr, "/", &[]).await;
        script = script_src(&page);
        status == StatusCode::OK && script != first
    })
    .await;
    assert!(
        example_vite::frontend::ASSETS.get(&script).is_none(),
        "{script} is new since the build"
    );
    let (status, headers, body) = get(addr, &script, &[("accept-encoding", "br, gzip")]).await;
    assert_eq!(status, StatusCode::OK, "{script}");
    assert!(String::from_utf8_lossy(&body).contains("Edited while watching"));
    assert_eq!(headers[CONTENT_TYPE], "text/javascript; charset=utf-8");
    assert_eq!(
        headers[CACHE_CONTROL], "no-cache",
        "dev mode: every file revalidates"
    );
    assert!(
        !headers.contains_key(CONTENT_ENCODING),
        "dev mode sends identity"
    );
}
