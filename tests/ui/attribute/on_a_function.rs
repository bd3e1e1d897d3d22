#[embed_assets::embed("$FIXTURES/site")]
fn frontend() {}

fn main() {
    frontend();
}
