//! `Server::tls`: `embed_assets::serve` terminating TLS itself, probed by real clients
//! (curl, `openssl s_client`, a rustls client) over 127.0.0.1 with certificates of a
//! test authority made by `openssl`.

use std::io::Write as _;
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use axum::Router;
use axum::routing::get;
use embed_assets::http::HeaderValue;
use embed_assets::{Server, Tls};
use integration_tests::tls::{self, Authority, NAME};
use integration_tests::{SITE, events, fixture, programs, unbrotli};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

/// `serve` with `tls` in front of an app with `/api/health`, one worker, until the
/// test process ends.
fn spawn(tls: Tls, header_read: Duration) -> SocketAddr {
    let app = Router::new()
        .route("/api/health", get(|| async { "ok" }))
        .fallback_service(SITE.service());
    let server = Server::bind("127.0.0.1:0")
        .expect("bind")
        .workers(1)
        .shutdown_on_signals(false)
        .header_read_timeout(header_read)
        .tls(tls);
    let addr = server.local_addr();
    std::thread::spawn(move || server.serve(SITE.service(), app).expect("serve"));
    addr
}

/// A server with a certificate of a new authority, and the authority.
fn serve_new(test: &str) -> Option<(Authority, SocketAddr)> {
    let authority = Authority::new(test)?;
    let issued = authority.issue("server");
    let tls = Tls::from_pem_files(&issued.certificate, &issued.key).expect("the test certificate");
    let addr = spawn(tls, Duration::from_secs(30));
    Some((authority, addr))
}

/// curl's answer to `https://embed.test:PORT{path}` (resolved to 127.0.0.1), trusting
/// `ca` alone: its `-w` line (`version status`), the head and the body.
fn curl(ca: &Path, addr: SocketAddr, path: &str, args: &[&str]) -> (String, String, Vec<u8>) {
    let curl = programs::find(&["curl"], &[]).expect("curl (checked by the caller)");
    let dir = ca.parent().expect("the authority's folder");
    let body = dir.join("body");
    let head = dir.join("head");
    let output = Command::new(curl)
        .args(["-sS", "--max-time", "20", "--cacert"])
        .arg(ca)
        .arg("--resolve")
        .arg(format!("{NAME}:{}:127.0.0.1", addr.port()))
        .args(["-o"])
        .arg(&body)
        .args(["-D"])
        .arg(&head)
        .args(["-w", "%{http_version} %{response_code}"])
        .args(args)
        .arg(format!("https://{NAME}:{}{path}", addr.port()))
        .output()
        .expect("run curl");
    assert!(
        output.status.success(),
        "curl {path} {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let line = String::from_utf8(output.stdout).expect("curl's -w line");
    let head = std::fs::read_to_string(&head).expect("the head curl wrote");
    (
        line,
        head,
        std::fs::read(&body).expect("the body curl wrote"),
    )
}

fn field<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().find_map(|line| {
        let (field, value) = line.split_once(':')?;
        field.eq_ignore_ascii_case(name).then(|| value.trim())
    })
}

#[test]
fn curl_gets_hits_app_routes_ranges_and_files_from_disk_over_http1_and_h2() {
    if programs::require(&["curl"], &[], "curl").is_none() {
        return;
    }
    let Some((authority, addr)) = serve_new("curl") else {
        return;
    };
    let ca = authority.certificate();
    // h2 by ALPN (curl offers h2 and http/1.1 and the server picks h2), and HTTP/1.1.
    for (args, version) in [(&["--http2"][..], "2"), (&["--http1.1"][..], "1.1")] {
        let (line, head, body) = curl(&ca, addr, "/index.html", args);
        assert_eq!(line, format!("{version} 200"), "{head}");
        assert_eq!(body, fixture("/index.html"));
        assert!(field(&head, "etag").is_some(), "{head}");

        let (line, head, body) = curl(
            &ca,
            addr,
            "/js/app.js",
            &[args, &["-H", "Accept-Encoding: br"]].concat(),
        );
        assert_eq!(line, format!("{version} 200"));
        assert_eq!(field(&head, "content-encoding"), Some("br"), "{head}");
        assert_eq!(unbrotli(&body), fixture("/js/app.js"));

        let (line, _, body) = curl(&ca, addr, "/api/health", args);
        assert_eq!(
            (line.as_str(), body.as_slice()),
            (format!("{version} 200").as_str(), &b"ok"[..])
        );

        // 3 MiB from disk: read and encrypted chunk by chunk, whole and in a range.
        let big = fixture("/big.bin");
        let (line, _, body) = curl(&ca, addr, "/big.bin", args);
        assert_eq!(line, format!("{version} 200"));
        assert!(
            body == big,
            "big.bin: {} bytes, not the file's {}",
            body.len(),
            big.len()
        );
        let (line, head, body) = curl(
            &ca,
            addr,
            "/big.bin",
            &[args, &["-r", "1000000-1999999"]].concat(),
        );
        assert_eq!(line, format!("{version} 206"), "{head}");
        assert!(body == big[1_000_000..2_000_000], "the range's bytes");

        let (line, _, _) = curl(&ca, addr, "/missing.txt", args);
        assert_eq!(line, format!("{version} 404"));
    }
}

/// `openssl s_client` with `args`, its input closed at once.
fn s_client(addr: SocketAddr, args: &[&str]) -> Output {
    let openssl = programs::find(&["openssl"], &[]).expect("openssl (checked by Authority)");
    Command::new(openssl)
        .args([
            "s_client",
            "-connect",
            &addr.to_string(),
            "-servername",
            NAME,
        ])
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run openssl s_client")
}

#[test]
fn tls_1_3_and_1_2_are_spoken_and_1_1_and_1_0_refused() {
    let Some((authority, addr)) = serve_new("versions") else {
        return;
    };
    let ca = authority.certificate();
    let ca = ca.to_str().expect("a UTF-8 path");
    for (version, spoken) in [("-tls1_3", "TLSv1.3"), ("-tls1_2", "TLSv1.2")] {
        let output = s_client(addr, &[version, "-CAfile", ca, "-verify_return_error"]);
        let text = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success(), "{version}: {text}");
        assert!(
            text.contains(&format!("New, {spoken}, Cipher is")),
            "{version}: {text}"
        );
        assert!(
            text.contains("Verify return code: 0 (ok)"),
            "{version}: {text}"
        );
    }
    // The client is let offer the old versions (security level 0), and the server
    // refuses them with an alert, sending no certificate.
    for version in ["-tls1_1", "-tls1"] {
        let output = s_client(addr, &[version, "-cipher", "DEFAULT@SECLEVEL=0"]);
        let (out, err) = (
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr),
        );
        assert!(!output.status.success(), "{version} was accepted: {out}");
        assert!(
            out.contains("no peer certificate available"),
            "{version}: {out}"
        );
        assert!(
            err.contains("alert protocol version") || err.contains("alert handshake failure"),
            "{version}: {err}\n{out}"
        );
    }
}

#[tokio::test]
async fn alpn_offers_h2_and_http_1_1_and_a_client_without_alpn_gets_http_1_1() {
    let Some((authority, addr)) = serve_new("alpn") else {
        return;
    };
    for (offered, chosen) in [
        (&[&b"h2"[..], b"http/1.1"][..], Some(&b"h2"[..])),
        (&[&b"http/1.1"[..]][..], Some(&b"http/1.1"[..])),
        (&[][..], None),
    ] {
        let mut stream = tls::connect(&authority.connector(offered), addr).await;
        assert_eq!(
            stream.get_ref().1.alpn_protocol(),
            chosen,
            "offered {offered:?}"
        );
        if chosen != Some(b"h2") {
            stream
                .write_all(
                    b"GET /tiny.txt HTTP/1.1\r\nHost: embed.test\r\nConnection: close\r\n\r\n",
                )
                .await
                .unwrap();
            let mut received = Vec::new();
            let _ = stream.read_to_end(&mut received).await;
            let text = String::from_utf8_lossy(&received);
            assert!(text.starts_with("HTTP/1.1 200 OK\r\n"), "{text}");
            assert!(received.ends_with(&fixture("/tiny.txt")), "{text}");
        }
    }
}

#[tokio::test]
async fn pipelined_hits_are_answered_in_order_inside_one_session() {
    let Some((authority, addr)) = serve_new("pipelined") else {
        return;
    };
    let mut stream = tls::connect(&authority.connector(&[b"http/1.1"]), addr).await;
    let paths = [
        "/tiny.txt",
        "/index.html",
        "/api/health",
        "/tiny.txt",
        "/favicon.ico",
    ];
    let mut requests = String::new();
    for (i, path) in paths.iter().enumerate() {
        let close = if i + 1 == paths.len() {
            "Connection: close\r\n"
        } else {
            ""
        };
        requests.push_str(&format!(
            "GET {path} HTTP/1.1\r\nHost: {NAME}\r\n{close}\r\n"
        ));
    }
    // Every request in one TLS record's worth of writes, before any answer is read.
    stream.write_all(requests.as_bytes()).await.unwrap();
    let mut received = Vec::new();
    tokio::time::timeout(Duration::from_secs(20), stream.read_to_end(&mut received))
        .await
        .expect("the answers within 20 s")
        .ok();
    let mut rest = &received[..];
    for path in paths {
        let end = rest
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .expect("a head")
            + 4;
        let head = std::str::from_utf8(&rest[..end]).unwrap();
        assert!(head.starts_with("HTTP/1.1 200 OK\r\n"), "{path}: {head}");
        let len: usize = field(head, "content-length")
            .expect("a length")
            .parse()
            .unwrap();
        let body = &rest[end..end + len];
        let expected = if path == "/api/health" {
            b"ok".to_vec()
        } else {
            fixture(path)
        };
        assert_eq!(body, expected.as_slice(), "{path}");
        rest = &rest[end + len..];
    }
    assert!(
        rest.is_empty(),
        "{} bytes after the last answer",
        rest.len()
    );
}

#[tokio::test]
async fn stalled_truncated_and_garbage_handshakes_are_cut_and_others_go_on() {
    let Some(authority) = Authority::new("handshakes") else {
        return;
    };
    let issued = authority.issue("server");
    let tls = Tls::from_pem_files(&issued.certificate, &issued.key).unwrap();
    let addr = spawn(tls, Duration::from_secs(1));
    let connector = authority.connector(&[b"http/1.1"]);
    // The first bytes of a real ClientHello, then nothing.
    let truncated: &[u8] = &[
        0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03,
    ];
    let cases: [(&str, &[u8]); 3] = [
        ("stalled", b""),
        ("truncated", truncated),
        ("garbage", b"GET / HTTP/1.1\r\nHost: embed.test\r\n\r\n"),
    ];
    let mut held = Vec::new();
    for (what, bytes) in cases {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        stream.write_all(bytes).await.unwrap();
        held.push((what, Instant::now(), stream));
    }
    // A client that does its handshake is served meanwhile: the worker is not blocked.
    let mut good = tls::connect(&connector, addr).await;
    good.write_all(b"GET /tiny.txt HTTP/1.1\r\nHost: embed.test\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut received = Vec::new();
    let _ = good.read_to_end(&mut received).await;
    assert!(
        received.ends_with(&fixture("/tiny.txt")),
        "{}",
        String::from_utf8_lossy(&received)
    );
    for (what, since, mut stream) in held {
        let mut rest = Vec::new();
        let closed =
            tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut rest)).await;
        assert!(closed.is_ok(), "{what}: still open after 10 s");
        let took = since.elapsed();
        // Garbage is refused at once (an alert, no HTTP); the others at the 1 s limit.
        assert!(!rest.starts_with(b"HTTP/"), "{what}: answered in cleartext");
        if what != "garbage" {
            assert!(
                took >= Duration::from_millis(900),
                "{what}: closed after {took:?}"
            );
        }
        assert!(
            took < Duration::from_secs(5),
            "{what}: closed after {took:?}"
        );
    }
}

#[tokio::test]
async fn a_renewed_certificate_is_served_to_new_connections_without_a_restart() {
    let Some(authority) = Authority::new("renewal") else {
        return;
    };
    let live = authority.dir().join("live");
    std::fs::create_dir(&live).unwrap();
    let (certificate, key) = (live.join("fullchain.pem"), live.join("privkey.pem"));
    let first = authority.issue("first");
    std::fs::copy(&first.certificate, &certificate).unwrap();
    std::fs::copy(&first.key, &key).unwrap();
    let addr = spawn(
        Tls::from_pem_files(&certificate, &key).unwrap(),
        Duration::from_secs(30),
    );
    let connector = authority.connector(&[b"http/1.1"]);
    let served = |stream: &tokio_rustls::client::TlsStream<TcpStream>| {
        stream.get_ref().1.peer_certificates().expect("a chain")[0].to_vec()
    };
    let der_of = |issued: &tls::Issued| first_der(&std::fs::read(&issued.certificate).unwrap());
    let mut open = tls::connect(&connector, addr).await;
    assert_eq!(served(&open), der_of(&first));

    // A renewal as certbot's: new files, then the links (here the names) moved onto
    // them; the key first, so that for a moment the pair does not match.
    let second = authority.issue("second");
    std::fs::copy(&second.key, live.join("key.new")).unwrap();
    std::fs::rename(live.join("key.new"), &key).unwrap();
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let during = tls::connect(&connector, addr).await;
    assert_eq!(
        served(&during),
        der_of(&first),
        "a key without its certificate is not used"
    );
    std::fs::copy(&second.certificate, live.join("cert.new")).unwrap();
    std::fs::rename(live.join("cert.new"), &certificate).unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while served(&tls::connect(&connector, addr).await) != der_of(&second) {
        assert!(
            Instant::now() < deadline,
            "the renewed certificate was not taken in 10 s"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // The connection opened before the renewal goes on with its session.
    open.write_all(b"GET /tiny.txt HTTP/1.1\r\nHost: embed.test\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut received = Vec::new();
    let _ = open.read_to_end(&mut received).await;
    assert!(received.ends_with(&fixture("/tiny.txt")));
}

/// The DER of the first certificate of a PEM file.
fn first_der(pem: &[u8]) -> Vec<u8> {
    use tokio_rustls::rustls::pki_types::CertificateDer;
    use tokio_rustls::rustls::pki_types::pem::PemObject as _;
    CertificateDer::pem_slice_iter(pem)
        .next()
        .expect("a certificate")
        .expect("PEM")
        .to_vec()
}

#[test]
fn files_that_cannot_serve_are_errors_at_start_naming_them() {
    let Some(authority) = Authority::new("errors") else {
        return;
    };
    let one = authority.issue("one");
    let two = authority.issue("two");
    let missing = authority.dir().join("missing.pem");
    let garbage = authority.dir().join("garbage.pem");
    std::fs::File::create(&garbage)
        .unwrap()
        .write_all(b"not a certificate\n")
        .unwrap();
    let message = |certificate: &Path, key: &Path| {
        let error = Tls::from_pem_files(certificate, key).expect_err("refused");
        (error.kind(), error.to_string())
    };
    let (kind, text) = message(&missing, &one.key);
    assert_eq!(kind, std::io::ErrorKind::NotFound);
    assert!(text.contains(&missing.display().to_string()), "{text}");
    let (kind, text) = message(&one.certificate, &missing);
    assert_eq!(kind, std::io::ErrorKind::NotFound);
    assert!(text.contains(&missing.display().to_string()), "{text}");
    let (_, text) = message(&garbage, &one.key);
    assert!(
        text.contains("holds no certificate") && text.contains("garbage.pem"),
        "{text}"
    );
    let (_, text) = message(&one.certificate, &garbage);
    assert!(
        text.contains("holds no private key") && text.contains("garbage.pem"),
        "{text}"
    );
    // The key of another certificate.
    let (_, text) = message(&one.certificate, &two.key);
    assert!(
        text.contains("cannot serve the certificate") && text.contains("two.key"),
        "{text}"
    );
    // The certificate as its own key, and the key as a certificate.
    let (_, text) = message(&one.key, &one.key);
    assert!(text.contains("holds no certificate"), "{text}");
}

/// `serve` with TLS, a cleartext listener redirecting to it, and HSTS.
fn spawn_redirecting(authority: &Authority) -> (SocketAddr, SocketAddr) {
    let issued = authority.issue("server");
    let tls = Tls::from_pem_files(&issued.certificate, &issued.key).unwrap();
    let app = Router::new()
        .route("/api/health", get(|| async { "ok" }))
        .fallback_service(SITE.service());
    let server = Server::bind("127.0.0.1:0")
        .unwrap()
        .workers(2)
        .shutdown_on_signals(false)
        .tls(tls)
        .redirect_http("127.0.0.1:0")
        .unwrap()
        .hsts(HeaderValue::from_static("max-age=300"));
    let addr = server.local_addr();
    let plain = server.redirect_addr().expect("the redirect's address");
    std::thread::spawn(move || server.serve(SITE.service(), app).expect("serve"));
    (addr, plain)
}

#[test]
fn cleartext_requests_are_redirected_to_the_same_url_over_https_with_308() {
    let Some(curl) = programs::require(&["curl"], &[], "curl") else {
        return;
    };
    let Some(authority) = Authority::new("redirect") else {
        return;
    };
    let (addr, plain) = spawn_redirecting(&authority);
    let resolve = |port: u16| format!("{NAME}:{port}:127.0.0.1");
    let run = |args: &[&str]| {
        let output = Command::new(&curl)
            .args([
                "-sS",
                "--max-time",
                "20",
                "--resolve",
                &resolve(plain.port()),
            ])
            .args(["--resolve", &resolve(addr.port()), "--cacert"])
            .arg(authority.certificate())
            .args(args)
            .output()
            .expect("run curl");
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap()
    };
    let url = |path: &str| format!("http://{NAME}:{}{path}", plain.port());
    let https = |path: &str| format!("https://{NAME}:{}{path}", addr.port());
    for (method, path) in [
        ("GET", "/index.html"),
        ("HEAD", "/docs/?q=a%20b&x=1"),
        ("POST", "/api/health"),
        ("GET", "/no/such/page"),
    ] {
        // `-I` for HEAD: curl's `-X HEAD` would wait for a body.
        let method_args: &[&str] = if method == "HEAD" {
            &["-I"]
        } else {
            &["-X", method]
        };
        let line = run(&[
            method_args,
            &[
                "-o",
                "/dev/null",
                "-w",
                "%{http_code} %{redirect_url} %header{strict-transport-security}",
                &url(path),
            ],
        ]
        .concat());
        // No HSTS in cleartext (RFC 6797 §7.2).
        assert_eq!(line, format!("308 {} ", https(path)), "{method} {path}");
    }
    // Followed, the redirect ends at the page over TLS, with HSTS.
    let line = run(&[
        "-L",
        "-o",
        "/dev/null",
        "-w",
        "%{http_code} %{url_effective} %header{strict-transport-security}",
        &url("/index.html"),
    ]);
    assert_eq!(line, format!("200 {} max-age=300", https("/index.html")));
    // HTTP/1.0 without `Host`: nowhere to send the client.
    let line = run(&[
        "-0",
        "-H",
        "Host:",
        "-o",
        "/dev/null",
        "-w",
        "%{http_code}",
        &url("/"),
    ]);
    assert_eq!(line, "400");
}

#[test]
fn hsts_goes_with_every_answer_over_tls_hits_and_the_applications_alike() {
    if programs::require(&["curl"], &[], "curl").is_none() {
        return;
    }
    let Some(authority) = Authority::new("hsts") else {
        return;
    };
    let (addr, _) = spawn_redirecting(&authority);
    let ca = authority.certificate();
    for version in ["--http1.1", "--http2"] {
        for (path, status) in [
            ("/index.html", "200"),
            ("/big.bin", "200"),
            ("/api/health", "200"),
            ("/missing.txt", "404"),
        ] {
            let (line, head, _) = curl(&ca, addr, path, &[version]);
            assert!(line.ends_with(status), "{path}: {line}");
            let values: Vec<_> = head
                .lines()
                .filter(|line| {
                    line.to_ascii_lowercase()
                        .starts_with("strict-transport-security:")
                })
                .collect();
            assert_eq!(values.len(), 1, "{version} {path}: {head}");
            assert_eq!(
                field(&head, "strict-transport-security"),
                Some("max-age=300")
            );
        }
    }
}

#[test]
fn a_redirect_to_https_without_tls_is_an_error_at_start() {
    let server = Server::bind("127.0.0.1:0")
        .unwrap()
        .shutdown_on_signals(false)
        .redirect_http("127.0.0.1:0")
        .unwrap();
    let plain = server.redirect_addr().unwrap();
    let error = server
        .serve(SITE.service(), Router::new())
        .expect_err("refused");
    assert_eq!(error.kind(), std::io::ErrorKind::InvalidInput);
    assert!(error.to_string().contains(&plain.to_string()), "{error}");
    assert!(error.to_string().contains("Server::tls"), "{error}");
}

/// The messages of the `embed_assets::tls` events made while `f` runs on this thread.
fn tls_messages(f: impl FnOnce()) -> Vec<String> {
    events::messages_of("embed_assets::tls", f)
}

#[test]
fn an_expired_certificate_is_logged_and_a_valid_one_is_not() {
    let Some(authority) = Authority::new("expired") else {
        return;
    };
    let expired = authority.issue_for("expired", -1);
    let messages = tls_messages(|| {
        Tls::from_pem_files(&expired.certificate, &expired.key).expect("still served");
    });
    assert_eq!(messages.len(), 1, "{messages:?}");
    let message = &messages[0];
    assert!(
        message.contains("expired.pem") && message.contains("expired 1 day ago"),
        "{message}"
    );
    let valid = authority.issue("valid");
    let messages = tls_messages(|| {
        Tls::from_pem_files(&valid.certificate, &valid.key).unwrap();
    });
    assert_eq!(messages, Vec::<String>::new());
}

/// The descriptors this process has open.
fn open_descriptors() -> usize {
    std::fs::read_dir("/proc/self/fd").map_or(0, Iterator::count)
}

/// This process's resident memory, in bytes.
fn resident_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|field| field.parse().ok())
        .unwrap_or(0);
    pages * 4096
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_handshakes_leave_no_descriptor_or_memory_behind() {
    if !cfg!(target_os = "linux") {
        return; // /proc
    }
    let Some((authority, addr)) = serve_new("handshakes-10k") else {
        return;
    };
    // Full handshakes: the client keeps no session to resume.
    let connector = {
        let mut roots = tokio_rustls::rustls::RootCertStore::empty();
        let pem = std::fs::read(authority.certificate()).unwrap();
        roots.add(first_der(&pem).into()).unwrap();
        let mut config = tokio_rustls::rustls::ClientConfig::builder()
            .with_root_certificates(roots)
            .with_no_client_auth();
        config.resumption = tokio_rustls::rustls::client::Resumption::disabled();
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        tokio_rustls::TlsConnector::from(std::sync::Arc::new(config))
    };
    let round = |count: usize| {
        let connector = connector.clone();
        async move {
            for i in 0..count {
                match i % 10 {
                    // A client that gives up in the middle of its ClientHello.
                    3 => {
                        let mut stream = TcpStream::connect(addr).await.unwrap();
                        let _ = stream
                            .write_all(&[0x16, 0x03, 0x01, 0x02, 0x00, 0x01])
                            .await;
                    }
                    // Garbage.
                    7 => {
                        let mut stream = TcpStream::connect(addr).await.unwrap();
                        let _ = stream.write_all(b"\x00\x01garbage\r\n\r\n").await;
                        let _ = stream.read(&mut [0; 64]).await;
                    }
                    _ => {
                        let mut stream = tls::connect(&connector, addr).await;
                        if i % 100 == 0 {
                            stream
                                .write_all(b"GET /tiny.txt HTTP/1.1\r\nHost: embed.test\r\n\r\n")
                                .await
                                .unwrap();
                            let mut answer = [0; 512];
                            let n = stream.read(&mut answer).await.unwrap();
                            assert!(answer[..n].starts_with(b"HTTP/1.1 200 OK\r\n"));
                        }
                    }
                }
            }
        }
    };
    // A first thousand settles the allocator and the runtime's pools.
    round(1_000).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (descriptors, resident) = (open_descriptors(), resident_bytes());
    round(10_000).await;
    // The server closes what the clients left: give it a moment.
    let deadline = Instant::now() + Duration::from_secs(10);
    while open_descriptors() > descriptors + 2 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let after = open_descriptors();
    assert!(
        after <= descriptors + 2,
        "descriptors: {descriptors} before, {after} after"
    );
    let grown = resident_bytes().saturating_sub(resident);
    assert!(
        grown < 32 << 20,
        "resident memory grew by {grown} bytes over 10,000 handshakes"
    );
}

#[test]
fn testssl_finds_no_weak_protocol_cipher_or_known_vulnerability() {
    let Some(testssl) = programs::require(&["testssl", "testssl.sh"], &[], "testssl.sh") else {
        return;
    };
    let Some((authority, addr)) = serve_new("testssl") else {
        return;
    };
    let report = authority.dir().join("testssl.json");
    // Protocols, cipher categories, forward secrecy, server preferences and the known
    // vulnerabilities; the test authority trusted, so the chain is no finding.
    let output = Command::new(testssl)
        .args(["--quiet", "--color", "0", "--warnings", "batch", "--sneaky"])
        .args(["-p", "-s", "-f", "-P", "-U", "--add-ca"])
        .arg(authority.certificate())
        .arg("--jsonfile")
        .arg(&report)
        .arg(format!("127.0.0.1:{}", addr.port()))
        .output()
        .expect("run testssl");
    let text = std::fs::read_to_string(&report).unwrap_or_else(|_| {
        panic!(
            "testssl wrote no report: {}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    let findings: Vec<serde_json::Value> = serde_json::from_str(&text).expect("testssl's JSON");
    // BREACH is testssl's note that `/` came compressed: it matters for a page that
    // reflects what a request sends beside a secret, which a static file never does
    // (nginx with `gzip_static` gets the same note).
    let serious: Vec<String> = findings
        .iter()
        .filter(|finding| {
            matches!(
                finding["severity"].as_str(),
                Some("MEDIUM" | "HIGH" | "CRITICAL")
            ) && finding["id"] != "BREACH"
        })
        .map(|finding| {
            format!(
                "{} {}: {}",
                finding["severity"], finding["id"], finding["finding"]
            )
        })
        .collect();
    assert!(serious.is_empty(), "testssl: {serious:#?}");
    // What it saw: TLS 1.3 and 1.2 offered, nothing older.
    let offered = |id: &str| {
        findings
            .iter()
            .find(|finding| finding["id"] == id)
            .and_then(|finding| finding["finding"].as_str())
            .unwrap_or("")
            .to_owned()
    };
    for old in ["SSLv2", "SSLv3", "TLS1", "TLS1_1"] {
        assert!(
            offered(old).starts_with("not offered"),
            "{old}: {}",
            offered(old)
        );
    }
    for new in ["TLS1_2", "TLS1_3"] {
        assert!(
            offered(new).starts_with("offered"),
            "{new}: {}",
            offered(new)
        );
    }
}

#[test]
fn a_certificate_that_names_no_host_is_an_error_at_start() {
    let Some(authority) = Authority::new("nameless") else {
        return;
    };
    // A certificate with a common name and no subjectAltName: what clients refuse for
    // every name since RFC 6125 (and what a CA's own certificate looks like).
    authority.openssl(&[
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
        "-keyout",
        "nameless.key",
        "-out",
        "nameless.pem",
        "-days",
        "2",
        "-subj",
        &format!("/CN={NAME}"),
    ]);
    let dir = authority.dir();
    let error = Tls::from_pem_files(dir.join("nameless.pem"), dir.join("nameless.key"))
        .expect_err("refused");
    assert_eq!(error.kind(), std::io::ErrorKind::InvalidData, "{error}");
    assert!(
        error.to_string().contains("nameless.pem") && error.to_string().contains("names no host"),
        "{error}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_asking_for_a_name_the_certificate_is_not_for_is_logged_once() {
    let Some((authority, addr)) = serve_new("stranger") else {
        return;
    };
    events::record();
    // A client that asks for `other.test` and, trusting nothing, is refused by its own
    // check; the server has chosen its certificate by then, and says so.
    let connector = authority.connector(&[b"http/1.1"]);
    for _ in 0..3 {
        let tcp = TcpStream::connect(addr).await.unwrap();
        let name = tokio_rustls::rustls::pki_types::ServerName::try_from("other.test").unwrap();
        assert!(connector.connect(name, tcp).await.is_err(), "refused");
    }
    // The names it is for, and an IP address (no SNI), are not warned of.
    let _ = tls::connect(&connector, addr).await;
    let tcp = TcpStream::connect(addr).await.unwrap();
    let ip = tokio_rustls::rustls::pki_types::ServerName::try_from("127.0.0.1").unwrap();
    connector
        .connect(ip, tcp)
        .await
        .expect("127.0.0.1 is named");
    let deadline = Instant::now() + Duration::from_secs(5);
    let warned = loop {
        let warned: Vec<String> = events::messages("embed_assets::tls")
            .into_iter()
            .filter(|message| message.contains("asked for"))
            .collect();
        if !warned.is_empty() || Instant::now() > deadline {
            break warned;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(warned.len(), 1, "{warned:?}");
    assert!(
        warned[0].contains("other.test")
            && warned[0].contains(&format!("localhost, {NAME}, 127.0.0.1")),
        "{}",
        warned[0]
    );
}
