use embed_assets::{embed_assets, Assets};

static A: Assets = embed_assets!("$FIXTURES/linked", fingerprint = true, integrity = true);

fn main() {}
