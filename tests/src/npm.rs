//! Scratch crates whose `build.rs` builds an npm package with
//! `embed_assets_build::Npm`, and a record of every npm call they make.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::programs;
use crate::scratch::Crate;

/// A scratch crate with embed-assets as a dependency and embed-assets-build as a
/// build dependency, and a `build.rs` that builds `frontend/` into
/// `frontend/dist`.
pub fn crate_building_frontend(test: &str) -> Crate {
    let krate = Crate::with_dependencies(
        test,
        "embed-assets = { path = {runtime} }\n\n\
         [build-dependencies]\n\
         embed-assets-build = { path = {build} }",
    );
    fs::create_dir_all(krate.dir().join("frontend")).unwrap();
    fs::write(
        krate.dir().join("build.rs"),
        "fn main() -> Result<(), embed_assets_build::Error> {\n    \
         embed_assets_build::Npm::new(\"frontend\").run()?;\n    Ok(())\n}\n",
    )
    .unwrap();
    krate
}

/// A wrapper around the real npm that logs its arguments, one call per line: set
/// `NPM` to [`program`](Self::program) for the build.
#[derive(Debug)]
pub struct NpmCalls {
    log: PathBuf,
    wrapper: String,
}

impl NpmCalls {
    /// Writes the wrapper into `dir`; `None` after skipping the calling test when npm
    /// is not installed (see [`programs::require`]).
    pub fn install(dir: &Path) -> Option<NpmCalls> {
        let npm = programs::require(&["npm"], &[], "npm")?;
        let log = dir.join("npm-calls.log");
        let wrapper = dir.join("npm-wrapper.sh");
        fs::write(
            &wrapper,
            format!(
                "#!/bin/sh\necho \"$*\" >> '{}'\nexec '{}' \"$@\"\n",
                log.display(),
                npm.display()
            ),
        )
        .unwrap();
        let status = Command::new("chmod")
            .arg("+x")
            .arg(&wrapper)
            .status()
            .unwrap();
        assert!(status.success());
        Some(NpmCalls {
            log,
            wrapper: wrapper.to_string_lossy().into_owned(),
        })
    }

    /// The wrapper's path, for `NPM`.
    pub fn program(&self) -> &str {
        &self.wrapper
    }

    /// Every call so far, as its arguments (`ci --no-audit --no-fund`, `run build`).
    pub fn calls(&self) -> Vec<String> {
        fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    }
}
