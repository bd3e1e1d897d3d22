// A folder with nothing to embed, as a frontend's `dist/` is before its build has run.
use embed_assets::{embed_assets, Assets};

static A: Assets = embed_assets!("$FIXTURES/no-files");

fn main() {}
