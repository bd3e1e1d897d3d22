//! Adapter for warp (to be written).
