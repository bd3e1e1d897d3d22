//! A soak run, not a comparison: `embed-assets` serving the bench site (embedded) and
//! the 64 MiB video (on disk, under `/media/`) in one server process, while `wrk`
//! keeps 256 keep-alive connections busy on the embedded files (a Lua script rotates
//! the URL and the `Accept-Encoding`) and 16 clients download the video in loops,
//! each download byte-compared with the file. It reports errors, non-2xx/3xx answers,
//! short or wrong downloads, wrk's latency percentiles, the server's RSS each second
//! (first 10 s against last 10 s) and its open file descriptors before and after.
//!
//! ```text
//! cargo run --release --manifest-path bench/Cargo.toml --bin bench-load [-- --seconds 30 --connections 256 --downloads 16]
//! ```
//!
//! The exit status is 1 if any request failed, any download was short or wrong, or
//! descriptors were left open.

use std::io::{Read, Write};
use std::process::{Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bench::child::ChildServer;
use bench::procs::{find_program, median};
use bench::{MEDIA, VIDEO_LEN, VIDEO_PATH, VIDEO_URL};

use bench::download as client;

const USAGE: &str = "usage: bench-load [--seconds N] [--connections N] [--downloads N] [--wrk PATH]
       bench-load serve   (the server; started by bench-load itself)";

/// The embedded files wrk rotates through.
const PATHS: [&str; 5] = [
    "/index.html",
    "/favicon.ico",
    "/css/app.css",
    "/js/app.js",
    "/img/logo.png",
];

/// Where the video is mounted next to the site.
const MEDIA_MOUNT: &str = "/media";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("serve") {
        return serve();
    }
    let mut seconds = 30u64;
    let mut connections = 256usize;
    let mut downloads = 16usize;
    let mut wrk = None;
    let mut it = args.into_iter();
    while let Some(arg) = it.next() {
        let mut value = || it.next().unwrap_or_default();
        let parsed = match arg.as_str() {
            "--seconds" => value().parse().map(|v| seconds = v).is_ok(),
            "--connections" => value().parse().map(|v| connections = v).is_ok(),
            "--downloads" => value().parse().map(|v| downloads = v).is_ok(),
            "--wrk" => {
                wrk = Some(value().into());
                true
            }
            _ => false,
        };
        if !parsed {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    }
    let Some(wrk) = wrk.or_else(|| find_program("wrk")) else {
        eprintln!("bench-load: wrk not found; install it with `apt-get install -y wrk`");
        return ExitCode::FAILURE;
    };
    match run(&wrk, seconds.max(20), connections, downloads) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(message) => {
            eprintln!("bench-load: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The server: the bench site embedded (`bench::site::SITE`, as `bench-static` serves
/// it) and `MEDIA` (the video on disk, default chunk size) under `/media/`.
fn serve() -> ExitCode {
    std::thread::spawn(|| {
        let mut sink = [0u8; 64];
        while matches!(std::io::stdin().read(&mut sink), Ok(n) if n > 0) {}
        std::process::exit(0);
    });
    let media = MEDIA.service();
    if let Err(err) = media.check_disk() {
        eprintln!("bench-load serve: {err}");
        return ExitCode::FAILURE;
    }
    let app = bench::site::app(bench::site::Mode::Ours).nest_service(MEDIA_MOUNT, media);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("bench-load serve: {err}");
            return ExitCode::FAILURE;
        }
    };
    let served: std::io::Result<()> = runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let mut out = std::io::stdout().lock();
        writeln!(out, "listening on {}", listener.local_addr()?)?;
        out.flush()?;
        drop(out);
        axum::serve(listener, app).await
    });
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("bench-load serve: {err}");
            ExitCode::FAILURE
        }
    }
}

/// Starts `bench-load serve` (this same executable); stopped when dropped.
fn start_server() -> Result<ChildServer, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut command = Command::new(exe);
    command.arg("serve");
    ChildServer::start_listening("bench-load serve".into(), command)
}

fn rss_mib(pid: u32) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let kib: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    Some(kib / 1024.0)
}

fn open_fds(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd")).map_or(0, |dir| dir.count())
}

/// The Lua script: every request takes the next path, and every round of paths the
/// next `Accept-Encoding` (br and gzip, gzip, identity, br).
fn lua_script() -> String {
    let paths: Vec<String> = PATHS.iter().map(|p| format!("\"{p}\"")).collect();
    format!(
        "local paths = {{{}}}\n\
         local encodings = {{\"br, gzip\", \"gzip\", \"identity\", \"br\"}}\n\
         local i = 0\n\
         request = function()\n\
         \x20 i = i + 1\n\
         \x20 local path = paths[(i % #paths) + 1]\n\
         \x20 local coding = encodings[(math.floor(i / #paths) % #encodings) + 1]\n\
         \x20 return wrk.format(\"GET\", path, {{[\"Accept-Encoding\"] = coding}})\n\
         end\n",
        paths.join(", ")
    )
}

/// Download tallies over the whole run.
#[derive(Debug, Default)]
struct Tally {
    complete: AtomicU64,
    short: AtomicU64,
    wrong: AtomicU64,
    failed: AtomicU64,
    bytes: AtomicU64,
}

fn run(
    wrk: &std::path::Path,
    seconds: u64,
    connections: usize,
    downloads: usize,
) -> Result<bool, String> {
    let video = Arc::new(std::fs::read(VIDEO_PATH).map_err(|e| format!("{VIDEO_PATH}: {e}"))?);
    if video.len() as u64 != VIDEO_LEN {
        return Err(format!(
            "{VIDEO_PATH} is {} bytes, not {VIDEO_LEN}",
            video.len()
        ));
    }
    let server = start_server()?;
    let (addr, pid) = (server.addr, server.pid());
    let media_url: &'static str = Box::leak(format!("{MEDIA_MOUNT}{VIDEO_URL}").into_boxed_str());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let request = |expected: Option<Arc<Vec<u8>>>| client::Request {
        addr,
        path: media_url,
        range: None,
        expected,
        timeout: Duration::from_secs(120),
        discard: false,
    };

    // Warm up: every URL once, one download; then the descriptors at rest.
    let warm = runtime.block_on(client::download(request(Some(video.clone()))))?;
    if let Some(problem) = warm.problem(200, VIDEO_LEN) {
        return Err(format!("warm-up download: {problem}"));
    }
    std::thread::sleep(Duration::from_millis(500));
    let fds_before = open_fds(pid);
    let rss_before = rss_mib(pid).unwrap_or(0.0);

    let script = std::env::temp_dir().join(format!("bench-load-{}.lua", std::process::id()));
    std::fs::write(&script, lua_script()).map_err(|e| e.to_string())?;
    println!(
        "bench-load: server pid {pid} on {addr}; wrk -t2 -c{connections} -d{seconds}s over {} \
         embedded files, {downloads} concurrent downloads of {media_url} ({} MiB, on disk)",
        PATHS.len(),
        VIDEO_LEN >> 20
    );
    let wrk_child = Command::new(wrk)
        .arg("-t2")
        .arg(format!("-c{connections}"))
        .arg(format!("-d{seconds}s"))
        .args(["--timeout", "10s", "--latency", "-s"])
        .arg(&script)
        .arg(format!("http://{addr}/"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("start wrk: {e}"))?;

    // Downloads in loops until wrk's time is up.
    let stop = Arc::new(AtomicBool::new(false));
    let tally = Arc::new(Tally::default());
    let mut problems: Vec<String> = Vec::new();
    let download_tasks: Vec<_> = (0..downloads)
        .map(|_| {
            let (stop, tally, video) = (stop.clone(), tally.clone(), video.clone());
            let request = request(Some(video));
            runtime.spawn(async move {
                let (mut seen, mut times) = (Vec::new(), Vec::new());
                while !stop.load(Ordering::Relaxed) {
                    match client::download(request.clone()).await {
                        Ok(download) => {
                            tally.bytes.fetch_add(download.body_len, Ordering::Relaxed);
                            times.push(download.elapsed.as_secs_f64());
                            match download.problem(200, VIDEO_LEN) {
                                None => tally.complete.fetch_add(1, Ordering::Relaxed),
                                Some(problem) if download.body_len < VIDEO_LEN => {
                                    seen.push(problem);
                                    tally.short.fetch_add(1, Ordering::Relaxed)
                                }
                                Some(problem) => {
                                    seen.push(problem);
                                    tally.wrong.fetch_add(1, Ordering::Relaxed)
                                }
                            };
                        }
                        Err(err) => {
                            seen.push(err);
                            tally.failed.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
                (seen, times)
            })
        })
        .collect();

    // RSS once a second while the load runs.
    let started = Instant::now();
    let mut rss = Vec::new();
    while started.elapsed() < Duration::from_secs(seconds) {
        std::thread::sleep(Duration::from_secs(1));
        if let Some(mib) = rss_mib(pid) {
            rss.push(mib);
        }
    }
    stop.store(true, Ordering::Relaxed);
    let output = wrk_child.wait_with_output().map_err(|e| e.to_string())?;
    let elapsed = started.elapsed();
    let mut times = Vec::new();
    for task in download_tasks {
        let (seen, took) = runtime.block_on(task).map_err(|e| e.to_string())?;
        problems.extend(seen);
        times.extend(took);
    }
    let _ = std::fs::remove_file(&script);
    let wrk_text = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        return Err(format!(
            "wrk failed: {}{}",
            wrk_text,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let figures = bench::wrk::parse(&wrk_text)
        .ok_or_else(|| format!("cannot read wrk's output:\n{wrk_text}"))?;

    // Idle connections are closed by now; give the server a moment to drop them.
    let mut fds_after = open_fds(pid);
    for _ in 0..50 {
        if fds_after <= fds_before {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
        fds_after = open_fds(pid);
    }
    let rss_after = rss_mib(pid).unwrap_or(0.0);

    let mean = |xs: &[f64]| xs.iter().sum::<f64>() / xs.len().max(1) as f64;
    let window = 10.min(rss.len() / 2);
    let first = mean(&rss[..window]);
    let last = mean(&rss[rss.len() - window..]);
    let peak = rss.iter().copied().fold(0.0, f64::max);
    let growth = last - first;
    let grew = growth > 8.0 && growth > first * 0.10;
    let complete = tally.complete.load(Ordering::Relaxed);
    let (short, wrong, failed) = (
        tally.short.load(Ordering::Relaxed),
        tally.wrong.load(Ordering::Relaxed),
        tally.failed.load(Ordering::Relaxed),
    );
    let download_mb = tally.bytes.load(Ordering::Relaxed) as f64 / 1e6;

    println!();
    println!(
        "embedded (wrk): {} requests, {:.0} req/s, non-2xx/3xx {}, socket errors {}",
        figures.requests, figures.per_second, figures.bad_status, figures.socket_errors
    );
    println!(
        "  latency p50 {}, p99 {}, max {}",
        figures.latency.p50, figures.latency.p99, figures.latency.max
    );
    println!(
        "on-disk downloads: {complete} complete and byte-exact, {short} short, {wrong} wrong, \
         {failed} failed; {download_mb:.0} MB in {:.1} s ({:.0} MB/s)",
        elapsed.as_secs_f64(),
        download_mb / elapsed.as_secs_f64()
    );
    println!(
        "  per download: median {:.2} s, max {:.2} s",
        median(&times).unwrap_or(0.0),
        times.iter().copied().fold(0.0, f64::max)
    );
    for problem in problems.iter().take(5) {
        println!("  problem: {problem}");
    }
    println!(
        "server RSS: {rss_before:.1} MiB before, first {window} s avg {first:.1} MiB, last \
         {window} s avg {last:.1} MiB ({growth:+.1} MiB{}), peak {peak:.1} MiB, after {rss_after:.1} MiB",
        if grew { ", GROWTH FLAGGED" } else { "" }
    );
    println!(
        "  RSS per second: {}",
        rss.iter()
            .map(|m| format!("{m:.0}"))
            .collect::<Vec<_>>()
            .join(" ")
    );
    println!("server open fds: {fds_before} before, {fds_after} after");
    let clean = figures.requests > 0
        && figures.bad_status == 0
        && figures.socket_errors == 0
        && complete > 0
        && short + wrong + failed == 0
        && fds_after <= fds_before;
    println!(
        "{}",
        if clean {
            "PASS: no errors, no short or wrong downloads, no descriptors left open"
        } else {
            "FAIL: see above"
        }
    );
    if grew {
        println!("note: RSS grew by more than 10% between the first and last {window} s");
    }
    Ok(clean)
}
