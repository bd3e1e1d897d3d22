// A file over `max_embed_size` that does not compress (a sample shows it) is streamed
// from disk, so it does not count against `max_total_size`: `big.bin` (3 MiB of random
// bytes) alone is three times the budget, and the build passes.
use embed_assets::{embed_assets, Assets};

static A: Assets = embed_assets!(
    "$FIXTURES/site",
    max_embed_size = "1 MiB",
    max_total_size = "1 MiB",
    on_disk = "allow",
);

fn main() {
    let big = A.get("/big.bin").expect("listed");
    assert!(!big.is_embedded());
    assert!(A.get("/css/app.css").expect("listed").is_embedded());
}
