//! Caching proxies in front of a test server, as a user deploys them: nginx with
//! `proxy_cache` and Varnish with its built-in VCL, each a child process with its
//! config, logs and storage in a fresh temporary folder, on a free port of 127.0.0.1.
//! Both say what they did in `X-Cache: HIT` / `MISS` ([`X_CACHE`]; nginx from
//! `$upstream_cache_status`, Varnish from `obj.hits`).
//!
//! Varnish runs with `http_gzip_support=off`: by default it asks the server for gzip
//! whatever the client accepts (and unzips it for clients without gzip), so no client
//! would ever get br, `dcb` or `dcz`. Nothing in either configuration knows about
//! dictionaries or codings: what keeps variants apart is the server's `Vary`.
//!
//! [`Vary::Ignored`] sets either up as a cache that keys its copies on the URL alone,
//! as a CDN does that passes unknown request fields through but does not key on them:
//! nginx with `proxy_ignore_headers Vary`, Varnish with `Vary` removed from every
//! backend response before it is stored.

use std::fmt;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use http::HeaderName;

use crate::programs;

/// Set by both caches: `HIT` or `MISS`.
pub const X_CACHE: HeaderName = HeaderName::from_static("x-cache");

/// A caching proxy the tests put in front of a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheKind {
    /// nginx with `proxy_cache`.
    Nginx,
    /// Varnish with its built-in VCL.
    Varnish,
}

impl CacheKind {
    /// Both, in the order the tests try them.
    pub const ALL: [CacheKind; 2] = [CacheKind::Nginx, CacheKind::Varnish];

    /// Its program; `None` when it is not installed (the test is skipped, or fails
    /// with `EMBED_TEST_REQUIRE_ALL=1`: see [`crate::programs`]).
    pub fn program(self) -> Option<PathBuf> {
        match self {
            CacheKind::Nginx => programs::require(&["nginx"], &["/usr/sbin"], "nginx-light"),
            CacheKind::Varnish => programs::require(&["varnishd"], &["/usr/sbin"], "varnish"),
        }
    }
}

/// Whether a cache keeps a copy per value of the request fields the response's `Vary`
/// names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Vary {
    /// As both caches do by default.
    Honoured,
    /// One copy per URL, whatever the response's `Vary` says.
    Ignored,
}

impl fmt::Display for CacheKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CacheKind::Nginx => "nginx",
            CacheKind::Varnish => "Varnish",
        })
    }
}

/// A cache child process (nginx, or Varnish's manager, whose worker exits with it)
/// caching in front of one server, with everything it writes in its own folder.
/// Killed, and the folder removed, on drop (kept when the test failed).
#[derive(Debug)]
pub struct CacheProcess {
    kind: CacheKind,
    child: Child,
    /// Where the cache listens.
    pub addr: SocketAddr,
    dir: PathBuf,
}

impl CacheProcess {
    /// Starts `kind` (its `program`) in front of `origin`, and returns once it answers
    /// HTTP.
    ///
    /// # Panics
    /// If it cannot start, or finds no free port in five tries.
    pub async fn start(kind: CacheKind, program: &Path, origin: SocketAddr) -> Self {
        Self::start_with(kind, program, origin, Vary::Honoured).await
    }

    /// [`start`](Self::start), with `Vary` honoured or ignored.
    ///
    /// # Panics
    /// If it cannot start, or finds no free port in five tries.
    pub async fn start_with(
        kind: CacheKind,
        program: &Path,
        origin: SocketAddr,
        vary: Vary,
    ) -> Self {
        Self::launch(kind, program, |dir, listen| match kind {
            CacheKind::Nginx => nginx_conf(dir, listen, &cache_location(origin, vary), ""),
            CacheKind::Varnish => varnish_vcl(dir, origin, vary),
        })
        .await
    }

    /// nginx as a load balancer, no cache: round-robin over `origins`, as in front of
    /// the replicas of a rolling deploy. With `next_on_404`, a 404 from one replica is
    /// asked of the next (`proxy_next_upstream ... http_404`), so a hashed file only the
    /// newer replica has is found whichever replica the request reached first.
    ///
    /// # Panics
    /// If it cannot start, or finds no free port in five tries.
    pub async fn start_balancer(program: &Path, origins: &[SocketAddr], next_on_404: bool) -> Self {
        let servers: String = origins
            .iter()
            .map(|origin| format!("        server {origin};\n"))
            .collect();
        let upstream = format!("    upstream replicas {{\n{servers}    }}\n");
        let retry = if next_on_404 {
            "proxy_next_upstream error timeout http_404;\n            proxy_next_upstream_tries 2;"
        } else {
            ""
        };
        let location = format!(
            "proxy_pass http://replicas;\n            proxy_http_version 1.1;\n            {retry}\n            \
             add_header X-Upstream $upstream_addr always;"
        );
        Self::launch(CacheKind::Nginx, program, |dir, listen| {
            nginx_conf(dir, listen, &location, &upstream)
        })
        .await
    }

    /// Starts `kind` with the configuration `config` writes for its folder and the
    /// address it listens on, and returns once it answers HTTP.
    async fn launch(
        kind: CacheKind,
        program: &Path,
        config: impl Fn(&Path, SocketAddr) -> String,
    ) -> Self {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .expect("clock after 1970")
            .as_nanos();
        let dir = std::env::temp_dir().join(format!(
            "embed-assets-{}-{}-{nanos}",
            kind.to_string().to_lowercase(),
            std::process::id()
        ));
        // Neither program can listen on port 0 and report the port, so take a free
        // one and try again in the rare case another process takes it first.
        for _ in 0..5 {
            std::fs::create_dir_all(&dir)
                .unwrap_or_else(|err| panic!("cannot create {}: {err}", dir.display()));
            let addr = free_addr();
            let output = std::fs::File::create(dir.join("output.log")).expect("output log");
            let mut command = Command::new(program);
            match kind {
                CacheKind::Nginx => {
                    let file = dir.join("nginx.conf");
                    std::fs::write(&file, config(&dir, addr))
                        .unwrap_or_else(|err| panic!("cannot write {}: {err}", file.display()));
                    command
                        .arg("-p")
                        .arg(&dir)
                        .arg("-c")
                        .arg(&file)
                        .arg("-e")
                        .arg(dir.join("error.log"));
                }
                CacheKind::Varnish => {
                    let vcl = dir.join("default.vcl");
                    std::fs::write(&vcl, config(&dir, addr))
                        .unwrap_or_else(|err| panic!("cannot write {}: {err}", vcl.display()));
                    command
                        // In the foreground, its working folder (shared memory log,
                        // compiled VCL) here, no management port.
                        .arg("-F")
                        .arg("-n")
                        .arg(dir.join("work"))
                        .arg("-a")
                        .arg(addr.to_string())
                        .args(["-T", "none"])
                        .arg("-f")
                        .arg(&vcl)
                        .args(["-s", "malloc,16m"])
                        // Keep clients' Accept-Encoding: see the module's doc.
                        .args(["-p", "http_gzip_support=off"])
                        // The shared memory log at its smallest, not 80 MB per test.
                        .args(["-p", "vsl_space=1M"]);
                }
            }
            let child = command
                .stdin(Stdio::null())
                .stdout(output.try_clone().expect("output log"))
                .stderr(output)
                .spawn()
                .unwrap_or_else(|err| panic!("cannot start {}: {err}", program.display()));
            let mut process = Self {
                kind,
                child,
                addr,
                dir: dir.clone(),
            };
            if process.wait_until_serving().await {
                return process;
            }
            let errors = process.errors();
            let status = process.child.try_wait().ok().flatten();
            // Taken by another process first, or gone without a word (seen once in a
            // loaded run): another port, another try. Any error it gave is final.
            assert!(
                errors.contains("Address already in use") || errors.trim().is_empty(),
                "{kind} did not start ({status:?}): {errors}"
            );
            eprintln!("{kind} did not start on {addr} ({status:?}): trying again");
            // Drop kills it and removes the folder; the loop makes it again.
            drop(process);
        }
        panic!("{kind} did not start in 5 tries (ports taken, or exits without a word)");
    }

    /// `true` once the cache answers HTTP, `false` if it exited; panics after 30 s.
    /// A TCP connect is not enough for Varnish: its manager listens while the worker
    /// process that answers is still starting. Nor is an answer: the port was free a
    /// moment before the cache was started, and another test's server may have taken it
    /// since (nginx then retries its `bind` for 2.5 s before it exits), so only an
    /// answer with this cache's own [`PROBE`] field counts.
    async fn wait_until_serving(&mut self) -> bool {
        let kind = self.kind;
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if self.answers_http().await {
                return true;
            }
            if self.child.try_wait().expect("cache status").is_some() {
                return false;
            }
            assert!(
                Instant::now() < deadline,
                "{kind} did not answer on {} within 30 s: {}",
                self.addr,
                self.errors()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Whether a `HEAD` of [`PROBE_PATH`] gets, within a second, a head that carries
    /// this cache's [`PROBE`] field with its folder's name.
    async fn answers_http(&self) -> bool {
        use tokio::io::AsyncWriteExt;
        let expected = format!("\r\n{PROBE}: {}\r\n", probe_token(&self.dir)).to_lowercase();
        let probe = async {
            let mut stream = tokio::net::TcpStream::connect(self.addr).await.ok()?;
            let request = format!(
                "HEAD {PROBE_PATH} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
                self.addr
            );
            stream.write_all(request.as_bytes()).await.ok()?;
            // A HEAD's answer is its head alone, and `Connection: close` ends it.
            let mut head = Vec::new();
            crate::read_to_close(&mut stream, &mut head).await.ok()?;
            let head = String::from_utf8_lossy(&head).to_lowercase();
            Some(head.starts_with("http/") && head.contains(&expected))
        };
        tokio::time::timeout(Duration::from_secs(1), probe)
            .await
            .ok()
            .flatten()
            .unwrap_or(false)
    }

    /// What the cache wrote to its logs, stdout and stderr.
    pub fn errors(&self) -> String {
        ["error.log", "output.log"]
            .iter()
            .map(|name| std::fs::read_to_string(self.dir.join(name)).unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\n")
    }
}

impl Drop for CacheProcess {
    fn drop(&mut self) {
        // nginx: `master_process off`, this one process is all of it. Varnish: the
        // worker process exits when its manager's CLI pipe closes.
        let _ = self.child.kill();
        let _ = self.child.wait();
        if std::thread::panicking() {
            eprintln!(
                "{} config and logs kept in {}",
                self.kind,
                self.dir.display()
            );
        } else {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// Set only on the answer to [`PROBE_PATH`], which each cache gives itself (the
/// origin never sees it), to the name of the cache's folder: the cache that answers is
/// the one this process started.
const PROBE: &str = "X-Cache-Probe";

/// The path of the cache's own answer with [`PROBE`].
const PROBE_PATH: &str = "/.well-known/embed-assets-cache-probe";

/// What the cache in `dir` sets [`PROBE`] to: the folder's name (the test process's id
/// and a time in nanoseconds).
fn probe_token(dir: &Path) -> String {
    dir.file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// nginx: one process in the foreground, a `proxy_cache` with the
/// default key (scheme, host, URI), nothing about dictionaries.
fn nginx_conf(dir: &Path, listen: SocketAddr, location: &str, upstream: &str) -> String {
    let token = probe_token(dir);
    let dir = dir.display();
    format!(
        r#"# Written by the tests (integration_tests::caches): one process in the foreground, every file in {dir}.
daemon off;
master_process off;
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log info;

events {{
    worker_connections 64;
}}

http {{
    access_log {dir}/access.log;
    client_body_temp_path {dir}/client_body;
    proxy_temp_path {dir}/proxy_temp;
    fastcgi_temp_path {dir}/fastcgi_temp;
    uwsgi_temp_path {dir}/uwsgi_temp;
    scgi_temp_path {dir}/scgi_temp;
    proxy_cache_path {dir}/cache levels=1:2 keys_zone=assets:1m max_size=64m inactive=10m use_temp_path=off;
{upstream}
    server {{
        listen {listen};

        location = {PROBE_PATH} {{
            add_header {PROBE} "{token}" always;
            return 204;
        }}

        location / {{
            {location}
        }}
    }}
}}
"#
    )
}

/// The `location` of a `proxy_cache` in front of `origin`, with `X-Cache` saying what
/// the cache did.
fn cache_location(origin: SocketAddr, vary: Vary) -> String {
    let ignore = match vary {
        Vary::Honoured => "",
        Vary::Ignored => "proxy_ignore_headers Vary;",
    };
    format!(
        "proxy_pass http://{origin};\n            proxy_http_version 1.1;\n            \
         proxy_cache assets;\n            proxy_cache_revalidate on;\n            {ignore}\n            \
         add_header X-Cache $upstream_cache_status always;"
    )
}

/// Varnish with the built-in VCL (default hash: URL and host) and one backend; the
/// additions are the `X-Cache` header the tests read, a `BAN` method that bans by the
/// expression in `X-Ban` (a purge by tag), and, `Vary` ignored, its removal from
/// backend responses (the built-in `vcl_backend_response` runs after).
fn varnish_vcl(dir: &Path, origin: SocketAddr, vary: Vary) -> String {
    let (host, port) = (origin.ip(), origin.port());
    let token = probe_token(dir);
    let ignore = match vary {
        Vary::Honoured => "",
        Vary::Ignored => "sub vcl_backend_response {\n    unset beresp.http.Vary;\n}\n",
    };
    format!(
        r#"# Written by the tests (integration_tests::caches).
vcl 4.1;

import std;

backend origin {{
    .host = "{host}";
    .port = "{port}";
}}

# A purge by tag, as a deployment's script would send it: `BAN` with the ban
# expression in `X-Ban` (only the tests on 127.0.0.1 reach it); 400 with Varnish's
# reason when the expression is wrong.
sub vcl_recv {{
    if (req.url == "{PROBE_PATH}") {{
        return (synth(204));
    }}
    if (req.method == "BAN") {{
        if (std.ban(req.http.X-Ban)) {{
            return (synth(200, "Banned"));
        }}
        return (synth(400, std.ban_error()));
    }}
}}

# The answer that tells the tests this Varnish is up (integration_tests::caches).
sub vcl_synth {{
    if (req.url == "{PROBE_PATH}") {{
        set resp.http.{PROBE} = "{token}";
        return (deliver);
    }}
}}

sub vcl_deliver {{
    if (obj.hits > 0) {{
        set resp.http.X-Cache = "HIT";
    }} else {{
        set resp.http.X-Cache = "MISS";
    }}
}}
{ignore}"#
    )
}

/// A 127.0.0.1 address with a port nothing listened on a moment ago.
fn free_addr() -> SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
    listener.local_addr().expect("local address")
}
