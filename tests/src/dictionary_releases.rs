//! Two releases of the dictionary fixture site (`fixtures/dictionary`), both with the
//! releases folder, so release 2 holds its bundle and page compressed against release
//! 1's (RFC 9842), as the browser tests serve them one after the other.

/// Release 1.
pub mod release_1 {
    embed_assets::embed_assets!(
        pub static SITE = "fixtures/dictionary/release-1",
        fingerprint = true,
        rewrite_references = true,
        releases = "fixtures/dictionary/releases",
    );
}

/// Release 2, with release 1's files and dictionary-compressed bodies against them.
pub mod release_2 {
    embed_assets::embed_assets!(
        pub static SITE = "fixtures/dictionary/public",
        fingerprint = true,
        rewrite_references = true,
        releases = "fixtures/dictionary/releases",
    );
}
