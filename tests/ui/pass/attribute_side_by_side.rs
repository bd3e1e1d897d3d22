//! Two annotated modules, an item-form call and an expression call in one scope: each
//! table and each `paths` module is its own.
use embed_assets::{embed_assets, Assets};

#[embed_assets::embed("$FIXTURES/site", include = ["*.css", "*.html"])]
mod styles {}

#[embed_assets::embed("$FIXTURES/site/nested")]
pub(crate) mod nested {}

embed_assets!(static ITEM = "$FIXTURES/site", include = "*.js");

static EXPR: Assets = embed_assets!("$FIXTURES/site", include = "*.json");

fn main() {
    assert!(styles::ASSETS.get("/index.html").is_some());
    assert!(styles::ASSETS.get("/data.json").is_none());
    assert_eq!(styles::paths::INDEX_HTML, "/index.html");
    assert!(nested::ASSETS.get(nested::paths::DEEP_FILE_TXT).is_some());
    assert!(ITEM.iter().all(|a| a.path().ends_with(".js")));
    assert!(paths::JS_APP_JS.starts_with("/js/"));
    assert!(EXPR.get("/data.json").is_some());
}
