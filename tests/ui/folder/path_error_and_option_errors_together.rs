use embed_runtime::{embed_assets, Assets};

static A: Assets = embed_assets!("", brotli = 1);

fn main() {}
