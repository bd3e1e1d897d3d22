use embed_assets::{embed_assets, Assets};

static A: Assets = embed_assets!("$FIXTURES/site", max_embed_size = "99999999999 GiB");

fn main() {}
