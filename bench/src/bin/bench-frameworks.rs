//! `cargo run --release --manifest-path bench/Cargo.toml --bin bench-frameworks`: requests per second for the
//! same embedded site (`bench-static`'s, [`bench::site::SITE`]) served by
//! `SITE.service()` through each framework adapter: axum, plain hyper, actix-web,
//! Rocket, Poem, Salvo and warp, side by side in one process on 127.0.0.1, under
//! `wrk`. See `bench/README.md`.
//!
//! Each server is the test harness's (`integration_tests::frameworks`), mounted the
//! way the examples show; the whole process is pinned to CPU 0 and wrk to CPU 1, so the
//! figures compare the frameworks per core. Every server is checked on every case before it is measured
//! (status, coding, byte-identical body, the core's ETag); rounds interleave the
//! frameworks and the tables show medians, as a ratio to axum.

use std::fmt::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::mpsc;
use std::time::Instant;

use bench::cases::{check, is_large, Case, Check, Probe, CASES};
use bench::procs::{self, median, thousands};
use bench::rounds::{self, busy, Cell};
use bench::site::{SITE, SITE_DIR};
use bench::wrk;
use embed_assets::Encoding;
use integration_tests::frameworks::Framework;

const USAGE: &str = "\
usage: bench-frameworks [--seconds N] [--rounds N] [--frameworks LIST] [--cases LIST]
                        [--connections N] [--warmup SECS] [--redo-noisy N] [--no-pin]
                        [--wrk PATH] [--raw]

  --seconds N        length of each wrk run, whole seconds (default 3)
  --rounds N         interleaved rounds; the tables show medians over them (default 5)
  --frameworks LIST  comma-separated names of tests/frameworks.txt (axum, hyper, ...)
                     (default: all; the ratios are to axum when it is measured)
  --cases LIST       comma-separated: index, br, favicon, 304, br-large, bundle
                     (default: the first four)
  --connections N    wrk's open connections, all on one wrk thread (default 32)
  --warmup SECS      one wrk run per framework and case before the rounds (default 1;
                     0: none)
  --redo-noisy N     run a round again when other processes used over 10% of a CPU
                     during it, at most N times in all (default 2; 0: only warn)
  --no-pin           do not pin the servers to CPU 0 and wrk to CPU 1
  --wrk PATH         the wrk binary (default: wrk on PATH)
  --raw              print every sample (req/s), in the order taken";

/// Starts `framework`'s server on 127.0.0.1 with the harness's set-up; returns once it
/// listens. axum and hyper run on a one-worker tokio runtime of their own; the others
/// start their own threads (actix-web one worker, Poem and Salvo a current-thread
/// runtime, Rocket and warp two workers), all pinned to CPU 0 with the process.
fn start(framework: Framework) -> Result<SocketAddr, String> {
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name(framework.name().to_owned())
        .spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .thread_name(format!("{}-worker", framework.name()))
                .enable_all()
                .build();
            let runtime = match runtime {
                Ok(runtime) => runtime,
                Err(err) => {
                    let _ = tx.send(Err(format!("tokio runtime: {err}")));
                    return;
                }
            };
            runtime.block_on(async move {
                let addr = framework.spawn(SITE.service(), None).await;
                let _ = tx.send(Ok(addr));
                // The servers live until the process ends.
                std::future::pending::<()>().await;
            });
        })
        .map_err(|e| format!("{} thread: {e}", framework.name()))?;
    rx.recv()
        .map_err(|_| format!("the {} thread ended", framework.name()))?
}

fn framework_named(name: &str) -> Option<Framework> {
    Framework::ALL.into_iter().find(|f| f.name() == name)
}

struct Args {
    seconds: u64,
    rounds: usize,
    frameworks: Vec<Framework>,
    cases: Vec<&'static Case>,
    connections: usize,
    warmup: u64,
    redo_noisy: usize,
    pin: bool,
    wrk: Option<PathBuf>,
    raw: bool,
}

fn parse_args(argv: Vec<String>) -> Result<Option<Args>, String> {
    let mut args = Args {
        seconds: 3,
        rounds: 5,
        frameworks: Framework::ALL.to_vec(),
        // The four small requests by default (`--cases br-large,bundle` adds the large
        // br bodies).
        cases: CASES.iter().filter(|case| !is_large(case)).collect(),
        connections: 32,
        warmup: 1,
        redo_noisy: 2,
        pin: true,
        wrk: None,
        raw: false,
    };
    let mut argv = argv.into_iter();
    while let Some(arg) = argv.next() {
        let mut value = || argv.next().ok_or_else(|| format!("{arg} needs a value"));
        let number = |text: String, min, max| bench::whole_number(&text, min, max);
        match arg.as_str() {
            "--seconds" => args.seconds = number(value()?, 1, 60)?,
            "--rounds" => args.rounds = number(value()?, 1, 100)? as usize,
            "--connections" => args.connections = number(value()?, 1, 1000)? as usize,
            "--warmup" => args.warmup = number(value()?, 0, 60)?,
            "--redo-noisy" => args.redo_noisy = number(value()?, 0, 100)? as usize,
            "--frameworks" => {
                args.frameworks = value()?
                    .split(',')
                    .map(|name| {
                        framework_named(name.trim()).ok_or_else(|| {
                            let known: Vec<&str> =
                                Framework::ALL.iter().map(|f| f.name()).collect();
                            format!(
                                "unknown framework `{name}`; expected one of {}",
                                known.join(", ")
                            )
                        })
                    })
                    .collect::<Result<_, _>>()?;
            }
            "--cases" => {
                args.cases = value()?
                    .split(',')
                    .map(|name| {
                        CASES
                            .iter()
                            .find(|case| case.name == name.trim())
                            .ok_or_else(|| format!("unknown case `{name}`"))
                    })
                    .collect::<Result<_, _>>()?;
            }
            "--no-pin" => args.pin = false,
            "--wrk" => args.wrk = Some(value()?.into()),
            "--raw" => args.raw = true,
            "-h" | "--help" => return Ok(None),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    if args.frameworks.is_empty() || args.cases.is_empty() {
        return Err("--frameworks and --cases need at least one name".into());
    }
    Ok(Some(args))
}

fn main() -> ExitCode {
    let parsed = parse_args(std::env::args().skip(1).collect());
    bench::driver::main("bench-frameworks", USAGE, parsed, run)
}

/// CPU seconds of this process and of the wrk runs it waited for; and of the whole
/// machine. The difference over a round is what other processes used.
fn accounted_and_machine_cpu() -> Option<(f64, f64)> {
    let ours = procs::cpu_seconds(std::process::id())? + procs::waited_children_cpu_seconds()?;
    Some((ours, procs::machine_cpu_seconds()?))
}

fn run(args: &Args) -> Result<bool, String> {
    let Some(wrk_path) = args.wrk.clone().or_else(|| procs::find_program("wrk")) else {
        return Err(
            "wrk not found: install it with `apt-get install -y wrk` (Debian's package), \
             or pass --wrk PATH"
                .into(),
        );
    };
    let cpus = std::thread::available_parallelism().map_or(1, usize::from);
    let (server_cpu, client_cpu) = rounds::cpus(args.pin);
    // Before any server thread exists: every thread started later inherits CPU 0.
    if let Some(cpu) = server_cpu {
        procs::pin_self(cpu)?;
    }
    let command_line: Vec<String> = std::env::args().collect();
    println!("bench-frameworks: {}", command_line.join(" "));
    println!("bench-frameworks: {}", rounds::machine_note());
    println!(
        "bench-frameworks: {}; site {SITE_DIR}",
        rounds::wrk_version(&wrk_path)
    );
    match server_cpu {
        Some(cpu) => println!(
            "bench-frameworks: every server pinned to CPU {cpu} (this process), wrk to CPU {}",
            client_cpu.unwrap_or(1)
        ),
        None => println!("bench-frameworks: not pinning; servers and wrk share the {cpus} CPU(s)"),
    }

    let frameworks = &args.frameworks;
    let cases = &args.cases;
    let mut addrs = Vec::new();
    for framework in frameworks {
        let addr = start(*framework).map_err(|e| format!("{}: {e}", framework.name()))?;
        println!("  {:<10} listening on {addr}", framework.name());
        addrs.push(addr);
    }

    // 1. Check every server on every case, byte for byte; only what passes is measured.
    println!("\n== check: every framework, every case, before measuring");
    let mut probes: Vec<Vec<Result<Probe, String>>> = Vec::new();
    for (framework, addr) in frameworks.iter().zip(&addrs) {
        let mut row = Vec::new();
        for case in cases {
            let probe = check_case(*addr, case);
            match &probe {
                Ok(p) => println!(
                    "  {:<10} {:<17} ok: {}; {} B a response",
                    framework.name(),
                    case.short,
                    p.summary,
                    p.wire_len
                ),
                Err(problem) => println!(
                    "  {:<10} {:<17} FAILED: {problem}",
                    framework.name(),
                    case.short
                ),
            }
            row.push(probe);
        }
        probes.push(row);
    }
    let mut cells: Vec<Vec<Cell>> = vec![vec![Cell::default(); cases.len()]; frameworks.len()];

    let load = wrk::Load {
        connections: args.connections,
        seconds: args.seconds,
        cpu: client_cpu,
        pipeline: 1,
    };
    // 2. Warm-up: one run per framework and case, not counted.
    if args.warmup > 0 {
        println!(
            "\n== warm-up: {} s per framework and case, not counted",
            args.warmup
        );
        rounds::warm_up(&wrk_path, &load, args.warmup, &addrs, cases, &probes);
    }

    // 3. Interleaved rounds: per case, every framework, in an order that rotates.
    println!(
        "\n== rounds: {} x (every case x every framework), wrk -t1 -c{} -d{}s",
        args.rounds, args.connections, args.seconds
    );
    let total = Instant::now();
    let plan = rounds::Plan {
        rounds: args.rounds,
        redo_noisy: args.redo_noisy,
    };
    // Every server runs in this process: its CPU time is theirs.
    let cpu = || procs::cpu_seconds(std::process::id()).unwrap_or(0.0);
    let notes = [rounds::run(
        plan,
        &mut cells,
        accounted_and_machine_cpu,
        |f, c, cell| {
            if let Ok(probe) = &probes[f][c] {
                let target = (addrs[f], &cpu as &dyn Fn() -> f64);
                rounds::measure(&wrk_path, &load, target, cases[c], probe, cell);
            }
        },
    )];

    if args.raw {
        println!("\n== raw samples, req/s, in the order taken");
        for (c, case) in cases.iter().enumerate() {
            println!("  {}", case.title);
            for (framework, row) in frameworks.iter().zip(&cells) {
                let list: Vec<String> = row[c].samples.iter().map(|x| format!("{x:.0}")).collect();
                println!("    {:<10} {}", framework.name(), list.join(" "));
            }
        }
    }
    let (text, ok) = report(args, &command_line, cpus, &probes, &cells);
    println!("{text}");
    for note in &notes {
        println!("bench-frameworks: {note}");
    }
    println!(
        "bench-frameworks: rounds took {:.0} s",
        total.elapsed().as_secs_f64()
    );
    Ok(ok)
}

/// [`check`] (status, coding, the file once decoded, a 304 to the server's own ETag),
/// and then that what the framework sent is byte for byte what the core stores: the
/// identity or br body itself, and for the 304 the core's ETag of the br variant. No
/// adapter may pass by sending something cheaper.
fn check_case(addr: SocketAddr, case: &Case) -> Result<Probe, String> {
    let path = format!("{SITE_DIR}/{}", case.file);
    let file = std::fs::read(&path).map_err(|e| format!("{path}: {e}"))?;
    let probe = check(addr, case, &file)?;
    let asset = SITE
        .get(case.path)
        .ok_or_else(|| format!("{} is not in the embedded site", case.path))?;
    let stored = |encoding: Encoding| {
        asset
            .variant(encoding)
            .ok_or_else(|| format!("{} has no {encoding:?} body", case.path))
    };
    match case.check {
        Check::Plain => {
            if probe.body != stored(Encoding::Identity)?.body() {
                return Err("the body is not the stored identity body".into());
            }
        }
        Check::Brotli => {
            if let Some(note) = &probe.note {
                return Err(note.clone());
            }
            if probe.body != stored(Encoding::Brotli)?.body() {
                return Err("the body is not the stored br body byte for byte".into());
            }
        }
        Check::NotModified => {
            let etag = stored(Encoding::Brotli)?.etag();
            let sent = probe
                .headers
                .iter()
                .find(|(name, _)| name == "If-None-Match")
                .map(|(_, value)| value.as_str());
            if sent != Some(etag) {
                return Err(format!(
                    "the 200's validator is {sent:?}, not the core's ETag {etag}"
                ));
            }
            if !probe.body.is_empty() {
                return Err("the 304 has a body".into());
            }
        }
    }
    Ok(probe)
}

fn report(
    args: &Args,
    command_line: &[String],
    cpus: usize,
    probes: &[Vec<Result<Probe, String>>],
    cells: &[Vec<Cell>],
) -> (String, bool) {
    let frameworks = &args.frameworks;
    let cases = &args.cases;
    let mut out = String::new();
    let axum = frameworks.iter().position(|f| *f == Framework::Axum);
    let medians: Vec<Vec<Option<f64>>> = cells
        .iter()
        .map(|row| row.iter().map(|cell| median(&cell.samples)).collect())
        .collect();
    let ratio = |f: usize, c: usize| match (medians[f][c], axum.and_then(|a| medians[a][c])) {
        (Some(m), Some(b)) if b > 0.0 => Some(m / b),
        _ => None,
    };
    let _ = writeln!(
        out,
        "\n== results: req/s, median [min-max] of {} rounds x {} s; wrk: 1 thread, {} \
         connections, keep-alive",
        args.rounds, args.seconds, args.connections,
    );
    for (c, case) in cases.iter().enumerate() {
        let _ = writeln!(out, "\n{}", case.title);
        let _ = writeln!(
            out,
            "  {:<10} {:>10} {:>27} {:>7} {:>7} {:>5}",
            "framework", "response", "req/s [min-max]", "x axum", "srv CPU", "wrk"
        );
        for (f, framework) in frameworks.iter().enumerate() {
            let cell = &cells[f][c];
            let response = match &probes[f][c] {
                Ok(probe) => format!("{} B", probe.wire_len),
                Err(_) => "FAILED".into(),
            };
            let rate = match medians[f][c] {
                Some(m) => {
                    let (min, max) = cell.range();
                    format!("{} [{}-{}]", thousands(m), thousands(min), thousands(max))
                }
                None => "-".into(),
            };
            let _ = writeln!(
                out,
                "  {:<10} {:>10} {:>27} {:>7} {:>7} {:>5}",
                framework.name(),
                response,
                rate,
                ratio(f, c).map_or("-".into(), |r| format!("{r:.2}x")),
                busy(cell.server_cpu, cell.wall),
                busy(cell.client_cpu, cell.wall)
            );
        }
    }

    // The summary, as a Markdown table.
    let _ = writeln!(
        out,
        "\n== summary: median req/s (x axum); `{}`\n   machine: {cpus} CPUs, servers on CPU \
         0, wrk on CPU 1 unless --no-pin; response size is head + body as checked\n",
        command_line.join(" ")
    );
    let mut header = String::from("| case |");
    let mut rule = String::from("|---|");
    for framework in frameworks {
        let _ = write!(header, " {} |", framework.name());
        rule.push_str("---:|");
    }
    let _ = writeln!(out, "{header}\n{rule}");
    for (c, case) in cases.iter().enumerate() {
        let mut line = format!("| {} |", case.short);
        for (f, row) in medians.iter().enumerate() {
            let text = match (row[c], ratio(f, c)) {
                (Some(m), Some(r)) => format!("{} ({r:.2}x)", thousands(m)),
                (Some(m), None) => thousands(m),
                _ => "-".into(),
            };
            let _ = write!(line, " {text} |");
        }
        let _ = writeln!(out, "{line}");
    }
    let mut line = String::from("| response bytes (br / 304) |");
    for row in probes {
        let sizes: Vec<String> = cases
            .iter()
            .zip(row)
            .filter(|(case, _)| case.check != Check::Plain)
            .map(|(_, p)| p.as_ref().map_or("-".into(), |p| p.wire_len.to_string()))
            .collect();
        let _ = write!(line, " {} |", sizes.join(" / "));
    }
    if cases.iter().any(|case| case.check != Check::Plain) {
        let _ = writeln!(out, "{line}");
    }

    let problems = frameworks.iter().enumerate().map(|(f, framework)| {
        let mut problems: Vec<String> = Vec::new();
        for (c, case) in cases.iter().enumerate() {
            if let Err(problem) = &probes[f][c] {
                problems.push(format!("{}: check failed: {problem}", case.short));
            }
            problems.extend(cells[f][c].problems.iter().cloned());
        }
        (framework.name(), problems)
    });
    let ok = rounds::write_problems(&mut out, problems);
    if ok {
        let _ = writeln!(
            out,
            "\nevery framework passed its checks (status, coding, the stored bytes, the \
             core's ETag), and every wrk run saw only responses of the checked status and \
             size"
        );
    }
    (out, ok)
}

#[cfg(test)]
mod tests {
    use super::{check_case, start, Framework, CASES};

    /// Every framework's server answers every case as the benchmark requires (status,
    /// coding, the stored bytes, the core's ETag), so a run can only fail at load.
    #[test]
    fn every_framework_passes_the_checks() {
        for framework in Framework::ALL {
            let addr = start(framework).unwrap();
            for case in &CASES {
                if let Err(problem) = check_case(addr, case) {
                    panic!("{} {}: {problem}", framework.name(), case.short);
                }
            }
        }
    }
}
