//! The servers under test as child processes (`bench::child`): this executable's
//! `serve` mode for each Rust crate, and nginx configured as users run it for a
//! static site.

use std::path::Path;

use bench::child::{ChildServer, NginxConfig};
use bench::procs::pinned;
use bench::site::Mode;

/// A running server; stopped with every process it started when dropped.
pub(crate) type Server = ChildServer;

/// Where Debian's `libnginx-mod-http-brotli-static` puts its module.
const BROTLI_MODULES: [&str; 2] = [
    "/usr/lib/nginx/modules/ngx_http_brotli_static_module.so",
    "/usr/share/nginx/modules/ngx_http_brotli_static_module.so",
];

/// Starts `bench-static serve --mode NAME` (this same executable).
pub(crate) fn start_rust(mode: Mode, cpu: Option<usize>) -> Result<Server, String> {
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    let mut command = pinned(cpu, &exe);
    command
        .args(["serve", "--port", "0", "--exit-with-stdin", "--mode"])
        .arg(mode.name());
    ChildServer::start_listening(mode.name().to_owned(), command)
}

/// nginx serving `root`: one worker, `sendfile`, `open_file_cache`, `gzip_static`
/// and, when Debian's module is installed, `brotli_static`; keep-alive without a
/// request limit.
pub(crate) fn start_nginx(nginx: &Path, root: &str, cpu: Option<usize>) -> Result<Server, String> {
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
         \x20   gzip_vary on;\n\
         \x20   {brotli_static}\n\
         \x20   types {{\n\
         \x20       text/html html;\n\
         \x20       text/css css;\n\
         \x20       text/javascript js;\n\
         \x20       image/x-icon ico;\n\
         \x20       image/png png;\n\
         \x20   }}\n\
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
        tag: "bench-static",
    };
    ChildServer::start_nginx(nginx, cpu, name.into(), config)
}
