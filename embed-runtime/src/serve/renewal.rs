//! A certificate from an ACME directory while the server runs (feature `acme`): the one
//! in use (kept in the cache folder, or ordered at start), its renewal on a thread of
//! its own, and the answers to the ACME server's challenges (TLS-ALPN-01 in the
//! handshake, HTTP-01 on the cleartext listener). The protocol (accounts, orders, JWS,
//! nonces, polling) is instant-acme's.

use std::collections::HashMap;
use std::fmt;
use std::io;
use std::path::PathBuf;
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

use super::shutdown::{ShutdownHandle, until};
use super::tls::{ACME_TLS_ALPN, Loaded, Renewed, format_age};
use crate::disk;

/// The least time between two certificates obtained for the same names: a renewal
/// window longer than the certificates' life would otherwise order one after another.
const LEAST_BETWEEN_ORDERS: Duration = Duration::from_secs(60);

/// The wait after a failed order, doubled after each failure in a row up to
/// [`MOST_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_secs(10);
const MOST_BACKOFF: Duration = Duration::from_secs(3600);

/// How long the ACME server has to validate the challenges, and then to issue.
const VALIDATION: Duration = Duration::from_secs(120);

/// What a [`Managed`] certificate is to be: the settings of `Acme`, checked, and where
/// its files are kept.
#[derive(Debug)]
pub(super) struct Plan {
    /// DNS names, lowercased; the first is the certificate's subject.
    pub(super) names: Vec<String>,
    pub(super) directory: String,
    pub(super) directory_root: Option<PathBuf>,
    pub(super) contact: Vec<String>,
    pub(super) renew_before: Duration,
    pub(super) http_01: bool,
    pub(super) cache: PathBuf,
    /// The account's file: one per directory.
    pub(super) account_file: PathBuf,
    /// The certificate chain's file and its key's.
    pub(super) certificate_files: [PathBuf; 2],
}

/// A certificate in use, and when it expires.
struct Issued {
    key: Arc<CertifiedKey>,
    expires: Option<SystemTime>,
}

/// The ACME side of a running server: its settings, the certificate in use, and the
/// challenge answers of an order in progress.
pub(super) struct Managed {
    settings: Plan,
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
    pub(super) fn new(settings: Plan, provider: Arc<CryptoProvider>) -> io::Result<Managed> {
        let managed = Managed {
            settings,
            provider,
            current: RwLock::new(None),
            alpn_answers: Mutex::new(HashMap::new()),
            http_answers: Mutex::new(HashMap::new()),
        };
        let [chain, key] = managed.certificate_files();
        match (disk::read_small(&chain), disk::read_small(&key)) {
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

    /// The certificate chain's file and the key's file in the cache.
    fn certificate_files(&self) -> [PathBuf; 2] {
        self.settings.certificate_files.clone()
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
        disk::write_private(&key, key_pem.as_bytes())
            .and_then(|()| disk::write_private(&chain, chain_pem.as_bytes()))
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
        let file = self.settings.account_file.clone();
        match disk::read_small(&file) {
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
        disk::write_private(&file, &json).map_err(|error| {
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

impl Renewed for Managed {
    fn uses_http_01(&self) -> bool {
        self.settings.http_01
    }

    fn http_01(&self, path: &str) -> Option<String> {
        let token = path.strip_prefix("/.well-known/acme-challenge/")?;
        lock(&self.http_answers).get(token).cloned()
    }

    /// Orders a certificate when there is none or it is due, on a thread of its own
    /// with its own runtime, until the server stops.
    fn keep_renewed(
        self: Arc<Self>,
        shutdown: ShutdownHandle,
    ) -> io::Result<std::thread::JoinHandle<()>> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        std::thread::Builder::new()
            .name("embed-acme".to_owned())
            .spawn(move || {
                runtime.block_on(async move {
                    let stop = std::pin::pin!(shutdown.stopped());
                    until(stop, self.renewals()).await;
                });
            })
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
