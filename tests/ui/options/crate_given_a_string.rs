use embed_runtime::{embed_assets, Assets};

static A: Assets = embed_assets!("fixtures/site", crate = "embed_runtime");

fn main() {}
