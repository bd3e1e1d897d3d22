use embed_assets::{embed_assets, Assets};

const SITE: &str = "$FIXTURES/site";

static A: Assets = embed_assets!(SITE);

fn main() {}
