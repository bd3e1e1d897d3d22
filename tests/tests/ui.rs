//! Compile-fail tests of `embed_assets!`: each case under `tests/ui/<area>/` makes one
//! mistake, and its `.stderr` snapshot shows our error at its span and nothing else.
//!
//! Refresh the snapshots with `TRYBUILD=overwrite cargo test -p integration-tests --test ui`
//! and read the diff before committing.

#[test]
fn ui() {
    // trybuild compiles the cases in a crate of its own, whose CARGO_MANIFEST_DIR is not
    // ours: the macro reads this override first, so `"fixtures/site"` means tests/fixtures/site.
    std::env::set_var("EMBED_ASSETS_MANIFEST_DIR", env!("CARGO_MANIFEST_DIR"));
    // The env-interpolation cases need these unset, whatever the caller's environment.
    std::env::remove_var("OUT_DIR");
    std::env::remove_var("UNDEFINED_VAR");

    let t = trybuild::TestCases::new();
    t.compile_fail("ui/args/*.rs");
    t.compile_fail("ui/options/*.rs");
    t.compile_fail("ui/folder/*.rs");
    t.compile_fail("ui/item/*.rs");
    // Controls: the same harness accepts correct calls, so the failures above are ours.
    t.pass("ui/pass/*.rs");
}
