#[embed_assets::embed("$FIXTURES/site")]
struct Frontend;

fn main() {
    let _ = Frontend;
}
