//! `http_date`: see `embed_assets_oracles::check_http_date` for the input format and the invariants.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| embed_assets_oracles::check_http_date(data));
