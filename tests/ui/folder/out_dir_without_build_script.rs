use embed_assets::{embed_assets, Assets};

static A: Assets = embed_assets!("$OUT_DIR/site");

fn main() {}
