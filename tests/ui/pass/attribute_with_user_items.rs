//! The attribute keeps the module's own items, which can use what it generates, and
//! documents what it generates.
#![deny(missing_docs, dead_code)]

/// The site, with a router of its own next to the table.
#[embed_assets::embed("$FIXTURES/site", max_embed_size = "1 MiB", fingerprint = true)]
pub mod frontend {
    #![allow(clippy::all)]

    use embed_assets::Assets;

    /// A user item that uses the generated table and constants.
    pub fn stylesheet(assets: &'static Assets) -> &'static str {
        assets.url("/css/app.css").unwrap_or(self::paths::CSS_APP_CSS)
    }

    /// Another one, and a nested module: both stay as written.
    pub const NAME: &str = "frontend";

    /// Nested modules are left alone.
    pub mod nested {
        /// Reaches the generated table through `super`.
        pub fn count() -> usize {
            super::ASSETS.iter().count()
        }
    }
}

fn main() {
    let css = frontend::ASSETS.get(frontend::paths::CSS_APP_CSS).unwrap();
    assert!(css.content_type().starts_with("text/css"));
    assert_eq!(frontend::stylesheet(&frontend::ASSETS), frontend::paths::CSS_APP_CSS);
    assert_ne!(frontend::paths::CSS_APP_CSS, "/css/app.css", "fingerprinted");
    assert_eq!(frontend::paths::INDEX_HTML, "/index.html");
    assert_eq!(frontend::NAME, "frontend");
    assert!(frontend::nested::count() > 3);
    // `big.bin` is over `max_embed_size`: listed, served from disk.
    assert!(frontend::ASSETS.get("/big.bin").is_some());
}
