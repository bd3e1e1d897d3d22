//! Every framework answers like axum: the same list of requests goes to a server of
//! each framework built into this run (`--features actix-web,rocket,poem,salvo,warp`;
//! axum and plain hyper always), and each response head (status and every header but
//! `Date`) and body must equal axum's. What a framework documents adding or changing
//! on its own is listed in `FRAMEWORK_CHANGES`, each with the reason.

use std::net::SocketAddr;

use embed_assets::{Assets, embed_assets};
use http::{HeaderMap, Method, StatusCode};
use integration_tests::frameworks::Framework;
use integration_tests::programs;
use integration_tests::{Reply, raw_request, send};

/// The fixture site with `big.bin` (3 MiB) on disk.
static DISK: Assets = embed_assets!("fixtures/site", max_embed_size = "1 MiB", on_disk = "allow");

/// The frameworks of the registry this build of the tests has. Those it lacks are
/// named, with the command that compares them too; with `EMBED_TEST_REQUIRE_ALL=1` a
/// missing one fails the test (see `integration_tests::programs`).
fn built() -> Vec<Framework> {
    let (built, missing): (Vec<Framework>, Vec<Framework>) =
        Framework::ALL.into_iter().partition(|f| f.is_built());
    if !missing.is_empty() {
        let names = |list: &[Framework]| {
            list.iter()
                .filter(|f| **f != Framework::Axum)
                .map(|f| f.name())
                .collect::<Vec<_>>()
                .join(", ")
        };
        programs::skip(&format!(
            "compared axum with {} only; not built: {} (run `cargo test -p integration-tests --all-features --test frameworks`)",
            names(&built),
            names(&missing)
        ));
    }
    built
}

/// One request of the list.
struct Probe {
    name: &'static str,
    method: Method,
    target: &'static str,
    headers: Vec<(&'static str, String)>,
    /// Sent as these exact bytes over TCP instead (targets a client would normalise,
    /// fields a client would add).
    raw: Option<&'static str>,
}

fn probe(
    name: &'static str,
    method: Method,
    target: &'static str,
    headers: &[(&'static str, &str)],
) -> Probe {
    Probe {
        name,
        method,
        target,
        headers: headers.iter().map(|(n, v)| (*n, (*v).to_owned())).collect(),
        raw: None,
    }
}

fn raw(name: &'static str, request: &'static str) -> Probe {
    Probe {
        name,
        method: Method::GET,
        target: "",
        headers: Vec::new(),
        raw: Some(request),
    }
}

fn probes() -> Vec<Probe> {
    let css = DISK.get("/css/app.css").expect("embedded");
    let etag = css.etag();
    vec![
        probe("plain GET", Method::GET, "/css/app.css", &[]),
        probe(
            "gzip",
            Method::GET,
            "/css/app.css",
            &[("accept-encoding", "gzip")],
        ),
        probe(
            "br",
            Method::GET,
            "/css/app.css",
            &[("accept-encoding", "br, gzip")],
        ),
        probe(
            "identity only",
            Method::GET,
            "/css/app.css",
            &[("accept-encoding", "br;q=0, gzip;q=0")],
        ),
        probe(
            "304",
            Method::GET,
            "/css/app.css",
            &[("if-none-match", etag)],
        ),
        probe(
            "412",
            Method::GET,
            "/css/app.css",
            &[("if-match", "\"nope\"")],
        ),
        probe(
            "single range",
            Method::GET,
            "/css/app.css",
            &[("range", "bytes=0-9")],
        ),
        probe(
            "multipart",
            Method::GET,
            "/css/app.css",
            &[("range", "bytes=0-1,5-9")],
        ),
        probe(
            "416",
            Method::GET,
            "/css/app.css",
            &[("range", "bytes=999999-")],
        ),
        probe(
            "HEAD",
            Method::HEAD,
            "/css/app.css",
            &[("accept-encoding", "br")],
        ),
        probe(
            "HEAD of a range",
            Method::HEAD,
            "/css/app.css",
            &[("range", "bytes=0-9")],
        ),
        probe("405", Method::POST, "/tiny.txt", &[]),
        probe("DELETE 405", Method::DELETE, "/index.html", &[]),
        probe("directory redirect", Method::GET, "/docs?x=1", &[]),
        probe("index file", Method::GET, "/docs/", &[]),
        probe("escaped name", Method::GET, "/caf%C3%A9.txt", &[]),
        probe("404", Method::GET, "/nope.txt", &[]),
        probe("dotfile", Method::GET, "/.env", &[]),
        probe("empty file", Method::GET, "/empty.txt", &[]),
        probe("on-disk whole", Method::HEAD, "/big.bin", &[]),
        probe(
            "on-disk range",
            Method::GET,
            "/big.bin",
            &[("range", "bytes=100-199")],
        ),
        probe(
            "on-disk multipart",
            Method::GET,
            "/big.bin",
            &[("range", "bytes=0-9,-10")],
        ),
        probe(
            "on-disk 304",
            Method::GET,
            "/big.bin",
            &[("if-modified-since", "Fri, 31 Dec 9999 23:59:59 GMT")],
        ),
        raw(
            "traversal",
            "GET /%2e%2e/%2e%2e/Cargo.toml HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
        ),
        raw(
            "encoded backslash",
            "GET /css%5c..%5c..%5cCargo.toml HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
        ),
        raw(
            "no Host",
            "GET /tiny.txt HTTP/1.1\r\nConnection: close\r\n\r\n",
        ),
        raw(
            "two Hosts",
            "GET /tiny.txt HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n",
        ),
    ]
}

/// Header fields a framework adds or changes on its own, with the reason: ignored in
/// the comparison for that framework only.
const FRAMEWORK_CHANGES: &[(Framework, &str, &str)] = &[
    (
        Framework::Rocket,
        "server",
        "Rocket names itself in every response",
    ),
    (
        Framework::Rocket,
        "x-frame-options",
        "Rocket's Shield fairing, on by default",
    ),
    (
        Framework::Rocket,
        "permissions-policy",
        "Rocket's Shield fairing, on by default",
    ),
    (
        Framework::Rocket,
        "x-content-type-options",
        "Rocket's Shield fairing, on by default",
    ),
];

/// Requests whose answer a framework makes itself, by design of its API: the whole
/// response is skipped for that framework.
const FRAMEWORK_ANSWERS: &[(Framework, &str, &str)] = &[
    (
        Framework::Warp,
        "404",
        "the filter rejects what the service has no answer for, so `.or(...)` can go on; \
     the app's `recover` writes the 404 (the harness sends an empty one)",
    ),
    (
        Framework::Warp,
        "dotfile",
        "as for 404: a rejection, answered by the app",
    ),
    (
        Framework::Warp,
        "traversal",
        "as for 404: a rejection, answered by the app",
    ),
    (
        Framework::Warp,
        "encoded backslash",
        "as for 404: a rejection, answered by the app",
    ),
];

async fn ask(addr: SocketAddr, probe: &Probe) -> Reply {
    if let Some(request) = probe.raw {
        return raw_request(addr, request.as_bytes()).await;
    }
    let headers: Vec<(&str, &str)> = probe
        .headers
        .iter()
        .map(|(n, v)| (*n, v.as_str()))
        .collect();
    send(addr, probe.method.clone(), probe.target, &headers).await
}

/// The head as compared: status and each field but `Date` and the framework's own,
/// sorted by name (values of one name keep their order).
fn comparable(
    framework: Framework,
    status: StatusCode,
    headers: &HeaderMap,
) -> (StatusCode, Vec<(String, String)>) {
    let ignored = |name: &str| {
        name == "date"
            || FRAMEWORK_CHANGES
                .iter()
                .any(|(f, n, _)| *f == framework && *n == name)
    };
    let mut fields: Vec<(String, String)> = headers
        .iter()
        .filter(|(name, _)| !ignored(name.as_str()))
        .map(|(name, value)| {
            let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
            (name.as_str().to_owned(), value)
        })
        .collect();
    fields.sort_by(|a, b| a.0.cmp(&b.0));
    (status, fields)
}

#[tokio::test]
async fn every_framework_answers_the_same_requests_with_the_same_heads_and_bodies() {
    let built = built();
    let mut servers = Vec::new();
    for framework in &built {
        servers.push((*framework, framework.spawn(DISK.service(), None).await));
    }
    let probes = probes();
    let mut checked = 0;
    for probe in &probes {
        let (reference_status, reference_headers, reference_body) = ask(servers[0].1, probe).await;
        for (framework, addr) in &servers[1..] {
            // The framework's own fields are left out of axum's head too: Rocket's
            // Shield keeps the nosniff the service sent, and adds it where it did not.
            let reference = comparable(*framework, reference_status, &reference_headers);
            if FRAMEWORK_ANSWERS
                .iter()
                .any(|(f, name, _)| f == framework && *name == probe.name)
            {
                continue;
            }
            let (status, headers, body) = ask(*addr, probe).await;
            let what = format!("{} vs axum, {}", framework.name(), probe.name);
            assert_eq!(
                comparable(*framework, status, &headers),
                reference,
                "{what}: head"
            );
            assert!(
                body == reference_body,
                "{what}: body ({} vs {} bytes)",
                body.len(),
                reference_body.len()
            );
            checked += 1;
        }
    }
    println!(
        "{checked} responses of {} frameworks compared with axum's ({} requests)",
        built.len() - 1,
        probes.len()
    );
}

#[tokio::test]
async fn every_framework_mounts_under_a_prefix_like_axum() {
    let built = built();
    let mut servers = Vec::new();
    for framework in &built {
        servers.push((
            *framework,
            framework.spawn(DISK.service(), Some("/static")).await,
        ));
    }
    let targets = [
        "/static",
        "/static?x=1",
        "/static/",
        "/static/css/app.css",
        "/static/docs",
        "/static/docs/",
        "/static/big.bin",
    ];
    for target in targets {
        let range = [("range", "bytes=0-9")];
        let (status, headers, body) = send(servers[0].1, Method::GET, target, &range).await;
        assert!(
            status != StatusCode::NOT_FOUND,
            "axum: {target} is not served"
        );
        for (framework, addr) in &servers[1..] {
            let reference = comparable(*framework, status, &headers);
            let (status, headers, other) = send(*addr, Method::GET, target, &range).await;
            let what = format!("{} vs axum, {target}", framework.name());
            assert_eq!(
                comparable(*framework, status, &headers),
                reference,
                "{what}"
            );
            assert!(other == body, "{what}: body");
        }
    }
}
