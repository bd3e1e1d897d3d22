//! Adapter for poem (to be written).
