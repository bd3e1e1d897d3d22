//! A folder served as nginx's `root` serves one, by embed-assets' own server:
//!
//! ```sh
//! cargo run -p example-folder -- /srv/www 0.0.0.0:8080
//! ```
//!
//! Index files and directory redirects, content ETags per version of each file,
//! ranges, `.br`/`.gz` siblings sent only while they decode to their file, small files
//! kept in memory while they do not change, paths confined to the folder (no dot
//! files but `/.well-known/`, no symbolic link on the way), the folder's own 404 and
//! 405, an access log on standard error (`RUST_LOG` filters it), and a graceful
//! shutdown on SIGTERM or Ctrl-C. A folder that is missing or unreadable stops it at
//! once, naming the path.

use std::process::ExitCode;

use embed_assets::ServeAssets;

const USAGE: &str = "usage: example-folder FOLDER [ADDRESS]   (ADDRESS: 127.0.0.1:8080)";

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let (Some(folder), address, None) = (args.next(), args.next(), args.next()) else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let address = match address.map(|address| address.into_string()) {
        None => "127.0.0.1:8080".to_owned(),
        Some(Ok(address)) => address,
        Some(Err(address)) => {
            eprintln!("the address {address:?} is not text\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    // The access log (target `embed_assets::access`) and the start-up line, on
    // standard error; `RUST_LOG` chooses, everything at INFO by default.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .init();
    // Every path the folder does not answer gets its own 404 (405 for another method on
    // a file): the router behind it has no route.
    let service = ServeAssets::folder(folder);
    match embed_assets::serve(address.as_str(), service, axum::Router::new()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("example-folder: {error}");
            ExitCode::FAILURE
        }
    }
}
