//! Compile errors caused by files git cannot hold reliably (non-UTF-8 or backslash names,
//! unreadable files, symbolic links): each test writes a tiny crate to the temp folder,
//! builds it with cargo and checks what the macro said.
//!
//! The crates share one target folder (`target/macro-errors`), so embed-runtime and its
//! dependencies build once; cargo's lock serialises the tests that run in parallel.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A throwaway crate: `Cargo.toml`, `src/main.rs` and an empty `site/` folder to embed.
struct Crate {
    dir: PathBuf,
}

/// What `cargo` reported.
struct Outcome {
    success: bool,
    stderr: String,
}

impl Crate {
    /// A fresh crate named after the test, in the temp folder.
    fn new(test: &str) -> Crate {
        let dir =
            std::env::temp_dir().join(format!("embed-macro-errors-{}-{test}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("src")).unwrap();
        fs::create_dir_all(dir.join("site")).unwrap();
        let runtime = workspace_root().join("embed-runtime");
        let manifest = format!(
            "[package]\n\
             name = \"macro-errors-{name}\"\n\
             version = \"0.0.0\"\n\
             edition = \"2021\"\n\
             publish = false\n\n\
             [dependencies]\n\
             embed-runtime = {{ path = {runtime:?} }}\n\n\
             # Not a member of any workspace above the temp folder.\n\
             [workspace]\n",
            name = test.replace('_', "-"),
            runtime = runtime.to_string_lossy(),
        );
        fs::write(dir.join("Cargo.toml"), manifest).unwrap();
        // The workspace's versions, so nothing new is resolved (or downloaded).
        fs::copy(workspace_root().join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
        Crate { dir }
    }

    /// The folder the macro embeds.
    fn site(&self) -> PathBuf {
        self.dir.join("site")
    }

    /// Writes `src/main.rs`: `static A: Assets = embed_assets!(<args>);` and `main`.
    fn main_rs(&self, args: &str, main_body: &str) {
        let source = format!(
            "use embed_runtime::{{embed_assets, Assets}};\n\n\
             static A: Assets = embed_assets!({args});\n\n\
             fn main() {{\n    let _ = &A;\n    {main_body}\n}}\n"
        );
        fs::write(self.dir.join("src/main.rs"), source).unwrap();
    }

    /// `cargo <subcommand>` in the crate, with the shared target folder.
    fn cargo(&self, subcommand: &str) -> Outcome {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let output = Command::new(cargo)
            .arg(subcommand)
            .arg("--quiet")
            .arg("--color=never")
            .current_dir(&self.dir)
            .env("CARGO_TARGET_DIR", shared_target_dir())
            // Relative folders must resolve against this crate, not the ui tests' root.
            .env_remove("EMBED_ASSETS_MANIFEST_DIR")
            .env_remove("OUT_DIR")
            .output()
            .unwrap();
        Outcome {
            success: output.status.success(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }

    /// Builds, expecting our compile error: returns stderr.
    fn build_fails(&self) -> String {
        let outcome = self.cargo("build");
        assert!(
            !outcome.success,
            "expected a compile error:\n{}",
            outcome.stderr
        );
        assert!(
            !outcome.stderr.contains("panicked"),
            "the macro must report errors, not panic:\n{}",
            outcome.stderr
        );
        // The error points at the path literal in the macro call (line 3).
        assert!(
            outcome.stderr.contains("src/main.rs:3:"),
            "expected a span in the macro call:\n{}",
            outcome.stderr
        );
        outcome.stderr
    }
}

impl Drop for Crate {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// `<target>/macro-errors`, where `<target>` holds this test binary
/// (`<target>/debug/deps/macro_errors-…`), so a custom `CARGO_TARGET_DIR` is respected.
fn shared_target_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let target = exe
        .ancestors()
        .nth(3)
        .map_or_else(|| workspace_root().join("target"), Path::to_path_buf);
    target.join("macro-errors")
}

#[cfg(unix)]
#[test]
fn non_utf8_file_name_is_an_error_naming_the_file() {
    use std::os::unix::ffi::OsStrExt;
    let krate = Crate::new("non_utf8_file_name");
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.txt");
    if fs::write(krate.site().join(name), "latin-1 name").is_err() {
        // Some file systems (APFS) refuse names that are not UTF-8.
        eprintln!("skipped: this file system refuses non-UTF-8 names");
        return;
    }
    krate.main_rs("\"site\"", "");
    let stderr = krate.build_fails();
    assert!(
        stderr.contains(
            "`site/caf\u{FFFD}.txt`: file name is not valid UTF-8, so it has no URL; \
             rename it or exclude it"
        ),
        "{stderr}"
    );
}

#[cfg(unix)]
#[test]
fn file_name_with_a_backslash_is_an_error() {
    let krate = Crate::new("backslash_file_name");
    fs::write(krate.site().join("a\\b.txt"), "no URL can name me").unwrap();
    krate.main_rs("\"site\"", "");
    let stderr = krate.build_fails();
    assert!(
        stderr.contains(
            "file name contains `\\`, which no request path can name; rename it or exclude it"
        ),
        "{stderr}"
    );
}

// The name is shown as it is: `site/a\b.txt`, not `site/a/b.txt` (a file in a folder).
#[cfg(unix)]
#[test]
fn file_name_with_a_backslash_is_shown_as_written() {
    let krate = Crate::new("backslash_shown_as_written");
    fs::write(krate.site().join("a\\b.txt"), "no URL can name me").unwrap();
    krate.main_rs("\"site\"", "");
    let stderr = krate.build_fails();
    assert!(stderr.contains("`site/a\\b.txt`"), "{stderr}");
}

// Names are checked after `include`/`exclude` apply, so the advice "rename it or
// exclude it" can be followed by excluding it.
#[cfg(unix)]
#[test]
fn excluded_files_with_unusable_names_do_not_stop_the_build() {
    use std::os::unix::ffi::OsStrExt;
    let krate = Crate::new("unusable_names_excluded");
    let latin1 = std::ffi::OsStr::from_bytes(b"caf\xe9.txt");
    fs::write(krate.site().join(latin1), "latin-1 name").unwrap();
    fs::write(krate.site().join("a\\b.txt"), "no URL can name me").unwrap();
    fs::write(krate.site().join("index.html"), "<p>hi</p>").unwrap();
    krate.main_rs(
        "\"site\", exclude = \"*.txt\"",
        "assert_eq!(A.iter().count(), 1);",
    );
    let outcome = krate.cargo("run");
    assert!(outcome.success, "{}", outcome.stderr);
}

#[cfg(unix)]
#[test]
fn unreadable_file_is_reported_with_its_cause() {
    use std::os::unix::fs::PermissionsExt;
    let krate = Crate::new("unreadable_file");
    let secret = krate.site().join("secret.txt");
    fs::write(&secret, "can't touch this").unwrap();
    fs::set_permissions(&secret, fs::Permissions::from_mode(0o000)).unwrap();
    if fs::read(&secret).is_ok() {
        // Root (as on CI) reads files whatever their mode: nothing to test here.
        eprintln!("skipped: this user can read a file with mode 000");
        return;
    }
    krate.main_rs("\"site\"", "");
    let stderr = krate.build_fails();
    assert!(
        stderr.contains("cannot read `site/secret.txt`: permission denied"),
        "{stderr}"
    );
}

#[cfg(unix)]
#[test]
fn symlink_loop_is_an_error_when_following_links() {
    let krate = Crate::new("symlink_loop");
    fs::write(krate.site().join("index.html"), "<p>hi</p>").unwrap();
    std::os::unix::fs::symlink(".", krate.site().join("loop")).unwrap();
    krate.main_rs("\"site\", follow_symlinks = true", "");
    let stderr = krate.build_fails();
    assert!(
        stderr.contains("cannot read `site/loop`: symbolic link loop"),
        "{stderr}"
    );
}

#[cfg(unix)]
#[test]
fn symlinks_are_skipped_by_default() {
    let krate = Crate::new("symlinks_skipped");
    fs::write(krate.site().join("index.html"), "<p>hi</p>").unwrap();
    fs::write(krate.dir.join("outside.txt"), "outside the folder").unwrap();
    std::os::unix::fs::symlink("../outside.txt", krate.site().join("link.txt")).unwrap();
    // A loop is harmless too when links are not followed.
    std::os::unix::fs::symlink(".", krate.site().join("loop")).unwrap();
    krate.main_rs(
        "\"site\"",
        "assert!(A.get(\"/index.html\").is_some());\n    \
         assert!(A.get(\"/link.txt\").is_none());\n    \
         assert_eq!(A.iter().count(), 1);",
    );
    let outcome = krate.cargo("run");
    assert!(outcome.success, "{}", outcome.stderr);
}

// rustc tracks every embedded file (`include_bytes!`): editing one rebuilds the crate
// with the new bytes, without touching any source file.
#[test]
fn editing_an_embedded_file_changes_what_the_next_build_serves() {
    let krate = Crate::new("edit_rebuilds");
    fs::write(krate.site().join("a.txt"), "first version").unwrap();
    krate.main_rs(
        "\"site\"",
        "let body = A.get(\"/a.txt\").unwrap().body(embed_runtime::Encoding::Identity).unwrap();\n    \
         eprintln!(\"BODY={}\", String::from_utf8_lossy(body));",
    );
    let first = krate.cargo("run");
    assert!(
        first.success && first.stderr.contains("BODY=first version"),
        "{}",
        first.stderr
    );
    fs::write(krate.site().join("a.txt"), "second version, longer").unwrap();
    let second = krate.cargo("run");
    assert!(
        second.success && second.stderr.contains("BODY=second version, longer"),
        "{}",
        second.stderr
    );
}
