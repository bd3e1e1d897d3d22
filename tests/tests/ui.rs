//! Compile-fail tests of `embed_assets!` and `#[embed]`: each case under
//! `tests/ui/<area>/` makes one mistake, and its `.stderr` snapshot shows our error at
//! its span and nothing else.
//!
//! Refresh the snapshots with `TRYBUILD=overwrite cargo test -p integration-tests --test ui`
//! and read the diff before committing.

#[test]
fn ui() {
    // trybuild compiles the cases in a crate of its own, whose CARGO_MANIFEST_DIR is not
    // ours: the cases name the fixtures through the macro's own `$VAR` expansion.
    std::env::set_var("FIXTURES", concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures"));
    // The env-interpolation cases need these unset, whatever the caller's environment.
    std::env::remove_var("OUT_DIR");
    std::env::remove_var("UNDEFINED_VAR");

    let t = trybuild::TestCases::new();
    t.compile_fail("ui/args/*.rs");
    t.compile_fail("ui/options/*.rs");
    t.compile_fail("ui/folder/*.rs");
    t.compile_fail("ui/item/*.rs");
    t.compile_fail("ui/attribute/*.rs");
    // Controls: the same harness accepts correct calls, so the failures above are ours.
    t.pass("ui/pass/*.rs");
}
