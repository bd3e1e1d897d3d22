use embed_assets::{embed_assets, Assets};

static A: Assets = embed_assets!(
    "$FIXTURES/site",
    max_embed_size = "4 KiB",
    gzip = true,
    brotli = false,
    include = ["*.css", "*.html", "*.txt"],
    exclude = "docs/**",
    dotfiles = false,
    follow_symlinks = false,
    crate = ::embed_assets,
);

fn main() {
    assert!(A.get("/index.html").is_some());
    assert!(A.get("/docs/index.html").is_none(), "excluded");
    assert!(A.get("/data.json").is_none(), "not included");
    assert!(A.get("/.hidden/secret.txt").is_none(), "dotfiles are off");
}
