use embed_assets::{embed_assets, Assets};

// A mistake only the folder shows (the glob matches nothing) is reported with the
// others, not after they are fixed.
static A: Assets = embed_assets!("$FIXTURES/site", include = "*.csss", fingerprint = "yes", gzip = 1);

fn main() {}
