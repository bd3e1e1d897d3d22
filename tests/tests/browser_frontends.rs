//! Real frontends from npm in headless Chromium, each served by its example's app:
//! Swagger UI (`examples/swagger-ui`, swagger-ui-dist) renders the API's OpenAPI
//! document, and a 14 MB WebAssembly module (`examples/wasm`, esbuild-wasm), embedded
//! compressed only, is compiled by `WebAssembly.instantiateStreaming` and runs esbuild.
//! Both check what the server sent (br from memory, strong ETags) and what a reload
//! revalidates.
//!
//! Needs `chromium` and `chromedriver` (`bash tests/run.sh` installs them), and the
//! features `swagger-ui` and `wasm` (npm builds those examples).

#![cfg(any(feature = "swagger-ui", feature = "wasm"))]

use std::time::Duration;

use axum::middleware;
use http::StatusCode;
use integration_tests::browser::{
    BrowserPrograms, PAGE_TIMEOUT, ServerLog, in_browser, only_request, record,
};
use integration_tests::spawn_router;

const TEST_TIMEOUT: Duration = Duration::from_secs(180);

#[cfg(feature = "swagger-ui")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_renders_swagger_ui_for_the_api_document_and_revalidates_it_on_reload() {
    use example_swagger_ui::ui::ASSETS;
    let Some(programs) = BrowserPrograms::find() else {
        return;
    };
    in_browser(&programs, TEST_TIMEOUT, |session| async move {
        let log = ServerLog::default();
        let router =
            example_swagger_ui::app().layer(middleware::from_fn_with_state(log.clone(), record));
        let addr = spawn_router(router).await;
        session.navigate(&format!("http://{addr}/")).await;
        // Swagger UI fetched the document and rendered its operation.
        let rendered = "document.querySelector('#operations-default-listPets') !== null \
                        && document.querySelector('.info .title') !== null";
        assert!(
            session.wait_until(rendered).await,
            "no listPets operation within {PAGE_TIMEOUT:?}: {}",
            session.execute("return document.body.innerText").await
        );
        let title = session
            .execute("return document.querySelector('.info .title').textContent")
            .await;
        assert!(
            title
                .as_str()
                .is_some_and(|t| t.starts_with("Pet store of the embed-assets example")),
            "{title}"
        );
        let first = log.snapshot();
        assert_eq!(only_request(&first, "/openapi.json").status, StatusCode::OK);
        for path in [
            "/swagger-ui-bundle.js",
            "/swagger-ui-standalone-preset.js",
            "/swagger-ui.css",
        ] {
            let seen = only_request(&first, path);
            let asset = ASSETS.get(path).unwrap();
            assert_eq!(seen.status, StatusCode::OK, "{seen:?}");
            assert_eq!(seen.content_encoding.as_deref(), Some("br"), "{seen:?}");
            let br = asset.variant(embed_assets::Encoding::Brotli).unwrap();
            assert_eq!(seen.etag.as_deref(), Some(br.etag()), "{seen:?}");
            assert!(br.etag().starts_with('"'), "a strong ETag");
        }
        // The source maps are not in the binary.
        assert!(ASSETS.get("/swagger-ui-bundle.js.map").is_none());

        session.refresh().await;
        assert!(session.wait_until(rendered).await, "reload: not rendered");
        let reload = log.snapshot()[first.len()..].to_vec();
        let bundle = only_request(&reload, "/swagger-ui-bundle.js");
        assert_eq!(bundle.status, StatusCode::NOT_MODIFIED, "{bundle:?}");
        assert_eq!(
            bundle.if_none_match,
            only_request(&first, "/swagger-ui-bundle.js").etag
        );
    })
    .await;
}

#[cfg(feature = "wasm")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_compiles_the_embedded_wasm_while_it_streams_and_runs_it() {
    use example_wasm::site::ASSETS;
    let wasm = ASSETS.get("/esbuild.wasm").unwrap();
    assert!(wasm.len() > 10 << 20, "the module is over 10 MB");
    assert!(wasm.is_embedded(), "embedded, not left on disk");
    assert_eq!(wasm.content_type(), "application/wasm");
    let Some(programs) = BrowserPrograms::find() else {
        return;
    };
    in_browser(&programs, TEST_TIMEOUT, |session| async move {
        let log = ServerLog::default();
        let router = example_wasm::app().layer(middleware::from_fn_with_state(log.clone(), record));
        let addr = spawn_router(router).await;
        session.navigate(&format!("http://{addr}/")).await;
        let done = "document.body !== null && document.body.dataset.ready !== undefined";
        assert!(session.wait_until(done).await, "the page did not finish");
        let state = session.execute("return document.body.dataset.ready").await;
        let out = session
            .execute("return document.querySelector('#out').textContent")
            .await;
        assert_eq!(state, "yes", "{out}");
        assert_eq!(out, "let answer = 42;\n", "esbuild ran on the module");
        // esbuild took the streaming path, which Chromium allows only for a response of
        // exactly `application/wasm`.
        let streamed = session
            .execute("return document.body.dataset.streamed")
            .await;
        assert_eq!(
            streamed, "1",
            "WebAssembly.instantiateStreaming compiled the module"
        );
        let log = log.snapshot();
        let fetched: Vec<_> = log
            .iter()
            .filter(|seen| seen.path == "/esbuild.wasm")
            .collect();
        assert!(!fetched.is_empty(), "{log:?}");
        let br = wasm.variant(embed_assets::Encoding::Brotli).unwrap();
        let first = fetched[0];
        assert_eq!(first.status, StatusCode::OK, "{first:?}");
        assert_eq!(first.content_encoding.as_deref(), Some("br"), "{first:?}");
        assert_eq!(first.etag.as_deref(), Some(br.etag()), "{first:?}");
        // The second fetch (esbuild's own) revalidates the first's copy, or reuses it.
        for seen in &fetched[1..] {
            assert!(
                seen.status == StatusCode::NOT_MODIFIED || seen.status == StatusCode::OK,
                "{seen:?}"
            );
        }
    })
    .await;
}
