//! Compile-fail tests of `embed_assets!` and `#[embed]`: each case under
//! `tests/ui/<area>/` makes one mistake, and its `.stderr` snapshot shows our error at
//! its span and nothing else.
//!
//! Refresh the snapshots with `TRYBUILD=overwrite cargo test -p ui-tests` and read the
//! diff before committing.

#[test]
fn ui() {
    // trybuild compiles the cases in a crate of its own, whose CARGO_MANIFEST_DIR is not
    // ours: the cases name the fixtures through the macro's own `$VAR` expansion.
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ui is below tests/")
        .join("fixtures");
    std::env::set_var("FIXTURES", fixtures);
    // The env-interpolation cases need these unset, whatever the caller's environment.
    std::env::remove_var("OUT_DIR");
    std::env::remove_var("UNDEFINED_VAR");
    // CI builds the tests with clippy's driver (.ci/run): the cases' snapshots are
    // rustc's and ours, so their crates are compiled by rustc alone.
    std::env::remove_var("RUSTC_WORKSPACE_WRAPPER");
    std::env::remove_var("CLIPPY_ARGS");

    let t = trybuild::TestCases::new();
    t.compile_fail("args/*.rs");
    t.compile_fail("options/*.rs");
    t.compile_fail("folder/*.rs");
    t.compile_fail("item/*.rs");
    t.compile_fail("attribute/*.rs");
    // Controls: the same harness accepts correct calls, so the failures above are ours.
    t.pass("pass/*.rs");
}
