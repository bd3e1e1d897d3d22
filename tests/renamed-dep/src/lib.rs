//! Depends on the runtime as `web` and shadows `embed_runtime`: if generated code named
//! the crate, or `Some`/`None`, directly, this would stop compiling.

/// A module with the runtime's real name, so `::embed_runtime` paths cannot resolve
/// to the crate by accident.
#[allow(dead_code)]
mod embed_runtime {}

#[allow(dead_code)]
enum Shadow {
    Some,
    None,
}
#[allow(unused_imports)]
use Shadow::{None, Some};

/// Embedded through the renamed dependency.
pub static ASSETS: web::Assets = web::embed_assets!("../fixtures/site");

#[cfg(test)]
mod tests {
    #[test]
    fn renamed_dependency_serves_the_same_table() {
        let index = super::ASSETS
            .get("/index.html")
            .expect("index.html embedded");
        assert!(index.content_type().starts_with("text/html"));
    }
}
