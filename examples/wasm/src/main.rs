//! Serves the esbuild-in-the-browser page, its `.wasm` embedded, on
//! <http://127.0.0.1:3000/>; `PORT` overrides the port.

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let port = std::env::var("PORT").unwrap_or_else(|_| "3000".to_owned());
    let listener = tokio::net::TcpListener::bind(format!("127.0.0.1:{port}")).await?;
    println!(
        "serving esbuild's wasm page on http://{}",
        listener.local_addr()?
    );
    println!("{}", example_wasm::site::ASSETS.report());
    axum::serve(listener, example_wasm::app()).await
}
