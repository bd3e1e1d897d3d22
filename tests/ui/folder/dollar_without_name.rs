use embed_assets::{embed_assets, Assets};

static A: Assets = embed_assets!("site/$/x");

fn main() {}
