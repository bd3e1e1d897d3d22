//! `path`: see `embed_runtime::__fuzz::check_path` for the input format and the invariants.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| embed_runtime::__fuzz::check_path(data));
