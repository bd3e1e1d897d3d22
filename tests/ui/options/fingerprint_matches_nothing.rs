use embed_assets::{embed_assets, Assets};

// Meant `fingerprint = true`: a glob that selects nothing.
static A: Assets = embed_assets!("$FIXTURES/site", fingerprint = "yes");

fn main() {}
