//! Content-Security-Policy from build-time hashes (Content Security Policy Level 3
//! §8.4): `Asset::script_hashes`/`style_hashes` are `'sha256-…'` of each inline
//! element's text as the browser parses it, and `content_security_policy(template)`
//! sends each HTML page a policy with its own hashes, on every way the page is
//! answered, prebuilt.
//!
//! The expected values are computed here from the texts written in the fixture, with
//! `sha2` and `base64`, not by the macro's code.

use base64::Engine as _;
use embed_assets::{Assets, embed_assets};
use http::header::{CONTENT_SECURITY_POLICY, ETAG};
use http::{HeaderName, HeaderValue, StatusCode};
use integration_tests::{get, spawn_service};
use sha2::{Digest, Sha256};

static CSP: Assets = embed_assets!("fixtures/csp");

/// A rule's field on every file (not one a framework sets of its own).
const X_RULE: HeaderName = HeaderName::from_static("x-rule");

const TEMPLATE: &str = "default-src 'self'; script-src 'self' {scripts}; style-src 'self' {styles}";

/// The hash source of `text` (CSP3 §8.4, with SHA-256).
fn source(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

/// The template filled in by hand: a directive with no hash ends at its last source.
fn policy(scripts: &[&str], styles: &[&str]) -> String {
    let list = |texts: &[&str]| {
        texts
            .iter()
            .map(|text| format!(" {}", source(text)))
            .collect::<String>()
    };
    format!(
        "default-src 'self'; script-src 'self'{}; style-src 'self'{}",
        list(scripts),
        list(styles)
    )
}

fn field(headers: &http::HeaderMap, name: HeaderName) -> Option<&str> {
    headers.get(name).map(|v| v.to_str().expect("ASCII"))
}

#[test]
fn inline_scripts_and_styles_have_the_hashes_of_their_text() {
    let page = CSP.get("/index.html").expect("embedded");
    // Twice the same script: one source. The data block and `src` script: none.
    let scripts = [
        source("window.inlineRan = true;"),
        source("import \"./site.js\";"),
    ];
    assert_eq!(page.script_hashes(), scripts.as_slice());
    assert_eq!(page.style_hashes(), [source("p { color: rgb(1, 2, 3); }")]);
    assert!(page.unhashable_inline().is_empty());
    // The spec's own example: `<script>alert('Hello, world.');</script>`.
    assert_eq!(
        source("alert('Hello, world.');"),
        "'sha256-qznLcsROx4GACP2dm0UCKCzCG+HiZ1guq6ZZDob/Tng='"
    );
    // CR LF is LF once parsed.
    let crlf = CSP.get("/crlf.html").expect("embedded");
    assert_eq!(crlf.script_hashes(), [source("\n  window.crlf = 1;\n")]);
    // Not pages.
    for file in ["/site.css", "/site.js"] {
        let asset = CSP.get(file).expect("embedded");
        assert!(asset.script_hashes().is_empty() && asset.style_hashes().is_empty());
    }
}

#[test]
fn handlers_javascript_urls_and_style_attributes_are_listed() {
    let page = CSP.get("/handlers.html").expect("embedded");
    assert_eq!(
        page.unhashable_inline(),
        [
            "line 5: `onclick` on <button>",
            "line 6: a `javascript:` URL in `href` of <a>",
            "line 7: a `style` attribute on <p>",
        ]
    );
    assert!(page.script_hashes().is_empty());
}

#[tokio::test]
async fn each_page_gets_its_own_policy_wherever_it_is_answered() {
    let service = CSP
        .service()
        .header("/**", X_RULE, HeaderValue::from_static("all"))
        .header(
            "*.js",
            CONTENT_SECURITY_POLICY,
            HeaderValue::from_static("sandbox"),
        )
        .header(
            "*.html",
            CONTENT_SECURITY_POLICY,
            HeaderValue::from_static("default-src *"),
        )
        .content_security_policy(TEMPLATE)
        .spa_fallback("/app.html")
        .not_found_page("/404.html");
    let addr = spawn_service(service).await;
    let index = policy(
        &["window.inlineRan = true;", "import \"./site.js\";"],
        &["p { color: rgb(1, 2, 3); }"],
    );

    for path in ["/", "/index.html"] {
        let (status, headers, _) = get(addr, path, &[("accept-encoding", "br")]).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        assert_eq!(
            field(&headers, CONTENT_SECURITY_POLICY),
            Some(&*index),
            "{path}"
        );
        assert_eq!(field(&headers, X_RULE), Some("all"), "{path}");
        // RFC 9110 §15.4.5: a 304 carries the fields a 200 would, so a cache's copy
        // keeps its policy.
        let etag = field(&headers, ETAG).expect("ETag").to_owned();
        let (status, headers, _) = get(
            addr,
            path,
            &[("accept-encoding", "br"), ("if-none-match", &etag)],
        )
        .await;
        assert_eq!(status, StatusCode::NOT_MODIFIED, "{path}");
        assert_eq!(
            field(&headers, CONTENT_SECURITY_POLICY),
            Some(&*index),
            "{path}"
        );
    }
    // A range of the page too.
    let (status, headers, _) = get(addr, "/index.html", &[("range", "bytes=0-9")]).await;
    assert_eq!(status, StatusCode::PARTIAL_CONTENT);
    assert_eq!(field(&headers, CONTENT_SECURITY_POLICY), Some(&*index));

    // The single-page app's page, at its own path and at a client-side route.
    let app = policy(&["window.app = \"spa\";"], &[]);
    for path in ["/app.html", "/settings/profile"] {
        let (status, headers, body) = get(addr, path, &[("accept", "text/html")]).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        assert!(body.starts_with(b"<!doctype html>"), "{path}");
        assert_eq!(
            field(&headers, CONTENT_SECURITY_POLICY),
            Some(&*app),
            "{path}"
        );
    }
    // The 404 page, with its own.
    let (status, headers, _) = get(addr, "/missing.png", &[]).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(
        field(&headers, CONTENT_SECURITY_POLICY),
        Some(&*policy(&[], &["h1 { color: red; }"]))
    );
    // A page with no inline code: no hash, so no inline script runs.
    let (_, headers, _) = get(addr, "/handlers.html", &[]).await;
    assert_eq!(
        field(&headers, CONTENT_SECURITY_POLICY),
        Some("default-src 'self'; script-src 'self'; style-src 'self'")
    );
    // Not pages: the template is not theirs; a rule's field stays.
    let (_, headers, _) = get(addr, "/site.js", &[]).await;
    assert_eq!(field(&headers, CONTENT_SECURITY_POLICY), Some("sandbox"));
    let (_, headers, _) = get(addr, "/site.css", &[]).await;
    assert_eq!(field(&headers, CONTENT_SECURITY_POLICY), None);
    assert_eq!(field(&headers, X_RULE), Some("all"));
}

#[tokio::test]
async fn without_the_option_no_policy_is_sent() {
    let addr = spawn_service(CSP.service()).await;
    let (_, headers, _) = get(addr, "/", &[]).await;
    assert_eq!(field(&headers, CONTENT_SECURITY_POLICY), None);
}

#[test]
fn a_template_with_an_unknown_placeholder_or_a_bad_character_is_refused() {
    for (template, says) in [
        ("script-src {script}", "unknown placeholder `{script}`"),
        ("script-src {scripts} }", "unknown placeholder `}`"),
        ("script-src 'self'\n", "not a field value"),
    ] {
        let panic = std::panic::catch_unwind(|| CSP.service().content_security_policy(template))
            .expect_err(template);
        let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
        assert!(message.contains(says), "{template:?}: {message}");
    }
}
