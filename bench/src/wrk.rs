//! Runs `wrk` (pinned with `taskset`) for a fixed time against one URL or a Lua
//! script's requests, parses what it prints, and tells whether the run may count ([`Outcome::problem`]).

use std::net::SocketAddr;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::procs::pinned;

/// How one wrk run is set up.
#[derive(Debug, Clone)]
pub struct Load {
    /// Open connections, all on one wrk thread.
    pub connections: usize,
    /// Whole seconds (wrk takes no fractions).
    pub seconds: u64,
    /// The CPU wrk is pinned to with `taskset -c`; `None`: not pinned.
    pub cpu: Option<usize>,
    /// Requests written at once on a connection (HTTP/1.1 pipelining) by [`run`] and
    /// [`run_count`]; 1: one at a time.
    pub pipeline: usize,
}

/// What one wrk run measured.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// Responses wrk read.
    pub requests: u64,
    /// Seconds wrk ran.
    pub elapsed: f64,
    /// wrk's `Requests/sec`.
    pub per_second: f64,
    /// Bytes read from the sockets (wrk rounds it to 3 significant digits).
    pub bytes: f64,
    /// Responses whose status was not 2xx or 3xx.
    pub bad_status: u64,
    /// Connect, read, write and timeout errors.
    pub socket_errors: u64,
    /// The latency percentiles and maximum as wrk prints them (`1.23ms`), with
    /// `--latency`; empty without.
    pub latency: Latency,
}

/// wrk's latency figures, as printed.
#[derive(Debug, Clone, Default)]
pub struct Latency {
    /// The median.
    pub p50: String,
    /// The 99th percentile.
    pub p99: String,
    /// The slowest response.
    pub max: String,
}

/// Runs `wrk -t1 -cN -dS --timeout 10s [-H header]... http://addr/path`; with
/// `load.pipeline` over 1, through a Lua script that writes that many requests at once.
///
/// # Errors
/// wrk could not start, failed, hung (killed after its time plus 30 s), or printed
/// what [`Outcome`] cannot be read from.
pub fn run(
    wrk: &Path,
    load: &Load,
    addr: SocketAddr,
    path: &str,
    headers: &[(String, String)],
) -> Result<Outcome, String> {
    run_scripted(wrk, load, addr, path, headers, None)
}

/// Like [`run`], but wrk stops once it has read `responses` responses (a Lua
/// `response` hook; the responses in flight then are read too), or after `load`'s
/// seconds, whichever comes first.
///
/// # Errors
/// As [`run`], and the script could not be written.
pub fn run_count(
    wrk: &Path,
    load: &Load,
    addr: SocketAddr,
    path: &str,
    headers: &[(String, String)],
    responses: u64,
) -> Result<Outcome, String> {
    run_scripted(wrk, load, addr, path, headers, Some(responses))
}

/// [`run`] and [`run_count`]: the Lua script they need, if any, written to a temporary
/// file for the run.
fn run_scripted(
    wrk: &Path,
    load: &Load,
    addr: SocketAddr,
    path: &str,
    headers: &[(String, String)],
    stop_after: Option<u64>,
) -> Result<Outcome, String> {
    let mut text = String::new();
    if load.pipeline > 1 {
        // wrk's Lua `request` returns the bytes written per batch; wrk counts the
        // requests in them and reads that many responses before writing the next
        // batch. The fields go into the batch, not on wrk's command line.
        let lua_headers: String = headers
            .iter()
            .map(|(name, value)| format!("[{name:?}] = {value:?}, "))
            .collect();
        text += &format!(
            "local batch\n\
             init = function(args)\n\
             \x20 local one = wrk.format(\"GET\", {path:?}, {{ {lua_headers} }})\n\
             \x20 batch = string.rep(one, {})\n\
             end\n\
             request = function() return batch end\n",
            load.pipeline
        );
    }
    if let Some(responses) = stop_after {
        text += &format!(
            "local seen = 0\n\
             response = function(status, headers, body)\n\
             \x20 seen = seen + 1\n\
             \x20 if seen >= {responses} then wrk.thread:stop() end\n\
             end\n"
        );
    }
    if text.is_empty() {
        return run_with(wrk, load, addr, path, headers, None);
    }
    let script = std::env::temp_dir().join(format!(
        "bench-wrk-{}-{}-{}.lua",
        std::process::id(),
        load.pipeline,
        stop_after.unwrap_or(0)
    ));
    std::fs::write(&script, text).map_err(|e| format!("{}: {e}", script.display()))?;
    let headers = if load.pipeline > 1 { &[][..] } else { headers };
    let outcome = run_with(wrk, load, addr, path, headers, Some(&script));
    let _ = std::fs::remove_file(&script);
    outcome
}

/// Runs `wrk -t1 -cN -dS --timeout 10s -s script http://addr/`: the requests are the
/// Lua `script`'s.
///
/// # Errors
/// As [`run`].
pub fn run_script(
    wrk: &Path,
    load: &Load,
    addr: SocketAddr,
    script: &Path,
) -> Result<Outcome, String> {
    run_with(wrk, load, addr, "/", &[], Some(script))
}

fn run_with(
    wrk: &Path,
    load: &Load,
    addr: SocketAddr,
    path: &str,
    headers: &[(String, String)],
    script: Option<&Path>,
) -> Result<Outcome, String> {
    let mut command = pinned(load.cpu, wrk);
    command
        .arg("-t1")
        .arg(format!("-c{}", load.connections))
        .arg(format!("-d{}s", load.seconds))
        .args(["--timeout", "10s"]);
    if let Some(script) = script {
        command.arg("-s").arg(script);
    }
    for (name, value) in headers {
        command.arg("-H").arg(format!("{name}: {value}"));
    }
    command
        .arg(format!("http://{addr}{path}"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().map_err(|e| format!("start wrk: {e}"))?;
    // wrk stops by itself after its duration; a hung one is killed.
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
    parse(&text).ok_or_else(|| format!("cannot read wrk's output:\n{text}"))
}

impl Outcome {
    /// Why this run must not count, if it must not: it ran under 90% of `load`'s time,
    /// read nothing, saw a status that is not 2xx/3xx or a socket error, or read a
    /// number of bytes per response that is not `wire_len` (the bytes of one whole
    /// response as checked before the run), give or take wrk's rounding (1%) and the
    /// responses still in flight when it stopped. A server that answers 200 instead of
    /// 304, or another coding, under load fails here.
    pub fn problem(&self, load: &Load, wire_len: usize) -> Option<String> {
        if self.elapsed < 0.9 * load.seconds as f64 {
            return Some(format!(
                "wrk ran {:.2} s instead of {} s",
                self.elapsed, load.seconds
            ));
        }
        if self.bad_status > 0 || self.socket_errors > 0 || self.requests == 0 {
            return Some(format!(
                "{} responses not 2xx/3xx, {} socket errors in {} requests",
                self.bad_status, self.socket_errors, self.requests
            ));
        }
        let expected = wire_len as f64;
        let per_response = self.bytes / self.requests as f64;
        let slack =
            0.01 * expected + expected * load.connections as f64 / self.requests as f64 + 4.0;
        if (per_response - expected).abs() > slack {
            return Some(format!(
                "{per_response:.0} bytes a response under load, {expected:.0} when checked"
            ));
        }
        None
    }
}

/// Reads `N requests in T, B read`, `Non-2xx or 3xx responses: N`, `Socket errors:
/// ...`, `Requests/sec: R`, and with `--latency` the latency lines, from what wrk
/// printed; `None` without the summary.
pub fn parse(text: &str) -> Option<Outcome> {
    let mut outcome = Outcome {
        requests: 0,
        elapsed: 0.0,
        per_second: 0.0,
        bytes: 0.0,
        bad_status: 0,
        socket_errors: 0,
        latency: Latency::default(),
    };
    let mut seen_summary = false;
    for line in text.lines().map(str::trim) {
        if let Some((requests, rest)) = line.split_once(" requests in ") {
            let (time, bytes) = rest.split_once(", ")?;
            outcome.requests = requests.trim().parse().ok()?;
            outcome.elapsed = seconds(time.trim())?;
            outcome.bytes = size(bytes.trim().strip_suffix(" read")?)?;
            seen_summary = true;
        } else if let Some(n) = line.strip_prefix("Non-2xx or 3xx responses:") {
            outcome.bad_status = n.trim().parse().ok()?;
        } else if let Some(list) = line.strip_prefix("Socket errors:") {
            outcome.socket_errors = list
                .split(',')
                .filter_map(|part| part.split_whitespace().nth(1)?.parse::<u64>().ok())
                .sum();
        } else if let Some(rate) = line.strip_prefix("Requests/sec:") {
            outcome.per_second = rate.trim().parse().ok()?;
        } else {
            let words: Vec<&str> = line.split_whitespace().collect();
            match words[..] {
                ["Latency", _, _, max, ..] => outcome.latency.max = max.to_owned(),
                ["50%", value] => outcome.latency.p50 = value.to_owned(),
                ["99%", value] => outcome.latency.p99 = value.to_owned(),
                _ => {}
            }
        }
    }
    (seen_summary && outcome.per_second > 0.0).then_some(outcome)
}

/// `2.00s`, `1.00m`, `500.00ms`, `10.00us` in seconds.
fn seconds(text: &str) -> Option<f64> {
    let split = text.find(|c: char| c.is_ascii_alphabetic())?;
    let (number, unit) = text.split_at(split);
    let number: f64 = number.parse().ok()?;
    Some(match unit {
        "us" => number / 1e6,
        "ms" => number / 1e3,
        "s" => number,
        "m" => number * 60.0,
        "h" => number * 3600.0,
        _ => return None,
    })
}

/// wrk's binary sizes: `512.00B`, `45.67KB`, `1.23MB`, `2.00GB` (1024-based).
fn size(text: &str) -> Option<f64> {
    let split = text.find(|c: char| c.is_ascii_alphabetic())?;
    let (number, unit) = text.split_at(split);
    let number: f64 = number.parse().ok()?;
    let scale = match unit {
        "B" => 1.0,
        "KB" => 1024.0,
        "MB" => 1024.0 * 1024.0,
        "GB" => 1024.0 * 1024.0 * 1024.0,
        "TB" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        _ => return None,
    };
    Some(number * scale)
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn reads_wrk_output() {
        let text = "Running 2s test @ http://127.0.0.1:8080/index.html\n  1 threads and 64 \
                    connections\n  Thread Stats   Avg      Stdev     Max   +/- Stdev\n    \
                    Latency     1.01ms  100.00us   3.00ms   90.00%\n    Req/Sec    63.00k     \
                    1.00k   64.00k    80.00%\n  126000 requests in 2.00s, 45.50MB read\n  \
                    Non-2xx or 3xx responses: 3\n  Socket errors: connect 0, read 2, write 0, \
                    timeout 1\n  Latency Distribution\n     50%    0.98ms\n     99%    2.50ms\n\
                    Requests/sec:  62999.50\nTransfer/sec:     22.75MB\n";
        let outcome = parse(text).unwrap();
        assert_eq!(outcome.requests, 126_000);
        assert_eq!(outcome.elapsed, 2.0);
        assert_eq!(outcome.bytes, 45.5 * 1024.0 * 1024.0);
        assert_eq!(outcome.bad_status, 3);
        assert_eq!(outcome.socket_errors, 3);
        assert_eq!(outcome.per_second, 62_999.5);
        assert_eq!(outcome.latency.max, "3.00ms");
        assert_eq!(outcome.latency.p50, "0.98ms");
        assert_eq!(outcome.latency.p99, "2.50ms");
        assert!(parse("nothing").is_none());
    }
}
