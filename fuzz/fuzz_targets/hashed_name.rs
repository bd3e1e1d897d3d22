//! `hashed_name`: see `embed_assets_oracles::check_hashed_name` for the input format and
//! the invariants.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| embed_assets_oracles::check_hashed_name(data));
