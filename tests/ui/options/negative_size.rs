use embed_assets::{embed_assets, Assets};

static A: Assets = embed_assets!("$FIXTURES/site", max_embed_size = -1);

fn main() {}
