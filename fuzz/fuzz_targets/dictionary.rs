//! `dictionary`: `Accept-Encoding` and `Available-Dictionary` against every file of the
//! site with kept releases in `fuzz/releases`; see `embed_assets_oracles::check_dictionary`
//! for the input format and the invariants.
#![no_main]

embed_assets_oracles::release_site!(static SITE = "releases/public", releases = "releases/releases");

libfuzzer_sys::fuzz_target!(|data: &[u8]| embed_assets_oracles::check_dictionary(&SITE, data));
