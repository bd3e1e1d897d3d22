//! bench-tls's own TLS: the server configuration of its hand-written ceiling and of the
//! axum-server peer (rustls with aws-lc-rs, as ours; TLS 1.3 only; ALPN `http/1.1`; the
//! bench certificate), and a blocking HTTPS client that checks every server before it
//! is measured and reads the exact bytes of ours' answers for the ceiling.

use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use bench::client::Reply;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};

/// Longest a check may wait for the server.
const TIMEOUT: Duration = Duration::from_secs(10);

/// The crypto provider ours uses.
fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::aws_lc_rs::default_provider())
}

/// TLS 1.3 only, ALPN `http/1.1`, the chain in `certificate` and the key in `key` (PEM):
/// what nginx is given here, and what HTTP Arena's static-tls asks for. With
/// `server_order`, the server's order of cipher suites, as ours has it (rustls's:
/// AES-256-GCM first), rather than the client's.
pub(crate) fn server_config(
    certificate: &Path,
    key: &Path,
    server_order: bool,
) -> Result<rustls::ServerConfig, String> {
    let chain = CertificateDer::pem_file_iter(certificate)
        .and_then(|certificates| certificates.collect::<Result<Vec<_>, _>>())
        .map_err(|e| format!("{}: {e}", certificate.display()))?;
    let key = PrivateKeyDer::from_pem_file(key).map_err(|e| format!("{}: {e}", key.display()))?;
    let mut config = rustls::ServerConfig::builder_with_provider(provider())
        .with_protocol_versions(&[&rustls::version::TLS13])
        .map_err(|e| e.to_string())?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .map_err(|e| e.to_string())?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    config.ignore_client_order = server_order;
    Ok(config)
}

/// What a server answered over TLS, and what the session was.
#[derive(Debug)]
pub(crate) struct Answer {
    /// The response, parsed.
    pub(crate) reply: Reply,
    /// The response as it came out of the session, head and body.
    pub(crate) raw: Vec<u8>,
    /// The protocol ALPN settled on, if any.
    pub(crate) alpn: Option<String>,
    /// `TLSv1_3`, and the cipher suite.
    pub(crate) session: String,
}

/// A blocking HTTPS client trusting one certificate authority, TLS 1.3 only.
#[derive(Debug)]
pub(crate) struct Client {
    config: Arc<rustls::ClientConfig>,
}

impl Client {
    /// Trusts the authority in the PEM file `ca`; offers `alpn` (none: no ALPN).
    pub(crate) fn new(ca: &Path, alpn: &[&str]) -> Result<Client, String> {
        let mut roots = rustls::RootCertStore::empty();
        for certificate in
            CertificateDer::pem_file_iter(ca).map_err(|e| format!("{}: {e}", ca.display()))?
        {
            let certificate = certificate.map_err(|e| format!("{}: {e}", ca.display()))?;
            roots.add(certificate).map_err(|e| e.to_string())?;
        }
        let mut config = rustls::ClientConfig::builder_with_provider(provider())
            .with_protocol_versions(&[&rustls::version::TLS13])
            .map_err(|e| e.to_string())?
            .with_root_certificates(roots)
            .with_no_client_auth();
        config.alpn_protocols = alpn.iter().map(|p| p.as_bytes().to_vec()).collect();
        Ok(Client {
            config: Arc::new(config),
        })
    }

    /// `GET path` with `headers` on a new connection to `addr` (checked against the
    /// certificate's IP address), as wrk sends it: keep-alive, so the head is the one
    /// measured. The body is read by `Content-Length`, which every server here sends.
    pub(crate) fn get(
        &self,
        addr: SocketAddr,
        path: &str,
        headers: &[(String, String)],
    ) -> Result<Answer, String> {
        let tcp =
            TcpStream::connect_timeout(&addr, TIMEOUT).map_err(|e| format!("connect: {e}"))?;
        tcp.set_read_timeout(Some(TIMEOUT))
            .and_then(|()| tcp.set_write_timeout(Some(TIMEOUT)))
            .map_err(|e| e.to_string())?;
        let name = ServerName::IpAddress(addr.ip().into());
        let session = rustls::ClientConnection::new(Arc::clone(&self.config), name)
            .map_err(|e| e.to_string())?;
        let mut stream = rustls::StreamOwned::new(session, tcp);
        let (reply, raw) = bench::client::exchange(&mut stream, addr, path, headers)?;
        if reply.header("transfer-encoding").is_some() {
            return Err("a chunked body, where every server here sends Content-Length".into());
        }
        let alpn = stream
            .conn
            .alpn_protocol()
            .map(|p| String::from_utf8_lossy(p).into_owned());
        let session = format!(
            "{:?} {:?}",
            stream.conn.protocol_version(),
            stream.conn.negotiated_cipher_suite().map(|s| s.suite())
        );
        Ok(Answer {
            reply,
            raw,
            alpn,
            session,
        })
    }
}
