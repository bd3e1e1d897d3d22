//! The outside programs some tests drive (Chromium, nginx, strace) and the tests that
//! need another user than root: found, or the test is skipped with its reason.
//!
//! A plain `cargo test` on a machine without them skips those tests and says so on
//! stderr (written past the test harness's capture, so it shows for passing tests).
//! `tests/run.sh` installs every program and sets `EMBED_TEST_REQUIRE_ALL=1`, which
//! turns every skip into a failure: CI can never pass by skipping.

use std::io::Write;
use std::path::PathBuf;

/// The variable that turns a skip into a failure.
pub const REQUIRE_ALL: &str = "EMBED_TEST_REQUIRE_ALL";

/// Skips the calling test: prints `SKIPPED test: reason`, or panics with it when
/// [`REQUIRE_ALL`] is `1`. The test is named by its thread, which the test harness
/// names after the test.
///
/// # Panics
/// With [`REQUIRE_ALL`] set to `1`.
pub fn skip(reason: &str) {
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("a test");
    if std::env::var_os(REQUIRE_ALL).is_some_and(|value| value == "1") {
        panic!("{test}: would be skipped ({reason}), and {REQUIRE_ALL}=1 forbids skipping");
    }
    // `eprintln!` output of a passing test is swallowed by the harness; a skip must show.
    let _ = writeln!(std::io::stderr(), "SKIPPED {test}: {reason}");
}

/// The variable that runs the tests [`slow`] gates (`tests/run.sh` sets it, and
/// [`REQUIRE_ALL`] implies it).
pub const SLOW: &str = "EMBED_TEST_SLOW";

/// Whether to run the calling test, which builds crates of its own with cargo (tens
/// of seconds each): yes with [`SLOW`] or [`REQUIRE_ALL`] set to `1`; otherwise it
/// is [`skip`]ped, naming `file` (its `tests/tests/` file, without `.rs`) in the
/// command that runs it. This keeps a plain `cargo test`, the quick loop, to the unit,
/// compile-fail and HTTP tests.
pub fn slow(file: &str) -> bool {
    let set = |name| std::env::var_os(name).is_some_and(|value| value == "1");
    if set(SLOW) || set(REQUIRE_ALL) {
        return true;
    }
    skip(&format!(
        "builds crates of its own; `{SLOW}=1 cargo test -p integration-tests --test {file}` \
         or `bash tests/run.sh` runs it"
    ));
    false
}

/// The first of `names` found on `PATH` (then in `extra_dirs`), or `None` after
/// [`skip`]ping the calling test with a reason naming the missing program and its Debian package.
///
/// # Panics
/// When none is found and [`REQUIRE_ALL`] is `1`.
pub fn require(names: &[&str], extra_dirs: &[&str], package: &str) -> Option<PathBuf> {
    let found = find(names, extra_dirs);
    if found.is_none() {
        skip(&format!(
            "{} not found on PATH (Debian package `{package}`; `bash tests/run.sh` installs it)",
            names.join(" / ")
        ));
    }
    found
}

/// The first of `names` that is a file in a folder of `PATH` or of `extra_dirs`.
pub fn find(names: &[&str], extra_dirs: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let dirs: Vec<PathBuf> = std::env::split_paths(&path)
        .chain(extra_dirs.iter().map(PathBuf::from))
        .collect();
    names.iter().find_map(|name| {
        dirs.iter()
            .map(|dir| dir.join(name))
            .find(|candidate| candidate.is_file())
    })
}

/// Set in the child process [`file_permissions_apply`] starts.
const DROPPED: &str = "EMBED_TEST_WITHOUT_DAC_OVERRIDE";

/// For the test named `test` (its name as `cargo test` lists it), which needs a file
/// of mode 000 to be unreadable. Returns `true` when that
/// holds here: run the test. As root, which reads every file whatever its mode, it
/// runs this same test again in a child process that keeps uid 0 but loses the
/// capabilities that override file permissions (`CAP_DAC_OVERRIDE`,
/// `CAP_DAC_READ_SEARCH`, dropped with util-linux's `setpriv`), and returns `false`
/// once that child passed. Without `setpriv` the test is [`skip`]ped.
///
/// # Panics
/// When the child fails (with its output), or when it is skipped and
/// [`REQUIRE_ALL`] is `1`.
pub fn file_permissions_apply(test: &str) -> bool {
    if mode_000_is_unreadable() {
        return true;
    }
    if std::env::var_os(DROPPED).is_some() {
        skip("the capabilities were dropped, and a mode-000 file is still readable");
        return false;
    }
    let Some(setpriv) = find(&["setpriv"], &["/usr/bin", "/bin"]) else {
        skip(
            "running as root, who reads every file, and setpriv (Debian package `util-linux`) is missing to drop that privilege",
        );
        return false;
    };
    let exe = std::env::current_exe().unwrap_or_else(|err| panic!("own executable: {err}"));
    let output = std::process::Command::new(setpriv)
        .args([
            "--inh-caps=-all",
            "--bounding-set=-dac_override,-dac_read_search",
        ])
        .arg(exe)
        .args(["--exact", test, "--nocapture", "--test-threads=1"])
        .env(DROPPED, "1")
        .output()
        .unwrap_or_else(|err| panic!("cannot run setpriv: {err}"));
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.status.success() && said.contains("1 passed"),
        "{test}, run again without the file-permission override of root: {}\n{said}",
        output.status
    );
    let _ = writeln!(
        std::io::stderr(),
        "{test}: ran as root without CAP_DAC_OVERRIDE/CAP_DAC_READ_SEARCH (setpriv), passed"
    );
    false
}

/// Whether this process is refused a file of mode 000 (false for root).
fn mode_000_is_unreadable() -> bool {
    use std::os::unix::fs::PermissionsExt;
    let probe = std::env::temp_dir().join(format!("embed-test-mode-000-{}", std::process::id()));
    let written = std::fs::write(&probe, b"probe")
        .and_then(|()| std::fs::set_permissions(&probe, std::fs::Permissions::from_mode(0o000)));
    let unreadable = written.is_ok() && std::fs::read(&probe).is_err();
    let _ = std::fs::remove_file(&probe);
    unreadable
}
