//! The servers under test as child processes: start (pinned with `taskset`), wait
//! until they listen, read their CPU time from `/proc`, stop them on drop.

use std::fs;
use std::io::{BufRead, BufReader};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use bench::procs::{self, pinned};
use bench::site::Mode;

/// How long a server may take to start listening.
const START_TIMEOUT: Duration = Duration::from_secs(30);

/// Where Debian's `libnginx-mod-http-brotli-static` puts its module.
const BROTLI_MODULES: [&str; 2] = [
    "/usr/lib/nginx/modules/ngx_http_brotli_static_module.so",
    "/usr/share/nginx/modules/ngx_http_brotli_static_module.so",
];

/// A running server; stopped (with every process it started) when dropped.
pub(crate) struct Server {
    pub(crate) name: String,
    /// nginx: a master and its workers.
    nginx: bool,
    pub(crate) addr: SocketAddr,
    child: Child,
    /// nginx's prefix folder (config, logs, pid file), removed on drop.
    temp_dir: Option<PathBuf>,
}

impl Server {
    /// Starts `bench-static serve --mode NAME` (this same executable).
    pub(crate) fn start_rust(mode: Mode, cpu: Option<usize>) -> Result<Self, String> {
        let name = mode.name().to_owned();
        let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
        let mut command = pinned(cpu, &exe);
        command
            .args(["serve", "--port", "0", "--exit-with-stdin", "--mode"])
            .arg(mode.name())
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
        let mut server = Server {
            name,
            nginx: false,
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

    /// Writes an nginx.conf into a temp folder and runs `nginx -g 'daemon off;'` on a
    /// free port of 127.0.0.1, serving `root`: one worker, `sendfile`,
    /// `open_file_cache`, `gzip_static` and, when Debian's module is installed,
    /// `brotli_static`; no access log, keep-alive without a request limit.
    pub(crate) fn start_nginx(
        nginx: &Path,
        root: &str,
        cpu: Option<usize>,
    ) -> Result<Self, String> {
        let port = procs::free_port()?;
        let dir = std::env::temp_dir().join(format!("bench-static-nginx-{}", std::process::id()));
        fs::create_dir_all(dir.join("logs")).map_err(|e| format!("{}: {e}", dir.display()))?;
        let d = dir.display();
        // As root, nginx would run its worker as `nobody`, who may not read the site
        // folder under a private home or work tree.
        let user = if procs::is_root() { "user root;\n" } else { "" };
        let brotli = BROTLI_MODULES.iter().find(|m| Path::new(m).is_file());
        let (load_brotli, brotli_static) = match brotli {
            Some(module) => (format!("load_module {module};\n"), "brotli_static on;"),
            None => (String::new(), ""),
        };
        let conf = format!(
            "{user}{load_brotli}worker_processes 1;\n\
             pid {d}/nginx.pid;\n\
             error_log {d}/logs/error.log warn;\n\
             events {{ worker_connections 1024; }}\n\
             http {{\n\
             \x20   access_log off;\n\
             \x20   sendfile on;\n\
             \x20   tcp_nopush on;\n\
             \x20   tcp_nodelay on;\n\
             \x20   keepalive_timeout 65;\n\
             \x20   keepalive_requests 100000000;\n\
             \x20   open_file_cache max=1000 inactive=60s;\n\
             \x20   open_file_cache_valid 60s;\n\
             \x20   open_file_cache_errors on;\n\
             \x20   gzip_static on;\n\
             \x20   gzip_vary on;\n\
             \x20   {brotli_static}\n\
             \x20   types {{\n\
             \x20       text/html html;\n\
             \x20       text/css css;\n\
             \x20       text/javascript js;\n\
             \x20       image/x-icon ico;\n\
             \x20       image/png png;\n\
             \x20   }}\n\
             \x20   default_type application/octet-stream;\n\
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
        let mut server = Server {
            name: if brotli.is_some() {
                "nginx".into()
            } else {
                "nginx (no br)".into()
            },
            nginx: true,
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
        procs::children(self.pid())
    }

    /// This server's processes: the child, and nginx's workers.
    pub(crate) fn pids(&self) -> Vec<u32> {
        let mut pids = vec![self.pid()];
        pids.extend(self.children());
        pids
    }

    /// User + system CPU time of every process of this server, in seconds.
    pub(crate) fn cpu_seconds(&self) -> f64 {
        self.pids().into_iter().filter_map(procs::cpu_seconds).sum()
    }

    /// Whether the process is still running.
    pub(crate) fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for Server {
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
