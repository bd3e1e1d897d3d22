//! `#[embed_assets::embed]` on a module: the table it generates is the one
//! `embed_assets!` builds from the same folder and options, served the same way, and
//! the module's own items live next to it.

use http::StatusCode;
use http::header::{CONTENT_ENCODING, ETAG};
use integration_tests::{SITE, decode_body, fixture, get, spawn_service};

/// The folder the shared `SITE` table embeds, through the attribute.
#[embed_assets::embed("fixtures/site")]
mod frontend {
    /// A user item: the generated `ASSETS` and `paths` are in scope.
    pub(crate) fn index() -> &'static embed_assets::Asset {
        ASSETS.get(paths::INDEX_HTML).expect("index.html embedded")
    }
}

/// Fingerprinted, with references rewritten: the URL constants are the hashed ones.
#[embed_assets::embed("fixtures/linked", fingerprint = true, rewrite_references = true)]
mod linked {}

mod linked_by_call {
    embed_assets::embed_assets!(
        pub static SITE = "fixtures/linked",
        fingerprint = true,
        rewrite_references = true,
    );
}

#[test]
fn the_attribute_builds_the_table_the_function_form_builds() {
    let attribute: Vec<_> = frontend::ASSETS.iter().collect();
    let call: Vec<_> = SITE.iter().collect();
    assert_eq!(attribute.len(), call.len());
    for (a, b) in attribute.iter().zip(&call) {
        assert_eq!(a.path(), b.path());
        assert_eq!(a.etag(), b.etag(), "{}", a.path());
        assert_eq!(a.content_type(), b.content_type(), "{}", a.path());
        assert_eq!(a.len(), b.len(), "{}", a.path());
        assert_eq!(a.integrity(), b.integrity(), "{}", a.path());
    }
    assert_eq!(frontend::index().path(), "/index.html");
}

#[test]
fn rewritten_documents_match_between_the_forms() {
    let attribute: Vec<_> = linked::ASSETS.iter().collect();
    let call: Vec<_> = linked_by_call::SITE.iter().collect();
    assert_eq!(attribute.len(), call.len());
    for (a, b) in attribute.iter().zip(&call) {
        assert_eq!(a.etag(), b.etag(), "{}", a.path());
        assert_eq!(
            a.fingerprinted_path(),
            b.fingerprinted_path(),
            "{}",
            a.path()
        );
    }
    assert_eq!(
        linked::paths::CSS_APP_CSS,
        linked_by_call::paths::CSS_APP_CSS
    );
    assert_ne!(linked::paths::CSS_APP_CSS, "/css/app.css");
}

#[tokio::test]
async fn an_annotated_module_serves_over_http() {
    let addr = spawn_service(frontend::ASSETS.service()).await;
    let (status, headers, body) = get(addr, "/css/app.css", &[("accept-encoding", "br")]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers[CONTENT_ENCODING], "br");
    assert_eq!(decode_body(&headers, &body), fixture("/css/app.css"));
    let etag = headers[ETAG].to_str().unwrap().to_owned();
    let (status, _, body) = get(
        addr,
        "/css/app.css",
        &[("accept-encoding", "br"), ("if-none-match", &etag)],
    )
    .await;
    assert_eq!(status, StatusCode::NOT_MODIFIED);
    assert!(body.is_empty());
}
