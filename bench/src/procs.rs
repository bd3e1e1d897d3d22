//! Process helpers for the benchmark drivers: CPU pinning with `taskset`, finding
//! nginx, CPU times from `/proc`, the median, and digits grouped for the tables.

use std::fs;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// `taskset -c CPU PROGRAM` when `cpu` is set, else `PROGRAM`.
pub fn pinned(cpu: Option<usize>, program: &Path) -> Command {
    match cpu {
        Some(cpu) => {
            let mut command = Command::new("taskset");
            command.arg("-c").arg(cpu.to_string()).arg(program);
            command
        }
        None => Command::new(program),
    }
}

/// Pins this process (every thread it has so far: call before starting any) to `cpu`.
///
/// # Errors
/// `taskset` could not be run or refused.
pub fn pin_self(cpu: usize) -> Result<(), String> {
    let out = Command::new("taskset")
        .args([
            "-a",
            "-p",
            "-c",
            &cpu.to_string(),
            &std::process::id().to_string(),
        ])
        .output()
        .map_err(|e| format!("taskset: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// Whether `taskset` can be run.
pub fn have_taskset() -> bool {
    Command::new("taskset")
        .arg("-V")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// `name` on `PATH` or in the usual sbin folders.
pub fn find_program(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin".into(), "/usr/local/sbin".into(), "/sbin".into()])
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

/// A port of 127.0.0.1 that was free a moment ago.
///
/// # Errors
/// No port could be bound.
pub fn free_port() -> Result<u16, String> {
    let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| format!("bind: {e}"))?;
    listener
        .local_addr()
        .map(|a| a.port())
        .map_err(|e| e.to_string())
}

/// Whether this process runs as root (effective user id 0).
pub fn is_root() -> bool {
    fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|l| l.strip_prefix("Uid:"))
                .and_then(|uids| uids.split_whitespace().nth(1).map(|e| e == "0"))
        })
        .unwrap_or(false)
}

/// Direct children of `pid` (nginx's workers).
pub fn children(pid: u32) -> Vec<u32> {
    let Ok(tasks) = fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for task in tasks.flatten() {
        if let Ok(list) = fs::read_to_string(task.path().join("children")) {
            out.extend(
                list.split_whitespace()
                    .filter_map(|p| p.parse::<u32>().ok()),
            );
        }
    }
    out
}

/// Clock ticks per second for `/proc/*/stat` times.
fn ticks_per_second() -> f64 {
    static TICKS: std::sync::OnceLock<f64> = std::sync::OnceLock::new();
    *TICKS.get_or_init(|| {
        Command::new("getconf")
            .arg("CLK_TCK")
            .output()
            .ok()
            .and_then(|out| String::from_utf8(out.stdout).ok())
            .and_then(|text| text.trim().parse().ok())
            .unwrap_or(100.0)
    })
}

/// The fields of `/proc/PID/stat` after the command name, from `state` on.
fn stat_fields(pid: u32) -> Option<Vec<f64>> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may hold spaces.
    let rest = &stat[stat.rfind(')')? + 2..];
    Some(
        rest.split(' ')
            .map(|field| field.parse().unwrap_or(0.0))
            .collect(),
    )
}

/// User + system CPU time of a process (all its threads), in seconds.
pub fn cpu_seconds(pid: u32) -> Option<f64> {
    let fields = stat_fields(pid)?;
    Some((fields.get(11)? + fields.get(12)?) / ticks_per_second())
}

/// User + system CPU time of this process's children that have ended and been waited
/// for (a load generator run to completion), in seconds.
pub fn waited_children_cpu_seconds() -> Option<f64> {
    let fields = stat_fields(std::process::id())?;
    Some((fields.get(13)? + fields.get(14)?) / ticks_per_second())
}

/// CPU seconds the whole machine spent in user and system mode (all CPUs), from
/// `/proc/stat`.
pub fn machine_cpu_seconds() -> Option<f64> {
    let stat = fs::read_to_string("/proc/stat").ok()?;
    let line = stat.lines().find(|l| l.starts_with("cpu "))?;
    let fields: Vec<f64> = line
        .split_whitespace()
        .skip(1)
        .filter_map(|f| f.parse().ok())
        .collect();
    // user nice system idle iowait irq softirq steal ...
    Some((fields.first()? + fields.get(1)? + fields.get(2)?) / ticks_per_second())
}

/// The median (the mean of the middle two for an even count); `None` when empty.
pub fn median(values: &[f64]) -> Option<f64> {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(sorted[n / 2]),
        _ => Some((sorted[n / 2 - 1] + sorted[n / 2]) / 2.0),
    }
}

/// `1234567.8` as `1,234,568`.
pub fn thousands(value: f64) -> String {
    let digits = format!("{:.0}", value.max(0.0));
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{median, thousands};

    #[test]
    fn groups_digits() {
        assert_eq!(thousands(0.0), "0");
        assert_eq!(thousands(999.4), "999");
        assert_eq!(thousands(1000.0), "1,000");
        assert_eq!(thousands(1_234_567.8), "1,234,568");
    }

    #[test]
    fn median_of_odd_even_and_empty() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(median(&[]), None);
    }
}
