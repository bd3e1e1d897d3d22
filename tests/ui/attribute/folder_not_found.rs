#[embed_assets::embed("$FIXTURES/no-such-folder")]
pub mod frontend {}

fn main() {
    // Still a table, so only our error is reported.
    assert!(frontend::ASSETS.get("/index.html").is_none());
}
