//! Scratch crates: a tiny crate in the temp folder that depends on embed-assets by
//! path, built with the real cargo, for what only a real build shows (compile errors
//! from names git cannot hold, rebuilds after files change).
//!
//! The crates share one target folder (`<target>/macro-errors`), so embed-assets and
//! its dependencies build once; cargo's lock serialises tests that run in parallel.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A throwaway crate: `Cargo.toml`, `src/main.rs` and an empty `site/` folder to embed.
#[derive(Debug)]
pub struct Crate {
    dir: PathBuf,
    /// The package (and binary) name.
    package: String,
}

/// What `cargo` reported.
#[derive(Debug)]
pub struct Outcome {
    /// Whether cargo exited with success.
    pub success: bool,
    /// What it printed on stderr (our program's stderr too, for `cargo run`).
    pub stderr: String,
}

impl Crate {
    /// A fresh crate named after the test, in the temp folder.
    pub fn new(test: &str) -> Crate {
        Crate::with_dependencies(test, "")
    }

    /// A fresh crate as [`new`](Self::new), with `dependencies` as the lines of its
    /// `[dependencies]` table; `{runtime}` in them stands for embed-assets's folder,
    /// `{build}` for embed-assets-build's.
    /// Empty: embed-assets by path, with its default features.
    pub fn with_dependencies(test: &str, dependencies: &str) -> Crate {
        let dir = std::env::temp_dir().join(format!(
            "embed-assets-scratch-{}-{test}",
            std::process::id()
        ));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("src")).unwrap();
        fs::create_dir_all(dir.join("site")).unwrap();
        let folder = |name: &str| format!("{:?}", workspace_root().join(name).to_string_lossy());
        let package = format!("macro-errors-{}", test.replace('_', "-"));
        let runtime = folder("embed-runtime");
        let dependencies = if dependencies.is_empty() {
            format!("embed-assets = {{ path = {runtime} }}")
        } else {
            dependencies
                .replace("{runtime}", &runtime)
                .replace("{build}", &folder("embed-build"))
        };
        // The macro built optimised, as the README tells users to, so every scratch
        // crate shares what the first one built (the quick start has the lines itself).
        let build_override = if dependencies.contains("[profile.dev.build-override]") {
            ""
        } else {
            "[profile.dev.build-override]\nopt-level = 3\n\n"
        };
        let manifest = format!(
            "[package]\n\
             name = \"{package}\"\n\
             version = \"0.0.0\"\n\
             edition = \"2021\"\n\
             publish = false\n\n\
             [dependencies]\n\
             {dependencies}\n\n\
             # No debug info: these crates only need to build (and the suite's disk stays small).\n\
             [profile.dev]\n\
             debug = false\n\n\
             {build_override}\
             # Not a member of any workspace above the temp folder.\n\
             [workspace]\n",
        );
        fs::write(dir.join("Cargo.toml"), manifest).unwrap();
        // The workspace's versions, so nothing new is resolved (or downloaded).
        fs::copy(workspace_root().join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
        Crate { dir, package }
    }

    /// The crate's own folder (with `Cargo.toml`).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The modification time of the crate's debug binary, to tell a rebuild from a
    /// no-op build.
    ///
    /// # Panics
    /// If the binary has not been built.
    pub fn binary_mtime(&self) -> std::time::SystemTime {
        let binary = shared_target_dir().join("debug").join(&self.package);
        fs::metadata(&binary)
            .and_then(|m| m.modified())
            .unwrap_or_else(|err| panic!("{}: {err}", binary.display()))
    }

    /// Runs the crate's debug binary (built by [`cargo`](Self::cargo)) with `args`;
    /// its stdout.
    ///
    /// # Panics
    /// If the binary does not start or fails.
    pub fn run(&self, args: &[&str]) -> String {
        let binary = shared_target_dir().join("debug").join(&self.package);
        let output = Command::new(&binary).args(args).output().unwrap();
        assert!(
            output.status.success(),
            "{}: {}",
            binary.display(),
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// The folder the macro embeds.
    pub fn site(&self) -> PathBuf {
        self.dir.join("site")
    }

    /// Writes `src/main.rs`: `static A: Assets = embed_assets!(<args>);` and `main`.
    pub fn main_rs(&self, args: &str, main_body: &str) {
        let source = format!(
            "use embed_assets::{{embed_assets, Assets}};\n\n\
             static A: Assets = embed_assets!({args});\n\n\
             fn main() {{\n    let _ = &A;\n    {main_body}\n}}\n"
        );
        fs::write(self.dir.join("src/main.rs"), source).unwrap();
    }

    /// `cargo <subcommand>` in the crate, with the shared target folder.
    pub fn cargo(&self, subcommand: &str) -> Outcome {
        self.cargo_with_env(subcommand, &[])
    }

    /// `cargo <subcommand>` as [`cargo`](Self::cargo), with `env` set for it (and so
    /// for the build script and the program it runs).
    pub fn cargo_with_env(&self, subcommand: &str, env: &[(&str, &str)]) -> Outcome {
        self.cargo_with_args(&[subcommand], env)
    }

    /// `cargo <args>` in the crate, with the shared target folder and `env`.
    fn cargo_with_args(&self, args: &[&str], env: &[(&str, &str)]) -> Outcome {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let output = Command::new(cargo)
            .envs(env.iter().copied())
            .args(args)
            .arg("--quiet")
            .arg("--color=never")
            .current_dir(&self.dir)
            .env("CARGO_TARGET_DIR", shared_target_dir())
            // The OUT_DIR of the tests' own build means nothing to this crate, and
            // the lints CI makes while building the tests (.ci/run) are not for it.
            .env_remove("OUT_DIR")
            .env_remove("RUSTC_WORKSPACE_WRAPPER")
            .env_remove("CLIPPY_ARGS")
            .output()
            .unwrap();
        Outcome {
            success: output.status.success(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }

    /// `cargo <subcommand>` as [`cargo`](Self::cargo), but killed after `limit`:
    /// `None` when it had not finished by then (a build that hangs).
    /// The limit counts from after the dependencies are built (without a limit: that
    /// may wait for other tests' builds on the shared folder's lock), so it bounds this
    /// crate's own compilation, the macro's run, and the program.
    pub fn cargo_within(&self, subcommand: &str, limit: std::time::Duration) -> Option<Outcome> {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let dependencies = self.cargo_with_args(&["build", "--package", "embed-assets"], &[]);
        assert!(dependencies.success, "{}", dependencies.stderr);
        let mut child = Command::new(cargo)
            .arg(subcommand)
            .arg("--quiet")
            .arg("--color=never")
            .current_dir(&self.dir)
            .env("CARGO_TARGET_DIR", shared_target_dir())
            .env_remove("OUT_DIR")
            .env_remove("RUSTC_WORKSPACE_WRAPPER")
            .env_remove("CLIPPY_ARGS")
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // Drain stderr on a thread, so a chatty build never blocks on a full pipe.
        let mut pipe = child.stderr.take().unwrap();
        let reader = std::thread::spawn(move || {
            let mut text = Vec::new();
            let _ = std::io::Read::read_to_end(&mut pipe, &mut text);
            text
        });
        let deadline = std::time::Instant::now() + limit;
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if std::time::Instant::now() >= deadline {
                let _ = child.kill();
                let _ = child.wait();
                // rustc may outlive cargo and keep the pipe open: leave the reader be.
                return None;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        };
        let stderr = reader.join().unwrap();
        Some(Outcome {
            success: status.success(),
            stderr: String::from_utf8_lossy(&stderr).into_owned(),
        })
    }

    /// Builds, expecting our compile error: returns stderr.
    pub fn build_fails(&self) -> String {
        let outcome = self.cargo("build");
        assert!(
            !outcome.success,
            "expected a compile error:\n{}",
            outcome.stderr
        );
        assert!(
            !outcome.stderr.contains("panicked"),
            "the macro must report errors, not panic:\n{}",
            outcome.stderr
        );
        // The error points at the path literal in the macro call (line 3).
        assert!(
            outcome.stderr.contains("src/main.rs:3:"),
            "expected a span in the macro call:\n{}",
            outcome.stderr
        );
        outcome.stderr
    }
}

impl Drop for Crate {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// `<target>/macro-errors`, where `<target>` is the cargo target folder holding this
/// binary (a test's `<target>/debug/deps/macro_errors-…`, a benchmark's
/// `<target>/release/bench-…`): the nearest folder above it that cargo marked with
/// `CACHEDIR.TAG`. So a custom `CARGO_TARGET_DIR` is respected, and nothing is written
/// outside a target folder.
fn shared_target_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let target = exe
        .ancestors()
        .skip(1)
        .find(|dir| dir.join("CACHEDIR.TAG").is_file())
        .map_or_else(|| workspace_root().join("target"), Path::to_path_buf);
    target.join("macro-errors")
}
