use embed_assets::{embed_assets, Assets};

static A: Assets = embed_assets!(
    "$FIXTURES/linked",
    fingerprint = true,
    rewrite_references = true,
    base = "/static/",
);

static B: Assets = embed_assets!(
    "$FIXTURES/linked",
    fingerprint = true,
    rewrite_references = true,
    base = "/my static",
);

fn main() {}
