//! Builds the Vite app in `frontend/` into `frontend/dist` (`npm ci` when needed, then
//! `npm run build` when a source changed), which `src/main.rs` embeds.

fn main() -> Result<(), embed_runtime::build::Error> {
    embed_runtime::build::Npm::new("frontend").run()?;
    Ok(())
}
