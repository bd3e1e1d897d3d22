use embed_runtime::{embed_assets, Assets};

static A: Assets = embed_assets!("fixtures/site", gzip = "yes");

fn main() {}
