//! `cargo run --release -p bench --bin bench-static`: requests per second for a small
//! site embedded in the binary (html, favicon, ~230 KB CSS, ~90 KB JS, png), served by
//! embed-runtime, by a hand-written ceiling, by the crates users pick today
//! (memory-serve, static-serve, rust-embed with axum-embed), by tower-http `ServeDir`
//! and by nginx, side by side on 127.0.0.1, under `wrk`. See `bench/README.md`.
//!
//! Every server runs as a child process pinned to CPU 0 and wrk runs pinned to CPU 1.
//! Each server is checked on every URL before it is measured; rounds are interleaved
//! (the order rotates every round) and the tables show medians.

mod servers;

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use bench::cases::{check, Case, Check, Probe, CASES};
use bench::procs::{self, median, thousands};
use bench::site::{Mode, SITE_DIR, SITE_PRECOMPRESSED_DIR};
use bench::wrk;

use crate::servers::Server;

/// Other processes using more than this share of one CPU make the figures noisy.
const NOISY: f64 = 0.1;
/// Ours must reach this share of the ceiling and of the best competitor.
const TARGET: f64 = 0.95;
/// The competitors ours is held against (besides the ceiling).
const RIVALS: [&str; 3] = ["nginx", "static-serve", "memory-serve"];

const USAGE: &str = "\
usage: bench-static [--rounds N] [--duration SECS] [--warmup SECS] [--connections N]
                    [--redo-noisy N] [--servers LIST] [--no-pin] [--nginx PATH]
                    [--wrk PATH] [--raw]
       bench-static serve --mode NAME [--port N]

  --rounds N         interleaved rounds; the tables show medians over them (default 5)
  --duration SECS    length of each wrk run, whole seconds (default 2)
  --warmup SECS      one wrk run per server and URL before the rounds (default 1; 0: none)
  --connections N    wrk's open connections, all on one wrk thread (default 64)
  --redo-noisy N     run a round again when other processes used over 10% of a CPU
                     during it (a build next to the benchmark), at most N times in all
                     (default 3; 0: keep every round and only warn)
  --servers LIST     only these, comma-separated: ceiling, ours, nginx, memory-serve,
                     static-serve, rust-embed, servedir (default: all)
  --no-pin           do not pin servers to CPU 0 and wrk to CPU 1
  --nginx PATH       the nginx binary (default: nginx on PATH or in /usr/sbin)
  --wrk PATH         the wrk binary (default: wrk on PATH)
  --raw              print every sample (req/s) per server, in order

serve: one server by hand, e.g. `bench-static serve --mode ours --port 8080`; NAME is
ceiling, ours, memory-serve, static-serve, rust-embed or servedir.";

struct Args {
    rounds: usize,
    seconds: u64,
    warmup: u64,
    connections: usize,
    /// Rounds that may be run again because other processes were busy.
    redo_noisy: usize,
    servers: Option<Vec<String>>,
    pin: bool,
    nginx: Option<PathBuf>,
    wrk: Option<PathBuf>,
    raw: bool,
}

/// One server and one URL over the whole run.
#[derive(Default)]
struct Cell {
    samples: Vec<f64>,
    server_cpu: f64,
    client_cpu: f64,
    wall: f64,
    problems: Vec<String>,
}

impl Cell {
    /// The figures so far, without the problems (which are kept whatever happens).
    fn snapshot(&self) -> Cell {
        Cell {
            samples: self.samples.clone(),
            server_cpu: self.server_cpu,
            client_cpu: self.client_cpu,
            wall: self.wall,
            problems: Vec::new(),
        }
    }

    /// Back to `kept` (a discarded round), keeping the problems seen since.
    fn restore(&mut self, kept: Cell) {
        let problems = std::mem::take(&mut self.problems);
        *self = Cell { problems, ..kept };
    }
}

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    if argv.first().map(String::as_str) == Some("serve") {
        return serve(argv[1..].to_vec());
    }
    let args = match parse_args(argv) {
        Ok(Some(args)) => args,
        Ok(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("bench-static: {message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => {
            eprintln!("bench-static: some checks or runs failed; see PROBLEMS above");
            ExitCode::FAILURE
        }
        Err(message) => {
            eprintln!("bench-static: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The `serve` subcommand: one server, started by `run` itself or by hand.
fn serve(args: Vec<String>) -> ExitCode {
    let options = match bench::site::Options::parse(args) {
        Ok(options) => options,
        Err(message) => {
            eprintln!("bench-static serve: {message}");
            return ExitCode::from(2);
        }
    };
    match bench::site::run(&options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("bench-static serve: {err}");
            ExitCode::FAILURE
        }
    }
}

fn parse_args(argv: Vec<String>) -> Result<Option<Args>, String> {
    let mut args = Args {
        rounds: 5,
        seconds: 2,
        warmup: 1,
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
        let number = |text: String, min: u64, max: u64| -> Result<u64, String> {
            match text.parse::<u64>() {
                Ok(n) if (min..=max).contains(&n) => Ok(n),
                _ => Err(format!(
                    "`{text}` is not a whole number from {min} to {max}"
                )),
            }
        };
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

fn run(args: &Args) -> Result<bool, String> {
    let cpus = std::thread::available_parallelism().map_or(1, usize::from);
    let pin = args.pin && cpus >= 2 && procs::have_taskset();
    let (server_cpu, client_cpu) = if pin {
        (Some(0), Some(1))
    } else {
        (None, None)
    };
    if let Some(cpu) = client_cpu {
        procs::pin_self(cpu)?;
    }
    let wrk_path = args
        .wrk
        .clone()
        .or_else(|| procs::find_program("wrk"))
        .ok_or("wrk not found: install it with `apt-get install -y wrk` (or pass --wrk PATH)")?;
    println!("bench-static: site {SITE_DIR}");
    match server_cpu {
        Some(cpu) => println!(
            "bench-static: {cpus} CPUs; every server pinned to CPU {cpu}, wrk to CPU {}",
            client_cpu.unwrap_or(1)
        ),
        None => println!("bench-static: not pinning; servers and wrk share the {cpus} CPU(s)"),
    }
    let wanted = |name: &str| {
        args.servers
            .as_ref()
            .is_none_or(|list| list.iter().any(|s| s == name))
    };
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

    // Start every server at once (idle ones cost nothing) so rounds can interleave.
    let mut servers: Vec<Server> = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    for mode in Mode::ALL {
        if wanted(mode.name()) {
            servers.push(servers::start_rust(mode, server_cpu)?);
        }
        if mode == Mode::Ours && wanted("nginx") {
            match args.nginx.clone().or_else(|| procs::find_program("nginx")) {
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
    let mut cells: Vec<Vec<Cell>> = servers
        .iter()
        .map(|_| CASES.iter().map(|_| Cell::default()).collect())
        .collect();

    let load = wrk::Load {
        connections: args.connections,
        seconds: args.seconds,
        cpu: client_cpu,
    };
    // 2. Warm-up: one run per server and URL, not counted.
    if args.warmup > 0 {
        let warm = wrk::Load {
            seconds: args.warmup,
            ..load.clone()
        };
        println!(
            "\n== warm-up: {} s per server and URL, not counted",
            args.warmup
        );
        for (server, row) in servers.iter().zip(&probes) {
            for (case, probe) in CASES.iter().zip(row) {
                if let Ok(probe) = probe {
                    let _ = wrk::run(&wrk_path, &warm, server.addr, case.path, &probe.headers);
                }
            }
        }
    }

    // 3. Interleaved rounds: per URL, every server in an order that rotates.
    println!(
        "\n== rounds: {} x (every URL x every server), wrk -t1 -c{} -d{}s",
        args.rounds, args.connections, args.seconds
    );
    let total = Instant::now();
    let mut foreign = (0.0, 0.0);
    let mut redos_left = args.redo_noisy;
    let (mut round, mut attempt) = (0, 0);
    while round < args.rounds {
        let started = Instant::now();
        let before = accounted_and_machine_cpu(&servers);
        let kept: Vec<Vec<Cell>> = cells
            .iter()
            .map(|row| row.iter().map(Cell::snapshot).collect())
            .collect();
        for (c, case) in CASES.iter().enumerate() {
            for k in 0..servers.len() {
                let s = (k + attempt + c) % servers.len();
                let Ok(probe) = &probes[s][c] else { continue };
                measure(&wrk_path, &load, &servers[s], case, probe, &mut cells[s][c]);
            }
        }
        attempt += 1;
        let after = accounted_and_machine_cpu(&servers);
        let wall = started.elapsed().as_secs_f64();
        let busy = match (before, after) {
            (Some((a0, m0)), Some((a1, m1))) => Some(((m1 - m0) - (a1 - a0)).max(0.0)),
            _ => None,
        };
        let noisy = busy.filter(|busy| busy / wall > NOISY);
        if let (Some(busy), true) = (noisy, redos_left > 0) {
            redos_left -= 1;
            for (row, kept) in cells.iter_mut().zip(kept) {
                for (cell, kept) in row.iter_mut().zip(kept) {
                    cell.restore(kept);
                }
            }
            println!(
                "  round {}/{} done in {wall:.0} s; other processes used {:.0}% of a CPU: \
                 discarded, run again ({redos_left} more redo(s) allowed)",
                round + 1,
                args.rounds,
                100.0 * busy / wall
            );
            continue;
        }
        if let Some(busy) = busy {
            foreign.0 += busy;
            foreign.1 += wall;
        }
        println!(
            "  round {}/{} done in {wall:.0} s{}",
            round + 1,
            args.rounds,
            noisy.map_or(String::new(), |busy| format!(
                "; WARNING: other processes used {:.0}% of a CPU",
                100.0 * busy / wall
            ))
        );
        round += 1;
    }
    if foreign.1 > 0.0 && foreign.0 / foreign.1 > NOISY {
        notes.push(format!(
            "WARNING: other processes used {:.0}% of a CPU during the rounds; the figures \
             are noisy, run again on an idle machine",
            100.0 * foreign.0 / foreign.1
        ));
    }
    for (server, row) in servers.iter_mut().zip(&mut cells) {
        if !server.alive() {
            row[0].problems.push("the server process died".into());
        }
    }

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

/// CPU seconds of the servers, this process and the wrk runs it waited for; and of the
/// whole machine.
fn accounted_and_machine_cpu(servers: &[Server]) -> Option<(f64, f64)> {
    let ours: f64 = servers.iter().map(Server::cpu_seconds).sum::<f64>()
        + procs::cpu_seconds(std::process::id())?
        + procs::waited_children_cpu_seconds()?;
    Some((ours, procs::machine_cpu_seconds()?))
}

/// One wrk run of `case` against `server`: a sample when wrk saw no error and every
/// response had the size of the checked one.
fn measure(
    wrk_path: &std::path::Path,
    load: &wrk::Load,
    server: &Server,
    case: &Case,
    probe: &Probe,
    cell: &mut Cell,
) {
    let cpu0 = server.cpu_seconds();
    let client0 = procs::waited_children_cpu_seconds().unwrap_or(0.0);
    let started = Instant::now();
    let outcome = wrk::run(wrk_path, load, server.addr, case.path, &probe.headers);
    cell.wall += started.elapsed().as_secs_f64();
    cell.server_cpu += server.cpu_seconds() - cpu0;
    cell.client_cpu += procs::waited_children_cpu_seconds().unwrap_or(0.0) - client0;
    let outcome = match outcome {
        Ok(outcome) => outcome,
        Err(problem) => {
            cell.problems.push(format!("{}: {problem}", case.short));
            return;
        }
    };
    if let Some(problem) = outcome.problem(load, probe.wire_len) {
        cell.problems.push(format!("{}: {problem}", case.short));
        return;
    }
    cell.samples.push(outcome.per_second);
}

fn report(
    args: &Args,
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
    let busy = |cpu: f64, wall: f64| {
        if wall > 0.0 {
            format!("{:.0}%", 100.0 * cpu / wall)
        } else {
            "-".into()
        }
    };
    let _ = writeln!(
        out,
        "\n== results: req/s, median [min-max] of {} rounds x {} s; wrk: 1 thread, {} \
         connections, keep-alive",
        args.rounds, args.seconds, args.connections,
    );
    for (c, case) in CASES.iter().enumerate() {
        let base = ceiling.and_then(|i| medians[i][c]);
        let _ = writeln!(out, "\n{}", case.title);
        let _ = writeln!(
            out,
            "  {:<13} {:<28} {:>27} {:>9} {:>7} {:>5}",
            "server", "response", "req/s [min-max]", "x ceiling", "srv CPU", "wrk"
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
                    let min = cell.samples.iter().copied().fold(f64::INFINITY, f64::min);
                    let max = cell.samples.iter().copied().fold(0.0, f64::max);
                    format!("{} [{}-{}]", thousands(m), thousands(min), thousands(max))
                }
                None => "-".into(),
            };
            let ratio = match (medians[s][c], base) {
                (Some(m), Some(b)) if b > 0.0 => format!("{:.2}x", m / b),
                _ => "-".into(),
            };
            let _ = writeln!(
                out,
                "  {:<13} {:<28} {:>27} {:>9} {:>7} {:>5}",
                server.name,
                response,
                rate,
                ratio,
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

    let mut ok = true;
    for (s, server) in servers.iter().enumerate() {
        let mut problems: Vec<String> = Vec::new();
        for (c, case) in CASES.iter().enumerate() {
            if let Err(problem) = &probes[s][c] {
                problems.push(format!("{}: check failed: {problem}", case.short));
            }
            problems.extend(cells[s][c].problems.iter().cloned());
        }
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
            "\nevery server passed its checks, and every wrk run saw only responses of the \
             checked status and size"
        );
    }
    (out, ok)
}
