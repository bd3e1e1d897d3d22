//! One thin adapter per web framework, each behind its cargo feature: it turns the
//! framework's request into a [`RequestHead`](crate::RequestHead), asks the core for
//! its answer, and turns the `http::Response<Body>` back into the framework's response
//! with a streaming body. No HTTP rule lives here: a condition about HTTP semantics
//! belongs in the core, and whether a request is the assets' to answer is the core's
//! decision too. `convert` holds what every adapter converts alike.
//!
//! Each module's documentation has a complete server of its framework; the crate's
//! [feature table](crate#features) says which feature enables which.

#[cfg(feature = "actix-web")]
pub mod actix_web;
#[cfg(feature = "axum")]
mod axum;
pub(crate) mod convert;
#[cfg(feature = "tower")]
pub(crate) mod fallback;
mod hyper;
#[cfg(feature = "poem")]
pub mod poem;
#[cfg(feature = "rocket")]
pub mod rocket;
#[cfg(feature = "salvo")]
pub mod salvo;
#[cfg(feature = "tower")]
pub(crate) mod tower;
#[cfg(feature = "warp")]
pub mod warp;

#[cfg(any(
    feature = "actix-web",
    feature = "rocket",
    feature = "salvo",
    feature = "warp",
    embed_assets_unstable_fuzz
))]
pub(crate) mod mount;
