//! Adapter for rocket (to be written).
