//! The table of one embedded folder: [`Assets`], looked up by URL path.

use std::fmt;

use crate::asset::{Asset, Variant};
use crate::report::{Release, Report};

/// Set in a map value when the key is an asset's fingerprinted URL (the macro writes
/// it, `__private`).
pub const FINGERPRINTED: u32 = 1 << 31;

/// Every file of one `embed_assets!` folder, looked up by URL path.
///
/// Built at compile time, by [`#[embed]`](crate::embed) on a module or by
/// [`embed_assets!`](crate::embed_assets):
///
/// ```
/// use embed_assets::{embed_assets, Assets};
///
/// static ASSETS: Assets = embed_assets!("../examples/public");
///
/// assert!(ASSETS.get("/index.html").is_some());
/// assert_eq!(ASSETS.url("/css/app.css"), Some("/css/app.css"));
/// for asset in &ASSETS {
///     println!("{} ({} bytes)", asset.path(), asset.len());
/// }
/// let service = ASSETS.service(); // serves them over HTTP
/// # let _ = service;
/// ```
pub struct Assets {
    pub(crate) map: &'static phf::Map<&'static str, u32>,
    pub(crate) files: &'static [Asset],
    pub(crate) root: Option<&'static str>,
    pub(crate) selection: Selection,
    pub(crate) release: Option<&'static str>,
    pub(crate) releases: &'static [Release],
}

/// No file at all: the table of [`ServeAssets::folder`](crate::ServeAssets::folder),
/// whose files are all read from its folder at run time.
pub(crate) static EMPTY: Assets = Assets {
    map: &EMPTY_MAP,
    files: &[],
    root: None,
    selection: Selection::DEFAULT,
    release: None,
    releases: &[],
};

static EMPTY_MAP: phf::Map<&'static str, u32> = phf::Map::new();

/// Which files of its folder the macro embedded (its `dotfiles`, `follow_symlinks`,
/// `include` and `exclude` options), so dev mode serves files added since the build
/// by the same rules.
#[derive(Debug, Clone, Copy)]
pub struct Selection {
    /// Files and folders whose name starts with `.` are embedded too.
    pub dotfiles: bool,
    /// Symbolic links were followed.
    pub follow_symlinks: bool,
    /// Only files matching one of these globs were embedded (none: every file).
    pub include: &'static [&'static str],
    /// Files matching one of these globs were skipped.
    pub exclude: &'static [&'static str],
}

impl Selection {
    /// The macro's defaults.
    pub const DEFAULT: Selection = Selection {
        dotfiles: false,
        follow_symlinks: false,
        include: &[],
        exclude: &[],
    };
}

impl Assets {
    /// The macro's file selection, for dev mode.
    pub(crate) fn selection(&self) -> &Selection {
        &self.selection
    }

    /// The asset at a URL path such as `/css/app.css` (already percent-decoded; no
    /// index-file or trailing-slash handling, which belongs to the service), or at its
    /// fingerprinted URL.
    pub fn get(&self, path: &str) -> Option<&'static Asset> {
        self.index_of(path).map(|index| &self.files[index])
    }

    /// The URL to link to for the file at `path`: its fingerprinted URL when the
    /// `fingerprint` option covers it, else `path` itself, percent-encoded as the
    /// `paths` constants are ([`Asset::url`]); `None` if there is no such file. For
    /// templates: `ASSETS.url("/js/app.js")` → `/js/app.3f2a1b9c.js`, and
    /// `ASSETS.url("/a b?.txt")` → `/a%20b%3F.txt`. (The module form of the macro also
    /// defines these as constants in `paths`.)
    pub fn url(&self, path: &str) -> Option<&'static str> {
        self.get(path).map(Asset::url)
    }

    /// This build's release id: the newest release the macro's `releases` option found
    /// kept, when it is this build's folder (what `embed_assets_build::Releases`
    /// recorded before this release build compiled). `None` without the option, and in
    /// a debug build, which records no release.
    pub fn release(&self) -> Option<&'static str> {
        self.release
    }

    /// Every release the `releases` option kept files of, newest first: this build's
    /// first when it is recorded ([`release`](Self::release)), then the earlier ones
    /// whose hashed files it still serves. Empty without the option, and in a debug
    /// build.
    pub fn releases(&self) -> &'static [Release] {
        self.releases
    }

    /// Every asset, sorted by path; with the `releases` option, the earlier releases'
    /// files too, each after this build's file of its path
    /// ([`Asset::earlier_release`] tells them apart).
    pub fn iter(&self) -> std::slice::Iter<'static, Asset> {
        self.files.iter()
    }

    /// How many assets there are, embedded and on disk.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether the folder was empty.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// The absolute folder the macro read, where on-disk assets are looked for by
    /// default; `None` when every file is embedded.
    pub fn build_root(&self) -> Option<&'static str> {
        self.root
    }

    /// What the macro embedded: counts and bytes per stored encoding, and the files
    /// left on disk. Its `Display` is one line, for a start-up log.
    pub fn report(&self) -> Report {
        let mut report = Report::default();
        for asset in self.files {
            report.files += 1;
            if !asset.is_embedded() {
                report.on_disk += 1;
                report.on_disk_bytes += asset.len;
                continue;
            }
            report.embedded += 1;
            report.identity_bytes += asset.len;
            if !asset.identity().is_stored() {
                report.decoded_on_demand += 1;
                report.decoded_on_demand_bytes += asset.len;
            }
            report.add_bodies(asset.bodies());
            if asset.earlier_release().is_some() {
                report.earlier_release_files += 1;
                report.earlier_release_bytes += asset
                    .bodies()
                    .iter()
                    .filter(|body| body.is_stored())
                    .map(Variant::len)
                    .sum::<u64>();
            }
            if !asset.deltas().is_empty() {
                report.delta_files += 1;
                report.delta_bytes += asset.deltas().iter().map(Variant::len).sum::<u64>();
            }
        }
        report
    }

    pub(crate) fn index_of(&self, path: &str) -> Option<usize> {
        self.lookup(path).map(|(index, _, _)| index)
    }

    /// The index of the asset at `path`, and whether `path` is its fingerprinted URL.
    pub(crate) fn lookup(&self, path: &str) -> Option<(usize, &'static Asset, bool)> {
        let &value = self.map.get(path)?;
        let index = (value & !FINGERPRINTED) as usize;
        Some((index, self.files.get(index)?, value & FINGERPRINTED != 0))
    }

    pub(crate) fn files(&self) -> &'static [Asset] {
        self.files
    }
}

impl fmt::Debug for Assets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.files.iter().map(Asset::path))
            .finish()
    }
}

impl IntoIterator for &Assets {
    type Item = &'static Asset;
    type IntoIter = std::slice::Iter<'static, Asset>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}
