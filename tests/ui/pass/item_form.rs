use embed_assets::embed_assets;

embed_assets!(pub(crate) static ASSETS = "$FIXTURES/site", fingerprint = ["*.css", "*.js"]);

fn main() {
    assert_eq!(ASSETS.url("/css/app.css"), Some(paths::CSS_APP_CSS));
    assert_ne!(paths::CSS_APP_CSS, "/css/app.css");
    assert_eq!(paths::INDEX_HTML, "/index.html");
}
