//! Counts the system calls a server makes per response: `strace -c -f` attached to
//! every process of the server while wrk sends a fixed number of requests.
//!
//! strace slows the server down many times over, so these runs say nothing about
//! speed; only the counts are kept. What a response costs in copies follows from
//! which calls send it: `write`/`writev`/`sendmsg` copy the bytes from the process
//! into the socket, `sendfile` hands the kernel the file's pages.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// System calls seen during one run, by name.
#[derive(Debug, Clone, Default)]
pub struct Counts {
    /// Calls of each system call, over the whole run.
    pub calls: BTreeMap<String, u64>,
}

impl Counts {
    /// Every call, over the whole run.
    pub fn total(&self) -> u64 {
        self.calls.values().sum()
    }

    /// The calls per response, most frequent first.
    pub fn per_response(&self, responses: u64) -> Vec<(String, f64)> {
        let mut list: Vec<(String, f64)> = self
            .calls
            .iter()
            .map(|(name, &n)| (name.clone(), n as f64 / responses.max(1) as f64))
            .collect();
        list.sort_by(|a, b| b.1.total_cmp(&a.1));
        list
    }
}

/// An `strace -c -f` attached to processes, summarising into a temp file.
#[derive(Debug)]
pub struct Tracer {
    child: Child,
    out: std::path::PathBuf,
}

impl Tracer {
    /// Attaches `strace` (every thread of every pid in `pids`) and waits until it has.
    ///
    /// # Errors
    /// strace could not start.
    pub fn attach(strace: &Path, pids: &[u32], tag: &str) -> Result<Tracer, String> {
        let out =
            std::env::temp_dir().join(format!("bench-strace-{}-{tag}.txt", std::process::id()));
        let mut command = Command::new(strace);
        command.args(["-c", "-f", "-qq", "-U", "calls,name", "-o"]);
        command.arg(&out);
        for pid in pids {
            command.arg("-p").arg(pid.to_string());
        }
        let child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("start strace: {e}"))?;
        // strace prints nothing once attached with -qq; give it time to attach to
        // every thread before the load starts.
        std::thread::sleep(Duration::from_millis(500));
        Ok(Tracer { child, out })
    }

    /// Detaches (SIGINT, as Ctrl-C does) and reads the summary.
    ///
    /// # Errors
    /// strace failed, or its summary cannot be read.
    pub fn finish(mut self) -> Result<Counts, String> {
        let _ = Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline && matches!(self.child.try_wait(), Ok(None)) {
            std::thread::sleep(Duration::from_millis(20));
        }
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
        let text = std::fs::read_to_string(&self.out)
            .map_err(|e| format!("{}: {e}", self.out.display()))?;
        let _ = std::fs::remove_file(&self.out);
        parse(&text).ok_or_else(|| format!("cannot read strace's summary:\n{text}"))
    }
}

/// `strace -c -U calls,name`: a header, a rule, `CALLS NAME` lines, a rule, `CALLS
/// total`.
fn parse(text: &str) -> Option<Counts> {
    let mut counts = Counts::default();
    let mut total = None;
    for line in text.lines() {
        let mut words = line.split_whitespace();
        let (Some(calls), Some(name), None) = (words.next(), words.next(), words.next()) else {
            continue;
        };
        let Ok(calls) = calls.parse::<u64>() else {
            continue;
        };
        if name == "total" {
            total = Some(calls);
        } else {
            counts.calls.insert(name.to_owned(), calls);
        }
    }
    (total? == counts.total()).then_some(counts)
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn reads_the_summary() {
        let text = "    calls syscall\n--------- ----------------\n    10001 writev\n     \
                    9990 recvfrom\n       12 epoll_wait\n--------- ----------------\n    \
                    20003 total\n";
        let counts = parse(text).unwrap();
        assert_eq!(counts.calls["writev"], 10_001);
        assert_eq!(counts.total(), 20_003);
        let per = counts.per_response(10_000);
        assert_eq!(per[0].0, "writev");
        assert!(parse("    5 writev\n    6 total\n").is_none());
    }
}
