//! [`Acme`]: what a user sets for a certificate from an ACME directory (RFC 8555,
//! feature `acme`), checked before anything listens, and [`Tls::acme`], which hands it
//! to the server's renewals (`renewal.rs`).

use std::io;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use rustls::server::ResolvesServerCert;
use sha2::{Digest as _, Sha256};

use super::renewal::{Managed, Plan};
use super::tls::{Renewed, Tls};
use crate::disk;

/// Let's Encrypt's production directory, the default of [`Acme::new`].
const LETS_ENCRYPT: &str = "https://acme-v02.api.letsencrypt.org/directory";

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
        let stem = acme.certificate_stem();
        let plan = Plan {
            account_file: acme.account_file(),
            certificate_files: ["crt", "key"]
                .map(|kind| acme.cache.join(format!("{stem}.{kind}.pem"))),
            names: acme.names,
            directory: acme.directory,
            directory_root: acme.directory_root,
            contact: acme.contact,
            renew_before: acme.renew_before,
            http_01: acme.http_01,
            cache: acme.cache,
        };
        let managed = Arc::new(Managed::new(plan, Arc::clone(&provider))?);
        let resolver = Arc::clone(&managed) as Arc<dyn ResolvesServerCert>;
        Tls::with_renewed(provider, resolver, managed as Arc<dyn Renewed>)
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
            disk::read_small(root).map_err(|error| {
                io::Error::new(
                    error.kind(),
                    format!(
                        "Acme::directory_root: {} cannot be read: {error}",
                        root.display()
                    ),
                )
            })?;
        }
        disk::make_private_folder(&self.cache).map_err(|error| {
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
