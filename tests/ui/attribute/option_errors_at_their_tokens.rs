// Every mistake in the options at once, each at its token; the module and its items
// still exist, so nothing else is reported.
#[embed_assets::embed(
    "$FIXTURES/site",
    max_embed_sise = "1 MiB",
    gzip = "yes",
    compressed_only = 1,
)]
mod frontend {
    pub fn table() -> &'static embed_assets::Assets {
        &ASSETS
    }
}

fn main() {
    let _ = frontend::table();
}
