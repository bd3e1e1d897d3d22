// A folder that is empty on purpose: `allow_empty = true` builds an empty table.
use embed_assets::{embed_assets, Assets};

static A: Assets = embed_assets!("$FIXTURES/no-files", allow_empty = true);

#[embed_assets::embed("$FIXTURES/no-files", allow_empty = true)]
mod frontend {}

fn main() {
    assert!(A.is_empty());
    assert!(frontend::ASSETS.is_empty());
}
