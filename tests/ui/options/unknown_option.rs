use embed_assets::{embed_assets, Assets};

static A: Assets = embed_assets!("$FIXTURES/site", max_size = "5 MiB");

fn main() {}
