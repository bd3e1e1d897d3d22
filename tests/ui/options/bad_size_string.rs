use embed_assets::{embed_assets, Assets};

static A: Assets = embed_assets!("$FIXTURES/site", max_embed_size = "5 megabytes");

fn main() {}
