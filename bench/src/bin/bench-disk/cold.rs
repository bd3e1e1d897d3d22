//! `bench-disk cold`: the workload of a video site, where the disk decides. Many
//! concurrent downloads of different large files that are not in the page cache:
//! each file is evicted (`posix_fadvise(POSIX_FADV_DONTNEED)`) before every run, so
//! every byte comes from the disk. Measured side by side, in one run: nginx with
//! `sendfile on`, nginx with the settings tuned for this workload (`aio threads;
//! directio 512; output_buffers 1 8m;`), our service at its default chunk size and
//! at 4 MiB, and tower-http's `ServeDir`.
//!
//! For each server and concurrency: aggregate MB/s, the disk's read requests and
//! bytes read per GB served (`/proc/diskstats` of the folder's device), the server's
//! CPU time per GB, and its peak RSS.

use std::ffi::OsStr;
use std::fs;
use std::io::Write as _;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bench::download::{download, Request};
use bench::procs::median;
use bench::COLD_FILES;

use crate::procs::{Kind, Server, NGINX_SENDFILE};

const USAGE: &str = "\
usage: bench-disk cold [--files N] [--size 256M] [--rounds N] [--concurrency 8,32]
                       [--dir PATH] [--no-pin] [--nginx PATH]

  --files N          distinct files, 1 to 32 (default 32); a download of each at most
                     per run, so concurrency over N reuses files
  --size SIZE        bytes per file (default 256M; written once, kept for later runs)
  --rounds N         rounds; the table shows medians (default 3)
  --concurrency LIST downloads at once (default 8,32)
  --dir PATH         where the files are written (default: a folder under the system
                     temp folder); it must be on a real disk for the figures to mean
                     anything, not on tmpfs
  --no-pin           do not pin servers to CPU 0 and the client to CPU 1
  --nginx PATH       the nginx binary (default: nginx on PATH or in /usr/sbin)";

/// nginx as the seed article tuned it for large files on a busy disk: reads of
/// files over 512 bytes bypass the page cache (`O_DIRECT`) into one 8 MiB buffer per
/// request, on nginx's thread pool. The article wrote `aio on` (Linux native AIO),
/// which needs an nginx built `--with-file-aio`; Debian's is not, and `aio threads`
/// is the same reads on threads.
const NGINX_DIRECTIO: &str = "\x20   sendfile off;\n\
                              \x20   aio threads;\n\
                              \x20   directio 512;\n\
                              \x20   output_buffers 1 8m;\n";

/// Longest any one download may take.
const DOWNLOAD_TIMEOUT: Duration = Duration::from_secs(600);

struct Args {
    files: usize,
    size: u64,
    rounds: usize,
    concurrency: Vec<usize>,
    dir: PathBuf,
    pin: bool,
    nginx: Option<PathBuf>,
}

/// One server's figures for one run.
#[derive(Debug, Clone, Copy, Default)]
struct Sample {
    mb_per_s: f64,
    reads_per_gb: f64,
    mb_read_per_gb: f64,
    cpu_ms_per_gb: f64,
    peak_rss: u64,
}

pub(crate) fn main(argv: Vec<String>) -> ExitCode {
    bench::driver::main("bench-disk cold", USAGE, parse(argv), run)
}

fn parse(argv: Vec<String>) -> Result<Option<Args>, String> {
    let mut args = Args {
        files: COLD_FILES,
        size: 256 << 20,
        rounds: 3,
        concurrency: vec![8, 32],
        dir: std::env::temp_dir().join("bench-disk-cold"),
        pin: true,
        nginx: None,
    };
    let mut argv = argv.into_iter();
    while let Some(arg) = argv.next() {
        let mut value = || argv.next().ok_or_else(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--files" => {
                args.files = bench::whole_number(&value()?, 1, COLD_FILES as u64)? as usize
            }
            "--size" => args.size = file_size(&value()?)?,
            "--rounds" => args.rounds = bench::whole_number(&value()?, 1, 100)? as usize,
            "--concurrency" => {
                args.concurrency = value()?
                    .split(',')
                    .map(|n| bench::whole_number(n, 1, 256).map(|n| n as usize))
                    .collect::<Result<_, _>>()?
            }
            "--dir" => args.dir = value()?.into(),
            "--no-pin" => args.pin = false,
            "--nginx" => args.nginx = Some(value()?.into()),
            "-h" | "--help" => return Ok(None),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(Some(args))
}

/// `268435456`, `256M`, `1G` (MiB and GiB), from 1 MiB to 64 GiB, whole 8-byte words.
fn file_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let (digits, unit) = t.split_at(t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len()));
    let scale: u64 = match unit.to_ascii_lowercase().as_str() {
        "" => 1,
        "m" | "mib" => 1 << 20,
        "g" | "gib" => 1 << 30,
        _ => return Err(format!("bad size `{text}` (e.g. 256M, 1G)")),
    };
    match digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
    {
        Some(n) if ((1 << 20)..=(64 << 30)).contains(&n) && n % 8 == 0 => Ok(n),
        _ => Err(format!("bad size `{text}` (1 MiB to 64 GiB)")),
    }
}

fn run(args: &Args) -> Result<bool, String> {
    let cpus = std::thread::available_parallelism().map_or(1, usize::from);
    let pin = args.pin && cpus >= 2 && bench::procs::have_taskset();
    let server_cpu = if pin { Some(0) } else { None };
    if pin {
        bench::procs::pin_self(1)?;
    }
    prepare(&args.dir, args.files, args.size)?;
    let device = device_of(&args.dir)?;
    println!(
        "bench-disk cold: {} files of {} MiB in {} (device {}:{}), {} round(s), \
         concurrency {:?}; servers {}",
        args.files,
        args.size >> 20,
        args.dir.display(),
        device.0,
        device.1,
        args.rounds,
        args.concurrency,
        if pin {
            "pinned to CPU 0, the client to CPU 1"
        } else {
            "and client sharing the CPUs"
        }
    );
    let dir = args
        .dir
        .to_str()
        .ok_or_else(|| format!("{}: not UTF-8", args.dir.display()))?;

    let mut servers: Vec<Server> = Vec::new();
    match args
        .nginx
        .clone()
        .or_else(|| bench::procs::find_program("nginx"))
    {
        Some(nginx) => {
            servers.push(Server::start_nginx_with(
                &nginx,
                dir,
                server_cpu,
                "nginx (sendfile)",
                NGINX_SENDFILE,
                "bench-cold-sendfile",
            )?);
            servers.push(Server::start_nginx_with(
                &nginx,
                dir,
                server_cpu,
                "nginx (aio, directio)",
                NGINX_DIRECTIO,
                "bench-cold-directio",
            )?);
        }
        None => println!(
            "bench-disk cold: nginx not found, so no nginx rows: `apt-get install -y \
             nginx-light`"
        ),
    }
    let cold = OsStr::new("--cold");
    let folder = args.dir.as_os_str();
    // The default read budget (32 MiB) holds two 1 MiB chunks (the one being sent and
    // the one read ahead) for 16 downloads; 32 at once need twice that, so the last row
    // doubles it to show what the budget costs at that concurrency.
    let doubled = format!("{}", 2 * embed_assets::ServeAssets::DEFAULT_READ_BUDGET);
    let budget = [OsStr::new("--read-budget"), OsStr::new(&doubled)];
    for (name, chunk, extra) in [
        ("ours 1 MiB (default)", None, &[][..]),
        ("ours 4 MiB", Some(4 << 20), &[][..]),
        ("ours, 64 MiB read budget", None, &budget[..]),
    ] {
        let mut server_args = vec![cold, folder];
        server_args.extend_from_slice(extra);
        servers.push(Server::start_rust_with(
            name.to_owned(),
            Kind::Ours { chunk },
            server_cpu,
            &[],
            &server_args,
        )?);
    }
    for (name, whole) in [("ours, serve", false), ("ours, serve, whole", true)] {
        servers.push(Server::start_rust_with(
            name.into(),
            Kind::OursServe { whole },
            server_cpu,
            &[],
            &[cold, folder],
        )?);
    }
    servers.push(Server::start_rust_with(
        "ours, folder (disk mode)".into(),
        Kind::OursFolder,
        server_cpu,
        &[],
        &[cold, folder],
    )?);
    servers.push(Server::start_rust_with(
        "ServeDir (64 KiB reads)".into(),
        Kind::ServeDir,
        server_cpu,
        &[],
        &[cold, folder],
    )?);

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("tokio runtime: {e}"))?;
    let mut problems = Vec::new();

    // Each server sends the first file whole, byte for byte.
    let expected = Arc::new(
        fs::read(file_path(&args.dir, 0)).map_err(|e| format!("{}: {e}", args.dir.display()))?,
    );
    println!("\n== verify: f00.bin whole, byte for byte");
    for server in &servers {
        let outcome = runtime.block_on(download(Request {
            addr: server.addr,
            path: url(0),
            range: None,
            expected: Some(expected.clone()),
            timeout: DOWNLOAD_TIMEOUT,
            discard: false,
        }));
        match outcome.map(|d| d.problem(200, args.size)) {
            Ok(None) => println!("  {:<24} ok", server.name),
            Ok(Some(problem)) | Err(problem) => {
                println!("  {:<24} FAILED: {problem}", server.name);
                problems.push(format!("{}: verify: {problem}", server.name));
            }
        }
    }
    drop(expected);

    // Our servers hash a file's bytes for its ETag the first time it is requested, on a
    // thread of their own, reading the file once more: done here, for every file, so
    // that the runs measure the steady state (and the time it took is shown).
    println!("\n== content ETags: each file asked for once (HEAD), until its ETag is known");
    for server in servers.iter().filter(|s| s.kind.is_ours()) {
        let started = Instant::now();
        let known = runtime.block_on(wait_for_etags(server.addr, args.files));
        println!(
            "  {:<24} {known} of {} files' ETags known after {:.1} s ({:.0} MB/s hashed)",
            server.name,
            args.files,
            started.elapsed().as_secs_f64(),
            known as f64 * args.size as f64 / 1e6 / started.elapsed().as_secs_f64().max(1e-9)
        );
        if known < args.files {
            problems.push(format!("{}: not every ETag was known in time", server.name));
        }
    }

    // samples[concurrency][server]
    let mut samples = vec![vec![Vec::<Sample>::new(); servers.len()]; args.concurrency.len()];
    for round in 0..args.rounds {
        for (c, &concurrency) in args.concurrency.iter().enumerate() {
            for i in 0..servers.len() {
                let index = (i + round) % servers.len();
                let server = &servers[index];
                evict(&args.dir, args.files)?;
                let sample = measure(&runtime, server, args, concurrency, device, &mut problems)?;
                println!(
                    "  round {} x{concurrency:<3} {:<24} {:>7.0} MB/s  {:>6.0} reads/GB  \
                     {:>6.0} MB read/GB  {:>5.0} ms CPU/GB  peak {:>6.1} MiB",
                    round + 1,
                    server.name,
                    sample.mb_per_s,
                    sample.reads_per_gb,
                    sample.mb_read_per_gb,
                    sample.cpu_ms_per_gb,
                    sample.peak_rss as f64 / f64::from(1 << 20),
                );
                samples[c][index].push(sample);
            }
        }
    }

    for (c, &concurrency) in args.concurrency.iter().enumerate() {
        print_table(&servers, &samples[c], concurrency, args.rounds);
    }
    if !problems.is_empty() {
        println!("\nPROBLEMS:");
        for problem in &problems {
            println!("  {problem}");
        }
    }
    Ok(problems.is_empty())
}

fn print_table(servers: &[Server], samples: &[Vec<Sample>], concurrency: usize, rounds: usize) {
    let med = |index: usize, pick: fn(&Sample) -> f64| -> f64 {
        let values: Vec<f64> = samples[index].iter().map(pick).collect();
        median(&values).unwrap_or(0.0)
    };
    // The better nginx by throughput is what the others are held against.
    let best_nginx = servers
        .iter()
        .enumerate()
        .filter(|(_, s)| s.kind == Kind::Nginx)
        .map(|(i, _)| i)
        .max_by(|&a, &b| med(a, |s| s.mb_per_s).total_cmp(&med(b, |s| s.mb_per_s)));
    println!(
        "\n== cold cache, {concurrency} concurrent downloads of distinct files (medians of \
         {rounds}){}",
        best_nginx.map_or(String::new(), |i| format!(
            "; ratios to {}",
            servers[i].name
        ))
    );
    println!(
        "  {:<24} {:>8} {:>7} {:>9} {:>7} {:>12} {:>7} {:>10} {:>7} {:>9}",
        "server",
        "MB/s",
        "ratio",
        "reads/GB",
        "ratio",
        "MB read/GB",
        "ratio",
        "CPU ms/GB",
        "ratio",
        "peak MiB"
    );
    let ratio = |value: f64, base: Option<f64>| match base {
        Some(base) if base > 0.0 => format!("{:.2}x", value / base),
        _ => "-".into(),
    };
    for (index, server) in servers.iter().enumerate() {
        let base = |pick: fn(&Sample) -> f64| best_nginx.map(|i| med(i, pick));
        let mb = med(index, |s| s.mb_per_s);
        let reads = med(index, |s| s.reads_per_gb);
        let read = med(index, |s| s.mb_read_per_gb);
        let cpu = med(index, |s| s.cpu_ms_per_gb);
        let peak = med(index, |s| s.peak_rss as f64) / f64::from(1 << 20);
        println!(
            "  {:<24} {:>8.0} {:>7} {:>9.0} {:>7} {:>12.0} {:>7} {:>10.0} {:>7} {:>9.1}",
            server.name,
            mb,
            ratio(mb, base(|s| s.mb_per_s)),
            reads,
            ratio(reads, base(|s| s.reads_per_gb)),
            read,
            ratio(read, base(|s| s.mb_read_per_gb)),
            cpu,
            ratio(cpu, base(|s| s.cpu_ms_per_gb)),
            peak
        );
    }
}

/// `concurrency` downloads at once of distinct files (file `i % files` for the i-th).
fn measure(
    runtime: &tokio::runtime::Runtime,
    server: &Server,
    args: &Args,
    concurrency: usize,
    device: (u32, u32),
    problems: &mut Vec<String>,
) -> Result<Sample, String> {
    let disk_before = disk_reads(device)?;
    let cpu_before = server.cpu_seconds();
    server.reset_peak();
    let started = Instant::now();
    let outcomes = runtime.block_on(async {
        let mut set = tokio::task::JoinSet::new();
        for i in 0..concurrency {
            set.spawn(download(Request {
                addr: server.addr,
                path: url(i % args.files),
                range: None,
                expected: None,
                timeout: DOWNLOAD_TIMEOUT,
                discard: false,
            }));
        }
        let mut all = Vec::new();
        while let Some(joined) = set.join_next().await {
            all.push(joined.map_err(|e| e.to_string()).and_then(|r| r));
        }
        all
    });
    let wall = started.elapsed();
    let cpu = server.cpu_seconds() - cpu_before;
    let disk_after = disk_reads(device)?;
    let peak = server.memory().map_or(0, |(_, hwm)| hwm);
    let mut bytes = 0;
    for outcome in outcomes {
        match outcome.map(|d| (d.problem(200, args.size), d.body_len)) {
            Ok((None, len)) => bytes += len,
            Ok((Some(problem), _)) | Err(problem) => {
                problems.push(format!("{} x{concurrency}: {problem}", server.name));
            }
        }
    }
    let gb = (bytes as f64 / 1e9).max(1e-9);
    Ok(Sample {
        mb_per_s: bytes as f64 / wall.as_secs_f64().max(1e-9) / 1e6,
        reads_per_gb: (disk_after.0 - disk_before.0) as f64 / gb,
        mb_read_per_gb: (disk_after.1 - disk_before.1) as f64 * 512.0 / 1e6 / gb,
        cpu_ms_per_gb: cpu * 1000.0 / gb,
        peak_rss: peak,
    })
}

/// Asks for each file (HEAD) until every response carries an `ETag`, for at most
/// 10 minutes; how many did.
async fn wait_for_etags(addr: std::net::SocketAddr, files: usize) -> usize {
    let deadline = Instant::now() + Duration::from_secs(600);
    let mut known = vec![false; files];
    while Instant::now() < deadline {
        for (i, known) in known.iter_mut().enumerate().filter(|(_, k)| !**k) {
            *known = head_has_etag(addr, url(i)).await.unwrap_or(false);
        }
        if known.iter().all(|k| *k) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    known.iter().filter(|k| **k).count()
}

/// Whether `HEAD path` answers with an `ETag` field.
async fn head_has_etag(addr: std::net::SocketAddr, path: &str) -> std::io::Result<bool> {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let mut stream = tokio::net::TcpStream::connect(addr).await?;
    let request = format!("HEAD {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await?;
    let mut head = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut head))
        .await
        .map_err(std::io::Error::other)??;
    let head = String::from_utf8_lossy(&head).to_ascii_lowercase();
    Ok(head.starts_with("http/1.1 200") && head.contains("\r\netag:"))
}

fn file_path(dir: &Path, i: usize) -> PathBuf {
    dir.join(format!("f{i:02}.bin"))
}

/// `/f00.bin` …, as `'static` strings for the download client.
fn url(i: usize) -> &'static str {
    static URLS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    let urls = URLS.get_or_init(|| (0..COLD_FILES).map(|i| format!("/f{i:02}.bin")).collect());
    &urls[i]
}

/// Writes the files that are missing or of another size: xorshift bytes (they do
/// not compress), a seed per file, synced to the disk.
fn prepare(dir: &Path, files: usize, size: u64) -> Result<(), String> {
    fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for i in 0..files {
        let path = file_path(dir, i);
        if fs::metadata(&path).map(|m| m.len()).ok() == Some(size) {
            continue;
        }
        print!(
            "bench-disk cold: writing {} ({} MiB) ... ",
            path.display(),
            size >> 20
        );
        let _ = std::io::stdout().flush();
        let started = Instant::now();
        let tmp = path.with_extension("tmp");
        let error = |e: std::io::Error| format!("{}: {e}", tmp.display());
        let mut out =
            std::io::BufWriter::with_capacity(1 << 20, fs::File::create(&tmp).map_err(error)?);
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15 ^ ((i as u64 + 1) << 32);
        for _ in 0..size / 8 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            out.write_all(&state.to_le_bytes()).map_err(error)?;
        }
        out.into_inner()
            .map_err(|e| error(e.into_error()))?
            .sync_all()
            .map_err(error)?;
        fs::rename(&tmp, &path).map_err(|e| format!("{}: {e}", path.display()))?;
        println!("{:.1} s", started.elapsed().as_secs_f64());
    }
    Ok(())
}

/// Drops the files' pages from the page cache (they are clean: written and synced).
fn evict(dir: &Path, files: usize) -> Result<(), String> {
    for i in 0..files {
        let path = file_path(dir, i);
        let file = fs::File::open(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        rustix::fs::fadvise(&file, 0, None, rustix::fs::Advice::DontNeed)
            .map_err(|e| format!("{}: posix_fadvise: {e}", path.display()))?;
    }
    Ok(())
}

/// The device (major, minor) that holds `dir`.
fn device_of(dir: &Path) -> Result<(u32, u32), String> {
    let meta = fs::metadata(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let dev = meta.dev();
    let device = (rustix::fs::major(dev), rustix::fs::minor(dev));
    disk_reads(device).map_err(|e| {
        format!(
            "{e}: {} is not on a disk /proc/diskstats counts (tmpfs, overlay?); pass --dir \
             on one",
            dir.display()
        )
    })?;
    Ok(device)
}

/// `(reads completed, sectors read)` of a device, from `/proc/diskstats`.
fn disk_reads(device: (u32, u32)) -> Result<(u64, u64), String> {
    let stats =
        fs::read_to_string("/proc/diskstats").map_err(|e| format!("/proc/diskstats: {e}"))?;
    stats
        .lines()
        .find_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let major: u32 = fields.first()?.parse().ok()?;
            let minor: u32 = fields.get(1)?.parse().ok()?;
            if (major, minor) != device {
                return None;
            }
            Some((fields.get(3)?.parse().ok()?, fields.get(5)?.parse().ok()?))
        })
        .ok_or_else(|| format!("device {}:{} not in /proc/diskstats", device.0, device.1))
}
