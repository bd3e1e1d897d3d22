#[embed_assets::embed("$FIXTURES/site")]
mod frontend {
    pub static ASSETS: u8 = 0;
}

fn main() {
    let _ = frontend::ASSETS;
}
