//! Every committed seed of `fuzz/corpus/<target>` through the same invariant check its
//! libFuzzer target runs: the seeds are checked on stable Rust, without cargo-fuzz.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::LazyLock;

use embed_runtime::{__fuzz, embed_assets, Assets, ServeAssets};

/// The site the `respond` fuzz target serves.
static FIXTURE: Assets = embed_assets!("../fuzz/fixture");
static SERVICE: LazyLock<ServeAssets> = LazyLock::new(|| FIXTURE.service());

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
    replay("accept_encoding", __fuzz::check_accept_encoding);
}

#[test]
fn entity_tag_seeds_hold() {
    replay("entity_tags", __fuzz::check_entity_tags);
}

#[test]
fn http_date_seeds_hold() {
    replay("http_date", __fuzz::check_http_date);
}

#[test]
fn range_seeds_hold() {
    replay("range", __fuzz::check_range);
}

#[test]
fn path_seeds_hold() {
    replay("path", __fuzz::check_path);
}

#[test]
fn whole_request_seeds_hold() {
    replay("respond", |data| __fuzz::check_response(&SERVICE, data));
}

#[test]
fn the_fixture_embeds_what_the_seeds_expect() {
    // The `respond` seeds rely on these: variants to negotiate, a directory index, a
    // dotfile that must stay out.
    let index = FIXTURE.get("/index.html").unwrap();
    assert!(index.is_negotiated());
    assert!(FIXTURE.get("/docs/index.html").is_some());
    assert!(FIXTURE
        .get("/bytes.png")
        .is_some_and(|png| !png.is_negotiated()));
    assert!(FIXTURE.get("/.secret").is_none());
}
