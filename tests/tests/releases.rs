//! Rolling deploys: the `releases` option serves the hashed files of the earlier
//! releases `embed_assets_build::Releases` kept, at their hashed URLs, beside this
//! build's; a version of a hashed file no kept release has is a final 404.
//!
//! `fixtures/rolling/releases` holds three releases of `fixtures/rolling/public`, the
//! newest being the folder as it is (the first test checks that the recorder writes
//! exactly these files). Each release has its own `js/app.js` (fingerprinted) and lazy
//! chunk `assets/lazy-<hash>.js` (hashed by name, as a bundler does); `css/app.css`
//! never changed; release 1 also had `notes.txt`, which this build no longer has.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use http::header::{CACHE_CONTROL, CONTENT_TYPE, ETAG};
use http::{Method, StatusCode};
use integration_tests::{decode_body, get, header, send, spawn_service};

use integration_tests::rolling::{self, RELEASE_1, RELEASE_2, RELEASE_3, SITE, earlier};

const IMMUTABLE: &str = "public, max-age=31536000, immutable";

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/rolling")
}

/// `js/app.js` of release `n`, as the fixture's recording wrote it.
fn app_js(n: u32, lazy: &str) -> String {
    format!(
        "// The application, release {n}.\nconst release = {n};\ndocument.querySelector('h1').dataset.release = String(release);\nexport async function lazy() {{\n  return import('/assets/lazy-{lazy}.js');\n}}\n"
    )
}

fn lazy_js(n: u32) -> String {
    format!("export const chunk = 'lazy chunk of release {n}';\n")
}

/// Writes the three versions of the site into `base/public`, recording each into
/// `base/releases` as a release build's `build.rs` would, and keeps a copy of the
/// second in `base/release-2`.
fn record_versions(base: &Path) {
    let public = base.join("public");
    let releases = base.join("releases");
    let css = "body { color: #333; font-family: sans-serif; }\n";
    for (n, lazy) in [(1, "A1a1a1a1"), (2, "B2b2b2b2"), (3, "C3c3c3c3")] {
        let _ = std::fs::remove_dir_all(&public);
        let write = |path: &str, text: &str| {
            let path = public.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write(
            "index.html",
            &format!(
                "<!doctype html>\n<html><head><title>Release {n}</title>\n<link rel=\"stylesheet\" href=\"css/app.css\">\n</head><body>\n<h1>Release {n}</h1>\n<script type=\"module\" src=\"js/app.js\"></script>\n</body></html>\n"
            ),
        );
        write("css/app.css", css);
        write("js/app.js", &app_js(n, lazy));
        write(&format!("assets/lazy-{lazy}.js"), &lazy_js(n));
        if n == 1 {
            write("notes.txt", "only in release 1\n");
        }
        embed_assets_build::Releases::new(&releases)
            .keep(3)
            .record(&public)
            .unwrap()
            .expect("a test is no debug build script: it records");
        if n == 2 {
            // The folder as release 2 had it: `browser_rolling.rs` serves it as the
            // replica a page was loaded from.
            for (path, bytes) in files_below(&public) {
                let to = base.join("release-2").join(path);
                std::fs::create_dir_all(to.parent().unwrap()).unwrap();
                std::fs::write(to, bytes).unwrap();
            }
        }
    }
}

/// `files` with the `recorded <seconds>` line of each release list left out: when a
/// list was written is no part of what it lists (nor of its id).
fn without_times(files: BTreeMap<String, Vec<u8>>) -> BTreeMap<String, Vec<u8>> {
    files
        .into_iter()
        .map(|(path, bytes)| {
            if !path.ends_with(".release") {
                return (path, bytes);
            }
            let text = String::from_utf8(bytes).expect("a release list is text");
            let kept: String = text
                .split_inclusive('\n')
                .filter(|line| !line.starts_with("recorded "))
                .collect();
            (path, kept.into_bytes())
        })
        .collect()
}

/// Every file below `dir`, by relative path.
fn files_below(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut found = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let relative = path
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                found.insert(relative, std::fs::read(&path).unwrap());
            }
        }
    }
    found
}

#[test]
fn the_fixture_is_what_the_recorder_writes() {
    let base = std::env::temp_dir().join(format!("embed-rolling-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    record_versions(&base);
    for folder in ["public", "releases", "release-2"] {
        let made = without_times(files_below(&base.join(folder)));
        let committed = without_times(files_below(&fixture_dir().join(folder)));
        assert_eq!(
            made.keys().collect::<Vec<_>>(),
            committed.keys().collect::<Vec<_>>(),
            "{folder}: the same files"
        );
        assert!(made == committed, "{folder}: the same bytes");
    }
    std::fs::remove_dir_all(&base).unwrap();
}

#[test]
fn the_table_has_this_build_and_earlier_releases_hashed_files() {
    assert_eq!(
        SITE.release(),
        Some(RELEASE_3),
        "the newest kept release is this folder"
    );
    // This build: its own paths, as without the option.
    assert_eq!(
        SITE.get("/js/app.js").unwrap().earlier_release(),
        None,
        "the plain path is this build's file"
    );
    let current: Vec<&str> = SITE
        .iter()
        .filter(|asset| asset.earlier_release().is_none())
        .map(|asset| asset.path())
        .collect();
    assert_eq!(
        current,
        [
            "/assets/lazy-C3c3c3c3.js",
            "/css/app.css",
            "/index.html",
            "/js/app.js"
        ]
    );
    // Earlier releases: each changed hashed file once, at its hashed URL (`notes.txt`
    // too: `fingerprint = true` hashed it); the style sheet never changed (one URL,
    // this build's); pages are not kept.
    let mut kept: Vec<(&str, &str)> = SITE
        .iter()
        .filter_map(|asset| Some((asset.path(), asset.earlier_release()?)))
        .collect();
    kept.sort();
    assert_eq!(
        kept,
        [
            ("/assets/lazy-A1a1a1a1.js", RELEASE_1),
            ("/assets/lazy-B2b2b2b2.js", RELEASE_2),
            // Sorted: release 2's id sorts first.
            ("/js/app.js", RELEASE_2),
            ("/js/app.js", RELEASE_1),
            ("/notes.txt", RELEASE_1),
        ]
    );
    for (n, release, lazy) in [(1, RELEASE_1, "A1a1a1a1"), (2, RELEASE_2, "B2b2b2b2")] {
        let app = earlier("/js/app.js", release);
        let url = app.fingerprinted_path().unwrap();
        assert_ne!(
            Some(url),
            SITE.url("/js/app.js"),
            "release {n}: another hash"
        );
        assert_eq!(SITE.get(url).map(|a| a.etag()), Some(app.etag()), "{url}");
        assert!(url.starts_with("/js/app.") && url.ends_with(".js"), "{url}");
        let chunk = earlier(&format!("/assets/lazy-{lazy}.js"), release);
        assert_eq!(chunk.fingerprinted_path(), Some(chunk.path()));
    }
    // What they cost the binary, in the start-up report.
    let report = SITE.report();
    assert_eq!(report.earlier_release_files, 5);
    let kept_bytes: u64 = SITE
        .iter()
        .filter(|asset| asset.earlier_release().is_some())
        .map(|asset| asset.len())
        .sum();
    assert!(
        report.earlier_release_bytes >= kept_bytes,
        "at least their own bytes: {report:?}"
    );
    assert!(
        report
            .to_string()
            .contains("; 5 files of earlier releases ("),
        "{report}"
    );
    // Earlier releases' files are no `paths` constant: nothing of this build links to
    // them.
    assert_eq!(rolling::paths::JS_APP_JS, SITE.url("/js/app.js").unwrap());
    assert_eq!(SITE.get("/notes.txt").map(|a| a.path()), None);
}

#[tokio::test]
async fn a_page_of_an_earlier_release_loads_its_own_files_from_this_build() {
    let addr = spawn_service(SITE.service().spa_fallback("/index.html")).await;
    for (n, release, lazy) in [(1, RELEASE_1, "A1a1a1a1"), (2, RELEASE_2, "B2b2b2b2")] {
        let app_url = earlier("/js/app.js", release).fingerprinted_path().unwrap();
        let chunk_url = format!("/assets/lazy-{lazy}.js");
        for (url, expected) in [(app_url, app_js(n, lazy)), (&chunk_url, lazy_js(n))] {
            for accept in ["", "gzip, br"] {
                let (status, headers, body) = get(addr, url, &[("accept-encoding", accept)]).await;
                assert_eq!(status, StatusCode::OK, "{url}");
                assert_eq!(decode_body(&headers, &body), expected.as_bytes(), "{url}");
                assert_eq!(header(&headers, CACHE_CONTROL), Some(IMMUTABLE), "{url}");
                assert_eq!(
                    header(&headers, CONTENT_TYPE),
                    Some("text/javascript; charset=utf-8"),
                    "{url}"
                );
                // Revalidation works as for any file (RFC 9110 §13.1.2).
                let etag = header(&headers, ETAG).unwrap().to_owned();
                let fields = [
                    ("accept-encoding", accept),
                    ("if-none-match", etag.as_str()),
                ];
                assert_eq!(get(addr, url, &fields).await.0, StatusCode::NOT_MODIFIED);
            }
        }
    }
    // This build's files at their own and hashed URLs, as ever.
    let (status, _, body) = get(addr, "/js/app.js", &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body, app_js(3, "C3c3c3c3").as_bytes());
    let (status, _, body) = get(addr, SITE.url("/js/app.js").unwrap(), &[]).await;
    assert_eq!(
        (status, &body[..]),
        (StatusCode::OK, app_js(3, "C3c3c3c3").as_bytes())
    );
    // No kept release has this version: final, kept by no cache, never the page.
    for missing in ["/assets/lazy-D4d4d4d4.js", "/js/app.0badf00d.js"] {
        for method in [Method::GET, Method::HEAD] {
            let (status, headers, _) =
                send(addr, method.clone(), missing, &[("accept", "text/html")]).await;
            assert_eq!(status, StatusCode::NOT_FOUND, "{method} {missing}");
            assert_eq!(
                header(&headers, CACHE_CONTROL),
                Some("no-store"),
                "{missing}"
            );
        }
    }
    // An earlier release's file is served at its hashed URL only: its plain path is
    // this build's, which has no `notes.txt`; its page is this build's page.
    let notes = earlier("/notes.txt", RELEASE_1)
        .fingerprinted_path()
        .unwrap();
    let (status, _, body) = get(addr, notes, &[]).await;
    assert_eq!(status, StatusCode::OK, "{notes}");
    assert_eq!(body, &b"only in release 1\n"[..]);
    let (status, _, _) = get(addr, "/notes.txt", &[]).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _, body) = get(addr, "/index.html", &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert!(String::from_utf8_lossy(&body).contains("<h1>Release 3</h1>"));
}

#[tokio::test]
async fn earlier_releases_files_are_served_from_memory_in_dev_mode_too() {
    let dev = fixture_dir().join("public");
    let addr = spawn_service(SITE.service().dev_folder(dev)).await;
    let url = earlier("/js/app.js", RELEASE_1)
        .fingerprinted_path()
        .unwrap();
    let (status, headers, body) = get(addr, url, &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body, app_js(1, "A1a1a1a1").as_bytes());
    assert_eq!(
        header(&headers, CACHE_CONTROL),
        Some(IMMUTABLE),
        "its bytes cannot change"
    );
}

/// `Cache-Tag` and `Surrogate-Key` of an answer: both, or neither, with the same tags.
fn purge_tags(headers: &http::HeaderMap) -> Option<Vec<String>> {
    let cache_tag = header(headers, http::HeaderName::from_static("cache-tag"));
    let surrogate_key = header(headers, http::HeaderName::from_static("surrogate-key"));
    match (cache_tag, surrogate_key) {
        (None, None) => None,
        (Some(commas), Some(spaces)) => {
            let tags: Vec<String> = commas.split(',').map(str::to_owned).collect();
            let keys: Vec<String> = spaces.split(' ').map(str::to_owned).collect();
            assert_eq!(tags, keys, "the two fields carry the same tags");
            Some(tags)
        }
        _ => panic!("one purge field without the other: {headers:?}"),
    }
}

/// `cache_tags`: every answer about an asset names the service, what it is (page,
/// hashed, other) and the release its file is of, on 200, 206 and 304 alike; a kept
/// file names its own release; 404s carry none, and nothing does without the option.
#[tokio::test]
async fn cache_tags_name_the_service_the_kind_and_the_release_of_each_answer() {
    let addr = spawn_service(SITE.service().cache_tags("site")).await;
    let tags = |kind: &str, release: &str| {
        Some(vec![
            "site".to_owned(),
            format!("site-{kind}"),
            format!("site-release-{release}"),
        ])
    };
    let hashed_app = SITE.url("/js/app.js").unwrap();
    let kept_app = earlier("/js/app.js", RELEASE_1)
        .fingerprinted_path()
        .unwrap();
    for (path, expected) in [
        ("/", tags("page", RELEASE_3)),
        ("/index.html", tags("page", RELEASE_3)),
        ("/js/app.js", tags("other", RELEASE_3)),
        ("/css/app.css", tags("other", RELEASE_3)),
        (hashed_app, tags("hashed", RELEASE_3)),
        ("/assets/lazy-C3c3c3c3.js", tags("hashed", RELEASE_3)),
        (kept_app, tags("hashed", RELEASE_1)),
        ("/assets/lazy-B2b2b2b2.js", tags("hashed", RELEASE_2)),
    ] {
        for accept in ["", "br, gzip"] {
            let fields = [("accept-encoding", accept)];
            let (status, headers, _) = get(addr, path, &fields).await;
            assert_eq!(status, StatusCode::OK, "{path}");
            assert_eq!(purge_tags(&headers), expected, "{path}, 200");
            let etag = header(&headers, ETAG).unwrap().to_owned();
            let revalidate = [("accept-encoding", accept), ("if-none-match", &etag)];
            let (status, headers, _) = get(addr, path, &revalidate).await;
            assert_eq!(status, StatusCode::NOT_MODIFIED, "{path}");
            assert_eq!(purge_tags(&headers), expected, "{path}, 304");
            let range = [("accept-encoding", accept), ("range", "bytes=0-3")];
            let (status, headers, _) = get(addr, path, &range).await;
            assert_eq!(status, StatusCode::PARTIAL_CONTENT, "{path}");
            assert_eq!(purge_tags(&headers), expected, "{path}, 206");
        }
    }
    for (path, status) in [
        ("/js/app.0badf00d.js", StatusCode::NOT_FOUND),
        ("/no/such/file.txt", StatusCode::NOT_FOUND),
    ] {
        let (got, headers, _) = get(addr, path, &[]).await;
        assert_eq!(got, status, "{path}");
        assert_eq!(purge_tags(&headers), None, "{path}");
    }
    // The single-page app's page is a page wherever it answers.
    let addr = spawn_service(
        SITE.service()
            .cache_tags("site")
            .spa_fallback("/index.html"),
    )
    .await;
    let (status, headers, _) = get(addr, "/settings/profile", &[("accept", "text/html")]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(purge_tags(&headers), tags("page", RELEASE_3));
    // Off by default.
    let addr = spawn_service(SITE.service()).await;
    for path in ["/", "/js/app.js", hashed_app] {
        assert_eq!(purge_tags(&get(addr, path, &[]).await.1), None, "{path}");
    }
}

/// What `make` panicked with; it must panic (`what` says what it was given).
fn panic_message<T>(what: &str, make: impl FnOnce() -> T + std::panic::UnwindSafe) -> String {
    let Err(payload) = std::panic::catch_unwind(make) else {
        panic!("{what:?}: no panic");
    };
    payload
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_default()
}

#[test]
fn a_cache_tag_prefix_must_be_a_token() {
    for bad in ["", "a b", "a,b", "tags:x", "é", &"x".repeat(65)] {
        let message = panic_message(bad, || SITE.service().cache_tags(bad));
        assert!(
            message.contains("cache_tags(") && message.contains("ASCII letters"),
            "{bad:?}: {message}"
        );
    }
    // And `header` rules cannot set the fields the option owns.
    for name in ["cache-tag", "surrogate-key"] {
        let made = std::panic::catch_unwind(|| {
            SITE.service().header(
                "*",
                http::HeaderName::from_static(name),
                http::HeaderValue::from_static("x"),
            )
        });
        assert!(made.is_err(), "{name}");
    }
    let _ = SITE.service().cache_tags("site-1_a.b");
}

/// `release_endpoint`: its path lists this build's release and the kept ones, newest
/// first, with when each was recorded (`null` for a list recorded without a time), as
/// JSON no cache stores; every answer about an asset says the release in `Release-Id`.
#[tokio::test]
async fn the_release_endpoint_lists_the_releases_and_every_answer_names_this_one() {
    let addr = spawn_service(SITE.service().release_endpoint("/_release")).await;
    let release_id = |headers: &http::HeaderMap| {
        header(headers, http::HeaderName::from_static("release-id")).map(str::to_owned)
    };
    let (status, headers, body) = get(addr, "/_release", &[("accept-encoding", "br")]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(header(&headers, CONTENT_TYPE), Some("application/json"));
    assert_eq!(header(&headers, CACHE_CONTROL), Some("no-store"));
    assert_eq!(release_id(&headers).as_deref(), Some(RELEASE_3));
    let json: serde_json::Value = serde_json::from_slice(&body).expect("JSON");
    assert_eq!(
        json,
        serde_json::json!({
            "release": RELEASE_3,
            "releases": [
                { "id": RELEASE_3, "recorded": 1_796_472_000u64 },
                { "id": RELEASE_2, "recorded": 1_796_385_600u64 },
                { "id": RELEASE_1, "recorded": null },
            ]
        })
    );
    // The table says the same.
    let listed: Vec<(&str, Option<u64>)> = SITE
        .releases()
        .iter()
        .map(|release| (release.id(), release.recorded_secs()))
        .collect();
    assert_eq!(
        listed,
        [
            (RELEASE_3, Some(1_796_472_000)),
            (RELEASE_2, Some(1_796_385_600)),
            (RELEASE_1, None)
        ]
    );
    // HEAD: the same fields, no body; another method: 405.
    let (status, head_fields, body) = send(addr, Method::HEAD, "/_release", &[]).await;
    assert_eq!((status, body.len()), (StatusCode::OK, 0));
    assert_eq!(
        header(&head_fields, http::header::CONTENT_LENGTH),
        header(&headers, http::header::CONTENT_LENGTH)
    );
    let (status, headers, _) = send(addr, Method::POST, "/_release", &[]).await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(header(&headers, http::header::ALLOW), Some("GET, HEAD"));
    // Every answer about an asset, this build's or a kept release's, 200, 206 or 304.
    let kept_app = earlier("/js/app.js", RELEASE_1)
        .fingerprinted_path()
        .unwrap();
    for path in ["/", "/js/app.js", "/css/app.css", kept_app] {
        let (status, headers, _) = get(addr, path, &[]).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        assert_eq!(release_id(&headers).as_deref(), Some(RELEASE_3), "{path}");
        let etag = header(&headers, ETAG).unwrap().to_owned();
        let (status, headers, _) = get(addr, path, &[("if-none-match", &etag)]).await;
        assert_eq!(status, StatusCode::NOT_MODIFIED, "{path}");
        assert_eq!(release_id(&headers).as_deref(), Some(RELEASE_3), "{path}");
        let (status, headers, _) = get(addr, path, &[("range", "bytes=0-1")]).await;
        assert_eq!(status, StatusCode::PARTIAL_CONTENT, "{path}");
        assert_eq!(release_id(&headers).as_deref(), Some(RELEASE_3), "{path}");
    }
    // Off by default: no field, and the path is an unknown one.
    let addr = spawn_service(SITE.service()).await;
    let (status, headers, _) = get(addr, "/", &[]).await;
    assert_eq!((status, release_id(&headers)), (StatusCode::OK, None));
    assert_eq!(get(addr, "/_release", &[]).await.0, StatusCode::NOT_FOUND);
}

/// Without recorded releases (no `releases` option), the endpoint says so and no
/// answer carries a release.
#[tokio::test]
async fn without_releases_the_endpoint_lists_none() {
    let addr = spawn_service(
        integration_tests::SITE
            .service()
            .release_endpoint("/_release"),
    )
    .await;
    let (status, _, body) = get(addr, "/_release", &[]).await;
    assert_eq!(status, StatusCode::OK);
    let json: serde_json::Value = serde_json::from_slice(&body).expect("JSON");
    assert_eq!(json, serde_json::json!({ "release": null, "releases": [] }));
    let (_, headers, _) = get(addr, "/index.html", &[]).await;
    assert_eq!(
        header(&headers, http::HeaderName::from_static("release-id")),
        None
    );
}

#[test]
fn a_release_endpoint_is_a_plain_path_no_asset_has() {
    let fingerprinted = SITE.url("/js/app.js").unwrap();
    for bad in [
        "_release",
        "",
        "/",
        "//x",
        "/a/../b",
        "/a b",
        "/a%20b",
        "/index.html",
        "/js",
        "/js/app.js",
        fingerprinted,
    ] {
        let message = panic_message(bad, || SITE.service().release_endpoint(bad));
        assert!(
            message.starts_with("release_endpoint("),
            "{bad:?}: {message}"
        );
    }
    for good in ["/_release", "/.well-known/release.json", "/api/v1/release"] {
        let _ = SITE.service().release_endpoint(good);
    }
    // `header` rules cannot set the field.
    let rule = std::panic::catch_unwind(|| {
        SITE.service().header(
            "*",
            http::HeaderName::from_static("release-id"),
            http::HeaderValue::from_static("x"),
        )
    });
    assert!(rule.is_err());
}
