//! Fingerprinted URLs (`fingerprint = true`): every embedded file but HTML pages is
//! also served at a content-hashed URL with an `immutable` year-long policy (RFC 8246),
//! the plain URL keeps revalidating, and `url()` / the `paths` constants name the
//! hashed URL for templates.

use http::header::{CACHE_CONTROL, CONTENT_ENCODING, ETAG, VARY};
use http::StatusCode;
use integration_tests::{decode_body, fixture, get, header, site_dir, spawn_service};

mod fingerprinted {
    embed_assets::embed_assets!(
        pub static SITE = "fixtures/site",
        fingerprint = true,
        max_embed_size = "1 MiB",
    );
}

mod only_css {
    embed_assets::embed_assets!(pub static SITE = "fixtures/site", fingerprint = "css/*");
}

use fingerprinted::{paths, SITE};

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
