//! `cargo run --release --manifest-path bench/Cargo.toml --bin bench-static`: requests per second for a small
//! site embedded in the binary (html, favicon, ~230 KB CSS, ~90 KB JS, png), served by
//! embed-assets, by a hand-written ceiling, by the crates users pick today
//! (memory-serve, static-serve, rust-embed with axum-embed), by tower-http `ServeDir`
//! and by nginx, side by side on 127.0.0.1, under `wrk`. See `bench/README.md`.
//!
//! Every server runs as a child process pinned to CPU 0 and wrk runs pinned to CPU 1.
//! Each server is checked on every URL before it is measured; rounds are interleaved
//! (the order rotates every round) and the tables show medians.

mod servers;

use std::fmt::Write as _;
use std::process::ExitCode;
use std::time::Instant;

use bench::cases::{check, Case, Check, Probe, CASES};
use bench::driver::{self, Setup, WrkArgs};
use bench::procs::{self, median, thousands};
use bench::rounds::{self, busy, Cell};
use bench::site::{Mode, SITE_DIR, SITE_PRECOMPRESSED_DIR};
use bench::user::{self, NAME as USER};
use bench::wrk;

use crate::servers::Server;

/// Ours must reach this share of the ceiling and of the best competitor.
const TARGET: f64 = 0.95;
/// The competitors ours is held against (besides the ceiling).
const RIVALS: [&str; 3] = ["nginx", "static-serve", "memory-serve"];
/// Ours in each set-up: as axum's fallback, in front of the `Router` under
/// `axum::serve`, in front of it under hyper-util's server, under the library's own
/// server, that again as a user's own binary builds it (`bench::user`), and the
/// disk mode (`ServeAssets::folder`) under the library's server.
const OURS: [&str; 6] = [
    "ours",
    "ours-front",
    "ours-hyper",
    "ours-serve",
    USER,
    "ours-folder",
];
/// Ours must reach this multiple of nginx on the tiny bodies (index, favicon).
const FAST_GOAL: f64 = 1.2;
/// `ours-serve`, the library's own server (and the user-style binary over it), must
/// reach this multiple of nginx on the tiny bodies and the 304, and [`SERVE_BR_GOAL`]
/// on the br bodies.
const SERVE_GOAL: f64 = 1.5;
const SERVE_BR_GOAL: f64 = 1.2;

const USAGE: &str = "\
usage: bench-static [--rounds N] [--duration SECS] [--warmup SECS] [--connections N]
                    [--redo-noisy N] [--servers LIST] [--no-pin] [--nginx PATH]
                    [--wrk PATH] [--raw] [--syscalls N]
       bench-static serve --mode NAME [--port N]

  --rounds N         interleaved rounds; the tables show medians over them (default 5)
  --duration SECS    length of each wrk run, whole seconds (default 2)
  --warmup SECS      one wrk run per server and URL before the rounds (default 1; 0: none)
  --connections N    wrk's open connections, all on one wrk thread (default 64)
  --redo-noisy N     run a round again when other processes used over 10% of a CPU
                     during it (a build next to the benchmark), at most N times in all
                     (default 3; 0: keep every round and only warn)
  --servers LIST     only these, comma-separated: ceiling, ours, ceiling-serve,
                     ours-front, ceiling-hyper, ours-hyper, ceiling-raw, ours-serve,
                     user-serve, ours-folder, nginx, memory-serve, static-serve,
                     rust-embed, servedir (default: all; user-serve is a crate of its
                     own, built with `cargo build --release` first, about 2 minutes the
                     first time)
  --no-pin           do not pin servers to CPU 0 and wrk to CPU 1
  --nginx PATH       the nginx binary (default: nginx on PATH or in /usr/sbin)
  --wrk PATH         the wrk binary (default: wrk on PATH)
  --raw              print every sample (req/s) per server, in order
  --pipeline N       requests wrk writes at once on each connection (HTTP/1.1
                     pipelining), for a server faster than wrk can ask (default 1)
  --syscalls N       instead of the rounds: `strace -c -f` on each server while wrk
                     (16 connections, 20 s) reads up to N responses per URL; prints the system
                     calls per response (strace slows the servers: no speed figures); with
                     --pipeline, wrk pipelines as it would in the rounds

serve: one server by hand, e.g. `bench-static serve --mode ours --port 8080`; NAME is
any server above but nginx.";

struct Args {
    common: WrkArgs,
    /// Instead of the rounds: system calls per response over this many responses.
    syscalls: Option<u64>,
}

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    if argv.first().map(String::as_str) == Some("serve") {
        return driver::serve("bench-static", argv[1..].to_vec(), bench::site::run);
    }
    driver::main("bench-static", USAGE, parse_args(argv), run)
}

fn parse_args(argv: Vec<String>) -> Result<Option<Args>, String> {
    let mut syscalls = None;
    let known = |name: &str| name == USER || Mode::from_name(name).is_some();
    let common = WrkArgs::new(2, 1).parse(argv, known, |arg, value| match arg {
        "--syscalls" => {
            syscalls = Some(bench::whole_number(&value()?, 100, 10_000_000)?);
            Ok(true)
        }
        _ => Ok(false),
    })?;
    Ok(common.map(|common| Args { common, syscalls }))
}

fn run(args: &Args) -> Result<bool, String> {
    let (args, syscalls) = (&args.common, args.syscalls);
    let Setup {
        cpus,
        server_cpu,
        client_cpu,
        wrk: wrk_path,
    } = args.setup("bench-static")?;
    println!(
        "bench-static: {}; site {SITE_DIR}",
        rounds::wrk_version(&wrk_path)
    );
    match server_cpu {
        Some(cpu) => println!(
            "bench-static: {cpus} CPUs; every server pinned to CPU {cpu}, wrk to CPU {}",
            client_cpu.unwrap_or(1)
        ),
        None => println!("bench-static: not pinning; servers and wrk share the {cpus} CPU(s)"),
    }
    let expected: Vec<Vec<u8>> = CASES
        .iter()
        .map(|case| {
            let path = format!("{SITE_DIR}/{}", case.file);
            std::fs::read(&path).map_err(|e| format!("{path}: {e}"))
        })
        .collect::<Result<_, _>>()?;
    for (case, bytes) in CASES.iter().zip(&expected) {
        println!(
            "bench-static: {} is {} bytes",
            case.file,
            thousands(bytes.len() as f64)
        );
    }

    let user_binary = if args.wants(USER) {
        Some(user::build()?)
    } else {
        None
    };
    // Start every server at once (idle ones cost nothing) so rounds can interleave.
    let mut servers: Vec<Server> = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    for mode in Mode::ALL {
        if args.wants(mode.name()) {
            servers.push(Server::start_serve(mode.name(), server_cpu)?);
        }
        if let (Mode::OursServe, Some(binary)) = (mode, &user_binary) {
            servers.push(user::start(binary, USER, server_cpu)?);
        }
        if mode == Mode::Ours && args.wants("nginx") {
            match args.nginx_path() {
                Some(nginx) => {
                    match servers::start_nginx(&nginx, SITE_PRECOMPRESSED_DIR, server_cpu) {
                        Ok(server) => servers.push(server),
                        Err(message) => notes.push(format!(
                            "nginx not measured ({}): {message}\n  install it with \
                         `apt-get install -y nginx-light libnginx-mod-http-brotli-static`",
                            nginx.display()
                        )),
                    }
                }
                None => notes.push(
                    "nginx not found, so no nginx row: install it with `apt-get install -y \
                     nginx-light libnginx-mod-http-brotli-static` and run again"
                        .into(),
                ),
            }
        }
    }
    if servers.iter().any(|s| s.name == "nginx (no br)") {
        notes.push(
            "nginx has no brotli_static module, so it sends gzip for br requests: \
             `apt-get install -y libnginx-mod-http-brotli-static` adds it"
                .into(),
        );
    }
    for note in &notes {
        println!("bench-static: {note}");
    }

    // 1. Check every server on every URL; only what passes is measured.
    println!("\n== check: every server, every URL, before measuring");
    let mut probes: Vec<Vec<Result<Probe, String>>> = Vec::new();
    for server in &servers {
        let row: Vec<Result<Probe, String>> = CASES
            .iter()
            .zip(&expected)
            .map(|(case, bytes)| check(server.addr, case, bytes))
            .collect();
        for (case, probe) in CASES.iter().zip(&row) {
            match probe {
                Ok(p) => println!(
                    "  {:<13} {:<17} ok: {}{}; {} B a response",
                    server.name,
                    case.short,
                    p.summary,
                    p.note.as_ref().map_or(String::new(), |n| format!(" ({n})")),
                    p.wire_len
                ),
                Err(problem) => {
                    println!("  {:<13} {:<17} FAILED: {problem}", server.name, case.short)
                }
            }
        }
        probes.push(row);
    }
    if let Some(responses) = syscalls {
        let text = count_syscalls(
            &wrk_path,
            client_cpu,
            &servers,
            &probes,
            responses,
            args.pipeline,
        )?;
        println!("{text}");
        return Ok(true);
    }
    let mut cells: Vec<Vec<Cell>> = servers
        .iter()
        .map(|_| CASES.iter().map(|_| Cell::default()).collect())
        .collect();

    let load = args.load(client_cpu);
    // 2. Warm-up: one run per server and URL, not counted.
    if args.warmup > 0 {
        println!(
            "\n== warm-up: {} s per server and URL, not counted",
            args.warmup
        );
        let addrs: Vec<_> = servers.iter().map(|s| s.addr).collect();
        let cases: Vec<&Case> = CASES.iter().collect();
        rounds::warm_up(&wrk_path, &load, args.warmup, &addrs, &cases, &probes);
    }

    // 3. Interleaved rounds: per URL, every server in an order that rotates.
    println!(
        "\n== rounds: {} x (every URL x every server), wrk -t1 -c{} -d{}s",
        args.rounds, args.connections, args.seconds
    );
    let total = Instant::now();
    let noise = args.run_rounds(&mut servers, &mut cells, |server, s, c, cell| {
        if let Ok(probe) = &probes[s][c] {
            let cpu = || server.cpu_seconds();
            let target = (server.addr, &cpu as &dyn Fn() -> f64);
            rounds::measure(&wrk_path, &load, target, &CASES[c], probe, cell);
        }
    });
    notes.push(noise);

    if args.raw {
        println!("\n== raw samples, req/s, in the order taken");
        for (c, case) in CASES.iter().enumerate() {
            println!("  {}", case.title);
            for (server, row) in servers.iter().zip(&cells) {
                let list: Vec<String> = row[c].samples.iter().map(|x| format!("{x:.0}")).collect();
                println!("    {:<13} {}", server.name, list.join(" "));
            }
        }
    }
    let (text, ok) = report(args, &servers, &probes, &cells);
    println!("{text}");
    for note in &notes {
        println!("bench-static: {note}");
    }
    println!(
        "bench-static: rounds took {:.0} s; servers stopped",
        total.elapsed().as_secs_f64()
    );
    drop(servers);
    Ok(ok)
}

/// System calls per response of every server on every URL it passed: `strace -c -f`
/// attached to the server's processes while wrk reads `responses` responses.
fn count_syscalls(
    wrk_path: &std::path::Path,
    client_cpu: Option<usize>,
    servers: &[Server],
    probes: &[Vec<Result<Probe, String>>],
    responses: u64,
    pipeline: usize,
) -> Result<String, String> {
    let strace = procs::find_program("strace")
        .ok_or("strace not found: install it with `apt-get install -y strace`")?;
    // NOTE: wrk's Lua `stop` ends the requests at `responses`, but wrk itself only
    // exits after its duration: keep it short. Fewer responses within it are fine, the
    // counts are divided by the responses wrk read.
    let load = wrk::Load {
        connections: 16,
        seconds: 20,
        cpu: client_cpu,
        pipeline,
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\n== system calls per response: strace -c -f on the server while wrk -t1 -c{} \
         ({} at a time per connection) reads {responses} responses (accepts and start-up of \
         the 16 connections included)",
        load.connections, load.pipeline
    );
    for (c, case) in CASES.iter().enumerate() {
        let _ = writeln!(out, "\n{}", case.title);
        let _ = writeln!(
            out,
            "  {:<14} {:>9} {:>6}  per response, most frequent first",
            "server", "responses", "calls"
        );
        for (s, server) in servers.iter().enumerate() {
            let Ok(probe) = &probes[s][c] else { continue };
            let tracer = bench::syscalls::Tracer::attach(&strace, &server.pids(), &server.name)?;
            let outcome = wrk::run_count(
                wrk_path,
                &load,
                server.addr,
                case.path,
                &probe.headers,
                responses,
            );
            let counts = tracer.finish()?;
            let outcome = outcome.map_err(|e| format!("{}: {e}", server.name))?;
            let per: Vec<String> = counts
                .per_response(outcome.requests)
                .into_iter()
                .filter(|(_, n)| *n >= 0.005)
                .map(|(name, n)| format!("{name} {n:.2}"))
                .collect();
            let _ = writeln!(
                out,
                "  {:<14} {:>9} {:>6.2}  {}",
                server.name,
                outcome.requests,
                counts.total() as f64 / outcome.requests.max(1) as f64,
                per.join(", ")
            );
        }
    }
    Ok(out)
}

fn report(
    args: &WrkArgs,
    servers: &[Server],
    probes: &[Vec<Result<Probe, String>>],
    cells: &[Vec<Cell>],
) -> (String, bool) {
    let mut out = String::new();
    let index = |name: &str| servers.iter().position(|s| s.name == name);
    let ceiling = index("ceiling");
    let ours = index("ours");
    let medians: Vec<Vec<Option<f64>>> = cells
        .iter()
        .map(|row| row.iter().map(|cell| median(&cell.samples)).collect())
        .collect();
    // "nginx", or "nginx (no br)" without the brotli module.
    let nginx = servers.iter().position(|s| s.name.starts_with("nginx"));
    // Each server's ceiling: the hand-written lookup in the same set-up.
    let ceiling_of = |s: usize| {
        let name = servers[s].name.as_str();
        let mode = if name == USER {
            Mode::OursServe
        } else {
            Mode::from_name(name)?
        };
        index(mode.ceiling().name())
    };
    let ratio = |mine: Option<f64>, base: Option<f64>| match (mine, base) {
        (Some(m), Some(b)) if b > 0.0 => format!("{:.2}x", m / b),
        _ => "-".into(),
    };
    let _ = writeln!(
        out,
        "\n== results: req/s, median [min-max] of {} rounds x {} s; wrk: 1 thread, {} \
         connections, keep-alive; x ceiling: to the hand-written lookup of the same \
         set-up (ceiling: axum Router; ceiling-serve: axum::serve, no Router; \
         ceiling-hyper: hyper-util's server; ceiling-raw: a hand-written loop, one writev \
         for the responses to all requests read at once); CPU/req: the server's user + system CPU \
         time per response",
        args.rounds, args.seconds, args.connections,
    );
    for (c, case) in CASES.iter().enumerate() {
        let _ = writeln!(out, "\n{}", case.title);
        let _ = writeln!(
            out,
            "  {:<14} {:<26} {:>27} {:>9} {:>7} {:>9} {:>7} {:>5}",
            "server",
            "response",
            "req/s [min-max]",
            "x ceiling",
            "x nginx",
            "CPU/req",
            "srv CPU",
            "wrk"
        );
        for (s, server) in servers.iter().enumerate() {
            let cell = &cells[s][c];
            let response = match &probes[s][c] {
                Ok(probe) => match case.check {
                    Check::NotModified => format!(
                        "304, {} B{}",
                        probe.wire_len,
                        if probe.note.is_some() { " (IMS)" } else { "" }
                    ),
                    _ => probe.summary.trim_start_matches("200 ").to_owned(),
                },
                Err(_) => "check FAILED".into(),
            };
            let rate = match medians[s][c] {
                Some(m) => {
                    let (min, max) = cell.range();
                    format!("{} [{}-{}]", thousands(m), thousands(min), thousands(max))
                }
                None => "-".into(),
            };
            let per_request = cell
                .cpu_per_request()
                .map_or("-".into(), |us| format!("{us:.1} us"));
            let _ = writeln!(
                out,
                "  {:<14} {:<26} {:>27} {:>9} {:>7} {:>9} {:>7} {:>5}",
                server.name,
                response,
                rate,
                ratio(medians[s][c], ceiling_of(s).and_then(|i| medians[i][c])),
                ratio(medians[s][c], nginx.and_then(|i| medians[i][c])),
                per_request,
                busy(cell.server_cpu, cell.wall),
                busy(cell.client_cpu, cell.wall)
            );
        }
        for (s, server) in servers.iter().enumerate() {
            if let Ok(Probe {
                note: Some(note), ..
            }) = &probes[s][c]
            {
                let _ = writeln!(out, "  ({}: {note}; not compared with ours)", server.name);
            }
        }
    }

    // Ours in each set-up against nginx: the speed goals, per URL.
    if let Some(n) = nginx {
        let _ = writeln!(
            out,
            "\n== ours against nginx, per set-up: goal >= {:.1}x nginx on /index.html and \
             /favicon.ico, >= 1.0x on the others; ours-serve: >= {:.1}x on those and the \
             304, >= {:.1}x on the br file; ours-folder: >= {:.1}x on those and the 304 \
             (x ceiling: the most that set-up allows)",
            FAST_GOAL, SERVE_GOAL, SERVE_BR_GOAL, FAST_GOAL
        );
        let _ = writeln!(
            out,
            "  {:<17} {:<11} {:>9} {:>9} {:>10} {:>6}",
            "URL", "set-up", "req/s", "x nginx", "x ceiling", "goal"
        );
        for (c, case) in CASES.iter().enumerate() {
            let theirs =
                medians[n][c].filter(|_| matches!(&probes[n][c], Ok(p) if p.note.is_none()));
            for name in OURS {
                let Some(o) = index(name) else { continue };
                let Some(mine) = medians[o][c] else { continue };
                let goal = match (name, case.name) {
                    ("ours-serve" | USER, "index" | "favicon" | "304") => SERVE_GOAL,
                    ("ours-serve" | USER, "br" | "br-large" | "bundle") => SERVE_BR_GOAL,
                    // The disk mode: the 304 too.
                    (_, "index" | "favicon") | ("ours-folder", "304") => FAST_GOAL,
                    _ => 1.0,
                };
                let verdict = match theirs {
                    Some(t) if mine / t >= goal => "PASS",
                    Some(_) => "MISS",
                    None => "-",
                };
                let _ = writeln!(
                    out,
                    "  {:<17} {:<11} {:>9} {:>9} {:>10} {:>6}",
                    case.short,
                    name,
                    thousands(mine),
                    ratio(Some(mine), theirs),
                    ratio(Some(mine), ceiling_of(o).and_then(|i| medians[i][c])),
                    verdict
                );
            }
        }
    }

    // A Markdown table of the same medians, to paste.
    let _ = writeln!(out, "\n== the same medians as Markdown (req/s, x nginx)");
    let _ = write!(out, "\n| URL |");
    for server in servers {
        let _ = write!(out, " {} |", server.name);
    }
    let _ = write!(out, "\n|---|");
    for _ in servers {
        let _ = write!(out, "---:|");
    }
    for (c, case) in CASES.iter().enumerate() {
        let _ = write!(out, "\n| {} |", case.short);
        for s in 0..servers.len() {
            let cell = match medians[s][c] {
                Some(m) => format!(
                    "{} ({})",
                    thousands(m),
                    ratio(Some(m), nginx.and_then(|i| medians[i][c]))
                ),
                None => "-".into(),
            };
            let _ = write!(out, " {cell} |");
        }
    }
    let _ = write!(out, "\n| CPU/req, {} |", CASES[0].short);
    for cell in cells.iter().map(|row| &row[0]) {
        let text = cell
            .cpu_per_request()
            .map_or("-".into(), |us| format!("{us:.1} us"));
        let _ = write!(out, " {text} |");
    }
    let _ = writeln!(out);

    // The verdict for ours, per URL.
    if let Some(o) = ours {
        let _ = writeln!(
            out,
            "\n== ours per URL: >= {TARGET}x the ceiling, and >= {TARGET}x the best of {} \
             (those that sent the same kind of response)",
            RIVALS.join(", ")
        );
        let _ = writeln!(
            out,
            "  {:<17} {:>9} {:>14} {:>30} {:>14}",
            "URL", "ours", "x ceiling", "best rival", "x best"
        );
        let verdict = |r: f64| if r >= TARGET { "PASS" } else { "MISS" };
        for (c, case) in CASES.iter().enumerate() {
            let Some(mine) = medians[o][c] else {
                let _ = writeln!(out, "  {:<17} {:>9}", case.short, "-");
                continue;
            };
            let vs_ceiling = match ceiling.and_then(|i| medians[i][c]) {
                Some(b) if b > 0.0 => format!("{:.2}x {}", mine / b, verdict(mine / b)),
                _ => "-".into(),
            };
            let best = servers
                .iter()
                .enumerate()
                .filter(|(s, server)| {
                    RIVALS.iter().any(|r| server.name == *r)
                        && matches!(&probes[*s][c], Ok(Probe { note: None, .. }))
                })
                .filter_map(|(s, server)| Some((server.name.as_str(), medians[s][c]?)))
                .max_by(|a, b| a.1.total_cmp(&b.1));
            let (best_text, vs_best) = match best {
                Some((name, b)) => (
                    format!("{name} {}", thousands(b)),
                    format!("{:.2}x {}", mine / b, verdict(mine / b)),
                ),
                None => ("-".into(), "-".into()),
            };
            let _ = writeln!(
                out,
                "  {:<17} {:>9} {:>14} {:>30} {:>14}",
                case.short,
                thousands(mine),
                vs_ceiling,
                best_text,
                vs_best
            );
        }
    }

    let problems = servers.iter().enumerate().map(|(s, server)| {
        let mut problems: Vec<String> = Vec::new();
        for (c, case) in CASES.iter().enumerate() {
            if let Err(problem) = &probes[s][c] {
                problems.push(format!("{}: check failed: {problem}", case.short));
            }
            problems.extend(cells[s][c].problems.iter().cloned());
        }
        (server.name.as_str(), problems)
    });
    let ok = rounds::write_problems(&mut out, problems);
    if ok {
        let _ = writeln!(
            out,
            "\nevery server passed its checks, and every wrk run saw only responses of the \
             checked status and size"
        );
    }
    (out, ok)
}
