// The module is the item: the attribute takes the folder first.
#[embed_assets::embed(pub static ASSETS = "$FIXTURES/site")]
mod frontend {}

fn main() {
    let _ = &frontend::ASSETS;
}
