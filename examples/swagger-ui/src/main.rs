//! Serves Swagger UI (embedded from npm's `swagger-ui-dist`) for the JSON API beside it
//! on <http://127.0.0.1:3000/>; `PORT` overrides the port.

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let port = std::env::var("PORT").unwrap_or_else(|_| "3000".to_owned());
    let listener = tokio::net::TcpListener::bind(format!("127.0.0.1:{port}")).await?;
    println!("serving Swagger UI on http://{}", listener.local_addr()?);
    println!("{}", example_swagger_ui::ui::ASSETS.report());
    axum::serve(listener, example_swagger_ui::app()).await
}
