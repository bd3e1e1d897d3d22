use embed_assets::{embed_assets, Assets};

static A: Assets = embed_assets!("$FIXTURES/site", crate = "embed_assets");

fn main() {}
