//! The macro given folders nobody would write on purpose: ten thousand files, deep
//! nesting, empty folders and files, names that differ only in case or Unicode
//! normalisation, names with URL metacharacters, and a special file (a Unix socket).
//! Each must give a clear compile error or correct output, never a panic and never a
//! hang. Each test builds a scratch crate with the real cargo (see
//! `integration_tests::scratch`); `macro_errors.rs` covers non-UTF-8 and backslash
//! names, unreadable files and symbolic links.

use std::fs;
use std::time::{Duration, Instant};

use integration_tests::scratch::{Crate, Outcome};

/// `main` prints every asset as `ASSET <path>|<len>|<etag>|<embedded>|<body>` (the
/// body lossily, as one line).
const PRINT_ALL: &str = "for asset in A.iter() {\n        \
    let body = asset.body(embed_assets::Encoding::Identity).unwrap_or_default();\n        \
    eprintln!(\"ASSET {}|{}|{}|{}|{}\", asset.path(), asset.len(), asset.etag(), \
    asset.is_embedded(), String::from_utf8_lossy(body).escape_debug());\n    }\n    \
    eprintln!(\"COUNT {}\", A.iter().count());";

/// One printed asset.
#[derive(Debug)]
struct Printed {
    path: String,
    len: u64,
    etag: String,
    embedded: bool,
    body: String,
}

fn assert_no_panic(outcome: &Outcome) {
    assert!(
        !outcome.stderr.contains("panicked"),
        "the macro must never panic:\n{}",
        outcome.stderr
    );
}

/// Runs the crate (its `main` is [`PRINT_ALL`]) and returns what it printed.
fn run_and_list(krate: &Crate) -> Vec<Printed> {
    let outcome = krate.cargo("run");
    assert_no_panic(&outcome);
    assert!(outcome.success, "{}", outcome.stderr);
    let assets: Vec<Printed> = outcome
        .stderr
        .lines()
        .filter_map(|line| line.strip_prefix("ASSET "))
        .map(|line| {
            let fields: Vec<&str> = line.splitn(5, '|').collect();
            let [path, len, etag, embedded, body] = fields[..] else {
                panic!("bad line {line:?}");
            };
            Printed {
                path: path.to_owned(),
                len: len.parse().unwrap(),
                etag: etag.to_owned(),
                embedded: embedded == "true",
                body: body.to_owned(),
            }
        })
        .collect();
    let count: usize = outcome
        .stderr
        .lines()
        .find_map(|line| line.strip_prefix("COUNT "))
        .expect("COUNT line")
        .parse()
        .unwrap();
    assert_eq!(count, assets.len());
    assets
}

#[test]
fn ten_thousand_tiny_files_are_all_embedded_with_distinct_etags() {
    if !integration_tests::programs::slow("macro_abuse") {
        return;
    }
    let krate = Crate::new("ten_thousand_files");
    let (folders, per_folder) = (100, 100);
    for folder in 0..folders {
        let dir = krate.site().join(format!("f{folder:02}"));
        fs::create_dir_all(&dir).unwrap();
        for file in 0..per_folder {
            fs::write(
                dir.join(format!("{file:03}.txt")),
                format!("file {folder}/{file}"),
            )
            .unwrap();
        }
    }
    krate.main_rs("\"site\"", PRINT_ALL);
    let started = Instant::now();
    let assets = run_and_list(&krate);
    // Printed, not asserted: timing belongs in benchmarks. It includes building the
    // scratch crate's dependencies the first time any scratch test runs.
    eprintln!(
        "{} files: built and ran in {:.1?}",
        folders * per_folder,
        started.elapsed()
    );
    assert_eq!(assets.len(), folders * per_folder);
    let mut etags: Vec<&str> = assets.iter().map(|a| a.etag.as_str()).collect();
    etags.sort_unstable();
    etags.dedup();
    assert_eq!(etags.len(), assets.len(), "every content has its own ETag");
    for asset in &assets {
        let (folder, file) = asset
            .path
            .strip_prefix("/f")
            .and_then(|rest| rest.strip_suffix(".txt"))
            .and_then(|rest| rest.split_once('/'))
            .unwrap_or_else(|| panic!("unexpected path {}", asset.path));
        let expected = format!(
            "file {}/{}",
            folder.parse::<u32>().unwrap(),
            file.parse::<u32>().unwrap()
        );
        assert_eq!(asset.body, expected, "{}", asset.path);
        assert_eq!(asset.len, expected.len() as u64);
    }
}

#[test]
fn odd_but_legal_names_are_each_served_under_their_own_key() {
    if !integration_tests::programs::slow("macro_abuse") {
        return;
    }
    let krate = Crate::new("odd_names");
    let site = krate.site();
    // 100 folders deep.
    let deep: Vec<String> = (0..100).map(|i| format!("level-{i:02}")).collect();
    let deep_dir = site.join(deep.join("/"));
    fs::create_dir_all(&deep_dir).unwrap();
    fs::write(deep_dir.join("leaf.txt"), "at the bottom").unwrap();
    // Empty folders, nested and beside files, and a folder holding only dotfiles.
    fs::create_dir_all(site.join("empty/inner/innermost")).unwrap();
    fs::create_dir_all(site.join("dots-only")).unwrap();
    fs::write(site.join("dots-only/.keep"), "hidden").unwrap();
    // Empty files, embedded and (with the limit below) one listed for disk.
    fs::write(site.join("empty.txt"), "").unwrap();
    fs::write(site.join("empty.bin"), "").unwrap();
    // Case-only and normalisation-only differences: distinct names on Linux.
    fs::write(site.join("Readme.txt"), "mixed case").unwrap();
    fs::write(site.join("README.txt"), "upper case").unwrap();
    fs::write(site.join("readme.txt"), "lower case").unwrap();
    fs::write(site.join("caf\u{e9}.txt"), "nfc").unwrap();
    fs::write(site.join("cafe\u{301}.txt"), "nfd").unwrap();
    // URL metacharacters and look-alikes: keys are the names, never decoded.
    for (name, body) in [
        ("%41.txt", "literal percent"),
        ("a%2fb.txt", "encoded slash in a name"),
        ("q?x.txt", "question mark"),
        ("h#x.txt", "hash"),
        ("semi;colon.txt", "semicolon"),
        ("quote\"d.txt", "double quote"),
        ("brace{}.txt", "braces"),
        ("tab-less name .txt", "spaces"),
        ("\u{FF0E}\u{FF0E}", "fullwidth dots"),
        ("\u{202E}txt.exe", "right-to-left override"),
        ("emoji-\u{1F600}.txt", "astral plane"),
    ] {
        fs::write(site.join(name), body).unwrap();
    }
    // Names that start with dots are dotfiles, left out by default.
    fs::write(site.join("..."), "three dots").unwrap();
    fs::write(site.join("..a"), "dot dot a").unwrap();
    // The longest name Linux allows (255 bytes).
    let long_name = format!("{}.txt", "n".repeat(251));
    fs::write(site.join(&long_name), "long name").unwrap();
    // One file over the limit that does not compress (xorshift bytes), so it is listed
    // for disk; and one that does, so it is embedded all the same.
    fs::write(site.join("large.bin"), integration_tests::noise(2048, 7)).unwrap();
    fs::write(site.join("large.txt"), "compresses ".repeat(200)).unwrap();
    krate.main_rs(
        "\"site\", max_embed_size = \"1 KiB\", on_disk = \"allow\"",
        PRINT_ALL,
    );
    let assets = run_and_list(&krate);
    let find = |path: &str| {
        assets
            .iter()
            .find(|a| a.path == path)
            .unwrap_or_else(|| panic!("{path} is not listed; listed: {:?}", listing(&assets)))
    };
    assert_eq!(
        find(&format!("/{}/leaf.txt", deep.join("/"))).body,
        "at the bottom"
    );
    for (path, body) in [
        ("/Readme.txt", "mixed case"),
        ("/README.txt", "upper case"),
        ("/readme.txt", "lower case"),
        ("/caf\u{e9}.txt", "nfc"),
        ("/cafe\u{301}.txt", "nfd"),
        ("/%41.txt", "literal percent"),
        ("/a%2fb.txt", "encoded slash in a name"),
        ("/q?x.txt", "question mark"),
        ("/h#x.txt", "hash"),
        ("/semi;colon.txt", "semicolon"),
        ("/quote\"d.txt", "double quote"),
        ("/brace{}.txt", "braces"),
        ("/tab-less name .txt", "spaces"),
        ("/\u{FF0E}\u{FF0E}", "fullwidth dots"),
        ("/\u{202E}txt.exe", "right-to-left override"),
        ("/emoji-\u{1F600}.txt", "astral plane"),
        (&format!("/{long_name}"), "long name"),
    ] {
        let asset = find(path);
        // `escape_debug` in PRINT_ALL turns `"` into `\"`.
        assert_eq!(asset.body.replace("\\\"", "\""), body, "{path}");
        assert!(asset.embedded, "{path}");
    }
    for path in ["/empty.txt", "/empty.bin"] {
        let asset = find(path);
        assert_eq!((asset.len, asset.body.as_str()), (0, ""), "{path}");
        assert!(
            asset.etag.starts_with('"') && asset.etag.ends_with('"') && asset.etag.len() > 2,
            "{path}: ETag {}",
            asset.etag
        );
    }
    assert_eq!(
        find("/empty.txt").etag,
        find("/empty.bin").etag,
        "same bytes"
    );
    let large = find("/large.bin");
    assert!(!large.embedded && large.len == 2048);
    let compressible = find("/large.txt");
    assert!(compressible.embedded && compressible.len == 2200);
    assert_eq!(compressible.body, "compresses ".repeat(200));
    assert!(
        !assets
            .iter()
            .any(|a| a.path.starts_with("/empty/") || a.path.starts_with("/dots-only")),
        "folders are not assets: {:?}",
        listing(&assets)
    );
    assert!(
        !assets.iter().any(|a| a.path.starts_with("/..")),
        "dotfiles are left out: {:?}",
        listing(&assets)
    );
    assert_eq!(assets.len(), 22, "{:?}", listing(&assets));
}

fn listing(assets: &[Printed]) -> Vec<&str> {
    assets.iter().map(|a| a.path.as_str()).collect()
}

#[test]
fn an_empty_folder_or_one_with_only_dotfiles_is_an_error_unless_allowed() {
    if !integration_tests::programs::slow("macro_abuse") {
        return;
    }
    let krate = Crate::new("only_dotfiles");
    fs::create_dir_all(krate.site().join("a/b/c")).unwrap();
    fs::write(krate.site().join(".env"), "SECRET=1").unwrap();
    fs::write(krate.site().join("a/.hidden"), "x").unwrap();
    // A wiped `dist/` looks like this: the build says so, at the folder argument.
    krate.main_rs("\"site\"", "");
    let stderr = krate.build_fails();
    assert!(
        stderr.contains("has nothing to embed") && stderr.contains("allow_empty = true"),
        "{stderr}"
    );
    // Empty on purpose: an empty table, nothing of the dotfiles.
    krate.main_rs(
        "\"site\", allow_empty = true",
        "assert!(A.is_empty());\n    assert_eq!(A.iter().count(), 0);\n    \
         assert!(A.get(\"/\").is_none() && A.get(\"/.env\").is_none());\n    \
         eprintln!(\"EMPTY OK\");",
    );
    let outcome = krate.cargo("run");
    assert_no_panic(&outcome);
    assert!(
        outcome.success && outcome.stderr.contains("EMPTY OK"),
        "{}",
        outcome.stderr
    );
}

/// What the build did with a special file: it must end within the limit, without a
/// panic, either with a compile error naming the file or without embedding it.
fn assert_special_file_is_handled(krate: &Crate, name: &str) {
    let limit = Duration::from_secs(90);
    let outcome = krate.cargo_within("run", limit);
    let Some(outcome) = outcome else {
        panic!("the build with `site/{name}` did not finish in {limit:?}");
    };
    assert_no_panic(&outcome);
    if outcome.success {
        assert!(outcome.stderr.contains("SPECIAL OK"), "{}", outcome.stderr);
    } else {
        assert!(
            outcome.stderr.contains(&format!("site/{name}"))
                && outcome.stderr.contains("src/main.rs:3:"),
            "the error must name the file at the path literal:\n{}",
            outcome.stderr
        );
    }
    let said = outcome
        .stderr
        .lines()
        .find(|line| line.starts_with("error"))
        .unwrap_or("skipped, no error");
    eprintln!("site/{name}: {said}");
}

const SPECIAL_MAIN: &str = "assert!(A.get(\"/index.html\").is_some());\n    \
    assert_eq!(A.iter().count(), 1, \"only the regular file\");\n    \
    eprintln!(\"SPECIAL OK\");";

#[cfg(unix)]
#[test]
fn a_unix_socket_in_the_folder_is_skipped_or_reported() {
    if !integration_tests::programs::slow("macro_abuse") {
        return;
    }
    let krate = Crate::new("unix_socket");
    fs::write(krate.site().join("index.html"), "<p>hi</p>").unwrap();
    let _listener = std::os::unix::net::UnixListener::bind(krate.site().join("app.sock")).unwrap();
    krate.main_rs("\"site\"", SPECIAL_MAIN);
    assert_special_file_is_handled(&krate, "app.sock");
}

/// A named pipe: opening it would block the build until a writer appears, so the macro
/// must refuse it by type (a compile error naming it) without opening it.
#[cfg(unix)]
#[test]
fn a_named_pipe_in_the_folder_is_reported_without_blocking() {
    if !integration_tests::programs::slow("macro_abuse") {
        return;
    }
    let krate = Crate::new("named_pipe");
    fs::write(krate.site().join("index.html"), "<p>hi</p>").unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(krate.site().join("events.fifo"))
        .status()
        .expect("mkfifo (coreutils)");
    assert!(made.success());
    krate.main_rs("\"site\"", SPECIAL_MAIN);
    assert_special_file_is_handled(&krate, "events.fifo");
}
