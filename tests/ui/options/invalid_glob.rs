use embed_assets::{embed_assets, Assets};

static A: Assets = embed_assets!("$FIXTURES/site", exclude = "css/[a-");

fn main() {}
