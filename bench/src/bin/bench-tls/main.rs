//! `cargo run --release --manifest-path bench/Cargo.toml --bin bench-tls`: HTTPS
//! requests per second and CPU per response on one server core: `embed_assets::serve`
//! with `Server::tls` (rustls) against nginx with `ssl` (OpenSSL), over the bench site,
//! with the same certificate (ECDSA P-256, made by `openssl`) and TLS 1.3 only, under
//! `wrk` (OpenSSL). See `bench/README.md`.
//!
//! Each server is a child process pinned to CPU 0 with one worker; wrk (or curl) runs
//! pinned to CPU 1. Rounds interleave the servers (the order rotates) and the tables
//! show medians. Keep-alive connections for each case of bench-static but the 304, the
//! small bodies again with 16 requests pipelined on each connection (one at a time,
//! wrk's own OpenSSL thread is the limit), then a new connection (a full handshake, no
//! resumption: wrk does not resume) per request. Then, in the same rounds:
//!
//! - the 64 MiB file bench-disk serves from disk, downloaded again and again on one
//!   connection by curl (OpenSSL): MB/s and server CPU per download;
//! - beside ours and nginx on `/index.html` and the br `/js/app.js`, the TLS ceiling of
//!   the machine: a hand-written tokio-rustls server answering every request with the
//!   bytes ours sends for it (`ceiling`);
//! - HTTP Arena's `static-tls` shape: its 20 files over https, its Accept-Encoding,
//!   wrk's round-robin script (`bench::arena`), many connections, served by ours over
//!   the folder (`ServeAssets::folder`, the shape of a legal entry) and embedded, by
//!   nginx configured as HTTP Arena's nginx entry, and by axum-server with rustls in
//!   front of tower-http's `ServeDir` (`peer`).

mod ceiling;
mod https;
mod peer;

use std::fmt::Write as _;
use std::io::{BufRead as _, Read as _};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

use bench::arena::{self, ACCEPT_ENCODING, ARENA_DIR, ARENA_PRECOMPRESSED_DIR, PATHS};
use bench::cases::{Case, Check, CASES};
use bench::child::ChildServer;
use bench::procs::{self, median, pinned, thousands};
use bench::site::{SITE, SITE_DIR, SITE_PRECOMPRESSED_DIR};
use bench::{wrk, MEDIA, MEDIA_DIR, VIDEO_LEN, VIDEO_URL};
use embed_assets::ServeAssets;

use crate::https::Client;

const USAGE: &str = "\
usage: bench-tls [--rounds N] [--seconds S] [--connections N] [--downloads N]
       bench-tls serve CERT KEY [--what site|media|arena-folder|arena-embedded]
                                  (ours, by hand: prints `listening on ADDR`)
       bench-tls ceiling CERT KEY TARGET FILE [TARGET FILE]...
       bench-tls peer CERT KEY    (axum-server + ServeDir over HTTP Arena's files)

  --rounds N       interleaved rounds; the tables show medians (default 3)
  --seconds S      length of each wrk run (default 3)
  --connections N  wrk's connections for the keep-alive cases and HTTP Arena's
                   static-tls shape (default 64: HTTP Arena's 4,096 over its 64 CPUs,
                   per CPU)
  --downloads N    downloads of the 64 MiB file on one connection, per server and
                   round (default 5)";

/// Ours must reach this multiple of nginx on the small bodies.
const SMALL_GOAL: f64 = 1.2;
/// And this on the br bodies, the new connections, the download and HTTP Arena's shape.
const GOAL: f64 = 1.0;
/// Longest one curl run of the downloads may take.
const DOWNLOAD_TIMEOUT_SECONDS: u64 = 120;

struct Args {
    rounds: usize,
    seconds: u64,
    connections: usize,
    downloads: usize,
}

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let sub = |run: fn(&[String]) -> Result<(), String>, name: &str| match run(&argv[1..]) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("bench-tls {name}: {message}");
            ExitCode::FAILURE
        }
    };
    match argv.first().map(String::as_str) {
        Some("serve") => return sub(serve, "serve"),
        Some("ceiling") => return sub(serve_ceiling, "ceiling"),
        Some("peer") => return sub(serve_peer, "peer"),
        _ => {}
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
        downloads: 5,
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
            "--downloads" => args.downloads = bench::whole_number(value()?, 1, 100)? as usize,
            "-h" | "--help" => return Err("help".into()),
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(args)
}

/// Ends this process when its standard input closes: the parent closes its end to
/// stop a server.
fn exit_with_stdin() {
    std::thread::spawn(|| {
        let _ = std::io::stdin().read_to_end(&mut Vec::new());
        std::process::exit(0);
    });
}

/// `bench-tls serve CERT KEY [--what W]`: the library's server with TLS, one worker,
/// in front of a `Router` with one API route, until its standard input closes. What it
/// serves: the bench site (`site`, the default), bench-disk's media folder with its
/// 64 MiB file on disk (`media`), or HTTP Arena's 20 files with their siblings read
/// from disk (`arena-folder`, `ServeAssets::folder`) or embedded (`arena-embedded`).
fn serve(argv: &[String]) -> Result<(), String> {
    let (certificate, key, what) = match argv {
        [certificate, key] => (certificate, key, "site"),
        [certificate, key, flag, what] if flag == "--what" => (certificate, key, what.as_str()),
        _ => {
            return Err(
                "serve takes CERT KEY [--what site|media|arena-folder|arena-embedded]".into(),
            );
        }
    };
    let service = match what {
        "site" => SITE.service(),
        "media" => {
            let service = MEDIA.service();
            service.check_disk().map_err(|e| e.to_string())?;
            service
        }
        "arena-folder" => ServeAssets::folder(ARENA_PRECOMPRESSED_DIR),
        "arena-embedded" => arena::files::ASSETS.service(),
        other => return Err(format!("unknown --what {other}")),
    };
    let tls = embed_assets::Tls::from_pem_files(certificate, key).map_err(|e| e.to_string())?;
    let server = embed_assets::Server::bind("127.0.0.1:0")
        .map_err(|e| e.to_string())?
        .workers(1)
        .shutdown_on_signals(false)
        .tls(tls);
    println!("listening on {}", server.local_addr());
    exit_with_stdin();
    let app = axum::Router::new().route("/api/health", axum::routing::get(|| async { "ok" }));
    server.serve(service, app).map_err(|e| e.to_string())
}

/// `bench-tls ceiling CERT KEY TARGET FILE...`: the hand-written TLS ceiling, answering
/// a request for TARGET with the bytes of FILE (a whole response), until its standard
/// input closes.
fn serve_ceiling(argv: &[String]) -> Result<(), String> {
    let [certificate, key, pairs @ ..] = argv else {
        return Err("ceiling takes CERT KEY TARGET FILE [TARGET FILE]...".into());
    };
    if pairs.is_empty() || pairs.len() % 2 != 0 {
        return Err("ceiling takes CERT KEY TARGET FILE [TARGET FILE]...".into());
    }
    let answers = pairs
        .chunks(2)
        .map(|pair| {
            std::fs::read(&pair[1])
                .map(|bytes| (pair[0].clone(), bytes))
                .map_err(|e| format!("{}: {e}", pair[1]))
        })
        .collect::<Result<Vec<_>, _>>()?;
    exit_with_stdin();
    ceiling::run(Path::new(certificate), Path::new(key), answers)
}

/// `bench-tls peer CERT KEY`: axum-server with rustls and `ServeDir` over HTTP Arena's
/// files and siblings, until its standard input closes.
fn serve_peer(argv: &[String]) -> Result<(), String> {
    let [certificate, key] = argv else {
        return Err("peer takes CERT KEY".into());
    };
    exit_with_stdin();
    peer::run(
        Path::new(certificate),
        Path::new(key),
        Path::new(ARENA_PRECOMPRESSED_DIR),
    )
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

/// Which server a child process is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Who {
    /// Ours over the bench site.
    Ours,
    /// nginx over the site's files and siblings, and the 64 MiB file.
    Nginx,
    /// The hand-written TLS ceiling, answering with ours' bytes.
    Ceiling,
    /// Ours over bench-disk's media folder: the 64 MiB file, read from disk.
    OursMedia,
    /// Ours over HTTP Arena's files and siblings, read from disk.
    OursFolder,
    /// Ours with HTTP Arena's files embedded.
    OursEmbedded,
    /// nginx set up as HTTP Arena's nginx entry, over its files and siblings.
    NginxArena,
    /// axum-server with rustls in front of `ServeDir`, over the same.
    Peer,
}

/// One server under test: which, its process and the address it speaks TLS on.
struct Tested {
    who: Who,
    name: String,
    process: ChildServer,
    addr: SocketAddr,
}

/// This executable's subcommand `args`, pinned to `cpu`, as `who`.
fn start_child(
    who: Who,
    name: &str,
    cpu: Option<usize>,
    args: &[&std::ffi::OsStr],
) -> Result<Tested, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut command = pinned(cpu, &exe);
    command.args(args);
    let process = ChildServer::start_listening(name.into(), command)?;
    Ok(Tested {
        who,
        name: name.into(),
        addr: process.addr,
        process,
    })
}

/// Ours serving `what` (see [`serve`]).
fn start_ours(
    who: Who,
    name: &str,
    what: &str,
    cpu: Option<usize>,
    certificate: &Path,
    key: &Path,
) -> Result<Tested, String> {
    let args = [
        "serve".as_ref(),
        certificate.as_os_str(),
        key.as_os_str(),
        "--what".as_ref(),
        what.as_ref(),
    ];
    start_child(who, name, cpu, &args)
}

/// nginx as bench-static runs it, and a second server block on its own port with
/// `ssl`: TLS 1.3 only, the same certificate, a shared session cache; there, the
/// 64 MiB file from bench-disk's media folder too.
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
         \x20       location = {VIDEO_URL} {{\n\
         \x20           root {MEDIA_DIR};\n\
         \x20       }}\n\
         \x20   }}\n",
        certificate.display(),
        key.display()
    );
    let process =
        ChildServer::start_nginx_static(nginx, cpu, SITE_PRECOMPRESSED_DIR, "bench-tls", &http)?;
    Ok(Tested {
        who: Who::Nginx,
        name: if process.name == "nginx" {
            "nginx (OpenSSL)".into()
        } else {
            "nginx (no br)".into()
        },
        process,
        addr: SocketAddr::from(([127, 0, 0, 1], port)),
    })
}

/// nginx as HTTP Arena's nginx entry serves static-tls (`frameworks/nginx/nginx.conf`,
/// its `listen 8081 ssl` block: TLS 1.3, session tickets and a shared cache, `etag
/// off`, no `Last-Modified`, its types), with bench-arena's additions
/// (`open_file_cache`, one worker), over HTTP Arena's files and their siblings.
fn start_nginx_arena(
    nginx: &Path,
    cpu: Option<usize>,
    certificate: &Path,
    key: &Path,
) -> Result<Tested, String> {
    let port = procs::free_port()?;
    let http = format!(
        "\x20   server_tokens off;\n\
         \x20   msie_padding off;\n\
         \x20   etag off;\n\
         \x20   types {{\n\
         \x20       text/html html;\n\
         \x20       text/css css;\n\
         \x20       application/javascript js;\n\
         \x20       application/json json;\n\
         \x20       image/webp webp;\n\
         \x20       image/svg+xml svg;\n\
         \x20       font/woff2 woff2;\n\
         \x20   }}\n\
         \x20   ssl_protocols TLSv1.3;\n\
         \x20   ssl_session_tickets on;\n\
         \x20   ssl_session_cache shared:SSL:10m;\n\
         \x20   server {{\n\
         \x20       listen 127.0.0.1:{port} ssl;\n\
         \x20       ssl_certificate {};\n\
         \x20       ssl_certificate_key {};\n\
         \x20       keepalive_requests 10000000;\n\
         \x20       root {ARENA_PRECOMPRESSED_DIR};\n\
         \x20       add_header Last-Modified '';\n\
         \x20   }}\n",
        certificate.display(),
        key.display()
    );
    let process = ChildServer::start_nginx_static(
        nginx,
        cpu,
        ARENA_PRECOMPRESSED_DIR,
        "bench-tls-arena",
        &http,
    )?;
    Ok(Tested {
        who: Who::NginxArena,
        name: if process.name == "nginx" {
            "nginx (OpenSSL)".into()
        } else {
            "nginx (no br)".into()
        },
        process,
        addr: SocketAddr::from(([127, 0, 0, 1], port)),
    })
}

/// The request headers of a case of bench-static, as wrk sends them.
fn case_headers(case: &Case) -> Vec<(String, String)> {
    match case.check {
        Check::Plain => vec![],
        _ => vec![("Accept-Encoding".to_owned(), "br, gzip".to_owned())],
    }
}

/// The ceiling's answers: the whole responses ours sends to `/index.html` and to the br
/// `/js/app.js` (the cases it stands beside), read once over TLS and written to files in
/// `dir`, as `TARGET FILE` pairs for `bench-tls ceiling`.
fn ceiling_answers(client: &Client, ours: &Tested, dir: &Path) -> Result<Vec<String>, String> {
    let mut pairs = Vec::new();
    for case in CASES.iter().filter(|case| ceiling_stands_beside(case)) {
        let answer = client
            .get(ours.addr, case.path, &case_headers(case))
            .map_err(|e| format!("ours' answer to {}: {e}", case.title))?;
        if answer.reply.status != 200 {
            return Err(format!(
                "ours answered {} with {}",
                case.title, answer.reply.status
            ));
        }
        let file = dir.join(format!("ceiling-{}.http", case.name));
        std::fs::write(&file, &answer.raw).map_err(|e| format!("{}: {e}", file.display()))?;
        pairs.push(case.path.to_owned());
        pairs.push(file.display().to_string());
    }
    Ok(pairs)
}

/// Whether the ceiling is measured on this case of bench-static: the small page, and
/// the br body of a script.
fn ceiling_stands_beside(case: &Case) -> bool {
    matches!(case.name, "index" | "br")
}

/// How a row is measured.
enum Load {
    /// wrk over https: `path` with `headers`, or the requests of a Lua `script`.
    Wrk {
        path: &'static str,
        headers: Vec<(String, String)>,
        connections: usize,
        script: Option<String>,
    },
    /// curl downloading the 64 MiB file again and again on one connection.
    Download,
}

/// What a server's answers are checked against before it is measured.
enum Expect {
    /// The file of bench-static's site at this path under `SITE_DIR`, once decoded.
    Site(&'static str),
    /// bench-disk's 64 MiB file.
    Video,
    /// HTTP Arena's 20 files, as bench-arena checks them.
    Arena,
}

/// What is measured: a case of bench-static, the download, or HTTP Arena's shape.
struct Row {
    title: String,
    load: Load,
    /// The servers measured: ours first, nginx second, then the others.
    servers: Vec<Who>,
    expect: Expect,
    /// The smallest multiple of nginx ours must reach.
    goal: f64,
}

fn rows(args: &Args) -> Vec<Row> {
    let with_ceiling = |case: &Case| {
        if ceiling_stands_beside(case) {
            vec![Who::Ours, Who::Nginx, Who::Ceiling]
        } else {
            vec![Who::Ours, Who::Nginx]
        }
    };
    let mut rows: Vec<Row> = CASES
        .iter()
        .filter(|case| case.check != Check::NotModified)
        .map(|case| Row {
            title: case.title.to_owned(),
            load: Load::Wrk {
                path: case.path,
                headers: case_headers(case),
                connections: args.connections,
                script: None,
            },
            servers: with_ceiling(case),
            expect: Expect::Site(case.file),
            goal: if case.check == Check::Plain {
                SMALL_GOAL
            } else {
                GOAL
            },
        })
        .collect();
    // The small bodies again with 16 requests written at once on each connection, where
    // one at a time wrk's OpenSSL thread is the limit: a server that encrypts and sends
    // each answer on its own is then its own limit (nginx); one that gathers them may
    // leave wrk the limit again. wrk's Lua `request` returns the batch, and wrk reads as
    // many responses before it writes the next one.
    for case in CASES.iter().filter(|case| case.check == Check::Plain) {
        let script = format!(
            "local batch\n\
             init = function(args)\n\
             \x20 batch = string.rep(wrk.format(\"GET\", {:?}), 16)\n\
             end\n\
             request = function() return batch end\n",
            case.path
        );
        rows.push(Row {
            title: format!("{}, 16 pipelined", case.title),
            load: Load::Wrk {
                path: case.path,
                headers: vec![],
                connections: args.connections,
                script: Some(script),
            },
            servers: with_ceiling(case),
            expect: Expect::Site(case.file),
            goal: SMALL_GOAL,
        });
    }
    for case in CASES.iter().filter(|case| case.name == "index") {
        rows.push(Row {
            title: format!(
                "{}, a new connection per request (full handshake)",
                case.title
            ),
            load: Load::Wrk {
                path: case.path,
                headers: vec![("Connection".to_owned(), "close".to_owned())],
                connections: 16,
                script: None,
            },
            servers: vec![Who::Ours, Who::Nginx],
            expect: Expect::Site(case.file),
            goal: GOAL,
        });
    }
    rows.push(Row {
        title: format!(
            "{VIDEO_URL} (64 MiB, from disk), {} downloads a round on one connection (curl)",
            args.downloads
        ),
        load: Load::Download,
        servers: vec![Who::OursMedia, Who::Nginx],
        expect: Expect::Video,
        goal: GOAL,
    });
    rows.push(Row {
        title: format!(
            "HTTP Arena's static-tls: its 20 files round-robin, Accept-Encoding: {ACCEPT_ENCODING}"
        ),
        load: Load::Wrk {
            path: "/",
            headers: vec![],
            connections: args.connections,
            script: Some(arena::lua_script(1)),
        },
        servers: vec![
            Who::OursFolder,
            Who::NginxArena,
            Who::Peer,
            Who::OursEmbedded,
        ],
        expect: Expect::Arena,
        goal: GOAL,
    });
    rows
}

/// What curl gets from `addr` for `path` with `headers`, trusting `ca`: status, size,
/// verification result.
fn probe(
    curl: &Path,
    ca: &Path,
    addr: SocketAddr,
    path: &str,
    headers: &[(String, String)],
) -> Result<String, String> {
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
    for (name, value) in headers {
        command.arg("-H").arg(format!("{name}: {value}"));
    }
    let output = command
        .arg(format!("https://localhost:{}{path}", addr.port()))
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

/// What the checks need besides the server and the row.
struct Checker<'a> {
    curl: &'a Path,
    ca: &'a Path,
    /// Offers ALPN `http/1.1` alone, as HTTP Arena's check does.
    client: &'a Client,
    /// Offers `h2` and `http/1.1`, as a browser does.
    client_h2: &'a Client,
    downloads_ok: &'a dyn Fn(&Tested) -> Result<String, String>,
}

/// Checks `server` on `row` before it is measured: the bytes of one whole response on
/// the connection (what wrk's count is held to; the average over the 20 for HTTP
/// Arena's shape), and a line to print.
fn check(checker: &Checker<'_>, server: &Tested, row: &Row) -> Result<(usize, String), String> {
    match (&row.expect, &row.load) {
        (Expect::Site(file), Load::Wrk { path, headers, .. }) => {
            let seen = probe(checker.curl, checker.ca, server.addr, path, headers)?;
            let answer = checker.client.get(server.addr, path, headers)?;
            if answer.reply.status != 200 {
                return Err(format!("status {}", answer.reply.status));
            }
            let expected = std::fs::read(Path::new(SITE_DIR).join(file))
                .map_err(|e| format!("{SITE_DIR}/{file}: {e}"))?;
            if bench::client::decode(&answer.reply)? != expected {
                return Err("the body, once decoded, is not the file".into());
            }
            let wire = answer.reply.wire_len();
            Ok((wire, format!("{seen}; {wire} B a response")))
        }
        (Expect::Video, _) => Ok((VIDEO_LEN as usize, (checker.downloads_ok)(server)?)),
        (Expect::Arena, _) => check_arena(checker, server),
        (Expect::Site(_), Load::Download) => Err("a site case is measured with wrk".into()),
    }
}

/// HTTP Arena's static-tls checks, and bench-arena's stricter ones, over TLS: the
/// session (TLS 1.3, ALPN `http/1.1` when offered alone); each of the 20 files with the
/// profile's `Accept-Encoding`: 200, br exactly when the file has a br sibling (identity
/// otherwise), `Content-Length` equal to the body, the body decoding to the file, the
/// `Content-Type` of CSS, JS and JSON; without it, the file as it is; 404 for a missing
/// file. The average bytes of a response, and a summary.
fn check_arena(checker: &Checker<'_>, server: &Tested) -> Result<(usize, String), String> {
    let with = vec![("Accept-Encoding".to_owned(), ACCEPT_ENCODING.to_owned())];
    let mut total = 0;
    let mut session = String::new();
    let mut alpn = None;
    let mut brotli = 0;
    for path in PATHS {
        let failed = |problem: String| format!("{path}: {problem}");
        let expected =
            std::fs::read(format!("{ARENA_DIR}{path}")).map_err(|e| failed(e.to_string()))?;
        let answer = checker
            .client
            .get(server.addr, path, &with)
            .map_err(failed)?;
        let reply = &answer.reply;
        if reply.status != 200 {
            return Err(failed(format!("status {}", reply.status)));
        }
        let coding = reply.header("content-encoding").unwrap_or("identity");
        let want = if arena::has_br_sibling(path) {
            "br"
        } else {
            "identity"
        };
        if coding != want {
            return Err(failed(format!(
                "Content-Encoding {coding} instead of {want}"
            )));
        }
        brotli += usize::from(coding == "br");
        if let Some(problem) = arena::content_type_problem(path, reply) {
            return Err(failed(problem));
        }
        if bench::client::decode(reply).map_err(failed)? != expected {
            return Err(failed("the body, once decoded, is not the file".into()));
        }
        let plain = checker.client.get(server.addr, path, &[]).map_err(failed)?;
        if plain.reply.status != 200
            || plain.reply.header("content-encoding").is_some()
            || plain.reply.body != expected
        {
            return Err(failed(format!(
                "without Accept-Encoding: status {}, coding {:?}, {} bytes",
                plain.reply.status,
                plain.reply.header("content-encoding"),
                plain.reply.body.len()
            )));
        }
        total += reply.wire_len();
        session = answer.session;
        alpn = answer.alpn;
    }
    if alpn.as_deref() != Some("http/1.1") {
        return Err(format!(
            "ALPN {alpn:?} when the client offers http/1.1 alone"
        ));
    }
    let missing = checker
        .client
        .get(server.addr, "/static/nonexistent.txt", &[])?;
    if missing.reply.status != 404 {
        return Err(format!(
            "status {} for a missing file",
            missing.reply.status
        ));
    }
    let offered_h2 = checker
        .client_h2
        .get(server.addr, PATHS[0], &[])?
        .alpn
        .unwrap_or_else(|| "none".into());
    let mean = total / PATHS.len();
    Ok((
        mean,
        format!(
            "20 files ok ({brotli} br, {} identity), 404 ok, {session}, ALPN http/1.1 \
             (offered h2 too: {offered_h2}); {} B a response on average",
            PATHS.len() - brotli,
            thousands(mean as f64)
        ),
    ))
}

/// One wrk run of `row` against `server`: requests per second and server CPU per
/// response (µs). The run counts only without errors and with the bytes of
/// `wire_len` per response (see `wrk::Outcome::problem`).
fn measure(
    wrk_path: &Path,
    cpu: Option<usize>,
    seconds: u64,
    server: &Tested,
    row: &Row,
    wire_len: usize,
) -> Result<(f64, f64), String> {
    let Load::Wrk {
        path,
        headers,
        connections,
        script,
    } = &row.load
    else {
        return Err(format!("{} is not a wrk row", row.title));
    };
    let mut command = pinned(cpu, wrk_path);
    command.args([
        "-t1",
        &format!("-c{connections}"),
        &format!("-d{seconds}s"),
        "--timeout",
        "10s",
    ]);
    for (name, value) in headers {
        command.arg("-H").arg(format!("{name}: {value}"));
    }
    let file = std::env::temp_dir().join(format!("bench-tls-{}.lua", std::process::id()));
    if let Some(script) = script {
        std::fs::write(&file, script).map_err(|e| format!("{}: {e}", file.display()))?;
        command.arg("-s").arg(&file);
    }
    command.arg(format!("https://127.0.0.1:{}{path}", server.addr.port()));
    let before = server.process.cpu_seconds();
    let output = command.output().map_err(|e| format!("wrk: {e}"));
    let _ = std::fs::remove_file(&file);
    let output = output?;
    let used = server.process.cpu_seconds() - before;
    let text = String::from_utf8_lossy(&output.stdout);
    let outcome = wrk::parse(&text).ok_or_else(|| format!("wrk printed no summary: {text}"))?;
    let load = wrk::Load {
        connections: *connections,
        seconds,
        cpu,
        pipeline: 1,
    };
    if let Some(problem) = outcome.problem(&load, wire_len) {
        return Err(format!("{} on {}: {problem}", server.name, row.title));
    }
    Ok((
        outcome.per_second,
        used * 1e6 / outcome.requests.max(1) as f64,
    ))
}

/// `downloads` downloads of the 64 MiB file from `server` by one curl (OpenSSL, pinned
/// to `cpu`, trusting `ca`) on one connection, each checked for status 200 and every
/// byte's arrival: MB/s over the whole run (the handshake included, under a
/// millisecond of some hundreds), and the server's CPU time per download (ms).
fn download(
    curl: &Path,
    cpu: Option<usize>,
    ca: &Path,
    server: &Tested,
    downloads: usize,
) -> Result<(f64, f64), String> {
    let mut command = pinned(cpu, curl);
    command
        .args([
            "-sS",
            "--tlsv1.3",
            "--http1.1",
            "--max-time",
            &DOWNLOAD_TIMEOUT_SECONDS.to_string(),
            "--cacert",
        ])
        .arg(ca)
        .args([
            "-w",
            "%{http_code} %{size_download} %{time_total} %{num_connects}\\n",
        ]);
    let url = format!("https://127.0.0.1:{}{VIDEO_URL}", server.addr.port());
    for _ in 0..downloads {
        command.args(["-o", "/dev/null"]).arg(&url);
    }
    let before = server.process.cpu_seconds();
    let output = command.output().map_err(|e| format!("curl: {e}"))?;
    let used = server.process.cpu_seconds() - before;
    let text = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        return Err(format!(
            "{}: curl failed: {text} {}",
            server.name,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let (mut bytes, mut seconds, mut connects, mut count) = (0u64, 0f64, 0u64, 0usize);
    for line in text.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [code, size, time, connected] = fields[..] else {
            return Err(format!("curl printed `{line}`"));
        };
        let size: u64 = size.parse().map_err(|_| format!("curl printed `{line}`"))?;
        if code != "200" || size != VIDEO_LEN {
            return Err(format!(
                "{}: status {code}, {size} bytes instead of 200 and {VIDEO_LEN}",
                server.name
            ));
        }
        bytes += size;
        seconds += time.parse::<f64>().unwrap_or(0.0);
        connects += connected.parse::<u64>().unwrap_or(0);
        count += 1;
    }
    if count != downloads || connects != 1 {
        return Err(format!(
            "{}: {count} downloads on {connects} connections instead of {downloads} on one",
            server.name
        ));
    }
    Ok((
        bytes as f64 / seconds.max(1e-9) / 1e6,
        used * 1e3 / downloads as f64,
    ))
}

/// One measurement of each server on each row: its rate (requests/s, or MB/s) and the
/// server's CPU per unit (µs a response, or ms a download).
/// Also how busy the server's core and the client's (wrk or curl) were over the run: a
/// client near 100% is the limit, and then the CPU per unit is the figure to compare.
#[derive(Default, Clone)]
struct Samples {
    rate: Vec<f64>,
    cpu: Vec<f64>,
    server_busy: Vec<f64>,
    client_busy: Vec<f64>,
}

/// CPU seconds of the servers, this process and the children it waited for (wrk, curl),
/// and of the whole machine: the difference over a round is what other processes used.
fn accounted_and_machine(servers: &[Tested]) -> Option<(f64, f64)> {
    let ours: f64 = servers.iter().map(|s| s.process.cpu_seconds()).sum::<f64>()
        + procs::cpu_seconds(std::process::id())?
        + procs::waited_children_cpu_seconds()?;
    Some((ours, procs::machine_cpu_seconds()?))
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
    let ca = dir.join("ca.pem");
    println!("bench-tls: {}", bench::rounds::machine_note());
    println!(
        "bench-tls: site {SITE_DIR}; servers on CPU {server_cpu:?}, wrk and curl on CPU \
         {client_cpu:?}; {}",
        bench::rounds::wrk_version(&wrk_path)
    );
    let client = Client::new(&ca, &["http/1.1"])?;
    let client_h2 = Client::new(&ca, &["h2", "http/1.1"])?;
    let (cert, k) = (certificate.as_path(), key.as_path());
    let mut servers = vec![
        start_ours(Who::Ours, "ours (rustls)", "site", server_cpu, cert, k)?,
        start_nginx(&nginx, server_cpu, cert, k)?,
        start_ours(
            Who::OursMedia,
            "ours (rustls)",
            "media",
            server_cpu,
            cert,
            k,
        )?,
        start_ours(
            Who::OursFolder,
            "ours, folder",
            "arena-folder",
            server_cpu,
            cert,
            k,
        )?,
        start_ours(
            Who::OursEmbedded,
            "ours, embedded",
            "arena-embedded",
            server_cpu,
            cert,
            k,
        )?,
        start_nginx_arena(&nginx, server_cpu, cert, k)?,
    ];
    let peer_args = ["peer".as_ref(), cert.as_os_str(), k.as_os_str()];
    servers.push(start_child(
        Who::Peer,
        "axum-server+ServeDir",
        server_cpu,
        &peer_args,
    )?);
    let pairs = ceiling_answers(&client, &servers[0], &dir)?;
    let mut ceiling_args: Vec<&std::ffi::OsStr> =
        vec!["ceiling".as_ref(), cert.as_os_str(), k.as_os_str()];
    ceiling_args.extend(pairs.iter().map(std::ffi::OsStr::new));
    servers.push(start_child(
        Who::Ceiling,
        "ceiling (rustls)",
        server_cpu,
        &ceiling_args,
    )?);
    let find = |who: Who| -> &Tested {
        servers
            .iter()
            .find(|server| server.who == who)
            .expect("every kind of server is started")
    };
    let rows = rows(args);

    println!("\n== check: every server, every case, over TLS 1.3 (curl, and a rustls client)");
    for server in &servers {
        println!("  {:<20} {}", server.name, handshake(&openssl, server.addr));
    }
    let downloads_ok = |server: &Tested| {
        download(&curl, client_cpu, &ca, server, 1)
            .map(|(rate, _)| format!("200, {VIDEO_LEN} B on one connection, {rate:.0} MB/s"))
    };
    let checker = Checker {
        curl: &curl,
        ca: &ca,
        client: &client,
        client_h2: &client_h2,
        downloads_ok: &downloads_ok,
    };
    // wire[row][i]: the bytes of one response of row.servers[i].
    let mut wire: Vec<Vec<usize>> = Vec::new();
    for row in &rows {
        println!("  {}", row.title);
        let mut lengths = Vec::new();
        for &who in &row.servers {
            let server = find(who);
            let (length, seen) = check(&checker, server, row)
                .map_err(|problem| format!("{} failed {}: {problem}", server.name, row.title))?;
            println!("    {:<20} {seen}", server.name);
            lengths.push(length);
        }
        wire.push(lengths);
    }

    println!(
        "\n== rounds: {} x (every case x its servers), wrk -t1 -d{}s and curl over https",
        args.rounds, args.seconds
    );
    let mut samples: Vec<Vec<Samples>> = rows
        .iter()
        .map(|row| vec![Samples::default(); row.servers.len()])
        .collect();
    let mut others: Vec<f64> = Vec::new();
    for round in 0..args.rounds {
        let start = (accounted_and_machine(&servers), Instant::now());
        for (r, row) in rows.iter().enumerate() {
            let n = row.servers.len();
            for i in 0..n {
                // The order rotates from round to round.
                let s = (i + round) % n;
                let server = find(row.servers[s]);
                let started = (
                    Instant::now(),
                    server.process.cpu_seconds(),
                    procs::waited_children_cpu_seconds().unwrap_or(0.0),
                );
                let (rate, cpu) = match row.load {
                    Load::Wrk { .. } => {
                        measure(&wrk_path, client_cpu, args.seconds, server, row, wire[r][s])?
                    }
                    Load::Download => download(&curl, client_cpu, &ca, server, args.downloads)?,
                };
                let wall = started.0.elapsed().as_secs_f64().max(1e-9);
                let cell = &mut samples[r][s];
                cell.rate.push(rate);
                cell.cpu.push(cpu);
                cell.server_busy
                    .push((server.process.cpu_seconds() - started.1) / wall);
                cell.client_busy
                    .push((procs::waited_children_cpu_seconds().unwrap_or(0.0) - started.2) / wall);
            }
        }
        let other = match (start.0, accounted_and_machine(&servers)) {
            (Some(before), Some(after)) => {
                let wall = start.1.elapsed().as_secs_f64().max(1e-9);
                ((after.1 - before.1) - (after.0 - before.0)).max(0.0) / wall
            }
            _ => f64::NAN,
        };
        others.push(other);
        println!(
            "  round {} of {} done; other processes used {:.0}% of a CPU during it",
            round + 1,
            args.rounds,
            other * 100.0
        );
    }
    let (out, ok) = report(&rows, &samples, &servers, &others);
    println!("{out}");
    drop(servers);
    let _ = std::fs::remove_dir_all(&dir);
    Ok(ok)
}

/// The tables: per row, each server's medians, ours against nginx (with its goal) and
/// against the others; then every row in one Markdown table.
fn report(
    rows: &[Row],
    samples: &[Vec<Samples>],
    servers: &[Tested],
    others: &[f64],
) -> (String, bool) {
    let name = |who: Who| {
        servers
            .iter()
            .find(|server| server.who == who)
            .map_or("?", |server| server.name.as_str())
    };
    let mut out = String::new();
    let mut ok = true;
    let _ = writeln!(
        out,
        "\n== medians; ours as x nginx: by requests/s (MB/s for the download), and by CPU \
         per response (per download): nginx's / ours'"
    );
    let mut table = String::from(
        "\n| case | server | req/s (MB/s) | CPU a response (a download) | ours by rate | ours by CPU |\n\
         |---|---|---:|---:|---:|---:|\n",
    );
    for (row, cells) in rows.iter().zip(samples) {
        let download = matches!(row.load, Load::Download);
        let (unit, cpu_unit) = if download {
            ("MB/s", "ms CPU a download")
        } else {
            ("req/s", "µs CPU a response")
        };
        let how = match &row.load {
            Load::Wrk { connections, .. } => format!("{connections} connections"),
            Load::Download => "one connection".to_owned(),
        };
        let _ = writeln!(out, "\n{} ({how})", row.title);
        let medians: Vec<(f64, f64)> = cells
            .iter()
            .map(|cell| {
                (
                    median(&cell.rate).unwrap_or(0.0),
                    median(&cell.cpu).unwrap_or(0.0),
                )
            })
            .collect();
        let client = if download { "curl" } else { "wrk" };
        for ((&who, (rate, cpu)), cell) in row.servers.iter().zip(&medians).zip(cells) {
            let rate_text = if download {
                format!("{rate:.0}")
            } else {
                thousands(*rate)
            };
            let _ = writeln!(
                out,
                "  {:<20} {rate_text:>9} {unit}  {cpu:>7.1} {cpu_unit}  (server {:.0}%, {client} \
                 {:.0}% of a CPU)",
                name(who),
                median(&cell.server_busy).unwrap_or(0.0) * 100.0,
                median(&cell.client_busy).unwrap_or(0.0) * 100.0
            );
        }
        let ours = medians[0];
        let first = name(row.servers[0]);
        for (i, (&who, theirs)) in row.servers.iter().zip(&medians).enumerate().skip(1) {
            let by_rate = ours.0 / theirs.0;
            let by_cpu = theirs.1 / ours.1;
            if i == 1 {
                let pass = by_rate >= row.goal && by_cpu >= row.goal;
                ok &= pass;
                let _ = writeln!(
                    out,
                    "  {first}: {by_rate:.2}x nginx by {unit}, {by_cpu:.2}x by CPU (goal >= {:.1}x): {}",
                    row.goal,
                    if pass { "PASS" } else { "MISS" }
                );
            } else if who == Who::Ceiling {
                let _ = writeln!(
                    out,
                    "  {first}: {by_rate:.2} of the ceiling by {unit}, {by_cpu:.2} of it by CPU \
                     (the ceiling's CPU / ours')"
                );
            } else {
                let _ = writeln!(
                    out,
                    "  {first}: {by_rate:.2}x {} by {unit}, {by_cpu:.2}x by CPU",
                    name(who)
                );
            }
        }
        for (s, (&who, (rate, cpu))) in row.servers.iter().zip(&medians).enumerate() {
            let (by_rate, by_cpu) = if s == 0 {
                ("-".to_owned(), "-".to_owned())
            } else {
                (
                    format!("{:.2}x", ours.0 / rate),
                    format!("{:.2}x", cpu / ours.1),
                )
            };
            let rate_text = if download {
                format!("{rate:.0} MB/s")
            } else {
                thousands(*rate)
            };
            let cpu_text = if download {
                format!("{cpu:.1} ms")
            } else {
                format!("{cpu:.1} µs")
            };
            let case = if s == 0 { row.title.as_str() } else { "" };
            let _ = writeln!(
                table,
                "| {case} | {} | {rate_text} | {cpu_text} | {by_rate} | {by_cpu} |",
                name(who)
            );
        }
    }
    let _ = writeln!(out, "{table}");
    let _ = writeln!(
        out,
        "other processes used {} of a CPU in the rounds",
        others
            .iter()
            .map(|share| format!("{:.0}%", share * 100.0))
            .collect::<Vec<_>>()
            .join(", ")
    );
    (out, ok)
}
