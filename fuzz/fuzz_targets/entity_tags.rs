//! `entity_tags`: see `embed_assets_oracles::check_entity_tags` for the input format and the invariants.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| embed_assets_oracles::check_entity_tags(data));
