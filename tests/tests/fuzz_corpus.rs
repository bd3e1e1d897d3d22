//! Every committed seed of `fuzz/corpus/<target>` through the same invariant check its
//! libFuzzer target runs: the seeds are checked on stable Rust, without cargo-fuzz.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;

use embed_assets_oracles as oracles;

// The site the `respond` fuzz target serves, under every combination of options.
oracles::fixture!(static SERVICES = "../fuzz/fixture");

// The site with kept releases the `dictionary` and `release_lookup` targets serve.
oracles::release_site!(
    static RELEASES = "../fuzz/releases/public",
    releases = "../fuzz/releases/releases"
);

/// Runs `check` on every file of `fuzz/corpus/<target>`, naming each failing seed.
fn replay(target: &str, check: impl Fn(&[u8])) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/corpus")
        .join(target);
    let mut seeds: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|err| panic!("cannot list {}: {err}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .collect();
    seeds.sort();
    assert!(!seeds.is_empty(), "no seeds in {}", dir.display());
    let failed: Vec<String> = seeds
        .iter()
        .filter(|seed| {
            let data = std::fs::read(seed).unwrap();
            catch_unwind(AssertUnwindSafe(|| check(&data))).is_err()
        })
        .map(|seed| seed.display().to_string())
        .collect();
    assert!(
        failed.is_empty(),
        "seeds breaking an invariant: {failed:#?}"
    );
}

#[test]
fn accept_encoding_seeds_hold() {
    replay("accept_encoding", oracles::check_accept_encoding);
}

#[test]
fn entity_tag_seeds_hold() {
    replay("entity_tags", oracles::check_entity_tags);
}

#[test]
fn http_date_seeds_hold() {
    replay("http_date", oracles::check_http_date);
}

#[test]
fn range_seeds_hold() {
    replay("range", oracles::check_range);
}

#[test]
fn path_seeds_hold() {
    replay("path", oracles::check_path);
}

#[test]
fn mount_seeds_hold() {
    replay("mount", oracles::check_mount);
}

#[test]
fn whole_request_seeds_hold() {
    replay("respond", |data| oracles::check_response(&SERVICES, data));
}

#[test]
fn dictionary_seeds_hold() {
    replay("dictionary", |data| {
        oracles::check_dictionary(&RELEASES, data)
    });
}

#[test]
fn release_list_seeds_hold() {
    replay("release_list", oracles::check_release_list);
}

#[test]
fn hashed_name_seeds_hold() {
    replay("hashed_name", oracles::check_hashed_name);
}

#[test]
fn release_lookup_seeds_hold() {
    replay("release_lookup", |data| {
        oracles::check_release_lookup(&RELEASES, data)
    });
}

#[test]
fn the_fixture_embeds_what_the_seeds_expect() {
    let [plain, fingerprinted, on_disk, _] = SERVICES.tables();
    // The `respond` seeds rely on these: variants to negotiate, a directory index, a
    // dotfile that must stay out.
    let index = plain.get("/index.html").unwrap();
    assert!(index.is_negotiated());
    assert!(plain.get("/docs/index.html").is_some());
    assert!(
        plain
            .get("/bytes.png")
            .is_some_and(|png| !png.is_negotiated())
    );
    assert!(plain.get("/.secret").is_none());
    // The option `fingerprint` has hashed URLs to serve, `disk` a file on disk.
    let css = fingerprinted.get("/css/site.css").unwrap();
    assert!(css.fingerprinted_path().is_some());
    assert!(!on_disk.get("/css/site.css").unwrap().is_embedded());
    assert!(on_disk.get("/index.html").unwrap().is_embedded());
}

#[test]
fn the_release_site_has_what_the_seeds_expect() {
    let assets = RELEASES.assets();
    // `dictionary` seeds name release 1's and 2's `js/app.js`, `index.html` and lazy
    // chunk, which this build has bodies against; `release_lookup` seeds ask for
    // release 1's `notes.txt` and chunk at their hashed URLs.
    for path in ["/js/app.js", "/index.html", "/assets/chunk-C3c3c3c3.js"] {
        let asset = assets.get(path).unwrap();
        assert!(!asset.deltas().is_empty(), "{path}");
    }
    assert!(assets.get("/assets/chunk-DiwrgTda.js").is_some());
    assert!(assets.get("/notes.txt").is_none());
    assert!(
        assets
            .iter()
            .any(|asset| asset.path() == "/notes.txt" && asset.fingerprinted_path().is_some())
    );
}
