#[embed_assets::embed("$FIXTURES/site", fingerprint = ["*.css"])]
mod frontend {}

fn main() {
    let _ = frontend::paths::CSS_APP_CS;
}
