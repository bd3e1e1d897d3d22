//! `release_lookup`: requests for this build's, earlier releases' and unknown versions
//! of hashed files of the site in `fuzz/releases`; see
//! `embed_assets_oracles::check_release_lookup` for the input format and the invariants.
#![no_main]

embed_assets_oracles::release_site!(static SITE = "releases/public", releases = "releases/releases");

libfuzzer_sys::fuzz_target!(|data: &[u8]| embed_assets_oracles::check_release_lookup(&SITE, data));
