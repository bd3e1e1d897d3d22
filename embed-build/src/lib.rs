//! Helpers for a crate's `build.rs`: tell cargo which files the embedded folder depends
//! on, build an npm frontend (Vite, esbuild, …) before the crate compiles, and keep
//! earlier releases of the folder.
//!
//! A build dependency, next to `embed-assets` in `[dependencies]`; it has no proc macro,
//! no HTTP and no async runtime in its own dependencies, so build scripts stay quick to
//! compile:
//!
//! ```toml
//! [build-dependencies]
//! embed-assets-build = "0.1"
//! ```
//!
//! # Only tracking the folder
//!
//! Cargo already rebuilds the crate when an embedded file changes; to see files that are
//! *added*, *removed* or *renamed* too:
//!
//! ```no_run
//! // build.rs
//! fn main() {
//!     embed_assets_build::track("public");
//! }
//! ```
//!
//! # Building an npm frontend
//!
//! ```no_run
//! // build.rs: builds frontend/ into frontend/dist, which src/main.rs embeds with
//! // `embed_assets!("frontend/dist")`.
//! fn main() -> Result<(), embed_assets_build::Error> {
//!     embed_assets_build::Npm::new("frontend").run()?;
//!     Ok(())
//! }
//! ```
//!
//! [`Npm::run`]:
//! - runs `npm ci` when `node_modules` is missing or was installed from another
//!   `package-lock.json` (compared by content; an install made by hand counts as current
//!   when npm's own record in `node_modules/.package-lock.json` is not older than the
//!   lockfile);
//! - runs the package's build script (`npm run build`) when a source file, the lockfile
//!   or the output differs from the last build, compared by content: a `git checkout`
//!   that only touches modification times runs no npm;
//! - tells cargo to run the build script again when a source or the output changes, so
//!   a `cargo build` with nothing changed does not even start it.
//!
//! The sources are every file of the frontend folder except `node_modules` folders, the
//! output folder, `.git` and what [`Npm::exclude`] names. A new file is noticed when it
//! is inside a folder that existed before (`src/`, `public/`, …); a new file at the top
//! of the frontend folder is noticed at the next change of another source.
//!
//! The output's modification times are set back to the moment the build script
//! started, after each build: cargo compares the files it tracks with that moment, and
//! files written during the run would otherwise make it run again every time.
//!
//! When the output was built beforehand (a Docker stage, a CI step), set
//! `EMBED_SKIP_NPM=1`: the build script then only checks that the output exists and
//! tracks it. `NPM` names another npm program (a path, or `pnpm`-compatible wrapper).
//!
//! A failed npm step fails the build with npm's own output and the command that
//! reproduces it; a missing npm says what to install.
//!
//! # Keeping earlier releases
//!
//! ```no_run
//! // build.rs: after each release build, public/ is kept in releases/ (the newest 3).
//! fn main() -> Result<(), embed_assets_build::Error> {
//!     embed_assets_build::track("public");
//!     embed_assets_build::Releases::new("releases").keep(3).record("public")?;
//!     Ok(())
//! }
//! ```
//!
//! See [`Releases`].

// The examples are whole `build.rs` files: their `fn main` is the point.
#![allow(clippy::needless_doctest_main)]

use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

use embed_assets_shared::hex;
use sha2::{Digest, Sha256};

mod releases;

pub use releases::{Recorded, Releases};

/// The environment variable that skips every npm step ([`Npm::run`] then only checks
/// that the output exists).
pub const SKIP_NPM: &str = "EMBED_SKIP_NPM";

/// The environment variable that names the npm program (default `npm`).
pub const NPM: &str = "NPM";

/// Where the helper records what it installed and built, inside `node_modules` (so a
/// fresh install also means a fresh build).
const STAMP: &str = ".embed-assets-build";

/// Tells cargo to run the build script again when anything under `folder` (relative to
/// the crate's `Cargo.toml`) is added, removed, renamed or changed.
///
/// This is the whole `build.rs` a crate that embeds a checked-in folder needs.
pub fn track(folder: impl AsRef<Path>) {
    println!("cargo:rerun-if-changed={}", folder.as_ref().display());
}

/// An npm package whose build script writes the folder the crate embeds.
///
/// See the [module documentation](self) for what [`run`](Self::run) does.
#[derive(Debug, Clone)]
pub struct Npm {
    dir: PathBuf,
    script: String,
    output: PathBuf,
    exclude: Vec<String>,
}

/// What [`Npm::run`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Built {
    /// The output folder, as an absolute path.
    pub output: PathBuf,
    /// Whether `npm ci` ran.
    pub installed: bool,
    /// Whether the build script ran.
    pub built: bool,
}

/// Why a helper failed ([`Npm::run`], [`Releases::record`]): a message for the person
/// running `cargo build`, with npm's own output and the command that reproduces an npm
/// failure.
///
/// Its `Debug` is its `Display`, so `fn main() -> Result<(), Error>` in a `build.rs`
/// prints it readably.
pub struct Error {
    message: String,
}

impl Error {
    fn new(message: impl Into<String>) -> Error {
        Error {
            message: message.into(),
        }
    }

    fn io(what: &str, path: &Path, err: io::Error) -> Error {
        Error::new(format!("{what} {}: {err}", path.display()))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

impl Npm {
    /// The npm package in `dir` (relative to the crate's `Cargo.toml`), built with
    /// `npm run build` into `dir/dist`.
    pub fn new(dir: impl Into<PathBuf>) -> Npm {
        Npm {
            dir: dir.into(),
            script: "build".to_owned(),
            output: PathBuf::from("dist"),
            exclude: Vec::new(),
        }
    }

    /// The package script to run instead of `build`.
    pub fn script(mut self, name: impl Into<String>) -> Npm {
        self.script = name.into();
        self
    }

    /// The folder the script writes, relative to the package (default `dist`).
    pub fn output(mut self, folder: impl Into<PathBuf>) -> Npm {
        self.output = folder.into();
        self
    }

    /// A file or folder name that is not a source (a test report, a cache); matched
    /// against every path component, like `node_modules`.
    pub fn exclude(mut self, name: impl Into<String>) -> Npm {
        self.exclude.push(name.into());
        self
    }

    /// Installs and builds what needs it, and tells cargo what to track.
    ///
    /// # Errors
    /// When the folder is not an npm package, npm is missing or fails, or the build
    /// script wrote no output folder.
    pub fn run(&self) -> Result<Built, Error> {
        // Before anything is written: the output's times are set back to this moment.
        let started = SystemTime::now();
        let dir = absolute(&self.dir);
        let output = dir.join(&self.output);
        println!("cargo:rerun-if-env-changed={SKIP_NPM}");
        println!("cargo:rerun-if-env-changed={NPM}");

        if std::env::var_os(SKIP_NPM).is_some_and(|v| !v.is_empty() && v != "0") {
            if !output.is_dir() {
                return Err(Error::new(format!(
                    "{SKIP_NPM} is set, but {} does not exist: build the frontend first \
                     (cd {} && npm ci && npm run {}) or unset {SKIP_NPM}",
                    output.display(),
                    dir.display(),
                    self.script
                )));
            }
            println!("cargo:rerun-if-changed={}", output.display());
            return Ok(Built {
                output,
                installed: false,
                built: false,
            });
        }

        let lockfile = dir.join("package-lock.json");
        if !dir.join("package.json").is_file() {
            return Err(Error::new(format!(
                "{} is not an npm package: it has no package.json",
                dir.display()
            )));
        }
        let lock = match fs::read(&lockfile) {
            Ok(bytes) => hex(&Sha256::digest(&bytes)),
            Err(err) if err.kind() == io::ErrorKind::NotFound => {
                return Err(Error::new(format!(
                    "{} has no package-lock.json: run `npm install` there once and commit \
                     the lockfile, so every build installs the same packages",
                    dir.display()
                )));
            }
            Err(err) => return Err(Error::io("reading", &lockfile, err)),
        };

        let modules = dir.join("node_modules");
        let stamp_path = modules.join(STAMP);
        let mut stamp = Stamp::read(&stamp_path);
        let installed = !install_is_current(&modules, &lockfile, &stamp, &lock);
        if installed {
            self.npm(&dir, &["ci", "--no-audit", "--no-fund"])?;
            stamp = Stamp::default();
        }
        stamp.lock = lock;

        let sources = self.sources(&dir, &output)?;
        let sources_hash = hash_files(&dir, &sources)?;
        let output_hash = self.output_hash(&output)?;
        let built = installed
            || stamp.sources != sources_hash
            || output_hash.as_deref() != Some(stamp.output.as_str());
        if built {
            self.npm(&dir, &["run", &self.script])?;
            stamp.output = self.output_hash(&output)?.ok_or_else(|| {
                Error::new(format!(
                    "`npm run {}` in {} succeeded but wrote no {}: set the output folder \
                     with `.output(..)`",
                    self.script,
                    dir.display(),
                    output.display()
                ))
            })?;
        }
        stamp.sources = sources_hash;
        // A package without dependencies may have no node_modules after `npm ci`.
        fs::create_dir_all(&modules)
            .and_then(|()| stamp.write(&stamp_path))
            .map_err(|err| Error::io("writing", &stamp_path, err))?;

        // Files written during this run would look changed to cargo at the next build.
        set_times(
            &output,
            started
                .checked_sub(Duration::from_secs(2))
                .unwrap_or(started),
        )
        .map_err(|err| Error::io("setting the modification times of", &output, err))?;
        for source in top_level(&sources, &dir) {
            println!("cargo:rerun-if-changed={}", source.display());
        }
        println!("cargo:rerun-if-changed={}", output.display());
        Ok(Built {
            output,
            installed,
            built,
        })
    }

    /// Runs npm with `args` in `dir`, keeping its output for the error.
    fn npm(&self, dir: &Path, args: &[&str]) -> Result<(), Error> {
        let program = std::env::var_os(NPM)
            .unwrap_or_else(|| if cfg!(windows) { "npm.cmd" } else { "npm" }.into());
        let shown = format!("{} {}", program.to_string_lossy(), args.join(" "));
        let result = Command::new(&program).args(args).current_dir(dir).output();
        let out = match result {
            Ok(out) => out,
            Err(err) if err.kind() == io::ErrorKind::NotFound => {
                return Err(Error::new(format!(
                    "`{shown}` could not start: {} was not found. Install Node.js with npm \
                     (Debian: `apt-get install nodejs npm`; others: https://nodejs.org), set \
                     {NPM} to the npm program, or set {SKIP_NPM}=1 when {} was built \
                     beforehand",
                    program.to_string_lossy(),
                    dir.join(&self.output).display()
                )));
            }
            Err(err) => return Err(Error::new(format!("`{shown}` could not start: {err}"))),
        };
        // Shown by `cargo build -vv`, and kept by cargo in the build script's output.
        eprint!("{}", String::from_utf8_lossy(&out.stdout));
        eprint!("{}", String::from_utf8_lossy(&out.stderr));
        if out.status.success() {
            return Ok(());
        }
        Err(Error::new(format!(
            "`{shown}` failed ({}) in {}.\n\
             To reproduce: cd {} && {shown}\n\
             --- npm's output ---\n{}{}",
            out.status,
            dir.display(),
            shell_quote(dir),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )))
    }

    /// Every source file under `dir`, sorted, relative to `dir`.
    fn sources(&self, dir: &Path, output: &Path) -> Result<Vec<PathBuf>, Error> {
        let mut files = Vec::new();
        let walk = walkdir::WalkDir::new(dir)
            .sort_by_file_name()
            .into_iter()
            .filter_entry(|entry| {
                entry.path() == dir
                    || (entry.path() != output
                        && entry.file_name().to_str().is_none_or(|name| {
                            name != "node_modules"
                                && name != ".git"
                                && !self.exclude.iter().any(|e| e == name)
                        }))
            });
        for entry in walk {
            let entry = entry.map_err(|err| Error::new(format!("listing the sources: {err}")))?;
            if !entry.file_type().is_dir() {
                if let Ok(relative) = entry.path().strip_prefix(dir) {
                    files.push(relative.to_path_buf());
                }
            }
        }
        Ok(files)
    }

    /// The hash of every file under the output folder, `None` when it does not exist.
    fn output_hash(&self, output: &Path) -> Result<Option<String>, Error> {
        if !output.is_dir() {
            return Ok(None);
        }
        let mut files = Vec::new();
        for entry in walkdir::WalkDir::new(output).sort_by_file_name() {
            let entry = entry.map_err(|err| Error::new(format!("listing the output: {err}")))?;
            if !entry.file_type().is_dir() {
                if let Ok(relative) = entry.path().strip_prefix(output) {
                    files.push(relative.to_path_buf());
                }
            }
        }
        hash_files(output, &files).map(Some)
    }
}

/// What the last run installed and built, by content hash.
#[derive(Debug, Default, PartialEq, Eq)]
struct Stamp {
    lock: String,
    sources: String,
    output: String,
}

impl Stamp {
    /// The recorded stamp, empty when there is none or it cannot be read.
    fn read(path: &Path) -> Stamp {
        let mut stamp = Stamp::default();
        for line in fs::read_to_string(path).unwrap_or_default().lines() {
            match line.split_once(' ') {
                Some(("lock", v)) => stamp.lock = v.to_owned(),
                Some(("sources", v)) => stamp.sources = v.to_owned(),
                Some(("output", v)) => stamp.output = v.to_owned(),
                _ => {}
            }
        }
        stamp
    }

    fn write(&self, path: &Path) -> io::Result<()> {
        fs::write(
            path,
            format!(
                "lock {}\nsources {}\noutput {}\n",
                self.lock, self.sources, self.output
            ),
        )
    }
}

/// Whether `node_modules` holds what `package-lock.json` asks for.
fn install_is_current(modules: &Path, lockfile: &Path, stamp: &Stamp, lock: &str) -> bool {
    if !modules.is_dir() {
        return false;
    }
    if !stamp.lock.is_empty() {
        return stamp.lock == lock;
    }
    // Installed by hand: npm records the installed tree in node_modules/.package-lock.json.
    let modified = |path: &Path| fs::metadata(path).and_then(|m| m.modified()).ok();
    match (
        modified(&modules.join(".package-lock.json")),
        modified(lockfile),
    ) {
        (Some(installed), Some(locked)) => installed >= locked,
        _ => false,
    }
}

/// One SHA-256 over the relative paths and contents of `files` under `root`.
fn hash_files(root: &Path, files: &[PathBuf]) -> Result<String, Error> {
    let mut hasher = Sha256::new();
    for file in files {
        let path = root.join(file);
        let bytes = match fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => fs::read_link(&path)
                .map(|target| target.to_string_lossy().into_owned().into_bytes()),
            _ => fs::read(&path),
        }
        .map_err(|err| Error::io("reading", &path, err))?;
        let name = file.to_string_lossy();
        hasher.update((name.len() as u64).to_le_bytes());
        hasher.update(name.as_bytes());
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(&bytes);
    }
    Ok(hex(&hasher.finalize()))
}

/// The top-level entries of `dir` that hold `files`: what cargo is told to track (a
/// folder is scanned by cargo as a whole).
fn top_level(files: &[PathBuf], dir: &Path) -> Vec<PathBuf> {
    let mut entries: Vec<PathBuf> = files
        .iter()
        .filter_map(|file| file.components().next())
        .map(|first| dir.join(first.as_os_str()))
        .collect();
    entries.dedup();
    entries
}

/// Sets the modification time of every file and folder under `root` to `time`.
fn set_times(root: &Path, time: SystemTime) -> io::Result<()> {
    for entry in walkdir::WalkDir::new(root).contents_first(true) {
        let entry = entry.map_err(io::Error::other)?;
        if entry.file_type().is_symlink() {
            continue;
        }
        let file = if entry.file_type().is_dir() {
            fs::File::open(entry.path())
        } else {
            fs::OpenOptions::new().write(true).open(entry.path())
        };
        match file.and_then(|f| f.set_modified(time)) {
            Ok(()) => {}
            // A folder cannot be opened for this everywhere; cargo scans its files.
            Err(_) if entry.file_type().is_dir() => {}
            Err(err) => return Err(err),
        }
    }
    Ok(())
}

/// `path`, against the crate's folder when relative (a build script runs there too).
fn absolute(path: &Path) -> PathBuf {
    if path.is_absolute() {
        return path.to_path_buf();
    }
    match std::env::var_os("CARGO_MANIFEST_DIR") {
        Some(root) => Path::new(&root).join(path),
        None => std::env::current_dir()
            .map(|cwd| cwd.join(path))
            .unwrap_or_else(|_| path.to_path_buf()),
    }
}

/// `path` quoted for a POSIX shell when it needs it.
fn shell_quote(path: &Path) -> String {
    let text = path.to_string_lossy();
    if text
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+".contains(c))
    {
        text.into_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_quote_quotes_only_what_needs_it() {
        assert_eq!(shell_quote(Path::new("/a/b-c.d")), "/a/b-c.d");
        assert_eq!(shell_quote(Path::new("/a b/it's")), r"'/a b/it'\''s'");
    }

    #[test]
    fn top_level_keeps_one_entry_per_first_component() {
        let files = [
            PathBuf::from("index.html"),
            PathBuf::from("src/a.ts"),
            PathBuf::from("src/b/c.ts"),
            PathBuf::from("vite.config.ts"),
        ];
        let dir = Path::new("/f");
        assert_eq!(
            top_level(&files, dir),
            [
                PathBuf::from("/f/index.html"),
                PathBuf::from("/f/src"),
                PathBuf::from("/f/vite.config.ts")
            ]
        );
    }

    #[test]
    fn a_stamp_reads_back_what_was_written() {
        let dir = std::env::temp_dir().join(format!("embed-stamp-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let stamp = Stamp {
            lock: "a".into(),
            sources: "b".into(),
            output: "c".into(),
        };
        stamp.write(&dir.join("s")).unwrap();
        assert_eq!(Stamp::read(&dir.join("s")), stamp);
        assert_eq!(Stamp::read(&dir.join("missing")), Stamp::default());
        fs::remove_dir_all(&dir).unwrap();
    }
}
