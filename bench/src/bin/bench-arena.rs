//! `cargo run --release --manifest-path bench/Cargo.toml --bin bench-arena`: HTTP
//! Arena's static profile on 127.0.0.1. Its 20 files (`bench::arena`), requested
//! round-robin by wrk with `Accept-Encoding: br;q=1, gzip;q=0.8`, served by
//! `embed_assets::serve` (`ours-serve`), by nginx with `brotli_static`/`gzip_static`
//! on the same files with HTTP Arena's `.br`/`.gz` siblings, and by a hand-written raw
//! ceiling. See `bench/README.md`.
//!
//! Every server runs as a child process pinned to CPU 0 (one core: nginx has one
//! worker, ours one worker thread) and wrk runs pinned to CPU 1, so the figures are
//! per server core. Each server is checked on every URL before it is measured; rounds
//! are interleaved (the order rotates every round) and the table shows medians.

use std::fmt::Write as _;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{ExitCode, Stdio};
use std::time::{Duration, Instant};

use bench::arena::{self, Mode, ACCEPT_ENCODING, ARENA_DIR, ARENA_PRECOMPRESSED_DIR, PATHS};
use bench::child::{ChildServer, NginxConfig};
use bench::client;
use bench::procs::{self, median, pinned, thousands};
use bench::rounds::{self, Cell};
use bench::wrk;

/// ours-serve must reach this multiple of nginx's req/s, both on one core.
const GOAL: f64 = 1.3;

/// Where Debian's `libnginx-mod-http-brotli-static` puts its module.
const BROTLI_MODULES: [&str; 2] = [
    "/usr/lib/nginx/modules/ngx_http_brotli_static_module.so",
    "/usr/share/nginx/modules/ngx_http_brotli_static_module.so",
];

const USAGE: &str = "\
usage: bench-arena [--rounds N] [--duration SECS] [--warmup SECS] [--connections N]
                   [--redo-noisy N] [--servers LIST] [--no-pin] [--nginx PATH]
                   [--wrk PATH] [--raw]
       bench-arena serve --mode ours-serve|ceiling-raw [--port N]

  --rounds N         interleaved rounds; the table shows medians over them (default 5)
  --duration SECS    length of each wrk run, whole seconds (default 5, HTTP Arena's)
  --warmup SECS      one wrk run per server before the rounds (default 2; 0: none)
  --connections N    wrk's open connections, all on one wrk thread (default 64: HTTP
                     Arena's 4,096 connections over its 64 server CPUs, per CPU)
  --redo-noisy N     run a round again when other processes used over 10% of a CPU
                     during it, at most N times in all (default 3; 0: keep every round)
  --servers LIST     only these, comma-separated: ours-serve, nginx, ceiling-raw
                     (default: all)
  --no-pin           do not pin servers to CPU 0 and wrk to CPU 1 (the figures are then
                     not per core: nginx keeps one worker, ours one per CPU)
  --nginx PATH       the nginx binary (default: nginx on PATH or in /usr/sbin)
  --wrk PATH         the wrk binary (default: wrk on PATH)
  --raw              print every sample (req/s) per server, in order

serve: one server by hand, e.g. `bench-arena serve --mode ours-serve --port 8080`.";

struct Args {
    rounds: usize,
    seconds: u64,
    warmup: u64,
    connections: usize,
    redo_noisy: usize,
    servers: Option<Vec<String>>,
    pin: bool,
    nginx: Option<PathBuf>,
    wrk: Option<PathBuf>,
    raw: bool,
}

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    if argv.first().map(String::as_str) == Some("serve") {
        return serve(&argv[1..]);
    }
    let args = match parse_args(argv) {
        Ok(Some(args)) => args,
        Ok(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("bench-arena: {message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => {
            eprintln!("bench-arena: some checks or runs failed; see PROBLEMS above");
            ExitCode::FAILURE
        }
        Err(message) => {
            eprintln!("bench-arena: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The `serve` subcommand: `--mode NAME [--port N] [--exit-with-stdin]`.
fn serve(args: &[String]) -> ExitCode {
    let mut mode = None;
    let mut port = 0;
    let mut exit_with_stdin = false;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.clone().next()) {
            ("--mode", Some(name)) => {
                mode = Mode::from_name(name);
                args.next();
            }
            ("--port", Some(text)) => {
                let Ok(n) = text.parse() else {
                    eprintln!("bench-arena serve: `{text}` is not a port number");
                    return ExitCode::from(2);
                };
                port = n;
                args.next();
            }
            ("--exit-with-stdin", _) => exit_with_stdin = true,
            _ => {
                eprintln!("bench-arena serve: bad argument `{arg}`\n{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    let Some(mode) = mode else {
        eprintln!("bench-arena serve: --mode ours-serve|ceiling-raw is required");
        return ExitCode::from(2);
    };
    match arena::run(mode, port, exit_with_stdin) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("bench-arena serve: {err}");
            ExitCode::FAILURE
        }
    }
}

fn parse_args(argv: Vec<String>) -> Result<Option<Args>, String> {
    let mut args = Args {
        rounds: 5,
        seconds: 5,
        warmup: 2,
        connections: 64,
        redo_noisy: 3,
        servers: None,
        pin: true,
        nginx: None,
        wrk: None,
        raw: false,
    };
    let mut argv = argv.into_iter();
    while let Some(arg) = argv.next() {
        let mut value = || argv.next().ok_or_else(|| format!("{arg} needs a value"));
        let number = |text: String, min, max| bench::whole_number(&text, min, max);
        match arg.as_str() {
            "--rounds" => args.rounds = number(value()?, 1, 100)? as usize,
            "--duration" => args.seconds = number(value()?, 1, 60)?,
            "--warmup" => args.warmup = number(value()?, 0, 60)?,
            "--connections" => args.connections = number(value()?, 1, 1000)? as usize,
            "--redo-noisy" => args.redo_noisy = number(value()?, 0, 100)? as usize,
            "--servers" => {
                let list: Vec<String> = value()?.split(',').map(|s| s.trim().to_owned()).collect();
                for name in &list {
                    if name != "nginx" && Mode::from_name(name).is_none() {
                        return Err(format!("unknown server `{name}`"));
                    }
                }
                args.servers = Some(list);
            }
            "--no-pin" => args.pin = false,
            "--nginx" => args.nginx = Some(value()?.into()),
            "--wrk" => args.wrk = Some(value()?.into()),
            "--raw" => args.raw = true,
            "-h" | "--help" => return Ok(None),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(Some(args))
}

/// Starts `bench-arena serve --mode NAME` (this same executable).
fn start_rust(mode: Mode, cpu: Option<usize>) -> Result<ChildServer, String> {
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    let mut command = pinned(cpu, &exe);
    command
        .args(["serve", "--port", "0", "--exit-with-stdin", "--mode"])
        .arg(mode.name());
    ChildServer::start_listening(mode.name().to_owned(), command)
}

/// nginx as HTTP Arena configures it for this test (`frameworks/nginx/nginx.conf`:
/// `sendfile`, `tcp_nopush`, `brotli_static`, `gzip_static`, `etag off`, its MIME
/// types), plus `open_file_cache`, on one worker.
fn start_nginx(nginx: &Path, cpu: Option<usize>) -> Result<ChildServer, String> {
    let brotli = BROTLI_MODULES.iter().find(|m| Path::new(m).is_file());
    let (main, brotli_static) = match brotli {
        Some(module) => (format!("load_module {module};\n"), "brotli_static on;"),
        None => (String::new(), ""),
    };
    let http = format!(
        "\x20   server_tokens off;\n\
         \x20   msie_padding off;\n\
         \x20   etag off;\n\
         \x20   sendfile on;\n\
         \x20   tcp_nopush on;\n\
         \x20   tcp_nodelay on;\n\
         \x20   keepalive_timeout 65;\n\
         \x20   keepalive_requests 100000000;\n\
         \x20   open_file_cache max=1000 inactive=60s;\n\
         \x20   open_file_cache_valid 60s;\n\
         \x20   open_file_cache_errors on;\n\
         \x20   gzip_static on;\n\
         \x20   {brotli_static}\n\
         \x20   add_header Last-Modified '';\n\
         \x20   types {{\n\
         \x20       text/html html;\n\
         \x20       text/css css;\n\
         \x20       application/javascript js;\n\
         \x20       application/json json;\n\
         \x20       image/webp webp;\n\
         \x20       image/svg+xml svg;\n\
         \x20       font/woff2 woff2;\n\
         \x20   }}\n\
         \x20   default_type application/octet-stream;\n"
    );
    let name = if brotli.is_some() {
        "nginx"
    } else {
        "nginx (no br)"
    };
    let config = NginxConfig {
        main: &main,
        http: &http,
        root: ARENA_PRECOMPRESSED_DIR,
        tag: "bench-arena",
    };
    ChildServer::start_nginx(nginx, cpu, name.into(), config)
}

/// What one server sent for one URL of the profile.
struct Answer {
    coding: String,
    content_type: String,
    body_len: usize,
    wire_len: usize,
}

/// Checks the server at `addr` on one URL as HTTP Arena's `validate.sh` does, and
/// stricter: with the profile's `Accept-Encoding`, 200, br exactly when the file has a
/// br sibling (identity otherwise), `Content-Length` equal to the body, the body
/// decoding to the file, the `Content-Type` of CSS, JS and JSON; without
/// `Accept-Encoding`, 200 and the file as it is.
fn check(addr: SocketAddr, path: &str, expected: &[u8]) -> Result<Answer, String> {
    let headers = vec![("Accept-Encoding".to_owned(), ACCEPT_ENCODING.to_owned())];
    let reply = client::get(addr, path, &headers)?;
    if reply.status != 200 {
        return Err(format!("status {} instead of 200", reply.status));
    }
    let coding = reply.header("content-encoding").unwrap_or("identity");
    let want = if arena::has_br_sibling(path) {
        "br"
    } else {
        "identity"
    };
    if coding != want {
        return Err(format!("Content-Encoding {coding} instead of {want}"));
    }
    match reply.header("content-length").map(str::parse::<usize>) {
        Some(Ok(n)) if n == reply.body.len() => {}
        other => {
            return Err(format!(
                "Content-Length {other:?} for a body of {} bytes",
                reply.body.len()
            ))
        }
    }
    // HTTP Arena's validate.sh checks these three types, parameters allowed and
    // text/javascript taken for application/javascript (RFC 9239).
    let content_type = reply.header("content-type").unwrap_or("-");
    let essence = content_type.split(';').next().unwrap_or_default().trim();
    let essence = essence.replace("text/javascript", "application/javascript");
    let want_type = match path.rsplit('.').next() {
        Some("css") => Some("text/css"),
        Some("js") => Some("application/javascript"),
        Some("json") => Some("application/json"),
        _ => None,
    };
    if want_type.is_some_and(|want| essence != want) {
        return Err(format!(
            "Content-Type {content_type} instead of {}",
            want_type.unwrap_or_default()
        ));
    }
    let decoded = client::decode(&reply)?;
    if decoded != expected {
        return Err(format!(
            "the body ({} bytes once decoded) is not the file ({} bytes)",
            decoded.len(),
            expected.len()
        ));
    }
    let plain = client::get(addr, path, &[])?;
    if plain.status != 200 || plain.header("content-encoding").is_some() || plain.body != expected {
        return Err(format!(
            "without Accept-Encoding: status {}, coding {:?}, {} bytes instead of the file's {}",
            plain.status,
            plain.header("content-encoding"),
            plain.body.len(),
            expected.len()
        ));
    }
    Ok(Answer {
        coding: coding.to_owned(),
        content_type: content_type.to_owned(),
        body_len: reply.body.len(),
        wire_len: reply.wire_len(),
    })
}

/// One wrk run of the profile's script against `addr`.
fn run_wrk(
    wrk_path: &Path,
    load: &wrk::Load,
    script: &Path,
    addr: SocketAddr,
) -> Result<wrk::Outcome, String> {
    let mut command = pinned(load.cpu, wrk_path);
    command
        .arg("-t1")
        .arg(format!("-c{}", load.connections))
        .arg(format!("-d{}s", load.seconds))
        .args(["--timeout", "10s", "-s"])
        .arg(script)
        .arg(format!("http://{addr}/"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().map_err(|e| format!("start wrk: {e}"))?;
    let deadline = Instant::now() + Duration::from_secs(load.seconds + 30);
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(50));
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Err("wrk did not finish in time; killed".into());
            }
        }
    }
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(format!(
            "wrk failed ({}): {}{}",
            out.status,
            text.trim(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    wrk::parse(&text).ok_or_else(|| format!("cannot read wrk's output:\n{text}"))
}

fn run(args: &Args) -> Result<bool, String> {
    let cpus = std::thread::available_parallelism().map_or(1, usize::from);
    let (server_cpu, client_cpu) = rounds::cpus(args.pin);
    if let Some(cpu) = client_cpu {
        procs::pin_self(cpu)?;
    }
    let wrk_path = args
        .wrk
        .clone()
        .or_else(|| procs::find_program("wrk"))
        .ok_or("wrk not found: install it with `apt-get install -y wrk` (or pass --wrk PATH)")?;
    let command_line: Vec<String> = std::env::args().collect();
    println!("bench-arena: {}", command_line.join(" "));
    println!("bench-arena: {}", rounds::machine_note());
    println!(
        "bench-arena: {}; files {ARENA_DIR}/static",
        rounds::wrk_version(&wrk_path)
    );
    match server_cpu {
        Some(cpu) => println!(
            "bench-arena: {cpus} CPUs; every server pinned to CPU {cpu} (one core), wrk to CPU {}",
            client_cpu.unwrap_or(1)
        ),
        None => println!(
            "bench-arena: not pinning; servers and wrk share the {cpus} CPU(s): the figures \
             are not per core"
        ),
    }
    let wanted = |name: &str| {
        args.servers
            .as_ref()
            .is_none_or(|list| list.iter().any(|s| s == name))
    };
    let expected: Vec<Vec<u8>> = PATHS
        .iter()
        .map(|path| {
            let file = format!("{ARENA_DIR}{path}");
            std::fs::read(&file).map_err(|e| format!("{file}: {e}"))
        })
        .collect::<Result<_, _>>()?;
    let total: usize = expected.iter().map(Vec::len).sum();
    println!(
        "bench-arena: {} files, {} bytes; wrk requests them round-robin with \
         Accept-Encoding: {ACCEPT_ENCODING}",
        PATHS.len(),
        thousands(total as f64)
    );

    let mut servers: Vec<ChildServer> = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    if wanted("ours-serve") {
        servers.push(start_rust(Mode::OursServe, server_cpu)?);
    }
    if wanted("nginx") {
        match args.nginx.clone().or_else(|| procs::find_program("nginx")) {
            Some(nginx) => match start_nginx(&nginx, server_cpu) {
                Ok(server) => servers.push(server),
                Err(message) => notes.push(format!("nginx not measured: {message}")),
            },
            None => notes.push(
                "nginx not found, so no nginx row: install it with `apt-get install -y \
                 nginx-light libnginx-mod-http-brotli-static`"
                    .into(),
            ),
        }
    }
    if wanted("ceiling-raw") {
        servers.push(start_rust(Mode::CeilingRaw, server_cpu)?);
    }
    for note in &notes {
        println!("bench-arena: {note}");
    }

    // 1. Every server on every URL; only a server that passes on all 20 is measured.
    println!("\n== check: every server, every URL, with and without Accept-Encoding");
    let mut wire: Vec<Result<f64, String>> = Vec::new();
    for server in &servers {
        let mut sum = 0usize;
        let mut failed = None;
        let mut line = String::new();
        for (path, bytes) in PATHS.iter().zip(&expected) {
            match check(server.addr, path, bytes) {
                Ok(answer) => {
                    sum += answer.wire_len;
                    let _ = writeln!(
                        line,
                        "  {:<12} {:<24} {:<8} {:>7} B ({:>7} on the wire)  {}",
                        server.name,
                        path,
                        answer.coding,
                        thousands(answer.body_len as f64),
                        thousands(answer.wire_len as f64),
                        answer.content_type
                    );
                }
                Err(problem) => {
                    let _ = writeln!(line, "  {:<12} {:<24} FAILED: {problem}", server.name, path);
                    failed.get_or_insert(format!("{path}: {problem}"));
                }
            }
        }
        match client::get(server.addr, "/static/nonexistent.txt", &[]) {
            Ok(reply) if reply.status == 404 => {}
            Ok(reply) => {
                failed.get_or_insert(format!("status {} for a missing file", reply.status));
            }
            Err(problem) => {
                failed.get_or_insert(format!("missing file: {problem}"));
            }
        }
        print!("{line}");
        let mean = sum as f64 / PATHS.len() as f64;
        println!(
            "  {:<12} {} B a response on average over the 20; 404 for a missing file: {}",
            server.name,
            thousands(mean),
            if failed.is_some() { "see above" } else { "ok" }
        );
        wire.push(failed.map_or(Ok(mean), Err));
    }

    let script = std::env::temp_dir().join(format!("bench-arena-{}.lua", std::process::id()));
    std::fs::write(&script, arena::lua_script())
        .map_err(|e| format!("{}: {e}", script.display()))?;
    let load = wrk::Load {
        connections: args.connections,
        seconds: args.seconds,
        cpu: client_cpu,
    };
    if args.warmup > 0 {
        println!("\n== warm-up: {} s per server, not counted", args.warmup);
        let warm = wrk::Load {
            seconds: args.warmup,
            ..load.clone()
        };
        for (server, mean) in servers.iter().zip(&wire) {
            if mean.is_ok() {
                let _ = run_wrk(&wrk_path, &warm, &script, server.addr);
            }
        }
    }

    println!(
        "\n== rounds: {} x every server, wrk -t1 -c{} -d{}s -s (the 20 URLs round-robin)",
        args.rounds, args.connections, args.seconds
    );
    let started = Instant::now();
    let mut cells: Vec<Vec<Cell>> = servers.iter().map(|_| vec![Cell::default()]).collect();
    let plan = rounds::Plan {
        rounds: args.rounds,
        redo_noisy: args.redo_noisy,
    };
    let noise = rounds::run(
        plan,
        &mut cells,
        || accounted_and_machine_cpu(&servers),
        |s, _, cell| {
            let Ok(mean) = wire[s] else { return };
            let server = &servers[s];
            let cpu0 = server.cpu_seconds();
            let client0 = procs::waited_children_cpu_seconds().unwrap_or(0.0);
            let begun = Instant::now();
            let outcome = run_wrk(&wrk_path, &load, &script, server.addr);
            cell.wall += begun.elapsed().as_secs_f64();
            let used = server.cpu_seconds() - cpu0;
            cell.server_cpu += used;
            cell.client_cpu += procs::waited_children_cpu_seconds().unwrap_or(0.0) - client0;
            let problem = match &outcome {
                Ok(outcome) => outcome.problem(&load, mean.round() as usize),
                Err(problem) => Some(problem.clone()),
            };
            match (outcome, problem) {
                (Ok(outcome), None) => {
                    cell.samples.push(outcome.per_second);
                    cell.requests += outcome.requests;
                    cell.counted_cpu += used;
                }
                (_, Some(problem)) => cell.problems.push(problem),
                (Err(_), None) => {}
            }
        },
    );
    let _ = std::fs::remove_file(&script);
    notes.push(noise);
    for (server, row) in servers.iter_mut().zip(&mut cells) {
        if !server.alive() {
            row[0].problems.push("the server process died".into());
        }
    }
    if args.raw {
        println!("\n== raw samples, req/s, in the order taken");
        for (server, row) in servers.iter().zip(&cells) {
            let list: Vec<String> = row[0].samples.iter().map(|x| format!("{x:.0}")).collect();
            println!("  {:<12} {}", server.name, list.join(" "));
        }
    }
    let (text, ok) = report(args, server_cpu.is_some(), &servers, &wire, &cells);
    println!("{text}");
    for note in &notes {
        println!("bench-arena: {note}");
    }
    println!(
        "bench-arena: rounds took {:.0} s; servers stopped",
        started.elapsed().as_secs_f64()
    );
    drop(servers);
    Ok(ok)
}

/// CPU seconds of the servers, this process and the wrk runs it waited for; and of the
/// whole machine.
fn accounted_and_machine_cpu(servers: &[ChildServer]) -> Option<(f64, f64)> {
    let ours: f64 = servers.iter().map(ChildServer::cpu_seconds).sum::<f64>()
        + procs::cpu_seconds(std::process::id())?
        + procs::waited_children_cpu_seconds()?;
    Some((ours, procs::machine_cpu_seconds()?))
}

fn report(
    args: &Args,
    pinned: bool,
    servers: &[ChildServer],
    wire: &[Result<f64, String>],
    cells: &[Vec<Cell>],
) -> (String, bool) {
    let mut out = String::new();
    let medians: Vec<Option<f64>> = cells.iter().map(|row| median(&row[0].samples)).collect();
    let index = |name: &str| servers.iter().position(|s| s.name == name);
    let nginx = servers.iter().position(|s| s.name.starts_with("nginx"));
    let ceiling = index("ceiling-raw");
    let ratio = |mine: Option<f64>, base: Option<usize>| match (mine, base.and_then(|b| medians[b]))
    {
        (Some(m), Some(b)) if b > 0.0 => format!("{:.2}x", m / b),
        _ => "-".into(),
    };
    let busy = |cpu: f64, wall: f64| {
        if wall > 0.0 {
            format!("{:.0}%", 100.0 * cpu / wall)
        } else {
            "-".into()
        }
    };
    let _ = writeln!(
        out,
        "\n== results: HTTP Arena's static profile, req/s {}, median [min-max] of {} rounds \
         x {} s; wrk: 1 thread, {} connections, keep-alive, the 20 URLs round-robin; \
         MB/s: response bytes (heads included); CPU/req: the server's user + system CPU \
         time per response",
        if pinned {
            "on one server core"
        } else {
            "(not pinned: not per core)"
        },
        args.rounds,
        args.seconds,
        args.connections
    );
    let _ = writeln!(
        out,
        "  {:<12} {:>29} {:>8} {:>8} {:>10} {:>9} {:>8} {:>5}",
        "server", "req/s [min-max]", "MB/s", "x nginx", "x ceiling", "CPU/req", "srv CPU", "wrk"
    );
    for (s, server) in servers.iter().enumerate() {
        let cell = &cells[s][0];
        let (rate, mb) = match (medians[s], &wire[s]) {
            (Some(m), Ok(mean)) => {
                let (min, max) = cell.range();
                (
                    format!("{} [{}-{}]", thousands(m), thousands(min), thousands(max)),
                    format!("{:.0}", m * mean / 1e6),
                )
            }
            (_, Err(_)) => ("check FAILED".into(), "-".into()),
            _ => ("-".into(), "-".into()),
        };
        let _ = writeln!(
            out,
            "  {:<12} {:>29} {:>8} {:>8} {:>10} {:>9} {:>8} {:>5}",
            server.name,
            rate,
            mb,
            ratio(medians[s], nginx),
            ratio(medians[s], ceiling),
            cell.cpu_per_request()
                .map_or("-".into(), |us| format!("{us:.1} us")),
            busy(cell.server_cpu, cell.wall),
            busy(cell.client_cpu, cell.wall)
        );
    }
    let saturated: Vec<&str> = servers
        .iter()
        .zip(cells)
        .filter(|(_, row)| row[0].wall > 0.0 && row[0].client_cpu / row[0].wall > 0.9)
        .map(|(server, _)| server.name.as_str())
        .collect();
    let starved: Vec<&str> = servers
        .iter()
        .zip(cells)
        .filter(|(_, row)| row[0].wall > 0.0 && row[0].server_cpu / row[0].wall < 0.9)
        .map(|(server, _)| server.name.as_str())
        .collect();
    if !starved.is_empty() {
        let _ = writeln!(
            out,
            "  note: under 90% of the server core used by {}: the limit was elsewhere (wrk, \
             the kernel's loopback work, other processes), so compare CPU/req rather than \
             req/s",
            starved.join(", ")
        );
    }
    if !saturated.is_empty() {
        let _ = writeln!(
            out,
            "  note: wrk used over 90% of its CPU against {}: those figures may be wrk's \
             limit, not the server's",
            saturated.join(", ")
        );
    }

    let ours = index("ours-serve");
    let _ = writeln!(
        out,
        "\n== goal: ours-serve >= {GOAL:.1}x nginx per core on HTTP Arena's static profile"
    );
    let verdict = match (
        ours.and_then(|o| medians[o]),
        nginx.and_then(|n| medians[n]),
    ) {
        (Some(mine), Some(theirs)) if theirs > 0.0 => {
            let r = mine / theirs;
            format!(
                "  ours-serve {} req/s, nginx {} req/s: {r:.2}x, {}{}",
                thousands(mine),
                thousands(theirs),
                if r >= GOAL { "PASS" } else { "MISS" },
                if pinned {
                    ""
                } else {
                    " (not pinned: not per core)"
                }
            )
        }
        _ => "  - (ours-serve or nginx not measured)".into(),
    };
    let _ = writeln!(out, "{verdict}");
    // The server CPU time per response: steadier than req/s when other processes share
    // the server's core, and what req/s per core would be with the core all its own.
    let cpu_of = |s: Option<usize>| s.and_then(|s| cells[s][0].cpu_per_request());
    if let (Some(mine), Some(theirs)) = (cpu_of(ours), cpu_of(nginx)) {
        let r = theirs / mine;
        let _ = writeln!(
            out,
            "  by server CPU time per response: ours-serve {mine:.1} us, nginx {theirs:.1} us: \
             {r:.2}x, {} (loopback work in soft interrupts is counted for neither)",
            if r >= GOAL { "PASS" } else { "MISS" }
        );
    }

    let _ = write!(out, "\n== the same medians as Markdown\n\n|");
    for server in servers {
        let _ = write!(out, " {} |", server.name);
    }
    let _ = write!(out, "\n|");
    for _ in servers {
        let _ = write!(out, "---:|");
    }
    let _ = write!(out, "\n|");
    for median in &medians {
        let cell = match *median {
            Some(m) => format!("{} ({})", thousands(m), ratio(Some(m), nginx)),
            None => "-".into(),
        };
        let _ = write!(out, " {cell} |");
    }
    let _ = writeln!(out);

    let mut ok = true;
    for (s, server) in servers.iter().enumerate() {
        let mut problems: Vec<String> = Vec::new();
        if let Err(problem) = &wire[s] {
            problems.push(format!("check failed: {problem}"));
        }
        problems.extend(cells[s][0].problems.iter().cloned());
        if !problems.is_empty() {
            if ok {
                let _ = writeln!(out, "\n== PROBLEMS");
            }
            ok = false;
            for problem in problems {
                let _ = writeln!(out, "  {}: {problem}", server.name);
            }
        }
    }
    if ok {
        let _ = writeln!(
            out,
            "\nevery server passed its checks on all 20 URLs, and every wrk run saw only \
             2xx responses of the checked sizes on average"
        );
    }
    (out, ok)
}
