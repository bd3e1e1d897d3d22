//! What the macro (at compile time) and the runtime (in dev mode, for files added
//! since the build) must compute alike, defined once. Not a stable API: use
//! `embed-runtime`.

mod content_type;

pub use content_type::{content_type, is_precompressed};
