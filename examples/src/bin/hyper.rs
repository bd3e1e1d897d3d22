//! The same site with plain hyper 1 and no web framework: `ServeAssets::respond` turns a
//! request head into a response future, and `Assets::get` gives metadata directly.
//!
//! `cargo run -p example-site --bin hyper`; `PORT` picks the port (default 3001).

use std::convert::Infallible;

use embed_assets::{Assets, Encoding, embed_assets};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;

static ASSETS: Assets = embed_assets!("public");

#[tokio::main]
async fn main() -> std::io::Result<()> {
    // The framework-agnostic API: every asset with its validators and stored bodies.
    for asset in ASSETS.iter() {
        let br = asset.body(Encoding::Brotli).map_or(0, <[u8]>::len);
        println!(
            "{:<22} {:>7} bytes (br {br:>6}) {}",
            asset.path(),
            asset.len(),
            asset.etag()
        );
    }
    let service = ASSETS.service();
    let port = std::env::var("PORT").unwrap_or_else(|_| "3001".to_owned());
    let listener = tokio::net::TcpListener::bind(format!("127.0.0.1:{port}")).await?;
    println!("serving on http://{}/", listener.local_addr()?);
    loop {
        let (stream, _) = listener.accept().await?;
        let service = service.clone();
        tokio::spawn(async move {
            let handler = service_fn(move |request| {
                let response = service.respond(&request);
                async move { Ok::<_, Infallible>(response.await) }
            });
            // A client that goes away mid-request ends only its own connection.
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), handler)
                .await;
        });
    }
}
