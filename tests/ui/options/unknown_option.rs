use embed_runtime::{embed_assets, Assets};

static A: Assets = embed_assets!("fixtures/site", max_size = "5 MiB");

fn main() {}
