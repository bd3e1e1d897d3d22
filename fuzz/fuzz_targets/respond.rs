//! `respond`: whole requests against the small fixture site in `fuzz/fixture`, under
//! every combination of service options; see `embed_assets_oracles::check_response`
//! for the input format and the invariants.
#![no_main]

embed_assets_oracles::fixture!(static FIXTURE = "fixture");

libfuzzer_sys::fuzz_target!(|data: &[u8]| embed_assets_oracles::check_response(&FIXTURE, data));
