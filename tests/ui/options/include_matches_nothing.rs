use embed_runtime::{embed_assets, Assets};

static A: Assets = embed_assets!("$FIXTURES/site", include = ["*.css", "*.csss"]);

fn main() {}
