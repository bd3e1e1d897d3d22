//! The rolling-deploy fixture (`fixtures/rolling`): the folder as release 3 builds it,
//! with the releases `embed_assets_build::Releases` kept of it (`fixtures/rolling/releases`:
//! releases 1, 2 and 3), as `releases.rs`, `browser_rolling.rs` and `proxy_purge.rs`
//! serve it.

// Release 3's folder, every file fingerprinted (`assets/*` hashed by name), with the
// kept releases' hashed files: `SITE` and its `paths`.
embed_assets::embed_assets!(
    pub static SITE = "fixtures/rolling/public",
    fingerprint = true,
    hashed = "assets/*",
    releases = "fixtures/rolling/releases",
);

/// Release 2's folder as it was (`fixtures/rolling/release-2`), alone: the replica an
/// open page of release 2 came from.
pub mod release_2 {
    embed_assets::embed_assets!(
        pub static SITE = "fixtures/rolling/release-2",
        fingerprint = true,
        hashed = "assets/*",
    );
}

/// The releases' ids, oldest first, as the recorder named them.
pub const RELEASE_1: &str = "d1dad7cfb7d75121";
/// Release 2's id.
pub const RELEASE_2: &str = "5bf77a53ffd05cec";
/// Release 3's id: this folder's.
pub const RELEASE_3: &str = "0f23ce79dced1716";

/// The file at `path` of the earlier release `release`, as the table keeps it.
///
/// # Panics
/// When that release's file is not kept.
pub fn earlier(path: &str, release: &str) -> &'static embed_assets::Asset {
    SITE.iter()
        .find(|asset| asset.path() == path && asset.earlier_release() == Some(release))
        .unwrap_or_else(|| panic!("{path} of release {release} is kept"))
}
