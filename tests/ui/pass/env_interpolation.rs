use embed_assets::{embed_assets, Assets};

// `${NAME}` expands from the environment the compiler runs in.
static A: Assets = embed_assets!("${FIXTURES}/site/nested");

fn main() {
    assert!(A.get("/deep/file.txt").is_some());
}
