#[embed_assets::embed]
mod frontend {}

fn main() {
    let _ = &frontend::ASSETS;
}
