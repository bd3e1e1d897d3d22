//! `mount`: the framework adapters' path below a mount point, from each router's view;
//! see `embed_assets_oracles::check_mount` for the input format and the invariants.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| embed_assets_oracles::check_mount(data));
