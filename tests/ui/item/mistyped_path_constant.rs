use embed_assets::embed_assets;

embed_assets!(pub static ASSETS = "$FIXTURES/site", fingerprint = true);

fn main() {
    let _ = paths::CSS_APP_CS;
}
