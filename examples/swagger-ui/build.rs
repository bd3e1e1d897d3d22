//! Installs swagger-ui-dist from npm (`npm ci` in `frontend/`, pinned by its lockfile)
//! and runs `npm run build`, which copies it to `frontend/dist` with an initializer that
//! points Swagger UI at this server's `/openapi.json`. `src/lib.rs` embeds that folder.

fn main() -> Result<(), embed_assets_build::Error> {
    embed_assets_build::Npm::new("frontend").run()?;
    Ok(())
}
