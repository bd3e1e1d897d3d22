//! The server under test: `embed-assets`'s [`ServeAssets`](embed_assets::ServeAssets)
//! or tower-http's `ServeDir` on [`MEDIA_DIR`], as axum's fallback
//! service, on 127.0.0.1.

use std::io::{self, Read, Write};
use std::net::SocketAddr;

use tower_http::services::ServeDir;

use crate::{COLD, MEDIA, MEDIA_DIR};

/// Which implementation serves the files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `MEDIA.service()`, with [`Options::chunk`] as `.chunk_size()` when set.
    Ours,
    /// `tower_http::services::ServeDir` with its defaults (64 KiB reads).
    ServeDir,
    /// `MEDIA.service()` (with the same options as [`Mode::Ours`]) under the library's
    /// own server, `embed_assets::Server`, one worker per CPU the process may use: on
    /// Linux it sends the files with `sendfile`.
    OursServe,
    /// `ServeAssets::folder(MEDIA_DIR)` (no table built at compile time: the disk mode)
    /// under `embed_assets::Server`, as [`Mode::OursServe`].
    OursFolder,
}

/// What `bench-server` was asked to do.
#[derive(Debug, Clone)]
pub struct Options {
    /// The implementation.
    pub mode: Mode,
    /// Port on 127.0.0.1; 0 picks a free one (printed on start).
    pub port: u16,
    /// `.chunk_size()` for [`Mode::Ours`]; `None` keeps the library's default.
    pub chunk: Option<usize>,
    /// `.read_budget()` for [`Mode::Ours`]; `None` keeps the library's default.
    pub read_budget: Option<usize>,
    /// Tokio worker threads; `None` is tokio's default (the CPUs this process may use).
    pub workers: Option<usize>,
    /// Exit when standard input reaches end of file, so the process never outlives the
    /// driver that holds the other end of the pipe.
    pub exit_with_stdin: bool,
    /// Serve [`COLD`]'s files from this folder instead of [`MEDIA_DIR`].
    pub cold: Option<std::path::PathBuf>,
    /// `Server::sendfile_whole_files(true)` for [`Mode::OursServe`].
    pub sendfile_whole: bool,
}

/// The usage line of the server's arguments.
pub const USAGE: &str = "--mode ours|servedir|ours-serve|ours-folder [--port N] [--chunk BYTES] \
                         [--read-budget BYTES] [--workers N] [--exit-with-stdin] [--cold DIR] \
                         [--sendfile-whole]";

impl Options {
    /// Parses the arguments after the program name.
    ///
    /// # Errors
    /// A message naming the bad or missing argument.
    pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Self, String> {
        let mut options = Options {
            mode: Mode::Ours,
            port: 0,
            chunk: None,
            read_budget: None,
            workers: None,
            exit_with_stdin: false,
            cold: None,
            sendfile_whole: false,
        };
        let mut mode = None;
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            let mut value = |name: &str| {
                args.next()
                    .ok_or_else(|| format!("{name} needs a value; usage: {USAGE}"))
            };
            match arg.as_str() {
                "--mode" => {
                    mode = Some(match value("--mode")?.as_str() {
                        "ours" => Mode::Ours,
                        "servedir" => Mode::ServeDir,
                        "ours-serve" => Mode::OursServe,
                        "ours-folder" => Mode::OursFolder,
                        other => return Err(format!("unknown mode `{other}`; usage: {USAGE}")),
                    })
                }
                "--port" => options.port = number(&value("--port")?)?,
                "--chunk" => options.chunk = Some(number(&value("--chunk")?)?),
                "--read-budget" => options.read_budget = Some(number(&value("--read-budget")?)?),
                "--workers" => options.workers = Some(number(&value("--workers")?)?),
                "--exit-with-stdin" => options.exit_with_stdin = true,
                "--cold" => options.cold = Some(value("--cold")?.into()),
                "--sendfile-whole" => options.sendfile_whole = true,
                other => return Err(format!("unknown argument `{other}`; usage: {USAGE}")),
            }
        }
        options.mode = mode.ok_or_else(|| format!("--mode is required; usage: {USAGE}"))?;
        Ok(options)
    }
}

fn number<T: std::str::FromStr>(text: &str) -> Result<T, String> {
    text.parse()
        .map_err(|_| format!("`{text}` is not a valid number"))
}

/// Runs the server until the process is killed (or standard input closes, with
/// [`Options::exit_with_stdin`]). Prints `media folder: PATH` and then
/// `listening on ADDR` on standard output once it accepts connections.
///
/// # Errors
/// The runtime, the listener or the start-up disk check failed.
pub fn run(options: &Options) -> io::Result<()> {
    if options.exit_with_stdin {
        std::thread::spawn(|| {
            let mut sink = [0u8; 64];
            while matches!(io::stdin().read(&mut sink), Ok(n) if n > 0) {}
            std::process::exit(0);
        });
    }
    let ours = || {
        let mut service = match &options.cold {
            Some(dir) => COLD.service().disk_root(dir),
            None => MEDIA.service(),
        };
        if let Some(chunk) = options.chunk {
            service = service.chunk_size(chunk);
        }
        if let Some(budget) = options.read_budget {
            service = service.read_budget(budget);
        }
        service.check_disk().map_err(io::Error::other)?;
        Ok::<_, io::Error>(service)
    };
    let folder = || match &options.cold {
        Some(dir) => dir.display().to_string(),
        None => MEDIA_DIR.to_owned(),
    };
    if matches!(options.mode, Mode::OursServe | Mode::OursFolder) {
        let service = match options.mode {
            Mode::OursFolder => embed_assets::ServeAssets::folder(folder()),
            _ => ours()?,
        };
        let mut server =
            embed_assets::Server::bind(SocketAddr::from(([127, 0, 0, 1], options.port)))?;
        if let Some(workers) = options.workers {
            server = server.workers(workers.max(1));
        }
        server = server.sendfile_whole_files(options.sendfile_whole);
        announce(&folder(), server.local_addr())?;
        return server.serve(service, axum::Router::new());
    }
    let mut runtime = tokio::runtime::Builder::new_multi_thread();
    runtime.enable_all();
    if let Some(workers) = options.workers {
        runtime.worker_threads(workers.max(1));
    }
    let runtime = runtime.build()?;
    let app = match options.mode {
        Mode::Ours | Mode::OursServe | Mode::OursFolder => {
            axum::Router::new().fallback_service(ours()?)
        }
        Mode::ServeDir => axum::Router::new().fallback_service(ServeDir::new(folder())),
    };
    runtime.block_on(async move {
        let listener =
            tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], options.port))).await?;
        announce(&folder(), listener.local_addr()?)?;
        axum::serve(listener, app).await
    })
}

/// Prints the folder served and the address, as the driver expects them.
fn announce(folder: &str, addr: SocketAddr) -> io::Result<()> {
    let mut out = io::stdout().lock();
    writeln!(out, "media folder: {folder}")?;
    writeln!(out, "listening on {addr}")?;
    out.flush()
}
