//! The server with timeouts of the big files guide (`embed_assets::guide::big_files`,
//! "Slow clients and timeouts"), as written there, so it is known to build:
//! hyper-util's builder with a timer, so a client that sends half a request head, or
//! nothing, is closed after 10 s.
//!
//! `cargo run -p example-site --bin timeouts` (port 3000).

use std::time::Duration;

use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::service::TowerToHyperService;

#[embed_assets::embed("public")]
mod frontend {}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let app = axum::Router::new().route("/api/health", axum::routing::get(|| async { "ok" }));
    let service = frontend::ASSETS.service().with_fallback(app);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:3000").await?;
    loop {
        let (stream, _) = listener.accept().await?;
        let service = TowerToHyperService::new(service.clone());
        tokio::spawn(async move {
            let mut builder = auto::Builder::new(TokioExecutor::new());
            builder
                .http1()
                .timer(TokioTimer::new())
                .header_read_timeout(Duration::from_secs(10));
            builder
                .http2()
                .timer(TokioTimer::new())
                .keep_alive_interval(Duration::from_secs(30));
            let _ = builder
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}
