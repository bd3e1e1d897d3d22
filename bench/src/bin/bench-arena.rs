//! `cargo run --release --manifest-path bench/Cargo.toml --bin bench-arena`: HTTP
//! Arena's static profile on 127.0.0.1. Its 20 files (`bench::arena`), requested
//! round-robin by wrk with `Accept-Encoding: br;q=1, gzip;q=0.8`, served by
//! `embed_assets::serve` (`ours-serve`), by nginx with `brotli_static`/`gzip_static`
//! on the same files with HTTP Arena's `.br`/`.gz` siblings, and by a hand-written raw
//! ceiling. See `bench/README.md`.
//!
//! With `--mode disk`, the servers read the files from disk at run time, as HTTP
//! Arena's rules ask of an entry: ours as `ServeAssets::folder` under
//! `embed_assets::serve` (`ours-disk`), tower-http's `ServeDir` (`servedir`) and nginx,
//! each over a copy of the files and siblings of its own, on which HTTP Arena's
//! staleness probe (`bench::arena::probe`) runs before the load.
//!
//! Every server runs as a child process pinned to CPU 0 (one core: nginx has one
//! worker, ours one worker thread) and wrk runs pinned to CPU 1, so the figures are
//! per server core. Each server is checked on every URL before it is measured; rounds
//! are interleaved (the order rotates every round) and the table shows medians.

use std::fmt::Write as _;
use std::net::SocketAddr;
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use bench::arena::{self, Mode, ACCEPT_ENCODING, ARENA_DIR, ARENA_PRECOMPRESSED_DIR, PATHS};
use bench::child::ChildServer;
use bench::client;
use bench::driver::{self, Setup, WrkArgs};
use bench::procs::{median, thousands};
use bench::rounds::{self, busy, Cell};
use bench::wrk;

/// ours-serve must reach this multiple of nginx's req/s, both on one core.
const GOAL: f64 = 1.3;
/// In disk mode, ours-disk must reach this multiple of nginx's req/s.
const DISK_GOAL: f64 = 1.2;

const USAGE: &str = "\
usage: bench-arena [--mode embedded|disk] [--rounds N] [--duration SECS] [--warmup SECS]
                   [--connections N] [--redo-noisy N] [--servers LIST] [--no-pin]
                   [--nginx PATH] [--wrk PATH] [--raw] [--pipeline N]
       bench-arena serve --mode ours-serve|ceiling-raw|ours-disk|servedir [--port N]

  --mode disk        the servers read the files from disk at run time (HTTP Arena's
                     rules): ours-disk (ServeAssets::folder under serve), servedir,
                     nginx, each over its own copy, probed for staleness first; and
                     ceiling-raw for reference (default: embedded: ours-serve, nginx,
                     ceiling-raw)
  --rounds N         interleaved rounds; the table shows medians over them (default 5)
  --duration SECS    length of each wrk run, whole seconds (default 5, HTTP Arena's)
  --warmup SECS      one wrk run per server before the rounds (default 2; 0: none)
  --connections N    wrk's open connections, all on one wrk thread (default 64: HTTP
                     Arena's 4,096 connections over its 64 server CPUs, per CPU)
  --redo-noisy N     run a round again when other processes used over 10% of a CPU
                     during it, at most N times in all (default 3; 0: keep every round)
  --servers LIST     only these, comma-separated: ours-serve, nginx, ceiling-raw, and
                     in disk mode ours-disk, servedir (default: all of the mode)
  --no-pin           do not pin servers to CPU 0 and wrk to CPU 1 (the figures are then
                     not per core: nginx keeps one worker, ours one per CPU)
  --nginx PATH       the nginx binary (default: nginx on PATH or in /usr/sbin)
  --wrk PATH         the wrk binary (default: wrk on PATH)
  --raw              print every sample (req/s) per server, in order
  --pipeline N       consecutive requests of the rotation wrk writes at once on each
                     connection (HTTP/1.1 pipelining; HTTP Arena's script: 1, the
                     default), for servers faster than wrk can ask

serve: one server by hand, e.g. `bench-arena serve --mode ours-serve --port 8080`
(ours-disk and servedir serve the folder named by BENCH_ARENA_ROOT).";

struct Args {
    common: WrkArgs,
    /// `--mode disk`: the servers read the files at run time.
    disk: bool,
}

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    if argv.first().map(String::as_str) == Some("serve") {
        return driver::serve("bench-arena", argv[1..].to_vec(), arena::run);
    }
    let known = |name: &str| Mode::from_name(name).is_some();
    let mut disk = false;
    let parsed = WrkArgs::new(5, 2).parse(argv, known, |arg, value| match arg {
        "--mode" => {
            disk = match value()?.as_str() {
                "disk" => true,
                "embedded" => false,
                other => return Err(format!("--mode takes embedded or disk, not `{other}`")),
            };
            Ok(true)
        }
        _ => Ok(false),
    });
    let parsed = parsed.map(|common| common.map(|common| Args { common, disk }));
    driver::main("bench-arena", USAGE, parsed, run)
}

/// A disk server over `copy`: this executable's `serve --mode NAME`, the folder named
/// in its environment.
fn start_disk(mode: Mode, copy: &Path, cpu: Option<usize>) -> Result<ChildServer, String> {
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    let mut command = bench::procs::pinned(cpu, &exe);
    command
        .args([
            "serve",
            "--port",
            "0",
            "--exit-with-stdin",
            "--mode",
            mode.name(),
        ])
        .env(arena::ROOT_VAR, copy);
    ChildServer::start_listening(mode.name().to_owned(), command)
}

/// nginx as HTTP Arena configures it for this test (`frameworks/nginx/nginx.conf`:
/// `sendfile`, `tcp_nopush`, `brotli_static`, `gzip_static`, `etag off`, its MIME
/// types), plus `open_file_cache`, on one worker.
fn start_nginx(nginx: &Path, root: &str, cpu: Option<usize>) -> Result<ChildServer, String> {
    let http = "\x20   server_tokens off;\n\
                \x20   msie_padding off;\n\
                \x20   etag off;\n\
                \x20   add_header Last-Modified '';\n\
                \x20   types {\n\
                \x20       text/html html;\n\
                \x20       text/css css;\n\
                \x20       application/javascript js;\n\
                \x20       application/json json;\n\
                \x20       image/webp webp;\n\
                \x20       image/svg+xml svg;\n\
                \x20       font/woff2 woff2;\n\
                \x20   }\n";
    ChildServer::start_nginx_static(nginx, cpu, root, "bench-arena", http)
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
    if let Some(problem) = arena::content_type_problem(path, &reply) {
        return Err(problem);
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
        content_type: reply.header("content-type").unwrap_or("-").to_owned(),
        body_len: reply.body.len(),
        wire_len: reply.wire_len(),
    })
}

fn run(args: &Args) -> Result<bool, String> {
    let disk = args.disk;
    let args = &args.common;
    let Setup {
        cpus,
        server_cpu,
        client_cpu,
        wrk: wrk_path,
    } = args.setup("bench-arena")?;
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
    // Disk mode: each server over a copy of its own, which its probe changes.
    let mut copies: Vec<(String, arena::FolderCopy)> = Vec::new();
    if disk {
        for mode in [Mode::OursDisk, Mode::ServeDir] {
            if args.wants(mode.name()) {
                let copy = arena::FolderCopy::new(mode.name())?;
                servers.push(start_disk(mode, &copy.0, server_cpu)?);
                copies.push((mode.name().to_owned(), copy));
            }
        }
    } else if args.wants("ours-serve") {
        servers.push(ChildServer::start_serve(
            Mode::OursServe.name(),
            server_cpu,
        )?);
    }
    if args.wants("nginx") {
        let root = if disk {
            let copy = arena::FolderCopy::new("nginx")?;
            let root = copy.0.display().to_string();
            copies.push(("nginx".to_owned(), copy));
            root
        } else {
            ARENA_PRECOMPRESSED_DIR.to_owned()
        };
        match args.nginx_path() {
            Some(nginx) => match start_nginx(&nginx, &root, server_cpu) {
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
    if args.wants("ceiling-raw") {
        servers.push(ChildServer::start_serve(
            Mode::CeilingRaw.name(),
            server_cpu,
        )?);
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

    // 2. Disk mode: HTTP Arena's staleness probe on each disk server, before the load.
    let mut probes: Vec<(String, String)> = Vec::new();
    if disk {
        println!(
            "\n== staleness probe (HTTP Arena's, and a stale sibling): the next response after \
             each change"
        );
        for server in &servers {
            let Some((_, copy)) = copies
                .iter()
                .find(|(name, _)| server.name.starts_with(name.as_str()))
            else {
                continue;
            };
            let mut failed = Vec::new();
            for result in arena::probe(server.addr, &copy.0)? {
                let verdict = match &result.outcome {
                    Ok(()) => "new bytes".to_owned(),
                    Err(problem) => {
                        failed.push(result.what);
                        format!("STALE: {problem}")
                    }
                };
                println!("  {:<12} {:<58} {verdict}", server.name, result.what);
            }
            let summary = if failed.is_empty() {
                "passed".to_owned()
            } else {
                format!("failed on {}", failed.join("; "))
            };
            probes.push((server.name.clone(), summary));
        }
    }

    let script = std::env::temp_dir().join(format!("bench-arena-{}.lua", std::process::id()));
    std::fs::write(&script, arena::lua_script(args.pipeline))
        .map_err(|e| format!("{}: {e}", script.display()))?;
    let load = args.load(client_cpu);
    if args.warmup > 0 {
        println!("\n== warm-up: {} s per server, not counted", args.warmup);
        let warm = wrk::Load {
            seconds: args.warmup,
            ..load.clone()
        };
        for (server, mean) in servers.iter().zip(&wire) {
            if mean.is_ok() {
                let _ = wrk::run_script(&wrk_path, &warm, server.addr, &script);
            }
        }
    }

    println!(
        "\n== rounds: {} x every server, wrk -t1 -c{} -d{}s -s (the 20 URLs round-robin, {} \
         at a time per connection)",
        args.rounds, args.connections, args.seconds, args.pipeline
    );
    let started = Instant::now();
    let mut cells: Vec<Vec<Cell>> = servers.iter().map(|_| vec![Cell::default()]).collect();
    let noise = args.run_rounds(&mut servers, &mut cells, |server, s, _, cell| {
        let Ok(mean) = wire[s] else { return };
        let run = || wrk::run_script(&wrk_path, &load, server.addr, &script);
        let cpu = || server.cpu_seconds();
        if let Some(problem) = rounds::record(&load, &cpu, mean.round() as usize, cell, run) {
            cell.problems.push(problem);
        }
    });
    let _ = std::fs::remove_file(&script);
    notes.push(noise);
    if args.raw {
        println!("\n== raw samples, req/s, in the order taken");
        for (server, row) in servers.iter().zip(&cells) {
            let list: Vec<String> = row[0].samples.iter().map(|x| format!("{x:.0}")).collect();
            println!("  {:<12} {}", server.name, list.join(" "));
        }
    }
    let (text, ok) = report(args, disk, server_cpu.is_some(), &servers, &wire, &cells);
    println!("{text}");
    for (name, summary) in &probes {
        println!("bench-arena: staleness probe, {name}: {summary}");
    }
    for note in &notes {
        println!("bench-arena: {note}");
    }
    println!(
        "bench-arena: rounds took {:.0} s; servers stopped",
        started.elapsed().as_secs_f64()
    );
    drop(servers);
    drop(copies);
    Ok(ok)
}

fn report(
    args: &WrkArgs,
    disk: bool,
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
    let _ = writeln!(
        out,
        "\n== results: HTTP Arena's static profile, req/s {}, median [min-max] of {} rounds \
         x {} s; wrk: 1 thread, {} connections, keep-alive, the 20 URLs round-robin, {} at \
         a time per connection; \
         MB/s: response bytes (heads included); CPU/req: the server's user + system CPU \
         time per response",
        if pinned {
            "on one server core"
        } else {
            "(not pinned: not per core)"
        },
        args.rounds,
        args.seconds,
        args.connections,
        args.pipeline
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

    let (name, goal) = if disk {
        ("ours-disk", DISK_GOAL)
    } else {
        ("ours-serve", GOAL)
    };
    let ours = index(name);
    let _ = writeln!(
        out,
        "\n== goal: {name} >= {goal:.1}x nginx per core on HTTP Arena's static profile"
    );
    let verdict = match (
        ours.and_then(|o| medians[o]),
        nginx.and_then(|n| medians[n]),
    ) {
        (Some(mine), Some(theirs)) if theirs > 0.0 => {
            let r = mine / theirs;
            format!(
                "  {name} {} req/s, nginx {} req/s: {r:.2}x, {}{}",
                thousands(mine),
                thousands(theirs),
                if r >= goal { "PASS" } else { "MISS" },
                if pinned {
                    ""
                } else {
                    " (not pinned: not per core)"
                }
            )
        }
        _ => format!("  - ({name} or nginx not measured)"),
    };
    let _ = writeln!(out, "{verdict}");
    // The server CPU time per response: steadier than req/s when other processes share
    // the server's core, and what req/s per core would be with the core all its own.
    let cpu_of = |s: Option<usize>| s.and_then(|s| cells[s][0].cpu_per_request());
    if let (Some(mine), Some(theirs)) = (cpu_of(ours), cpu_of(nginx)) {
        let r = theirs / mine;
        let _ = writeln!(
            out,
            "  by server CPU time per response: {name} {mine:.1} us, nginx {theirs:.1} us: \
             {r:.2}x, {} (loopback work in soft interrupts is counted for neither)",
            if r >= goal { "PASS" } else { "MISS" }
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

    let problems = servers.iter().enumerate().map(|(s, server)| {
        let mut problems: Vec<String> = Vec::new();
        if let Err(problem) = &wire[s] {
            problems.push(format!("check failed: {problem}"));
        }
        problems.extend(cells[s][0].problems.iter().cloned());
        (server.name.as_str(), problems)
    });
    let ok = rounds::write_problems(&mut out, problems);
    if ok {
        let _ = writeln!(
            out,
            "\nevery server passed its checks on all 20 URLs, and every wrk run saw only \
             2xx responses of the checked sizes on average"
        );
    }
    (out, ok)
}
