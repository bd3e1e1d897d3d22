use embed_assets::{embed_assets, Assets};

static A: Assets = embed_assets!("$FIXTURES/site", compressed_only = true, gzip = false);

fn main() {}
