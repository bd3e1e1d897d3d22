//! Which files of a folder are served: the rules `embed_assets!` embeds a folder by
//! (its `dotfiles`, `follow_symlinks`, `include` and `exclude` options), and by which
//! dev mode serves the files added to the folder since the build. Written once, so the
//! two never disagree.

use std::ffi::OsStr;
use std::path::Path;

use crate::glob::{Glob, GlobError, GlobSet};

/// One `include` or `exclude` pattern, read the one way every selection reads it:
/// matched against the path below the folder (`css/app.css`), `*` matching across `/`
/// too, so `*.map` names source maps at any depth.
///
/// # Errors
/// When `pattern` is no valid glob.
pub fn glob(pattern: &str) -> Result<Glob, GlobError> {
    Glob::new(pattern)
}

/// The patterns as one set; `None` for no pattern at all.
///
/// # Errors
/// When a pattern is no valid glob.
pub fn glob_set(patterns: &[&str]) -> Result<Option<GlobSet>, GlobError> {
    if patterns.is_empty() {
        return Ok(None);
    }
    let globs = patterns
        .iter()
        .map(|pattern| glob(pattern))
        .collect::<Result<_, _>>()?;
    Ok(Some(GlobSet::new(globs)))
}

/// The folder of RFC 8615's well-known URIs, at a site's root.
const WELL_KNOWN: &str = ".well-known";

/// The selection rules of one folder, compiled.
#[derive(Debug, Clone)]
pub struct FileRules {
    dotfiles: bool,
    /// The root's `.well-known/` is entered without `dotfiles` (RFC 8615).
    well_known: bool,
    follow_symlinks: bool,
    include: Option<GlobSet>,
    exclude: Option<GlobSet>,
}

impl FileRules {
    /// Rules from compiled sets: only files matching `include` (every file when
    /// `None`), none matching `exclude`; names starting with `.` only with `dotfiles`;
    /// symbolic links followed only with `follow_symlinks`.
    pub fn new(
        dotfiles: bool,
        follow_symlinks: bool,
        include: Option<GlobSet>,
        exclude: Option<GlobSet>,
    ) -> Self {
        FileRules {
            dotfiles,
            well_known: false,
            follow_symlinks,
            include,
            exclude,
        }
    }

    /// Rules from the patterns as written.
    ///
    /// # Errors
    /// When a pattern is no valid glob.
    pub fn from_patterns(
        dotfiles: bool,
        follow_symlinks: bool,
        include: &[&str],
        exclude: &[&str],
    ) -> Result<Self, GlobError> {
        Ok(FileRules::new(
            dotfiles,
            follow_symlinks,
            glob_set(include)?,
            glob_set(exclude)?,
        ))
    }

    /// These rules, with the root's `.well-known/` folder (RFC 8615) selected, or not,
    /// whatever `dotfiles` says; a name starting with `.` inside it still follows
    /// `dotfiles`, and so does a `.well-known` below the root.
    #[must_use]
    pub fn with_well_known(mut self, well_known: bool) -> Self {
        self.well_known = well_known;
        self
    }

    /// Whether symbolic links are followed; otherwise they are skipped, and no file
    /// behind one is served.
    pub fn follows_symlinks(&self) -> bool {
        self.follow_symlinks
    }

    /// Whether a walk of the folder enters the file or folder `name`: one whose name
    /// starts with `.` (`.env`, `.git/`) only with `dotfiles`.
    pub fn enters(&self, name: &OsStr) -> bool {
        self.dotfiles || name.as_encoded_bytes().first() != Some(&b'.')
    }

    /// Whether the file at `below` (its path below the folder) is selected: every
    /// component entered, an `include` pattern matching (when there are any), no
    /// `exclude` pattern matching.
    pub fn selects(&self, below: &Path) -> bool {
        let depth = below.components().count();
        below.components().enumerate().all(|(at, component)| {
            let name = component.as_os_str();
            self.enters(name) || (self.well_known && at == 0 && depth > 1 && name == WELL_KNOWN)
        }) && self.include.as_ref().is_none_or(|set| set.is_match(below))
            && !self.exclude.as_ref().is_some_and(|set| set.is_match(below))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dotfiles_are_left_out_at_any_depth_unless_asked_for() {
        let rules = FileRules::from_patterns(false, false, &[], &[]).unwrap();
        for (path, selected) in [
            ("index.html", true),
            ("css/app.css", true),
            (".env", false),
            (".git/config", false),
            ("css/.hidden.css", false),
            (".well-known/security.txt", false),
            ("a.b/c", true),
        ] {
            assert_eq!(rules.selects(Path::new(path)), selected, "{path}");
        }
        let with_dotfiles = FileRules::from_patterns(true, false, &[], &[]).unwrap();
        assert!(with_dotfiles.selects(Path::new(".well-known/security.txt")));
    }

    #[test]
    fn the_roots_well_known_folder_alone_is_let_in() {
        let rules = FileRules::from_patterns(false, false, &[], &[])
            .unwrap()
            .with_well_known(true);
        for (path, selected) in [
            (".well-known/security.txt", true),
            (".well-known/acme-challenge/token", true),
            (".well-known", false),
            (".well-known/.htpasswd", false),
            ("docs/.well-known/security.txt", false),
            (".env", false),
            (".git/config", false),
        ] {
            assert_eq!(rules.selects(Path::new(path)), selected, "{path}");
        }
        let refused = rules.with_well_known(false);
        assert!(!refused.selects(Path::new(".well-known/security.txt")));
    }

    #[test]
    fn include_then_exclude_and_stars_cross_slashes() {
        let rules =
            FileRules::from_patterns(false, false, &["*.css", "js/**"], &["*.map"]).unwrap();
        for (path, selected) in [
            ("app.css", true),
            ("deep/dir/app.css", true),
            ("js/app.js", true),
            ("js/app.js.map", false),
            ("index.html", false),
            ("img/js/x.png", false),
        ] {
            assert_eq!(rules.selects(Path::new(path)), selected, "{path}");
        }
    }

    #[test]
    fn an_invalid_pattern_is_an_error() {
        assert!(FileRules::from_patterns(false, false, &["a[b"], &[]).is_err());
        assert!(glob("{a,b").is_err());
    }
}
