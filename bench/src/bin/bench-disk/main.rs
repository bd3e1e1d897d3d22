//! `cargo run --release --manifest-path bench/Cargo.toml --bin bench-disk`: large-file download throughput
//! from disk for embed-assets (at several chunk sizes) vs nginx (`sendfile on`) vs
//! tower-http `ServeDir`, in one run, plus the peak RSS of each server under 32
//! concurrent downloads. See `bench/README.md`.
//!
//! Every server runs as a child process pinned to CPU 0 and the client runs pinned to
//! CPU 1, so each server has one core and the client never competes with it. Rounds are
//! interleaved (the order rotates every round) and the table shows medians.

mod cold;
mod first;
mod procs;

use std::fmt::Write as _;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bench::{MEDIA_DIR, VIDEO_LEN, VIDEO_PATH, VIDEO_URL};
use embed_assets::ServeAssets;

use bench::download::{download, Request};
use bench::procs::median;

use crate::procs::{Kind, Server};

const DEFAULT_CHUNK_SIZE: usize = ServeAssets::DEFAULT_CHUNK_SIZE;

/// Longest any one download may take before it counts as failed.
const DOWNLOAD_TIMEOUT: Duration = Duration::from_secs(120);
/// Chunks one download may hold: the one being sent and the one read ahead.
const CHUNKS_HELD: u64 = 2;
/// Allowance on top of `downloads x CHUNKS_HELD x chunk` for the memory target.
const MEMORY_SLACK: u64 = 8 << 20;
/// Other processes using more than this share of one CPU make the figures noisy.
const NOISY: f64 = 0.1;
/// The throughput targets against nginx: one stream, and the concurrent downloads.
const TARGET_SINGLE: f64 = 1.0;
const TARGET_CONCURRENT: f64 = 1.1;

const USAGE: &str = "\
usage: bench-disk [--rounds N] [--singles N] [--concurrency N] [--mem-concurrency N]
                  [--chunks 64K,256K,1M,4M] [--no-pin] [--nginx PATH]
                  [--server-env KEY=VALUE]... [--raw] [--discard]
       bench-disk cold --help   (the cold-cache workload: many large files, evicted)
       bench-disk first --help  (the first downloads after each server starts)
       bench-disk serve --mode ours|servedir [--port N] [--chunk BYTES]

  --rounds N           interleaved rounds; medians are over them (default 9)
  --singles N          single-stream downloads per server per round (default 5)
  --concurrency N      downloads at once in the concurrent test (default 8)
  --mem-concurrency N  downloads at once in the memory test (default 32)
  --chunks LIST        chunk sizes to run our server at (default 64K,256K,1M,4M;
                       the library default is always included)
  --no-pin             do not pin servers to CPU 0 and the client to CPU 1
  --nginx PATH         the nginx binary (default: nginx on PATH or in /usr/sbin)
  --server-env K=V     set K=V in the environment of our server and ServeDir
                       (e.g. MALLOC_ARENA_MAX=2); repeatable
  --raw                print every sample (MB/s) per server, in order
  --discard            the client drops the bytes in the kernel (recv MSG_TRUNC)
                       instead of copying them out: the client costs almost nothing,
                       so every server, nginx included, is measured at its own limit";

struct Args {
    rounds: usize,
    singles: usize,
    concurrency: usize,
    mem_concurrency: usize,
    chunks: Vec<usize>,
    pin: bool,
    nginx: Option<std::path::PathBuf>,
    /// Extra environment for the Rust servers (ours and ServeDir).
    server_env: Vec<(String, String)>,
    /// Print every sample.
    raw: bool,
    /// Drop received bytes in the kernel instead of copying them.
    discard: bool,
}

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    if argv.first().map(String::as_str) == Some("serve") {
        return serve(argv[1..].to_vec());
    }
    if argv.first().map(String::as_str) == Some("cold") {
        return cold::main(argv[1..].to_vec());
    }
    if argv.first().map(String::as_str) == Some("first") {
        return first::main(argv[1..].to_vec());
    }
    bench::driver::main("bench-disk", USAGE, parse_args(argv), run)
}

/// The hidden `serve` subcommand: the server under test, started by `run` itself.
fn serve(args: Vec<String>) -> ExitCode {
    let options = match bench::server::Options::parse(args) {
        Ok(options) => options,
        Err(message) => {
            eprintln!("bench-disk serve: {message}");
            return ExitCode::from(2);
        }
    };
    match bench::server::run(&options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("bench-disk serve: {err}");
            ExitCode::FAILURE
        }
    }
}

fn parse_args(argv: Vec<String>) -> Result<Option<Args>, String> {
    let mut args = Args {
        rounds: 9,
        singles: 5,
        concurrency: 8,
        mem_concurrency: 32,
        chunks: vec![64 << 10, 256 << 10, 1 << 20, 4 << 20],
        pin: true,
        nginx: None,
        server_env: Vec::new(),
        raw: false,
        discard: false,
    };
    let mut argv = argv.into_iter();
    while let Some(arg) = argv.next() {
        let mut value = || argv.next().ok_or_else(|| format!("{arg} needs a value"));
        let count = |text: String| -> Result<usize, String> {
            match text.parse::<usize>() {
                Ok(n) if (1..=1000).contains(&n) => Ok(n),
                _ => Err(format!("`{text}` is not a count from 1 to 1000")),
            }
        };
        match arg.as_str() {
            "--rounds" => args.rounds = count(value()?)?,
            "--singles" => args.singles = count(value()?)?,
            "--concurrency" => args.concurrency = count(value()?)?,
            "--mem-concurrency" => args.mem_concurrency = count(value()?)?,
            "--chunks" => {
                args.chunks = value()?
                    .split(',')
                    .map(parse_size)
                    .collect::<Result<_, _>>()?
            }
            "--no-pin" => args.pin = false,
            "--nginx" => args.nginx = Some(value()?.into()),
            "--server-env" => {
                let pair = value()?;
                let (k, v) = pair
                    .split_once('=')
                    .filter(|(k, _)| !k.is_empty())
                    .ok_or_else(|| format!("--server-env takes KEY=VALUE, got `{pair}`"))?;
                args.server_env.push((k.to_owned(), v.to_owned()));
            }
            "--raw" => args.raw = true,
            "--discard" => args.discard = true,
            "-h" | "--help" => return Ok(None),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    if !args.chunks.contains(&DEFAULT_CHUNK_SIZE) {
        args.chunks.push(DEFAULT_CHUNK_SIZE);
    }
    args.chunks.sort_unstable();
    args.chunks.dedup();
    Ok(Some(args))
}

/// `65536`, `64K`, `64KiB`, `1M`, `1MiB`.
fn parse_size(text: &str) -> Result<usize, String> {
    let t = text.trim();
    let (digits, unit) = t.split_at(t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len()));
    let scale = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kib" => 1 << 10,
        "m" | "mib" => 1 << 20,
        _ => return Err(format!("bad size `{text}` (e.g. 65536, 64K, 1M)")),
    };
    match digits.parse::<usize>() {
        Ok(n) if n >= 1 && n <= (64 << 20) / scale => Ok(n * scale),
        _ => Err(format!("bad size `{text}` (1 B to 64 MiB)")),
    }
}

fn size(bytes: u64) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else if bytes >= 1 << 10 && bytes.is_multiple_of(1 << 10) {
        format!("{} KiB", bytes >> 10)
    } else {
        format!("{bytes} B")
    }
}

fn mib(bytes: u64) -> String {
    format!("{:.1}", bytes as f64 / f64::from(1 << 20))
}

/// MB/s, MB = 10^6 bytes.
fn mb_per_s(bytes: u64, elapsed: Duration) -> f64 {
    bytes as f64 / elapsed.as_secs_f64().max(1e-9) / 1e6
}

/// One 32-concurrent memory round.
#[derive(Default, Clone, Copy)]
struct MemRound {
    /// RSS just before.
    before: u64,
    /// Peak RSS during (VmHWM after a reset to the RSS before).
    peak: u64,
    /// RSS just after.
    after: u64,
    /// Threads just after (tokio's blocking pool keeps idle threads for 10 s).
    threads: u64,
}

#[derive(Default)]
struct Results {
    single: Vec<f64>,
    concurrent: Vec<f64>,
    /// Server and client CPU seconds and wall seconds, single-stream phase.
    single_cpu: (f64, f64, f64),
    /// The same for the concurrent phase.
    concurrent_cpu: (f64, f64, f64),
    bytes: u64,
    mem_first: Option<MemRound>,
    mem_last: Option<MemRound>,
    /// Peak RSS over the throughput rounds.
    mem_rounds_peak: Option<u64>,
    /// Whether VmHWM could be reset (else peaks are since start).
    peak_reset: bool,
    problems: Vec<String>,
}

fn run(args: &Args) -> Result<bool, String> {
    let cpus = std::thread::available_parallelism().map_or(1, usize::from);
    let pin = args.pin && cpus >= 2 && bench::procs::have_taskset();
    let (server_cpu, client_cpu) = if pin { (Some(0), 1) } else { (None, 0) };
    if pin {
        bench::procs::pin_self(client_cpu)?;
    }
    println!("bench-disk: {} file {VIDEO_PATH}", size(VIDEO_LEN));
    match server_cpu {
        Some(cpu) => println!(
            "bench-disk: {cpus} CPUs; every server pinned to CPU {cpu}, the client to CPU \
             {client_cpu}"
        ),
        None if args.pin => println!(
            "bench-disk: not pinning ({cpus} CPU(s), taskset {}); servers and client share \
             the CPUs",
            if bench::procs::have_taskset() {
                "found"
            } else {
                "missing"
            }
        ),
        None => println!("bench-disk: --no-pin: servers and client share the {cpus} CPUs"),
    }
    if let Some(busy) = foreign_load(&[], Duration::from_secs(1)) {
        if busy > NOISY {
            println!(
                "bench-disk: WARNING: other processes are using {:.0}% of a CPU right now; \
                 the figures will be noisy (wait for builds to finish)",
                busy * 100.0
            );
        }
    }
    let expected = std::fs::read(VIDEO_PATH).map_err(|e| format!("{VIDEO_PATH}: {e}"))?;
    if expected.len() as u64 != VIDEO_LEN {
        return Err(format!(
            "{VIDEO_PATH} has {} bytes, not {VIDEO_LEN}; delete it and rebuild",
            expected.len()
        ));
    }
    let expected = Arc::new(expected);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("tokio runtime: {e}"))?;

    // Start every server at once (idle ones cost nothing) so rounds can interleave.
    let mut servers: Vec<Server> = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    match args
        .nginx
        .clone()
        .or_else(|| bench::procs::find_program("nginx"))
    {
        Some(nginx) => match Server::start_nginx(&nginx, MEDIA_DIR, server_cpu) {
            Ok(server) => servers.push(server),
            Err(message) => notes.push(format!(
                "nginx not measured ({}): {message}\n  install it with \
                 `apt-get install -y nginx-light` (or `nginx`)",
                nginx.display()
            )),
        },
        None => notes.push(
            "nginx not found, so no nginx column: install it with \
             `apt-get install -y nginx-light` (or `nginx`) and run again"
                .into(),
        ),
    }
    servers.push(Server::start_rust(
        "ServeDir (64 KiB reads)".into(),
        Kind::ServeDir,
        server_cpu,
        &args.server_env,
    )?);
    for &chunk in &args.chunks {
        let (name, chunk) = if chunk == DEFAULT_CHUNK_SIZE {
            (format!("ours {} (default)", size(chunk as u64)), None)
        } else {
            (format!("ours {}", size(chunk as u64)), Some(chunk))
        };
        servers.push(Server::start_rust(
            name,
            Kind::Ours { chunk },
            server_cpu,
            &args.server_env,
        )?);
    }
    for (name, whole) in [("ours, serve", false), ("ours, serve, whole", true)] {
        servers.push(Server::start_rust(
            name.into(),
            Kind::OursServe { whole },
            server_cpu,
            &args.server_env,
        )?);
    }
    servers.push(Server::start_rust(
        "ours, folder (disk mode)".into(),
        Kind::OursFolder,
        server_cpu,
        &args.server_env,
    )?);
    servers.push(Server::start_user(
        "user binary, serve",
        &bench::user::build()?,
        server_cpu,
    )?);
    for note in notes.drain(..) {
        println!("bench-disk: {note}");
    }
    let mut results: Vec<Results> = servers.iter().map(|_| Results::default()).collect();
    let total = Instant::now();

    // 1. Correctness, once per server: the whole file and a range, byte for byte.
    println!("\n== verify: whole file and Range bytes=1000000-5000000, byte for byte");
    for (server, result) in servers.iter().zip(&mut results) {
        let whole = runtime.block_on(download(Request {
            addr: server.addr,
            path: VIDEO_URL,
            range: None,
            expected: Some(expected.clone()),
            timeout: DOWNLOAD_TIMEOUT,
            discard: false,
        }));
        let range = (1_000_000, 5_000_000);
        let part = runtime.block_on(download(Request {
            addr: server.addr,
            path: VIDEO_URL,
            range: Some(range),
            expected: Some(expected.clone()),
            timeout: DOWNLOAD_TIMEOUT,
            discard: false,
        }));
        let mut verdict = Vec::new();
        for (what, outcome, status, len) in [
            ("whole", whole, 200, VIDEO_LEN),
            ("range", part, 206, range.1 - range.0 + 1),
        ] {
            match outcome.map(|d| d.problem(status, len)) {
                Ok(None) => verdict.push(format!("{what} ok")),
                Ok(Some(problem)) | Err(problem) => {
                    verdict.push(format!("{what} FAILED"));
                    result.problems.push(format!("verify {what}: {problem}"));
                }
            }
        }
        println!("  {:<24} {}", server.name, verdict.join(", "));
    }

    // 2. Memory, first round: fresh servers, N concurrent downloads each, one at a time.
    println!(
        "\n== memory: {} concurrent downloads of the {} file, one server at a time",
        args.mem_concurrency,
        size(VIDEO_LEN)
    );
    for (server, result) in servers.iter().zip(&mut results) {
        let round = memory_round(&runtime, server, args.mem_concurrency, result);
        result.mem_first = round;
    }

    // 3. Throughput: interleaved rounds, the order rotating every round.
    println!(
        "\n== throughput: {} rounds x ({} single-stream + 1 x {} concurrent) per server",
        args.rounds, args.singles, args.concurrency
    );
    for server in &servers {
        // The peak over all rounds is read after them.
        server.reset_peak();
    }
    let mut foreign_total = (0.0, 0.0);
    for round in 0..args.rounds {
        let started = Instant::now();
        let before = ours_and_machine_cpu(&servers);
        for i in 0..servers.len() {
            let index = (i + round) % servers.len();
            let server = &servers[index];
            let result = &mut results[index];
            throughput_round(&runtime, server, args, result);
        }
        let wall = started.elapsed().as_secs_f64();
        let foreign = match (before, ours_and_machine_cpu(&servers)) {
            (Some((ours0, all0)), Some((ours1, all1))) => {
                let foreign = ((all1 - all0) - (ours1 - ours0)).max(0.0);
                foreign_total.0 += foreign;
                foreign_total.1 += wall;
                format!(
                    "; other processes used {:.0}% of a CPU{}",
                    100.0 * foreign / wall,
                    if foreign / wall > NOISY {
                        " (noisy)"
                    } else {
                        ""
                    }
                )
            }
            _ => String::new(),
        };
        println!(
            "  round {}/{} done in {wall:.1} s{foreign}",
            round + 1,
            args.rounds,
        );
    }
    if foreign_total.1 > 0.0 && foreign_total.0 / foreign_total.1 > NOISY {
        notes.push(format!(
            "WARNING: other processes used {:.0}% of a CPU during the throughput rounds; \
             the figures are noisy, run again on an idle machine",
            100.0 * foreign_total.0 / foreign_total.1
        ));
    }
    for (server, result) in servers.iter().zip(&mut results) {
        result.mem_rounds_peak = server.memory().map(|(_, hwm)| hwm);
    }

    // 4. Memory, last round: does a server that has served many GB grow further?
    println!(
        "\n== memory again: {} concurrent downloads after the throughput rounds",
        args.mem_concurrency
    );
    for (server, result) in servers.iter().zip(&mut results) {
        let round = memory_round(&runtime, server, args.mem_concurrency, result);
        result.mem_last = round;
    }
    for (server, result) in servers.iter_mut().zip(&mut results) {
        if !server.alive() {
            result.problems.push("the server process died".into());
        }
    }

    if args.raw {
        println!("\n== raw samples, MB/s, in the order taken");
        for (server, result) in servers.iter().zip(&results) {
            let list = |v: &[f64]| {
                v.iter()
                    .map(|x| format!("{x:.0}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            println!("  {:<24} single: {}", server.name, list(&result.single));
            println!("  {:<24} conc:   {}", "", list(&result.concurrent));
        }
    }
    if !args.server_env.is_empty() {
        let env: Vec<String> = args
            .server_env
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        println!(
            "\nbench-disk: our server and ServeDir ran with {}",
            env.join(" ")
        );
    }
    let report = report(args, &servers, &results, pin);
    println!("{report}");
    for note in &notes {
        println!("bench-disk: {note}");
    }
    println!(
        "bench-disk: done in {:.0} s; servers stopped",
        total.elapsed().as_secs_f64()
    );
    drop(servers);
    Ok(results.iter().all(|r| r.problems.is_empty()))
}

/// CPU seconds of the servers and this process, and of the whole machine.
fn ours_and_machine_cpu(servers: &[Server]) -> Option<(f64, f64)> {
    let ours: f64 = servers
        .iter()
        .map(|server| server.cpu_seconds())
        .sum::<f64>()
        + bench::procs::cpu_seconds(std::process::id())?;
    Some((ours, bench::procs::machine_cpu_seconds()?))
}

/// The share of one CPU that processes other than ours used over `sample`.
fn foreign_load(servers: &[Server], sample: Duration) -> Option<f64> {
    let (ours0, all0) = ours_and_machine_cpu(servers)?;
    std::thread::sleep(sample);
    let (ours1, all1) = ours_and_machine_cpu(servers)?;
    Some(((all1 - all0) - (ours1 - ours0)).max(0.0) / sample.as_secs_f64())
}

/// `count` downloads at once; the aggregate MB/s, or `None` if any failed.
fn concurrent(
    runtime: &tokio::runtime::Runtime,
    server: &Server,
    count: usize,
    discard: bool,
    problems: &mut Vec<String>,
) -> Option<(u64, Duration)> {
    let started = Instant::now();
    let outcomes = runtime.block_on(async {
        let mut set = tokio::task::JoinSet::new();
        for _ in 0..count {
            set.spawn(download(Request {
                addr: server.addr,
                path: VIDEO_URL,
                range: None,
                expected: None,
                timeout: DOWNLOAD_TIMEOUT,
                discard,
            }));
        }
        let mut outcomes = Vec::with_capacity(count);
        while let Some(joined) = set.join_next().await {
            outcomes.push(joined.map_err(|e| e.to_string()).and_then(|r| r));
        }
        outcomes
    });
    let elapsed = started.elapsed();
    let mut ok = true;
    let mut bytes = 0;
    for outcome in outcomes {
        match outcome.map(|d| (d.problem(200, VIDEO_LEN), d.body_len)) {
            Ok((None, len)) => bytes += len,
            Ok((Some(problem), _)) | Err(problem) => {
                ok = false;
                problems.push(format!("{count} concurrent: {problem}"));
            }
        }
    }
    ok.then_some((bytes, elapsed))
}

fn memory_round(
    runtime: &tokio::runtime::Runtime,
    server: &Server,
    count: usize,
    result: &mut Results,
) -> Option<MemRound> {
    result.peak_reset = server.reset_peak();
    let (before, _) = server.memory()?;
    let done = concurrent(runtime, server, count, false, &mut result.problems);
    let (after, peak) = server.memory()?;
    let threads = server.threads();
    let rate = done.map_or("FAILED".into(), |(bytes, elapsed)| {
        format!("{:.0} MB/s", mb_per_s(bytes, elapsed))
    });
    println!(
        "  {:<24} RSS before {:>6} MiB, peak {:>6} MiB, after {:>6} MiB, {threads:>3} \
         threads  ({rate})",
        server.name,
        mib(before),
        mib(peak),
        mib(after)
    );
    Some(MemRound {
        before,
        peak,
        after,
        threads,
    })
}

fn throughput_round(
    runtime: &tokio::runtime::Runtime,
    server: &Server,
    args: &Args,
    result: &mut Results,
) {
    let me = std::process::id();
    let cpu = |server: &Server| {
        (
            server.cpu_seconds(),
            bench::procs::cpu_seconds(me).unwrap_or(0.0),
            Instant::now(),
        )
    };
    let add = |acc: &mut (f64, f64, f64), start: (f64, f64, Instant), end: (f64, f64, Instant)| {
        acc.0 += end.0 - start.0;
        acc.1 += end.1 - start.1;
        acc.2 += (end.2 - start.2).as_secs_f64();
    };
    let start = cpu(server);
    for _ in 0..args.singles {
        let outcome = runtime.block_on(download(Request {
            addr: server.addr,
            path: VIDEO_URL,
            range: None,
            expected: None,
            timeout: DOWNLOAD_TIMEOUT,
            discard: args.discard,
        }));
        match outcome.map(|d| (d.problem(200, VIDEO_LEN), d)) {
            Ok((None, d)) => {
                result.single.push(mb_per_s(d.body_len, d.elapsed));
                result.bytes += d.body_len;
            }
            Ok((Some(problem), _)) | Err(problem) => {
                result.problems.push(format!("single: {problem}"));
            }
        }
    }
    let middle = cpu(server);
    add(&mut result.single_cpu, start, middle);
    if let Some((bytes, elapsed)) = concurrent(
        runtime,
        server,
        args.concurrency,
        args.discard,
        &mut result.problems,
    ) {
        result.concurrent.push(mb_per_s(bytes, elapsed));
        result.bytes += bytes;
    }
    add(&mut result.concurrent_cpu, middle, cpu(server));
}

fn report(args: &Args, servers: &[Server], results: &[Results], pin: bool) -> String {
    let mut out = String::new();
    let nginx = servers
        .iter()
        .position(|s| s.kind == Kind::Nginx)
        .map(|i| &results[i]);
    let nginx_single = nginx.and_then(|r| median(&r.single));
    let nginx_conc = nginx.and_then(|r| median(&r.concurrent));
    let ratio = |value: Option<f64>, base: Option<f64>| match (value, base) {
        (Some(v), Some(b)) if b > 0.0 => format!("{:.2}x", v / b),
        _ => "-".into(),
    };
    let rate = |values: &[f64]| match median(values) {
        Some(m) => {
            let min = values.iter().copied().fold(f64::INFINITY, f64::min);
            let max = values.iter().copied().fold(0.0, f64::max);
            format!("{m:.0} [{min:.0}-{max:.0}]")
        }
        None => "FAILED".to_owned(),
    };
    let _ = writeln!(
        out,
        "\n== results: {} file from disk, medians over {} rounds (MB = 10^6 bytes){}{}",
        size(VIDEO_LEN),
        args.rounds,
        if args.discard {
            "; client drops bytes in the kernel (--discard)"
        } else {
            ""
        },
        if pin {
            "; each server on 1 core, client on another"
        } else {
            ""
        }
    );
    let _ = writeln!(
        out,
        "{:<24} {:>21} {:>8}   {:>21} {:>8}",
        "server",
        "single MB/s [min-max]",
        "x nginx",
        format!("{}-conc MB/s [min-max]", args.concurrency),
        "x nginx"
    );
    for (server, result) in servers.iter().zip(results) {
        let _ = writeln!(
            out,
            "{:<24} {:>21} {:>8}   {:>21} {:>8}",
            server.name,
            rate(&result.single),
            ratio(median(&result.single), nginx_single),
            rate(&result.concurrent),
            ratio(median(&result.concurrent), nginx_conc),
        );
    }

    let _ = writeln!(
        out,
        "\n== CPU during the throughput rounds (busy % of one core; server CPU per GB sent)"
    );
    let _ = writeln!(
        out,
        "{:<24} {:>12} {:>12} {:>12} {:>12} {:>12}",
        "server", "srv single", "srv conc", "cli single", "cli conc", "srv ms/GB"
    );
    for (server, result) in servers.iter().zip(results) {
        let busy = |cpu: f64, wall: f64| {
            if wall > 0.0 {
                format!("{:.0}%", 100.0 * cpu / wall)
            } else {
                "-".into()
            }
        };
        let (s1, c1, w1) = result.single_cpu;
        let (s2, c2, w2) = result.concurrent_cpu;
        let per_gb = if result.bytes > 0 {
            format!("{:.0}", 1000.0 * (s1 + s2) / (result.bytes as f64 / 1e9))
        } else {
            "-".into()
        };
        let _ = writeln!(
            out,
            "{:<24} {:>12} {:>12} {:>12} {:>12} {:>12}",
            server.name,
            busy(s1, w1),
            busy(s2, w2),
            busy(c1, w1),
            busy(c2, w2),
            per_gb
        );
    }

    let _ = writeln!(
        out,
        "\n== memory: RSS in MiB; {n} concurrent downloads, first on fresh servers, again \
         after the throughput rounds; budget = {n} x {CHUNKS_HELD} x chunk + {} (ours only); \
         growth = peak - idle (fresh)",
        size(MEMORY_SLACK),
        n = args.mem_concurrency
    );
    let _ = writeln!(
        out,
        "{:<24} {:>6} {:>6} {:>6} {:>6} {:>6} {:>7} {:>9} {:>6} {:>7} {:>7}",
        "server",
        "idle",
        "peak",
        "growth",
        "budget",
        "after",
        "threads",
        "rounds pk",
        "peak 2",
        "after 2",
        "growth 2"
    );
    for (server, result) in servers.iter().zip(results) {
        let budget = match server.kind {
            Kind::Ours { chunk } => Some(
                args.mem_concurrency as u64
                    * CHUNKS_HELD
                    * chunk.unwrap_or(DEFAULT_CHUNK_SIZE) as u64
                    + MEMORY_SLACK,
            ),
            _ => None,
        };
        let (first, last) = (result.mem_first, result.mem_last);
        let cell = |v: Option<u64>| v.map_or("-".into(), mib);
        let _ = writeln!(
            out,
            "{:<24} {:>6} {:>6} {:>6} {:>6} {:>6} {:>7} {:>9} {:>6} {:>7} {:>7}{}",
            server.name,
            cell(first.map(|m| m.before)),
            cell(first.map(|m| m.peak)),
            cell(first.map(|m| m.peak.saturating_sub(m.before))),
            cell(budget),
            cell(first.map(|m| m.after)),
            first.map_or("-".into(), |m| m.threads.to_string()),
            cell(result.mem_rounds_peak),
            cell(last.map(|m| m.peak)),
            cell(last.map(|m| m.after)),
            cell(
                first
                    .zip(last)
                    .map(|(f, l)| l.peak.saturating_sub(f.before))
            ),
            if result.peak_reset {
                ""
            } else {
                "  (VmHWM not resettable: peaks since start)"
            }
        );
    }
    if nginx.is_some() {
        let _ = writeln!(out, "(nginx: master + worker summed)");
    }

    // The targets, for the default chunk size.
    let ours = servers
        .iter()
        .position(|s| s.kind == Kind::Ours { chunk: None })
        .map(|i| (&servers[i], &results[i]));
    let servedir = servers
        .iter()
        .position(|s| s.kind == Kind::ServeDir)
        .map(|i| &results[i]);
    if let Some((server, result)) = ours {
        let _ = writeln!(out, "\n== targets for {}", server.name);
        let verdict = |ok: bool| if ok { "PASS" } else { "MISS" };
        let single = median(&result.single);
        let conc = median(&result.concurrent);
        for (what, value, base, target) in [
            ("single-stream", single, nginx_single, TARGET_SINGLE),
            ("concurrent", conc, nginx_conc, TARGET_CONCURRENT),
        ] {
            if let (Some(v), Some(b)) = (value, base) {
                let r = v / b;
                let _ = writeln!(
                    out,
                    "{} {what} >= {target}x nginx: {r:.2}x",
                    verdict(r >= target)
                );
            }
        }
        if let Some(sd) = servedir {
            for (what, value, base) in [
                ("single-stream", single, median(&sd.single)),
                ("concurrent", conc, median(&sd.concurrent)),
            ] {
                if let (Some(v), Some(b)) = (value, base) {
                    let _ = writeln!(
                        out,
                        "{} {what} ahead of ServeDir by >= 10%: {:.2}x",
                        verdict(v > b * 1.1),
                        v / b
                    );
                }
            }
        }
        let budget =
            args.mem_concurrency as u64 * CHUNKS_HELD * DEFAULT_CHUNK_SIZE as u64 + MEMORY_SLACK;
        let idle = result.mem_first.map(|m| m.before);
        for (what, round) in [
            ("fresh server", result.mem_first),
            ("after the rounds", result.mem_last),
        ] {
            if let (Some(m), Some(idle)) = (round, idle) {
                let growth = m.peak.saturating_sub(idle);
                let _ = writeln!(
                    out,
                    "{} memory ({what}): {} concurrent: peak RSS {} MiB over the fresh idle \
                     RSS, budget {} MiB",
                    verdict(growth <= budget),
                    args.mem_concurrency,
                    mib(growth),
                    mib(budget)
                );
            }
        }
    }

    // The library's own server: at least nginx's throughput, at most 1.2x its CPU per GB.
    let per_gb = |result: &Results| {
        let cpu = result.single_cpu.0 + result.concurrent_cpu.0;
        (result.bytes > 0).then(|| 1000.0 * cpu / (result.bytes as f64 / 1e9))
    };
    for (i, server) in servers.iter().enumerate() {
        let (Kind::OursServe { .. } | Kind::OursFolder | Kind::User, Some(nginx)) =
            (server.kind, nginx)
        else {
            continue;
        };
        let result = &results[i];
        let _ = writeln!(out, "\n== targets for {}", server.name);
        let verdict = |ok: bool| if ok { "PASS" } else { "MISS" };
        for (what, value, base) in [
            ("single-stream", median(&result.single), nginx_single),
            ("concurrent", median(&result.concurrent), nginx_conc),
        ] {
            if let (Some(v), Some(b)) = (value, base) {
                let r = v / b;
                let _ = writeln!(out, "{} {what} >= 1.0x nginx: {r:.2}x", verdict(r >= 1.0));
            }
        }
        if let (Some(v), Some(b)) = (per_gb(result), per_gb(nginx)) {
            let r = v / b;
            let _ = writeln!(
                out,
                "{} CPU per GB <= 1.2x nginx's: {v:.0} vs {b:.0} ms/GB, {r:.2}x",
                verdict(r <= 1.2)
            );
        }
    }

    let mut any = false;
    for (server, result) in servers.iter().zip(results) {
        for problem in &result.problems {
            if !any {
                let _ = writeln!(out, "\n== PROBLEMS");
                any = true;
            }
            let _ = writeln!(out, "{}: {problem}", server.name);
        }
    }
    if !any {
        let _ = writeln!(
            out,
            "\nevery download: right status, exactly {} bytes (verified byte for byte once per \
             server)",
            VIDEO_LEN
        );
    }
    out
}
