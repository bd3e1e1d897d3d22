use embed_assets::{embed_assets, Assets};

// Two mistakes only the folder shows, in options that are otherwise well formed: both
// are reported in one round.
static A: Assets = embed_assets!("$FIXTURES/site", include = "*.csss", fingerprint = "yes");

fn main() {}
