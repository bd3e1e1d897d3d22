use embed_assets::{embed_assets, Assets};

static A: Assets = embed_assets!("$FIXTURES/csp", strict_csp = true);

fn main() {}
