// The attribute cannot add items to a module whose body is in another file.
#[embed_assets::embed("$FIXTURES/site")]
mod frontend;

fn main() {}
