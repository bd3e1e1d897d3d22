//! `bench-tls peer`: the Rust server a user would pick for HTTP Arena's static-tls
//! shape without this crate: axum-server with rustls (aws-lc-rs, as ours; TLS 1.3 only,
//! ALPN `http/1.1`, as the profile asks) in front of an axum `Router` whose fallback is
//! tower-http's `ServeDir` with its `.br` and `.gz` siblings, reading HTTP Arena's files
//! from disk on every request. tokio's default runtime: one worker per CPU the process
//! may use (one, pinned by its parent).

use std::io::Write as _;
use std::net::{SocketAddr, TcpListener};
use std::path::Path;
use std::sync::Arc;

use axum_server::tls_rustls::RustlsConfig;
use tower_http::services::ServeDir;

/// Serves the folder `root` over TLS on a free port of 127.0.0.1; prints `listening on
/// ADDR`. Runs until the process ends (its parent closes standard input).
pub(crate) fn run(certificate: &Path, key: &Path, root: &Path) -> Result<(), String> {
    let config = crate::https::server_config(certificate, key, false)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let files = ServeDir::new(root).precompressed_br().precompressed_gzip();
    let app = axum::Router::new().fallback_service(files);
    runtime.block_on(async move {
        let listener =
            TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0))).map_err(|e| e.to_string())?;
        let addr = listener.local_addr().map_err(|e| e.to_string())?;
        let server =
            axum_server::from_tcp_rustls(listener, RustlsConfig::from_config(Arc::new(config)))
                .map_err(|e| e.to_string())?;
        let mut out = std::io::stdout().lock();
        writeln!(out, "listening on {addr}")
            .and_then(|()| out.flush())
            .map_err(|e| e.to_string())?;
        drop(out);
        server
            .serve(app.into_make_service())
            .await
            .map_err(|e| e.to_string())
    })
}
