//! Installs esbuild-wasm from npm (`npm ci` in `frontend/`, pinned by its lockfile) and
//! runs `npm run build`, which puts its `esbuild.wasm` and browser script beside the
//! page of `frontend/public` in `frontend/dist`. `src/lib.rs` embeds that folder.

fn main() -> Result<(), embed_assets_build::Error> {
    embed_assets_build::Npm::new("frontend").run()?;
    Ok(())
}
