//! The servers under test as child processes (`bench::child`), with what bench-disk
//! reads of them besides CPU time: memory, threads, the resettable peak.

use std::fs;
use std::ops::{Deref, DerefMut};
use std::path::Path;

use bench::child::{ChildServer, NginxConfig};
use bench::procs::pinned;

/// Which server a child process is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Nginx,
    ServeDir,
    /// `chunk: None` is the library's default chunk size.
    Ours {
        chunk: Option<usize>,
    },
    /// The same service under the library's own server (`embed_assets::Server`);
    /// `whole`: with `sendfile_whole_files(true)`.
    OursServe {
        whole: bool,
    },
    /// `ServeAssets::folder` over the media folder (disk mode, no table) under
    /// `embed_assets::Server`.
    OursFolder,
    /// The user-style binary (`bench::user`): the same service under the default
    /// `Server`, in a crate of its own.
    User,
}

impl Kind {
    /// Whether it is the library, in any set-up.
    pub(crate) fn is_ours(self) -> bool {
        matches!(
            self,
            Kind::Ours { .. } | Kind::OursServe { .. } | Kind::OursFolder | Kind::User
        )
    }
}

/// A running server and which one it is; stopped with every process it started when
/// dropped.
pub(crate) struct Server {
    pub(crate) kind: Kind,
    inner: ChildServer,
}

impl Deref for Server {
    type Target = ChildServer;

    fn deref(&self) -> &ChildServer {
        &self.inner
    }
}

impl DerefMut for Server {
    fn deref_mut(&mut self) -> &mut ChildServer {
        &mut self.inner
    }
}

impl Server {
    /// Starts `bench-disk serve ...` (this same executable) as `kind`.
    /// `env` is added to the server's environment (e.g. `MALLOC_ARENA_MAX=2`).
    pub(crate) fn start_rust(
        name: String,
        kind: Kind,
        cpu: Option<usize>,
        env: &[(String, String)],
    ) -> Result<Self, String> {
        Self::start_rust_with(name, kind, cpu, env, &[])
    }

    /// As [`start_rust`](Self::start_rust), with `extra` server arguments (`--cold DIR`).
    pub(crate) fn start_rust_with(
        name: String,
        kind: Kind,
        cpu: Option<usize>,
        env: &[(String, String)],
        extra: &[&std::ffi::OsStr],
    ) -> Result<Self, String> {
        let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
        let mut command = pinned(cpu, &exe);
        command.args(["serve", "--port", "0", "--exit-with-stdin"]);
        command.args(extra);
        command.arg("--mode");
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
            Kind::OursServe { whole } => {
                command.arg("ours-serve");
                if whole {
                    command.arg("--sendfile-whole");
                }
            }
            Kind::OursFolder => {
                command.arg("ours-folder");
            }
            Kind::Nginx => return Err("nginx is started by start_nginx".into()),
            Kind::User => return Err("the user-style binary is started by start_user".into()),
        }
        command.envs(env.iter().map(|(k, v)| (k, v)));
        let inner = ChildServer::start_listening(name, command)?;
        Ok(Server { kind, inner })
    }

    /// The user-style binary at `binary` (built by `bench::user::build`), named `name`.
    pub(crate) fn start_user(
        name: &str,
        binary: &Path,
        cpu: Option<usize>,
    ) -> Result<Self, String> {
        let inner = bench::user::start(binary, name, cpu)?;
        Ok(Server {
            kind: Kind::User,
            inner,
        })
    }

    /// nginx with one worker and `sendfile on`, serving `media`.
    pub(crate) fn start_nginx(
        nginx: &Path,
        media: &str,
        cpu: Option<usize>,
    ) -> Result<Self, String> {
        Self::start_nginx_with(
            nginx,
            media,
            cpu,
            "nginx (sendfile)",
            NGINX_SENDFILE,
            "bench-disk",
        )
    }

    /// nginx with one worker, the `http` block's settings `http` and the types of
    /// the media, serving `media`; `tag` names its temporary folder.
    pub(crate) fn start_nginx_with(
        nginx: &Path,
        media: &str,
        cpu: Option<usize>,
        name: &str,
        http: &str,
        tag: &str,
    ) -> Result<Self, String> {
        let http = format!(
            "{http}\x20   keepalive_timeout 65;\n\
             \x20   types {{ text/html html; application/octet-stream bin; }}\n\
             \x20   default_type application/octet-stream;\n"
        );
        let config = NginxConfig {
            main: "",
            http: &http,
            root: media,
            tag,
        };
        let inner = ChildServer::start_nginx(nginx, cpu, name.into(), config)?;
        Ok(Server {
            kind: Kind::Nginx,
            inner,
        })
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
}

/// nginx as the hot-cache benchmark runs it: `sendfile on`, `tcp_nopush on`.
pub(crate) const NGINX_SENDFILE: &str = "\x20   sendfile on;\n\x20   tcp_nopush on;\n";

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
