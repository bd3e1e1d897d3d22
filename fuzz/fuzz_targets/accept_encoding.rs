//! `accept_encoding`: see `embed_runtime::__fuzz::check_accept_encoding` for the input format and the invariants.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| embed_runtime::__fuzz::check_accept_encoding(data));
