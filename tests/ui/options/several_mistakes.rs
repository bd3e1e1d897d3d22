use embed_assets::{embed_assets, Assets};

static A: Assets = embed_assets!("$FIXTURES/site", max_size = 1, gzip = "yes", max_embed_size = "lots", include = [1], gzip = false);

fn main() {}
