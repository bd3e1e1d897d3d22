#[embed_assets::embed("$FIXTURES/site")]
mod frontend {
    pub mod paths {}
    // A `use` that brings the name in counts too.
    #[allow(unused_imports)]
    pub use std::fmt::Write as ASSETS;
}

fn main() {}
