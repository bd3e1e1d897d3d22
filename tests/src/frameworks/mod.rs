//! One server per framework, all serving a [`ServeAssets`] the same way: the service
//! at the root (or under a mount point) with `GET /api/health` answering `ok` beside
//! it. The HTTP tests start their server through [`spawn`], so each behaviour is
//! written once and checked in every framework: `EMBED_TEST_FRAMEWORK` names the one
//! a run uses (default `axum`); `tests/run.sh` runs the HTTP tests once per framework.
//!
//! Each framework's file has `spawn(service, mount) -> SocketAddr`: it binds
//! `127.0.0.1:0`, starts serving (on a thread with its own runtime where the framework
//! wants one), and returns once the socket listens.

use std::net::SocketAddr;

use embed_assets::ServeAssets;

#[cfg(feature = "actix-web")]
mod actix_web;
mod axum;
mod hyper;
#[cfg(feature = "poem")]
mod poem;
#[cfg(feature = "rocket")]
mod rocket;
#[cfg(feature = "salvo")]
mod salvo;
mod serve;
#[cfg(feature = "warp")]
mod warp;

/// A non-blocking listener on `127.0.0.1:0` and its address: bound before a server
/// starts, so the socket listens before `spawn` returns.
///
/// # Panics
/// If the port cannot be bound.
#[cfg(any(feature = "poem", feature = "warp"))]
pub(crate) fn bind_loopback() -> (std::net::TcpListener, SocketAddr) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
    let addr = listener.local_addr().expect("local address");
    listener
        .set_nonblocking(true)
        .expect("non-blocking listener");
    (listener, addr)
}

/// The registry of frameworks, `tests/frameworks.txt`: the one table that the harness,
/// `tests/run.sh` and the benchmarks read. [`Framework::ALL`] follows it row for row
/// (a unit test checks), and its HTTP/2 column is what [`uses_http2`] allows.
const TABLE: &str = include_str!("../../frameworks.txt");

/// One row of the registry, `tests/frameworks.txt`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    /// As `EMBED_TEST_FRAMEWORK` spells it.
    pub name: &'static str,
    /// The cargo feature of the harness (and of the library) it needs; `None` for
    /// those always built.
    pub feature: Option<&'static str>,
    /// Whether the harness serves it over HTTP/2 with prior knowledge too.
    pub http2: bool,
}

/// Every row of the registry, in order.
///
/// # Panics
/// On a row that is not `name feature yes|no`.
pub fn rows() -> Vec<Row> {
    TABLE
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| {
            let cells: Vec<&str> = line.split_whitespace().collect();
            let [name, feature, http2] = cells[..] else {
                panic!("tests/frameworks.txt: expected `name feature yes|no`: {line:?}");
            };
            Row {
                name,
                feature: (feature != "-").then_some(feature),
                http2: match http2 {
                    "yes" => true,
                    "no" => false,
                    other => panic!("tests/frameworks.txt: HTTP/2 is yes or no, not {other:?}"),
                },
            }
        })
        .collect()
}

/// A framework the harness can serve with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framework {
    /// axum 0.8, the service as `fallback_service` / `nest_service`.
    Axum,
    /// hyper 1 alone, calling `ServeAssets::respond`.
    Hyper,
    /// actix-web 4.
    ActixWeb,
    /// Rocket 0.5.
    Rocket,
    /// Poem 3.
    Poem,
    /// Salvo 1.
    Salvo,
    /// warp 0.4.
    Warp,
    /// `embed_assets::serve`, the library's own server, in front of an axum `Router`.
    Serve,
}

impl Framework {
    /// Every framework, in the order the reports list them.
    pub const ALL: [Framework; 8] = [
        Framework::Axum,
        Framework::Hyper,
        Framework::ActixWeb,
        Framework::Rocket,
        Framework::Poem,
        Framework::Salvo,
        Framework::Warp,
        Framework::Serve,
    ];

    /// Its name, as `EMBED_TEST_FRAMEWORK` and the cargo feature spell it.
    pub fn name(self) -> &'static str {
        match self {
            Framework::Axum => "axum",
            Framework::Hyper => "hyper",
            Framework::ActixWeb => "actix-web",
            Framework::Rocket => "rocket",
            Framework::Poem => "poem",
            Framework::Salvo => "salvo",
            Framework::Warp => "warp",
            Framework::Serve => "serve",
        }
    }

    /// The framework this run tests with: `EMBED_TEST_FRAMEWORK`, default axum.
    ///
    /// # Panics
    /// On a name that is not a framework, or one whose feature this build lacks.
    pub fn current() -> Framework {
        let Ok(name) = std::env::var("EMBED_TEST_FRAMEWORK") else {
            return Framework::Axum;
        };
        let framework = Framework::ALL
            .into_iter()
            .find(|f| f.name() == name)
            .unwrap_or_else(|| {
                let names: Vec<_> = Framework::ALL.iter().map(|f| f.name()).collect();
                panic!("EMBED_TEST_FRAMEWORK={name:?}: expected one of {names:?}")
            });
        assert!(
            framework.is_built(),
            "EMBED_TEST_FRAMEWORK={name}: build the tests with `--features {name}`"
        );
        framework
    }

    /// Its row of the registry.
    ///
    /// # Panics
    /// If the registry lacks it (a unit test checks that it does not).
    pub fn row(self) -> Row {
        rows()
            .into_iter()
            .find(|row| row.name == self.name())
            .unwrap_or_else(|| panic!("{} is not in tests/frameworks.txt", self.name()))
    }

    /// Whether this build of the tests has the framework's feature.
    pub fn is_built(self) -> bool {
        match self {
            Framework::Axum | Framework::Hyper | Framework::Serve => true,
            Framework::ActixWeb => cfg!(feature = "actix-web"),
            Framework::Rocket => cfg!(feature = "rocket"),
            Framework::Poem => cfg!(feature = "poem"),
            Framework::Salvo => cfg!(feature = "salvo"),
            Framework::Warp => cfg!(feature = "warp"),
        }
    }

    /// Serves `service` (at `mount`, such as `/static`, or at the root) with
    /// `GET /api/health` beside it, and returns the address once it listens.
    ///
    /// # Panics
    /// If the framework's feature is not built, or the server cannot start.
    pub async fn spawn(self, service: ServeAssets, mount: Option<&'static str>) -> SocketAddr {
        match self {
            Framework::Axum => axum::spawn(service, mount).await,
            Framework::Hyper => hyper::spawn(service, mount).await,
            #[cfg(feature = "actix-web")]
            Framework::ActixWeb => actix_web::spawn(service, mount),
            #[cfg(feature = "rocket")]
            Framework::Rocket => rocket::spawn(service, mount),
            #[cfg(feature = "poem")]
            Framework::Poem => poem::spawn(service, mount),
            #[cfg(feature = "salvo")]
            Framework::Salvo => salvo::spawn(service, mount),
            #[cfg(feature = "warp")]
            Framework::Warp => warp::spawn(service, mount),
            Framework::Serve => serve::spawn(service, mount),
            #[allow(unreachable_patterns)] // with every feature on
            other => panic!("{} is not built: enable its feature", other.name()),
        }
    }
}

/// Whether this run's client speaks HTTP/2 with prior knowledge (`EMBED_TEST_HTTP2=1`;
/// the axum, hyper and serve servers accept both versions on one port).
///
/// # Panics
/// When it is set for a framework whose harness server is HTTP/1.1 only.
pub fn uses_http2() -> bool {
    let on = std::env::var("EMBED_TEST_HTTP2").is_ok_and(|v| v == "1");
    if on {
        let framework = Framework::current();
        assert!(
            framework.row().http2,
            "EMBED_TEST_HTTP2=1: the {} harness serves HTTP/1.1 only (tests/frameworks.txt)",
            framework.name()
        );
    }
    on
}

/// Whether this run's clients speak TLS to the harness server (`EMBED_TEST_TLS=1`):
/// the `serve` harness then terminates TLS itself ([`embed_assets::Server::tls`]) with
/// the test certificate of [`crate::tls::harness_tls`], and [`crate::send`],
/// [`crate::raw_request`] and [`crate::connect`] go through a TLS session (ALPN `h2`
/// with [`uses_http2`], else `http/1.1`).
///
/// # Panics
/// When it is set for a framework other than `serve`: no other harness server
/// terminates TLS.
pub fn uses_tls() -> bool {
    let on = std::env::var("EMBED_TEST_TLS").is_ok_and(|v| v == "1");
    if on {
        let framework = Framework::current();
        assert!(
            framework == Framework::Serve,
            "EMBED_TEST_TLS=1: only the serve harness terminates TLS, not {} \
             (set EMBED_TEST_FRAMEWORK=serve)",
            framework.name()
        );
    }
    on
}

/// Serves `service` in the framework of this run (see [`Framework::current`]).
pub async fn spawn(service: ServeAssets, mount: Option<&'static str>) -> SocketAddr {
    Framework::current().spawn(service, mount).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_harness_has_one_framework_per_row_of_the_registry_in_its_order() {
        let names: Vec<&str> = rows().iter().map(|row| row.name).collect();
        let ours: Vec<&str> = Framework::ALL.iter().map(|f| f.name()).collect();
        assert_eq!(ours, names, "Framework::ALL against tests/frameworks.txt");
        for framework in Framework::ALL {
            let row = framework.row();
            match row.feature {
                // Built in every run of the harness.
                None => assert!(framework.is_built(), "{}", row.name),
                // The harness's feature is named as the library's.
                Some(feature) => assert_eq!(feature, row.name, "{row:?}"),
            }
        }
    }
}
