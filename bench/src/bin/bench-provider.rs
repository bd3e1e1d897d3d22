//! `cargo run --release --manifest-path bench/Cargo.toml --bin bench-provider`: the
//! crypto provider `serve`'s TLS runs on (rustls with aws-lc-rs: rustls's default, with
//! post-quantum key exchange) against the other one rustls ships (ring, deprecated by
//! rustls 0.23.48 for having no post-quantum algorithms), in one process. See
//! `bench/README.md`.
//!
//! Both sides of every connection are rustls, client and server, talking through
//! buffers in memory: no sockets, no kernel, only the TLS work. The same ECDSA P-256
//! server certificate (signed by a test authority the client trusts, both made here
//! with rcgen) and TLS 1.3; the server configured as `serve` configures it (TLS 1.3
//! and 1.2, its own order of cipher suites, rustls's in-memory session store). For
//! each provider:
//!
//! 1. full handshakes per second of one core, client and server together, and the
//!    server's own share (only its calls are timed), three ways: with each provider's
//!    default key exchange groups (aws-lc-rs negotiates the X25519MLKEM768 hybrid;
//!    ring, in rustls 0.23.48, secp384r1), with a browser's offer (X25519MLKEM768 and
//!    X25519: aws-lc-rs takes the hybrid, ring X25519, which is what the server does
//!    for most visitors), and with X25519 alone on both (like for like);
//! 2. resumed handshakes per second (TLS 1.3 session tickets), the same three ways;
//! 3. what the server encrypts per second in 16 KiB records, once per TLS 1.3 cipher
//!    suite;
//! 4. with `--build-times`: how long a release build of a crate that depends on rustls
//!    with only that provider takes from nothing (2 jobs), and the size of its stripped
//!    binary, which does one handshake.
//!
//! Time is the thread's CPU time (`/proc/thread-self/schedstat`), so other work on the
//! machine slows a run down without changing its figures much. Each round measures
//! every case once for each provider, one after the other (the order alternates from
//! round to round); the table shows medians over the rounds.

use std::fmt::Write as _;
use std::fs;
use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bench::procs::{self, median, thousands};
use rustls::client::Resumption;
use rustls::crypto::{aws_lc_rs, ring, CryptoProvider, SupportedKxGroup};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName};
use rustls::{
    ClientConfig, ClientConnection, ConnectionCommon, HandshakeKind, RootCertStore, ServerConfig,
    ServerConnection, SupportedCipherSuite,
};

const USAGE: &str = "\
usage: bench-provider [--seconds S] [--rounds N] [--build-times]

  --seconds S     length of each measurement (default 2)
  --rounds N      rounds, each measuring both providers; the table shows medians (default 3)
  --build-times   also build a crate depending on rustls with each provider alone, from
                  nothing, with 2 jobs: wall time and stripped binary size (minutes)";

/// The plaintext in each record of the bulk measurement: TLS's largest.
const RECORD: usize = 16 << 10;
/// What one such record is on the wire in TLS 1.3: header, content type, AEAD tag.
const RECORD_ON_WIRE: usize = 5 + RECORD + 1 + 16;
/// Handshakes before each timed loop: the first ones pay for lazy setup.
const WARMUP_HANDSHAKES: usize = 32;
/// Records before each timed bulk loop.
const WARMUP_RECORDS: usize = 256;
/// Upper bounds on the timed loops, far above what a 600 s run reaches.
const MAX_HANDSHAKES: u64 = 1 << 32;
const MAX_RECORDS: u64 = 1 << 36;
/// Flights a handshake may take (a TLS 1.3 handshake here takes two each way).
const MAX_FLIGHTS: usize = 8;
/// `read_tls` or `write_tls` calls to move one flight.
const MAX_STEPS: usize = 1024;
/// The name on the certificate, the one the client asks for.
const SERVER_NAME: &str = "localhost";

struct Args {
    seconds: u64,
    rounds: usize,
    build_times: bool,
}

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let args = match parse(&argv) {
        Ok(args) => args,
        Err(message) => {
            eprintln!("bench-provider: {message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("bench-provider: {message}");
            ExitCode::FAILURE
        }
    }
}

fn parse(argv: &[String]) -> Result<Args, String> {
    let mut args = Args {
        seconds: 2,
        rounds: 3,
        build_times: false,
    };
    let mut rest = argv.iter();
    while let Some(arg) = rest.next() {
        let mut value = || rest.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--seconds" => args.seconds = bench::whole_number(value()?, 1, 600)?,
            "--rounds" => args.rounds = bench::whole_number(value()?, 1, 100)? as usize,
            "--build-times" => args.build_times = true,
            "-h" | "--help" => return Err("help".into()),
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(args)
}

/// The two crypto providers rustls ships.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Provider {
    AwsLcRs,
    Ring,
}

const PROVIDERS: [Provider; 2] = [Provider::AwsLcRs, Provider::Ring];

impl Provider {
    fn name(self) -> &'static str {
        match self {
            Provider::AwsLcRs => "aws-lc-rs",
            Provider::Ring => "ring",
        }
    }

    /// rustls's feature that builds this provider.
    fn feature(self) -> &'static str {
        match self {
            Provider::AwsLcRs => "aws_lc_rs",
            Provider::Ring => "ring",
        }
    }

    /// The provider as rustls configures it by default, with its key exchange narrowed
    /// to X25519 for [`Kx::X25519`] and its cipher suites to `suite` when given.
    fn crypto(self, kx: Kx, suite: Option<Suite>) -> Arc<CryptoProvider> {
        let mut provider = match self {
            Provider::AwsLcRs => aws_lc_rs::default_provider(),
            Provider::Ring => ring_provider(),
        };
        match (kx, self) {
            (Kx::Default, _) => {}
            (Kx::Browser, Provider::AwsLcRs) => {
                provider.kx_groups = vec![
                    aws_lc_rs::kx_group::X25519MLKEM768,
                    aws_lc_rs::kx_group::X25519,
                ];
            }
            (Kx::Browser | Kx::X25519, _) => provider.kx_groups = vec![self.x25519()],
        }
        if let Some(suite) = suite {
            provider.cipher_suites = vec![self.suite(suite)];
        }
        Arc::new(provider)
    }

    fn x25519(self) -> &'static dyn SupportedKxGroup {
        match self {
            Provider::AwsLcRs => aws_lc_rs::kx_group::X25519,
            Provider::Ring => ring::kx_group::X25519,
        }
    }

    fn suite(self, suite: Suite) -> SupportedCipherSuite {
        use aws_lc_rs::cipher_suite as a;
        use ring::cipher_suite as r;
        match (self, suite) {
            (Provider::AwsLcRs, Suite::Aes256Gcm) => a::TLS13_AES_256_GCM_SHA384,
            (Provider::AwsLcRs, Suite::Aes128Gcm) => a::TLS13_AES_128_GCM_SHA256,
            (Provider::AwsLcRs, Suite::Chacha20) => a::TLS13_CHACHA20_POLY1305_SHA256,
            (Provider::Ring, Suite::Aes256Gcm) => r::TLS13_AES_256_GCM_SHA384,
            (Provider::Ring, Suite::Aes128Gcm) => r::TLS13_AES_128_GCM_SHA256,
            (Provider::Ring, Suite::Chacha20) => r::TLS13_CHACHA20_POLY1305_SHA256,
        }
    }
}

/// ring's provider. rustls 0.23.48 deprecates it (no post-quantum algorithms): that is
/// one side of the comparison, not something to build on.
#[allow(deprecated)]
fn ring_provider() -> CryptoProvider {
    ring::default_provider()
}

/// Which key exchange groups both sides offer. A TLS 1.3 server takes the first group
/// in the client's list that it supports, so the client's order decides.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kx {
    /// Each provider's default groups, as rustls 0.23.48 orders them. aws-lc-rs:
    /// X25519MLKEM768, secp384r1, X25519, secp256r1 (its client sends an X25519MLKEM768
    /// share and an X25519 one); ring, which has no post-quantum group: secp384r1,
    /// X25519, secp256r1. So both clients get their first choice: X25519MLKEM768 and
    /// secp384r1.
    Default,
    /// What today's browsers offer (X25519MLKEM768 and an X25519 share): what the
    /// server does for most of its visitors. aws-lc-rs takes the hybrid, ring X25519.
    Browser,
    /// X25519 alone, on both sides: the same mathematics for both providers.
    X25519,
}

impl Kx {
    fn name(self) -> &'static str {
        match self {
            Kx::Default => "each one's default groups",
            Kx::Browser => "a browser's offer (X25519MLKEM768, X25519)",
            Kx::X25519 => "X25519 alone on both",
        }
    }
}

/// The TLS 1.3 cipher suites, in the server's order of preference.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Suite {
    Aes256Gcm,
    Aes128Gcm,
    Chacha20,
}

impl Suite {
    fn name(self) -> &'static str {
        match self {
            Suite::Aes256Gcm => "TLS_AES_256_GCM_SHA384",
            Suite::Aes128Gcm => "TLS_AES_128_GCM_SHA256",
            Suite::Chacha20 => "TLS_CHACHA20_POLY1305_SHA256",
        }
    }
}

/// One thing measured for both providers.
#[derive(Clone, Copy)]
enum Case {
    Full(Kx),
    Resumed(Kx),
    Bulk(Suite),
}

const CASES: [Case; 9] = [
    Case::Full(Kx::Default),
    Case::Full(Kx::Browser),
    Case::Full(Kx::X25519),
    Case::Resumed(Kx::Default),
    Case::Resumed(Kx::Browser),
    Case::Resumed(Kx::X25519),
    Case::Bulk(Suite::Aes256Gcm),
    Case::Bulk(Suite::Aes128Gcm),
    Case::Bulk(Suite::Chacha20),
];

/// The test authority and the server's certificate and key.
struct Certs {
    ca: CertificateDer<'static>,
    server: CertificateDer<'static>,
    /// PKCS#8.
    key: Vec<u8>,
}

impl Certs {
    /// A test authority and a certificate for [`SERVER_NAME`] it signed, both ECDSA
    /// P-256 with SHA-256, the kind most sites are served with today.
    fn generate() -> Result<Certs, String> {
        let alg = &rcgen::PKCS_ECDSA_P256_SHA256;
        let ca_key = rcgen::KeyPair::generate_for(alg).map_err(|e| e.to_string())?;
        let mut ca_params =
            rcgen::CertificateParams::new(Vec::<String>::new()).map_err(|e| e.to_string())?;
        ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        ca_params
            .distinguished_name
            .push(rcgen::DnType::CommonName, "bench-provider test authority");
        ca_params.key_usages = vec![
            rcgen::KeyUsagePurpose::KeyCertSign,
            rcgen::KeyUsagePurpose::DigitalSignature,
        ];
        let ca =
            rcgen::CertifiedIssuer::self_signed(ca_params, ca_key).map_err(|e| e.to_string())?;
        let key = rcgen::KeyPair::generate_for(alg).map_err(|e| e.to_string())?;
        let mut params = rcgen::CertificateParams::new(vec![SERVER_NAME.to_string()])
            .map_err(|e| e.to_string())?;
        params.extended_key_usages = vec![rcgen::ExtendedKeyUsagePurpose::ServerAuth];
        let server = params.signed_by(&key, &ca).map_err(|e| e.to_string())?;
        Ok(Certs {
            ca: ca.der().clone(),
            server: server.der().clone(),
            key: key.serialize_der(),
        })
    }
}

/// The server as `serve` configures it (`embed-runtime/src/serve/tls.rs`): TLS 1.3 and
/// 1.2, the server's order of cipher suites, ALPN, rustls's in-memory session store
/// (so a TLS 1.3 ticket names a session the server keeps).
fn server_config(
    provider: Arc<CryptoProvider>,
    certs: &Certs,
) -> Result<Arc<ServerConfig>, String> {
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(certs.key.clone()));
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13, &rustls::version::TLS12])
        .map_err(|e| e.to_string())?
        .with_no_client_auth()
        .with_single_cert(vec![certs.server.clone()], key)
        .map_err(|e| e.to_string())?;
    config.ignore_client_order = true;
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

/// A client with the same provider, TLS 1.3 only, trusting the test authority (so it
/// checks the chain and the server's signature as a browser would), keeping the
/// server's tickets when `resume`.
fn client_config(
    provider: Arc<CryptoProvider>,
    certs: &Certs,
    resume: bool,
) -> Result<Arc<ClientConfig>, String> {
    let mut roots = RootCertStore::empty();
    roots.add(certs.ca.clone()).map_err(|e| e.to_string())?;
    let mut config = ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13])
        .map_err(|e| e.to_string())?
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    if !resume {
        config.resumption = Resumption::disabled();
    }
    Ok(Arc::new(config))
}

/// Everything `conn` has to send, into `out` (emptied first).
fn drain<D>(conn: &mut ConnectionCommon<D>, out: &mut Vec<u8>) -> Result<(), String> {
    out.clear();
    for _ in 0..MAX_STEPS {
        if !conn.wants_write() {
            return Ok(());
        }
        conn.write_tls(out).map_err(|e| e.to_string())?;
    }
    Err(format!("still writing after {MAX_STEPS} calls"))
}

/// `bytes` read by `conn`, and processed.
fn feed<D>(conn: &mut ConnectionCommon<D>, mut bytes: &[u8]) -> Result<(), String> {
    for _ in 0..MAX_STEPS {
        if bytes.is_empty() {
            return Ok(());
        }
        conn.read_tls(&mut bytes).map_err(|e| e.to_string())?;
        conn.process_new_packets().map_err(|e| e.to_string())?;
    }
    Err(format!("still reading after {MAX_STEPS} calls"))
}

/// One connection from start to the end of the handshake, the tickets the server sends
/// after it included; the time spent in the server's calls is added to `server_time`.
fn handshake(
    client_config: &Arc<ClientConfig>,
    server_config: &Arc<ServerConfig>,
    name: &ServerName<'static>,
    buf: &mut Vec<u8>,
    server_time: &mut Duration,
) -> Result<(ClientConnection, ServerConnection), String> {
    let mut client = ClientConnection::new(Arc::clone(client_config), name.clone())
        .map_err(|e| e.to_string())?;
    let clock = Instant::now();
    let mut server = ServerConnection::new(Arc::clone(server_config)).map_err(|e| e.to_string())?;
    *server_time += clock.elapsed();
    for _ in 0..MAX_FLIGHTS {
        drain(&mut client, buf)?;
        let clock = Instant::now();
        feed(&mut server, buf)?;
        drain(&mut server, buf)?;
        *server_time += clock.elapsed();
        feed(&mut client, buf)?;
        if !client.is_handshaking()
            && !server.is_handshaking()
            && !client.wants_write()
            && !server.wants_write()
        {
            return Ok((client, server));
        }
    }
    Err(format!(
        "the handshake did not end in {MAX_FLIGHTS} flights"
    ))
}

/// This thread's CPU time in nanoseconds, when the kernel tells it.
fn thread_cpu_ns() -> Option<u64> {
    fs::read_to_string("/proc/thread-self/schedstat")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// A timed loop's start: the wall clock and this thread's CPU time.
struct Start {
    wall: Instant,
    cpu: Option<u64>,
}

impl Start {
    fn now() -> Start {
        Start {
            cpu: thread_cpu_ns(),
            wall: Instant::now(),
        }
    }

    /// Wall seconds and CPU seconds since (the wall's, if the CPU time is unknown).
    fn elapsed(&self) -> (f64, f64) {
        let wall = self.wall.elapsed().as_secs_f64();
        let cpu = match (self.cpu, thread_cpu_ns()) {
            (Some(before), Some(after)) if after > before => (after - before) as f64 / 1e9,
            _ => wall,
        };
        (wall, cpu)
    }
}

/// What one timed loop did.
struct Sample {
    /// Per CPU-second of the thread running both sides.
    per_second: f64,
    /// Per CPU-second of the server's calls alone (handshakes only).
    server_per_second: Option<f64>,
}

/// What a provider negotiates in `case`, checked before anything is timed.
fn check(provider: Provider, case: Case, certs: &Certs) -> Result<String, String> {
    let (kx, suite, resume) = match case {
        Case::Full(kx) => (kx, None, false),
        Case::Resumed(kx) => (kx, None, true),
        Case::Bulk(suite) => (Kx::X25519, Some(suite), false),
    };
    let crypto = provider.crypto(kx, suite);
    let server_config = server_config(Arc::clone(&crypto), certs)?;
    let client_config = client_config(crypto, certs, resume)?;
    let name = ServerName::try_from(SERVER_NAME).map_err(|e| e.to_string())?;
    let mut buf = Vec::new();
    let mut ignored = Duration::ZERO;
    let (_, first) = handshake(
        &client_config,
        &server_config,
        &name,
        &mut buf,
        &mut ignored,
    )?;
    let (_, second) = handshake(
        &client_config,
        &server_config,
        &name,
        &mut buf,
        &mut ignored,
    )?;
    let want = if resume {
        HandshakeKind::Resumed
    } else {
        HandshakeKind::Full
    };
    if second.handshake_kind() != Some(want) {
        return Err(format!(
            "{}: a second connection was {:?}, not {want:?}",
            provider.name(),
            second.handshake_kind()
        ));
    }
    let group = second
        .negotiated_key_exchange_group()
        .map_or("none".to_string(), |g| format!("{:?}", g.name()));
    let negotiated = second
        .negotiated_cipher_suite()
        .map_or("none".to_string(), |s| format!("{:?}", s.suite()));
    let version = second
        .protocol_version()
        .map_or("none".to_string(), |v| format!("{v:?}"));
    drop(first);
    Ok(format!("{version}, {group}, {negotiated}, {want:?}"))
}

/// Handshakes for `seconds`: full ones, or resumed ones from the tickets of the one
/// before.
fn handshakes(
    provider: Provider,
    kx: Kx,
    resume: bool,
    certs: &Certs,
    seconds: u64,
) -> Result<Sample, String> {
    let crypto = provider.crypto(kx, None);
    let server_config = server_config(Arc::clone(&crypto), certs)?;
    let client_config = client_config(crypto, certs, resume)?;
    let name = ServerName::try_from(SERVER_NAME).map_err(|e| e.to_string())?;
    let want = if resume {
        HandshakeKind::Resumed
    } else {
        HandshakeKind::Full
    };
    let mut buf = Vec::with_capacity(16 << 10);
    let mut ignored = Duration::ZERO;
    for _ in 0..WARMUP_HANDSHAKES {
        handshake(
            &client_config,
            &server_config,
            &name,
            &mut buf,
            &mut ignored,
        )?;
    }
    let budget = Duration::from_secs(seconds);
    let mut server_time = Duration::ZERO;
    let mut count = 0u64;
    let start = Start::now();
    while count < MAX_HANDSHAKES {
        let (client, server) = handshake(
            &client_config,
            &server_config,
            &name,
            &mut buf,
            &mut server_time,
        )?;
        if server.handshake_kind() != Some(want) {
            return Err(format!(
                "{}: handshake {count} was {:?}, not {want:?}",
                provider.name(),
                server.handshake_kind()
            ));
        }
        drop(client);
        let clock = Instant::now();
        drop(server);
        server_time += clock.elapsed();
        count += 1;
        if start.wall.elapsed() >= budget {
            break;
        }
    }
    let (wall, cpu) = start.elapsed();
    // The server's calls are timed by the wall clock; their share of the loop's wall
    // time is their share of its CPU time.
    let server_cpu = cpu * server_time.as_secs_f64() / wall;
    Ok(Sample {
        per_second: count as f64 / cpu,
        server_per_second: Some(count as f64 / server_cpu),
    })
}

/// The server encrypting 16 KiB records of one connection for `seconds`: plaintext
/// megabytes (10^6 bytes) per second.
fn bulk(provider: Provider, suite: Suite, certs: &Certs, seconds: u64) -> Result<Sample, String> {
    let crypto = provider.crypto(Kx::X25519, Some(suite));
    let server_config = server_config(Arc::clone(&crypto), certs)?;
    let client_config = client_config(crypto, certs, false)?;
    let name = ServerName::try_from(SERVER_NAME).map_err(|e| e.to_string())?;
    let mut buf = Vec::with_capacity(2 * RECORD_ON_WIRE);
    let mut ignored = Duration::ZERO;
    let (mut client, mut server) = handshake(
        &client_config,
        &server_config,
        &name,
        &mut buf,
        &mut ignored,
    )?;
    let record: Vec<u8> = (0..RECORD).map(|i| (i % 251) as u8).collect();
    // One write is one record, and the client reads back what was written.
    server
        .writer()
        .write_all(&record)
        .map_err(|e| e.to_string())?;
    drain(&mut server, &mut buf)?;
    if buf.len() != RECORD_ON_WIRE {
        return Err(format!(
            "{}: 16 KiB became {} bytes on the wire, not one record of {RECORD_ON_WIRE}",
            provider.name(),
            buf.len()
        ));
    }
    feed(&mut client, &buf)?;
    let mut back = vec![0; RECORD];
    client
        .reader()
        .read_exact(&mut back)
        .map_err(|e| e.to_string())?;
    if back != record {
        return Err(format!("{}: the client read other bytes", provider.name()));
    }
    let send = |server: &mut ServerConnection, buf: &mut Vec<u8>| -> Result<(), String> {
        server
            .writer()
            .write_all(&record)
            .map_err(|e| e.to_string())?;
        buf.clear();
        server.write_tls(buf).map_err(|e| e.to_string())?;
        Ok(())
    };
    for _ in 0..WARMUP_RECORDS {
        send(&mut server, &mut buf)?;
    }
    let budget = Duration::from_secs(seconds);
    let mut count = 0u64;
    let start = Start::now();
    while count < MAX_RECORDS {
        send(&mut server, &mut buf)?;
        count += 1;
        if start.wall.elapsed() >= budget {
            break;
        }
    }
    let (_, cpu) = start.elapsed();
    Ok(Sample {
        per_second: (count * RECORD as u64) as f64 / 1e6 / cpu,
        server_per_second: None,
    })
}

fn measure(provider: Provider, case: Case, certs: &Certs, seconds: u64) -> Result<Sample, String> {
    match case {
        Case::Full(kx) => handshakes(provider, kx, false, certs, seconds),
        Case::Resumed(kx) => handshakes(provider, kx, true, certs, seconds),
        Case::Bulk(suite) => bulk(provider, suite, certs, seconds),
    }
}

/// A row of the table: a figure per round for each provider, in `PROVIDERS` order.
struct Row {
    label: String,
    unit: Unit,
    values: [Vec<f64>; 2],
}

#[derive(Clone, Copy)]
enum Unit {
    PerSecond,
    Seconds,
    Bytes,
}

impl Row {
    fn new(label: String, unit: Unit) -> Row {
        Row {
            label,
            unit,
            values: [Vec::new(), Vec::new()],
        }
    }

    fn push(&mut self, provider: Provider, value: f64) {
        let index = PROVIDERS.iter().position(|p| *p == provider).unwrap_or(0);
        self.values[index].push(value);
    }

    fn show(&self, value: f64) -> String {
        match self.unit {
            Unit::PerSecond => thousands(value),
            Unit::Seconds => format!("{value:.1}"),
            Unit::Bytes => thousands(value),
        }
    }
}

/// `(max - min) / median` of one provider's figures, as a percentage.
fn spread(values: &[f64]) -> String {
    let (Some(mid), Some(low), Some(high)) = (
        median(values),
        values.iter().copied().reduce(f64::min),
        values.iter().copied().reduce(f64::max),
    ) else {
        return "-".into();
    };
    if mid > 0.0 {
        format!("{:.0}%", (high - low) / mid * 100.0)
    } else {
        "-".into()
    }
}

fn load_average() -> String {
    fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "?".into())
}

fn run(args: &Args) -> Result<(), String> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "bench-provider: rustls {} (aws-lc-rs, ring), {cores} cores, {} s per measurement, \
         {} rounds; load average {} at the start",
        rustls_version(),
        args.seconds,
        args.rounds,
        load_average()
    );
    if thread_cpu_ns().is_none() {
        println!("  (no /proc/thread-self/schedstat: figures per wall second, not per CPU second)");
    }
    let certs = Certs::generate()?;

    println!("\nnegotiated (checked before timing):");
    for case in CASES {
        for provider in PROVIDERS {
            let what = check(provider, case, &certs)?;
            println!("  {:<62} {:<10} {what}", case_label(case), provider.name());
        }
    }

    let mut rows: Vec<Row> = Vec::new();
    for case in CASES {
        rows.push(Row::new(case_label(case), Unit::PerSecond));
        if !matches!(case, Case::Bulk(_)) {
            rows.push(Row::new(
                format!("{}: server's share", case_label(case)),
                Unit::PerSecond,
            ));
        }
    }
    let builds = if args.build_times {
        let scratch = Scratch::create(&certs)?;
        rows.push(Row::new(
            "release build from nothing, 2 jobs: wall seconds".into(),
            Unit::Seconds,
        ));
        rows.push(Row::new(
            "release build from nothing: CPU seconds (cargo, rustc, cc)".into(),
            Unit::Seconds,
        ));
        rows.push(Row::new(
            "stripped binary doing one handshake (bytes)".into(),
            Unit::Bytes,
        ));
        Some(scratch)
    } else {
        None
    };

    for round in 0..args.rounds {
        let started = Instant::now();
        let order = if round % 2 == 0 {
            PROVIDERS
        } else {
            [PROVIDERS[1], PROVIDERS[0]]
        };
        let mut index = 0;
        for case in CASES {
            for provider in order {
                let sample = measure(provider, case, &certs, args.seconds)?;
                rows[index].push(provider, sample.per_second);
                if let Some(server) = sample.server_per_second {
                    rows[index + 1].push(provider, server);
                }
            }
            index += if matches!(case, Case::Bulk(_)) { 1 } else { 2 };
        }
        if let Some(scratch) = &builds {
            for provider in order {
                let built = scratch.build(provider, round)?;
                rows[index].push(provider, built.wall);
                rows[index + 1].push(provider, built.cpu);
                rows[index + 2].push(provider, built.bytes as f64);
            }
        }
        println!(
            "round {}/{} ({} first): {:.0} s, load average {}",
            round + 1,
            args.rounds,
            order[0].name(),
            started.elapsed().as_secs_f64(),
            load_average()
        );
    }
    drop(builds);

    let mut table = String::new();
    let _ = writeln!(
        table,
        "\n| per CPU-second of one core, medians of {} rounds | aws-lc-rs | ring | aws-lc-rs/ring | spread (aws-lc-rs, ring) |",
        args.rounds
    );
    table.push_str("|---|---:|---:|---:|---:|\n");
    for row in &rows {
        let (Some(a), Some(b)) = (median(&row.values[0]), median(&row.values[1])) else {
            continue;
        };
        let ratio = if b > 0.0 { a / b } else { f64::NAN };
        let _ = writeln!(
            table,
            "| {} | {} | {} | {ratio:.2}x | {}, {} |",
            row.label,
            row.show(a),
            row.show(b),
            spread(&row.values[0]),
            spread(&row.values[1])
        );
    }
    print!("{table}");
    println!(
        "\nHandshake rows: handshakes per CPU-second (client and server together on one \
         core; the server's share: per CPU-second of the server's calls alone). Bulk \
         rows: MB (10^6 bytes of plaintext) per second the server encrypts in 16 KiB \
         records. Higher is better there, lower in the build rows. Spread: (max - min) \
         / median over the rounds. Load average at the end: {}.",
        load_average()
    );
    Ok(())
}

fn case_label(case: Case) -> String {
    match case {
        Case::Full(kx) => format!("full handshakes/s, {}", kx.name()),
        Case::Resumed(kx) => format!("resumed handshakes/s, {}", kx.name()),
        Case::Bulk(suite) => format!("MB/s encrypted, {}", suite.name()),
    }
}

/// The rustls version this bench was built against, from its lockfile.
fn rustls_version() -> String {
    let lock = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.lock");
    let text = fs::read_to_string(lock).unwrap_or_default();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line == "name = \"rustls\"" {
            if let Some(version) = lines.next() {
                return version
                    .trim_start_matches("version = \"")
                    .trim_end_matches('"')
                    .to_string();
            }
        }
    }
    "0.23".into()
}

/// The crates `--build-times` builds: one per provider, each a binary depending on
/// rustls with only that provider, doing one handshake in memory with the bench's
/// certificate, with this bench's lockfile (the same versions as measured above).
struct Scratch {
    root: PathBuf,
}

/// The scratch crate's `main.rs`; `PROVIDER` is `aws_lc_rs` or `ring`.
const SCRATCH_MAIN: &str = r#"//! One TLS 1.3 handshake between a rustls client and server in memory.

use std::io::{Read, Write};
use std::sync::Arc;

use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName};

#[allow(deprecated)]
fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::PROVIDER::default_provider())
}

fn pump<A, B>(
    from: &mut rustls::ConnectionCommon<A>,
    to: &mut rustls::ConnectionCommon<B>,
) -> Result<(), Box<dyn std::error::Error>> {
    let mut buf = Vec::new();
    from.write_tls(&mut buf)?;
    let mut rest = &buf[..];
    for _ in 0..64 {
        if rest.is_empty() {
            break;
        }
        to.read_tls(&mut rest)?;
        to.process_new_packets()?;
    }
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ca = CertificateDer::from(&include_bytes!("../../ca.der")[..]);
    let chain = vec![CertificateDer::from(&include_bytes!("../../server.der")[..])];
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(&include_bytes!("../../server.key.der")[..]));
    let mut roots = rustls::RootCertStore::empty();
    roots.add(ca)?;
    let server = rustls::ServerConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()?
        .with_no_client_auth()
        .with_single_cert(chain, key)?;
    let client = rustls::ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()?
        .with_root_certificates(roots)
        .with_no_client_auth();
    let mut client = rustls::ClientConnection::new(Arc::new(client), ServerName::try_from("localhost")?)?;
    let mut server = rustls::ServerConnection::new(Arc::new(server))?;
    for _ in 0..8 {
        if !client.is_handshaking() && !server.is_handshaking() {
            break;
        }
        pump(&mut client, &mut server)?;
        pump(&mut server, &mut client)?;
    }
    server.writer().write_all(b"handshake done")?;
    pump(&mut server, &mut client)?;
    let mut read = [0; 14];
    client.reader().read_exact(&mut read)?;
    println!("{}", String::from_utf8_lossy(&read));
    Ok(())
}
"#;

impl Scratch {
    fn create(certs: &Certs) -> Result<Scratch, String> {
        let root = std::env::temp_dir().join(format!("bench-provider-{}", std::process::id()));
        let write = |path: &Path, bytes: &[u8]| {
            fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))
        };
        fs::create_dir_all(&root).map_err(|e| format!("{}: {e}", root.display()))?;
        write(&root.join("ca.der"), &certs.ca)?;
        write(&root.join("server.der"), &certs.server)?;
        write(&root.join("server.key.der"), &certs.key)?;
        let lock = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.lock");
        let scratch = Scratch { root };
        for provider in PROVIDERS {
            let dir = scratch.crate_dir(provider);
            fs::create_dir_all(dir.join("src")).map_err(|e| format!("{}: {e}", dir.display()))?;
            write(
                &dir.join("Cargo.toml"),
                format!(
                    "[package]\nname = \"handshake-{}\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\
                     publish = false\n\n[workspace]\n\n[dependencies]\n\
                     rustls = {{ version = \"0.23.48\", default-features = false, features = \
                     [\"std\", \"tls12\", \"{}\"] }}\n",
                    provider.name(),
                    provider.feature()
                )
                .as_bytes(),
            )?;
            write(
                &dir.join("src/main.rs"),
                SCRATCH_MAIN
                    .replace("PROVIDER", provider.feature())
                    .as_bytes(),
            )?;
            // The bench's own lockfile: cargo keeps the versions it names and drops the
            // rest, so the builds use the rustls, aws-lc-rs and ring measured above.
            fs::copy(&lock, dir.join("Cargo.lock"))
                .map_err(|e| format!("{}: {e}", lock.display()))?;
            // Sources fetched before anything is timed.
            let mut fetch = scratch.cargo(&dir);
            fetch.args(["fetch", "--quiet"]);
            run_quietly(&mut fetch, "cargo fetch")?;
        }
        Ok(scratch)
    }

    fn crate_dir(&self, provider: Provider) -> PathBuf {
        self.root.join(format!("handshake-{}", provider.name()))
    }

    fn cargo(&self, dir: &Path) -> Command {
        let mut command = Command::new("cargo");
        command
            .current_dir(dir)
            // `cargo run` of this bench sets its own OUT_DIR (it has a build script); the
            // scratch build must not see it.
            .env_remove("OUT_DIR")
            .env_remove("RUSTC_WORKSPACE_WRAPPER")
            .env_remove("RUSTC_WRAPPER");
        command
    }

    /// `cargo build --release --jobs 2` in a target folder of its own, timed; then the
    /// binary run (it must complete its handshake) and its stripped size.
    fn build(&self, provider: Provider, round: usize) -> Result<Built, String> {
        let dir = self.crate_dir(provider);
        let target = self
            .root
            .join(format!("target-{}-{round}", provider.name()));
        let _ = fs::remove_dir_all(&target);
        let mut build = self.cargo(&dir);
        build
            .args(["build", "--release", "--offline", "--jobs", "2", "--quiet"])
            .env("CARGO_TARGET_DIR", &target);
        let cpu = procs::waited_children_cpu_seconds();
        let start = Instant::now();
        run_quietly(&mut build, "cargo build")?;
        let wall = start.elapsed().as_secs_f64();
        // cargo waits for its compilers, and this process for cargo: their CPU time is
        // in this process's children's.
        let cpu = match (cpu, procs::waited_children_cpu_seconds()) {
            (Some(before), Some(after)) => after - before,
            _ => f64::NAN,
        };
        let binary = target
            .join("release")
            .join(format!("handshake-{}", provider.name()));
        let said = run_quietly(&mut Command::new(&binary), "the scratch binary")?;
        if said.trim() != "handshake done" {
            return Err(format!("{}: printed {said:?}", binary.display()));
        }
        let stripped = target.join("stripped");
        run_quietly(
            Command::new("strip").arg("-o").arg(&stripped).arg(&binary),
            "strip",
        )?;
        let bytes = fs::metadata(&stripped)
            .map_err(|e| format!("{}: {e}", stripped.display()))?
            .len();
        let _ = fs::remove_dir_all(&target);
        Ok(Built { wall, cpu, bytes })
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.root);
    }
}

/// One scratch build: wall and CPU seconds, and the stripped binary's bytes.
struct Built {
    wall: f64,
    cpu: f64,
    bytes: u64,
}

/// Runs `command` to completion: its standard output, or an error with its standard
/// error.
fn run_quietly(command: &mut Command, what: &str) -> Result<String, String> {
    let output = command.output().map_err(|e| format!("{what}: {e}"))?;
    if output.status.success() {
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    } else {
        Err(format!(
            "{what} failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        ))
    }
}
