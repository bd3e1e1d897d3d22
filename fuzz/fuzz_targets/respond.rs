//! `respond`: whole requests against the small fixture site in `fuzz/fixture`, under
//! every combination of service options; see `embed_assets_oracles::check_response`
//! for the input format and the invariants.
#![no_main]

use std::sync::LazyLock;

use embed_assets_oracles::Fixture;
use embed_runtime::{embed_assets, Assets};

static PLAIN: Assets = embed_assets!("fixture");
static FINGERPRINTED: Assets = embed_assets!("fixture", fingerprint = true);
static ON_DISK: Assets = embed_assets!("fixture", max_embed_size = "2 KiB");
static BOTH: Assets = embed_assets!("fixture", fingerprint = true, max_embed_size = "2 KiB");
static FIXTURE: LazyLock<Fixture> = LazyLock::new(|| {
    let folder = concat!(env!("CARGO_MANIFEST_DIR"), "/fixture");
    Fixture::new([&PLAIN, &FINGERPRINTED, &ON_DISK, &BOTH], folder)
});

libfuzzer_sys::fuzz_target!(|data: &[u8]| embed_assets_oracles::check_response(&FIXTURE, data));
