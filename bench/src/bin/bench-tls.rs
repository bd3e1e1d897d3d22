//! `cargo run --release --manifest-path bench/Cargo.toml --bin bench-tls`: HTTPS
//! requests per second and CPU per response on one server core: `embed_assets::serve`
//! with `Server::tls` (rustls) against nginx with `ssl` (OpenSSL), over the bench site,
//! with the same certificate (ECDSA P-256, made by `openssl`) and TLS 1.3 only, under
//! `wrk` (OpenSSL). See `bench/README.md`.
//!
//! Each server is a child process pinned to CPU 0 with one worker; wrk runs pinned to
//! CPU 1. Rounds interleave the servers (the order alternates) and the tables show
//! medians. Keep-alive connections for each case of bench-static but the 304, the small
//! bodies again with 16 requests pipelined on each connection (one at a time, wrk's own
//! OpenSSL thread is the limit), then a new connection (a full handshake, no
//! resumption: wrk does not resume) per request.

use std::fmt::Write as _;
use std::io::{BufRead as _, Read as _};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

use bench::cases::{Case, Check, CASES};
use bench::child::ChildServer;
use bench::procs::{self, median, pinned, thousands};
use bench::site::{SITE, SITE_DIR, SITE_PRECOMPRESSED_DIR};
use bench::wrk;

const USAGE: &str = "\
usage: bench-tls [--rounds N] [--seconds S] [--connections N]
       bench-tls serve CERT KEY   (ours, by hand: prints `listening on ADDR`)

  --rounds N       interleaved rounds; the tables show medians (default 3)
  --seconds S      length of each wrk run (default 3)
  --connections N  wrk's connections for the keep-alive cases (default 64)";

/// Ours must reach this multiple of nginx on the small bodies.
const SMALL_GOAL: f64 = 1.2;
/// And this on the br bodies, the new connections and the download.
const GOAL: f64 = 1.0;

struct Args {
    rounds: usize,
    seconds: u64,
    connections: usize,
}

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    if argv.first().map(String::as_str) == Some("serve") {
        return match serve(&argv[1..]) {
            Ok(()) => ExitCode::SUCCESS,
            Err(message) => {
                eprintln!("bench-tls serve: {message}");
                ExitCode::FAILURE
            }
        };
    }
    let args = match parse(&argv) {
        Ok(args) => args,
        Err(message) => {
            eprintln!("bench-tls: {message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(message) => {
            eprintln!("bench-tls: {message}");
            ExitCode::FAILURE
        }
    }
}

fn parse(argv: &[String]) -> Result<Args, String> {
    let mut args = Args {
        rounds: 3,
        seconds: 3,
        connections: 64,
    };
    let mut rest = argv.iter();
    while let Some(arg) = rest.next() {
        let mut value = || rest.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--rounds" => args.rounds = bench::whole_number(value()?, 1, 100)? as usize,
            "--seconds" => args.seconds = bench::whole_number(value()?, 1, 600)?,
            "--connections" => {
                args.connections = bench::whole_number(value()?, 1, 10_000)? as usize;
            }
            "-h" | "--help" => return Err("help".into()),
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(args)
}

/// `bench-tls serve CERT KEY`: the library's server with TLS over the bench site, one
/// worker, in front of a `Router` with one API route, until its standard input closes.
fn serve(argv: &[String]) -> Result<(), String> {
    let [certificate, key] = argv else {
        return Err("serve takes CERT KEY".into());
    };
    let tls = embed_assets::Tls::from_pem_files(certificate, key).map_err(|e| e.to_string())?;
    let server = embed_assets::Server::bind("127.0.0.1:0")
        .map_err(|e| e.to_string())?
        .workers(1)
        .shutdown_on_signals(false)
        .tls(tls);
    println!("listening on {}", server.local_addr());
    // The parent closes its end to stop it.
    std::thread::spawn(|| {
        let _ = std::io::stdin().read_to_end(&mut Vec::new());
        std::process::exit(0);
    });
    let app = axum::Router::new().route("/api/health", axum::routing::get(|| async { "ok" }));
    server.serve(SITE.service(), app).map_err(|e| e.to_string())
}

/// A certificate authority and a server certificate for 127.0.0.1, ECDSA P-256, in
/// `dir`: the server's chain and key paths.
fn certificates(openssl: &Path, dir: &Path) -> Result<(PathBuf, PathBuf), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    std::fs::write(
        dir.join("server.ext"),
        "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n\
         keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n",
    )
    .map_err(|e| e.to_string())?;
    let ec = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
    ];
    let steps: [Vec<&str>; 3] = [
        [
            &["req", "-x509"][..],
            &ec,
            &[
                "-keyout",
                "ca.key",
                "-out",
                "ca.pem",
                "-days",
                "2",
                "-subj",
                "/CN=bench CA",
            ],
        ]
        .concat(),
        [
            &["req"][..],
            &ec,
            &[
                "-keyout",
                "server.key",
                "-out",
                "server.csr",
                "-subj",
                "/CN=localhost",
            ],
        ]
        .concat(),
        vec![
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            "server.pem",
            "-days",
            "2",
            "-extfile",
            "server.ext",
        ],
    ];
    for step in steps {
        let output = Command::new(openssl)
            .args(&step)
            .current_dir(dir)
            .output()
            .map_err(|e| format!("openssl: {e}"))?;
        if !output.status.success() {
            return Err(format!(
                "openssl {step:?}: {}",
                String::from_utf8_lossy(&output.stderr)
            ));
        }
    }
    Ok((dir.join("server.pem"), dir.join("server.key")))
}

/// One server under test: its process and the address it speaks TLS on.
struct Tested {
    name: &'static str,
    process: ChildServer,
    addr: SocketAddr,
}

fn start_ours(cpu: Option<usize>, certificate: &Path, key: &Path) -> Result<Tested, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut command = pinned(cpu, &exe);
    command.arg("serve").arg(certificate).arg(key);
    let process = ChildServer::start_listening("ours".into(), command)?;
    let addr = process.addr;
    Ok(Tested {
        name: "ours (rustls)",
        process,
        addr,
    })
}

/// nginx as bench-static runs it, and a second server block on its own port with
/// `ssl`: TLS 1.3 only, the same certificate, a shared session cache.
fn start_nginx(
    nginx: &Path,
    cpu: Option<usize>,
    certificate: &Path,
    key: &Path,
) -> Result<Tested, String> {
    let port = procs::free_port()?;
    let http = format!(
        "\x20   types {{\n\
         \x20       text/html html;\n\
         \x20       text/css css;\n\
         \x20       text/javascript js;\n\
         \x20       image/x-icon ico;\n\
         \x20       image/png png;\n\
         \x20   }}\n\
         \x20   gzip_vary on;\n\
         \x20   ssl_protocols TLSv1.3;\n\
         \x20   ssl_session_cache shared:SSL:10m;\n\
         \x20   server {{\n\
         \x20       listen 127.0.0.1:{port} ssl;\n\
         \x20       ssl_certificate {};\n\
         \x20       ssl_certificate_key {};\n\
         \x20       root {SITE_PRECOMPRESSED_DIR};\n\
         \x20   }}\n",
        certificate.display(),
        key.display()
    );
    let process =
        ChildServer::start_nginx_static(nginx, cpu, SITE_PRECOMPRESSED_DIR, "bench-tls", &http)?;
    Ok(Tested {
        name: if process.name == "nginx" {
            "nginx (OpenSSL)"
        } else {
            "nginx (no br)"
        },
        process,
        addr: SocketAddr::from(([127, 0, 0, 1], port)),
    })
}

/// What is measured: a case of bench-static over keep-alive connections, or a new
/// connection per request.
struct Row {
    title: String,
    path: &'static str,
    headers: Vec<(String, String)>,
    connections: usize,
    /// Requests written at once on a connection (HTTP/1.1 pipelining; 1: one at a time).
    pipeline: usize,
    /// The smallest multiple of nginx ours must reach.
    goal: f64,
}

fn rows(args: &Args) -> Vec<Row> {
    let headers = |case: &Case| match case.check {
        Check::Plain => vec![],
        _ => vec![("Accept-Encoding".to_owned(), "br, gzip".to_owned())],
    };
    let mut rows: Vec<Row> = CASES
        .iter()
        .filter(|case| case.check != Check::NotModified)
        .map(|case| Row {
            title: case.title.to_owned(),
            path: case.path,
            headers: headers(case),
            connections: args.connections,
            pipeline: 1,
            goal: if case.check == Check::Plain {
                SMALL_GOAL
            } else {
                GOAL
            },
        })
        .collect();
    // The small bodies again with 16 requests written at once on each connection: the
    // server's own limit, where one at a time wrk's OpenSSL thread is the limit.
    for case in CASES.iter().filter(|case| case.check == Check::Plain) {
        rows.push(Row {
            title: format!("{}, 16 pipelined", case.title),
            path: case.path,
            headers: vec![],
            connections: args.connections,
            pipeline: 16,
            goal: SMALL_GOAL,
        });
    }
    for case in CASES.iter().filter(|case| case.name == "index") {
        rows.push(Row {
            title: format!(
                "{}, a new connection per request (full handshake)",
                case.title
            ),
            path: case.path,
            headers: vec![("Connection".to_owned(), "close".to_owned())],
            connections: 16,
            pipeline: 1,
            goal: GOAL,
        });
    }
    rows
}

/// What curl gets from `addr` for `row`, trusting `ca`: status, coding, protocol.
fn probe(curl: &Path, ca: &Path, addr: SocketAddr, row: &Row) -> Result<String, String> {
    let mut command = Command::new(curl);
    command
        .args([
            "-sS",
            "--max-time",
            "10",
            "--tlsv1.3",
            "--http1.1",
            "--cacert",
        ])
        .arg(ca)
        .args([
            "-o",
            "/dev/null",
            "-w",
            "%{http_code} %{size_download} B %{ssl_verify_result}",
        ]);
    for (name, value) in &row.headers {
        command.arg("-H").arg(format!("{name}: {value}"));
    }
    let output = command
        .arg(format!("https://localhost:{}{}", addr.port(), row.path))
        .output()
        .map_err(|e| format!("curl: {e}"))?;
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    if !output.status.success() || !text.starts_with("200 ") {
        return Err(format!(
            "{text} {}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(text)
}

/// The cipher suite and key exchange `openssl s_client` gets from `addr`.
fn handshake(openssl: &Path, addr: SocketAddr) -> String {
    let output = Command::new(openssl)
        .args(["s_client", "-connect", &addr.to_string(), "-brief"])
        .stdin(Stdio::null())
        .output();
    let Ok(output) = output else {
        return "?".into();
    };
    // -brief writes its lines on stderr.
    output
        .stderr
        .lines()
        .map_while(Result::ok)
        .filter(|line| {
            line.starts_with("Protocol version")
                || line.starts_with("Ciphersuite")
                || line.starts_with("Server Temp Key")
                || line.starts_with("Peer signature type")
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// One measurement: requests per second and server CPU per response (µs).
#[derive(Default, Clone)]
struct Samples {
    per_second: Vec<f64>,
    cpu_micros: Vec<f64>,
}

fn measure(
    wrk: &Path,
    cpu: Option<usize>,
    seconds: u64,
    server: &Tested,
    row: &Row,
) -> Result<(f64, f64), String> {
    let mut command = pinned(cpu, wrk);
    command.args([
        "-t1",
        &format!("-c{}", row.connections),
        &format!("-d{seconds}s"),
        "--timeout",
        "10s",
    ]);
    for (name, value) in &row.headers {
        command.arg("-H").arg(format!("{name}: {value}"));
    }
    // Pipelining: wrk's Lua `request` returns a batch of requests, and wrk reads as many
    // responses before it writes the next batch.
    let script = std::env::temp_dir().join(format!("bench-tls-{}.lua", std::process::id()));
    if row.pipeline > 1 {
        let text = format!(
            "local batch\n\
             init = function(args)\n\
             \x20 batch = string.rep(wrk.format(\"GET\", {:?}), {})\n\
             end\n\
             request = function() return batch end\n",
            row.path, row.pipeline
        );
        std::fs::write(&script, text).map_err(|e| format!("{}: {e}", script.display()))?;
        command.arg("-s").arg(&script);
    }
    command.arg(format!(
        "https://127.0.0.1:{}{}",
        server.addr.port(),
        row.path
    ));
    let before = server.process.cpu_seconds();
    let output = command.output().map_err(|e| format!("wrk: {e}"));
    let _ = std::fs::remove_file(&script);
    let output = output?;
    let used = server.process.cpu_seconds() - before;
    let text = String::from_utf8_lossy(&output.stdout);
    let outcome = wrk::parse(&text).ok_or_else(|| format!("wrk printed no summary: {text}"))?;
    if outcome.bad_status > 0 || outcome.socket_errors > 0 {
        return Err(format!(
            "{} on {}: {} bad statuses, {} socket errors",
            server.name, row.title, outcome.bad_status, outcome.socket_errors
        ));
    }
    Ok((
        outcome.per_second,
        used * 1e6 / outcome.requests.max(1) as f64,
    ))
}

fn run(args: &Args) -> Result<bool, String> {
    let need = |name: &str| {
        procs::find_program(name).ok_or(format!("{name} not found: apt-get install -y {name}"))
    };
    let (wrk_path, openssl, curl) = (need("wrk")?, need("openssl")?, need("curl")?);
    let nginx = need("nginx")?;
    let (server_cpu, client_cpu) = bench::rounds::cpus(true);
    let dir = std::env::temp_dir().join(format!("bench-tls-{}", std::process::id()));
    let (certificate, key) = certificates(&openssl, &dir)?;
    println!(
        "bench-tls: site {SITE_DIR}; servers on CPU {server_cpu:?}, wrk on CPU {client_cpu:?}"
    );
    let servers = [
        start_ours(server_cpu, &certificate, &key)?,
        start_nginx(&nginx, server_cpu, &certificate, &key)?,
    ];
    let rows = rows(args);
    println!("\n== check: every server, every URL, over TLS 1.3 (curl)");
    for server in &servers {
        println!("  {:<16} {}", server.name, handshake(&openssl, server.addr));
        for row in &rows {
            let seen = probe(&curl, &dir.join("ca.pem"), server.addr, row)
                .map_err(|problem| format!("{} failed {}: {problem}", server.name, row.title))?;
            println!("  {:<16} {:<62} {seen}", server.name, row.title);
        }
    }
    println!(
        "\n== rounds: {} x (every case x both servers), wrk -t1 -d{}s over https",
        args.rounds, args.seconds
    );
    let mut samples = vec![vec![Samples::default(); servers.len()]; rows.len()];
    for round in 0..args.rounds {
        for (r, row) in rows.iter().enumerate() {
            for i in 0..servers.len() {
                // The order alternates from round to round.
                let s = (i + round) % servers.len();
                let (per_second, cpu) =
                    measure(&wrk_path, client_cpu, args.seconds, &servers[s], row)?;
                samples[r][s].per_second.push(per_second);
                samples[r][s].cpu_micros.push(cpu);
            }
        }
        println!("  round {} of {} done", round + 1, args.rounds);
    }
    let mut out = String::new();
    let mut ok = true;
    let _ = writeln!(
        out,
        "\n== medians; ours as x nginx: by requests/s, and by CPU per response (nginx's / ours')"
    );
    for (row, cells) in rows.iter().zip(&samples) {
        let _ = writeln!(out, "\n{} ({} connections)", row.title, row.connections);
        let medians: Vec<(f64, f64)> = cells
            .iter()
            .map(|cell| {
                (
                    median(&cell.per_second).unwrap_or(0.0),
                    median(&cell.cpu_micros).unwrap_or(0.0),
                )
            })
            .collect();
        for (server, (per_second, cpu)) in servers.iter().zip(&medians) {
            let _ = writeln!(
                out,
                "  {:<16} {:>9} req/s  {cpu:>7.1} µs CPU a response",
                server.name,
                thousands(*per_second)
            );
        }
        let (ours, theirs) = (medians[0], medians[1]);
        let by_rate = ours.0 / theirs.0;
        let by_cpu = theirs.1 / ours.1;
        let pass = by_rate >= row.goal && by_cpu >= row.goal;
        ok &= pass;
        let _ = writeln!(
            out,
            "  ours: {by_rate:.2}x nginx by req/s, {by_cpu:.2}x by CPU per response (goal >= {:.1}x): {}",
            row.goal,
            if pass { "PASS" } else { "MISS" }
        );
    }
    println!("{out}");
    drop(servers);
    let _ = std::fs::remove_dir_all(&dir);
    Ok(ok)
}
