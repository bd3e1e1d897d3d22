use embed_runtime::{embed_assets, Assets};

static A: Assets = embed_assets!("fixtures/site", include = 5);

fn main() {}
