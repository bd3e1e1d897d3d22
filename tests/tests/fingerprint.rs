//! Fingerprinted URLs (`fingerprint = true`): every embedded file but HTML pages is
//! also served at a content-hashed URL with an `immutable` year-long policy (RFC 8246),
//! the plain URL keeps revalidating, and `url()` / the `paths` constants name the
//! hashed URL for templates.

use http::StatusCode;
use http::header::{CACHE_CONTROL, CONTENT_ENCODING, ETAG, VARY};
use integration_tests::{decode_body, fixture, get, header, site_dir, spawn_service};

mod fingerprinted {
    embed_assets::embed_assets!(
        pub static SITE = "fixtures/site",
        fingerprint = true,
        max_embed_size = "1 MiB",
        on_disk = "allow",
    );
}

mod only_css {
    embed_assets::embed_assets!(pub static SITE = "fixtures/site", fingerprint = "css/*");
}

use fingerprinted::{SITE, paths};

const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// `/css/app.css` → `/css/app.<first 8 hex digits of its ETag>.css`.
fn expected_url(plain: &str) -> String {
    let asset = SITE.get(plain).expect("embedded");
    let hash = &asset.etag()[1..9];
    let (stem, ext) = plain.rsplit_once('.').expect("an extension");
    format!("{stem}.{hash}.{ext}")
}

#[test]
fn urls_and_constants_name_the_hashed_url_of_every_file_but_pages() {
    for plain in ["/css/app.css", "/js/app.js", "/favicon.ico", "/logo.svg"] {
        let url = SITE.url(plain).expect("listed");
        assert_eq!(url, expected_url(plain), "{plain}");
        assert_eq!(
            SITE.get(url).map(|a| a.path()),
            Some(plain),
            "{url} finds its file"
        );
    }
    assert_eq!(paths::CSS_APP_CSS, SITE.url("/css/app.css").unwrap());
    assert_eq!(paths::JS_APP_JS, SITE.url("/js/app.js").unwrap());
    // Pages keep the URL people type; a file on disk could change after the build.
    assert_eq!(SITE.url("/index.html"), Some("/index.html"));
    assert_eq!(paths::DOCS_GUIDE_HTML, "/docs/guide.html");
    assert_eq!(SITE.url("/big.bin"), Some("/big.bin"));
    assert_eq!(SITE.get("/big.bin").unwrap().fingerprinted_path(), None);
    assert_eq!(SITE.url("/nope.css"), None);
    // A glob selects which files.
    assert_ne!(only_css::SITE.url("/css/app.css"), Some("/css/app.css"));
    assert_eq!(only_css::SITE.url("/js/app.js"), Some("/js/app.js"));
    assert_eq!(only_css::paths::JS_APP_JS, "/js/app.js");
}

#[tokio::test]
async fn the_hashed_url_is_immutable_and_the_plain_one_revalidates() {
    let addr = spawn_service(SITE.service()).await;
    for plain in ["/css/app.css", "/js/app.js", "/favicon.ico"] {
        let hashed = SITE.url(plain).unwrap();
        for accept in ["", "br, gzip"] {
            let fields = [("accept-encoding", accept)];
            let (status, at_hash, body) = get(addr, hashed, &fields).await;
            assert_eq!(status, StatusCode::OK, "{hashed}");
            assert!(
                decode_body(&at_hash, &body) == fixture(plain),
                "{hashed}: bytes"
            );
            assert_eq!(header(&at_hash, CACHE_CONTROL), Some(IMMUTABLE), "{hashed}");
            let (_, at_plain, _) = get(addr, plain, &fields).await;
            assert_eq!(
                header(&at_plain, CACHE_CONTROL),
                Some("no-cache"),
                "{plain}"
            );
            // The same representation at both URLs: same ETag, coding and Vary.
            for name in [ETAG, CONTENT_ENCODING, VARY] {
                assert_eq!(
                    header(&at_hash, name.clone()),
                    header(&at_plain, name.clone()),
                    "{plain} / {hashed}: {name}"
                );
            }
            // Revalidation at the hashed URL keeps the immutable policy (RFC 9110 §15.4.5).
            let etag = header(&at_hash, ETAG).unwrap().to_owned();
            let fields = [("accept-encoding", accept), ("if-none-match", &etag)];
            let (status, not_modified, _) = get(addr, hashed, &fields).await;
            assert_eq!(status, StatusCode::NOT_MODIFIED, "{hashed}");
            assert_eq!(header(&not_modified, CACHE_CONTROL), Some(IMMUTABLE));
        }
    }
    // A hash that is not the file's is just an unknown path.
    let stale = SITE.url("/css/app.css").unwrap().replace(".css", "0.css");
    assert_eq!(get(addr, &stale, &[]).await.0, StatusCode::NOT_FOUND);
    // Other methods: 405, as at the plain URL.
    let hashed = SITE.url("/css/app.css").unwrap();
    let reply = integration_tests::send(addr, http::Method::POST, hashed, &[]).await;
    assert_eq!(reply.0, StatusCode::METHOD_NOT_ALLOWED);
}

#[tokio::test]
async fn in_dev_mode_the_hashed_url_revalidates() {
    let addr = spawn_service(SITE.service().dev_folder(site_dir())).await;
    let hashed = SITE.url("/css/app.css").unwrap();
    let (status, headers, body) = get(addr, hashed, &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert!(body == fixture("/css/app.css"));
    assert_eq!(header(&headers, CACHE_CONTROL), Some("no-cache"));
}

#[tokio::test]
async fn the_policy_at_hashed_urls_is_configurable() {
    let policy = http::HeaderValue::from_static("public, max-age=600");
    let addr = spawn_service(SITE.service().fingerprinted_cache_control(policy)).await;
    let (_, headers, _) = get(addr, SITE.url("/js/app.js").unwrap(), &[]).await;
    assert_eq!(header(&headers, CACHE_CONTROL), Some("public, max-age=600"));
}

/// The answer to a version of a hashed file that this build does not have: what a page
/// of another release asks for during a rolling deploy.
fn assert_final_miss(reply: &integration_tests::Reply, method: &http::Method, what: &str) {
    let (status, headers, body) = reply;
    assert_eq!(*status, StatusCode::NOT_FOUND, "{what}");
    // RFC 9111 §5.2.2.5: no cache keeps it, so the deploy that brings the file is seen.
    assert_eq!(header(headers, CACHE_CONTROL), Some("no-store"), "{what}");
    assert_eq!(
        header(headers, http::header::CONTENT_TYPE),
        Some("text/plain; charset=utf-8"),
        "{what}: never a page, which a script tag would run as a script"
    );
    assert_eq!(header(headers, VARY), None, "{what}: it depends on nothing");
    let expected: &[u8] = if method == http::Method::HEAD {
        b""
    } else {
        b"404 Not Found\n"
    };
    assert_eq!(&body[..], expected, "{what}");
}

#[tokio::test]
async fn another_version_of_a_hashed_file_is_a_404_that_no_cache_keeps() {
    let service = SITE
        .service()
        .spa_fallback("/index.html")
        .not_found_page("/docs/guide.html");
    let addr = spawn_service(service).await;
    let current = SITE.url("/js/app.js").unwrap();
    let other = "/js/app.0badf00d.js";
    assert_ne!(current, other);
    for (path, what) in [
        (other, "another hex hash"),
        ("/js/app.BxK3abc1.js", "a base64url hash"),
        ("/js/app.0badf%30%30d.js", "escaped"),
        ("/css/app.0badf00d.css", "another file's"),
    ] {
        for accept in ["text/html", "*/*", "application/javascript"] {
            for method in [http::Method::GET, http::Method::HEAD] {
                let reply =
                    integration_tests::send(addr, method.clone(), path, &[("accept", accept)])
                        .await;
                assert_final_miss(
                    &reply,
                    &method,
                    &format!("{what}: {method} {path} {accept}"),
                );
            }
        }
    }
    // Every other miss is as before: the configured page, revalidated, varying by
    // `Accept` since the single-page app's page answers some.
    for miss in [
        "/js/nope.js",
        "/js/app.js.0badf00d",
        "/js/app.0bad.js",
        "/js/app.0badf00d.mjs",
        "/js/other.0badf00d.js",
        "/app.0badf00d.js",
    ] {
        let (status, headers, body) = get(addr, miss, &[("accept", "*/*")]).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{miss}");
        assert_eq!(header(&headers, CACHE_CONTROL), Some("no-cache"), "{miss}");
        assert!(body == fixture("/docs/guide.html"), "{miss}: the 404 page");
    }
    // The file this build has is served at its hashed URL as ever.
    let (status, headers, _) = get(addr, current, &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(header(&headers, CACHE_CONTROL), Some(IMMUTABLE));
}

#[tokio::test]
async fn another_version_of_a_hashed_file_never_reaches_the_application_behind() {
    let app = axum::Router::new().fallback(|| async { "the application's page" });
    let service = SITE.service().with_fallback(app);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, service.into_make_service()).await });
    let reply = get(addr, "/js/app.0badf00d.js", &[]).await;
    assert_final_miss(&reply, &http::Method::GET, "behind with_fallback");
    // Any other miss is the application's, as with_fallback promises.
    let (status, _, body) = get(addr, "/js/nope.js", &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(&body[..], b"the application's page");
}
