use embed_assets::{embed_assets, Assets};

static A: Assets = embed_assets!("", brotli = 1);

fn main() {}
