//! The salvo server of the harness (to be written).

use std::net::SocketAddr;

use embed_runtime::ServeAssets;

pub(super) fn spawn(_service: ServeAssets, _mount: Option<&'static str>) -> SocketAddr {
    panic!("the salvo server of the harness is not written yet")
}
