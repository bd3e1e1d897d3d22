//! Every option of the function form is accepted by the attribute, with the same meaning.
#[embed_assets::embed(
    "$FIXTURES/site",
    max_embed_size = "64 KiB",
    max_total_size = "64 MiB",
    gzip = true,
    brotli = false,
    zstd = false,
    compression = "fast",
    compressed_only = false,
    fingerprint = ["css/*.css"],
    rewrite_references = true,
    base = "/static",
    include = ["*.css", "*.html", "*.txt"],
    exclude = "docs/**",
    dotfiles = false,
    follow_symlinks = false,
    crate = ::embed_assets,
)]
mod site {}

fn main() {
    assert!(site::ASSETS.get("/index.html").is_some());
    assert!(site::ASSETS.get("/docs/index.html").is_none(), "excluded");
    assert!(site::ASSETS.get("/data.json").is_none(), "not included");
    assert_ne!(site::paths::CSS_APP_CSS, "/css/app.css");
    let css = site::ASSETS.get("/css/app.css").unwrap();
    assert!(css.body(embed_assets::Encoding::Brotli).is_none(), "brotli = false");
}
