//! Two releases of the Vite example's app (`fixtures/vite-releases`), built by Vite:
//! release 1 as it is, release 2 with one more line (its status line's `title`), both
//! with the releases folder, so release 2 holds its bundle and page compressed against
//! release 1's (RFC 9842), as `browser_dictionary.rs` and `firefox_rolling.rs` serve
//! them.

/// Release 1.
pub mod release_1 {
    embed_assets::embed_assets!(
        pub static SITE = "fixtures/vite-releases/release-1",
        releases = "fixtures/vite-releases/releases",
    );
}

/// Release 2, with release 1's files and dictionary-compressed bodies against them.
pub mod release_2 {
    embed_assets::embed_assets!(
        pub static SITE = "fixtures/vite-releases/public",
        releases = "fixtures/vite-releases/releases",
    );
}

/// The app's entry bundle in `site`'s own release (`/assets/index-<hash>.js`).
///
/// # Panics
/// When the build has none.
pub fn entry(site: &'static embed_assets::Assets) -> &'static embed_assets::Asset {
    site.iter()
        .find(|asset| {
            asset.earlier_release().is_none()
                && asset.path().starts_with("/assets/index-")
                && asset.path().ends_with(".js")
        })
        .expect("the app's entry bundle")
}
