//! A server under test as a child process: started (pinned with `taskset` by the
//! caller's command), waited for until it listens, measured from `/proc`, and stopped
//! with every process it started when dropped. Rust servers are this crate's binaries
//! printing `listening on ADDR`; nginx gets a generated config in a temp folder.

use std::fs;
use std::io::{BufRead, BufReader};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::procs::{
    children, cpu_seconds, free_port, is_root, machine_cpu_seconds, pinned,
    waited_children_cpu_seconds,
};

/// How long a server may take to start listening.
const START_TIMEOUT: Duration = Duration::from_secs(30);

/// Where Debian's `libnginx-mod-http-brotli-static` puts its module.
const BROTLI_MODULES: [&str; 2] = [
    "/usr/lib/nginx/modules/ngx_http_brotli_static_module.so",
    "/usr/share/nginx/modules/ngx_http_brotli_static_module.so",
];

/// A running server; stopped (with every process it started) when dropped.
#[derive(Debug)]
pub struct ChildServer {
    /// The name in the tables.
    pub name: String,
    /// Where it listens, on 127.0.0.1.
    pub addr: SocketAddr,
    child: Child,
    /// nginx: a master and its workers, stopped with SIGTERM.
    nginx: bool,
    /// nginx's prefix folder (config, logs, pid file), removed on drop.
    temp_dir: Option<PathBuf>,
}

/// What [`ChildServer::start_nginx`] puts in the config besides the common parts.
#[derive(Debug, Clone, Copy)]
pub struct NginxConfig<'a> {
    /// Main-context lines before `worker_processes` (e.g. `load_module ...;`).
    pub main: &'a str,
    /// Directives of the `http` block (sendfile, caches, types, ...).
    pub http: &'a str,
    /// The folder served.
    pub root: &'a str,
    /// Part of the temp folder's name, so two drivers never share one.
    pub tag: &'a str,
}

impl ChildServer {
    /// Runs `command` (this crate's server binary, stdin/stdout piped here) and waits
    /// for its `listening on ADDR` line.
    ///
    /// # Errors
    /// It could not start, or did not say where it listens in time.
    pub fn start_listening(name: String, mut command: Command) -> Result<Self, String> {
        command
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
                // Nobody may listen any more; keep draining so the server never blocks
                // on a full pipe.
                let _ = tx.send(line);
            }
        });
        let mut server = ChildServer {
            name,
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            child,
            nginx: false,
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

    /// Starts `serve --port 0 --exit-with-stdin --mode MODE` of this same executable
    /// (a driver's own `serve` subcommand) pinned to `cpu`, named `mode` in the tables.
    ///
    /// # Errors
    /// As [`start_listening`](Self::start_listening).
    pub fn start_serve(mode: &str, cpu: Option<usize>) -> Result<Self, String> {
        let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
        let mut command = pinned(cpu, &exe);
        command
            .args(["serve", "--port", "0", "--exit-with-stdin", "--mode"])
            .arg(mode);
        Self::start_listening(mode.to_owned(), command)
    }

    /// nginx serving the static files under `root` as they are served for speed:
    /// `sendfile`, `tcp_nopush`, `tcp_nodelay`, keep-alive without a request limit,
    /// `open_file_cache`, `gzip_static` and, when Debian's
    /// `libnginx-mod-http-brotli-static` is installed, `brotli_static`; then `http`'s
    /// directives (types, headers) and `default_type application/octet-stream`. Named
    /// `nginx`, or `nginx (no br)` without the module; `tag` names its temp folder.
    ///
    /// # Errors
    /// As [`start_nginx`](Self::start_nginx).
    pub fn start_nginx_static(
        nginx: &Path,
        cpu: Option<usize>,
        root: &str,
        tag: &str,
        http: &str,
    ) -> Result<Self, String> {
        let brotli = BROTLI_MODULES.iter().find(|m| Path::new(m).is_file());
        let (main, brotli_static) = match brotli {
            Some(module) => (format!("load_module {module};\n"), "brotli_static on;"),
            None => (String::new(), ""),
        };
        let http = format!(
            "\x20   sendfile on;\n\
             \x20   tcp_nopush on;\n\
             \x20   tcp_nodelay on;\n\
             \x20   keepalive_timeout 65;\n\
             \x20   keepalive_requests 100000000;\n\
             \x20   open_file_cache max=1000 inactive=60s;\n\
             \x20   open_file_cache_valid 60s;\n\
             \x20   open_file_cache_errors on;\n\
             \x20   gzip_static on;\n\
             \x20   {brotli_static}\n\
             {http}\
             \x20   default_type application/octet-stream;\n"
        );
        let name = if brotli.is_some() {
            "nginx"
        } else {
            "nginx (no br)"
        };
        let config = NginxConfig {
            main: &main,
            http: &http,
            root,
            tag,
        };
        Self::start_nginx(nginx, cpu, name.into(), config)
    }

    /// Writes an nginx.conf into a temp folder and runs `nginx -g 'daemon off;'` on a
    /// free port of 127.0.0.1: one worker, no access log, `config`'s directives, and
    /// the server block serving `config.root`. Waits until the worker accepts.
    ///
    /// # Errors
    /// The config could not be written, or nginx exited or did not listen in time.
    pub fn start_nginx(
        nginx: &Path,
        cpu: Option<usize>,
        name: String,
        config: NginxConfig<'_>,
    ) -> Result<Self, String> {
        let NginxConfig {
            main,
            http,
            root,
            tag,
        } = config;
        let port = free_port()?;
        let dir = std::env::temp_dir().join(format!("{tag}-nginx-{}", std::process::id()));
        fs::create_dir_all(dir.join("logs")).map_err(|e| format!("{}: {e}", dir.display()))?;
        let d = dir.display();
        // As root, nginx would run its worker as `nobody`, who may not read a folder
        // under a private home or work tree.
        let user = if is_root() { "user root;\n" } else { "" };
        let conf = format!(
            "{user}{main}worker_processes 1;\n\
             pid {d}/nginx.pid;\n\
             error_log {d}/logs/error.log warn;\n\
             events {{ worker_connections 1024; }}\n\
             http {{\n\
             \x20   access_log off;\n\
             {http}\
             \x20   client_body_temp_path {d}/client_body;\n\
             \x20   proxy_temp_path {d}/proxy;\n\
             \x20   fastcgi_temp_path {d}/fastcgi;\n\
             \x20   uwsgi_temp_path {d}/uwsgi;\n\
             \x20   scgi_temp_path {d}/scgi;\n\
             \x20   server {{\n\
             \x20       listen 127.0.0.1:{port};\n\
             \x20       root {root};\n\
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
        let mut server = ChildServer {
            name,
            addr: SocketAddr::from(([127, 0, 0, 1], port)),
            child,
            nginx: true,
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

    /// The child's process id (nginx's master).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Direct children (nginx's workers).
    fn children(&self) -> Vec<u32> {
        children(self.pid())
    }

    /// This server's processes: the child, and nginx's workers.
    pub fn pids(&self) -> Vec<u32> {
        let mut pids = vec![self.pid()];
        pids.extend(self.children());
        pids
    }

    /// User + system CPU time of every process of this server, in seconds.
    pub fn cpu_seconds(&self) -> f64 {
        self.pids().into_iter().filter_map(cpu_seconds).sum()
    }

    /// Whether the process is still running.
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

/// CPU seconds of `servers`, this process and the children it waited for (wrk); and
/// of the whole machine. The difference over a round is what other processes used.
pub fn accounted_and_machine_cpu(servers: &[ChildServer]) -> Option<(f64, f64)> {
    let ours: f64 = servers.iter().map(ChildServer::cpu_seconds).sum::<f64>()
        + cpu_seconds(std::process::id())?
        + waited_children_cpu_seconds()?;
    Some((ours, machine_cpu_seconds()?))
}

impl Drop for ChildServer {
    fn drop(&mut self) {
        if self.nginx {
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
