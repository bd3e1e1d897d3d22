//! `Tls::acme`: `serve` obtaining and renewing its certificate from a real ACME server
//! (Debian's `pebble`, with `pebble-challtestsrv` as its DNS, both started by the test on
//! 127.0.0.1), proving the name by TLS-ALPN-01 and by HTTP-01, keeping account and
//! certificate in its cache folder, and swapping a renewed certificate in live.

use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use embed_assets::{Acme, Server, ShutdownHandle, Tls};
use integration_tests::tls::{Authority, NAME};
use integration_tests::{SITE, events, fixture, programs};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;
use tokio_rustls::rustls;
use tokio_rustls::rustls::pki_types::pem::PemObject as _;
use tokio_rustls::rustls::pki_types::{CertificateDer, ServerName};

/// A port free on 127.0.0.1 when asked (pebble is told the server's ports before the
/// server binds them).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port()
}

/// A child process killed when the test ends, however it ends.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// pebble, its DNS answering 127.0.0.1 for every name, validating challenges on
/// `http_port` (HTTP-01) and `tls_port` (TLS-ALPN-01), its own HTTPS with a
/// certificate of `authority`.
struct Pebble {
    directory: String,
    management: SocketAddr,
    _processes: [Running; 2],
}

impl Pebble {
    fn start(authority: &Authority, http_port: u16, tls_port: u16) -> Option<Pebble> {
        let pebble = programs::require(&["pebble"], &[], "pebble")?;
        let dns_server = programs::require(&["pebble-challtestsrv"], &[], "pebble")?;
        let issued = authority.issue("pebble");
        let dns = SocketAddr::from(([127, 0, 0, 1], free_port()));
        let listen = SocketAddr::from(([127, 0, 0, 1], free_port()));
        let management = SocketAddr::from(([127, 0, 0, 1], free_port()));
        let config = authority.dir().join("pebble.json");
        std::fs::write(
            &config,
            serde_json::json!({ "pebble": {
                "listenAddress": listen.to_string(),
                "managementListenAddress": management.to_string(),
                "certificate": issued.certificate,
                "privateKey": issued.key,
                "httpPort": http_port,
                "tlsPort": tls_port,
                "ocspResponderURL": "",
                "externalAccountBindingRequired": false,
            }})
            .to_string(),
        )
        .expect("pebble's configuration");
        let log = |name: &str| {
            Stdio::from(std::fs::File::create(authority.dir().join(name)).expect("a log file"))
        };
        let dns_process = Command::new(dns_server)
            .args(["-dns01", &dns.to_string(), "-management"])
            .arg(SocketAddr::from(([127, 0, 0, 1], free_port())).to_string())
            .args(["-http01", "", "-https01", "", "-tlsalpn01", ""])
            .args(["-defaultIPv4", "127.0.0.1", "-defaultIPv6", ""])
            .stdout(log("challtestsrv.log"))
            .stderr(log("challtestsrv.err"))
            .spawn()
            .expect("start pebble-challtestsrv");
        let dns_process = Running(dns_process);
        let pebble_process = Command::new(pebble)
            .arg("-config")
            .arg(&config)
            .arg("-dnsserver")
            .arg(dns.to_string())
            // Validations at once, every nonce good, every authorization validated anew
            // (a renewal proves the name again).
            .env("PEBBLE_VA_NOSLEEP", "1")
            .env("PEBBLE_WFE_NONCEREJECT", "0")
            .env("PEBBLE_AUTHZREUSE", "0")
            .stdout(log("pebble.log"))
            .stderr(log("pebble.err"))
            .spawn()
            .expect("start pebble");
        let pebble_process = Running(pebble_process);
        let deadline = Instant::now() + Duration::from_secs(20);
        while std::net::TcpStream::connect(listen).is_err()
            || std::net::TcpStream::connect(management).is_err()
        {
            assert!(Instant::now() < deadline, "pebble did not listen in 20 s");
            std::thread::sleep(Duration::from_millis(50));
        }
        Some(Pebble {
            directory: format!("https://{listen}/dir"),
            management,
            _processes: [dns_process, pebble_process],
        })
    }

    /// The root pebble issues under (made anew at each start), fetched from its
    /// management interface by curl trusting `authority`.
    fn root(&self, authority: &Authority) -> PathBuf {
        let curl = programs::find(&["curl"], &[]).expect("curl");
        let root = authority.dir().join("pebble-root.pem");
        let status = Command::new(curl)
            .args(["-sSf", "--max-time", "10", "--cacert"])
            .arg(authority.certificate())
            .arg("-o")
            .arg(&root)
            .arg(format!("https://{}/roots/0", self.management))
            .status()
            .expect("run curl");
        assert!(status.success(), "pebble's root");
        root
    }
}

/// A client that trusts the PEM certificates of `root` alone.
fn client(root: &Path) -> TlsConnector {
    let mut roots = rustls::RootCertStore::empty();
    for certificate in CertificateDer::pem_file_iter(root).expect("the root") {
        roots.add(certificate.expect("PEM")).expect("a root");
    }
    let mut config = rustls::ClientConfig::builder()
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    TlsConnector::from(Arc::new(config))
}

/// A TLS connection for [`NAME`] to `addr`, or why there is none.
async fn connect(client: &TlsConnector, addr: SocketAddr) -> Result<TlsStream<TcpStream>, String> {
    let tcp = TcpStream::connect(addr)
        .await
        .map_err(|error| error.to_string())?;
    client
        .connect(ServerName::try_from(NAME).expect("a name"), tcp)
        .await
        .map_err(|error| error.to_string())
}

/// The certificate a connection was served (its DER).
fn served(stream: &TlsStream<TcpStream>) -> Vec<u8> {
    stream.get_ref().1.peer_certificates().expect("a chain")[0].to_vec()
}

/// `GET path` on `stream`, closing it; the bytes after the head.
async fn get(stream: &mut TlsStream<TcpStream>, path: &str) -> (String, Vec<u8>) {
    stream
        .write_all(
            format!("GET {path} HTTP/1.1\r\nHost: {NAME}\r\nConnection: close\r\n\r\n").as_bytes(),
        )
        .await
        .expect("a request");
    let mut received = Vec::new();
    let _ = stream.read_to_end(&mut received).await;
    let end = received
        .windows(4)
        .position(|window| window == b"\r\n\r\n")
        .expect("a head");
    (
        String::from_utf8_lossy(&received[..end]).into_owned(),
        received[end + 4..].to_vec(),
    )
}

/// The messages logged on `embed_assets::tls` so far, from every thread (the ACME
/// thread's).
fn messages() -> Vec<String> {
    events::messages("embed_assets::tls")
}

/// `serve` on 127.0.0.1:`port` with `tls` (and a redirecting listener on `http_port`,
/// if given), one worker, until the handle stops it.
fn spawn(
    tls: Tls,
    port: u16,
    http_port: Option<u16>,
) -> (ShutdownHandle, std::thread::JoinHandle<()>) {
    let mut server = Server::bind(("127.0.0.1", port))
        .expect("bind the TLS port")
        .workers(1)
        .shutdown_on_signals(false)
        .drain_timeout(Duration::from_secs(1))
        .tls(tls);
    if let Some(http_port) = http_port {
        server = server
            .redirect_http(("127.0.0.1", http_port))
            .expect("bind the cleartext port");
    }
    let stop = server.shutdown_handle();
    let thread = std::thread::spawn(move || {
        server
            .serve(
                SITE.service(),
                Router::new().fallback_service(SITE.service()),
            )
            .expect("serve");
    });
    (stop, thread)
}

/// Waits until a client trusting `root` is served a certificate other than `not`
/// (`None`: any), and returns the connection.
async fn served_other_than(
    client: &TlsConnector,
    addr: SocketAddr,
    not: Option<&[u8]>,
    what: &str,
) -> TlsStream<TcpStream> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let last = match connect(client, addr).await {
            Ok(stream) if Some(served(&stream).as_slice()) != not => return stream,
            Ok(_) => "the certificate before".to_owned(),
            Err(error) => error,
        };
        if Instant::now() >= deadline {
            let logged = messages();
            panic!("{what}: not within 60 s (last: {last}); logged: {logged:?}");
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_certificate_is_obtained_by_tls_alpn_01_kept_and_renewed_by_http_01_live() {
    let Some(authority) = Authority::new("acme") else {
        return;
    };
    let (tls_port, http_port) = (free_port(), free_port());
    let Some(pebble) = Pebble::start(&authority, http_port, tls_port) else {
        return;
    };
    events::record();
    let root = pebble.root(&authority);
    let trusting = client(&root);
    let cache = authority.dir().join("acme-cache");
    let addr = SocketAddr::from(([127, 0, 0, 1], tls_port));
    let settings = || {
        Acme::new([NAME], &cache)
            .directory(&pebble.directory)
            .directory_root(authority.certificate())
            .contact("mailto:admin@embed.test")
    };

    // No certificate yet: the server orders one when it listens, proving the name by
    // TLS-ALPN-01 on its own port, and serves the site under it.
    let (stop, thread) = spawn(Tls::acme(settings()).expect("the settings"), tls_port, None);
    let mut stream = served_other_than(&trusting, addr, None, "the first certificate").await;
    let first = served(&stream);
    let (head, body) = get(&mut stream, "/tiny.txt").await;
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert_eq!(body, fixture("/tiny.txt"));
    let logged = messages();
    assert!(
        logged
            .iter()
            .any(|message| message.contains("was obtained from") && message.contains(NAME)),
        "{logged:?}"
    );
    let kept: Vec<PathBuf> = std::fs::read_dir(&cache)
        .expect("the cache folder")
        .map(|entry| entry.expect("an entry").path())
        .collect();
    let named = |prefix: &str, suffix: &str| {
        kept.iter()
            .find(|path| {
                let name = path.file_name().unwrap().to_string_lossy();
                name.starts_with(prefix) && name.ends_with(suffix)
            })
            .unwrap_or_else(|| panic!("{prefix}*{suffix} in {kept:?}"))
            .clone()
    };
    let chain_file = named(&format!("{NAME}-"), ".crt.pem");
    let key_file = named(&format!("{NAME}-"), ".key.pem");
    named("account-", ".json");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        for secret in [&key_file, &named("account-", ".json")] {
            let mode = std::fs::metadata(secret).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600, "{}", secret.display());
        }
    }
    let first_kept = std::fs::read(&chain_file).unwrap();
    stop.shutdown();
    thread.join().expect("the first server ended");

    // A restart serves the kept certificate at once; one due for renewal (here: any, as
    // the window is longer than its life) is renewed live, by HTTP-01 on the
    // cleartext listener this time: new connections get the new one, one open before
    // goes on.
    let renewing = settings()
        .renew_before(Duration::from_secs(100 * 365 * 86_400))
        .http_01();
    let (stop, thread) = spawn(
        Tls::acme(renewing).expect("the settings"),
        tls_port,
        Some(http_port),
    );
    let mut open = connect(&trusting, addr)
        .await
        .expect("the kept certificate at once");
    assert_eq!(
        served(&open),
        first,
        "the kept certificate is served at start"
    );
    let mut renewed = served_other_than(&trusting, addr, Some(&first), "the renewal").await;
    let (head, body) = get(&mut renewed, "/index.html").await;
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert_eq!(body, fixture("/index.html"));
    let (head, body) = get(&mut open, "/tiny.txt").await;
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert_eq!(body, fixture("/tiny.txt"));
    assert_ne!(
        std::fs::read(&chain_file).unwrap(),
        first_kept,
        "the renewed certificate is kept"
    );
    // The cleartext listener still redirects all else, challenge paths included.
    let mut plain = TcpStream::connect(("127.0.0.1", http_port)).await.unwrap();
    plain
        .write_all(
            format!(
                "GET /.well-known/acme-challenge/unknown HTTP/1.1\r\nHost: {NAME}\r\nConnection: close\r\n\r\n"
            )
            .as_bytes(),
        )
        .await
        .unwrap();
    let mut answer = String::new();
    let _ = plain.read_to_string(&mut answer).await;
    assert!(answer.starts_with("HTTP/1.1 308"), "{answer}");
    stop.shutdown();
    thread.join().expect("the second server ended");
}

#[test]
fn settings_that_cannot_work_are_errors_at_start_naming_them() {
    let dir = std::env::temp_dir().join(format!("embed-assets-acme-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let cache = dir.join("cache");
    let refused = |acme: Acme, kind: std::io::ErrorKind, says: &[&str]| {
        let error = Tls::acme(acme).expect_err("refused");
        assert_eq!(error.kind(), kind, "{error}");
        for part in says {
            assert!(error.to_string().contains(part), "{error} lacks {part:?}");
        }
    };
    use std::io::ErrorKind::InvalidInput;
    refused(
        Acme::new(Vec::<String>::new(), &cache),
        InvalidInput,
        &["no name"],
    );
    refused(
        Acme::new(["127.0.0.1"], &cache),
        InvalidInput,
        &["127.0.0.1", "IP address"],
    );
    refused(
        Acme::new(["example.com:443"], &cache),
        InvalidInput,
        &["example.com:443"],
    );
    refused(
        Acme::new(["example.com"], &cache).directory("http://acme.example/directory"),
        InvalidInput,
        &["http://acme.example/directory", "https"],
    );
    refused(
        Acme::new(["example.com"], &cache).directory_root(dir.join("missing.pem")),
        std::io::ErrorKind::NotFound,
        &["missing.pem"],
    );
    let file = dir.join("a-file");
    std::fs::write(&file, b"").unwrap();
    let error = Tls::acme(Acme::new(["example.com"], file.join("cache"))).expect_err("refused");
    assert!(error.to_string().contains("a-file"), "{error}");
    assert!(error.to_string().contains("cache folder"), "{error}");

    // HTTP-01 needs the cleartext listener, which answers it.
    let tls = Tls::acme(Acme::new(["example.com"], &cache).http_01()).expect("the settings");
    let error = Server::bind("127.0.0.1:0")
        .unwrap()
        .shutdown_on_signals(false)
        .tls(tls)
        .serve(SITE.service(), Router::new())
        .expect_err("refused");
    assert_eq!(error.kind(), InvalidInput);
    assert!(error.to_string().contains("redirect_http"), "{error}");
    std::fs::remove_dir_all(&dir).unwrap();
}
