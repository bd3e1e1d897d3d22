//! Dev mode (`ServeAssets::dev_folder`): embedded assets answered from the folder on
//! disk, re-read per request, through the same HTTP code; embedded bytes as fallback.

use std::path::PathBuf;

use http::header::{CONTENT_ENCODING, CONTENT_RANGE, ETAG};
use http::StatusCode;
use integration_tests::{fixture, get, header, spawn_service, SITE};

const CSS: &str = "/css/app.css";

/// A copy of the fixture CSS in a fresh folder the test may edit.
struct Folder(PathBuf);

impl Folder {
    fn new(name: &str) -> Self {
        let root =
            std::env::temp_dir().join(format!("embed-dev-test-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("css")).unwrap();
        std::fs::write(root.join("css/app.css"), fixture(CSS)).unwrap();
        Folder(root)
    }

    fn css(&self) -> PathBuf {
        self.0.join("css/app.css")
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[tokio::test]
async fn edits_show_on_the_next_request_with_a_new_etag() {
    let folder = Folder::new("edits");
    let addr = spawn_service(SITE.service().dev_folder(&folder.0)).await;
    let embedded_etag = SITE.get(CSS).unwrap().etag();

    let (status, headers, body) = get(addr, CSS, &[("accept-encoding", "br, gzip")]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(&body[..], &fixture(CSS)[..]);
    assert!(
        headers.get(CONTENT_ENCODING).is_none(),
        "dev mode sends identity"
    );
    assert_eq!(
        header(&headers, ETAG),
        Some(embedded_etag),
        "unchanged file, the build's ETag"
    );

    std::fs::write(folder.css(), "body { color: red }\n").unwrap();
    let (status, headers, body) = get(addr, CSS, &[("if-none-match", embedded_etag)]).await;
    assert_eq!(status, StatusCode::OK, "the old ETag no longer matches");
    assert_eq!(&body[..], b"body { color: red }\n");
    let new_etag = header(&headers, ETAG).unwrap().to_owned();
    assert_ne!(new_etag, embedded_etag);

    let (status, _, body) = get(addr, CSS, &[("if-none-match", &new_etag)]).await;
    assert_eq!(status, StatusCode::NOT_MODIFIED);
    assert!(body.is_empty());
    let (status, headers, body) = get(addr, CSS, &[("range", "bytes=0-3")]).await;
    assert_eq!(status, StatusCode::PARTIAL_CONTENT);
    assert_eq!(&body[..], b"body");
    assert_eq!(header(&headers, CONTENT_RANGE), Some("bytes 0-3/20"));
}

#[tokio::test]
async fn missing_files_and_folders_fall_back_to_the_embedded_bytes() {
    let folder = Folder::new("missing");
    let addr = spawn_service(SITE.service().dev_folder(&folder.0)).await;
    // Not in the dev folder at all: embedded, with its stored encodings.
    let (status, headers, _) = get(addr, "/js/app.js", &[("accept-encoding", "br")]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(header(&headers, CONTENT_ENCODING), Some("br"));
    std::fs::remove_file(folder.css()).unwrap();
    let (status, _, body) = get(addr, CSS, &[]).await;
    assert_eq!((status, &body[..]), (StatusCode::OK, &fixture(CSS)[..]));

    let gone = spawn_service(SITE.service().dev_folder("/no/such/folder")).await;
    let (status, headers, body) = get(gone, CSS, &[]).await;
    assert_eq!((status, &body[..]), (StatusCode::OK, &fixture(CSS)[..]));
    assert_eq!(header(&headers, ETAG), Some(SITE.get(CSS).unwrap().etag()));
}

#[tokio::test]
async fn files_added_after_the_build_are_not_served() {
    let folder = Folder::new("added");
    std::fs::write(folder.0.join("new.txt"), "not listed").unwrap();
    let addr = spawn_service(SITE.service().dev_folder(&folder.0)).await;
    let (status, _, _) = get(addr, "/new.txt", &[]).await;
    assert_eq!(
        status,
        StatusCode::NOT_FOUND,
        "only what the macro listed is served"
    );
}
