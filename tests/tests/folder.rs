//! A folder served at run time (`ServeAssets::folder`): the same answers as an embedded
//! table, from files read when they are asked for; the directory rules (index file,
//! redirect to the slash); a file replaced with the same length and its mtime put back
//! answered with its new bytes and a new tag; paths confined to the folder; the
//! single-page app's page read from the folder; methods and ranges as RFC 9110 says.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use embed_assets::ServeAssets;
use http::header::{
    ALLOW, CACHE_CONTROL, CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_RANGE, CONTENT_TYPE, ETAG,
    LAST_MODIFIED, LOCATION, VARY,
};
use http::{Method, StatusCode};
use integration_tests::{
    SITE, decode_body, encode_path, fixture, get, head, header, noise, parse_multipart,
    public_fixture_paths, raw_get, send, site_dir, spawn_mounted, spawn_service,
};

/// `GET path` answers 200 with exactly `body`.
async fn assert_ok(addr: std::net::SocketAddr, path: &str, body: &[u8]) {
    let (status, _, got) = get(addr, path, &[]).await;
    assert_eq!((status, &got[..]), (StatusCode::OK, body), "GET {path}");
}

/// A fresh folder in the temp folder, removed when dropped.
struct Folder(PathBuf);

impl Folder {
    fn new(name: &str) -> Self {
        let root =
            std::env::temp_dir().join(format!("embed-folder-test-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        fs::create_dir_all(&root).unwrap();
        Folder(root)
    }

    /// A small site: a page, a page in a directory, a stylesheet, a script, a dot file
    /// and a directory without an index.
    fn site(name: &str) -> Self {
        let folder = Folder::new(name);
        folder.write("index.html", b"<!doctype html><title>home</title>");
        folder.write("about/index.html", b"<!doctype html><title>about</title>");
        folder.write("css/app.css", b"body { color: teal }\n");
        folder.write("js/app.js", b"console.log('app');\n");
        folder.write(".env", b"SECRET=1\n");
        folder.write("conf/.git/config", b"[core]\n");
        fs::create_dir_all(folder.0.join("empty")).unwrap();
        folder
    }

    fn write(&self, relative: &str, bytes: &[u8]) {
        let path = self.path(relative);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, bytes).unwrap();
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.0.join(relative)
    }

    /// `relative` written anew with `bytes`, its mtime put back (`cp -p`): only its
    /// status change time tells.
    fn overwrite_keeping_mtime(&self, relative: &str, bytes: &[u8]) {
        let mtime = fs::metadata(self.path(relative))
            .unwrap()
            .modified()
            .unwrap();
        self.write(relative, bytes);
        put_mtime_back(&self.path(relative), mtime);
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// The fixture site's public files, copied into `folder`.
fn copy_fixture_site(folder: &Folder) {
    for url in public_fixture_paths() {
        let relative = url.trim_start_matches('/');
        folder.write(relative, &fs::read(site_dir().join(relative)).unwrap());
    }
}

#[tokio::test]
async fn every_file_is_answered_as_the_embedded_table_answers_it() {
    let folder = Folder::new("same");
    copy_fixture_site(&folder);
    let addr = spawn_service(ServeAssets::folder(&folder.0)).await;
    let mut compared = 0;
    for url in public_fixture_paths() {
        let (status, headers, body) = get(addr, &encode_path(&url), &[]).await;
        assert_eq!(status, StatusCode::OK, "{url}");
        assert_eq!(&body[..], &fixture(&url)[..], "{url}: the file's bytes");
        assert_eq!(
            header(&headers, CONTENT_LENGTH),
            Some(body.len().to_string().as_str()),
            "{url}"
        );
        let etag = header(&headers, ETAG).unwrap_or_else(|| panic!("{url}: no ETag"));
        assert!(etag.starts_with('"'), "{url}: a strong ETag, got {etag}");
        // Where the table embeds the same bytes, the same type and the same tag: the
        // tag is the content's, wherever it was read from.
        if let Some(asset) = SITE.get(&url) {
            if asset.is_embedded() && asset.len() == body.len() as u64 {
                assert_eq!(
                    header(&headers, CONTENT_TYPE),
                    Some(asset.content_type()),
                    "{url}"
                );
                assert_eq!(etag, asset.etag(), "{url}");
                compared += 1;
            }
        }
        let (status, _, body) = get(addr, &encode_path(&url), &[("if-none-match", etag)]).await;
        assert_eq!(status, StatusCode::NOT_MODIFIED, "{url}");
        assert!(body.is_empty());
    }
    assert!(
        compared >= 5,
        "only {compared} files compared with the table"
    );
}

#[tokio::test]
async fn directories_serve_their_index_and_redirect_to_their_slash() {
    let folder = Folder::site("dirs");
    let addr = spawn_service(ServeAssets::folder(&folder.0)).await;
    let (status, headers, body) = get(addr, "/", &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(&body[..], b"<!doctype html><title>home</title>");
    assert_eq!(
        header(&headers, CONTENT_TYPE),
        Some("text/html; charset=utf-8")
    );
    let (status, _, body) = get(addr, "/about/", &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(&body[..], b"<!doctype html><title>about</title>");
    let (status, headers, _) = get(addr, "/about?x=1", &[]).await;
    assert_eq!(status, StatusCode::MOVED_PERMANENTLY);
    assert_eq!(header(&headers, LOCATION), Some("./about/?x=1"));
    // A directory with no index: nothing to serve, nowhere to redirect.
    for path in ["/empty", "/empty/", "/css/", "/nothing/", "/nothing"] {
        let (status, _, _) = get(addr, path, &[]).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
    }
    // Without an index file, directories are not served at all.
    let addr = spawn_service(ServeAssets::folder(&folder.0).without_index()).await;
    for path in ["/", "/about/", "/about"] {
        let (status, _, _) = get(addr, path, &[]).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
    }
}

/// Sets `path`'s modification time back to `mtime`, as `cp -p` and `touch -r` do.
fn put_mtime_back(path: &Path, mtime: SystemTime) {
    let file = fs::File::options().write(true).open(path).unwrap();
    file.set_modified(mtime).unwrap();
}

#[tokio::test]
async fn a_file_replaced_with_the_same_length_and_mtime_is_answered_anew() {
    let folder = Folder::site("replace");
    let addr = spawn_service(ServeAssets::folder(&folder.0)).await;
    let css = folder.path("css/app.css");
    let (_, headers, body) = get(addr, "/css/app.css", &[]).await;
    assert_eq!(&body[..], b"body { color: teal }\n");
    let first = header(&headers, ETAG).unwrap().to_owned();
    let mtime = fs::metadata(&css).unwrap().modified().unwrap();

    // In place, same length, mtime put back.
    fs::write(&css, b"body { color: navy }\n").unwrap();
    put_mtime_back(&css, mtime);
    let (status, headers, body) = get(addr, "/css/app.css", &[("if-none-match", &first)]).await;
    assert_eq!(status, StatusCode::OK, "the old tag no longer matches");
    assert_eq!(&body[..], b"body { color: navy }\n");
    let second = header(&headers, ETAG).unwrap().to_owned();
    assert_ne!(second, first);

    // By a rename over it (the atomic deploy), same length, mtime put back.
    let new = folder.path("css/app.css.new");
    fs::write(&new, b"body { color: gold }\n").unwrap();
    put_mtime_back(&new, mtime);
    fs::rename(&new, &css).unwrap();
    let (status, headers, body) = get(addr, "/css/app.css", &[("if-none-match", &second)]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(&body[..], b"body { color: gold }\n");
    assert_ne!(header(&headers, ETAG), Some(second.as_str()));

    // A file added, then removed.
    folder.write("js/new.js", b"1;\n");
    assert_ok(addr, "/js/new.js", b"1;\n").await;
    fs::remove_file(folder.path("js/new.js")).unwrap();
    let (status, _, _) = get(addr, "/js/new.js", &[]).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn empty_and_dot_segments_are_merged_as_nginx_merges_them() {
    let folder = Folder::site("merged");
    let merged = [
        ("//css/app.css", "/css/app.css"),
        ("/css//app.css", "/css/app.css"),
        ("/./css/./app.css", "/css/app.css"),
        ("/%2e/js%2f%2fapp.js", "/js/app.js"),
        ("//about//", "/about/"),
        ("/about/.", "/about/"),
        ("//", "/"),
    ];
    let assert_merged = |addr| async move {
        for (target, path) in merged {
            let (status, _, body) = raw_get(addr, target).await;
            let (_, _, expected) = get(addr, path, &[]).await;
            assert_eq!(
                (status, &body[..]),
                (StatusCode::OK, &expected[..]),
                "{target}"
            );
        }
        // A directory spelt with an empty segment still redirects to its slash, relative
        // to the URL asked for, which keeps it on this host.
        let (status, headers, _) = raw_get(addr, "//about").await;
        assert_eq!(status, StatusCode::MOVED_PERMANENTLY);
        assert_eq!(header(&headers, LOCATION), Some("./about/"));
        for refused in ["/.//.env", "//conf//.git/config", "/css/./../../x"] {
            assert_eq!(
                raw_get(addr, refused).await.0,
                StatusCode::NOT_FOUND,
                "{refused}"
            );
        }
    };
    assert_merged(spawn_service(ServeAssets::folder(&folder.0)).await).await;
    let server = embed_assets::Server::bind("127.0.0.1:0")
        .unwrap()
        .workers(1)
        .shutdown_on_signals(false);
    let (addr, stop) = (server.local_addr(), server.shutdown_handle());
    let service = ServeAssets::folder(&folder.0);
    let thread = std::thread::spawn(move || server.serve(service, axum::Router::new()));
    assert_merged(addr).await;
    stop.shutdown();
    thread.join().unwrap().unwrap();
}

#[tokio::test]
async fn paths_stay_inside_the_folder() {
    let parent = Folder::new("confined");
    parent.write("secret.txt", b"outside");
    let folder = Folder(parent.path("site"));
    folder.write("index.html", b"home");
    folder.write("css/app.css", b"body {}");
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(parent.path("secret.txt"), folder.path("link.txt")).unwrap();
        std::os::unix::fs::symlink(parent.path("."), folder.path("up")).unwrap();
    }
    let addr = spawn_service(ServeAssets::folder(&folder.0)).await;
    for target in [
        "/../secret.txt",
        "/%2e%2e/secret.txt",
        "/css/..%2f..%2fsecret.txt",
        "/css/%2e%2e/%2e%2e/secret.txt",
        "/..%5csecret.txt",
        "/link.txt",
        "/up/secret.txt",
        "/up/site/index.html",
        "/.env",
        "/%00",
    ] {
        let (status, _, body) = raw_get(addr, target).await;
        assert!(
            status == StatusCode::NOT_FOUND || status == StatusCode::BAD_REQUEST,
            "{target}: {status}"
        );
        assert!(
            !body.windows(7).any(|w| w == b"outside"),
            "{target} reached the file outside"
        );
    }
    let folder_with_dots = Folder::site("dots");
    let addr = spawn_service(ServeAssets::folder(&folder_with_dots.0)).await;
    for path in ["/.env", "/conf/.git/config", "/%2eenv"] {
        let (status, _, _) = get(addr, path, &[]).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
    }
}

#[tokio::test]
async fn the_single_page_apps_page_comes_from_the_folder() {
    let folder = Folder::site("spa");
    let service = ServeAssets::folder(&folder.0)
        .spa_fallback("/index.html")
        .spa_exclude("/admin");
    let addr = spawn_service(service).await;
    let html = [("accept", "text/html,application/xhtml+xml")];
    let (status, headers, body) = get(addr, "/settings/profile", &html).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(&body[..], b"<!doctype html><title>home</title>");
    assert_eq!(header(&headers, CACHE_CONTROL), Some("no-cache"));
    assert!(header(&headers, VARY).is_some_and(|v| v.to_ascii_lowercase().contains("accept")));
    // Not for a script, not for a client that does not take HTML, not under /admin.
    for (path, accept) in [
        ("/js/missing.js", "text/html"),
        ("/settings/profile", "application/json"),
        ("/admin/users", "text/html"),
    ] {
        let (status, headers, _) = get(addr, path, &[("accept", accept)]).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path} {accept}");
        assert!(
            header(&headers, VARY).is_some_and(|v| v.to_ascii_lowercase().contains("accept")),
            "{path}: the 404 varies by Accept too"
        );
    }
    // A file that exists is itself, and the page edited shows at once.
    let (_, _, body) = get(addr, "/css/app.css", &html).await;
    assert_eq!(&body[..], b"body { color: teal }\n");
    folder.write("index.html", b"<!doctype html><title>v2</title>");
    let (_, _, body) = get(addr, "/settings/profile", &html).await;
    assert_eq!(&body[..], b"<!doctype html><title>v2</title>");
}

#[tokio::test]
async fn the_404_page_comes_from_the_folder_without_validators() {
    let folder = Folder::site("not-found");
    folder.write("404.html", b"<!doctype html><title>lost</title>");
    folder.write("404.html.gz", &gzip(b"<!doctype html><title>lost</title>"));
    let service = ServeAssets::folder(&folder.0).not_found_page("/404.html");
    let addr = spawn_service(service).await;
    // Whatever the request asks of the file it did not find: the whole page, 404.
    for fields in [
        &[][..],
        &[("range", "bytes=0-3")][..],
        &[("if-none-match", "*")][..],
        &[("if-match", "\"nope\"")][..],
        &[("accept-encoding", "gzip")][..],
    ] {
        let (status, headers, body) = get(addr, "/no/such/page", fields).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{fields:?}");
        assert_eq!(
            decode_body(&headers, &body),
            b"<!doctype html><title>lost</title>",
            "{fields:?}"
        );
        assert_eq!(
            header(&headers, CONTENT_TYPE),
            Some("text/html; charset=utf-8")
        );
        assert_eq!(header(&headers, CACHE_CONTROL), Some("no-cache"));
        for name in [ETAG, LAST_MODIFIED, CONTENT_RANGE] {
            assert_eq!(
                header(&headers, name.clone()),
                None,
                "{name} on the 404 page"
            );
        }
    }
    let (status, headers, body) = head(addr, "/missing.css", &[]).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(body.is_empty());
    assert_eq!(header(&headers, CONTENT_LENGTH), Some("34"));
    // Other methods on a missing path get the page too; on a file, 405.
    let (status, _, body) = send(addr, Method::POST, "/nowhere", &[]).await;
    assert_eq!(
        (status, &body[..]),
        (
            StatusCode::NOT_FOUND,
            &b"<!doctype html><title>lost</title>"[..]
        )
    );
    let (status, _, _) = send(addr, Method::POST, "/css/app.css", &[]).await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
    // The page is read when needed: edited, the new bytes; gone, the plain 404.
    folder.write("404.html", b"<!doctype html><title>lost, v2</title>");
    let (_, _, body) = get(addr, "/gone", &[]).await;
    assert_eq!(&body[..], b"<!doctype html><title>lost, v2</title>");
    fs::remove_file(folder.path("404.html")).unwrap();
    let (status, headers, body) = get(addr, "/gone", &[]).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(
        header(&headers, CONTENT_TYPE),
        Some("text/plain; charset=utf-8")
    );
    assert_eq!(&body[..], b"404 Not Found\n");
    // Files are themselves.
    assert_ok(addr, "/js/app.js", b"console.log('app');\n").await;
}

/// `check_disk` and `Server::serve` on a folder that cannot be served.
fn assert_refused_at_start(root: &Path, cause: &str) {
    let shown = root.display().to_string();
    let error = ServeAssets::folder(root)
        .check_disk()
        .expect_err("check_disk took the folder");
    let message = error.to_string();
    assert!(
        message.contains(&shown) && message.contains(cause),
        "check_disk: {message}"
    );
    let server = embed_assets::Server::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
    let addr = server.local_addr();
    let refused = server
        .serve(ServeAssets::folder(root), axum::Router::new())
        .expect_err("serve started on the folder");
    let message = refused.to_string();
    assert!(
        message.contains(&shown) && message.contains(cause),
        "serve: {message}"
    );
    assert!(
        std::net::TcpStream::connect(addr).is_err(),
        "the refused server still listens"
    );
}

#[test]
fn a_folder_that_is_missing_or_a_file_is_an_error_at_start_naming_it() {
    let folder = Folder::site("root-check");
    ServeAssets::folder(&folder.0)
        .check_disk()
        .expect("the folder is there");
    assert_refused_at_start(&folder.path("does-not-exist"), "No such file");
    assert_refused_at_start(&folder.path("index.html"), "Not a directory");
}

#[test]
fn an_unreadable_folder_is_an_error_at_start_naming_it() {
    if !integration_tests::programs::file_permissions_apply(
        "an_unreadable_folder_is_an_error_at_start_naming_it",
    ) {
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    let folder = Folder::site("root-unreadable");
    let locked = folder.path("locked");
    fs::create_dir_all(&locked).unwrap();
    fs::write(locked.join("index.html"), b"hidden").unwrap();
    for mode in [0o000, 0o600] {
        fs::set_permissions(&locked, fs::Permissions::from_mode(mode)).unwrap();
        assert_refused_at_start(&locked, "Permission denied");
    }
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn a_page_that_is_not_a_path_in_the_folder_is_refused_at_start_up() {
    let folder = Folder::site("bad-pages");
    let refused = |configure: &dyn Fn(ServeAssets) -> ServeAssets| {
        let service = ServeAssets::folder(&folder.0);
        let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| configure(service)))
            .expect_err("the page was taken");
        panic.downcast_ref::<String>().cloned().unwrap_or_default()
    };
    for page in [
        "404.html",
        "/../outside.html",
        "/a/./b.html",
        "/docs/",
        "/a\\b.html",
    ] {
        let message = refused(&|service| service.not_found_page(page));
        assert!(
            message.starts_with(&format!("not_found_page({page:?})"))
                && message.contains("such as"),
            "{message}"
        );
        let message = refused(&|service| service.spa_fallback(page));
        assert!(
            message.starts_with(&format!("spa_fallback({page:?})")),
            "{message}"
        );
    }
}

#[tokio::test]
async fn methods_heads_and_ranges_follow_rfc_9110() {
    let folder = Folder::site("methods");
    let big = noise(3 << 20, 7);
    folder.write("media/big.bin", &big);
    let addr = spawn_service(ServeAssets::folder(&folder.0)).await;

    let (status, headers, _) = send(addr, Method::POST, "/css/app.css", &[]).await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(header(&headers, ALLOW), Some("GET, HEAD"));
    let (status, _, _) = send(addr, Method::DELETE, "/about", &[]).await;
    assert_eq!(
        status,
        StatusCode::METHOD_NOT_ALLOWED,
        "a directory with its index"
    );
    let (status, _, _) = send(addr, Method::POST, "/nothing.css", &[]).await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    let (status, headers, body) = head(addr, "/css/app.css", &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(header(&headers, CONTENT_LENGTH), Some("21"));
    assert!(body.is_empty());

    let (status, headers, body) = get(addr, "/css/app.css", &[("range", "bytes=0-3")]).await;
    assert_eq!(status, StatusCode::PARTIAL_CONTENT);
    assert_eq!(&body[..], b"body");
    assert_eq!(header(&headers, CONTENT_RANGE), Some("bytes 0-3/21"));
    let (status, headers, body) =
        get(addr, "/media/big.bin", &[("range", "bytes=0-9,3145718-")]).await;
    assert_eq!(status, StatusCode::PARTIAL_CONTENT);
    let parts = parse_multipart(header(&headers, CONTENT_TYPE).unwrap(), &body);
    assert_eq!(parts.len(), 2);
    assert_eq!(parts[0].bytes, &big[..10]);
    assert_eq!(parts[1].bytes, &big[(3 << 20) - 10..]);
    let (status, headers, _) = get(addr, "/css/app.css", &[("range", "bytes=100-")]).await;
    assert_eq!(status, StatusCode::RANGE_NOT_SATISFIABLE);
    assert_eq!(header(&headers, CONTENT_RANGE), Some("bytes */21"));

    // The large file, streamed whole.
    let (status, headers, body) = get(addr, "/media/big.bin", &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        header(&headers, CONTENT_TYPE),
        Some("application/octet-stream")
    );
    assert!(body[..] == big[..], "the streamed body is the file");
    // Its content tag comes once it is computed, and it validates.
    let mut etag = None;
    for _ in 0..100 {
        let (_, headers, _) = head(addr, "/media/big.bin", &[]).await;
        if let Some(tag) = header(&headers, ETAG) {
            etag = Some(tag.to_owned());
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let etag = etag.expect("a content ETag within 5 s");
    let (status, _, _) = get(addr, "/media/big.bin", &[("if-none-match", &etag)]).await;
    assert_eq!(status, StatusCode::NOT_MODIFIED);
}

fn brotli(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let params = brotli::enc::BrotliEncoderParams::default();
    brotli::BrotliCompress(&mut &bytes[..], &mut out, &params).unwrap();
    out
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write as _;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

/// `text` as a script of `len` bytes, so that versions of the same length differ.
fn script(text: &str, len: usize) -> Vec<u8> {
    let mut bytes = format!("/* {text} */\n").into_bytes();
    while bytes.len() < len {
        bytes.extend_from_slice(b"export const value = 42; // filler line of a bundle\n");
    }
    bytes.truncate(len);
    bytes
}

/// `GET path` with `Range` over `range` of the br body `br` answers those bytes of it.
async fn assert_br_range(
    addr: std::net::SocketAddr,
    path: &str,
    br: &[u8],
    range: std::ops::Range<usize>,
) {
    let bytes = format!("bytes={}-{}", range.start, range.end - 1);
    let (status, headers, body) =
        get(addr, path, &[("accept-encoding", "br"), ("range", &bytes)]).await;
    assert_eq!(status, StatusCode::PARTIAL_CONTENT, "{path}");
    assert_eq!(header(&headers, CONTENT_ENCODING), Some("br"), "{path}");
    assert_eq!(&body[..], &br[range], "{path}: a range of the br body");
}

fn vary_names(headers: &http::HeaderMap) -> String {
    header(headers, VARY)
        .unwrap_or_default()
        .to_ascii_lowercase()
}

#[tokio::test]
async fn precompressed_siblings_are_sent_only_while_they_decode_to_their_file() {
    let folder = Folder::site("siblings");
    let first = script("first", 20_000);
    folder.write("js/bundle.js", &first);
    folder.write("js/bundle.js.br", &brotli(&first));
    folder.write("js/bundle.js.gz", &gzip(&first));
    let addr = spawn_service(ServeAssets::folder(&folder.0)).await;
    let ae = |value| [("accept-encoding", value)];

    let (status, headers, body) = get(addr, "/js/bundle.js", &ae("gzip, deflate, br")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(header(&headers, CONTENT_ENCODING), Some("br"));
    assert_eq!(decode_body(&headers, &body), first);
    assert!(vary_names(&headers).contains("accept-encoding"));
    let br_tag = header(&headers, ETAG).unwrap().to_owned();
    let (_, headers, body) = get(addr, "/js/bundle.js", &ae("gzip")).await;
    assert_eq!(header(&headers, CONTENT_ENCODING), Some("gzip"));
    assert_eq!(decode_body(&headers, &body), first);
    let gzip_tag = header(&headers, ETAG).unwrap().to_owned();
    let (_, headers, body) = get(addr, "/js/bundle.js", &[]).await;
    assert!(headers.get(CONTENT_ENCODING).is_none());
    assert_eq!(&body[..], &first[..]);
    assert!(
        vary_names(&headers).contains("accept-encoding"),
        "identity was chosen by Accept-Encoding too"
    );
    let identity_tag = header(&headers, ETAG).unwrap().to_owned();
    assert!(br_tag != gzip_tag && br_tag != identity_tag && gzip_tag != identity_tag);
    let (status, _, _) = get(
        addr,
        "/js/bundle.js",
        &[("accept-encoding", "br"), ("if-none-match", &br_tag)],
    )
    .await;
    assert_eq!(status, StatusCode::NOT_MODIFIED);
    assert_br_range(addr, "/js/bundle.js", &brotli(&first), 0..10).await;

    // The file replaced (same length, mtime put back), its siblings left as they were:
    // they are stale, so neither is sent; the new bytes go as they are.
    let second = script("other", 20_000);
    folder.overwrite_keeping_mtime("js/bundle.js", &second);
    for value in ["br", "gzip", "br, gzip"] {
        let (status, headers, body) = get(addr, "/js/bundle.js", &ae(value)).await;
        assert_eq!(status, StatusCode::OK);
        assert!(
            headers.get(CONTENT_ENCODING).is_none(),
            "{value}: a stale sibling was sent"
        );
        assert_eq!(&body[..], &second[..], "{value}");
    }
    // The br sibling brought up to date: br again; the gzip one still stale.
    folder.write("js/bundle.js.br", &brotli(&second));
    let (_, headers, body) = get(addr, "/js/bundle.js", &ae("br, gzip")).await;
    assert_eq!(header(&headers, CONTENT_ENCODING), Some("br"));
    assert_eq!(decode_body(&headers, &body), second);
    let (_, headers, body) = get(addr, "/js/bundle.js", &ae("gzip")).await;
    assert!(headers.get(CONTENT_ENCODING).is_none());
    assert_eq!(&body[..], &second[..]);

    // A sibling that decodes to more than the file (or is not of its coding at all).
    folder.write(
        "js/bundle.js.gz",
        &gzip(&[second.clone(), second.clone()].concat()),
    );
    let (_, headers, _) = get(addr, "/js/bundle.js", &ae("gzip")).await;
    assert!(headers.get(CONTENT_ENCODING).is_none());
    folder.write("js/bundle.js.gz", b"not gzip");
    let (_, headers, _) = get(addr, "/js/bundle.js", &ae("gzip")).await;
    assert!(headers.get(CONTENT_ENCODING).is_none());
}

/// Siblings of files larger than one chunk (streamed, never read whole): checked by
/// decoding them against the file as streams, and sent as for small files; a sibling
/// larger than a chunk itself is streamed too. A stale one is never sent.
#[tokio::test]
async fn siblings_of_files_over_a_chunk_are_checked_as_streams_and_sent() {
    let folder = Folder::site("large-siblings");
    // A bundle of 3 MiB (three chunks), with siblings far smaller than it.
    let bundle = script("large bundle", 3 << 20);
    folder.write("js/vendor.js", &bundle);
    folder.write("js/vendor.js.br", &brotli(&bundle));
    folder.write("js/vendor.js.gz", &gzip(&bundle));
    // Noise compresses to more than a chunk: its gzip sibling is streamed as well.
    let media = noise(2 << 20, 11);
    folder.write("media/noise.bin", &media);
    folder.write("media/noise.bin.gz", &gzip(&media));
    let addr = spawn_service(ServeAssets::folder(&folder.0)).await;
    let ae = |value| [("accept-encoding", value)];

    for round in ["first", "checked"] {
        let (status, headers, body) = get(addr, "/js/vendor.js", &ae("gzip, br")).await;
        assert_eq!(status, StatusCode::OK, "{round}");
        assert_eq!(header(&headers, CONTENT_ENCODING), Some("br"), "{round}");
        assert!(
            body.len() < bundle.len() / 4,
            "{round}: {} bytes",
            body.len()
        );
        assert!(decode_body(&headers, &body) == bundle, "{round}: br body");
        assert!(vary_names(&headers).contains("accept-encoding"), "{round}");
        let (_, headers, body) = get(addr, "/js/vendor.js", &ae("gzip")).await;
        assert_eq!(header(&headers, CONTENT_ENCODING), Some("gzip"), "{round}");
        assert!(decode_body(&headers, &body) == bundle, "{round}: gzip body");
        let (_, headers, body) = get(addr, "/js/vendor.js", &[]).await;
        assert!(headers.get(CONTENT_ENCODING).is_none(), "{round}");
        assert!(body[..] == bundle[..], "{round}: identity body");
        assert!(vary_names(&headers).contains("accept-encoding"), "{round}");
        let (status, headers, body) = get(addr, "/media/noise.bin", &ae("gzip")).await;
        assert_eq!(status, StatusCode::OK, "{round}");
        assert_eq!(header(&headers, CONTENT_ENCODING), Some("gzip"), "{round}");
        assert!(
            decode_body(&headers, &body) == media,
            "{round}: a streamed sibling"
        );
    }
    // A range of the br body is a range of the sibling's bytes.
    assert_br_range(addr, "/js/vendor.js", &brotli(&bundle), 10..20).await;

    // The file replaced (same length, mtime put back), its siblings left: both stale.
    let other = script("other bundle", 3 << 20);
    folder.overwrite_keeping_mtime("js/vendor.js", &other);
    for value in ["br", "gzip"] {
        let (status, headers, body) = get(addr, "/js/vendor.js", &ae(value)).await;
        assert_eq!(status, StatusCode::OK);
        assert!(
            headers.get(CONTENT_ENCODING).is_none(),
            "{value}: a stale sibling was sent"
        );
        assert!(body[..] == other[..], "{value}");
    }
    // One that decodes to the file and more is refused too.
    folder.write(
        "js/vendor.js.gz",
        &gzip(&[other.clone(), b"tail".to_vec()].concat()),
    );
    let (_, headers, _) = get(addr, "/js/vendor.js", &ae("gzip")).await;
    assert!(headers.get(CONTENT_ENCODING).is_none(), "a longer sibling");
    // Brought up to date: used again.
    folder.write("js/vendor.js.br", &brotli(&other));
    let (_, headers, body) = get(addr, "/js/vendor.js", &ae("br")).await;
    assert_eq!(header(&headers, CONTENT_ENCODING), Some("br"));
    assert!(decode_body(&headers, &body) == other);
}

/// HTTP Arena's probe: a file replaced with one of the same length, and `app.js`
/// replaced together with its siblings; the next response carries the new bytes,
/// whichever coding the request takes, while other clients keep asking.
#[tokio::test]
async fn the_next_request_after_a_replace_gets_the_new_bytes_under_load() {
    let folder = Folder::site("probe");
    let first = script("version 1", 30_000);
    folder.write("app.js", &first);
    folder.write("app.js.br", &brotli(&first));
    folder.write("app.js.gz", &gzip(&first));
    folder.write("data.json", &script("data 1", 5_000));
    let addr = spawn_service(ServeAssets::folder(&folder.0)).await;

    // Load: clients asking for both files all along, checking every body whole.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut load = Vec::new();
    for n in 0..4 {
        let stop = std::sync::Arc::clone(&stop);
        load.push(tokio::spawn(async move {
            let mut seen = 0;
            let values = ["br", "gzip", "identity", "br, gzip"];
            while !stop.load(std::sync::atomic::Ordering::Relaxed) && seen < 5_000 {
                let value = values[(n + seen) % values.len()];
                let (status, headers, body) =
                    get(addr, "/app.js", &[("accept-encoding", value)]).await;
                assert_eq!(status, StatusCode::OK);
                let decoded = decode_body(&headers, &body);
                let text = String::from_utf8(decoded).unwrap();
                assert!(
                    text.starts_with("/* version ") && text.len() == 30_000,
                    "a body of mixed or wrong bytes ({value})"
                );
                seen += 1;
            }
        }));
    }
    for round in 2..6 {
        tokio::time::sleep(Duration::from_millis(30)).await;
        let mtime = fs::metadata(folder.path("app.js"))
            .unwrap()
            .modified()
            .unwrap();
        let next = script(&format!("version {round}"), 30_000);
        // Siblings first, then the file: each in place, same length, mtime put back.
        folder.write("app.js.br", &brotli(&next));
        folder.write("app.js.gz", &gzip(&next));
        folder.write("app.js", &next);
        put_mtime_back(&folder.path("app.js"), mtime);
        let data = script(&format!("data {round}"), 5_000);
        folder.write("data.json", &data);
        for value in ["br", "gzip", "identity"] {
            let (_, headers, body) = get(addr, "/app.js", &[("accept-encoding", value)]).await;
            assert_eq!(decode_body(&headers, &body), next, "round {round}, {value}");
        }
        let (_, _, body) = get(addr, "/data.json", &[]).await;
        assert_eq!(&body[..], &data[..], "round {round}");
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    for task in load {
        task.await.unwrap();
    }
}

/// Files a second old or more: their responses come from the fields built once per
/// version (a whole 200, a 304), the same as the fields built per request.
#[tokio::test]
async fn settled_files_answer_the_same_from_their_kept_fields() {
    let folder = Folder::site("settled");
    let text = script("settled", 12_000);
    folder.write("js/app.js", &text);
    folder.write("js/app.js.br", &brotli(&text));
    std::thread::sleep(Duration::from_millis(1_100));
    let addr = spawn_service(ServeAssets::folder(&folder.0)).await;
    for value in ["br", "identity"] {
        let ae = [("accept-encoding", value)];
        // The first reads and keeps; the next come from what was kept.
        let (_, first, first_body) = get(addr, "/js/app.js", &ae).await;
        for _ in 0..3 {
            let (status, headers, body) = get(addr, "/js/app.js", &ae).await;
            assert_eq!(status, StatusCode::OK);
            assert_eq!(body, first_body, "{value}");
            for name in [
                ETAG,
                http::header::LAST_MODIFIED,
                CONTENT_TYPE,
                CONTENT_LENGTH,
                VARY,
            ] {
                assert_eq!(headers.get(&name), first.get(&name), "{value}: {name}");
                assert!(headers.get(&name).is_some(), "{value}: {name}");
            }
            assert_eq!(headers.get(CONTENT_ENCODING), first.get(CONTENT_ENCODING));
            assert_eq!(decode_body(&headers, &body), text);
        }
        let etag = header(&first, ETAG).unwrap().to_owned();
        let (status, headers, body) = get(
            addr,
            "/js/app.js",
            &[("accept-encoding", value), ("if-none-match", &etag)],
        )
        .await;
        assert_eq!(status, StatusCode::NOT_MODIFIED, "{value}");
        assert!(body.is_empty());
        assert_eq!(header(&headers, ETAG), Some(etag.as_str()));
        assert!(headers.get(CONTENT_LENGTH).is_none_or(|v| v == "0"));
        let (status, headers, body) = head(addr, "/js/app.js", &ae).await;
        assert_eq!(status, StatusCode::OK);
        assert!(body.is_empty());
        assert_eq!(headers.get(CONTENT_LENGTH), first.get(CONTENT_LENGTH));
        let (status, _, body) = get(
            addr,
            "/js/app.js",
            &[("accept-encoding", value), ("range", "bytes=0-4")],
        )
        .await;
        assert_eq!(status, StatusCode::PARTIAL_CONTENT);
        assert_eq!(&body[..], &first_body[..5]);
    }
    // The sibling asked for by its own name is a file like any other: no coding, and
    // not the fields it is sent with in its file's place.
    for _ in 0..2 {
        let (status, headers, body) =
            get(addr, "/js/app.js.br", &[("accept-encoding", "br")]).await;
        assert_eq!(status, StatusCode::OK);
        assert!(headers.get(CONTENT_ENCODING).is_none());
        assert_ne!(
            header(&headers, CONTENT_TYPE),
            Some("text/javascript; charset=utf-8")
        );
        assert_eq!(&body[..], &brotli(&text)[..]);
    }
}

/// A deploy that writes a file before its sibling (rsync's order: `app.js`, then
/// `app.js.br`): the sibling is used once it is there, at most a second later.
#[tokio::test]
async fn a_sibling_written_after_its_file_is_used_once_there() {
    let folder = Folder::site("late-sibling");
    let text = script("late", 8_000);
    folder.write("js/late.js", &text);
    let addr = spawn_service(ServeAssets::folder(&folder.0)).await;
    let br = [("accept-encoding", "br")];
    for _ in 0..2 {
        let (_, headers, body) = get(addr, "/js/late.js", &br).await;
        assert!(headers.get(CONTENT_ENCODING).is_none());
        assert_eq!(&body[..], &text[..]);
    }
    folder.write("js/late.js.br", &brotli(&text));
    let mut coded = false;
    for _ in 0..30 {
        let (_, headers, body) = get(addr, "/js/late.js", &br).await;
        assert_eq!(decode_body(&headers, &body), text);
        if header(&headers, CONTENT_ENCODING) == Some("br") {
            coded = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(coded, "the sibling was not used within 3 s");
}

/// RFC 8615: `/.well-known/` (`security.txt`, ACME's HTTP challenge, `assetlinks.json`)
/// is served from a folder by default; every other name starting with `.` is not,
/// nor a `.well-known` below the root; `well_known(false)` refuses it too.
#[tokio::test]
async fn well_known_uris_are_served_and_no_other_dot_name() {
    let folder = Folder::site("well-known");
    let contact = b"Contact: mailto:security@example.com\n";
    folder.write(".well-known/security.txt", contact);
    folder.write(".well-known/acme-challenge/token-1", b"token-1.thumbprint");
    folder.write(".well-known/.htpasswd", b"admin:secret\n");
    folder.write("docs/.well-known/security.txt", contact);
    folder.write(".hidden/file.txt", b"hidden\n");
    let addr = spawn_service(ServeAssets::folder(&folder.0)).await;
    assert_ok(addr, "/.well-known/security.txt", contact).await;
    assert_ok(
        addr,
        "/.well-known/acme-challenge/token-1",
        b"token-1.thumbprint",
    )
    .await;
    assert_ok(addr, "/.well-known/%73ecurity.txt", contact).await;
    for path in [
        "/.well-known/.htpasswd",
        "/docs/.well-known/security.txt",
        "/.hidden/file.txt",
        "/.env",
        "/conf/.git/config",
        "/.well-known",
        "/.well-known/",
    ] {
        let (status, _, body) = get(addr, path, &[]).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
        assert!(
            !body.starts_with(b"admin") && !body.starts_with(b"hidden"),
            "{path}"
        );
    }
    let addr = spawn_service(ServeAssets::folder(&folder.0).well_known(false)).await;
    for path in [
        "/.well-known/security.txt",
        "/.well-known/acme-challenge/token-1",
    ] {
        let (status, _, _) = get(addr, path, &[]).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "well_known(false): {path}");
    }
    assert_ok(addr, "/css/app.css", b"body { color: teal }\n").await;
}

/// RFC 9110 §8.8.2.2: a 304 by date is right only while the date moves with the
/// bytes. An answer from a sibling states its file's date when that is later than
/// the sibling's own, so a file rolled back beside a sibling left from before is
/// never a 304 by date for the bytes a client took since.
#[tokio::test]
async fn a_siblings_answer_is_never_dated_before_its_file() {
    let folder = Folder::site("sibling-date");
    let old = script("release one", 8_000);
    let new = script("release two", 8_000);
    // Release one's sibling, then release two's file beside it: the sibling is stale.
    folder.write("js/app.js.br", &brotli(&old));
    tokio::time::sleep(Duration::from_millis(1100)).await;
    folder.write("js/app.js", &new);
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let addr = spawn_service(ServeAssets::folder(&folder.0)).await;
    let br = ("accept-encoding", "br");
    let (status, headers, body) = get(addr, "/js/app.js", &[br]).await;
    assert_eq!((status, &body[..]), (StatusCode::OK, &new[..]));
    assert!(headers.get(CONTENT_ENCODING).is_none(), "a stale sibling");
    let seen = header(&headers, LAST_MODIFIED).expect("a date").to_owned();
    // Rolled back: release one's file again, which its sibling matches.
    folder.write("js/app.js", &old);
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let date = |headers: &http::HeaderMap| {
        httpdate::parse_http_date(header(headers, LAST_MODIFIED).expect("a date")).unwrap()
    };
    // Read first, then from what the folder's cache keeps.
    for round in ["read", "kept"] {
        let (status, headers, body) =
            get(addr, "/js/app.js", &[br, ("if-modified-since", &seen)]).await;
        assert_eq!(
            status,
            StatusCode::OK,
            "{round}: a 304 by the sibling's date, for other bytes"
        );
        assert_eq!(header(&headers, CONTENT_ENCODING), Some("br"), "{round}");
        assert_eq!(decode_body(&headers, &body), old, "{round}");
        let (_, file_headers, _) = get(addr, "/js/app.js", &[]).await;
        assert!(
            date(&headers) >= date(&file_headers),
            "{round}: the sibling's answer is dated before its file"
        );
    }
}

/// In front of an application, a path through a symbolic link (not followed) is a
/// miss exactly as a missing path is: both reach the application, so nobody outside
/// can tell which names in the folder are links.
#[cfg(unix)]
#[tokio::test]
async fn a_link_is_a_miss_like_a_missing_file_in_front_of_an_application() {
    let folder = Folder::site("link-miss");
    std::os::unix::fs::symlink(folder.path("css/app.css"), folder.path("linked.css")).unwrap();
    std::os::unix::fs::symlink(folder.path("css"), folder.path("styles")).unwrap();
    std::os::unix::fs::symlink(folder.path("about"), folder.path("team")).unwrap();
    let app =
        axum::Router::new().fallback(|| async { (StatusCode::IM_A_TEAPOT, "the application") });
    let front = ServeAssets::folder(&folder.0).with_fallback(app);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, front.into_make_service())
            .await
            .unwrap()
    });
    let missing = get(addr, "/missing.css", &[]).await;
    assert_eq!(missing.0, StatusCode::IM_A_TEAPOT);
    for path in [
        "/linked.css",
        "/styles/app.css",
        "/team/",
        "/team/index.html",
        "/team",
    ] {
        let (status, headers, body) = get(addr, path, &[]).await;
        assert_eq!(
            (status, header(&headers, CONTENT_TYPE), &body[..]),
            (missing.0, header(&missing.1, CONTENT_TYPE), &missing.2[..]),
            "{path} answered otherwise than a missing file"
        );
    }
    assert_ok(addr, "/css/app.css", b"body { color: teal }\n").await;
}

/// A bare `Router` behind the service, as the README's `serve` set-up has it: a path
/// none of its routes has (axum answers it with an empty 404) gets the service's own
/// answer, 405 with `Allow` on a file of the folder and its 404 (or 404 page)
/// elsewhere, one answer for a link and a missing file alike; what the application
/// answers itself (a route, a 404 with a body of its own) stands.
#[cfg(unix)]
#[tokio::test]
async fn misses_no_route_claims_get_the_services_own_404_and_405() {
    use axum::routing::{get as route_get, post as route_post};
    let folder = Folder::site("unclaimed");
    folder.write("404.html", b"<!doctype html><title>lost</title>");
    std::os::unix::fs::symlink(folder.path("css/app.css"), folder.path("linked.css")).unwrap();
    let app = || {
        axum::Router::new()
            .route("/api/health", route_get(|| async { "ok" }))
            .route(
                "/api/gone",
                route_get(|| async { (StatusCode::NOT_FOUND, "no such user") }),
            )
            .route(
                "/js/app.js",
                route_post(|| async { "posted to the application" }),
            )
    };
    let served = |service: ServeAssets| {
        let server = embed_assets::Server::bind("127.0.0.1:0")
            .unwrap()
            .workers(1)
            .shutdown_on_signals(false);
        let (addr, stop) = (server.local_addr(), server.shutdown_handle());
        let app = app();
        let thread = std::thread::spawn(move || server.serve(service, app).unwrap());
        (addr, stop, thread)
    };
    // Under `serve`, then under `axum::serve` with `with_fallback`: the same answers.
    let (serve_addr, stop, thread) = served(ServeAssets::folder(&folder.0));
    let front = ServeAssets::folder(&folder.0).with_fallback(app());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let axum_addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, front.into_make_service())
            .await
            .unwrap()
    });
    for addr in [serve_addr, axum_addr] {
        let (status, headers, _) = send(addr, Method::POST, "/index.html", &[]).await;
        assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED, "POST /index.html");
        assert_eq!(header(&headers, ALLOW), Some("GET, HEAD"));
        let (status, headers, body) = send(addr, Method::DELETE, "/css/app.css", &[]).await;
        assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED, "{body:?}");
        assert_eq!(header(&headers, ALLOW), Some("GET, HEAD"));
        let missing = get(addr, "/missing.css", &[]).await;
        assert_eq!(missing.0, StatusCode::NOT_FOUND);
        assert_eq!(&missing.2[..], b"404 Not Found\n", "the service's own 404");
        let linked = get(addr, "/linked.css", &[]).await;
        assert_eq!(
            (linked.0, &linked.2[..]),
            (missing.0, &missing.2[..]),
            "a link answered otherwise than a missing file"
        );
        let (status, _, body) = send(addr, Method::POST, "/missing.css", &[]).await;
        assert_eq!(
            (status, &body[..]),
            (StatusCode::NOT_FOUND, &b"404 Not Found\n"[..])
        );
        // The application's own answers stand.
        assert_ok(addr, "/api/health", b"ok").await;
        let (status, _, body) = get(addr, "/api/gone", &[]).await;
        assert_eq!(
            (status, &body[..]),
            (StatusCode::NOT_FOUND, &b"no such user"[..])
        );
        let (status, _, body) = send(addr, Method::POST, "/js/app.js", &[]).await;
        assert_eq!(
            (status, &body[..]),
            (StatusCode::OK, &b"posted to the application"[..])
        );
        assert_ok(addr, "/css/app.css", b"body { color: teal }\n").await;
    }
    stop.shutdown();
    thread.join().unwrap();
    // With a 404 page, the page.
    let (addr, stop, thread) = served(ServeAssets::folder(&folder.0).not_found_page("/404.html"));
    let (status, _, body) = get(addr, "/missing.css", &[]).await;
    assert_eq!(
        (status, &body[..]),
        (
            StatusCode::NOT_FOUND,
            &b"<!doctype html><title>lost</title>"[..]
        )
    );
    stop.shutdown();
    thread.join().unwrap();
}

/// Symbolic links: refused by default, followed when the folder's policy says so.
#[cfg(unix)]
#[tokio::test]
async fn links_are_followed_only_when_the_policy_says_so() {
    let parent = Folder::new("links");
    parent.write("shared/lib.js", b"export const shared = 1;\n");
    let folder = Folder(parent.path("site"));
    folder.write("index.html", b"home");
    std::os::unix::fs::symlink(parent.path("shared/lib.js"), folder.path("lib.js")).unwrap();
    std::os::unix::fs::symlink(parent.path("shared"), folder.path("vendor")).unwrap();
    let refused = spawn_service(ServeAssets::folder(&folder.0)).await;
    let followed = spawn_service(ServeAssets::folder(&folder.0).follow_symlinks(true)).await;
    for path in ["/lib.js", "/vendor/lib.js"] {
        for _ in 0..2 {
            let (status, _, _) = get(refused, path, &[]).await;
            assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
            let (status, _, body) = get(followed, path, &[]).await;
            assert_eq!(status, StatusCode::OK, "{path}");
            assert_eq!(&body[..], b"export const shared = 1;\n");
        }
    }
}

#[test]
#[should_panic(expected = "is for a service made by ServeAssets::folder")]
fn the_link_policy_is_refused_on_an_embedded_table() {
    let _ = SITE.service().follow_symlinks(true);
}

/// In front of an application (`with_fallback`, under `axum::serve` as the README sets
/// it up): the folder's files, their directories' redirects and their 405s are the
/// folder's; every other path is the application's, the single-page app's page too.
#[tokio::test]
async fn in_front_of_an_application_only_the_folders_files_are_answered() {
    use axum::routing::get as route_get;
    let folder = Folder::site("front");
    let app = axum::Router::new()
        .route("/api/health", route_get(|| async { "ok" }))
        .fallback(|| async { (StatusCode::IM_A_TEAPOT, "the application") });
    let front = ServeAssets::folder(&folder.0)
        .spa_fallback("/index.html")
        .with_fallback(app);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, front.into_make_service())
            .await
            .unwrap()
    });

    assert_ok(addr, "/css/app.css", b"body { color: teal }\n").await;
    assert_ok(addr, "/", b"<!doctype html><title>home</title>").await;
    let (status, headers, _) = get(addr, "/about", &[]).await;
    assert_eq!(status, StatusCode::MOVED_PERMANENTLY);
    assert_eq!(header(&headers, LOCATION), Some("./about/"));
    assert_ok(addr, "/api/health", b"ok").await;
    for (path, accept) in [
        ("/nothing.js", "*/*"),
        ("/settings", "text/html"),
        ("/empty", "*/*"),
    ] {
        let (status, _, body) = get(addr, path, &[("accept", accept)]).await;
        assert_eq!(status, StatusCode::IM_A_TEAPOT, "{path}");
        assert_eq!(&body[..], b"the application");
    }
    // Another method on a file of the folder: the application's too, as for any
    // hit-only front.
    let (status, _, _) = send(addr, Method::POST, "/css/app.css", &[]).await;
    assert_eq!(status, StatusCode::IM_A_TEAPOT);
}

/// Mounted under a prefix, the mount point is the folder's root: redirected to its
/// slash (as a table's is), so the index page's relative links resolve below it.
#[tokio::test]
async fn mounted_the_mount_point_redirects_to_its_slash() {
    let folder = Folder::site("mounted");
    let addr = spawn_mounted(ServeAssets::folder(&folder.0), "/static").await;
    let (status, headers, _) = get(addr, "/static", &[]).await;
    assert_eq!(status, StatusCode::MOVED_PERMANENTLY);
    assert_eq!(header(&headers, LOCATION), Some("./static/"));
    assert_ok(addr, "/static/", b"<!doctype html><title>home</title>").await;
    assert_ok(addr, "/static/css/app.css", b"body { color: teal }\n").await;
    let (status, headers, _) = get(addr, "/static/about", &[]).await;
    assert_eq!(status, StatusCode::MOVED_PERMANENTLY);
    assert_eq!(header(&headers, LOCATION), Some("./about/"));
}
