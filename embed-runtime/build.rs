//! Turns on `--cfg embed_assets_unstable_fuzz`, the hidden `__private::fuzz` entry of the fuzz
//! targets and property tests, when `EMBED_ASSETS_UNSTABLE_FUZZ=1`. The repository's
//! `.cargo/config.toml` sets it for the repository's own builds only, so a plain
//! `cargo test` there replays the fuzz corpus while no dependent can switch the entry
//! on through a feature. Passing the cfg in `RUSTFLAGS` works as well (it is how hyper
//! gates its unstable API), but that flag would rebuild every dependency.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=EMBED_ASSETS_UNSTABLE_FUZZ");
    if std::env::var_os("EMBED_ASSETS_UNSTABLE_FUZZ").is_some_and(|value| value == "1") {
        println!("cargo:rustc-cfg=embed_assets_unstable_fuzz");
    }
}
