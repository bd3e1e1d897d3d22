use embed_runtime::{embed_assets, Assets};

static A: Assets = embed_assets!("$FIXTURES/no-such-folder");

fn main() {}
