//! What a user sees who turns the default features off and mounts the service in axum
//! anyway, and that the feature is what fixes it: a real build of a scratch crate.

use integration_tests::scratch::Crate;

const MAIN: &str = "use embed_assets::{embed_assets, Assets};\n\n\
static A: Assets = embed_assets!(\"site\");\n\n\
fn main() {\n    \
    let app: axum::Router = axum::Router::new().fallback_service(A.service());\n    \
    drop(app);\n\
}\n";

fn crate_with(test: &str, runtime_features: &str) -> Crate {
    let dependencies = format!(
        "embed-assets = {{ path = {{runtime}}, default-features = false, features = [\"macros\"{runtime_features}] }}\n\
         axum = {{ version = \"0.8\", default-features = false, features = [\"tokio\", \"http1\"] }}"
    );
    let krate = Crate::with_dependencies(test, &dependencies);
    std::fs::write(krate.site().join("index.html"), "<!doctype html>").unwrap();
    std::fs::write(krate.dir().join("src/main.rs"), MAIN).unwrap();
    krate
}

#[test]
fn without_the_axum_feature_mounting_in_axum_fails_at_the_service_and_the_feature_fixes_it() {
    if !integration_tests::programs::slow("without_axum") {
        return;
    }
    let krate = crate_with("without_axum", "");
    let outcome = krate.cargo("build");
    assert!(
        !outcome.success,
        "built without the axum feature:\n{}",
        outcome.stderr
    );
    // rustc's own words: the bound the service misses, at the call that needs it.
    assert!(
        outcome.stderr.contains("ServeAssets")
            && outcome.stderr.contains("Service<")
            && outcome.stderr.contains("fallback_service"),
        "unexpected error:\n{}",
        outcome.stderr
    );
    assert!(
        outcome.stderr.contains("src/main.rs:6:"),
        "{}",
        outcome.stderr
    );
    println!("what the user sees:\n{}", outcome.stderr);

    let krate = crate_with("with_axum", ", \"axum\"");
    let outcome = krate.cargo("build");
    assert!(
        outcome.success,
        "with the axum feature:\n{}",
        outcome.stderr
    );
}
