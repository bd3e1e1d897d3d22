use embed_assets::{embed_assets, Assets};

static A: Assets = embed_assets!("$FIXTURES/rolling", releases = "$FIXTURES/rolling/releases");

fn main() {}
