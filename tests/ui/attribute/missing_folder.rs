#[embed_runtime::embed]
mod frontend {}

fn main() {
    let _ = &frontend::ASSETS;
}
