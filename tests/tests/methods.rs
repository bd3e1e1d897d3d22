//! Methods, status codes, representation metadata and the service's options, over real
//! HTTP: 200 with exact bytes and types, HEAD, 405 with `Allow`, 404, index files and
//! directory redirects, the 404 page, `Cache-Control` rules, mounting under a prefix,
//! and `ServeAssets::respond` without axum.

use http::header::{
    ACCEPT_ENCODING, ALLOW, CACHE_CONTROL, CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_TYPE, DATE,
    ETAG, HOST, IF_NONE_MATCH, LAST_MODIFIED, LOCATION, VARY,
};
use http::{HeaderMap, HeaderValue, Method, Request, StatusCode};
use http_body_util::BodyExt;
use integration_tests::frameworks::{self, Framework};
use integration_tests::{
    decode_body, encode_path, fixture, get, head, header, public_fixture_paths, raw_request,
    resolve_location, send, site_service, spawn_hyper, spawn_mounted, spawn_service, spawn_site,
};

/// `Content-Type` compared the way RFC 9110 §8.3.1 allows: type, subtype and parameter
/// names are case-insensitive, whitespace around `;` is optional.
fn media_type(value: &str) -> String {
    value
        .split(';')
        .map(|part| part.trim().to_ascii_lowercase())
        .collect::<Vec<_>>()
        .join(";")
}

fn content_type(headers: &HeaderMap) -> String {
    media_type(header(headers, CONTENT_TYPE).expect("Content-Type"))
}

#[tokio::test]
async fn every_fixture_is_served_byte_exact_with_its_length() {
    let addr = spawn_site().await;
    let paths = public_fixture_paths();
    assert!(paths.len() >= 20, "fixture walk found only {paths:?}");
    for path in paths {
        let url = encode_path(&path);
        let (status, headers, body) = get(addr, &url, &[]).await;
        assert_eq!(status, StatusCode::OK, "GET {url}");
        assert_eq!(
            header(&headers, CONTENT_ENCODING),
            None,
            "GET {url} without Accept-Encoding must not be encoded"
        );
        assert!(
            body[..] == fixture(&path)[..],
            "GET {url}: body differs from the file"
        );
        assert_eq!(
            header(&headers, CONTENT_LENGTH),
            Some(body.len().to_string().as_str()),
            "GET {url}: Content-Length"
        );
    }
}

#[tokio::test]
async fn content_types_name_the_media_type_with_a_charset_for_utf8_text() {
    let addr = spawn_site().await;
    for (path, expected) in [
        ("/index.html", "text/html;charset=utf-8"),
        ("/docs/guide.html", "text/html;charset=utf-8"),
        ("/css/app.css", "text/css;charset=utf-8"),
        // RFC 9239: JavaScript is text/javascript; modules need a JavaScript type.
        ("/js/app.js", "text/javascript;charset=utf-8"),
        ("/js/module.mjs", "text/javascript;charset=utf-8"),
        ("/tiny.txt", "text/plain;charset=utf-8"),
        ("/nested/deep/file.txt", "text/plain;charset=utf-8"),
        ("/image.png", "image/png"),
    ] {
        let (status, headers, _) = get(addr, path, &[]).await;
        assert_eq!(status, StatusCode::OK, "GET {path}");
        assert_eq!(content_type(&headers), expected, "Content-Type of {path}");
    }
    // Types whose charset parameter is not defined or optional: the essence must match.
    for (path, essence) in [
        ("/data.json", "application/json"),
        ("/site.webmanifest", "application/manifest+json"),
        ("/logo.svg", "image/svg+xml"),
    ] {
        let (_, headers, _) = get(addr, path, &[]).await;
        let media = content_type(&headers);
        assert_eq!(
            media.split(';').next(),
            Some(essence),
            "Content-Type of {path}"
        );
    }
    let (_, headers, _) = get(addr, "/favicon.ico", &[]).await;
    let media = content_type(&headers);
    assert!(
        media == "image/x-icon" || media == "image/vnd.microsoft.icon",
        "Content-Type of /favicon.ico: {media}"
    );
}

#[tokio::test]
async fn latin1_text_is_not_labelled_utf8() {
    let addr = spawn_site().await;
    let (status, headers, body) = get(addr, "/latin1.txt", &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        std::str::from_utf8(&body).is_err(),
        "fixture must not be UTF-8"
    );
    let media = content_type(&headers);
    assert!(
        !media.contains("charset=utf-8"),
        "bytes that are not UTF-8 labelled as UTF-8: {media}"
    );
}

#[tokio::test]
async fn wasm_is_served_as_application_wasm_without_parameters() {
    let addr = spawn_site().await;
    let (status, headers, body) = get(addr, "/app.wasm", &[]).await;
    assert_eq!(status, StatusCode::OK);
    // WebAssembly.instantiateStreaming rejects anything but exactly this.
    assert_eq!(header(&headers, CONTENT_TYPE), Some("application/wasm"));
    assert!(body.starts_with(b"\0asm"));
}

#[tokio::test]
async fn extensionless_license_is_application_octet_stream() {
    let addr = spawn_site().await;
    let (status, headers, body) = get(addr, "/LICENSE", &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(content_type(&headers), "application/octet-stream");
    assert!(body[..] == fixture("/LICENSE")[..]);
}

#[tokio::test]
async fn head_gets_the_same_headers_as_get_and_no_body() {
    let addr = spawn_site().await;
    for path in [
        "/css/app.css",
        "/image.png",
        "/empty.txt",
        "/tiny.txt",
        "/",
        "/docs/",
        "/docs",
        "/no-such-file",
    ] {
        for accept in [None, Some("gzip"), Some("br, gzip")] {
            let fields: Vec<(&str, &str)> =
                accept.map(|a| ("accept-encoding", a)).into_iter().collect();
            let (get_status, mut get_headers, _) = get(addr, path, &fields).await;
            let (head_status, mut head_headers, head_body) = head(addr, path, &fields).await;
            get_headers.remove(DATE);
            head_headers.remove(DATE);
            let what = format!("{path} with Accept-Encoding {accept:?}");
            // RFC 9110 §9.3.2 lets HEAD omit fields computed while generating content:
            // hyper counts the empty body of a redirect for GET only. An asset's
            // Content-Length is known up front and must be there (checked below).
            if get_status.is_redirection() && !head_headers.contains_key(CONTENT_LENGTH) {
                get_headers.remove(CONTENT_LENGTH);
            }
            if get_status == StatusCode::OK {
                assert!(head_headers.contains_key(CONTENT_LENGTH), "HEAD {what}");
            }
            assert_eq!(head_status, get_status, "status of HEAD {what}");
            assert_eq!(head_headers, get_headers, "headers of HEAD {what}");
            assert!(head_body.is_empty(), "HEAD {what} has a body");
        }
    }
}

#[tokio::test]
async fn other_methods_on_an_asset_get_405_with_allow_get_head() {
    let addr = spawn_site().await;
    for (path, file) in [
        ("/tiny.txt", "/tiny.txt"),
        ("/css/app.css", "/css/app.css"),
        ("/", "/index.html"),
        ("/docs/", "/docs/index.html"),
    ] {
        for method in [Method::POST, Method::PUT, Method::DELETE, Method::PATCH] {
            let (status, headers, body) = send(addr, method.clone(), path, &[]).await;
            assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED, "{method} {path}");
            // RFC 9110 §15.5.6: the origin server MUST send Allow listing the methods.
            let allow =
                header(&headers, ALLOW).unwrap_or_else(|| panic!("{method} {path}: no Allow"));
            let mut allowed: Vec<&str> = allow.split(',').map(str::trim).collect();
            allowed.sort_unstable();
            assert_eq!(allowed, ["GET", "HEAD"], "{method} {path}: Allow: {allow}");
            assert_eq!(
                header(&headers, ETAG),
                None,
                "{method} {path}: 405 with an ETag"
            );
            assert!(
                body[..] != fixture(file)[..],
                "{method} {path}: 405 carries the asset's bytes"
            );
        }
    }
}

#[tokio::test]
async fn unknown_paths_get_404_whatever_the_method() {
    let addr = spawn_site().await;
    for path in [
        "/no-such-file.txt",
        "/css/missing.css",
        "/css/",
        "/css",
        "/TINY.TXT",
        "/tiny.txt/",
        "/index.html/",
    ] {
        for method in [Method::GET, Method::HEAD, Method::POST, Method::DELETE] {
            let (status, headers, body) = send(addr, method.clone(), path, &[]).await;
            assert_eq!(status, StatusCode::NOT_FOUND, "{method} {path}");
            assert_eq!(
                header(&headers, ETAG),
                None,
                "{method} {path}: 404 with an ETag"
            );
            if method == Method::HEAD {
                assert!(body.is_empty(), "HEAD {path} has a body");
            } else {
                assert_eq!(
                    header(&headers, CONTENT_LENGTH),
                    Some(body.len().to_string().as_str()),
                    "{method} {path}: Content-Length"
                );
            }
        }
    }
}

#[tokio::test]
async fn the_api_route_beside_the_assets_still_answers() {
    let addr = spawn_site().await;
    let (status, _, body) = get(addr, "/api/health", &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(&body[..], b"ok");
}

#[tokio::test]
async fn root_and_directory_paths_serve_their_index_html() {
    let addr = spawn_site().await;
    for (path, file) in [
        ("/", "/index.html"),
        ("/?lang=en", "/index.html"),
        ("/index.html", "/index.html"),
        ("/docs/", "/docs/index.html"),
        ("/docs/?page=2", "/docs/index.html"),
        ("/docs/index.html", "/docs/index.html"),
    ] {
        let (status, headers, body) = get(addr, path, &[]).await;
        assert_eq!(status, StatusCode::OK, "GET {path}");
        assert_eq!(
            content_type(&headers),
            "text/html;charset=utf-8",
            "GET {path}"
        );
        assert!(body[..] == fixture(file)[..], "GET {path} is not {file}");
    }
}

#[tokio::test]
async fn directory_without_slash_redirects_to_a_relative_slash() {
    let addr = spawn_site().await;
    for (target, location) in [
        ("/docs", "./docs/"),
        ("/docs?a=1&b=two", "./docs/?a=1&b=two"),
        // The query goes back as received: not decoded, not encoded again.
        ("/docs?q=a%20b&r=%2F", "./docs/?q=a%20b&r=%2F"),
    ] {
        for method in [Method::GET, Method::HEAD] {
            let (status, headers, _) = send(addr, method.clone(), target, &[]).await;
            assert_eq!(status, StatusCode::MOVED_PERMANENTLY, "{method} {target}");
            assert_eq!(
                header(&headers, LOCATION),
                Some(location),
                "{method} {target}"
            );
        }
    }
}

#[tokio::test]
async fn the_directory_redirect_leads_to_the_directory_index() {
    let addr = spawn_site().await;
    let authority = addr.to_string();
    let (status, headers, _) = get(addr, "/docs?from=nav", &[]).await;
    assert_eq!(status, StatusCode::MOVED_PERMANENTLY);
    let location = header(&headers, LOCATION).expect("Location");
    let next = resolve_location("/docs?from=nav", location, &authority)
        .unwrap_or_else(|| panic!("Location {location:?} leaves the host"));
    assert_eq!(next, "/docs/?from=nav");
    let (status, _, body) = get(addr, &next, &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert!(body[..] == fixture("/docs/index.html")[..]);
}

#[tokio::test]
async fn default_cache_control_is_no_cache_on_200_and_304() {
    let addr = spawn_site().await;
    let (status, headers, _) = get(addr, "/css/app.css", &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(header(&headers, CACHE_CONTROL), Some("no-cache"));
    let etag = header(&headers, ETAG).expect("ETag").to_owned();
    let (status, headers, _) = get(addr, "/css/app.css", &[("if-none-match", &etag)]).await;
    assert_eq!(status, StatusCode::NOT_MODIFIED);
    assert_eq!(header(&headers, CACHE_CONTROL), Some("no-cache"));
}

#[tokio::test]
async fn cache_control_option_applies_to_every_asset_and_its_304() {
    let policy = "public, max-age=600";
    let addr = spawn_service(site_service().cache_control(HeaderValue::from_static(policy))).await;
    for path in ["/tiny.txt", "/css/app.css", "/docs/", "/image.png"] {
        let (status, headers, _) = get(addr, path, &[]).await;
        assert_eq!(status, StatusCode::OK, "GET {path}");
        assert_eq!(header(&headers, CACHE_CONTROL), Some(policy), "GET {path}");
        let etag = header(&headers, ETAG).expect("ETag").to_owned();
        let (status, headers, _) = get(addr, path, &[("if-none-match", &etag)]).await;
        assert_eq!(status, StatusCode::NOT_MODIFIED, "revalidating {path}");
        assert_eq!(
            header(&headers, CACHE_CONTROL),
            Some(policy),
            "304 of {path}"
        );
    }
}

#[tokio::test]
async fn the_longest_cache_control_prefix_wins_whatever_the_order_given() {
    let value = HeaderValue::from_static;
    let rules = [
        ("/docs/", "max-age=2"),
        ("/docs/guide", "max-age=3"),
        ("/js/", "public, max-age=31536000, immutable"),
    ];
    let forward = rules.iter().fold(
        site_service().cache_control(value("max-age=1")),
        |service, (prefix, policy)| service.cache_control_for(prefix, value(policy)),
    );
    let backward = rules.iter().rev().fold(
        site_service().cache_control(value("max-age=1")),
        |service, (prefix, policy)| service.cache_control_for(prefix, value(policy)),
    );
    for service in [forward, backward] {
        let addr = spawn_service(service).await;
        for (path, expected) in [
            ("/docs/guide.html", "max-age=3"),
            ("/docs/index.html", "max-age=2"),
            ("/docs/", "max-age=2"),
            ("/js/app.js", "public, max-age=31536000, immutable"),
            ("/js/module.mjs", "public, max-age=31536000, immutable"),
            ("/tiny.txt", "max-age=1"),
            ("/", "max-age=1"),
        ] {
            let (status, headers, _) = get(addr, path, &[]).await;
            assert_eq!(status, StatusCode::OK, "GET {path}");
            assert_eq!(
                header(&headers, CACHE_CONTROL),
                Some(expected),
                "GET {path}"
            );
        }
    }
}

#[tokio::test]
async fn index_file_option_changes_the_file_served_for_a_directory() {
    let addr = spawn_service(site_service().index_file("guide.html")).await;
    let (status, _, body) = get(addr, "/docs/", &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert!(body[..] == fixture("/docs/guide.html")[..]);
    // The root has no guide.html: nothing to serve for `/`.
    let (status, _, _) = get(addr, "/", &[]).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, headers, _) = get(addr, "/docs", &[]).await;
    assert_eq!(status, StatusCode::MOVED_PERMANENTLY);
    assert_eq!(header(&headers, LOCATION), Some("./docs/"));
    // Files keep their own URLs.
    let (status, _, body) = get(addr, "/index.html", &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert!(body[..] == fixture("/index.html")[..]);
}

#[tokio::test]
async fn without_index_serves_no_directory_and_redirects_nowhere() {
    let addr = spawn_service(site_service().without_index()).await;
    for path in ["/", "/docs/", "/docs"] {
        let (status, headers, _) = get(addr, path, &[]).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "GET {path}");
        assert_eq!(header(&headers, LOCATION), None, "GET {path}");
    }
    for path in ["/index.html", "/docs/index.html"] {
        let (status, _, body) = get(addr, path, &[]).await;
        assert_eq!(status, StatusCode::OK, "GET {path}");
        assert!(body[..] == fixture(path)[..], "GET {path}");
    }
}

#[tokio::test]
async fn not_found_page_is_sent_with_404_and_no_validators() {
    let addr = spawn_service(site_service().not_found_page("/docs/guide.html")).await;
    let page = fixture("/docs/guide.html");
    for accept in [None, Some("gzip"), Some("br")] {
        let fields: Vec<(&str, &str)> =
            accept.map(|a| ("accept-encoding", a)).into_iter().collect();
        let (status, headers, body) = get(addr, "/no/such/page", &fields).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "Accept-Encoding {accept:?}");
        assert!(
            decode_body(&headers, &body) == page,
            "Accept-Encoding {accept:?}"
        );
        assert_eq!(
            header(&headers, CONTENT_LENGTH),
            Some(body.len().to_string().as_str())
        );
        assert_eq!(content_type(&headers), "text/html;charset=utf-8");
        assert_eq!(
            header(&headers, ETAG),
            None,
            "a 404 page must not carry an ETag"
        );
        assert_eq!(header(&headers, LAST_MODIFIED), None);
    }
    let (status, _, body) = head(addr, "/no/such/page", &[]).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(body.is_empty(), "HEAD of a 404 page has a body");
    // The page's own ETag must not turn a 404 into a 304 (RFC 9110 §13.2.1: conditions
    // are ignored when the unconditional answer would not be 2xx).
    let (_, headers, _) = get(addr, "/docs/guide.html", &[]).await;
    let etag = header(&headers, ETAG).expect("ETag").to_owned();
    let (status, _, _) = get(addr, "/no/such/page", &[("if-none-match", &etag)]).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // Real assets are unaffected.
    let (status, _, body) = get(addr, "/tiny.txt", &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(&body[..], b"hi\n");
}

#[tokio::test]
async fn nested_service_serves_assets_index_and_redirect_under_the_prefix() {
    let addr = spawn_mounted(site_service(), "/static").await;
    let authority = addr.to_string();

    let (status, _, body) = get(addr, "/static/tiny.txt", &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(&body[..], b"hi\n");
    let (status, headers, body) =
        get(addr, "/static/css/app.css", &[("accept-encoding", "br")]).await;
    assert_eq!(status, StatusCode::OK);
    assert!(decode_body(&headers, &body) == fixture("/css/app.css"));
    let (status, _, body) = get(addr, "/static/", &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert!(body[..] == fixture("/index.html")[..]);
    let (status, _, body) = get(addr, "/static/docs/", &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert!(body[..] == fixture("/docs/index.html")[..]);

    let (status, headers, _) = get(addr, "/static/docs?x=1", &[]).await;
    assert_eq!(status, StatusCode::MOVED_PERMANENTLY);
    let location = header(&headers, LOCATION).expect("Location");
    let next = resolve_location("/static/docs?x=1", location, &authority)
        .unwrap_or_else(|| panic!("Location {location:?} leaves the host"));
    assert_eq!(next, "/static/docs/?x=1", "Location {location:?}");
    let (status, _, body) = get(addr, &next, &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert!(body[..] == fixture("/docs/index.html")[..]);

    // Outside the prefix the assets do not exist.
    let (status, _, _) = get(addr, "/tiny.txt", &[]).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _, body) = get(addr, "/api/health", &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(&body[..], b"ok");
}

#[tokio::test]
async fn respond_serves_plain_hyper_without_axum() {
    if frameworks::uses_tls() {
        return; // hyper's own server is cleartext only; the run without TLS tests it.
    }
    let addr = spawn_hyper(site_service()).await;
    let (status, headers, body) = get(addr, "/css/app.css", &[("accept-encoding", "gzip")]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(header(&headers, CONTENT_ENCODING), Some("gzip"));
    assert!(decode_body(&headers, &body) == fixture("/css/app.css"));
    let (status, headers, _) = get(addr, "/docs", &[]).await;
    assert_eq!(status, StatusCode::MOVED_PERMANENTLY);
    assert_eq!(header(&headers, LOCATION), Some("./docs/"));
    let (status, _, _) = send(addr, Method::POST, "/tiny.txt", &[]).await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
}

#[tokio::test]
async fn respond_answers_a_request_value_without_any_server() {
    let service = site_service();
    let request = Request::get("/css/app.css")
        .header(HOST, "example.com")
        .header(ACCEPT_ENCODING, "br")
        .body(())
        .expect("request");
    let response = service.respond(&request).await;
    assert_eq!(response.status(), StatusCode::OK);
    let headers = response.headers().clone();
    assert_eq!(header(&headers, CONTENT_ENCODING), Some("br"));
    assert!(header(&headers, VARY).is_some());
    let body = response
        .into_body()
        .collect()
        .await
        .expect("body")
        .to_bytes();
    assert!(decode_body(&headers, &body) == fixture("/css/app.css"));

    let etag = header(&headers, ETAG).expect("ETag");
    let request = Request::head("/css/app.css")
        .header(HOST, "example.com")
        .header(ACCEPT_ENCODING, "br")
        .header(IF_NONE_MATCH, etag)
        .body(())
        .expect("request");
    let response = service.respond(&request).await;
    assert_eq!(response.status(), StatusCode::NOT_MODIFIED);
}

#[tokio::test]
async fn host_must_be_there_once_and_valid_in_http_1_1() {
    let addr = spawn_site().await;
    // RFC 9112 §3.2: a server MUST answer 400 to an HTTP/1.1 request without Host,
    // with more than one Host field line, or with an invalid Host value.
    for (what, request) in [
        (
            "no Host",
            "GET /tiny.txt HTTP/1.1\r\nConnection: close\r\n\r\n",
        ),
        (
            "two Host lines",
            "GET /tiny.txt HTTP/1.1\r\nHost: a.test\r\nHost: b.test\r\nConnection: close\r\n\r\n",
        ),
        (
            "a Host with a path",
            "GET /tiny.txt HTTP/1.1\r\nHost: a.test/x\r\nConnection: close\r\n\r\n",
        ),
        (
            "a Host with userinfo",
            "GET /tiny.txt HTTP/1.1\r\nHost: user@a.test\r\nConnection: close\r\n\r\n",
        ),
    ] {
        let (status, _, body) = raw_request(addr, request.as_bytes()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{what}");
        assert!(!body.starts_with(b"hi"), "{what}: the asset was sent");
    }
    for (what, request) in [
        (
            "one Host",
            "GET /tiny.txt HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n",
        ),
        (
            "a Host with a port and an IPv6 literal",
            "GET /tiny.txt HTTP/1.1\r\nHost: [::1]:8080\r\nConnection: close\r\n\r\n",
        ),
    ] {
        let (status, _, body) = raw_request(addr, request.as_bytes()).await;
        assert_eq!(
            (status, &body[..]),
            (StatusCode::OK, &b"hi\n"[..]),
            "{what}"
        );
    }
}

#[tokio::test]
async fn http_1_0_needs_no_host() {
    let addr = spawn_site().await;
    let request = "GET /tiny.txt HTTP/1.0\r\n\r\n";
    let (status, _, body) = raw_request(addr, request.as_bytes()).await;
    if matches!(Framework::current(), Framework::Warp | Framework::Rocket) {
        // warp and Rocket give handlers no way to read the request's version: their
        // adapters take every request for HTTP/1.1, whose MUST (400 without Host) they
        // keep.
        assert_eq!(status, StatusCode::BAD_REQUEST);
    } else {
        assert_eq!((status, &body[..]), (StatusCode::OK, &b"hi\n"[..]));
    }
}

#[tokio::test]
async fn respond_answers_400_to_an_http_1_1_request_without_host() {
    let service = site_service();
    let request = Request::get("/tiny.txt").body(()).expect("request");
    let response = service.respond(&request).await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    // An absolute target names the host itself (RFC 9112 §3.2.2).
    let request = Request::get("http://a.test/tiny.txt")
        .body(())
        .expect("request");
    let response = service.respond(&request).await;
    assert_eq!(response.status(), StatusCode::OK);
}
