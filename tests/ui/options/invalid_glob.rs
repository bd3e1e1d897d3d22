use embed_runtime::{embed_assets, Assets};

static A: Assets = embed_assets!("fixtures/site", exclude = "css/[a-");

fn main() {}
