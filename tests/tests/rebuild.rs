//! Rebuild correctness on stable Rust: after editing, adding, removing or renaming a
//! file of the embedded folder, the next `cargo build` serves the change. Edits are
//! tracked by `include_bytes!`; additions and removals by the one-line build script the
//! README's quick start shows (`cargo:rerun-if-changed=site`).

use std::fs;

use integration_tests::scratch::Crate;

/// `main` prints every embedded path with its body, one `ASSET path=body` per line.
const PRINT_ALL: &str = "for asset in A.iter() {\n        \
    let body = asset.body(embed_assets::Encoding::Identity).unwrap_or_default();\n        \
    eprintln!(\"ASSET {}={}\", asset.path(), String::from_utf8_lossy(body));\n    }";

fn served(krate: &Crate) -> Vec<String> {
    let outcome = krate.cargo("run");
    assert!(outcome.success, "{}", outcome.stderr);
    let mut lines: Vec<String> = outcome
        .stderr
        .lines()
        .filter_map(|line| line.strip_prefix("ASSET "))
        .filter(|line| !line.starts_with("/unique.txt="))
        .map(str::to_owned)
        .collect();
    lines.sort();
    lines
}

#[test]
fn edits_additions_removals_and_renames_each_reach_the_next_build() {
    let krate = Crate::new("rebuild_four_cases");
    fs::write(
        krate.dir().join("build.rs"),
        "fn main() {\n    println!(\"cargo:rerun-if-changed=site\");\n}\n",
    )
    .unwrap();
    fs::write(krate.site().join("a.txt"), "one").unwrap();
    // Content no earlier run compressed, so the first build writes new cache blobs.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap();
    fs::write(krate.site().join("unique.txt"), format!("unique {now:?}")).unwrap();
    fs::create_dir_all(krate.site().join("sub")).unwrap();
    fs::write(krate.site().join("sub/b.txt"), "bee").unwrap();
    krate.main_rs("\"site\"", PRINT_ALL);
    assert_eq!(served(&krate), ["/a.txt=one", "/sub/b.txt=bee"]);
    // Nothing changed: the next build is a no-op (cache blobs written during the first
    // build must not look newer than it).
    let built = krate.binary_mtime();
    assert_eq!(served(&krate), ["/a.txt=one", "/sub/b.txt=bee"]);
    assert_eq!(
        krate.binary_mtime(),
        built,
        "a no-op build must not recompile"
    );

    // Edit (same length, so only the content changes).
    fs::write(krate.site().join("a.txt"), "two").unwrap();
    assert_eq!(
        served(&krate),
        ["/a.txt=two", "/sub/b.txt=bee"],
        "after an edit"
    );

    // Add, in a subfolder.
    fs::write(krate.site().join("sub/c.txt"), "sea").unwrap();
    assert_eq!(
        served(&krate),
        ["/a.txt=two", "/sub/b.txt=bee", "/sub/c.txt=sea"],
        "after an addition"
    );

    // Remove.
    fs::remove_file(krate.site().join("sub/b.txt")).unwrap();
    assert_eq!(
        served(&krate),
        ["/a.txt=two", "/sub/c.txt=sea"],
        "after a removal"
    );

    // Rename.
    fs::rename(krate.site().join("a.txt"), krate.site().join("renamed.txt")).unwrap();
    assert_eq!(
        served(&krate),
        ["/renamed.txt=two", "/sub/c.txt=sea"],
        "after a rename"
    );
}
