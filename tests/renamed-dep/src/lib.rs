//! Depends on the runtime as `web` and shadows `embed_assets`: if generated code named
//! the crate, or `Some`/`None`, directly, this would stop compiling.

/// A module with the runtime's real name, so `::embed_assets` paths cannot resolve
/// to the crate by accident.
#[allow(dead_code)]
mod embed_assets {}

#[allow(dead_code)]
enum Shadow {
    Some,
    None,
}
#[allow(unused_imports)]
use Shadow::{None, Some};

/// Embedded through the renamed dependency.
pub static ASSETS: web::Assets = web::embed_assets!("../fixtures/site");

/// The same folder through the attribute, which cannot see the name it was called by:
/// `crate` names the runtime.
#[web::embed("../fixtures/site", crate = ::web, fingerprint = true)]
pub mod frontend {
    /// A user item next to the generated ones (`missing_docs` checks both).
    pub fn stylesheet() -> &'static str {
        paths::CSS_APP_CSS
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn renamed_dependency_serves_the_same_table() {
        let index = super::ASSETS
            .get("/index.html")
            .expect("index.html embedded");
        assert!(index.content_type().starts_with("text/html"));
    }

    #[test]
    fn the_attribute_with_crate_builds_the_same_table() {
        let css = super::frontend::ASSETS
            .get(super::frontend::stylesheet())
            .expect("the fingerprinted URL is served");
        let plain = super::ASSETS.get("/css/app.css").expect("app.css embedded");
        assert_eq!(css.etag(), plain.etag());
        assert_eq!(
            super::frontend::ASSETS.iter().count(),
            super::ASSETS.iter().count()
        );
    }
}
