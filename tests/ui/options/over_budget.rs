use embed_assets::{embed_assets, Assets};

static A: Assets = embed_assets!("$FIXTURES/site", max_total_size = "1 MiB");

fn main() {}
