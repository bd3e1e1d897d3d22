//! `Asset::integrity`: the Subresource Integrity value of every embedded file, computed
//! at compile time (W3C Subresource Integrity §3.1: `sha384-` and the base64 of the
//! digest of the bytes a browser gets after content decoding).

use base64::Engine as _;
use embed_assets::{Assets, Encoding, embed_assets};
use http::StatusCode;
use integration_tests::{SITE, get, spawn_service};
use sha2::{Digest, Sha384};

/// The specification's example script: `alert('Hello, world.');`.
static SPEC: Assets = embed_assets!("fixtures/sri");

/// Links rewritten to fingerprinted URLs: the pages' served bytes are not the files'.
static LINKED: Assets = embed_assets!(
    "fixtures/linked",
    fingerprint = true,
    rewrite_references = true
);

/// The same, with `integrity` written on scripts and stylesheets.
static WRITTEN: Assets = embed_assets!(
    "fixtures/linked",
    fingerprint = true,
    rewrite_references = true,
    integrity = true
);

/// Stored compressed only: the identity bytes are decoded from gzip at run time.
static COMPRESSED_ONLY: Assets = embed_assets!("fixtures/site", compressed_only = true);

/// The same files with a 1 MiB limit: `big.bin` is read from disk at run time.
static ON_DISK: Assets =
    embed_assets!("fixtures/site", max_embed_size = "1 MiB", on_disk = "allow");

fn sri(bytes: &[u8]) -> String {
    let digest = Sha384::digest(bytes);
    format!(
        "sha384-{}",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

#[test]
fn the_specifications_example_has_its_value() {
    let script = SPEC.get("/hello.js").expect("embedded");
    assert_eq!(
        script.body(Encoding::Identity),
        Some(&b"alert('Hello, world.');"[..])
    );
    assert_eq!(
        script.integrity(),
        Some("sha384-H8BRh8j48O9oYatfu5AZzq6A9RINhZO5H16dQZngK7T62em8MUt1FLm52t+eX6xO")
    );
}

#[test]
fn every_embedded_file_has_the_value_of_its_identity_bytes() {
    let mut seen = 0;
    for set in [&SITE, &COMPRESSED_ONLY] {
        for asset in set.iter() {
            let identity = asset.body(Encoding::Identity).expect("embedded");
            assert_eq!(asset.integrity(), Some(&*sri(identity)), "{}", asset.path());
            seen += 1;
        }
    }
    assert!(seen > 30, "{seen} files");
    let empty = SITE.get("/empty.txt").expect("embedded");
    assert_eq!(
        empty.integrity(),
        Some("sha384-OLBgp1GsljhM2TJ+sbHjaiH9txEUvgdDTAzHv2P24donTt6/529l+9Ua0vFImLlb")
    );
}

#[test]
fn a_file_read_from_disk_has_none() {
    assert_eq!(ON_DISK.get("/big.bin").expect("listed").integrity(), None);
    let small = ON_DISK.get("/tiny.txt").expect("embedded");
    assert_eq!(
        small.integrity(),
        SITE.get("/tiny.txt").unwrap().integrity()
    );
}

#[tokio::test]
async fn a_rewritten_page_has_the_value_of_the_bytes_served() {
    let addr = spawn_service(LINKED.service()).await;
    let mut rewritten = 0;
    for asset in LINKED.iter() {
        let (status, _, body) = get(addr, asset.path(), &[]).await;
        assert_eq!(status, StatusCode::OK, "{}", asset.path());
        assert_eq!(asset.integrity(), Some(&*sri(&body)), "{}", asset.path());
        let on_disk = std::fs::read(format!(
            "{}/fixtures/linked{}",
            env!("CARGO_MANIFEST_DIR"),
            asset.path()
        ))
        .expect("the fixture");
        if on_disk != body {
            rewritten += 1;
            assert_ne!(asset.integrity(), Some(&*sri(&on_disk)), "{}", asset.path());
        }
    }
    assert!(rewritten > 0, "no page of fixtures/linked was rewritten");
}

/// One element of a served page that loads a file: its tag, `rel`, URL and
/// `integrity`.
#[derive(Debug)]
struct Loads {
    tag: String,
    rel: String,
    url: String,
    integrity: Option<String>,
}

fn loads(page: &[u8]) -> Vec<Loads> {
    let found = std::cell::RefCell::new(Vec::new());
    let settings = lol_html::RewriteStrSettings {
        element_content_handlers: vec![lol_html::element!("script[src], link[href]", |el| {
            let url = el.get_attribute("src").or(el.get_attribute("href"));
            found.borrow_mut().push(Loads {
                tag: el.tag_name(),
                rel: el.get_attribute("rel").unwrap_or_default(),
                url: url.unwrap_or_default(),
                integrity: el.get_attribute("integrity"),
            });
            Ok(())
        })],
        ..lol_html::RewriteStrSettings::new()
    };
    lol_html::rewrite_str(std::str::from_utf8(page).expect("UTF-8"), settings).expect("HTML");
    found.into_inner()
}

/// `reference` (relative, or absolute with no scheme) resolved against `page`.
fn resolve(page: &str, reference: &str) -> String {
    let reference = reference.split(['?', '#']).next().unwrap_or_default();
    if reference.starts_with('/') {
        return reference.to_owned();
    }
    let mut segments: Vec<&str> = page.split('/').collect();
    segments.pop();
    for segment in reference.split('/') {
        match segment {
            ".." => {
                segments.pop();
            }
            "." => {}
            named => segments.push(named),
        }
    }
    segments.join("/")
}

/// W3C Subresource Integrity §3.3: `integrity` on `<script src>` and
/// `<link rel=stylesheet>`: each page served names the value of the bytes its link
/// gets, and links a browser does not check (an icon) get none.
#[tokio::test]
async fn integrity_written_into_pages_is_that_of_the_bytes_served() {
    let addr = spawn_service(WRITTEN.service()).await;
    let mut checked = 0;
    for page in ["/index.html", "/docs/page.html"] {
        let (status, _, body) = get(addr, page, &[]).await;
        assert_eq!(status, StatusCode::OK, "{page}");
        for element in loads(&body) {
            let checks = element.tag == "script" || element.rel == "stylesheet";
            let url = resolve(page, &element.url);
            if !checks {
                assert_eq!(element.integrity, None, "{page}: {element:?}");
                continue;
            }
            let (status, _, served) = get(addr, &url, &[]).await;
            assert_eq!(status, StatusCode::OK, "{page}: {element:?} at {url}");
            assert_eq!(
                element.integrity.as_deref(),
                Some(&*sri(&served)),
                "{page}: {element:?}"
            );
            checked += 1;
        }
    }
    // index.html: a stylesheet and a script; page.html: the stylesheet.
    assert_eq!(checked, 3);
    // Without the option the same pages name no value.
    let plain = spawn_service(LINKED.service()).await;
    let (_, _, body) = get(plain, "/index.html", &[]).await;
    assert!(loads(&body).iter().all(|e| e.integrity.is_none()));
}
