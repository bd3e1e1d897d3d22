// A file over `max_embed_size` that compresses stays embedded (compressed only), and
// then counts against `max_total_size` with its own size, as every embedded file does:
// `css/app.css` (32 KiB) brings the folder over 40 KiB.
use embed_assets::{embed_assets, Assets};

static A: Assets = embed_assets!(
    "$FIXTURES/site",
    max_embed_size = "16 KiB",
    max_total_size = "40 KiB",
    on_disk = "allow",
);

fn main() {}
