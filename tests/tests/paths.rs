//! Request targets over real HTTP: percent-decoding, queries, and everything that
//! must stay a 404 — traversal in any encoding, backslashes, NUL, overlong UTF-8,
//! dotfiles — plus redirects that must never point at another host. Odd targets go
//! over a raw connection (TCP, or TLS with `EMBED_TEST_TLS=1`) so no client library
//! normalises them first.

use std::net::SocketAddr;

use http::StatusCode;
use http::header::LOCATION;
use integration_tests::{
    Reply, SITE, assert_no_secret, fixture, frameworks, get, header, public_fixture_paths, raw_get,
    raw_request, resolve_location, spawn_site, tls,
};

/// A target that must not be served: the service answers 404. A target that is not
/// in origin-form (no leading `/`) may be refused by the HTTP server with 400 before
/// the service sees it. Never a redirect, never a secret's bytes.
fn assert_refused(target: &str, reply: &Reply) {
    let (status, headers, body) = reply;
    if target.starts_with('/') {
        assert_eq!(*status, StatusCode::NOT_FOUND, "GET {target}");
    } else {
        assert!(
            *status == StatusCode::NOT_FOUND || *status == StatusCode::BAD_REQUEST,
            "GET {target}: {status}"
        );
    }
    assert_eq!(header(headers, LOCATION), None, "GET {target} redirects");
    assert_no_secret(target, body);
}

async fn assert_serves(addr: SocketAddr, target: &str, file: &str) {
    let (status, _, body) = raw_get(addr, target).await;
    assert_eq!(status, StatusCode::OK, "GET {target}");
    assert!(body[..] == fixture(file)[..], "GET {target} is not {file}");
}

#[tokio::test]
async fn percent_encoded_paths_are_decoded_in_either_hex_case() {
    let addr = spawn_site().await;
    for (target, file) in [
        ("/caf%C3%A9.txt", "/café.txt"),
        ("/caf%c3%a9.txt", "/café.txt"),
        ("/with%20space.txt", "/with space.txt"),
        ("/%63ss/app.css", "/css/app.css"),
        ("/css%2Fapp.css", "/css/app.css"),
        ("/nested/deep/file%2etxt", "/nested/deep/file.txt"),
        ("/%74iny.txt", "/tiny.txt"),
    ] {
        assert_serves(addr, target, file).await;
    }
    // Through a real client too.
    let (status, _, body) = get(addr, "/caf%C3%A9.txt", &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(&body[..], b"FIXTURE-UNICODE-NAME");
}

#[tokio::test]
async fn the_query_string_does_not_change_the_asset() {
    let addr = spawn_site().await;
    for (target, file) in [
        ("/tiny.txt?v=123", "/tiny.txt"),
        ("/tiny.txt?", "/tiny.txt"),
        ("/tiny.txt?../../outside/secret.txt", "/tiny.txt"),
        ("/with%20space.txt?q=a%20b", "/with space.txt"),
        ("/css/app.css?v=1&x=%2e%2e", "/css/app.css"),
    ] {
        assert_serves(addr, target, file).await;
    }
}

#[tokio::test]
async fn encoded_question_marks_and_hashes_belong_to_the_path() {
    let addr = spawn_site().await;
    // `%3F` and `%23` are data in a path segment, not the start of a query or fragment.
    for target in [
        "/tiny.txt%3Fv=1",
        "/tiny.txt%3F",
        "/tiny.txt%23top",
        "/docs%3Fx",
    ] {
        assert_refused(target, &raw_get(addr, target).await);
    }
}

#[tokio::test]
async fn dot_dot_traversal_is_404_in_every_encoding() {
    let addr = spawn_site().await;
    for target in [
        "/../outside/secret.txt",
        "/../../outside/secret.txt",
        "/css/../../outside/secret.txt",
        "/css/../tiny.txt",
        "/./../outside/secret.txt",
        "//../outside/secret.txt",
        "/..",
        "/%2e%2e/outside/secret.txt",
        "/%2E%2E/outside/secret.txt",
        "/.%2e/outside/secret.txt",
        "/%2e./outside/secret.txt",
        "/..%2foutside%2fsecret.txt",
        "/%2e%2e%2foutside%2fsecret.txt",
        "/css/%2e%2e/%2e%2e/outside/secret.txt",
        "/%2e/%2e%2e/outside/secret.txt",
    ] {
        assert_refused(target, &raw_get(addr, target).await);
    }
}

/// Empty and `.` segments, spelt out or escaped, under `path`: each names `file`, as
/// nginx merges them (`merge_slashes`, and RFC 3986's dot segments).
const MERGED: [(&str, &str); 9] = [
    ("//tiny.txt", "/tiny.txt"),
    ("/css//app.css", "/css/app.css"),
    ("///css///app.css", "/css/app.css"),
    ("/./tiny.txt", "/tiny.txt"),
    ("/css/./app.css", "/css/app.css"),
    ("/%2e/tiny.txt", "/tiny.txt"),
    ("/css%2f%2fapp.css", "/css/app.css"),
    ("/./nested//deep/./file.txt", "/nested/deep/file.txt"),
    ("//docs//", "/docs/index.html"),
];

#[tokio::test]
async fn empty_and_dot_segments_are_merged_as_nginx_merges_them() {
    let addr = spawn_site().await;
    for (target, file) in MERGED {
        assert_serves(addr, target, file).await;
    }
    // Under `serve`, whose own parser answers hits, the same (inside TLS in a TLS run,
    // where the clients speak nothing else).
    let mut server = embed_assets::Server::bind("127.0.0.1:0")
        .unwrap()
        .workers(1)
        .shutdown_on_signals(false);
    if frameworks::uses_tls() {
        server = server.tls(tls::harness_tls());
    }
    let (addr, stop) = (server.local_addr(), server.shutdown_handle());
    let thread = std::thread::spawn(move || server.serve(SITE.service(), axum::Router::new()));
    for (target, file) in MERGED {
        assert_serves(addr, target, file).await;
    }
    stop.shutdown();
    thread.join().unwrap().unwrap();
}

#[tokio::test]
async fn double_encoded_dots_are_decoded_only_once() {
    let addr = spawn_site().await;
    for target in [
        "/%252e%252e/outside/secret.txt",
        "/%252e%252e%252foutside%252fsecret.txt",
        "/%25252e%25252e/outside/secret.txt",
        "/%252e%252e/tiny.txt",
        // Decoded twice, these would name real files.
        "/%2574iny.txt",
        "/css%252Fapp.css",
        "/with%2520space.txt",
    ] {
        assert_refused(target, &raw_get(addr, target).await);
    }
}

#[tokio::test]
async fn backslashes_are_not_path_separators() {
    let addr = spawn_site().await;
    for target in [
        "/..\\outside\\secret.txt",
        "/css\\app.css",
        "\\tiny.txt",
        "/%5c..%5coutside%5csecret.txt",
        "/%5C..%5Coutside%5Csecret.txt",
        "/css%5capp.css",
        "/..%5coutside/secret.txt",
    ] {
        assert_refused(target, &raw_get(addr, target).await);
    }
}

#[tokio::test]
async fn nul_and_control_characters_are_404() {
    let addr = spawn_site().await;
    for target in [
        "/tiny.txt%00",
        "/tiny.txt%00.png",
        "/%00",
        "/%00/../outside/secret.txt",
        "/tiny%0a.txt",
        "/tiny.txt%0d%0aX-Injected:%201",
        "/css/app.css%7f",
    ] {
        let reply = raw_get(addr, target).await;
        assert_refused(target, &reply);
        assert!(
            !reply.1.contains_key("x-injected"),
            "GET {target}: a decoded CRLF reached the response head"
        );
    }
}

#[tokio::test]
async fn overlong_and_invalid_utf8_is_404() {
    let addr = spawn_site().await;
    for target in [
        "/%c0%ae%c0%ae/outside/secret.txt",
        "/%c0%ae%c0%ae%c0%afoutside%c0%afsecret.txt",
        "/%e0%80%ae%e0%80%ae/outside/secret.txt",
        "/caf%e9.txt",
        "/%ff",
        "/tiny.txt%c0",
    ] {
        assert_refused(target, &raw_get(addr, target).await);
    }
}

#[tokio::test]
async fn dotfiles_and_hidden_folders_are_404() {
    let addr = spawn_site().await;
    for target in [
        "/.env",
        "/%2eenv",
        "/%2Eenv",
        "/.env?x=1",
        "/.hidden/secret.txt",
        "/%2ehidden/secret.txt",
        "/.hidden/",
        "/.hidden",
        "/css/../.env",
        "/nested/../.hidden/secret.txt",
    ] {
        assert_refused(target, &raw_get(addr, target).await);
    }
}

#[test]
fn only_files_outside_dot_folders_are_embedded() {
    let embedded: Vec<&str> = SITE.iter().map(|asset| asset.path()).collect();
    let on_disk = public_fixture_paths();
    assert_eq!(
        embedded, on_disk,
        "embedded paths vs. non-dot fixture files"
    );
    for path in ["/.env", "/.hidden/secret.txt"] {
        assert!(SITE.get(path).is_none(), "{path} is embedded");
    }
}

#[tokio::test]
async fn no_response_ever_holds_a_secret() {
    let addr = spawn_site().await;
    // Pipelined and odd request shapes: whatever the server makes of them, the bytes
    // of files outside the embedded set never come back.
    for request in [
        "GET /../outside/secret.txt HTTP/1.0\r\n\r\n".to_owned(),
        format!(
            "GET http://{addr}/../outside/secret.txt HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
        ),
        format!(
            "GET /.env HTTP/1.1\r\nHost: {addr}\r\n\r\nGET /.hidden/secret.txt HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
        ),
        format!("GET ../outside/secret.txt HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"),
        format!("GET * HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"),
    ] {
        let (status, _, body) = raw_request(addr, request.as_bytes()).await;
        assert_ne!(status, StatusCode::OK, "{request:?}");
        assert_no_secret(&request, &body);
    }
}

#[tokio::test]
async fn the_absolute_form_of_a_target_is_served_like_the_origin_form() {
    let addr = spawn_site().await;
    // RFC 9112 §3.2.2: a server MUST accept the absolute-form in requests.
    let request = format!(
        "GET http://{addr}/tiny.txt?x=1 HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    );
    let (status, _, body) = raw_request(addr, request.as_bytes()).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(&body[..], b"hi\n");
}

#[tokio::test]
async fn redirects_never_point_at_another_host() {
    let addr = spawn_site().await;
    let authority = addr.to_string();
    let mut redirects = 0;
    for target in [
        "/docs",
        "/docs?next=//evil.com",
        "/docs?next=http://evil.com/",
        "//evil.com",
        "//evil.com/",
        "//evil.com/docs",
        "///evil.com/docs",
        "//docs",
        "/docs//",
        "//docs/",
        "/%2F%2Fevil.com",
        "/%2f%2fevil.com/docs",
        "/\\evil.com",
        "/%5Cevil.com",
        "/%5C%5Cevil.com/docs",
        "/%09/evil.com",
        "/docs/..//evil.com",
        "/evil.com%2F..%2Fdocs",
        "/docs%2F",
        "/%64ocs",
    ] {
        let (status, headers, body) = raw_get(addr, target).await;
        assert_no_secret(target, &body);
        let Some(location) = header(&headers, LOCATION) else {
            assert!(
                !status.is_redirection(),
                "GET {target}: {status} without Location"
            );
            continue;
        };
        redirects += 1;
        // Checked as a browser would read it: `\` as `/`, scheme-relative `//host`.
        assert!(
            resolve_location(target, location, &authority).is_some(),
            "GET {target}: Location {location:?} leaves {authority}"
        );
        assert!(
            !location.starts_with("//") && !location.starts_with("/\\"),
            "GET {target}: Location {location:?} is scheme-relative"
        );
    }
    // The bare directory, its query variants and its encoded spelling redirect.
    assert!(
        redirects >= 4,
        "only {redirects} redirects: the check never ran"
    );
}
