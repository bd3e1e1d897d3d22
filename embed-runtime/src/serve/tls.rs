//! [`Tls`]: what `serve` terminates TLS with (feature `tls`): rustls, TLS 1.3 and 1.2,
//! ALPN, and a certificate re-read from its files when they change.

use std::fmt;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant, SystemTime};

use http::HeaderValue;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;
use tokio::net::TcpStream;
use tokio_rustls::server::TlsStream;

use super::certificate::{self, Name};
use super::shutdown::until;
use crate::disk::{self, FileVersion};

/// How often, at most, the certificate's files are looked at for a change: at a
/// handshake, once this long has passed since the last look.
const RECHECK: Duration = Duration::from_secs(1);

/// The TLS side of a [`Server`](crate::Server) (feature `tls`): its certificate chain
/// and key, given to [`Server::tls`](crate::Server::tls).
///
/// TLS 1.3 and 1.2 only, with rustls and its `aws-lc-rs` provider; ALPN offers `http/1.1`
/// and, with the `http2` feature, `h2`. The server's hits are answered inside the TLS
/// session on the same fast path as in cleartext; bodies are encrypted here, so none
/// goes with `sendfile`.
///
/// ```no_run
/// # use embed_assets::{embed_assets, Assets};
/// # static ASSETS: Assets = embed_assets!("../examples/public");
/// # #[cfg(feature = "axum")]
/// fn main() -> std::io::Result<()> {
///     let app = axum::Router::new();
///     let tls = embed_assets::Tls::from_pem_files("cert.pem", "key.pem")?;
///     embed_assets::Server::bind("0.0.0.0:443")?
///         .tls(tls)
///         .serve(ASSETS.service(), app)
/// }
/// # #[cfg(not(feature = "axum"))]
/// # fn main() {}
/// ```
#[derive(Clone)]
pub struct Tls {
    config: Arc<rustls::ServerConfig>,
    source: Source,
}

/// Where a [`Tls`]'s certificate comes from.
#[derive(Clone)]
enum Source {
    /// Two PEM files, read again when they change.
    Files(Arc<Reloading>),
    /// Renewed by the server itself while it runs (an ACME directory).
    #[cfg(feature = "acme")]
    Renewed(Arc<dyn Renewed>),
}

/// A certificate the server keeps renewed itself while it runs (feature `acme`: from an
/// ACME directory, `renewal.rs`): what `serve` asks of it besides the certificate.
#[cfg(feature = "acme")]
pub(super) trait Renewed: Send + Sync + fmt::Debug {
    /// Whether names are proved on the cleartext listener (HTTP-01).
    fn uses_http_01(&self) -> bool;

    /// The answer to an HTTP-01 request for `path`, during an order.
    fn http_01(&self, path: &str) -> Option<String>;

    /// Starts keeping the certificate renewed, until `shutdown`.
    fn keep_renewed(
        self: Arc<Self>,
        shutdown: super::ShutdownHandle,
    ) -> io::Result<std::thread::JoinHandle<()>>;
}

/// The ALPN protocol of TLS-ALPN-01 (RFC 8737): a handshake that negotiates it proves a
/// name to an ACME server, and carries no request.
pub(super) const ACME_TLS_ALPN: &[u8] = b"acme-tls/1";

impl Tls {
    /// The certificate chain in the PEM file `certificate` (the server's own first, as
    /// certbot's `fullchain.pem`) and its private key in the PEM file `key` (PKCS#8,
    /// PKCS#1 or SEC1, as certbot's `privkey.pem`).
    ///
    /// Both files are looked at again, at most once a second, when a client connects:
    /// when either has changed (a renewal wrote them, or moved a link to new ones), the
    /// pair is read again and used for the connections from then on; the connections
    /// open keep theirs. A pair that cannot be used (a key written and its certificate
    /// not yet, say) leaves the one in use in place, with a warning on the `tracing`
    /// target `embed_assets::tls`, and is tried again on the next change.
    ///
    /// # Errors
    /// When a file cannot be read, holds no certificate or no private key, the key is
    /// of a kind rustls cannot sign with, or it is not the key of the certificate; the
    /// error names the file.
    pub fn from_pem_files(certificate: impl AsRef<Path>, key: impl AsRef<Path>) -> io::Result<Tls> {
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let files = Files {
            certificate: certificate.as_ref().to_path_buf(),
            key: key.as_ref().to_path_buf(),
        };
        let stamp = files.stamp();
        let loaded = files.load(&provider)?;
        let expired = files.warn_if_expired(loaded.expires);
        let certificate = Arc::new(Reloading {
            files,
            provider: Arc::clone(&provider),
            current: RwLock::new(Current {
                key: Arc::new(loaded.key),
                expires: loaded.expires,
                expired,
                names: loaded.names,
                stamp,
                refused: None,
            }),
            next_look: Mutex::new(Instant::now() + RECHECK),
            strangers: Mutex::new(Vec::new()),
        });
        let config = server_config(
            provider,
            Arc::clone(&certificate) as Arc<dyn ResolvesServerCert>,
            false,
        )?;
        Ok(Tls {
            config: Arc::new(config),
            source: Source::Files(certificate),
        })
    }

    /// A `Tls` whose certificate `resolver` gives and `renewed` keeps renewed (the
    /// same object, as the two traits it is).
    #[cfg(feature = "acme")]
    pub(super) fn with_renewed(
        provider: Arc<CryptoProvider>,
        resolver: Arc<dyn ResolvesServerCert>,
        renewed: Arc<dyn Renewed>,
    ) -> io::Result<Tls> {
        Ok(Tls {
            config: Arc::new(server_config(provider, resolver, true)?),
            source: Source::Renewed(renewed),
        })
    }

    /// What keeps the certificate renewed while the server runs, if anything.
    #[cfg(feature = "acme")]
    pub(super) fn renewed(&self) -> Option<&Arc<dyn Renewed>> {
        match &self.source {
            Source::Renewed(renewed) => Some(renewed),
            Source::Files(_) => None,
        }
    }
}

/// TLS 1.3 and 1.2 with `provider`, the certificate from `resolver`, ALPN `h2` (with
/// `http2`) and `http/1.1`, and `acme-tls/1` when an ACME directory is to prove names
/// by TLS-ALPN-01.
fn server_config(
    provider: Arc<CryptoProvider>,
    resolver: Arc<dyn ResolvesServerCert>,
    acme: bool,
) -> io::Result<rustls::ServerConfig> {
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13, &rustls::version::TLS12])
        .map_err(io::Error::other)?
        .with_no_client_auth()
        .with_cert_resolver(resolver);
    // The server's order of cipher suites (rustls's: AES-256-GCM, AES-128-GCM,
    // ChaCha20-Poly1305, forward secrecy only), not the client's.
    config.ignore_client_order = true;
    config.alpn_protocols = if cfg!(feature = "http2") {
        vec![b"h2".to_vec(), b"http/1.1".to_vec()]
    } else {
        vec![b"http/1.1".to_vec()]
    };
    if acme {
        config.alpn_protocols.push(ACME_TLS_ALPN.to_vec());
    }
    Ok(config)
}

/// What a worker starts each connection's TLS session with, and what it adds to the
/// answers sent in them.
#[derive(Clone)]
pub(super) struct Acceptor {
    sessions: tokio_rustls::TlsAcceptor,
    /// `Strict-Transport-Security`, with `Server::hsts`.
    pub(super) hsts: Option<HeaderValue>,
    /// The certificate's source, for the HTTP-01 answers of an ACME directory.
    source: Source,
}

impl Acceptor {
    /// The answer to an ACME server's HTTP-01 request for `path`
    /// (`/.well-known/acme-challenge/{token}`) while a certificate is being obtained.
    pub(crate) fn http_01(&self, path: &str) -> Option<String> {
        match &self.source {
            #[cfg(feature = "acme")]
            Source::Renewed(renewed) => renewed.http_01(path),
            Source::Files(_) => {
                let _ = path;
                None
            }
        }
    }
}

impl fmt::Debug for Tls {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut tls = f.debug_struct("Tls");
        match &self.source {
            Source::Files(reloading) => tls
                .field("certificate", &reloading.files.certificate)
                .field("key", &reloading.files.key),
            #[cfg(feature = "acme")]
            Source::Renewed(renewed) => tls.field("renewed", renewed),
        };
        tls.field("alpn", &self.config.alpn_protocols.len())
            .finish()
    }
}

/// The TLS handshake of an accepted connection, within `limit` (the header-read
/// timeout: a client that stalls its `ClientHello` holds its connection no longer than
/// one that stalls a request's head) and before a shutdown. `None`: the connection is
/// over.
pub(super) async fn handshake(
    acceptor: &Acceptor,
    stream: TcpStream,
    limit: Duration,
    stop: Pin<&mut impl Future<Output = ()>>,
) -> Option<TlsStream<TcpStream>> {
    let accepted = until(
        stop,
        tokio::time::timeout(limit, acceptor.sessions.accept(stream)),
    )
    .await;
    let session = accepted?.ok()?.ok()?;
    // RFC 8737 §3: after a TLS-ALPN-01 handshake the ACME server closes; nothing of
    // the site is served under the challenge's certificate.
    if session.get_ref().1.alpn_protocol() == Some(ACME_TLS_ALPN) {
        return None;
    }
    Some(session)
}

/// What a server's TLS side is set to.
#[derive(Debug, Default)]
pub(super) struct Secure {
    /// `Server::tls`.
    pub(super) tls: Option<Tls>,
    /// `Server::redirect_http`: the cleartext listener, and its address.
    pub(super) redirect: Option<(std::net::TcpListener, SocketAddr)>,
    /// `Server::hsts`.
    pub(super) hsts: Option<HeaderValue>,
}

impl Secure {
    /// What each connection's TLS session starts with, once TLS is set.
    pub(super) fn acceptor(&self) -> Option<Acceptor> {
        let tls = self.tls.as_ref()?;
        Some(Acceptor {
            sessions: tokio_rustls::TlsAcceptor::from(Arc::clone(&tls.config)),
            hsts: self.hsts.clone(),
            source: tls.source.clone(),
        })
    }

    /// The cleartext listener that redirects to TLS, and its address.
    pub(super) fn redirect(&self) -> Option<(&std::net::TcpListener, SocketAddr)> {
        self.redirect
            .as_ref()
            .map(|(listener, addr)| (listener, *addr))
    }

    /// [`redirect`](Self::redirect), moved out for the workers.
    pub(super) fn take_redirect(&mut self) -> Option<(std::net::TcpListener, SocketAddr)> {
        self.redirect.take()
    }

    /// A redirect to `https` from a server that has no TLS would send every client to
    /// a port that does not speak it.
    pub(super) fn check(&self) -> io::Result<()> {
        match (&self.redirect, &self.tls) {
            (Some((_, addr)), None) => Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "Server::redirect_http({addr}) sends clients to https, and the server \
                     has no Server::tls"
                ),
            )),
            #[cfg(feature = "acme")]
            (None, Some(tls)) if tls.renewed().is_some_and(|renewed| renewed.uses_http_01()) => {
                Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "Acme::http_01 proves names on the cleartext listener, and the server \
                     has no Server::redirect_http(\"0.0.0.0:80\")",
                ))
            }
            _ => Ok(()),
        }
    }
}

/// The certificate and key files.
#[derive(Debug)]
struct Files {
    certificate: PathBuf,
    key: PathBuf,
}

/// What the files were when last read: each one's version (inode, length, times; a link
/// moved to new files, as certbot's `live/` links are, changes it).
type Stamp = [Option<FileVersion>; 2];

impl Files {
    fn stamp(&self) -> Stamp {
        [&self.certificate, &self.key].map(|path| FileVersion::of_regular(path, false))
    }

    /// The certificate chain and key, checked to belong together.
    fn load(&self, provider: &CryptoProvider) -> io::Result<Loaded> {
        let read = |path: &Path| {
            disk::read_small(path).map_err(|error| {
                io::Error::new(
                    error.kind(),
                    format!("the TLS file {} cannot be read: {error}", path.display()),
                )
            })
        };
        Loaded::from_pem(
            &read(&self.certificate)?,
            &read(&self.key)?,
            [&self.certificate, &self.key].map(|path| path.display().to_string()),
            provider,
        )
    }

    /// Says so when the certificate has expired (clients refuse it).
    fn warn_if_expired(&self, expires: Option<SystemTime>) -> bool {
        let Some(expires) = expires.filter(|at| *at <= SystemTime::now()) else {
            return false;
        };
        tracing::warn!(
            target: "embed_assets::tls",
            certificate = %self.certificate.display(),
            "the TLS certificate {} expired {} ago ({}): clients refuse it; renew it \
             (the server reads it again when its files change)",
            self.certificate.display(),
            format_age(expires),
            httpdate::fmt_http_date(expires)
        );
        true
    }
}

/// The certificate in use, read again from its files when they change.
#[derive(Debug)]
struct Reloading {
    files: Files,
    provider: Arc<CryptoProvider>,
    current: RwLock<Current>,
    /// When the files are to be looked at next.
    next_look: Mutex<Instant>,
    /// The names clients asked for that the certificate is not for, each warned of
    /// once (the first [`STRANGERS`]).
    strangers: Mutex<Vec<String>>,
}

/// How many names the certificate is not for are remembered, so that each is warned of
/// once: a scan of names cannot fill the memory or the log.
const STRANGERS: usize = 16;

/// A certificate and key read from their files, and when the certificate expires.
pub(super) struct Loaded {
    pub(super) key: CertifiedKey,
    pub(super) expires: Option<SystemTime>,
    /// The names the certificate is for.
    pub(super) names: Vec<Name>,
}

impl Loaded {
    /// The certificate chain in `chain` and the private key in `key` (PEM), checked to
    /// belong together; `names` are where they came from, for the errors.
    pub(super) fn from_pem(
        chain: &[u8],
        key: &[u8],
        names: [String; 2],
        provider: &CryptoProvider,
    ) -> io::Result<Loaded> {
        let [chain_name, key_name] = names;
        let invalid = |message: String| io::Error::new(io::ErrorKind::InvalidData, message);
        let chain = CertificateDer::pem_slice_iter(chain)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|error| {
                invalid(format!(
                    "the certificate file {chain_name} is not PEM: {error}"
                ))
            })?;
        if chain.is_empty() {
            return Err(invalid(format!(
                "the certificate file {chain_name} holds no certificate (a PEM \
                 `CERTIFICATE` block)"
            )));
        }
        let key = PrivateKeyDer::from_pem_slice(key).map_err(|error| {
            invalid(format!(
                "the key file {key_name} holds no private key (a PEM `PRIVATE KEY`, `RSA \
                 PRIVATE KEY` or `EC PRIVATE KEY` block): {error}"
            ))
        })?;
        let expires = certificate::not_after(&chain[0]);
        let names = certificate::names(&chain[0]).unwrap_or_default();
        if names.is_empty() {
            return Err(invalid(format!(
                "the certificate in {chain_name} names no host: it has no subjectAltName \
                 (a DNS name or an IP address), which is what clients check; is it the \
                 server's certificate, first in the file?"
            )));
        }
        let key = CertifiedKey::from_der(chain, key, provider).map_err(|error| {
            invalid(format!(
                "the key in {key_name} cannot serve the certificate in {chain_name}: {error}"
            ))
        })?;
        Ok(Loaded {
            key,
            expires,
            names,
        })
    }
}

#[derive(Debug)]
struct Current {
    key: Arc<CertifiedKey>,
    /// The certificate's `notAfter`.
    expires: Option<SystemTime>,
    /// Whether its expiry was logged.
    expired: bool,
    /// The names it is for.
    names: Vec<Name>,
    /// The files it was read from, as they were.
    stamp: Stamp,
    /// The files as they were when they last failed to load (warned of once).
    refused: Option<Stamp>,
}

impl Reloading {
    /// Reads the files again if they changed since the last look, at most once per
    /// [`RECHECK`]; one handshake looks while the others go on with the key in use.
    /// (Two `stat`s on the worker's thread, and a read of two small files when they
    /// changed: not worth a trip to the blocking pool in a synchronous callback.)
    fn look(&self) {
        let Ok(mut next) = self.next_look.try_lock() else {
            return;
        };
        let now = Instant::now();
        if now < *next {
            return;
        }
        *next = now + RECHECK;
        drop(next);
        let stamp = self.files.stamp();
        {
            let current = self.current.read().unwrap_or_else(|e| e.into_inner());
            let expiring =
                !current.expired && current.expires.is_some_and(|at| at <= SystemTime::now());
            if (current.stamp == stamp || current.refused == Some(stamp)) && !expiring {
                return;
            }
        }
        let mut current = self.current.write().unwrap_or_else(|e| e.into_inner());
        if current.stamp == stamp || current.refused == Some(stamp) {
            // The files as they were: only the certificate in use has expired since.
            current.expired = self.files.warn_if_expired(current.expires);
            return;
        }
        match self.files.load(&self.provider) {
            Ok(loaded) => {
                *current = Current {
                    key: Arc::new(loaded.key),
                    expires: loaded.expires,
                    expired: self.files.warn_if_expired(loaded.expires),
                    names: loaded.names,
                    stamp,
                    refused: None,
                };
                tracing::info!(
                    target: "embed_assets::tls",
                    certificate = %self.files.certificate.display(),
                    "the TLS certificate {} was read again",
                    self.files.certificate.display()
                );
            }
            Err(error) => {
                current.refused = Some(stamp);
                tracing::warn!(
                    target: "embed_assets::tls",
                    "the TLS certificate in use stays: {error}"
                );
            }
        }
    }
}

impl Reloading {
    /// Says so, once per name, when a client asks for a name the certificate is not
    /// for: every such client refuses it (a DNS name pointed at this server that the
    /// certificate misses, or the wrong certificate's files).
    fn warn_if_stranger(&self, host: &str, names: &[Name]) {
        let mut strangers = self.strangers.lock().unwrap_or_else(|e| e.into_inner());
        if strangers.len() >= STRANGERS || strangers.iter().any(|known| known == host) {
            return;
        }
        strangers.push(host.to_owned());
        let names: Vec<String> = names.iter().map(Name::to_string).collect();
        tracing::warn!(
            target: "embed_assets::tls",
            certificate = %self.files.certificate.display(),
            "a client asked for {host}, and the TLS certificate {} is for {} only: \
             clients refuse it for {host}",
            self.files.certificate.display(),
            names.join(", ")
        );
    }
}

impl ResolvesServerCert for Reloading {
    fn resolve(&self, hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        self.look();
        let current = self.current.read().unwrap_or_else(|e| e.into_inner());
        if let Some(host) = hello.server_name() {
            if !certificate::covers(&current.names, host) {
                self.warn_if_stranger(host, &current.names);
            }
        }
        Some(Arc::clone(&current.key))
    }
}

/// How long ago `at` was, in whole days or hours.
pub(super) fn format_age(at: SystemTime) -> String {
    let seconds = SystemTime::now()
        .duration_since(at)
        .unwrap_or_default()
        .as_secs();
    match seconds / 86_400 {
        0 => format!("{} h", seconds / 3600),
        1 => "1 day".to_owned(),
        days => format!("{days} days"),
    }
}
