use embed_assets::{embed_assets, Assets};

static A: Assets = embed_assets!("$FIXTURES/rolling/public", releases = true);

fn main() {}
