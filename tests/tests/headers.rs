//! `ServeAssets::header`: per-path response fields by glob, folded into the prebuilt
//! header maps, on every way an asset is answered; `X-Content-Type-Options: nosniff`
//! by default.

use std::panic::{AssertUnwindSafe, catch_unwind};

use embed_assets::{Assets, ServeAssets, embed_assets};
use http::header::{
    CACHE_CONTROL, CONTENT_TYPE, HeaderName, X_CONTENT_TYPE_OPTIONS, X_FRAME_OPTIONS,
};
use http::{HeaderValue, StatusCode};
use integration_tests::frameworks::Framework;
use integration_tests::{SITE, get, head, header, site_dir, site_service, spawn_service};

static FINGERPRINTED: Assets = embed_assets!("fixtures/site", fingerprint = true);
static ON_DISK: Assets =
    embed_assets!("fixtures/site", max_embed_size = "1 KiB", on_disk = "allow");

const X_KIND: HeaderName = HeaderName::from_static("x-kind");

/// A frame policy for everything, a narrower one below `/docs/`, and a field by file
/// name for stylesheets.
fn with_rules(service: ServeAssets) -> ServeAssets {
    service
        .header("/**", X_FRAME_OPTIONS, HeaderValue::from_static("DENY"))
        .header("*.css", X_KIND, HeaderValue::from_static("style"))
        .header(
            "/docs/**",
            X_FRAME_OPTIONS,
            HeaderValue::from_static("SAMEORIGIN"),
        )
}

const NAVIGATE: (&str, &str) = ("accept", "text/html,application/xhtml+xml");

/// A path, the request's fields, and the status it must get.
type Case<'a> = (&'a str, Vec<(&'a str, &'a str)>, StatusCode);

#[tokio::test]
async fn nosniff_is_on_every_asset_response_unless_turned_off() {
    let service = site_service()
        .spa_fallback("/index.html")
        .not_found_page("/docs/index.html");
    let addr = spawn_service(service.clone()).await;
    let (status, headers, _) = get(addr, "/css/app.css", &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(header(&headers, X_CONTENT_TYPE_OPTIONS), Some("nosniff"));
    let etag = header(&headers, http::header::ETAG).unwrap().to_owned();
    let cases: [Case<'_>; 5] = [
        (
            "/css/app.css",
            vec![("if-none-match", &etag)],
            StatusCode::NOT_MODIFIED,
        ),
        (
            "/css/app.css",
            vec![("range", "bytes=0-9")],
            StatusCode::PARTIAL_CONTENT,
        ),
        (
            "/css/app.css",
            vec![("range", "bytes=999999-")],
            StatusCode::RANGE_NOT_SATISFIABLE,
        ),
        ("/some/page", vec![NAVIGATE], StatusCode::OK),
        ("/no/such.css", vec![], StatusCode::NOT_FOUND),
    ];
    for (path, request, status) in &cases {
        let (got, headers, _) = get(addr, path, request).await;
        assert_eq!(got, *status, "{path} {request:?}");
        assert_eq!(
            header(&headers, X_CONTENT_TYPE_OPTIONS),
            Some("nosniff"),
            "{path} {request:?}"
        );
    }
    let (_, headers, _) = head(addr, "/favicon.ico", &[]).await;
    assert_eq!(header(&headers, X_CONTENT_TYPE_OPTIONS), Some("nosniff"));

    let addr = spawn_service(service.without_nosniff()).await;
    // Rocket's Shield fairing, on by default, adds its own nosniff to every response
    // (see the Rocket adapter's docs): there, turning ours off changes nothing seen.
    let shielded = Framework::current() == Framework::Rocket;
    for (path, request, status) in &cases[1..] {
        let (got, headers, _) = get(addr, path, request).await;
        assert_eq!(got, *status, "{path} {request:?}");
        if shielded {
            assert_eq!(headers.get_all(X_CONTENT_TYPE_OPTIONS).iter().count(), 1);
        } else {
            assert!(
                headers.get(X_CONTENT_TYPE_OPTIONS).is_none(),
                "{path} {request:?}: turned off"
            );
        }
    }
}

#[tokio::test]
async fn rules_match_by_path_or_file_name_and_the_last_matching_rule_wins() {
    let addr = spawn_service(with_rules(site_service())).await;
    let (status, headers, _) = get(addr, "/css/app.css", &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(header(&headers, X_FRAME_OPTIONS), Some("DENY"));
    assert_eq!(header(&headers, X_KIND), Some("style"));
    assert_eq!(headers.get_all(X_KIND).iter().count(), 1);
    // The representation's own fields are untouched.
    assert_eq!(
        header(&headers, CONTENT_TYPE),
        Some("text/css; charset=utf-8")
    );
    assert_eq!(header(&headers, CACHE_CONTROL), Some("no-cache"));

    let (_, headers, _) = get(addr, "/index.html", &[]).await;
    assert_eq!(header(&headers, X_FRAME_OPTIONS), Some("DENY"));
    assert!(headers.get(X_KIND).is_none(), "no stylesheet");
    // `/docs/**` came after `/**`: its value, once.
    for path in ["/docs/", "/docs/guide.html"] {
        let (status, headers, _) = get(addr, path, &[]).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        let values: Vec<_> = headers.get_all(X_FRAME_OPTIONS).iter().collect();
        assert_eq!(values, ["SAMEORIGIN"], "{path}");
    }
    // `*` stays within a segment: `/*.html` is no rule for `/docs/guide.html`.
    let addr = spawn_service(site_service().header(
        "/*.html",
        X_KIND,
        HeaderValue::from_static("top-page"),
    ))
    .await;
    assert_eq!(
        header(&get(addr, "/index.html", &[]).await.1, X_KIND),
        Some("top-page")
    );
    assert!(
        get(addr, "/docs/guide.html", &[])
            .await
            .1
            .get(X_KIND)
            .is_none()
    );
}

#[tokio::test]
async fn a_304_and_partial_responses_repeat_the_fields() {
    let addr = spawn_service(with_rules(site_service())).await;
    let (_, headers, _) = get(addr, "/css/app.css", &[("accept-encoding", "br")]).await;
    let etag = header(&headers, http::header::ETAG).unwrap().to_owned();
    for request in [
        vec![("accept-encoding", "br"), ("if-none-match", etag.as_str())],
        vec![("range", "bytes=0-9")],
        vec![("range", "bytes=0-1,4-5")],
    ] {
        let (status, headers, _) = get(addr, "/css/app.css", &request).await;
        assert!(
            status == StatusCode::NOT_MODIFIED || status == StatusCode::PARTIAL_CONTENT,
            "{request:?}: {status}"
        );
        assert_eq!(header(&headers, X_KIND), Some("style"), "{request:?}");
        assert_eq!(
            header(&headers, X_FRAME_OPTIONS),
            Some("DENY"),
            "{request:?}"
        );
    }
}

#[tokio::test]
async fn the_fallback_page_and_the_404_page_carry_their_own_pages_fields() {
    let service = with_rules(site_service())
        .spa_fallback("/index.html")
        .not_found_page("/docs/index.html");
    let addr = spawn_service(service).await;
    let (status, headers, _) = get(addr, "/settings/profile", &[NAVIGATE]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(header(&headers, X_FRAME_OPTIONS), Some("DENY"));
    assert_eq!(header(&headers, CACHE_CONTROL), Some("no-cache"));
    // Not the rules of the path asked for: `/no/such.css` matches `*.css`.
    let (status, headers, _) = get(addr, "/no/such.css", &[]).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(header(&headers, X_FRAME_OPTIONS), Some("SAMEORIGIN"));
    assert!(headers.get(X_KIND).is_none());
}

#[tokio::test]
async fn fingerprinted_urls_files_on_disk_and_dev_mode_get_the_same_fields() {
    let css = FINGERPRINTED.get("/css/app.css").unwrap();
    let hashed = css.fingerprinted_path().unwrap();
    let addr = spawn_service(with_rules(FINGERPRINTED.service())).await;
    let (status, headers, _) = get(addr, hashed, &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        header(&headers, CACHE_CONTROL)
            .unwrap()
            .contains("immutable")
    );
    assert_eq!(header(&headers, X_KIND), Some("style"), "{hashed}");

    let big = ON_DISK.get("/big.bin").unwrap();
    assert!(!big.is_embedded(), "/big.bin is read from disk");
    let addr = spawn_service(ON_DISK.service().header(
        "*.bin",
        X_KIND,
        HeaderValue::from_static("blob"),
    ))
    .await;
    for request in [vec![], vec![("range", "bytes=0-9")]] {
        let (status, headers, _) = get(addr, "/big.bin", &request).await;
        assert!(status.is_success(), "{request:?}: {status}");
        assert_eq!(header(&headers, X_KIND), Some("blob"), "{request:?}");
        assert_eq!(header(&headers, X_CONTENT_TYPE_OPTIONS), Some("nosniff"));
    }

    let addr = spawn_service(with_rules(SITE.service()).dev_folder(site_dir())).await;
    let (status, headers, _) = get(addr, "/css/app.css", &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(header(&headers, X_KIND), Some("style"), "dev mode");
    assert_eq!(header(&headers, X_CONTENT_TYPE_OPTIONS), Some("nosniff"));
}

#[test]
fn fields_the_service_sets_itself_and_bad_globs_are_refused_at_start_up() {
    let refused = |pattern: &str, name: HeaderName| {
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            SITE.service()
                .header(pattern, name, HeaderValue::from_static("x"))
        }));
        let payload = outcome.expect_err("the rule must be refused");
        payload
            .downcast_ref::<String>()
            .cloned()
            .unwrap_or_default()
    };
    for name in [
        CONTENT_TYPE,
        http::header::CONTENT_LENGTH,
        http::header::CONTENT_ENCODING,
        http::header::ETAG,
        http::header::LAST_MODIFIED,
        http::header::VARY,
        http::header::CONTENT_RANGE,
        http::header::ACCEPT_RANGES,
        http::header::LOCATION,
        http::header::ALLOW,
        // RFC 9842's field: set from the kept releases, so a rule's would be overwritten.
        HeaderName::from_static("use-as-dictionary"),
    ] {
        let message = refused("/**", name.clone());
        assert!(
            message.contains(name.as_str()) && message.contains("representation"),
            "{name}: {message}"
        );
    }
    let message = refused("/**", CACHE_CONTROL);
    assert!(message.contains("cache_control_for"), "{message}");
    let message = refused("/**", http::header::TRANSFER_ENCODING);
    assert!(message.contains("connection"), "{message}");
    let message = refused("/a/[b", X_KIND);
    assert!(
        message.contains("/a/[b") && message.contains("glob"),
        "{message}"
    );
}
