//! Adapter for actix_web (to be written).
