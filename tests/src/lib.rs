//! Harness for the HTTP integration tests: the fixture site embedded with
//! `embed_assets!`, a real axum server on `127.0.0.1:0`, a real HTTP client, a raw-TCP
//! client for request targets a client library would normalise (both over TLS with
//! `EMBED_TEST_TLS=1`), and decoders for the encoded bodies.
//!
//! Every helper panics with a message on failure: it only runs inside tests.

pub mod browser;
pub mod caches;
pub mod dictionary_releases;
pub mod events;
pub mod firefox;
pub mod frameworks;
pub mod npm;
pub mod programs;
pub mod rolling;
pub mod scratch;
pub mod tls;
pub mod vite_releases;

use std::io::Read;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::routing;
use bytes::Bytes;
use embed_assets::{Assets, ServeAssets, embed_assets};
use http::header::{CONTENT_ENCODING, HOST};
use http::{HeaderMap, HeaderName, HeaderValue, Method, Request, StatusCode, Uri};
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::rt::{TokioExecutor, TokioIo};
use sha2::{Digest, Sha256};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// The fixture site `tests/fixtures/site`, embedded with the default options.
pub static SITE: Assets = embed_assets!("fixtures/site");

/// The markers of files that must never be served: the file beside the root, the
/// dotfile and the file in a hidden folder.
pub const SECRET_MARKERS: [&str; 3] = [
    "FIXTURE-OUTSIDE-ROOT-SECRET",
    "FIXTURE-DOTFILE-SECRET",
    "FIXTURE-HIDDEN-DIR-SECRET",
];

/// How long any single exchange with the test server may take before the test fails.
const EXCHANGE_TIMEOUT: Duration = Duration::from_secs(20);

/// A response as the tests see it: status, every header field, the body as sent on the
/// wire (still content-coded).
pub type Reply = (StatusCode, HeaderMap, Bytes);

/// The folder `embed_assets!("fixtures/site")` embeds, on disk.
pub fn site_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/site")
}

/// The bytes of a fixture, read from disk; `url_path` is as in the URL but decoded
/// (`/css/app.css`, `/café.txt`).
///
/// # Panics
/// If the file cannot be read.
pub fn fixture(url_path: &str) -> Vec<u8> {
    let path = site_dir().join(url_path.trim_start_matches('/'));
    std::fs::read(&path).unwrap_or_else(|err| panic!("cannot read {}: {err}", path.display()))
}

/// The bytes of `tests/fixtures/outside/secret.txt`, which sits beside the served root.
pub fn outside_secret() -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/outside/secret.txt");
    std::fs::read(&path).unwrap_or_else(|err| panic!("cannot read {}: {err}", path.display()))
}

/// The URL path of every regular file under the fixture site whose path has no segment
/// starting with `.` (what the macro embeds by default), sorted.
pub fn public_fixture_paths() -> Vec<String> {
    fn walk(dir: &Path, prefix: &str, out: &mut Vec<String>) {
        let entries = std::fs::read_dir(dir)
            .unwrap_or_else(|err| panic!("cannot list {}: {err}", dir.display()));
        for entry in entries {
            let entry = entry.unwrap_or_else(|err| panic!("cannot list {}: {err}", dir.display()));
            let name = entry.file_name().into_string().expect("UTF-8 fixture name");
            if name.starts_with('.') {
                continue;
            }
            let url = format!("{prefix}/{name}");
            let kind = entry.file_type().expect("file type");
            if kind.is_dir() {
                walk(&entry.path(), &url, out);
            } else if kind.is_file() {
                out.push(url);
            }
        }
    }
    let mut out = Vec::new();
    walk(&site_dir(), "", &mut out);
    out.sort();
    out
}

/// `path` percent-encoded for a request target: every byte but unreserved characters
/// (RFC 3986 §2.3) and `/` becomes `%XX` with upper-case hex.
pub fn encode_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// The app the tests serve: an API route beside `service` as the fallback, the way the
/// crate's quick start wires it.
pub fn app(service: ServeAssets) -> Router {
    Router::new()
        .route("/api/health", routing::get(|| async { "ok" }))
        .fallback_service(service)
}

/// Serves [`site_service`] and returns the address, in the framework of this run (see
/// [`frameworks`]).
pub async fn spawn_site() -> SocketAddr {
    spawn_service(site_service()).await
}

/// Whether this run serves the fixture site from a folder read at run time
/// (`EMBED_TEST_SOURCE=folder`) instead of the embedded [`SITE`] (`embedded`, the
/// default). `tests/run.sh` runs the HTTP tests written against [`site_service`] both
/// ways in every framework: the folder must answer as the table does.
///
/// # Panics
/// On any other value.
pub fn serves_folder() -> bool {
    match std::env::var("EMBED_TEST_SOURCE").as_deref() {
        Err(_) | Ok("" | "embedded") => false,
        Ok("folder") => true,
        Ok(other) => panic!("EMBED_TEST_SOURCE={other:?}: expected `embedded` or `folder`"),
    }
}

/// The fixture site's service with default options: [`SITE`]'s, or with
/// `EMBED_TEST_SOURCE=folder` a [`ServeAssets::folder`] over a copy of the site
/// ([`site_folder`]).
pub fn site_service() -> ServeAssets {
    if serves_folder() {
        ServeAssets::folder(site_folder())
    } else {
        SITE.service()
    }
}

/// A copy of the fixture site for [`ServeAssets::folder`]: every file of
/// `fixtures/site` (dot files too, which must stay unserved), `outside/` beside it as
/// in the fixtures, and beside each file the table stores compressed, siblings with
/// the table's own compressed bodies (`app.css.br`, `.gz`, and `.zst` with the `zstd`
/// feature), so that the folder can answer every coding the table answers.
///
/// It is made once in the temp folder under a name taken from the fixtures' bytes and
/// shared by every test process after (each made the same way; a copy is complete
/// before it gets its name), so runs do not pile up copies. Tests only read it. A
/// fresh copy is returned once it is a second old, when its files have their dates.
///
/// # Panics
/// If the copy cannot be written.
pub fn site_folder() -> PathBuf {
    static FOLDER: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    FOLDER
        .get_or_init(|| {
            let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
            let (outside, site) = (fixtures.join("outside"), site_dir());
            let mut hasher = Sha256::new();
            hash_tree(&outside, &mut hasher);
            hash_tree(&site, &mut hasher);
            hasher.update(format!("{}", cfg!(feature = "zstd")));
            let digest = hasher.finalize();
            let name: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
            let top = std::env::temp_dir().join(format!("embed-assets-test-site-{name}"));
            if !top.join("written").is_file() {
                let _ = std::fs::remove_dir_all(&top);
                let building = top.with_extension(format!("part-{}", std::process::id()));
                let _ = std::fs::remove_dir_all(&building);
                copy_tree(&outside, &building.join("outside"));
                copy_tree(&site, &building.join("site"));
                write_siblings(&building.join("site"));
                write_file(&building.join("written"), b"");
                // Another process may have named its copy first: then ours goes.
                if std::fs::rename(&building, &top).is_err() {
                    let _ = std::fs::remove_dir_all(&building);
                }
            }
            // A file changed within the last second has no `Last-Modified` yet (its
            // time could still hide a change in the same second): the tests expect one.
            let written = std::fs::metadata(top.join("written"))
                .and_then(|meta| meta.modified())
                .expect("the copy's time");
            let age = SystemTime::now()
                .duration_since(written)
                .unwrap_or_default();
            std::thread::sleep(Duration::from_millis(1100).saturating_sub(age));
            top.join("site")
        })
        .clone()
}

/// Writes beside each of [`SITE`]'s files under `root` its compressed bodies.
fn write_siblings(root: &Path) {
    for asset in SITE.iter() {
        let file = root.join(asset.path().trim_start_matches('/'));
        for (encoding, ext) in [
            (embed_assets::Encoding::Brotli, "br"),
            (embed_assets::Encoding::Gzip, "gz"),
            (embed_assets::Encoding::Zstd, "zst"),
        ] {
            if let Some(body) = asset.body(encoding) {
                let mut name = file.clone().into_os_string();
                name.push(format!(".{ext}"));
                write_file(Path::new(&name), body);
            }
        }
    }
}

/// Feeds every file under `dir` (names and bytes, in name order) to `hasher`.
fn hash_tree(dir: &Path, hasher: &mut Sha256) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|err| panic!("cannot list {}: {err}", dir.display()))
        .map(|entry| entry.expect("directory entry"))
        .collect();
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for entry in entries {
        hasher.update(entry.file_name().as_encoded_bytes());
        if entry.file_type().expect("file type").is_dir() {
            hash_tree(&entry.path(), hasher);
        } else {
            hasher.update(std::fs::read(entry.path()).expect("fixture bytes"));
        }
    }
}

/// Copies the folder `from` to `to`, every file and folder, dot files included.
fn copy_tree(from: &Path, to: &Path) {
    let entries = std::fs::read_dir(from)
        .unwrap_or_else(|err| panic!("cannot list {}: {err}", from.display()));
    std::fs::create_dir_all(to)
        .unwrap_or_else(|err| panic!("cannot create {}: {err}", to.display()));
    for entry in entries {
        let entry = entry.unwrap_or_else(|err| panic!("cannot list {}: {err}", from.display()));
        let kind = entry.file_type().expect("file type");
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap_or_else(|err| {
                panic!(
                    "cannot copy {} to {}: {err}",
                    entry.path().display(),
                    target.display()
                )
            });
        }
    }
}

fn write_file(path: &Path, bytes: &[u8]) {
    std::fs::write(path, bytes)
        .unwrap_or_else(|err| panic!("cannot write {}: {err}", path.display()));
}

/// Serves `service` at the root, beside `GET /api/health`, on `127.0.0.1:0` in the
/// framework of this run (see [`frameworks`]), and returns the address.
pub async fn spawn_service(service: ServeAssets) -> SocketAddr {
    frameworks::spawn(service, None).await
}

/// Serves `service` under `mount` (such as `/static`), beside `GET /api/health`, in
/// the framework of this run (see [`frameworks`]), and returns the address.
pub async fn spawn_mounted(service: ServeAssets, mount: &'static str) -> SocketAddr {
    frameworks::spawn(service, Some(mount)).await
}

/// Serves any router on `127.0.0.1:0` in a task of the current runtime and returns
/// the address. The socket listens before this returns, so no wait is needed.
pub async fn spawn_router(router: Router) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1:0");
    let addr = listener.local_addr().expect("local address");
    tokio::spawn(async move {
        axum::serve(listener, router).await.expect("axum server");
    });
    addr
}

/// Serves `service` with hyper 1 alone (no axum), calling [`ServeAssets::respond`]
/// for each request, and returns the address.
pub async fn spawn_hyper(service: ServeAssets) -> SocketAddr {
    frameworks::Framework::Hyper.spawn(service, None).await
}

/// Header fields that are connection-specific in HTTP/1.1 (RFC 9113 §8.2.2).
const CONNECTION_SPECIFIC: [&str; 5] = [
    "connection",
    "keep-alive",
    "proxy-connection",
    "transfer-encoding",
    "upgrade",
];

/// Sends one request with hyper-util's client and reads the whole response: over
/// HTTP/1.1, or over HTTP/2 with prior knowledge when `EMBED_TEST_HTTP2=1` (then the
/// response must be HTTP/2 and carry no connection-specific field). With
/// `EMBED_TEST_TLS=1` (see [`frameworks::uses_tls`]) it goes over a fresh TLS
/// connection instead, the version chosen by ALPN, with hyper's client connection.
///
/// `headers` are appended in order, so a name given twice goes out as two field lines.
/// The body is returned as received: still gzip or br when `Content-Encoding` says so.
///
/// # Panics
/// On a connection error, an invalid header, or after 20 seconds.
pub async fn send(addr: SocketAddr, method: Method, path: &str, headers: &[(&str, &str)]) -> Reply {
    let http2 = frameworks::uses_http2();
    let tls = frameworks::uses_tls();
    let scheme = if tls { "https" } else { "http" };
    let mut request = Request::builder()
        .method(method.clone())
        .uri(format!("{scheme}://{addr}{path}"))
        .body(Full::new(Bytes::new()))
        .expect("valid request");
    for (name, value) in headers {
        let name = HeaderName::from_bytes(name.as_bytes()).expect("header name");
        let value = HeaderValue::from_str(value).expect("header value");
        request.headers_mut().append(name, value);
    }
    let exchange = async {
        let response = if tls {
            send_over_tls(addr, request, http2).await
        } else {
            Client::builder(TokioExecutor::new())
                .http2_only(http2)
                .build_http::<Full<Bytes>>()
                .request(request)
                .await
                .expect("HTTP request")
        };
        let (parts, body) = response.into_parts();
        if http2 {
            assert_eq!(parts.version, http::Version::HTTP_2, "{method} {path}");
            // RFC 9113 §8.2.2: an HTTP/2 message must not carry these.
            for name in CONNECTION_SPECIFIC {
                assert!(
                    !parts.headers.contains_key(name),
                    "{method} {path}: connection-specific {name} over HTTP/2"
                );
            }
        }
        let body = body.collect().await.expect("response body").to_bytes();
        (parts.status, parts.headers, body)
    };
    tokio::time::timeout(EXCHANGE_TIMEOUT, exchange)
        .await
        .unwrap_or_else(|_| panic!("{method} {path} took more than {EXCHANGE_TIMEOUT:?}"))
}

/// `request` (its URI absolute, `https://addr/...`) on a fresh TLS connection to
/// `addr`, ALPN offering `h2` (with `http2`) or `http/1.1`, which the server must
/// choose. The request goes out as hyper-util's client sends it in cleartext: over
/// HTTP/2 with the absolute URI (its `:authority`); over HTTP/1.1 in origin-form with
/// `Host: addr` unless the caller gave one.
async fn send_over_tls(
    addr: SocketAddr,
    mut request: Request<Full<Bytes>>,
    http2: bool,
) -> hyper::Response<hyper::body::Incoming> {
    let stream = tls::connect(tls::harness_connector(http2), addr).await;
    let protocol: &[u8] = if http2 { b"h2" } else { b"http/1.1" };
    assert_eq!(
        stream.get_ref().1.alpn_protocol(),
        Some(protocol),
        "the protocol the server chose by ALPN"
    );
    let io = TokioIo::new(stream);
    if http2 {
        let (mut sender, connection) =
            hyper::client::conn::http2::handshake(TokioExecutor::new(), io)
                .await
                .expect("the HTTP/2 handshake");
        tokio::spawn(async move {
            let _ = connection.await;
        });
        return sender.send_request(request).await.expect("HTTP request");
    }
    let host = HeaderValue::from_str(&addr.to_string()).expect("an address is a valid Host");
    request.headers_mut().entry(HOST).or_insert(host);
    let target = match request.uri().path_and_query() {
        Some(target) => Uri::from(target.clone()),
        None => Uri::from_static("/"),
    };
    *request.uri_mut() = target;
    let (mut sender, connection) = hyper::client::conn::http1::handshake(io)
        .await
        .expect("the HTTP/1.1 connection");
    tokio::spawn(async move {
        let _ = connection.await;
    });
    sender.send_request(request).await.expect("HTTP request")
}

/// `GET path` with `headers`, see [`send`].
pub async fn get(addr: SocketAddr, path: &str, headers: &[(&str, &str)]) -> Reply {
    send(addr, Method::GET, path, headers).await
}

/// `HEAD path` with `headers`, see [`send`].
pub async fn head(addr: SocketAddr, path: &str, headers: &[(&str, &str)]) -> Reply {
    send(addr, Method::HEAD, path, headers).await
}

/// `GET target HTTP/1.1` written byte for byte on a connection of [`connect`], with
/// `Host` and `Connection: close`; see [`raw_request`]. For targets an HTTP client
/// would normalise or refuse (`/../x`, `//evil.com`, backslashes).
pub async fn raw_get(addr: SocketAddr, target: &str) -> Reply {
    let request = format!("GET {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    raw_request(addr, request.as_bytes()).await
}

/// A byte stream to a harness server, as [`connect`] opens it: TCP, or TLS over TCP.
pub trait Stream: AsyncRead + AsyncWrite + Unpin + Send {}

impl<T: AsyncRead + AsyncWrite + Unpin + Send> Stream for T {}

/// A fresh connection to the harness server at `addr` for bytes written by hand: a TCP
/// connection, or with `EMBED_TEST_TLS=1` (see [`frameworks::uses_tls`]) a TLS session
/// over one in which the server chose `http/1.1` by ALPN.
///
/// Flush after writing: a TLS session may hold written bytes until then. `shutdown`
/// ends the sending side as on TCP (after TLS's `close_notify`).
///
/// # Panics
/// When the connection or the TLS handshake fails.
pub async fn connect(addr: SocketAddr) -> Box<dyn Stream> {
    if !frameworks::uses_tls() {
        return Box::new(TcpStream::connect(addr).await.expect("connect"));
    }
    let stream = tls::connect(tls::harness_connector(false), addr).await;
    assert_eq!(
        stream.get_ref().1.alpn_protocol(),
        Some(&b"http/1.1"[..]),
        "the protocol the server chose by ALPN"
    );
    Box::new(stream)
}

/// Reads `stream` until the server closes it, appending to `received`. A TLS session
/// the server closes after sending data but without `close_notify` ends as a plain
/// close does: rustls reports it as `UnexpectedEof`, which is no error here.
///
/// # Errors
/// Any other read error, with what was read before it left in `received`.
pub async fn read_to_close(
    stream: &mut (impl AsyncRead + Unpin + ?Sized),
    received: &mut Vec<u8>,
) -> std::io::Result<()> {
    match stream.read_to_end(received).await {
        Err(err) if err.kind() == std::io::ErrorKind::UnexpectedEof && !received.is_empty() => {
            Ok(())
        }
        other => other.map(drop),
    }
}

/// Writes `request` (a complete HTTP/1.1 request head, which should ask for
/// `Connection: close`) on a fresh connection of [`connect`], reads until the server
/// closes it, and parses the response. A chunked body is de-chunked; any other body is
/// returned as read.
///
/// # Panics
/// On a connection error, a malformed response, or after 20 seconds.
pub async fn raw_request(addr: SocketAddr, request: &[u8]) -> Reply {
    let exchange = async {
        let mut stream = connect(addr).await;
        stream.write_all(request).await.expect("write request");
        stream.flush().await.expect("write request");
        let mut received = Vec::new();
        read_to_close(&mut stream, &mut received)
            .await
            .expect("read response");
        received
    };
    let received = tokio::time::timeout(EXCHANGE_TIMEOUT, exchange)
        .await
        .unwrap_or_else(|_| {
            panic!(
                "raw request {:?} took more than {EXCHANGE_TIMEOUT:?}",
                String::from_utf8_lossy(request)
            )
        });
    parse_response(&received)
}

fn parse_response(received: &[u8]) -> Reply {
    let end = received
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no end of head in {:?}", String::from_utf8_lossy(received)));
    let head = std::str::from_utf8(&received[..end]).expect("ASCII response head");
    let mut lines = head.split("\r\n");
    let status_line = lines.next().expect("status line");
    let code = status_line
        .split(' ')
        .nth(1)
        .unwrap_or_else(|| panic!("bad status line {status_line:?}"));
    let status = StatusCode::from_bytes(code.as_bytes()).expect("status code");
    let mut headers = HeaderMap::new();
    for line in lines {
        let (name, value) = line
            .split_once(':')
            .unwrap_or_else(|| panic!("bad header line {line:?}"));
        headers.append(
            HeaderName::from_bytes(name.trim().as_bytes()).expect("header name"),
            HeaderValue::from_str(value.trim()).expect("header value"),
        );
    }
    let rest = &received[end + 4..];
    let chunked = headers
        .get(http::header::TRANSFER_ENCODING)
        .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"chunked"));
    let body = if chunked {
        dechunk(rest)
    } else {
        rest.to_vec()
    };
    (status, headers, Bytes::from(body))
}

fn dechunk(mut rest: &[u8]) -> Vec<u8> {
    let mut body = Vec::new();
    loop {
        let line_end = rest
            .windows(2)
            .position(|w| w == b"\r\n")
            .expect("chunk size line");
        let size_text = std::str::from_utf8(&rest[..line_end]).expect("chunk size");
        let size_text = size_text.split(';').next().unwrap_or_default().trim();
        let size = usize::from_str_radix(size_text, 16).expect("hex chunk size");
        rest = &rest[line_end + 2..];
        if size == 0 {
            return body;
        }
        body.extend_from_slice(&rest[..size]);
        rest = &rest[size + 2..];
    }
}

/// Decompresses a gzip member (RFC 1952).
///
/// # Panics
/// If `bytes` is not valid gzip.
pub fn gunzip(bytes: &[u8]) -> Vec<u8> {
    assert!(
        bytes.starts_with(&[0x1f, 0x8b]),
        "not a gzip stream (no magic bytes)"
    );
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(bytes)
        .read_to_end(&mut out)
        .expect("valid gzip");
    out
}

/// Decompresses a brotli stream (RFC 7932).
///
/// # Panics
/// If `bytes` is not valid brotli.
pub fn unbrotli(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    brotli::Decompressor::new(bytes, 4096)
        .read_to_end(&mut out)
        .expect("valid brotli");
    out
}

/// The body with its `Content-Encoding` undone: as-is without the field, else gzip
/// (`gzip`, `x-gzip`) or brotli (`br`), compared case-insensitively.
///
/// # Panics
/// On any other coding, or more than one.
pub fn decode_body(headers: &HeaderMap, body: &[u8]) -> Vec<u8> {
    let codings: Vec<String> = list_values(headers, CONTENT_ENCODING);
    match codings.as_slice() {
        [] => body.to_vec(),
        [one] if one == "gzip" || one == "x-gzip" => gunzip(body),
        [one] if one == "br" => unbrotli(body),
        [one] if one == "zstd" => zstd::decode_all(body).expect("a valid zstd body"),
        other => panic!("unexpected Content-Encoding {other:?}"),
    }
}

/// The `Accept-Encoding` Chromium sends for a URL it holds a dictionary for.
pub const CHROMIUM_ACCEPT_ENCODING: &str = "gzip, deflate, br, zstd, dcb, dcz";

/// `Available-Dictionary` (RFC 9842 §2.2) for `bytes`: their SHA-256 as a
/// structured-field byte sequence, `:base64:`.
pub fn available_dictionary(bytes: &[u8]) -> String {
    use base64::Engine as _;
    use sha2::Digest as _;
    format!(
        ":{}:",
        base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(bytes))
    )
}

/// Decodes a `dcb` or `dcz` body (RFC 9842 §4 and §5) against `dictionary`, after
/// checking its header: the coding's magic number, then the dictionary's SHA-256.
///
/// # Panics
/// If the header is wrong for `dictionary` or the stream does not decode.
pub fn decode_with_dictionary(headers: &HeaderMap, body: &[u8], dictionary: &[u8]) -> Vec<u8> {
    use sha2::Digest as _;
    let hash = sha2::Sha256::digest(dictionary);
    let codings: Vec<String> = list_values(headers, CONTENT_ENCODING);
    let (magic, stream): (&[u8], &[u8]) = match codings.as_slice() {
        [one] if one == "dcb" => (&[0xff, 0x44, 0x43, 0x42], &body[4.min(body.len())..]),
        [one] if one == "dcz" => (
            &[0x5e, 0x2a, 0x4d, 0x18, 0x20, 0x00, 0x00, 0x00],
            &body[8.min(body.len())..],
        ),
        other => panic!("not a dictionary coding: {other:?}"),
    };
    assert!(body.starts_with(magic), "the coding's magic number first");
    assert_eq!(&stream[..32], &hash[..], "then the dictionary's SHA-256");
    let stream = &stream[32..];
    if codings[0] == "dcb" {
        let mut out = Vec::new();
        brotli_decompressor::BrotliDecompressCustomDict(
            &mut &stream[..],
            &mut out,
            &mut [0; 4096],
            &mut [0; 4096],
            dictionary.to_vec(),
        )
        .expect("a valid dcb stream");
        out
    } else {
        zstd::bulk::Decompressor::with_dictionary(dictionary)
            .expect("a raw-content dictionary")
            .decompress(stream, 64 << 20)
            .expect("a valid dcz stream")
    }
}

/// The members of a comma-separated list field over all its field lines (RFC 9110
/// §5.3), trimmed and lower-cased; empty when the field is absent.
pub fn list_values(headers: &HeaderMap, name: HeaderName) -> Vec<String> {
    headers
        .get_all(name)
        .iter()
        .flat_map(|value| {
            value
                .to_str()
                .expect("ASCII header value")
                .split(',')
                .map(|member| member.trim().to_ascii_lowercase())
                .filter(|member| !member.is_empty())
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The single value of header `name` as text, `None` when absent.
///
/// # Panics
/// If the field occurs more than once or is not visible ASCII.
pub fn header(headers: &HeaderMap, name: HeaderName) -> Option<&str> {
    let mut all = headers.get_all(&name).iter();
    let first = all.next()?;
    assert!(all.next().is_none(), "{name} sent more than once");
    Some(first.to_str().expect("ASCII header value"))
}

/// Whether `needle` occurs in `haystack`.
pub fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle.as_bytes())
}

/// Fails the test if `body` holds any of the [`SECRET_MARKERS`] or the bytes of the
/// file outside the root; `what` names the request in the message.
pub fn assert_no_secret(what: &str, body: &[u8]) {
    for marker in SECRET_MARKERS {
        assert!(!contains(body, marker), "{what}: response leaks {marker}");
    }
    assert!(
        !contains(body, &String::from_utf8_lossy(&outside_secret())),
        "{what}: response holds the bytes of outside/secret.txt"
    );
}

/// Where a browser goes with `Location: location` received for `request_path` on
/// `authority` (RFC 3986 §5.2, plus the WHATWG URL rule that `\` is `/` in http
/// URLs): `Some(path?query)` on the same host, `None` when it leaves `authority`.
pub fn resolve_location(request_path: &str, location: &str, authority: &str) -> Option<String> {
    let location = location.replace('\\', "/");
    let (reference, query) = match location.split_once('?') {
        Some((path, query)) => (path.to_owned(), Some(query)),
        None => (location.clone(), None),
    };
    let scheme = reference.split_once(':').and_then(|(scheme, rest)| {
        let is_scheme = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
        is_scheme.then_some((scheme, rest))
    });
    let relative = match scheme {
        Some((scheme, rest)) if scheme.eq_ignore_ascii_case("http") => rest,
        Some(_) => return None,
        None => &reference,
    };
    let path = if let Some(rest) = relative.strip_prefix("//") {
        let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        if !host.eq_ignore_ascii_case(authority) {
            return None;
        }
        remove_dot_segments(if path.is_empty() { "/" } else { path })
    } else if scheme.is_some() {
        return None; // `http:path` has no meaning a browser agrees on
    } else if relative.starts_with('/') {
        remove_dot_segments(relative)
    } else {
        let base = request_path.split('?').next().unwrap_or_default();
        let dir = &base[..base.rfind('/').map_or(0, |i| i + 1)];
        remove_dot_segments(&format!("{dir}{relative}"))
    };
    Some(match query {
        Some(query) => format!("{path}?{query}"),
        None => path,
    })
}

/// RFC 3986 §5.2.4.
fn remove_dot_segments(path: &str) -> String {
    let mut output: Vec<&str> = Vec::new();
    let segments: Vec<&str> = path.split('/').collect();
    let last = segments.len() - 1;
    for (i, segment) in segments.iter().enumerate() {
        match *segment {
            "." => {
                if i == last {
                    output.push("");
                }
            }
            ".." => {
                if output.len() > 1 {
                    output.pop();
                }
                if i == last {
                    output.push("");
                }
            }
            other => output.push(other),
        }
    }
    let joined = output.join("/");
    if joined.starts_with('/') {
        joined
    } else {
        format!("/{joined}")
    }
}

/// Deterministic bytes that do not compress (xorshift), `len` long.
pub fn noise(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
const LONG_DAYS: [&str; 7] = [
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
];
const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// Parses an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`, RFC 9110 §5.6.7), the form
/// a server sends in `Last-Modified`.
///
/// # Panics
/// On anything else.
pub fn parse_imf_fixdate(text: &str) -> SystemTime {
    let parts: Vec<&str> = text.split([' ', ':']).collect();
    let [_, day, month, year, hour, minute, second, "GMT"] = parts.as_slice() else {
        panic!("not an IMF-fixdate: {text:?}");
    };
    let number = |s: &str| -> i64 { s.parse().unwrap_or_else(|_| panic!("bad date {text:?}")) };
    let month = MONTHS
        .iter()
        .position(|m| m == month)
        .unwrap_or_else(|| panic!("bad month in {text:?}")) as i64
        + 1;
    let days = days_from_civil(number(year), month, number(day));
    let secs = days * 86_400 + number(hour) * 3600 + number(minute) * 60 + number(second);
    UNIX_EPOCH + Duration::from_secs(u64::try_from(secs).expect("date after 1970"))
}

/// An HTTP-date in one of the three forms a recipient must accept (RFC 9110 §5.6.7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DateForm {
    /// `Sun, 06 Nov 1994 08:49:37 GMT`, the preferred form.
    ImfFixdate,
    /// `Sunday, 06-Nov-94 08:49:37 GMT`, obsolete RFC 850 form.
    Rfc850,
    /// `Sun Nov  6 08:49:37 1994`, ANSI C's `asctime()` form.
    Asctime,
}

/// Formats `time` (whole seconds after 1970) as an HTTP-date in `form`.
pub fn format_http_date(time: SystemTime, form: DateForm) -> String {
    let secs = time
        .duration_since(UNIX_EPOCH)
        .expect("after 1970")
        .as_secs() as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (year, month, day) = civil_from_days(days);
    let (hour, minute, second) = (rem / 3600, rem % 3600 / 60, rem % 60);
    let weekday = days.rem_euclid(7) as usize;
    let month_name = MONTHS[(month - 1) as usize];
    match form {
        DateForm::ImfFixdate => format!(
            "{}, {day:02} {month_name} {year} {hour:02}:{minute:02}:{second:02} GMT",
            DAYS[weekday]
        ),
        DateForm::Rfc850 => format!(
            "{}, {day:02}-{month_name}-{:02} {hour:02}:{minute:02}:{second:02} GMT",
            LONG_DAYS[weekday],
            year % 100
        ),
        DateForm::Asctime => format!(
            "{} {month_name} {day:>2} {hour:02}:{minute:02}:{second:02} {year}",
            DAYS[weekday]
        ),
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let yoe = year - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The inverse of [`days_from_civil`].
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// One part of a `multipart/byteranges` body: its headers (lowercased names) and bytes.
#[derive(Debug)]
pub struct Part {
    /// The part's `Content-Type`.
    pub content_type: String,
    /// The part's `Content-Range`.
    pub content_range: String,
    /// The part's bytes.
    pub bytes: Vec<u8>,
}

/// Splits a `multipart/byteranges` body (RFC 9110 §14.6, RFC 2046 §5.1) by its boundary.
///
/// # Panics
/// If the body is not well-formed multipart.
pub fn parse_multipart(content_type: &str, body: &[u8]) -> Vec<Part> {
    let boundary = content_type
        .split(';')
        .find_map(|p| p.trim().strip_prefix("boundary="))
        .expect("boundary parameter")
        .trim_matches('"');
    let delimiter = format!("\r\n--{boundary}");
    let mut body = body.to_vec();
    // The first delimiter may come without the CRLF before it (no preamble).
    if body.starts_with(format!("--{boundary}").as_bytes()) {
        body.splice(0..0, *b"\r\n");
    }
    let mut parts = Vec::new();
    let mut rest = &body[..];
    loop {
        let at = find(rest, delimiter.as_bytes()).expect("a delimiter");
        rest = &rest[at + delimiter.len()..];
        if rest.starts_with(b"--") {
            return parts; // close-delimiter
        }
        rest = rest
            .strip_prefix(b"\r\n")
            .expect("CRLF after the delimiter");
        let head_end = find(rest, b"\r\n\r\n").expect("end of part headers");
        let head = std::str::from_utf8(&rest[..head_end]).expect("ASCII part headers");
        let mut content_type = String::new();
        let mut content_range = String::new();
        for line in head.split("\r\n") {
            let (name, value) = line.split_once(':').expect("name: value");
            match name.trim().to_ascii_lowercase().as_str() {
                "content-type" => content_type = value.trim().to_owned(),
                "content-range" => content_range = value.trim().to_owned(),
                _ => {}
            }
        }
        rest = &rest[head_end + 4..];
        let end = find(rest, delimiter.as_bytes()).expect("next delimiter");
        parts.push(Part {
            content_type,
            content_range,
            bytes: rest[..end].to_vec(),
        });
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_dates_round_trip_in_every_form() {
        let text = "Sun, 06 Nov 1994 08:49:37 GMT";
        let time = parse_imf_fixdate(text);
        assert_eq!(format_http_date(time, DateForm::ImfFixdate), text);
        assert_eq!(
            format_http_date(time, DateForm::Rfc850),
            "Sunday, 06-Nov-94 08:49:37 GMT"
        );
        assert_eq!(
            format_http_date(time, DateForm::Asctime),
            "Sun Nov  6 08:49:37 1994"
        );
        let leap = parse_imf_fixdate("Thu, 29 Feb 2024 23:59:59 GMT");
        assert_eq!(
            format_http_date(leap + Duration::from_secs(1), DateForm::ImfFixdate),
            "Fri, 01 Mar 2024 00:00:00 GMT"
        );
    }

    #[test]
    fn locations_resolve_like_a_browser() {
        let host = "127.0.0.1:80";
        let resolve = |base, location| resolve_location(base, location, host);
        assert_eq!(resolve("/docs", "./docs/").as_deref(), Some("/docs/"));
        assert_eq!(
            resolve("/static/docs?a=1", "./docs/?a=1").as_deref(),
            Some("/static/docs/?a=1")
        );
        assert_eq!(resolve("/a/b", "../c").as_deref(), Some("/c"));
        assert_eq!(resolve("/a", "/x").as_deref(), Some("/x"));
        assert_eq!(
            resolve("/a", "http://127.0.0.1:80/x").as_deref(),
            Some("/x")
        );
        assert_eq!(resolve("/a", "//evil.com/"), None);
        assert_eq!(resolve("/a", "/\\evil.com/"), None);
        assert_eq!(resolve("/a", "https://evil.com/"), None);
        // Relative to a path that starts with `//`: still this host.
        assert_eq!(
            resolve("//evil.com", "./evil.com/").as_deref(),
            Some("//evil.com/")
        );
        assert_eq!(resolve("/a", "javascript:alert(1)"), None);
    }
}
