//! Preload links (RFC 8288 `Link`, the HTML standard's `preload`/`modulepreload`):
//! `Asset::preload_links` names what each page's `<head>` loads before it can render,
//! as the page names it, and `preload_links()` sends it on the page's responses,
//! prebuilt.

use embed_assets::{Asset, Assets, embed_assets};
use http::StatusCode;
use http::header::{ETAG, LINK};
use integration_tests::{get, spawn_service};

/// Links pointed at the fingerprinted URLs.
static HASHED: Assets = embed_assets!(
    "fixtures/preload",
    fingerprint = true,
    rewrite_references = true
);

/// The same pages served as written.
static PLAIN: Assets = embed_assets!("fixtures/preload");

/// The hashed URL path of `path` in `HASHED`, without its leading `/`.
fn hashed(path: &str) -> String {
    let asset: &Asset = HASHED.get(path).expect("embedded");
    let url = asset.fingerprinted_path().expect("fingerprinted");
    url.trim_start_matches('/').to_owned()
}

#[test]
fn the_head_s_style_sheets_scripts_and_their_fonts_are_announced_as_the_page_names_them() {
    let page = HASHED.get("/index.html").expect("embedded");
    let expected = [
        format!("<{}>; rel=preload; as=style", hashed("/css/app.css")),
        // The element's `crossorigin` is repeated, so the preload matches its fetch.
        format!(
            "</{}>; rel=preload; as=style; crossorigin=use-credentials",
            hashed("/css/print.css")
        ),
        format!("<{}>; rel=modulepreload", hashed("/js/dep.js")),
        format!("<{}>; rel=modulepreload", hashed("/js/main.js")),
        format!("<{}?v=2>; rel=preload; as=script", hashed("/js/classic.js")),
        // Fonts of those style sheets, once each; `not-a-font.png` is no font.
        format!(
            "</{}>; rel=preload; as=font; crossorigin",
            hashed("/fonts/body.woff2")
        ),
        format!(
            "</{}>; rel=preload; as=font; crossorigin",
            hashed("/fonts/body.woff")
        ),
    ];
    // Not announced: the icon, the alternate style sheet, a data block, a script of
    // another site, a file the folder lacks, a script of the body.
    assert_eq!(page.preload_links(), expected.as_slice());

    let plain = PLAIN.get("/index.html").expect("embedded");
    assert_eq!(
        plain.preload_links(),
        [
            "<css/app.css>; rel=preload; as=style",
            "</css/print.css>; rel=preload; as=style; crossorigin=use-credentials",
            "<js/dep.js>; rel=modulepreload",
            "<js/main.js>; rel=modulepreload",
            "<js/classic.js?v=2>; rel=preload; as=script",
            "</fonts/body.woff2>; rel=preload; as=font; crossorigin",
            "</fonts/body.woff>; rel=preload; as=font; crossorigin",
        ]
    );
    for file in ["/css/app.css", "/js/main.js"] {
        assert!(
            PLAIN.get(file).unwrap().preload_links().is_empty(),
            "{file}"
        );
    }
}

#[tokio::test]
async fn the_links_come_on_the_page_s_responses_only_when_asked_for() {
    let addr = spawn_service(HASHED.service().preload_links()).await;
    let expected = HASHED
        .get("/index.html")
        .unwrap()
        .preload_links()
        .join(", ");
    for path in ["/", "/index.html"] {
        let (status, headers, _) = get(addr, path, &[]).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        let links: Vec<_> = headers.get_all(LINK).iter().collect();
        assert_eq!(links.len(), 1, "{path}: one field");
        assert_eq!(links[0].to_str().unwrap(), expected, "{path}");
        // A 304 carries it too, so a cache's stored copy keeps it (RFC 9111 §4.3.4).
        let etag = headers.get(ETAG).unwrap().to_str().unwrap().to_owned();
        let (status, headers, _) = get(addr, path, &[("if-none-match", &etag)]).await;
        assert_eq!(status, StatusCode::NOT_MODIFIED);
        assert_eq!(headers.get(LINK).unwrap().to_str().unwrap(), expected);
    }
    let css = format!("/{}", hashed("/css/app.css"));
    let (status, headers, _) = get(addr, &css, &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers.get(LINK), None, "a style sheet announces nothing");

    let without = spawn_service(HASHED.service()).await;
    let (_, headers, _) = get(without, "/", &[]).await;
    assert_eq!(headers.get(LINK), None);
}

#[tokio::test]
async fn dev_mode_sends_no_preload_links_as_the_page_from_disk_is_not_rewritten() {
    // Dev mode serves the page as written on disk, whose links name `css/app.css`; the
    // build's links name hashed URLs (`rewrite_references`), which that page never loads.
    let folder = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/preload");
    let page = std::fs::read_to_string(format!("{folder}/index.html")).unwrap();
    let built = HASHED.get("/index.html").unwrap().preload_links();
    assert!(
        built
            .iter()
            .any(|link| !page.contains(&link[1..link.find('>').unwrap()]))
    );

    for assets in [&HASHED, &PLAIN] {
        let addr = spawn_service(assets.service().preload_links().dev_folder(folder)).await;
        let (status, headers, body) = get(addr, "/index.html", &[]).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(&body[..], page.as_bytes(), "the page as it is on disk");
        assert_eq!(
            headers.get(LINK),
            None,
            "no link names what the page does not load"
        );
    }
}
