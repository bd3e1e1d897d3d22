//! `cargo run --release --manifest-path bench/Cargo.toml --bin bench-cache`: the folder
//! mode's cache (`ServeAssets::folder(..).cache_size(..)`) under a Zipf-like mix of
//! requests over a folder about twice the cache: how many requests it answers without
//! reading the file again (hit rate) and how many per second, under
//! `embed_assets::Server` (one worker pinned to CPU 0, wrk on CPU 1). See
//! `bench/README.md`.
//!
//! A request that misses opens its file (`openat`); a hit looks at the file's metadata
//! only. So the hit rate is `1 - openat / requests`, the calls counted by
//! `perf stat -e syscalls:sys_enter_openat` on the server while wrk runs (a kernel
//! tracepoint counter: the server runs at its own speed). A first row with a cache
//! four times the folder checks that method (every request there must be a hit) and
//! shows what a hit costs.
//!
//! `--against PATH` runs a second `bench-cache` binary (built from another commit of
//! the library) as a second server in the same rounds, interleaved, for a before and
//! after in one run.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::time::Duration;

use bench::child::ChildServer;
use bench::procs::{find_program, median, pinned, thousands};
use bench::wrk::{self, Load};

const USAGE: &str = "\
usage: bench-cache [--rounds N] [--seconds S] [--cache MIB] [--exponent X]
                   [--against PATH] [--wrk PATH] [--perf PATH]
       bench-cache serve FOLDER CACHE_BYTES

  --rounds N      interleaved rounds; the table shows medians (default 3)
  --seconds S     length of each wrk run (default 10; a warm-up of the same length
                  runs first for each server)
  --cache MIB     the cache's size; the folder holds about twice as many bytes in
                  files of 1 to 64 KiB (log-uniform) (default 32)
  --exponent X    the Zipf exponent s: the file of rank k is asked for in proportion
                  to 1/k^s (default 1.0)
  --against PATH  also run PATH (a bench-cache binary built from another commit) as
                  a second server in the same rounds
  --wrk PATH      the wrk binary (default: wrk on PATH)
  --perf PATH     the perf binary (default: perf on PATH; Debian's linux-perf)

serve: the server alone: `ServeAssets::folder(FOLDER).cache_size(CACHE_BYTES)` under
`embed_assets::Server` with one worker on 127.0.0.1, printing `listening on ADDR`.";

/// The smallest and largest file, in bytes.
const SIZES: (f64, f64) = (1024.0, 65536.0);
/// wrk's open connections.
const CONNECTIONS: usize = 32;

struct Args {
    rounds: usize,
    seconds: u64,
    cache: u64,
    exponent: f64,
    against: Option<PathBuf>,
    wrk: PathBuf,
    perf: PathBuf,
}

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let outcome = if argv.first().map(String::as_str) == Some("serve") {
        serve(&argv[1..])
    } else {
        parse(argv).and_then(|args| args.map_or(Ok(()), |args| run(&args)))
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("bench-cache: {message}");
            ExitCode::FAILURE
        }
    }
}

fn serve(argv: &[String]) -> Result<(), String> {
    let [folder, cache] = argv else {
        return Err(format!("serve takes a folder and a size\n{USAGE}"));
    };
    let cache: u64 = cache
        .parse()
        .map_err(|_| format!("`{cache}` is not a size"))?;
    let service = embed_assets::ServeAssets::folder(folder).cache_size(cache);
    let server = embed_assets::Server::bind("127.0.0.1:0")
        .map_err(|e| e.to_string())?
        .workers(1);
    println!("listening on {}", server.local_addr());
    server
        .serve(service, axum::Router::new())
        .map_err(|e| e.to_string())
}

fn parse(argv: Vec<String>) -> Result<Option<Args>, String> {
    let mut args = Args {
        rounds: 3,
        seconds: 10,
        cache: 32 << 20,
        exponent: 1.0,
        against: None,
        wrk: find_program("wrk").unwrap_or_else(|| "wrk".into()),
        perf: find_program("perf").unwrap_or_else(|| "perf".into()),
    };
    let mut argv = argv.into_iter();
    while let Some(arg) = argv.next() {
        let mut value = || {
            argv.next()
                .ok_or_else(|| format!("{arg} needs a value\n{USAGE}"))
        };
        match arg.as_str() {
            "--rounds" => args.rounds = bench::whole_number(&value()?, 1, 100)? as usize,
            "--seconds" => args.seconds = bench::whole_number(&value()?, 1, 600)?,
            "--cache" => args.cache = bench::whole_number(&value()?, 1, 4096)? << 20,
            "--exponent" => {
                let text = value()?;
                args.exponent = text
                    .parse()
                    .ok()
                    .filter(|x: &f64| (0.1..=3.0).contains(x))
                    .ok_or_else(|| format!("--exponent {text}: a number from 0.1 to 3"))?;
            }
            "--against" => args.against = Some(value()?.into()),
            "--wrk" => args.wrk = value()?.into(),
            "--perf" => args.perf = value()?.into(),
            "--help" | "-h" => {
                println!("{USAGE}");
                return Ok(None);
            }
            other => return Err(format!("unknown argument `{other}`\n{USAGE}")),
        }
    }
    Ok(Some(args))
}

/// xorshift64*: the same folder and the same order of popularity every run.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// In `[0, 1)`.
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The folder: files of 1 to 64 KiB until they hold `total` bytes. Returns each file's
/// URL and size, in order of popularity (a shuffle of the file names, so the popular
/// ones are spread over every part of the folder and of any table kept in name order).
fn write_folder(root: &Path, total: u64) -> Result<Vec<(String, u64)>, String> {
    let mut random = Random(0x9E37_79B9_7F4A_7C15);
    let mut files = Vec::new();
    let mut written = 0;
    while written < total {
        let size = (SIZES.0 * (SIZES.1 / SIZES.0).powf(random.unit())) as u64;
        let index = files.len();
        let url = format!("/f{}/{index:05}.js", index % 16);
        let path = root.join(&url[1..]);
        fs::create_dir_all(path.parent().unwrap_or(root)).map_err(|e| e.to_string())?;
        let line = format!("console.log({index});\n");
        let body: String = line.repeat(size as usize / line.len() + 1);
        fs::write(&path, &body.as_bytes()[..size as usize])
            .map_err(|e| format!("{}: {e}", path.display()))?;
        files.push((url, size));
        written += size;
    }
    for i in (1..files.len()).rev() {
        files.swap(i, (random.next() % (i as u64 + 1)) as usize);
    }
    Ok(files)
}

/// wrk's script: each request for the file of rank k with probability proportional
/// to 1/k^s (inverse transform over the cumulative weights, by bisection).
fn zipf_script(files: &[(String, u64)], exponent: f64) -> String {
    let weights: Vec<f64> = (1..=files.len())
        .map(|rank| 1.0 / (rank as f64).powf(exponent))
        .collect();
    let sum: f64 = weights.iter().sum();
    let mut script = String::from("local paths = {\n");
    for (url, _) in files {
        let _ = writeln!(script, "  {url:?},");
    }
    script.push_str("}\nlocal cdf = {\n");
    let mut cumulative = 0.0;
    for weight in &weights {
        cumulative += weight / sum;
        let _ = writeln!(script, "  {cumulative:.12},");
    }
    script.push_str(
        "}\n\
         cdf[#cdf] = 1.0\n\
         math.randomseed(20261206)\n\
         request = function()\n\
         \x20 local u = math.random()\n\
         \x20 local lo, hi = 1, #cdf\n\
         \x20 while lo < hi do\n\
         \x20   local mid = math.floor((lo + hi) / 2)\n\
         \x20   if cdf[mid] < u then lo = mid + 1 else hi = mid end\n\
         \x20 end\n\
         \x20 return wrk.format(\"GET\", paths[lo])\n\
         end\n",
    );
    script
}

/// The share of requests a cache of `cache` bytes could answer at best under this mix
/// holding whole files by their bytes alone: the most popular files that fit.
fn best_hit_rate(files: &[(String, u64)], exponent: f64, cache: u64) -> f64 {
    let weights: Vec<f64> = (1..=files.len())
        .map(|rank| 1.0 / (rank as f64).powf(exponent))
        .collect();
    let sum: f64 = weights.iter().sum();
    let mut room = cache;
    let mut hits = 0.0;
    for ((_, size), weight) in files.iter().zip(&weights) {
        if *size <= room {
            room -= size;
            hits += weight / sum;
        }
    }
    hits
}

/// A `perf stat` counting the server's `openat` calls until [`Counter::finish`].
struct Counter {
    child: Child,
    out: PathBuf,
}

impl Counter {
    fn attach(perf: &Path, pid: u32, tag: &str) -> Result<Counter, String> {
        let out =
            std::env::temp_dir().join(format!("bench-cache-{}-{tag}.csv", std::process::id()));
        let child = Command::new(perf)
            .args(["stat", "-x", ",", "-e", "syscalls:sys_enter_openat", "-o"])
            .arg(&out)
            .args(["-p", &pid.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| {
                format!(
                    "start {}: {e} (Debian: apt-get install linux-perf)",
                    perf.display()
                )
            })?;
        std::thread::sleep(Duration::from_millis(300));
        Ok(Counter { child, out })
    }

    fn finish(self) -> Result<u64, String> {
        let _ = Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status();
        let output = self.child.wait_with_output().map_err(|e| e.to_string())?;
        let text = fs::read_to_string(&self.out).unwrap_or_default();
        let _ = fs::remove_file(&self.out);
        text.lines()
            .find(|line| line.contains("sys_enter_openat"))
            .and_then(|line| line.split(',').next()?.trim().parse().ok())
            .ok_or_else(|| {
                format!(
                    "perf counted no openat (is the tracepoint readable? run as root): {}{}",
                    text.trim(),
                    String::from_utf8_lossy(&output.stderr).trim()
                )
            })
    }
}

/// One server's samples.
struct Row {
    name: String,
    server: ChildServer,
    per_second: Vec<f64>,
    hit_rate: Vec<f64>,
}

fn measure(args: &Args, row: &mut Row, script: &Path) -> Result<(), String> {
    let load = Load {
        connections: CONNECTIONS,
        seconds: args.seconds,
        cpu: Some(1),
        pipeline: 1,
    };
    let counter = Counter::attach(&args.perf, row.server.pid(), "round")?;
    let outcome = wrk::run_script(&args.wrk, &load, row.server.addr, script);
    let opens = counter.finish()?;
    let outcome = outcome?;
    if outcome.bad_status > 0 || outcome.socket_errors > 0 || outcome.requests == 0 {
        return Err(format!(
            "{}: {} bad statuses, {} socket errors in {} responses",
            row.name, outcome.bad_status, outcome.socket_errors, outcome.requests
        ));
    }
    row.per_second.push(outcome.per_second);
    row.hit_rate
        .push(1.0 - (opens as f64 / outcome.requests as f64).min(1.0));
    Ok(())
}

fn start(name: &str, exe: &Path, folder: &Path, cache: u64) -> Result<ChildServer, String> {
    let mut command = pinned(Some(0), exe);
    command.arg("serve").arg(folder).arg(cache.to_string());
    ChildServer::start_listening(name.to_owned(), command)
}

fn run(args: &Args) -> Result<(), String> {
    let root = std::env::temp_dir().join(format!("bench-cache-{}", std::process::id()));
    let _ = fs::remove_dir_all(&root);
    let outcome = run_in(args, &root);
    let _ = fs::remove_dir_all(&root);
    outcome
}

fn run_in(args: &Args, root: &Path) -> Result<(), String> {
    let files = write_folder(root, 2 * args.cache)?;
    let total: u64 = files.iter().map(|(_, size)| size).sum();
    let script = root.join("zipf.lua");
    fs::write(&script, zipf_script(&files, args.exponent)).map_err(|e| e.to_string())?;
    println!(
        "folder: {} files, {:.1} MiB; cache {} MiB; Zipf s = {}; {CONNECTIONS} connections, \
         {} s per run, {} rounds",
        files.len(),
        total as f64 / f64::from(1 << 20),
        args.cache >> 20,
        args.exponent,
        args.seconds,
        args.rounds
    );
    let this = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut builds = vec![("this build".to_owned(), this)];
    if let Some(other) = &args.against {
        builds.push((format!("against {}", other.display()), other.clone()));
    }
    let mut rows = Vec::new();
    for (name, exe) in &builds {
        // The method's check: a cache larger than the folder answers every request
        // but each file's first from memory (4x: a kept body may count twice, with its
        // sealed copy, and its fields beside it).
        rows.push(Row {
            name: format!("{name}, cache 4x the folder"),
            server: start(name, exe, root, 4 * total)?,
            per_second: Vec::new(),
            hit_rate: Vec::new(),
        });
        rows.push(Row {
            name: format!("{name}, cache {} MiB", args.cache >> 20),
            server: start(name, exe, root, args.cache)?,
            per_second: Vec::new(),
            hit_rate: Vec::new(),
        });
    }
    // Warm-up: each server's cache fills (and settles) before anything counts.
    for row in &mut rows {
        measure(args, row, &script)?;
        row.per_second.clear();
        row.hit_rate.clear();
    }
    for round in 0..args.rounds {
        let count = rows.len();
        for i in 0..count {
            let row = &mut rows[(round + i) % count];
            measure(args, row, &script)?;
        }
    }
    println!(
        "best possible with the cache's bytes holding the most asked-for files: {:.1}% \
         (a cache 4x the folder: 100%)",
        100.0 * best_hit_rate(&files, args.exponent, args.cache)
    );
    println!("| server | hit rate | requests/s |");
    println!("|---|---:|---:|");
    for row in &rows {
        println!(
            "| {} | {:.1}% | {} |",
            row.name,
            100.0 * median(&row.hit_rate).unwrap_or(0.0),
            thousands(median(&row.per_second).unwrap_or(0.0))
        );
    }
    Ok(())
}
