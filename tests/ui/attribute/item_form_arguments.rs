// The module is the item: the attribute takes the folder first.
#[embed_runtime::embed(pub static ASSETS = "$FIXTURES/site")]
mod frontend {}

fn main() {
    let _ = &frontend::ASSETS;
}
