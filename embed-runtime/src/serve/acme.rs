//! [`Acme`]: a certificate obtained and kept renewed from an ACME directory (RFC 8555,
//! feature `acme`), proved by TLS-ALPN-01 (RFC 8737) on the TLS port or by HTTP-01 on
//! the cleartext listener, kept in a cache folder and swapped in while the server runs.
//!
//! The protocol (accounts, orders, JWS, nonces, polling) is instant-acme's; this file
//! holds what a server adds: where the account and certificate are kept, when to renew,
//! the challenge answers, and the certificate in use.

use std::collections::HashMap;
use std::fmt;
use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant, SystemTime};

use instant_acme::{
    Account, AccountCredentials, AuthorizationStatus, ChallengeType, Identifier, NewAccount,
    NewOrder, OrderStatus, RetryPolicy,
};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;
use sha2::{Digest as _, Sha256};

use super::shutdown::{ShutdownHandle, until};
use super::tls::{ACME_TLS_ALPN, Loaded, Tls, format_age};

/// Let's Encrypt's production directory, the default of [`Acme::new`].
const LETS_ENCRYPT: &str = "https://acme-v02.api.letsencrypt.org/directory";

/// The least time between two certificates obtained for the same names: a renewal
/// window longer than the certificates' life would otherwise order one after another.
const LEAST_BETWEEN_ORDERS: Duration = Duration::from_secs(60);

/// The wait after a failed order, doubled after each failure in a row up to
/// [`MOST_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_secs(10);
const MOST_BACKOFF: Duration = Duration::from_secs(3600);

/// How long the ACME server has to validate the challenges, and then to issue.
const VALIDATION: Duration = Duration::from_secs(120);

/// Where a certificate comes from when it comes from an ACME directory (feature `acme`),
/// given to [`Tls::acme`].
///
/// The server obtains a certificate for [`new`](Self::new)'s names from the directory
/// (Let's Encrypt's by default), proving each name by TLS-ALPN-01 on its TLS port (the
/// ACME server connects to port 443 of the name) or, with [`http_01`](Self::http_01),
/// by HTTP-01 on its [`redirect_http`](crate::Server::redirect_http) listener (port 80).
/// The account and the certificate are kept in the cache folder, so a restart serves
/// the certificate it has and orders nothing; a certificate within
/// [`renew_before`](Self::renew_before) of its expiry (30 days by default) is renewed
/// while the server runs, and new connections get the new one.
///
/// ```no_run
/// # use embed_assets::{embed_assets, Assets};
/// # static ASSETS: Assets = embed_assets!("../examples/public");
/// # #[cfg(feature = "axum")]
/// fn main() -> std::io::Result<()> {
///     let app = axum::Router::new();
///     let acme = embed_assets::Acme::new(["example.com", "www.example.com"], "/var/lib/site/acme")
///         .contact("mailto:admin@example.com");
///     embed_assets::Server::bind("0.0.0.0:443")?
///         .tls(embed_assets::Tls::acme(acme)?)
///         .serve(ASSETS.service(), app)
/// }
/// # #[cfg(not(feature = "axum"))]
/// # fn main() {}
/// ```
#[derive(Clone, Debug)]
pub struct Acme {
    names: Vec<String>,
    cache: PathBuf,
    directory: String,
    directory_root: Option<PathBuf>,
    contact: Vec<String>,
    renew_before: Duration,
    http_01: bool,
}

impl Acme {
    /// A certificate for `names` (DNS names; the first is the certificate's subject),
    /// its account and certificate kept in the folder `cache` (created if missing, with
    /// the account's and certificates' keys in it: keep it private).
    #[must_use]
    pub fn new<I>(names: I, cache: impl Into<PathBuf>) -> Acme
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        Acme {
            names: names.into_iter().map(Into::into).collect(),
            cache: cache.into(),
            directory: LETS_ENCRYPT.to_owned(),
            directory_root: None,
            contact: Vec::new(),
            renew_before: Duration::from_secs(30 * 86_400),
            http_01: false,
        }
    }

    /// The ACME directory's URL (Let's Encrypt's production one by default; its
    /// staging one is `https://acme-staging-v02.api.letsencrypt.org/directory`).
    #[must_use]
    pub fn directory(mut self, url: impl Into<String>) -> Acme {
        self.directory = url.into();
        self
    }

    /// Trusts the root certificate in the PEM file `root` for the directory's own
    /// HTTPS, instead of the system's roots: a private ACME server's, or a test one's.
    #[must_use]
    pub fn directory_root(mut self, root: impl Into<PathBuf>) -> Acme {
        self.directory_root = Some(root.into());
        self
    }

    /// A contact URI for the account (`mailto:admin@example.com`); may be given more
    /// than once.
    #[must_use]
    pub fn contact(mut self, uri: impl Into<String>) -> Acme {
        self.contact.push(uri.into());
        self
    }

    /// How long before its expiry a certificate is renewed (30 days by default).
    #[must_use]
    pub fn renew_before(mut self, before: Duration) -> Acme {
        self.renew_before = before;
        self
    }

    /// Proves the names by HTTP-01 (an answer at `/.well-known/acme-challenge/` on
    /// port 80) instead of TLS-ALPN-01 (a handshake on port 443): for a server whose
    /// port 443 the ACME server cannot reach directly. Needs
    /// [`Server::redirect_http`](crate::Server::redirect_http), which answers them.
    #[must_use]
    pub fn http_01(mut self) -> Acme {
        self.http_01 = true;
        self
    }
}

impl Tls {
    /// TLS with a certificate from an ACME directory, obtained and renewed by the
    /// server itself (feature `acme`; see [`Acme`]).
    ///
    /// A certificate kept in the cache folder for the same names and directory is
    /// served at once; without one, the server orders one as soon as it listens, and
    /// its handshakes fail until it has it (a minute or less). Orders that fail are
    /// tried again, 10 s later, then twice as long each time up to an hour; each
    /// failure, and each certificate obtained, is logged on the `tracing` target
    /// `embed_assets::tls`.
    ///
    /// # Errors
    /// When there is no name, a name is not a DNS name (an IP address, a port, a path,
    /// an empty label), the directory's URL is not `https` (or `http` to 127.0.0.1),
    /// the cache folder cannot be created or written, or `directory_root` cannot be
    /// read; the error names what it is about.
    pub fn acme(acme: Acme) -> io::Result<Tls> {
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let mut acme = acme;
        acme.check()?;
        let managed = Managed::new(acme, Arc::clone(&provider))?;
        Tls::with_acme(provider, Arc::new(managed))
    }
}

impl Acme {
    /// The settings' own errors, found before anything listens; names lowercased.
    fn check(&mut self) -> io::Result<()> {
        let invalid = |message: String| io::Error::new(io::ErrorKind::InvalidInput, message);
        if self.names.is_empty() {
            return Err(invalid("Acme::new was given no name to certify".to_owned()));
        }
        for name in &mut self.names {
            *name = name.to_ascii_lowercase();
            if let Some(problem) = dns_name_problem(name) {
                return Err(invalid(format!(
                    "Acme::new: {name:?} is not a DNS name to certify: {problem}"
                )));
            }
        }
        let local = |url: &str| {
            url.strip_prefix("http://")
                .is_some_and(|rest| rest.starts_with("127.0.0.1") || rest.starts_with("localhost"))
        };
        if !self.directory.starts_with("https://") && !local(&self.directory) {
            return Err(invalid(format!(
                "Acme::directory: {:?} is not an https URL",
                self.directory
            )));
        }
        if let Some(root) = &self.directory_root {
            fs::metadata(root).map_err(|error| {
                io::Error::new(
                    error.kind(),
                    format!(
                        "Acme::directory_root: {} cannot be read: {error}",
                        root.display()
                    ),
                )
            })?;
        }
        make_private_folder(&self.cache).map_err(|error| {
            io::Error::new(
                error.kind(),
                format!(
                    "the ACME cache folder {} cannot be created or written: {error}",
                    self.cache.display()
                ),
            )
        })
    }

    /// The stem of this certificate's files in the cache: its first name, and a digest
    /// of all its names and the directory (another set of names, or another
    /// directory, is another certificate).
    fn certificate_stem(&self) -> String {
        let mut names = self.names.clone();
        names.sort();
        let mut digest = Sha256::new();
        digest.update(self.directory.as_bytes());
        for name in &names {
            digest.update(b"\n");
            digest.update(name.as_bytes());
        }
        let first = self.names[0].replace('*', "_");
        format!("{first}-{}", hex8(&digest.finalize()))
    }

    /// The account's file in the cache: one per directory.
    fn account_file(&self) -> PathBuf {
        let digest = Sha256::digest(self.directory.as_bytes());
        self.cache.join(format!("account-{}.json", hex8(&digest)))
    }
}

/// Why `name` cannot be certified as a DNS name, if it cannot.
fn dns_name_problem(name: &str) -> Option<&'static str> {
    if name.parse::<std::net::IpAddr>().is_ok() {
        return Some("an IP address (this server certifies DNS names)");
    }
    let bare = name.strip_prefix("*.").unwrap_or(name);
    if bare.is_empty() || bare.len() > 253 {
        return Some("empty or longer than 253 bytes");
    }
    for label in bare.split('.') {
        if label.is_empty() || label.len() > 63 {
            return Some("a label is empty or longer than 63 bytes");
        }
        if !label
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || byte == b'-')
        {
            return Some("only letters, digits, '-' and '.' (and a leading '*.') may be in it");
        }
        if label.starts_with('-') || label.ends_with('-') {
            return Some("a label starts or ends with '-'");
        }
    }
    None
}

/// The first 8 bytes of `digest` in hex.
fn hex8(digest: &[u8]) -> String {
    digest[..8]
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// Creates `folder` (readable by its owner alone, on Unix) if missing, and checks that
/// a file can be written in it.
fn make_private_folder(folder: &Path) -> io::Result<()> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(folder)?;
    write_private(&folder.join(".written"), b"")?;
    fs::remove_file(folder.join(".written"))
}

/// Writes `contents` to `path` whole or not at all (a file beside it, then renamed over
/// it), readable by its owner alone on Unix.
fn write_private(path: &Path, contents: &[u8]) -> io::Result<()> {
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(".new");
    let temporary = PathBuf::from(temporary);
    let mut options = fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(&temporary)?;
    file.write_all(contents)?;
    file.sync_all()?;
    drop(file);
    fs::rename(&temporary, path)
}

/// A certificate in use, and when it expires.
struct Issued {
    key: Arc<CertifiedKey>,
    expires: Option<SystemTime>,
}

/// The ACME side of a running server: its settings, the certificate in use, and the
/// challenge answers of an order in progress.
pub(super) struct Managed {
    settings: Acme,
    provider: Arc<CryptoProvider>,
    current: RwLock<Option<Issued>>,
    /// TLS-ALPN-01: each name's challenge certificate.
    alpn_answers: Mutex<HashMap<String, Arc<CertifiedKey>>>,
    /// HTTP-01: each token's key authorization.
    http_answers: Mutex<HashMap<String, String>>,
}

impl fmt::Debug for Managed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Acme")
            .field("names", &self.settings.names)
            .field("directory", &self.settings.directory)
            .field("cache", &self.settings.cache)
            .finish()
    }
}

impl Managed {
    /// The settings, with the certificate kept in the cache if there is one.
    fn new(settings: Acme, provider: Arc<CryptoProvider>) -> io::Result<Managed> {
        let managed = Managed {
            settings,
            provider,
            current: RwLock::new(None),
            alpn_answers: Mutex::new(HashMap::new()),
            http_answers: Mutex::new(HashMap::new()),
        };
        let [chain, key] = managed.certificate_files();
        match (fs::read(&chain), fs::read(&key)) {
            (Ok(chain_pem), Ok(key_pem)) => match managed.use_pem(&chain_pem, &key_pem) {
                Ok(expires) => tracing::info!(
                    target: "embed_assets::tls",
                    "the TLS certificate for {} kept in {} is served{}",
                    managed.settings.names.join(", "),
                    chain.display(),
                    expiry(expires)
                ),
                Err(error) => tracing::warn!(
                    target: "embed_assets::tls",
                    "the TLS certificate kept in {} is not used, a new one is ordered: {error}",
                    chain.display()
                ),
            },
            (Err(error), _) | (_, Err(error)) if error.kind() != io::ErrorKind::NotFound => {
                return Err(io::Error::new(
                    error.kind(),
                    format!(
                        "the ACME cache's certificate {} or key {} cannot be read: {error}",
                        chain.display(),
                        key.display()
                    ),
                ));
            }
            _ => {}
        }
        Ok(managed)
    }

    /// Whether the names are proved on the cleartext listener.
    pub(super) fn uses_http_01(&self) -> bool {
        self.settings.http_01
    }

    /// The key authorization an ACME server asks `path` for, during an order.
    pub(super) fn http_01(&self, path: &str) -> Option<String> {
        let token = path.strip_prefix("/.well-known/acme-challenge/")?;
        lock(&self.http_answers).get(token).cloned()
    }

    /// The certificate chain's file and the key's file in the cache.
    fn certificate_files(&self) -> [PathBuf; 2] {
        let stem = self.settings.certificate_stem();
        ["crt", "key"].map(|kind| self.settings.cache.join(format!("{stem}.{kind}.pem")))
    }

    /// Puts the chain and key (PEM) in use for new connections; when it expires.
    fn use_pem(&self, chain: &[u8], key: &[u8]) -> io::Result<Option<SystemTime>> {
        let names = self
            .certificate_files()
            .map(|path| path.display().to_string());
        let loaded = Loaded::from_pem(chain, key, names, &self.provider)?;
        let expires = loaded.expires;
        *self.current.write().unwrap_or_else(|e| e.into_inner()) = Some(Issued {
            key: Arc::new(loaded.key),
            expires,
        });
        Ok(expires)
    }

    /// How long until the certificate is to be renewed (zero without one), and not
    /// sooner than [`LEAST_BETWEEN_ORDERS`] after `last_order`.
    fn until_due(&self, last_order: Option<Instant>) -> Duration {
        let due = {
            let current = self.current.read().unwrap_or_else(|e| e.into_inner());
            match current.as_ref() {
                None => Duration::ZERO,
                // A certificate whose expiry cannot be read: renewed as if due.
                Some(Issued { expires: None, .. }) => Duration::ZERO,
                Some(Issued {
                    expires: Some(expires),
                    ..
                }) => expires
                    .checked_sub(self.settings.renew_before)
                    .and_then(|at| at.duration_since(SystemTime::now()).ok())
                    .unwrap_or_default(),
            }
        };
        let spacing = last_order.map_or(Duration::ZERO, |at| {
            LEAST_BETWEEN_ORDERS.saturating_sub(at.elapsed())
        });
        due.max(spacing)
    }

    /// Keeps the certificate renewed until the server stops: orders one when there is
    /// none or it is due, on a thread of its own with its own runtime.
    pub(super) fn keep_renewed(
        self: &Arc<Managed>,
        shutdown: ShutdownHandle,
    ) -> io::Result<std::thread::JoinHandle<()>> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let managed = Arc::clone(self);
        std::thread::Builder::new()
            .name("embed-acme".to_owned())
            .spawn(move || {
                runtime.block_on(async move {
                    let stop = std::pin::pin!(shutdown.stopped());
                    until(stop, managed.renewals()).await;
                });
            })
    }

    async fn renewals(&self) {
        let mut last_order = None;
        let mut failures = 0u32;
        loop {
            // Long waits in steps of a day: a machine that sleeps does not oversleep.
            let wait = self.until_due(last_order);
            if !wait.is_zero() {
                tokio::time::sleep(wait.min(Duration::from_secs(86_400))).await;
                continue;
            }
            last_order = Some(Instant::now());
            match self.order().await {
                Ok(expires) => {
                    failures = 0;
                    tracing::info!(
                        target: "embed_assets::tls",
                        "a TLS certificate for {} was obtained from {}{}",
                        self.settings.names.join(", "),
                        self.settings.directory,
                        expiry(expires)
                    );
                }
                Err(error) => {
                    let backoff = FIRST_BACKOFF
                        .saturating_mul(1 << failures.min(12))
                        .min(MOST_BACKOFF);
                    failures += 1;
                    tracing::warn!(
                        target: "embed_assets::tls",
                        "no TLS certificate for {} from {} (tried again in {} s): {error}",
                        self.settings.names.join(", "),
                        self.settings.directory,
                        backoff.as_secs()
                    );
                    tokio::time::sleep(backoff).await;
                }
            }
        }
    }

    /// One order: the account, the names proved, the certificate issued, kept in the
    /// cache, and put in use.
    async fn order(&self) -> Result<Option<SystemTime>, Failure> {
        let account = self.account().await?;
        let identifiers: Vec<Identifier> = self
            .settings
            .names
            .iter()
            .map(|name| Identifier::Dns(name.clone()))
            .collect();
        let mut order = account.new_order(&NewOrder::new(&identifiers)).await?;
        let answers = Answers(self);
        let kind = if self.settings.http_01 {
            ChallengeType::Http01
        } else {
            ChallengeType::TlsAlpn01
        };
        let mut authorizations = order.authorizations();
        while let Some(authorization) = authorizations.next().await {
            let mut authorization = authorization?;
            match authorization.status {
                AuthorizationStatus::Pending => {}
                AuthorizationStatus::Valid => continue,
                status => {
                    return Err(Failure(format!(
                        "the authorization for {} is {status:?}",
                        authorization.identifier()
                    )));
                }
            }
            let name = authorization.identifier().to_string();
            let mut challenge = authorization.challenge(kind.clone()).ok_or_else(|| {
                Failure(format!(
                    "the ACME server offers no {kind:?} challenge for {name}"
                ))
            })?;
            let key_authorization = challenge.key_authorization();
            if self.settings.http_01 {
                lock(&self.http_answers).insert(
                    challenge.token.clone(),
                    key_authorization.as_str().to_owned(),
                );
            } else {
                let certificate = challenge_certificate(&name, key_authorization.digest())?;
                lock(&self.alpn_answers).insert(name, certificate);
            }
            challenge.set_ready().await?;
        }
        let retries = RetryPolicy::new().timeout(VALIDATION);
        let status = order.poll_ready(&retries).await?;
        if status != OrderStatus::Ready {
            let mut problems = Vec::new();
            let mut authorizations = order.authorizations();
            while let Some(Ok(authorization)) = authorizations.next().await {
                for challenge in &authorization.challenges {
                    if let Some(error) = &challenge.error {
                        problems.push(format!("{}: {error}", authorization.identifier()));
                    }
                }
            }
            return Err(Failure(format!(
                "the order is {status:?}: {}",
                problems.join("; ")
            )));
        }
        drop(answers);
        let key_pem = order.finalize().await?;
        let chain_pem = order.poll_certificate(&retries).await?;
        let expires = self
            .use_pem(chain_pem.as_bytes(), key_pem.as_bytes())
            .map_err(|error| Failure(format!("the issued certificate is refused: {error}")))?;
        let [chain, key] = self.certificate_files();
        // The key first: a crash between the two leaves a pair that does not match,
        // which the next start refuses and orders again, never a certificate with
        // another's key served.
        write_private(&key, key_pem.as_bytes())
            .and_then(|()| write_private(&chain, chain_pem.as_bytes()))
            .map_err(|error| {
                Failure(format!(
                    "the certificate is in use but cannot be kept in {}: {error}",
                    self.settings.cache.display()
                ))
            })?;
        Ok(expires)
    }

    /// The account kept in the cache for the directory, or a new one, kept there.
    async fn account(&self) -> Result<Account, Failure> {
        let builder = || match &self.settings.directory_root {
            Some(root) => Account::builder_with_root(root),
            None => Account::builder(),
        };
        let file = self.settings.account_file();
        match fs::read(&file) {
            Ok(json) => {
                let credentials: AccountCredentials =
                    serde_json::from_slice(&json).map_err(|error| {
                        Failure(format!(
                            "the ACME account {} cannot be read: {error}",
                            file.display()
                        ))
                    })?;
                return Ok(builder()?.from_credentials(credentials).await?);
            }
            Err(error) if error.kind() != io::ErrorKind::NotFound => {
                return Err(Failure(format!(
                    "the ACME account {} cannot be read: {error}",
                    file.display()
                )));
            }
            Err(_) => {}
        }
        let contact: Vec<&str> = self.settings.contact.iter().map(String::as_str).collect();
        let (account, credentials) = builder()?
            .create(
                &NewAccount {
                    contact: &contact,
                    terms_of_service_agreed: true,
                    only_return_existing: false,
                },
                self.settings.directory.clone(),
                None,
            )
            .await?;
        let json = serde_json::to_vec(&credentials)
            .map_err(|error| Failure(format!("the ACME account cannot be written: {error}")))?;
        write_private(&file, &json).map_err(|error| {
            Failure(format!(
                "the ACME account cannot be kept in {}: {error}",
                file.display()
            ))
        })?;
        Ok(account)
    }
}

/// The challenge answers of an order, taken down when it ends, however it ends.
struct Answers<'a>(&'a Managed);

impl Drop for Answers<'_> {
    fn drop(&mut self) {
        lock(&self.0.alpn_answers).clear();
        lock(&self.0.http_answers).clear();
    }
}

impl ResolvesServerCert for Managed {
    fn resolve(&self, hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        // RFC 8737 §3: the ACME server offers `acme-tls/1` alone.
        let challenge = hello.alpn().is_some_and(|mut protocols| {
            protocols.next() == Some(ACME_TLS_ALPN) && protocols.next().is_none()
        });
        if challenge {
            let name = hello.server_name()?.to_ascii_lowercase();
            return lock(&self.alpn_answers).get(&name).cloned();
        }
        let current = self.current.read().unwrap_or_else(|e| e.into_inner());
        current.as_ref().map(|issued| Arc::clone(&issued.key))
    }
}

/// The TLS-ALPN-01 certificate for `name` (RFC 8737 §3): self-signed, `name` its only
/// subjectAltName, the key authorization's digest in a critical `acmeIdentifier`
/// extension.
fn challenge_certificate(
    name: &str,
    digest: impl AsRef<[u8]>,
) -> Result<Arc<CertifiedKey>, Failure> {
    let failed = |error: rcgen::Error| Failure(format!("the TLS-ALPN-01 certificate: {error}"));
    let mut params = rcgen::CertificateParams::new(vec![name.to_owned()]).map_err(failed)?;
    params.custom_extensions = vec![rcgen::CustomExtension::new_acme_identifier(digest.as_ref())];
    let key_pair = rcgen::KeyPair::generate().map_err(failed)?;
    let certificate = params.self_signed(&key_pair).map_err(failed)?;
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key_pair.serialize_der()));
    let provider = rustls::crypto::aws_lc_rs::default_provider();
    // Not `CertifiedKey::from_der`: its check that key and certificate match parses
    // the certificate with webpki, which refuses the critical `acmeIdentifier`.
    let signing = provider
        .key_provider
        .load_private_key(key)
        .map_err(|error| Failure(format!("the TLS-ALPN-01 certificate: {error}")))?;
    Ok(Arc::new(CertifiedKey::new(
        vec![certificate.der().clone()],
        signing,
    )))
}

/// Why an order failed, for the log.
struct Failure(String);

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<instant_acme::Error> for Failure {
    fn from(error: instant_acme::Error) -> Failure {
        Failure(error.to_string())
    }
}

/// ", valid until …" (and for how long), or nothing when the expiry cannot be read.
fn expiry(expires: Option<SystemTime>) -> String {
    match expires {
        Some(at) if at > SystemTime::now() => format!(
            ", valid until {} ({} from now)",
            httpdate::fmt_http_date(at),
            format_duration(at.duration_since(SystemTime::now()).unwrap_or_default())
        ),
        Some(at) => format!(", expired {} ago", format_age(at)),
        None => String::new(),
    }
}

/// A duration in whole days, or hours below a day.
fn format_duration(duration: Duration) -> String {
    let seconds = duration.as_secs();
    match seconds / 86_400 {
        0 => format!("{} h", seconds / 3600),
        1 => "1 day".to_owned(),
        days => format!("{days} days"),
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_are_not_dns_names_are_refused_with_the_reason() {
        for (name, reason) in [
            ("127.0.0.1", "IP address"),
            ("::1", "IP address"),
            ("", "empty"),
            ("example..com", "label is empty"),
            ("example.com:443", "only letters"),
            ("example.com/x", "only letters"),
            ("-example.com", "starts or ends"),
            ("a.*.example.com", "only letters"),
        ] {
            let problem = dns_name_problem(name);
            assert!(
                problem.is_some_and(|problem| problem.contains(reason)),
                "{name:?}: {problem:?}"
            );
        }
        for name in [
            "example.com",
            "*.example.com",
            "xn--bcher-kva.example",
            "a-b.c",
        ] {
            assert_eq!(dns_name_problem(name), None, "{name}");
        }
    }

    #[test]
    fn the_certificate_stem_differs_by_names_and_directory_not_by_order() {
        let stem = |names: &[&str], directory: &str| {
            Acme::new(names.iter().copied(), "/tmp")
                .directory(directory)
                .certificate_stem()
        };
        let one = stem(&["a.example", "b.example"], LETS_ENCRYPT);
        assert!(one.starts_with("a.example-"), "{one}");
        assert_eq!(
            one[one.len() - 16..],
            stem(&["b.example", "a.example"], LETS_ENCRYPT)[one.len() - 16..]
        );
        assert_ne!(one, stem(&["a.example"], LETS_ENCRYPT));
        assert_ne!(one, stem(&["a.example", "b.example"], "https://other/dir"));
        assert!(stem(&["*.example"], LETS_ENCRYPT).starts_with("_.example-"));
    }
}
