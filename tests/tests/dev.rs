//! Dev mode (`ServeAssets::dev_folder`): embedded assets answered from the folder on
//! disk, re-read per request, through the same HTTP code; embedded bytes as fallback;
//! files added since the build served by the macro's rules.

use std::path::PathBuf;

use embed_assets::{Assets, embed_assets};
use http::header::{
    CACHE_CONTROL, CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_RANGE, CONTENT_TYPE, ETAG, VARY,
};
use http::{Method, StatusCode};
use integration_tests::{SITE, fixture, get, header, spawn_service};

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

/// Only scripts and wasm were embedded, and no `legacy-*.js`: dev mode keeps to that for
/// new files.
static SCRIPTS_ONLY: Assets = embed_assets!(
    "fixtures/site",
    include = ["*.js", "*.wasm"],
    exclude = "**/legacy-*.js"
);

#[tokio::test]
async fn files_added_after_the_build_are_served_under_the_macros_rules() {
    let folder = Folder::new("added");
    let write = |relative: &str, bytes: &dyn AsRef<[u8]>| {
        let path = folder.0.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes.as_ref()).unwrap();
    };
    let addr = spawn_service(SITE.service().dev_folder(&folder.0)).await;
    assert_eq!(get(addr, "/new.txt", &[]).await.0, StatusCode::NOT_FOUND);

    // Added after the server started, in the folder and in a new subfolder.
    write("new.txt", &"añadido\n");
    write("assets/chunk-a1b2c3.js", &"export const x = 1;\n");
    write("bin/blob.dat", &[0xffu8, 0xfe, 0x00]);
    let (status, headers, body) = get(addr, "/new.txt", &[("accept-encoding", "br, gzip")]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(&body[..], "añadido\n".as_bytes());
    assert_eq!(
        header(&headers, CONTENT_TYPE),
        Some("text/plain; charset=utf-8")
    );
    assert_eq!(header(&headers, CACHE_CONTROL), Some("no-cache"));
    assert!(
        headers.get(CONTENT_ENCODING).is_none(),
        "dev mode sends identity"
    );
    assert!(headers.get(VARY).is_none(), "nothing was negotiated");
    let etag = header(&headers, ETAG).unwrap().to_owned();
    let (status, _, body) = get(addr, "/new.txt", &[("if-none-match", &etag)]).await;
    assert_eq!(status, StatusCode::NOT_MODIFIED);
    assert!(body.is_empty());
    let (status, headers, body) = get(addr, "/new.txt", &[("range", "bytes=0-1")]).await;
    assert_eq!(status, StatusCode::PARTIAL_CONTENT);
    assert_eq!(&body[..], b"a\xc3");
    assert_eq!(header(&headers, CONTENT_RANGE), Some("bytes 0-1/9"));

    let (status, headers, _) = get(addr, "/assets/chunk-a1b2c3.js", &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        header(&headers, CONTENT_TYPE),
        Some("text/javascript; charset=utf-8")
    );
    let (status, headers, _) = get(addr, "/bin/blob.dat", &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        header(&headers, CONTENT_TYPE),
        Some("application/octet-stream")
    );
    // Escapes decode as for any path.
    write("with space.txt", &"spaced");
    let (status, _, body) = get(addr, "/with%20space.txt", &[]).await;
    assert_eq!((status, &body[..]), (StatusCode::OK, &b"spaced"[..]));
    // Empty and `.` segments merge as for any path.
    let (status, _, body) = get(addr, "/.//with%20space.txt", &[]).await;
    assert_eq!((status, &body[..]), (StatusCode::OK, &b"spaced"[..]));

    // What the macro would not have embedded stays unserved.
    write(".env", &"SECRET=1");
    write(".hidden/page.html", &"<p>hidden</p>");
    for path in [
        "/.env",
        "/.hidden/page.html",
        "/%2eenv",
        "/assets/../.env",
        "/assets/%2e%2e/new.txt",
        "/assets",
        "/assets/",
        "/new.txt/",
    ] {
        let (status, _, body) = get(addr, path, &[]).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
        assert!(!String::from_utf8_lossy(&body).contains("SECRET"), "{path}");
    }
    // A symbolic link is skipped, as the macro skips it (without `follow_symlinks`).
    std::os::unix::fs::symlink(folder.0.join("new.txt"), folder.0.join("link.txt")).unwrap();
    std::os::unix::fs::symlink(folder.0.join("assets"), folder.0.join("linked")).unwrap();
    for path in ["/link.txt", "/linked/chunk-a1b2c3.js"] {
        assert_eq!(
            get(addr, path, &[]).await.0,
            StatusCode::NOT_FOUND,
            "{path}"
        );
    }
    // Only GET and HEAD read a new file.
    let (status, headers, body) = integration_tests::head(addr, "/new.txt", &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(header(&headers, CONTENT_LENGTH), Some("9"));
    assert!(body.is_empty());
    let post = integration_tests::send(addr, Method::POST, "/new.txt", &[]).await;
    assert_eq!(post.0, StatusCode::NOT_FOUND);

    // `include`/`exclude` of the macro call apply to new files too.
    let addr = spawn_service(SCRIPTS_ONLY.service().dev_folder(&folder.0)).await;
    write("assets/legacy-polyfills.js", &"var x;");
    assert_eq!(
        get(addr, "/assets/chunk-a1b2c3.js", &[]).await.0,
        StatusCode::OK
    );
    for path in ["/new.txt", "/assets/legacy-polyfills.js"] {
        assert_eq!(
            get(addr, path, &[]).await.0,
            StatusCode::NOT_FOUND,
            "{path}"
        );
    }
}
