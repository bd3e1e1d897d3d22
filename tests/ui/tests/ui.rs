//! Compile-fail tests of `embed_assets!` and `#[embed]`: each case under
//! `tests/ui/<area>/` makes one mistake, and its `.stderr` snapshot shows our error at
//! its span and nothing else.
//!
//! Refresh the snapshots with `TRYBUILD=overwrite cargo test -p ui-tests` and read the
//! diff before committing.

/// Set in the child process that runs the cases: the environment they need is given to
/// it when it starts, as a process's environment cannot be changed safely once other
/// threads may read it.
const CHILD: &str = "EMBED_UI_TESTS_CHILD";

#[test]
fn ui() {
    if std::env::var_os(CHILD).is_none() {
        // trybuild compiles the cases in a crate of its own, whose CARGO_MANIFEST_DIR
        // is not ours: the cases name the fixtures through the macro's own `$VAR`
        // expansion.
        let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .expect("tests/ui is below tests/")
            .join("fixtures");
        let status = std::process::Command::new(std::env::current_exe().expect("test binary"))
            .args(["--exact", "ui", "--nocapture"])
            .env(CHILD, "1")
            .env("FIXTURES", fixtures)
            // The env-interpolation cases need these unset, whatever the caller's
            // environment.
            .env_remove("OUT_DIR")
            .env_remove("UNDEFINED_VAR")
            // CI builds the tests with clippy's driver (.ci/run): the cases' snapshots
            // are rustc's and ours, so their crates are compiled by rustc alone.
            .env_remove("RUSTC_WORKSPACE_WRAPPER")
            .env_remove("CLIPPY_ARGS")
            .status()
            .expect("run the cases in a child process");
        assert!(status.success(), "the compile-fail cases: {status}");
        return;
    }
    let t = trybuild::TestCases::new();
    t.compile_fail("args/*.rs");
    t.compile_fail("options/*.rs");
    t.compile_fail("folder/*.rs");
    t.compile_fail("item/*.rs");
    t.compile_fail("attribute/*.rs");
    // Controls: the same harness accepts correct calls, so the failures above are ours.
    t.pass("pass/*.rs");
}
