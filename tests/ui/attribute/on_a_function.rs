#[embed_runtime::embed("$FIXTURES/site")]
fn frontend() {}

fn main() {
    frontend();
}
