use embed_assets::embed_assets;

embed_assets!(pub static ASSETS = "$FIXTURES/site", fingerprint = 3);

fn main() {
    let _ = ASSETS.len();
}
