//! Serves the Vite app of `frontend/` (built during `cargo build`) on
//! <http://127.0.0.1:3000/>; `PORT` overrides the port.

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let port = std::env::var("PORT").unwrap_or_else(|_| "3000".to_owned());
    let listener = tokio::net::TcpListener::bind(format!("127.0.0.1:{port}")).await?;
    println!("serving the Vite app on http://{}", listener.local_addr()?);
    println!(
        "its entry script: {}",
        example_vite::frontend::paths::entries::INDEX_HTML.file()
    );
    axum::serve(listener, example_vite::app()).await
}
