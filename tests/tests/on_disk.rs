//! Nothing goes to disk silently: a build that leaves files to be read from disk at
//! run time says so in cargo's output, at the macro call, naming each file, its size,
//! why and the option that decides it; `on_disk = "deny"` makes it an error and
//! `"allow"` silences it. Real builds of a scratch crate.

use std::fs;

use integration_tests::noise;
use integration_tests::scratch::Crate;

fn site(krate: &Crate) {
    let site = krate.site();
    fs::write(site.join("index.html"), "<!doctype html><title>x</title>").unwrap();
    // A video (a media type, never compressed) and noise under a name that says
    // nothing: both over the limit and left on disk.
    fs::write(site.join("clip.mp4"), noise(64 << 10, 1)).unwrap();
    fs::write(site.join("data.bin"), noise(40 << 10, 2)).unwrap();
    // A bundle over the limit that compresses: embedded, so not named.
    fs::write(
        site.join("bundle.js"),
        "export const answer = 42;\n".repeat(3000),
    )
    .unwrap();
}

const MAIN: &str = r#"for a in A.iter() { println!("{} {}", a.path(), a.is_embedded()); }"#;

#[test]
fn files_left_on_disk_are_a_warning_at_the_macro_call() {
    let krate = Crate::new("on_disk_warns");
    site(&krate);
    krate.main_rs("\"site\", max_embed_size = \"16 KiB\"", MAIN);
    let outcome = krate.cargo("build");
    assert!(outcome.success, "{}", outcome.stderr);
    let warning = outcome
        .stderr
        .lines()
        .find(|line| line.starts_with("warning: use of deprecated"))
        .unwrap_or_else(|| panic!("no warning:\n{}", outcome.stderr));
    for expected in [
        "2 files over `max_embed_size` (16.0 KiB) will be read from disk at run time",
        "`site/clip.mp4` (64.0 KiB, does not compress)",
        "`site/data.bin` (40.0 KiB, does not compress)",
        "on_disk = \"allow\"",
    ] {
        assert!(warning.contains(expected), "{expected}\nin: {warning}");
    }
    assert!(!warning.contains("bundle.js"), "embedded: {warning}");
    // It points at the option that decides it.
    assert!(
        outcome.stderr.contains("src/main.rs:3:"),
        "{}",
        outcome.stderr
    );
}

#[test]
fn deny_makes_it_an_error_and_allow_silences_it() {
    let krate = Crate::new("on_disk_deny");
    site(&krate);
    krate.main_rs(
        "\"site\", max_embed_size = \"16 KiB\", on_disk = \"deny\"",
        MAIN,
    );
    let stderr = krate.build_fails();
    assert!(
        stderr.contains("error: 2 files over `max_embed_size` (16.0 KiB) would be read from disk"),
        "{stderr}"
    );
    assert!(stderr.contains("`site/clip.mp4`"), "{stderr}");

    krate.main_rs(
        "\"site\", max_embed_size = \"16 KiB\", on_disk = \"allow\"",
        MAIN,
    );
    let outcome = krate.cargo("build");
    assert!(outcome.success, "{}", outcome.stderr);
    assert!(!outcome.stderr.contains("warning"), "{}", outcome.stderr);

    // Files a `disk` glob names are the user's choice: not reported.
    krate.main_rs(
        "\"site\", max_embed_size = \"16 KiB\", disk = \"*.mp4\", on_disk = \"deny\"",
        MAIN,
    );
    let stderr = krate.build_fails();
    assert!(stderr.contains("error: 1 file over"), "{stderr}");
    assert!(!stderr.contains("clip.mp4"), "{stderr}");
    assert!(stderr.contains("`site/data.bin`"), "{stderr}");
}
