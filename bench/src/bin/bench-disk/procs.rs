//! The servers under test as child processes: start (pinned with `taskset`), wait
//! until they listen, read their memory and CPU time from `/proc`, stop them on drop.

use std::fs;
use std::io::{BufRead, BufReader};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long a server may take to start listening.
const START_TIMEOUT: Duration = Duration::from_secs(30);

/// Which server a child process is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Nginx,
    ServeDir,
    /// `chunk: None` is the library's default chunk size.
    Ours {
        chunk: Option<usize>,
    },
}

/// A running server; stopped (with every process it started) when dropped.
pub(crate) struct Server {
    pub(crate) name: String,
    pub(crate) kind: Kind,
    pub(crate) addr: SocketAddr,
    child: Child,
    /// nginx's prefix folder (config, logs, pid file), removed on drop.
    temp_dir: Option<PathBuf>,
}

/// `taskset -c CPU` before the command, when pinning.
fn pinned(cpu: Option<usize>, program: &Path) -> Command {
    match cpu {
        Some(cpu) => {
            let mut command = Command::new("taskset");
            command.arg("-c").arg(cpu.to_string()).arg(program);
            command
        }
        None => Command::new(program),
    }
}

impl Server {
    /// Starts `bench-disk serve ...` (this same executable) in `mode`.
    /// `env` is added to the server's environment (e.g. `MALLOC_ARENA_MAX=2`).
    pub(crate) fn start_rust(
        name: String,
        kind: Kind,
        cpu: Option<usize>,
        env: &[(String, String)],
    ) -> Result<Self, String> {
        let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
        let mut command = pinned(cpu, &exe);
        command.args(["serve", "--port", "0", "--exit-with-stdin", "--mode"]);
        match kind {
            Kind::ServeDir => {
                command.arg("servedir");
            }
            Kind::Ours { chunk } => {
                command.arg("ours");
                if let Some(chunk) = chunk {
                    command.arg("--chunk").arg(chunk.to_string());
                }
            }
            Kind::Nginx => return Err("nginx is started by start_nginx".into()),
        }
        command
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        let mut child = command.spawn().map_err(|e| format!("start {name}: {e}"))?;
        let Some(stdout) = child.stdout.take() else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("{name}: no stdout"));
        };
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    // Nobody listens any more; keep draining so the server never
                    // blocks on a full pipe.
                    continue;
                }
            }
        });
        let mut server = Server {
            name,
            kind,
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            child,
            temp_dir: None,
        };
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = rx.recv_timeout(left).map_err(|_| {
                format!(
                    "{} did not print `listening on` within {START_TIMEOUT:?}",
                    server.name
                )
            })?;
            if let Some(addr) = line.strip_prefix("listening on ") {
                server.addr = addr
                    .trim()
                    .parse()
                    .map_err(|_| format!("{}: bad address in `{line}`", server.name))?;
                return Ok(server);
            }
        }
    }

    /// Writes an nginx.conf (one worker, `sendfile on`, root = `media`) into a temp
    /// folder and runs `nginx -g 'daemon off;'` on a free port of 127.0.0.1.
    pub(crate) fn start_nginx(
        nginx: &Path,
        media: &str,
        cpu: Option<usize>,
    ) -> Result<Self, String> {
        let port = free_port()?;
        let dir = std::env::temp_dir().join(format!("bench-disk-nginx-{}", std::process::id()));
        fs::create_dir_all(dir.join("logs")).map_err(|e| format!("{}: {e}", dir.display()))?;
        let d = dir.display();
        // As root, nginx would run its worker as `nobody`, who may not read the media
        // folder under a private home or work tree.
        let user = if is_root() { "user root;\n" } else { "" };
        let conf = format!(
            "{user}worker_processes 1;\n\
             pid {d}/nginx.pid;\n\
             error_log {d}/logs/error.log warn;\n\
             events {{ worker_connections 1024; }}\n\
             http {{\n\
             \x20   access_log off;\n\
             \x20   sendfile on;\n\
             \x20   tcp_nopush on;\n\
             \x20   keepalive_timeout 65;\n\
             \x20   types {{ text/html html; application/octet-stream bin; }}\n\
             \x20   default_type application/octet-stream;\n\
             \x20   client_body_temp_path {d}/client_body;\n\
             \x20   proxy_temp_path {d}/proxy;\n\
             \x20   fastcgi_temp_path {d}/fastcgi;\n\
             \x20   uwsgi_temp_path {d}/uwsgi;\n\
             \x20   scgi_temp_path {d}/scgi;\n\
             \x20   server {{\n\
             \x20       listen 127.0.0.1:{port};\n\
             \x20       root {media};\n\
             \x20   }}\n\
             }}\n"
        );
        let conf_path = dir.join("nginx.conf");
        fs::write(&conf_path, conf).map_err(|e| format!("{}: {e}", conf_path.display()))?;
        let mut command = pinned(cpu, nginx);
        command
            .arg("-p")
            .arg(&dir)
            .arg("-e")
            .arg(dir.join("logs/error.log"))
            .arg("-c")
            .arg(&conf_path)
            .args(["-g", "daemon off;"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit());
        let child = command.spawn().map_err(|e| format!("start nginx: {e}"))?;
        let mut server = Server {
            name: "nginx (sendfile)".into(),
            kind: Kind::Nginx,
            addr: SocketAddr::from(([127, 0, 0, 1], port)),
            child,
            temp_dir: Some(dir.clone()),
        };
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            if let Ok(Some(status)) = server.child.try_wait() {
                let log = fs::read_to_string(dir.join("logs/error.log")).unwrap_or_default();
                return Err(format!("nginx exited at start ({status}):\n{log}"));
            }
            // Listening, and the worker is up (the master alone accepts nothing).
            if TcpStream::connect(server.addr).is_ok() && !server.children().is_empty() {
                return Ok(server);
            }
            if Instant::now() > deadline {
                return Err(format!("nginx did not listen within {START_TIMEOUT:?}"));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Direct children (nginx's workers).
    fn children(&self) -> Vec<u32> {
        children(self.pid())
    }

    /// This server's processes: the child, and nginx's workers.
    pub(crate) fn pids(&self) -> Vec<u32> {
        let mut pids = vec![self.pid()];
        pids.extend(self.children());
        pids
    }

    /// User + system CPU time of every process of this server, in seconds.
    pub(crate) fn cpu_seconds(&self) -> f64 {
        self.pids().into_iter().filter_map(cpu_seconds).sum()
    }

    /// `(VmRSS, VmHWM)` in bytes, summed over this server's processes.
    pub(crate) fn memory(&self) -> Option<(u64, u64)> {
        let mut total = (0, 0);
        for pid in self.pids() {
            let (rss, hwm) = memory(pid)?;
            total = (total.0 + rss, total.1 + hwm);
        }
        Some(total)
    }

    /// Threads of this server's processes.
    pub(crate) fn threads(&self) -> u64 {
        self.pids()
            .into_iter()
            .filter_map(|pid| {
                let status = fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
                let line = status.lines().find(|l| l.starts_with("Threads:"))?;
                line["Threads:".len()..].trim().parse::<u64>().ok()
            })
            .sum()
    }

    /// Resets the peak (`VmHWM`) to the current RSS (`clear_refs` value 5, Linux 4.0+);
    /// `false` if the kernel refused.
    pub(crate) fn reset_peak(&self) -> bool {
        self.pids()
            .into_iter()
            .all(|pid| fs::write(format!("/proc/{pid}/clear_refs"), "5").is_ok())
    }

    /// Whether the process is still running.
    pub(crate) fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if self.kind == Kind::Nginx {
            // SIGTERM: the master stops its workers; SIGKILL would orphan them.
            let workers = self.children();
            let _ = Command::new("kill")
                .args(["-TERM", &self.pid().to_string()])
                .stderr(Stdio::null())
                .status();
            let deadline = Instant::now() + Duration::from_secs(5);
            while Instant::now() < deadline && !matches!(self.child.try_wait(), Ok(Some(_))) {
                std::thread::sleep(Duration::from_millis(20));
            }
            for pid in workers {
                if Path::new(&format!("/proc/{pid}")).exists() {
                    let _ = Command::new("kill")
                        .args(["-KILL", &pid.to_string()])
                        .stderr(Stdio::null())
                        .status();
                }
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Some(dir) = &self.temp_dir {
            let _ = fs::remove_dir_all(dir);
        }
    }
}

fn free_port() -> Result<u16, String> {
    let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| format!("bind: {e}"))?;
    listener
        .local_addr()
        .map(|a| a.port())
        .map_err(|e| e.to_string())
}

fn is_root() -> bool {
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

fn children(pid: u32) -> Vec<u32> {
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

/// utime + stime of a process (all its threads), in seconds.
pub(crate) fn cpu_seconds(pid: u32) -> Option<f64> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name, which is in parentheses and may hold spaces.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split(' ').collect();
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) / ticks_per_second())
}

/// `(VmRSS, VmHWM)` of one process, in bytes.
pub(crate) fn memory(pid: u32) -> Option<(u64, u64)> {
    let status = fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| -> Option<u64> {
        let line = status.lines().find(|l| l.starts_with(name))?;
        let kb: u64 = line[name.len()..].split_whitespace().next()?.parse().ok()?;
        Some(kb * 1024)
    };
    Some((field("VmRSS:")?, field("VmHWM:")?))
}

/// Pins this process (every thread it has so far: call before starting any) to `cpu`.
pub(crate) fn pin_self(cpu: usize) -> Result<(), String> {
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
pub(crate) fn have_taskset() -> bool {
    Command::new("taskset")
        .arg("-V")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// `nginx` on `PATH` or in the usual sbin folders.
pub(crate) fn find_nginx() -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin".into(), "/usr/local/sbin".into(), "/sbin".into()])
        .map(|dir| dir.join("nginx"))
        .find(|candidate| candidate.is_file())
}

/// CPU seconds the whole machine spent in user and system mode (all CPUs, interrupts
/// and steal left out), from `/proc/stat`.
pub(crate) fn machine_cpu_seconds() -> Option<f64> {
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
