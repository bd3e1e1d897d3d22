//! `bench-disk first`: the first downloads of the 64 MiB file after a server starts,
//! as a user's harness sees them. Each round starts every server afresh (nginx, ours
//! under `embed_assets::serve` as the README sets it up, with and without whole-file
//! `sendfile`, `ServeDir`), one at a time, pinned to CPU 0, and downloads the file
//! from CPU 1 a few times in a row over new connections, the file's pages in the cache
//! already: the first download is the one a server has not seen the file before (ours
//! starts hashing it for its content ETag then), the others are what a player gets
//! afterwards. Medians over the rounds, and ratios to nginx.
//!
//! With `--curl`, each download is `curl -o /dev/null` (pinned to CPU 1), as a user
//! checks a server by hand; its `time_total` is the figure.

use std::process::ExitCode;
use std::time::Duration;

use bench::download::{download, Request};
use bench::procs::median;
use bench::{MEDIA_DIR, VIDEO_LEN, VIDEO_PATH, VIDEO_URL};

use crate::procs::{Kind, Server};

const USAGE: &str = "\
usage: bench-disk first [--rounds N] [--downloads N] [--curl] [--no-pin]

  --rounds N      fresh starts of every server (default 5)
  --downloads N   downloads in a row after each start, the first counted apart
                  (default 4)
  --curl          download with curl (to /dev/null), timed by its time_total, instead
                  of this bench's own client
  --no-pin        do not pin servers to CPU 0 and the client to CPU 1";

/// Longest any one download may take before it counts as failed.
const TIMEOUT: Duration = Duration::from_secs(60);

/// The servers, in the order of each round.
const SERVERS: [(&str, Option<Kind>); 6] = [
    ("nginx (sendfile)", None),
    ("user binary, serve", Some(Kind::User)),
    ("ours, folder (disk mode)", Some(Kind::OursFolder)),
    ("ours, serve", Some(Kind::OursServe { whole: false })),
    ("ours, serve, whole", Some(Kind::OursServe { whole: true })),
    ("ServeDir", Some(Kind::ServeDir)),
];

pub(crate) fn main(argv: Vec<String>) -> ExitCode {
    let mut rounds = 5;
    let mut downloads = 4;
    let mut pin = true;
    let mut curl = false;
    let mut argv = argv.into_iter();
    while let Some(arg) = argv.next() {
        let mut count = || match argv.next().map(|v| v.parse::<usize>()) {
            Some(Ok(n)) if (1..=100).contains(&n) => Ok(n),
            _ => Err(format!("{arg} takes a count from 1 to 100")),
        };
        let parsed = match arg.as_str() {
            "--rounds" => count().map(|n| rounds = n),
            "--downloads" => count().map(|n| downloads = n.max(2)),
            "--no-pin" => {
                pin = false;
                Ok(())
            }
            "--curl" => {
                curl = true;
                Ok(())
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            other => Err(format!("unknown argument `{other}`\n{USAGE}")),
        };
        if let Err(message) = parsed {
            eprintln!("bench-disk first: {message}");
            return ExitCode::from(2);
        }
    }
    match run(rounds, downloads, curl, pin) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("bench-disk first: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(rounds: usize, downloads: usize, curl: bool, pin: bool) -> Result<(), String> {
    let cpus = std::thread::available_parallelism().map_or(1, usize::from);
    let pin = pin && cpus >= 2 && bench::procs::have_taskset();
    let server_cpu = if pin {
        bench::procs::pin_self(1)?;
        Some(0)
    } else {
        None
    };
    let nginx = bench::procs::find_program("nginx");
    let user = bench::user::build()?;
    // The file's pages in the cache before any server sees it.
    let len = std::fs::read(VIDEO_PATH)
        .map_err(|e| format!("{VIDEO_PATH}: {e}"))?
        .len() as u64;
    if len != VIDEO_LEN {
        return Err(format!("{VIDEO_PATH} has {len} bytes, not {VIDEO_LEN}"));
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("tokio runtime: {e}"))?;
    println!(
        "bench-disk first: {rounds} rounds; each server started afresh, then {downloads} \
         downloads of {VIDEO_URL} ({} MiB) in a row, by {}{}",
        VIDEO_LEN >> 20,
        if curl { "curl" } else { "this bench's client" },
        if pin {
            ", server on CPU 0, client on CPU 1"
        } else {
            ""
        }
    );
    // Per server: the first download's milliseconds, and the later ones'.
    let mut first: Vec<Vec<f64>> = vec![Vec::new(); SERVERS.len()];
    let mut later: Vec<Vec<f64>> = vec![Vec::new(); SERVERS.len()];
    for round in 0..rounds {
        for (index, (name, kind)) in SERVERS.iter().enumerate() {
            let server = match kind {
                Some(Kind::User) => Server::start_user(name, &user, server_cpu)?,
                Some(kind) => Server::start_rust((*name).into(), *kind, server_cpu, &[])?,
                None => match &nginx {
                    Some(nginx) => Server::start_nginx(nginx, MEDIA_DIR, server_cpu)?,
                    None => continue,
                },
            };
            for n in 0..downloads {
                let ms = if curl {
                    with_curl(server.addr, pin).map_err(|e| format!("{name}: {e}"))?
                } else {
                    let got = runtime.block_on(download(Request {
                        addr: server.addr,
                        path: VIDEO_URL,
                        range: None,
                        expected: None,
                        timeout: TIMEOUT,
                        discard: false,
                    }))?;
                    if let Some(problem) = got.problem(200, VIDEO_LEN) {
                        return Err(format!("{name}: {problem}"));
                    }
                    got.elapsed.as_secs_f64() * 1e3
                };
                if n == 0 {
                    first[index].push(ms);
                } else {
                    later[index].push(ms);
                }
            }
            drop(server);
        }
        println!("  round {}/{rounds} done", round + 1);
    }
    println!(
        "\n| server | first download | ratio to nginx | later downloads | ratio to nginx |\n\
         |---|---:|---:|---:|---:|"
    );
    let nginx_first = median(&first[0]);
    let nginx_later = median(&later[0]);
    for (index, (name, _)) in SERVERS.iter().enumerate() {
        let (Some(f), Some(l)) = (median(&first[index]), median(&later[index])) else {
            continue;
        };
        // Time ratios turned into speed ratios: above 1 is faster than nginx.
        let ratio = |reference: Option<f64>, ms: f64| {
            reference.map_or("-".to_owned(), |r| format!("{:.2}x", r / ms))
        };
        println!(
            "| {name} | {f:.1} ms | {} | {l:.1} ms | {} |",
            ratio(nginx_first, f),
            ratio(nginx_later, l)
        );
    }
    println!("\n(medians; a ratio is nginx's time over the server's: above 1.00x is faster)");
    Ok(())
}

/// One download of the file with `curl -o /dev/null` (on CPU 1 when pinned, as this
/// process is): its `time_total` in milliseconds, once its status and size are checked.
fn with_curl(addr: std::net::SocketAddr, pin: bool) -> Result<f64, String> {
    let mut command = bench::procs::pinned(pin.then_some(1), std::path::Path::new("curl"));
    let output = command
        .args(["-s", "-o", "/dev/null", "--max-time"])
        .arg(TIMEOUT.as_secs().to_string())
        .args(["-w", "%{http_code} %{size_download} %{time_total}"])
        .arg(format!("http://{addr}{VIDEO_URL}"))
        .output()
        .map_err(|e| format!("curl: {e} (apt-get install -y curl)"))?;
    let text = String::from_utf8_lossy(&output.stdout);
    let mut fields = text.split_whitespace();
    let (status, size, seconds) = (fields.next(), fields.next(), fields.next());
    if status != Some("200") || size != Some(VIDEO_LEN.to_string().as_str()) {
        return Err(format!("curl got `{text}` (status, bytes, seconds)"));
    }
    seconds
        .and_then(|s| s.parse::<f64>().ok())
        .map(|s| s * 1e3)
        .ok_or_else(|| format!("curl printed `{text}`"))
}
