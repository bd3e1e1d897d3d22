//! Builds the Vite app in `frontend/` into `frontend/dist` (`npm ci` when needed, then
//! `npm run build` when a source changed), which `src/main.rs` embeds.

fn main() -> Result<(), embed_assets_build::Error> {
    embed_assets_build::Npm::new("frontend").run()?;
    Ok(())
}
