//! `respond`: whole requests against the small fixture site in `fuzz/fixture`; see
//! `embed_runtime::__fuzz::check_response` for the input format and the invariants.
#![no_main]

use std::sync::LazyLock;

use embed_runtime::{embed_assets, Assets, ServeAssets};

static FIXTURE: Assets = embed_assets!("fixture");
static SERVICE: LazyLock<ServeAssets> = LazyLock::new(|| FIXTURE.service());

libfuzzer_sys::fuzz_target!(|data: &[u8]| embed_runtime::__fuzz::check_response(&SERVICE, data));
