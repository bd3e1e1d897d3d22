use embed_assets::{embed_assets, Assets};

// The kept release served other bytes at `/assets/lazy-C3c3c3c3.js` than the folder has
// now under that name: a hashed URL must name one content.
static A: Assets = embed_assets!(
    "$FIXTURES/rolling-clash/public",
    hashed = "assets/*",
    releases = "$FIXTURES/rolling-clash/releases",
);

fn main() {}
