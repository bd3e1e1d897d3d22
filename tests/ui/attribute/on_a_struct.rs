#[embed_runtime::embed("$FIXTURES/site")]
struct Frontend;

fn main() {
    let _ = Frontend;
}
