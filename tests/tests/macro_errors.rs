//! Compile errors caused by files git cannot hold reliably (non-UTF-8 or backslash names,
//! unreadable files, symbolic links): each test writes a tiny crate to the temp folder,
//! builds it with cargo and checks what the macro said.
//!
//! The crates share one target folder (`target/macro-errors`), so embed-assets and its
//! dependencies build once; cargo's lock serialises the tests that run in parallel.

use std::fs;

use integration_tests::scratch::Crate;

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
    // As root, this runs again in a child that root's file-permission override is
    // taken from.
    if !integration_tests::programs::file_permissions_apply(
        "unreadable_file_is_reported_with_its_cause",
    ) {
        return;
    }
    let krate = Crate::new("unreadable_file");
    let secret = krate.site().join("secret.txt");
    fs::write(&secret, "can't touch this").unwrap();
    fs::set_permissions(&secret, fs::Permissions::from_mode(0o000)).unwrap();
    assert!(fs::read(&secret).is_err(), "mode 000 is readable here");
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
    fs::write(krate.dir().join("outside.txt"), "outside the folder").unwrap();
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
    // Skipped, but not without a word: each is a 404 at run time.
    for expected in [
        "2 symbolic links in `site` are skipped (`follow_symlinks = false`)",
        "`site/link.txt` -> `../outside.txt` (outside the folder)",
        "`site/loop` -> `.`;",
        "write `follow_symlinks = true` to embed what they point to",
    ] {
        assert!(
            outcome.stderr.contains(expected),
            "{expected}\nin:\n{}",
            outcome.stderr
        );
    }
}

// rustc tracks every embedded file (`include_bytes!`): editing one rebuilds the crate
// with the new bytes, without touching any source file.
#[test]
fn editing_an_embedded_file_changes_what_the_next_build_serves() {
    let krate = Crate::new("edit_rebuilds");
    fs::write(krate.site().join("a.txt"), "first version").unwrap();
    krate.main_rs(
        "\"site\"",
        "let body = A.get(\"/a.txt\").unwrap().body(embed_assets::Encoding::Identity).unwrap();\n    \
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
