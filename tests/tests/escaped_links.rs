//! `rewrite_references` and file names a URL must escape: a link is decoded before it
//! is matched (`my%20file.txt` names `my file.txt`), what is written is a valid URL
//! (`caf%C3%A9%20menu.<hash>.txt`), the `paths` constants are valid URL paths, and
//! with `base` the rewritten absolute links carry the mount point, so that every link
//! of the served page, followed as a browser follows it, gets the file.

use embed_assets::Encoding;
use http::StatusCode;
use integration_tests::{get, spawn_mounted, spawn_service};

mod at_root {
    embed_assets::embed_assets!(
        pub static SITE = "fixtures/escaped",
        fingerprint = true,
        rewrite_references = true,
    );
}

mod plain {
    embed_assets::embed_assets!(pub static SITE = "fixtures/escaped");
}

mod below_static {
    embed_assets::embed_assets!(
        pub static SITE = "fixtures/escaped",
        fingerprint = true,
        rewrite_references = true,
        base = "/static",
    );
}

/// The page's bytes as served.
fn page(site: &embed_assets::Assets) -> String {
    let body = site.get("/index.html").unwrap().body(Encoding::Identity);
    String::from_utf8(body.unwrap().to_vec()).unwrap()
}

/// The value of attribute `name` in the tag that contains `marker`.
fn attribute_of<'a>(html: &'a str, marker: &str, name: &str) -> &'a str {
    let at = html
        .find(marker)
        .unwrap_or_else(|| panic!("{marker} in {html}"));
    let tag_start = html[..at].rfind('<').unwrap();
    let tag = &html[tag_start..tag_start + html[tag_start..].find('>').unwrap()];
    let value = &tag[tag.find(&format!("{name}=\"")).unwrap() + name.len() + 2..];
    &value[..value.find('"').unwrap()]
}

fn link(html: &str, id: &str) -> String {
    attribute_of(html, &format!("id=\"{id}\""), "href").to_owned()
}

/// The two script links: absolute, then relative.
fn scripts(html: &str) -> (String, String) {
    let mut found = html.match_indices("<script src=\"").map(|(at, _)| {
        let value = &html[at + 13..];
        value[..value.find('"').unwrap()].to_owned()
    });
    (found.next().unwrap(), found.next().unwrap())
}

/// A link of the page at `page_url` as the browser requests it: relative ones against
/// the page's folder, the query and fragment dropped (the server ignores the query).
fn request_path(page_url: &str, link: &str) -> String {
    let link = &link[..link.find(['?', '#']).unwrap_or(link.len())];
    if link.starts_with('/') {
        link.to_owned()
    } else {
        format!("{}{link}", &page_url[..=page_url.rfind('/').unwrap()])
    }
}

fn is_valid_url_path(url: &str) -> bool {
    url.bytes()
        .all(|b| b.is_ascii_graphic() && !matches!(b, b'"' | b'<' | b'>' | b'`' | b'{' | b'}'))
}

#[test]
fn escaped_and_raw_links_are_rewritten_to_escaped_hashed_urls() {
    use at_root::{SITE, paths};
    let html = page(&SITE);
    let menu = SITE.get("/café menu.txt").unwrap();
    let menu_hashed = menu.fingerprinted_path().unwrap();
    assert!(menu_hashed.starts_with("/café menu.") && menu_hashed.ends_with(".txt"));

    // The constants are valid URL paths; the decoded one is the asset's.
    assert!(
        paths::CAF_MENU_TXT.starts_with("/caf%C3%A9%20menu."),
        "{}",
        paths::CAF_MENU_TXT
    );
    assert!(
        paths::MY_FILE_TXT.starts_with("/my%20file."),
        "{}",
        paths::MY_FILE_TXT
    );
    let hash = &menu_hashed["/café menu.".len()..];
    assert_eq!(paths::CAF_MENU_TXT, format!("/caf%C3%A9%20menu.{hash}"));

    assert_eq!(link(&html, "escaped"), &paths::MY_FILE_TXT[1..]);
    assert_eq!(link(&html, "escaped-absolute"), paths::CAF_MENU_TXT);
    assert_eq!(
        link(&html, "raw"),
        paths::CAF_MENU_TXT,
        "a raw link is written escaped"
    );
    assert_eq!(
        link(&html, "lowercase-escape"),
        format!("{}#top", &paths::CAF_MENU_TXT[1..])
    );
    // Links that name no file once decoded stay as written.
    assert_eq!(link(&html, "bad-escape"), "my%FFfile.txt");
    assert_eq!(link(&html, "slash-escape"), "js%2Fapp.js");
    for id in ["escaped", "escaped-absolute", "raw", "lowercase-escape"] {
        assert!(
            is_valid_url_path(&link(&html, id)),
            "{id}: {}",
            link(&html, id)
        );
    }
    let (absolute, relative) = scripts(&html);
    assert_eq!(absolute, paths::JS_APP_JS);
    assert_eq!(relative, format!("{}?v=1", &paths::JS_APP_JS[1..]));
}

#[tokio::test]
async fn every_rewritten_link_gets_its_file_over_http() {
    use at_root::SITE;
    let addr = spawn_service(SITE.service()).await;
    let html = page(&SITE);
    for (id, file) in [
        ("escaped", "/my file.txt"),
        ("escaped-absolute", "/café menu.txt"),
        ("raw", "/café menu.txt"),
        ("lowercase-escape", "/café menu.txt"),
    ] {
        let path = request_path("/index.html", &link(&html, id));
        let (status, _, body) = get(addr, &path, &[]).await;
        assert_eq!(status, StatusCode::OK, "{id}: {path}");
        let expected = SITE.get(file).unwrap().body(Encoding::Identity).unwrap();
        assert_eq!(&body[..], expected, "{id}: {path}");
    }
}

#[tokio::test]
async fn with_base_absolute_links_carry_the_mount_point_and_resolve_there() {
    let html = page(&below_static::SITE);
    let paths = (at_root::paths::CAF_MENU_TXT, at_root::paths::JS_APP_JS);
    assert_eq!(
        link(&html, "escaped-absolute"),
        format!("/static{}", paths.0)
    );
    assert_eq!(link(&html, "raw"), format!("/static{}", paths.0));
    let (absolute, relative) = scripts(&html);
    assert_eq!(absolute, format!("/static{}", paths.1));
    assert_eq!(
        relative,
        format!("{}?v=1", &paths.1[1..]),
        "relative links need no base"
    );
    // The constants are the folder's own URLs: `base` changes only the pages.
    assert_eq!(below_static::paths::CAF_MENU_TXT, paths.0);

    let addr = spawn_mounted(below_static::SITE.service(), "/static").await;
    let page_url = "/static/index.html";
    let (status, _, served) = get(addr, page_url, &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(&served[..], html.as_bytes());
    let links = [
        link(&html, "escaped"),
        link(&html, "escaped-absolute"),
        link(&html, "raw"),
        absolute,
        relative,
    ];
    for link in links {
        let path = request_path(page_url, &link);
        assert!(path.starts_with("/static/"), "{link}");
        let (status, _, _) = get(addr, &path, &[]).await;
        assert_eq!(status, StatusCode::OK, "{link} → {path}");
    }
    // Without `base`, the same page's absolute links miss under the mount point.
    let unprefixed = request_path(page_url, &link(&page(&at_root::SITE), "raw"));
    let (status, _, _) = get(addr, &unprefixed, &[]).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{unprefixed}");
}

#[test]
fn asset_urls_are_percent_encoded_exactly_like_the_paths_constants() {
    use at_root::{SITE, paths};
    // A `?` in a name would otherwise start a query: `/a b?.<hash>.txt` asks for `/a b`.
    let question = SITE.get("/a b?.txt").unwrap();
    let hash = &question.fingerprinted_path().unwrap()["/a b?.".len()..];
    assert_eq!(question.url(), format!("/a%20b%3F.{hash}"));
    assert_eq!(question.url(), paths::A_B_TXT);
    assert_eq!(SITE.url("/a b?.txt"), Some(paths::A_B_TXT));
    assert_eq!(SITE.url("/café menu.txt"), Some(paths::CAF_MENU_TXT));
    assert_eq!(SITE.url("/my file.txt"), Some(paths::MY_FILE_TXT));
    for asset in SITE.iter() {
        assert!(is_valid_url_path(asset.url()), "{}", asset.url());
    }
    // Unhashed URLs are encoded the same way; a name that needs nothing is as it is.
    assert_eq!(plain::SITE.url("/a b?.txt"), Some("/a%20b%3F.txt"));
    assert_eq!(
        plain::SITE.url("/café menu.txt"),
        Some("/caf%C3%A9%20menu.txt")
    );
    assert_eq!(plain::SITE.url("/js/app.js"), Some("/js/app.js"));
    assert_eq!(plain::paths::A_B_TXT, "/a%20b%3F.txt");
    assert_eq!(plain::SITE.get("/a b?.txt").unwrap().path(), "/a b?.txt");
}

#[tokio::test]
async fn the_encoded_url_of_a_name_with_a_question_mark_gets_its_file() {
    for site in [&at_root::SITE, &plain::SITE] {
        let addr = spawn_service(site.service()).await;
        let url = site.url("/a b?.txt").unwrap();
        let (status, _, body) = get(addr, url, &[]).await;
        assert_eq!(status, StatusCode::OK, "{url}");
        assert_eq!(&body[..], b"question mark\n", "{url}");
    }
}
