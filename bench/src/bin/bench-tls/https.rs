//! bench-tls's own TLS: the server configuration of its hand-written ceiling and of the
//! axum-server peer (rustls with aws-lc-rs, as ours; TLS 1.3 only; ALPN `http/1.1`; the
//! bench certificate), and a blocking HTTPS client that checks every server before it
//! is measured and reads the exact bytes of ours' answers for the ceiling.

use std::io::Write as _;
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
/// A response over this is an error (the largest checked body is about 300 KB).
const MAX_RESPONSE: usize = 16 << 20;

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
        let mut request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\n");
        for (name, value) in headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        request.push_str("\r\n");
        stream
            .write_all(request.as_bytes())
            .map_err(|e| format!("TLS: {e}"))?;
        let mut buf = Vec::with_capacity(64 << 10);
        let head_len = loop {
            if let Some(at) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                break at + 4;
            }
            read_more(&mut stream, &mut buf)?;
        };
        let (status, fields) = parse_head(&buf[..head_len])?;
        let mut reply = Reply {
            status,
            headers: fields,
            head_len,
            body: Vec::new(),
            wire_body_len: 0,
        };
        if reply.header("transfer-encoding").is_some() {
            return Err("a chunked body, where every server here sends Content-Length".into());
        }
        let length: usize = match reply.header("content-length") {
            Some(text) => text
                .parse()
                .map_err(|_| format!("bad Content-Length `{text}`"))?,
            None if status == 304 || status == 204 => 0,
            None => return Err("no Content-Length".into()),
        };
        if length > MAX_RESPONSE {
            return Err(format!("Content-Length {length} is too large"));
        }
        while buf.len() < head_len + length {
            read_more(&mut stream, &mut buf)?;
        }
        buf.truncate(head_len + length);
        reply.body = buf[head_len..].to_vec();
        reply.wire_body_len = length;
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
            raw: buf,
            alpn,
            session,
        })
    }
}

fn read_more(stream: &mut impl std::io::Read, buf: &mut Vec<u8>) -> Result<(), String> {
    if buf.len() > MAX_RESPONSE {
        return Err("response too large".into());
    }
    let mut chunk = [0u8; 64 << 10];
    match stream.read(&mut chunk) {
        Ok(0) => Err("connection closed before the response ended".into()),
        Ok(n) => {
            buf.extend_from_slice(&chunk[..n]);
            Ok(())
        }
        Err(e) => Err(format!("receive: {e}")),
    }
}

/// The status and the fields (names lowercased) of a response head.
fn parse_head(head: &[u8]) -> Result<(u16, Vec<(String, String)>), String> {
    let head = std::str::from_utf8(head).map_err(|_| "head is not UTF-8")?;
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .ok_or_else(|| format!("bad status line `{status_line}`"))?;
    let fields = lines
        .filter(|line| !line.is_empty())
        .filter_map(|line| {
            let (name, value) = line.split_once(':')?;
            Some((name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        })
        .collect();
    Ok((status, fields))
}
