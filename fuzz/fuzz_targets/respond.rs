//! `respond`: whole requests against the small fixture site in `fuzz/fixture`, under
//! every combination of service options; see `embed_assets_oracles::check_response`
//! for the input format and the invariants.
#![no_main]

use std::sync::LazyLock;

use embed_assets_oracles::Fixture;
use embed_runtime::{embed_assets, Assets};

static SITE: Assets = embed_assets!("fixture");
static FIXTURE: LazyLock<Fixture> = LazyLock::new(|| Fixture::new(&SITE));

libfuzzer_sys::fuzz_target!(|data: &[u8]| embed_assets_oracles::check_response(&FIXTURE, data));
