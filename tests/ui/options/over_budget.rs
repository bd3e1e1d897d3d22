use embed_runtime::{embed_assets, Assets};

static A: Assets = embed_assets!("fixtures/site", max_total_size = "1 MiB");

fn main() {}
