//! Routing options users ask for: single-page-app fallback (separate from the 404
//! page), clean URLs, and mounting under a prefix with `nest_service`.

use http::header::{CACHE_CONTROL, CONTENT_TYPE, LOCATION, VARY};
use http::{Method, StatusCode};
use integration_tests::{SITE, fixture, get, header, send, spawn_mounted, spawn_service};

const NAVIGATE: (&str, &str) = (
    "accept",
    "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
);

#[tokio::test]
async fn unknown_page_paths_get_the_app_with_200_and_no_cache() {
    let addr = spawn_service(SITE.service().spa_fallback("/index.html")).await;
    for path in ["/settings", "/users/42/profile", "/deep/link/"] {
        let (status, headers, body) = get(addr, path, &[NAVIGATE]).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        assert_eq!(&body[..], &fixture("/index.html")[..], "{path}");
        assert_eq!(header(&headers, CACHE_CONTROL), Some("no-cache"), "{path}");
        assert_eq!(
            header(&headers, CONTENT_TYPE),
            Some("text/html; charset=utf-8")
        );
        let vary = header(&headers, VARY).unwrap_or_default();
        assert!(
            vary.split(',').any(|v| v.trim() == "accept"),
            "Vary: {vary}"
        );
    }
}

#[tokio::test]
async fn unknown_asset_paths_still_get_404_with_an_spa() {
    let addr = spawn_service(SITE.service().spa_fallback("/index.html")).await;
    // An extension, or a client that does not ask for HTML: a missing asset, not a page.
    for (path, accept) in [
        ("/missing.js", NAVIGATE.1),
        ("/img/missing.png", "image/avif,image/webp,*/*;q=0.8"),
        ("/api/missing", "application/json"),
        ("/settings", "*/*"),
        ("/settings", "text/html;q=0"),
    ] {
        let (status, headers, _) = get(addr, path, &[("accept", accept)]).await;
        assert_eq!(
            status,
            StatusCode::NOT_FOUND,
            "{path} with Accept: {accept}"
        );
        assert!(
            header(&headers, VARY).is_some_and(|v| v.contains("accept")),
            "{path}"
        );
    }
    let (status, _, _) = send(addr, Method::POST, "/settings", &[NAVIGATE]).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "only GET and HEAD fall back");
    // Real assets are unaffected.
    let (status, _, body) = get(addr, "/tiny.txt", &[NAVIGATE]).await;
    assert_eq!((status, &body[..]), (StatusCode::OK, &b"hi\n"[..]));
}

#[tokio::test]
async fn excluded_prefixes_get_404_not_the_app() {
    let service = SITE
        .service()
        .spa_fallback("/index.html")
        .spa_exclude("/api/")
        .spa_exclude("/auth/callback");
    let addr = spawn_service(service).await;
    // A typo of an API route, a browser navigating to it: the 404, not the app.
    for path in [
        "/api",
        "/api/",
        "/api/userz",
        "/api/v1/items/7",
        "/auth/callback",
    ] {
        let (status, _, body) = get(addr, path, &[NAVIGATE]).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
        assert_ne!(&body[..], &fixture("/index.html")[..], "{path}");
    }
    // Whole segments only: other page paths still get the app.
    for path in ["/apiary", "/settings", "/auth", "/v2/api"] {
        let (status, _, body) = get(addr, path, &[NAVIGATE]).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        assert_eq!(&body[..], &fixture("/index.html")[..], "{path}");
    }
}

#[tokio::test]
async fn spa_fallback_and_not_found_page_are_separate() {
    let service = SITE
        .service()
        .spa_fallback("/index.html")
        .not_found_page("/docs/guide.html");
    let addr = spawn_service(service).await;
    let (status, _, body) = get(addr, "/app/route", &[NAVIGATE]).await;
    assert_eq!(
        (status, &body[..]),
        (StatusCode::OK, &fixture("/index.html")[..])
    );
    let (status, _, body) = get(addr, "/missing.css", &[NAVIGATE]).await;
    assert_eq!(
        (status, &body[..]),
        (StatusCode::NOT_FOUND, &fixture("/docs/guide.html")[..])
    );
}

#[tokio::test]
async fn without_spa_fallback_pages_are_404_without_vary_accept() {
    let addr = spawn_service(SITE.service()).await;
    let (status, headers, _) = get(addr, "/settings", &[NAVIGATE]).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(headers.get(VARY).is_none());
}

#[tokio::test]
async fn clean_urls_serve_html_files_without_the_extension() {
    let addr = spawn_service(SITE.service().clean_urls()).await;
    let (status, _, body) = get(addr, "/docs/guide", &[]).await;
    assert_eq!(
        (status, &body[..]),
        (StatusCode::OK, &fixture("/docs/guide.html")[..])
    );
    let (status, _, _) = get(addr, "/docs/guide.html", &[]).await;
    assert_eq!(status, StatusCode::OK, "the .html URL keeps working");
    // Directories keep their redirect; `/index` is not a clean URL of a directory.
    let (status, headers, _) = get(addr, "/docs", &[]).await;
    assert_eq!(status, StatusCode::MOVED_PERMANENTLY);
    assert_eq!(header(&headers, LOCATION), Some("./docs/"));
    let off = spawn_service(SITE.service()).await;
    let (status, _, _) = get(off, "/docs/guide", &[]).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "off by default");
}

#[tokio::test]
async fn a_nested_mount_point_redirects_to_its_slash_and_serves_its_index() {
    let addr = spawn_mounted(SITE.service(), "/static").await;
    let (status, headers, _) = get(addr, "/static", &[]).await;
    assert_eq!(status, StatusCode::MOVED_PERMANENTLY);
    assert_eq!(
        header(&headers, LOCATION),
        Some("./static/"),
        "resolves to /static/"
    );
    let (status, _, body) = get(addr, "/static/", &[]).await;
    assert_eq!(
        (status, &body[..]),
        (StatusCode::OK, &fixture("/index.html")[..])
    );
    let (status, headers, _) = get(addr, "/static/docs?x=1", &[]).await;
    assert_eq!(status, StatusCode::MOVED_PERMANENTLY);
    assert_eq!(header(&headers, LOCATION), Some("./docs/?x=1"));
    let (status, _, body) = get(addr, "/static/css/app.css", &[]).await;
    assert_eq!(
        (status, &body[..]),
        (StatusCode::OK, &fixture("/css/app.css")[..])
    );
}
