//! The measuring loop bench-static, bench-arena and bench-frameworks share: the CPUs the servers
//! and wrk are pinned to, the machine and wrk's version for the report, a warm-up,
//! and interleaved rounds of wrk runs (per case, every server in an order that rotates
//! each round), with a round run again when other processes were busy during it.

use std::fmt::Write as _;
use std::net::SocketAddr;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use crate::cases::{Case, Probe};
use crate::procs;
use crate::wrk;

/// Other processes using more than this share of one CPU make a round noisy.
pub const NOISY: f64 = 0.1;

/// One server and one case over the whole run.
#[derive(Debug, Default, Clone)]
pub struct Cell {
    /// req/s of every counted run.
    pub samples: Vec<f64>,
    /// Responses wrk read in the counted runs.
    pub requests: u64,
    /// The server's CPU seconds during the counted runs.
    pub counted_cpu: f64,
    /// The server's and wrk's CPU seconds, and the wall time, over every run.
    pub server_cpu: f64,
    /// See [`Cell::server_cpu`].
    pub client_cpu: f64,
    /// See [`Cell::server_cpu`].
    pub wall: f64,
    /// Why runs did not count.
    pub problems: Vec<String>,
}

impl Cell {
    /// The server's user + system CPU time per response over the counted runs, in µs.
    pub fn cpu_per_request(&self) -> Option<f64> {
        (self.requests > 0).then(|| 1e6 * self.counted_cpu / self.requests as f64)
    }

    /// The smallest and the largest sample.
    pub fn range(&self) -> (f64, f64) {
        let min = self.samples.iter().copied().fold(f64::INFINITY, f64::min);
        let max = self.samples.iter().copied().fold(0.0, f64::max);
        (min, max)
    }
}

/// `cpu` seconds over `wall` seconds as a share of one CPU (`85%`); `-` without time.
pub fn busy(cpu: f64, wall: f64) -> String {
    if wall > 0.0 {
        format!("{:.0}%", 100.0 * cpu / wall)
    } else {
        "-".into()
    }
}

/// Writes every server's problems, `(name, problems)`, under one `== PROBLEMS`
/// heading, a line `  NAME: PROBLEM` each. Returns whether there were none.
pub fn write_problems<'a>(
    out: &mut String,
    servers: impl IntoIterator<Item = (&'a str, Vec<String>)>,
) -> bool {
    let mut ok = true;
    for (name, problems) in servers {
        if !problems.is_empty() {
            if ok {
                let _ = writeln!(out, "\n== PROBLEMS");
            }
            ok = false;
            for problem in problems {
                let _ = writeln!(out, "  {name}: {problem}");
            }
        }
    }
    ok
}

/// `(server CPU, wrk CPU)`: CPU 0 and CPU 1 when pinning is asked for and possible
/// (two CPUs or more, `taskset` installed), else neither.
pub fn cpus(pin: bool) -> (Option<usize>, Option<usize>) {
    let cpus = std::thread::available_parallelism().map_or(1, usize::from);
    if pin && cpus >= 2 && procs::have_taskset() {
        (Some(0), Some(1))
    } else {
        (None, None)
    }
}

/// What the machine is, for the report: CPUs, model, kernel, load average now. The
/// CPUs are the machine's, not the ones this process is pinned to.
pub fn machine_note() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").ok();
    let cpus = info.as_ref().map_or(0, |info| {
        info.lines().filter(|l| l.starts_with("processor")).count()
    });
    let model = info
        .and_then(|info| {
            info.lines()
                .find_map(|l| l.strip_prefix("model name"))
                .map(|rest| rest.trim_start_matches([' ', '\t', ':']).to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|k| k.trim().to_owned())
        .unwrap_or_default();
    let load = std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default();
    format!("{cpus} CPUs ({model}), Linux {kernel}, load average {load} at start")
}

/// wrk's version line (`wrk 4.1.0 [epoll] ...`).
pub fn wrk_version(wrk: &Path) -> String {
    Command::new(wrk)
        .arg("-v")
        .output()
        .ok()
        .map(|out| {
            let text = String::from_utf8_lossy(&out.stdout).into_owned()
                + &String::from_utf8_lossy(&out.stderr);
            text.lines().next().unwrap_or_default().trim().to_owned()
        })
        .unwrap_or_default()
}

/// One wrk run of `case` against the server at `addr`, whose CPU seconds so far
/// `server_cpu` reads: a sample when wrk saw no error and every response had the size
/// of the checked one.
pub fn measure(
    wrk_path: &Path,
    load: &wrk::Load,
    (addr, server_cpu): (SocketAddr, &dyn Fn() -> f64),
    case: &Case,
    probe: &Probe,
    cell: &mut Cell,
) {
    let run = || wrk::run(wrk_path, load, addr, case.path, &probe.headers);
    if let Some(problem) = record(load, server_cpu, probe.wire_len, cell, run) {
        cell.problems.push(format!("{}: {problem}", case.short));
    }
}

/// Runs one wrk `run` with `load` against a server whose CPU seconds so far
/// `server_cpu` reads, and adds it to `cell`: the wall time, the server's and wrk's CPU
/// time, and a sample when wrk saw no error and its responses were `wire_len` bytes
/// each on average (see [`wrk::Outcome::problem`]). Returns why the run did not count,
/// if it did not.
pub fn record(
    load: &wrk::Load,
    server_cpu: &dyn Fn() -> f64,
    wire_len: usize,
    cell: &mut Cell,
    run: impl FnOnce() -> Result<wrk::Outcome, String>,
) -> Option<String> {
    let cpu0 = server_cpu();
    let client0 = procs::waited_children_cpu_seconds().unwrap_or(0.0);
    let started = Instant::now();
    let outcome = run();
    cell.wall += started.elapsed().as_secs_f64();
    let used = server_cpu() - cpu0;
    cell.server_cpu += used;
    cell.client_cpu += procs::waited_children_cpu_seconds().unwrap_or(0.0) - client0;
    let outcome = match outcome {
        Ok(outcome) => outcome,
        Err(problem) => return Some(problem),
    };
    if let Some(problem) = outcome.problem(load, wire_len) {
        return Some(problem);
    }
    cell.samples.push(outcome.per_second);
    cell.requests += outcome.requests;
    cell.counted_cpu += used;
    None
}

/// One warm-up run (`seconds` long, not counted) per server and case that passed its
/// check; `probes[server][case]`.
pub fn warm_up(
    wrk_path: &Path,
    load: &wrk::Load,
    seconds: u64,
    addrs: &[SocketAddr],
    cases: &[&Case],
    probes: &[Vec<Result<Probe, String>>],
) {
    let warm = wrk::Load {
        seconds,
        ..load.clone()
    };
    for (addr, row) in addrs.iter().zip(probes) {
        for (case, probe) in cases.iter().zip(row) {
            if let Ok(probe) = probe {
                let _ = wrk::run(wrk_path, &warm, *addr, case.path, &probe.headers);
            }
        }
    }
}

/// How many rounds, and how many noisy ones may be run again.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    /// Rounds kept.
    pub rounds: usize,
    /// Noisy rounds that may be run again, in all.
    pub redo_noisy: usize,
}

/// Runs `plan`'s rounds over `cells[server][case]`: per case, every server in an order
/// that rotates each round, `one(server, case, cell)` measuring one. `accounted` is
/// the CPU seconds of the benchmark's own processes (servers, this process, wrk) and
/// of the whole machine: what other processes used in a round is the difference. A
/// noisy round is discarded and run again while `redo_noisy` lasts (the problems seen
/// in it are kept). Returns the note on the noise over the kept rounds.
pub fn run(
    plan: Plan,
    cells: &mut [Vec<Cell>],
    accounted: impl Fn() -> Option<(f64, f64)>,
    mut one: impl FnMut(usize, usize, &mut Cell),
) -> String {
    let servers = cells.len();
    let cases = cells.first().map_or(0, Vec::len);
    let mut foreign = (0.0, 0.0);
    let mut redos_left = plan.redo_noisy;
    let (mut round, mut attempt) = (0, 0);
    while round < plan.rounds {
        let started = Instant::now();
        let before = accounted();
        let kept: Vec<Vec<Cell>> = cells.to_vec();
        // The servers in a rotating order, so no one always runs first or last.
        #[allow(clippy::needless_range_loop)]
        for c in 0..cases {
            for k in 0..servers {
                let s = (k + attempt + c) % servers;
                one(s, c, &mut cells[s][c]);
            }
        }
        attempt += 1;
        let wall = started.elapsed().as_secs_f64();
        let busy = match (before, accounted()) {
            (Some((a0, m0)), Some((a1, m1))) => Some(((m1 - m0) - (a1 - a0)).max(0.0)),
            _ => None,
        };
        let noisy = busy.filter(|busy| busy / wall > NOISY);
        if let (Some(busy), true) = (noisy, redos_left > 0) {
            redos_left -= 1;
            for (row, kept_row) in cells.iter_mut().zip(kept) {
                for (cell, kept_cell) in row.iter_mut().zip(kept_row) {
                    let problems = std::mem::take(&mut cell.problems);
                    *cell = Cell {
                        problems,
                        ..kept_cell
                    };
                }
            }
            println!(
                "  round {}/{} done in {wall:.0} s; other processes used {:.0}% of a CPU: \
                 discarded, run again ({redos_left} more redo(s) allowed)",
                round + 1,
                plan.rounds,
                100.0 * busy / wall
            );
            continue;
        }
        if let Some(busy) = busy {
            foreign.0 += busy;
            foreign.1 += wall;
        }
        println!(
            "  round {}/{} done in {wall:.0} s; other processes used {}",
            round + 1,
            plan.rounds,
            busy.map_or("? (no /proc)".into(), |busy| format!(
                "{:.0}% of a CPU{}",
                100.0 * busy / wall,
                if noisy.is_some() {
                    " (NOISY, kept)"
                } else {
                    ""
                }
            ))
        );
        round += 1;
    }
    let share = if foreign.1 > 0.0 {
        foreign.0 / foreign.1
    } else {
        0.0
    };
    format!(
        "other processes used {:.0}% of a CPU on average during the kept rounds{}",
        100.0 * share,
        if share > NOISY {
            "; the figures are noisy, run again on an idle machine"
        } else {
            ""
        }
    )
}
