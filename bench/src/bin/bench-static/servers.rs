//! The servers under test as child processes (`bench::child`): this executable's
//! `serve` mode for each Rust crate, and nginx configured as users run it for a
//! static site.

use std::path::Path;

use bench::child::ChildServer;

/// A running server; stopped with every process it started when dropped.
pub(crate) type Server = ChildServer;

/// nginx serving `root`: one worker, `sendfile`, `open_file_cache`, `gzip_static`
/// and, when Debian's module is installed, `brotli_static`
/// ([`ChildServer::start_nginx_static`]), with `gzip_vary` and the site's types.
pub(crate) fn start_nginx(nginx: &Path, root: &str, cpu: Option<usize>) -> Result<Server, String> {
    let http = "\x20   gzip_vary on;\n\
                \x20   types {\n\
                \x20       text/html html;\n\
                \x20       text/css css;\n\
                \x20       text/javascript js;\n\
                \x20       image/x-icon ico;\n\
                \x20       image/png png;\n\
                \x20   }\n";
    ChildServer::start_nginx_static(nginx, cpu, root, "bench-static", http)
}
