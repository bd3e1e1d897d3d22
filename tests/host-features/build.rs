//! Empty: the build dependencies are the point (see `Cargo.toml`).

fn main() {}
