//! `rewrite_references = true`: links in embedded HTML and CSS name the fingerprinted
//! URLs, the ETags and hashes are those of the rewritten bytes, and every link a
//! served page makes resolves to a 200.

use embed_assets::Encoding;
use http::StatusCode;
use http::header::{CACHE_CONTROL, ETAG};
use integration_tests::{decode_body, get, header, spawn_service};

mod linked {
    embed_assets::embed_assets!(
        pub static SITE = "fixtures/linked",
        fingerprint = true,
        rewrite_references = true,
    );
}

mod plain {
    embed_assets::embed_assets!(pub static SITE = "fixtures/linked", fingerprint = true);
}

use linked::{SITE, paths};

fn text(path: &str) -> String {
    let body = SITE.get(path).unwrap().body(Encoding::Identity).unwrap();
    String::from_utf8(body.to_vec()).unwrap()
}

/// The last segment of a URL: what a rewritten link ends with.
fn name(url: &str) -> &str {
    url.rsplit('/').next().unwrap()
}

#[test]
fn links_name_hashed_urls_in_their_own_form() {
    let index = text("/index.html");
    assert!(
        index.contains(&format!(r#"href="css/{}""#, name(paths::CSS_APP_CSS))),
        "{index}"
    );
    assert!(
        index.contains(&format!(r#"href="/img/{}""#, name(paths::IMG_DOT_SVG))),
        "{index}"
    );
    assert!(
        index.contains(&format!(r#"src="js/{}?v=1""#, name(paths::JS_APP_JS))),
        "{index}"
    );
    assert!(
        index.contains(&format!("url('img/{}')", name(paths::IMG_DOT_SVG))),
        "{index}"
    );
    // Pages are not fingerprinted; links to them and off-site stay as written.
    assert!(index.contains(r#"href="docs/page.html""#));
    assert!(index.contains(r#"href="https://example.com/js/app.js""#));
    let page = text("/docs/page.html");
    assert!(
        page.contains(&format!(r#"href="../css/{}""#, name(paths::CSS_APP_CSS))),
        "{page}"
    );
    let css = text("/css/app.css");
    assert!(
        css.contains(&format!(r#"@import "{}";"#, name(paths::CSS_THEME_CSS))),
        "{css}"
    );
    assert!(
        css.contains(&format!("url(../img/{})", name(paths::IMG_DOT_SVG))),
        "{css}"
    );
    assert!(
        css.contains("url(../img/missing.png)"),
        "an unknown file is left alone"
    );
    let theme = text("/css/theme.css");
    assert!(theme.contains(&format!(r#"url("../img/{}")"#, name(paths::IMG_DOT_SVG))));
}

#[test]
fn hashes_and_etags_are_of_the_rewritten_bytes() {
    for path in ["/css/app.css", "/css/theme.css", "/index.html"] {
        let (rewritten, original) = (SITE.get(path).unwrap(), plain::SITE.get(path).unwrap());
        assert_ne!(rewritten.etag(), original.etag(), "{path}");
        assert_eq!(rewritten.len(), text(path).len() as u64, "{path}");
    }
    // app.css imports theme.css: its hash was computed after theme.css was rewritten.
    let app = SITE.get("/css/app.css").unwrap();
    assert_eq!(
        name(paths::CSS_APP_CSS),
        format!("app.{}.css", &app.etag()[1..9])
    );
    // Files without links are untouched.
    let js = SITE.get("/js/app.js").unwrap();
    assert_eq!(js.etag(), plain::SITE.get("/js/app.js").unwrap().etag());
    // Every stored coding decodes to the rewritten text.
    for encoding in [Encoding::Gzip, Encoding::Brotli] {
        if let Some(variant) = app.variant(encoding) {
            let mut headers = http::HeaderMap::new();
            headers.insert("content-encoding", encoding.as_str().parse().unwrap());
            let decoded = decode_body(&headers, variant.body());
            assert_eq!(decoded, text("/css/app.css").as_bytes(), "{encoding}");
        }
    }
}

/// `css/app.3f2a1b9c.css?v=1`: a last segment with 8 hex digits before its extension.
fn is_hashed_link(text: &str) -> bool {
    let path = text.split('?').next().unwrap_or(text);
    let parts: Vec<&str> = name(path).split('.').collect();
    !path.contains(' ')
        && parts.len() >= 3
        && parts[parts.len() - 2].len() == 8
        && parts[parts.len() - 2]
            .bytes()
            .all(|b| b.is_ascii_hexdigit())
}

#[tokio::test]
async fn every_link_of_every_served_document_resolves() {
    let addr = spawn_service(SITE.service()).await;
    let mut checked = 0;
    for (page, base) in [
        ("/index.html", "/"),
        ("/docs/page.html", "/docs/"),
        ("/css/app.css", "/css/"),
    ] {
        let (status, headers, body) = get(addr, page, &[("accept-encoding", "br")]).await;
        assert_eq!(status, StatusCode::OK);
        let body = String::from_utf8(decode_body(&headers, &body)).unwrap();
        let links = body
            .split(['"', '\'', '(', ')'])
            .filter(|s| is_hashed_link(s));
        for link in links {
            let link = link.split('?').next().unwrap();
            let url = match link.strip_prefix("../") {
                Some(up) => format!("/{up}"),
                None if link.starts_with('/') => link.to_owned(),
                None => format!("{base}{link}"),
            };
            let (status, headers, _) = get(addr, &url, &[]).await;
            assert_eq!(status, StatusCode::OK, "{page} links to {url}");
            assert_eq!(
                header(&headers, CACHE_CONTROL),
                Some("public, max-age=31536000, immutable"),
                "{url}"
            );
            assert!(header(&headers, ETAG).is_some());
            checked += 1;
        }
    }
    assert!(checked >= 6, "only {checked} hashed links found");
}
