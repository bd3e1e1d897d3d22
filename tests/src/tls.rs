//! Certificates for the TLS tests, made by the `openssl` command as an administrator
//! makes them: a certificate authority of the test's own, and server certificates it
//! signs for `localhost`, `embed.test` and 127.0.0.1; and a rustls client that trusts
//! that authority alone. The harness's TLS mode (`EMBED_TEST_TLS=1`) serves and
//! connects with one such authority per test process.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, OnceLock};

use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;
use tokio_rustls::rustls;
use tokio_rustls::rustls::pki_types::pem::PemObject as _;
use tokio_rustls::rustls::pki_types::{CertificateDer, ServerName};

use crate::programs;

/// The name the test certificates are for besides `localhost` (no resolver knows it:
/// clients are told it is 127.0.0.1).
pub const NAME: &str = "embed.test";

/// A certificate authority in a folder of its own, and what it signed there.
#[derive(Debug)]
pub struct Authority {
    dir: PathBuf,
    openssl: PathBuf,
}

/// A server certificate and its key, as PEM files.
#[derive(Debug, Clone)]
pub struct Issued {
    /// The certificate (the server's own; the authority is the client's to trust).
    pub certificate: PathBuf,
    /// Its private key (PKCS#8).
    pub key: PathBuf,
}

impl Authority {
    /// A new authority in a fresh folder named after `test`; `None` (the test skipped)
    /// without `openssl`.
    ///
    /// # Panics
    /// When `openssl` fails.
    pub fn new(test: &str) -> Option<Authority> {
        let openssl = programs::require(&["openssl"], &[], "openssl")?;
        let dir =
            std::env::temp_dir().join(format!("embed-assets-tls-{}-{test}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("the certificates' folder");
        let authority = Authority { dir, openssl };
        authority.openssl(&[
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-keyout",
            "ca.key",
            "-out",
            "ca.pem",
            "-days",
            "2",
            "-subj",
            "/CN=embed-assets test CA",
            "-addext",
            "basicConstraints=critical,CA:TRUE",
            "-addext",
            "keyUsage=critical,keyCertSign",
        ]);
        Some(authority)
    }

    /// The authority's own certificate (what a client trusts).
    pub fn certificate(&self) -> PathBuf {
        self.dir.join("ca.pem")
    }

    /// The folder of the authority's files.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// A server certificate for `localhost`, [`NAME`] and 127.0.0.1 (its subject's
    /// common name `name`, valid for two days from now), signed by the authority, as
    /// `name.pem` and `name.key` in its folder.
    ///
    /// # Panics
    /// When `openssl` fails.
    pub fn issue(&self, name: &str) -> Issued {
        self.issue_for(name, 2)
    }

    /// [`issue`](Self::issue), valid for `days` days from now: with `-1`, it expired a
    /// day ago.
    ///
    /// # Panics
    /// When `openssl` fails.
    pub fn issue_for(&self, name: &str, days: i32) -> Issued {
        std::fs::write(
            self.dir.join(format!("{name}.ext")),
            format!(
                "subjectAltName=DNS:localhost,DNS:{NAME},IP:127.0.0.1\nbasicConstraints=CA:FALSE\n\
                 keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n"
            ),
        )
        .expect("the extensions file");
        let [key, request, certificate, extensions] =
            ["key", "csr", "pem", "ext"].map(|extension| format!("{name}.{extension}"));
        self.openssl(&[
            "req",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-keyout",
            &key,
            "-out",
            &request,
            "-subj",
            &format!("/CN={name}"),
        ]);
        self.openssl(&[
            "x509",
            "-req",
            "-in",
            &request,
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            &certificate,
            "-days",
            &days.to_string(),
            "-extfile",
            &extensions,
        ]);
        Issued {
            certificate: self.dir.join(certificate),
            key: self.dir.join(key),
        }
    }

    /// Runs `openssl` with `args` in the authority's folder.
    ///
    /// # Panics
    /// When it fails.
    pub fn openssl(&self, args: &[&str]) {
        let output = Command::new(&self.openssl)
            .args(args)
            .current_dir(&self.dir)
            .output()
            .expect("run openssl");
        assert!(
            output.status.success(),
            "openssl {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }

    /// A rustls client that trusts this authority alone, offering `alpn`.
    ///
    /// # Panics
    /// When the authority's certificate cannot be read.
    pub fn connector(&self, alpn: &[&[u8]]) -> TlsConnector {
        let mut roots = rustls::RootCertStore::empty();
        for certificate in CertificateDer::pem_file_iter(self.certificate()).expect("ca.pem") {
            roots
                .add(certificate.expect("ca.pem"))
                .expect("the authority");
        }
        let mut config = rustls::ClientConfig::builder()
            .with_root_certificates(roots)
            .with_no_client_auth();
        config.alpn_protocols = alpn.iter().map(|protocol| protocol.to_vec()).collect();
        TlsConnector::from(Arc::new(config))
    }
}

impl Drop for Authority {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// What a run with `EMBED_TEST_TLS=1` serves and connects with: a server certificate
/// signed by an authority made for the test process, read once (its files are then
/// deleted: a server looks at them again only to take a renewal, and keeps what it has
/// when they are gone), and a client for each protocol offered by ALPN.
struct Harness {
    tls: embed_assets::Tls,
    http1: TlsConnector,
    h2: TlsConnector,
}

/// The [`Harness`], made on first use.
///
/// # Panics
/// Without `openssl`, or when it fails.
fn harness() -> &'static Harness {
    static HARNESS: OnceLock<Harness> = OnceLock::new();
    HARNESS.get_or_init(|| {
        let authority = Authority::new("harness").unwrap_or_else(|| {
            panic!("EMBED_TEST_TLS=1: the harness's test certificates are made with openssl")
        });
        let issued = authority.issue("harness");
        let tls = embed_assets::Tls::from_pem_files(&issued.certificate, &issued.key)
            .expect("the harness's test certificate");
        Harness {
            tls,
            http1: authority.connector(&[b"http/1.1"]),
            h2: authority.connector(&[b"h2"]),
        }
    })
}

/// What a `serve` started by a test terminates TLS with under `EMBED_TEST_TLS=1`, as
/// the harness's does: one certificate per test process, signed by an authority made
/// for it, which [`harness_connector`] trusts.
///
/// # Panics
/// Without `openssl`, or when it fails.
pub fn harness_tls() -> embed_assets::Tls {
    harness().tls.clone()
}

/// A client that trusts [`harness_tls`]'s authority alone and offers `h2` by
/// ALPN (with `http2`) or `http/1.1`.
///
/// # Panics
/// Without `openssl`, or when it fails.
pub fn harness_connector(http2: bool) -> &'static TlsConnector {
    let harness = harness();
    if http2 { &harness.h2 } else { &harness.http1 }
}

/// A TLS connection to `addr` for [`NAME`] through `connector`.
///
/// # Panics
/// When the connection or the handshake fails.
pub async fn connect(connector: &TlsConnector, addr: std::net::SocketAddr) -> TlsStream<TcpStream> {
    let tcp = TcpStream::connect(addr).await.expect("connect");
    connector
        .connect(ServerName::try_from(NAME).expect("a name"), tcp)
        .await
        .expect("the TLS handshake")
}
