//! `release_list`: see `embed_assets_oracles::check_release_list` for the input format and
//! the invariants.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| embed_assets_oracles::check_release_list(data));
