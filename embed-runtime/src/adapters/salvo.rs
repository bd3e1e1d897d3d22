//! Adapter for salvo (to be written).
