use embed_runtime::{embed_assets, Assets};

static A: Assets = embed_assets!("fixtures/site", max_embed_size = -1);

fn main() {}
