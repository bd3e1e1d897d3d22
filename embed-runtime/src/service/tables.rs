//! The lookups derived once per service from its options and the asset table, so a
//! request only looks up: per-asset policy and prebuilt header maps, directory and
//! clean-URL maps, the hashed names, dev mode's file rules.

use std::collections::HashMap;

use embed_assets_shared::hashed::{self, HashedName};
use embed_assets_shared::select::FileRules;
use http::HeaderValue;

use std::sync::{Arc, OnceLock};

use super::options::{Fields, Options, is_page};
use crate::asset::Asset;
use crate::respond::{Added, PrebuiltHeaders, PurgeTags};
use crate::table::Assets;

/// Lookups derived from the options and the asset table.
#[derive(Clone, Debug)]
pub(super) struct Tables {
    /// `Cache-Control` per asset, by index in the table.
    pub(super) cache_control: Vec<HeaderValue>,
    /// The `header` rules' fields per asset, by index in the table.
    pub(super) fields: Vec<Fields>,
    /// Those of the 404 page.
    pub(super) not_found_fields: Fields,
    /// Finished 200/304 header maps per embedded asset and stored variant.
    pub(super) prebuilt: Vec<Vec<PrebuiltHeaders>>,
    /// The same at the fingerprinted URL, for assets that have one (else empty).
    pub(super) prebuilt_fingerprinted: Vec<Vec<PrebuiltHeaders>>,
    /// The purge tags per asset and URL, with `cache_tags`.
    pub(super) purge_tags: PurgeTagTable,
    /// `/dir/` → index of `/dir/index.html`.
    pub(super) directories: HashMap<&'static str, usize>,
    /// `/dir` → `dir`, for the redirect to `dir/`.
    pub(super) bare_directories: HashMap<&'static str, &'static str>,
    /// `/about` → index of `/about.html`, with clean URLs on.
    pub(super) clean: HashMap<&'static str, usize>,
    /// The names of the files served at a content-hashed URL, by folder (`/js/` →
    /// `/js/app.*.js`): a miss that names another version of one of them is final.
    pub(super) hashed: HashMap<String, Vec<HashedName>>,
    /// Which files of dev mode's folder that the table does not list (added since the
    /// build) are served: the macro's selection. `None` out of dev mode, or if a glob
    /// does not compile here (then nothing new is served). (A folder served whole
    /// holds its own rules: `FolderSite::rules`.)
    pub(super) dev_rules: Option<FileRules>,
}

/// The tables of a service's options, derived on first use: a builder call makes a new,
/// empty one, so a chain of options derives them once.
#[derive(Clone, Debug, Default)]
pub(super) struct LazyTables(OnceLock<Tables>);

impl LazyTables {
    /// The tables of `options` over `assets`, derived on the first call.
    pub(super) fn get(&self, options: &Options, assets: &'static Assets) -> &Tables {
        self.0.get_or_init(|| Tables::derive(options, assets))
    }
}

impl Tables {
    /// Whether `path` (decoded, not in the table) names a version of a file the table
    /// serves at a content-hashed URL: `/js/app.0badf00d.js` beside `/js/app.3f2a1b9c.js`.
    pub(super) fn is_other_version(&self, path: &str) -> bool {
        self.hashed
            .get(hashed::folder(path))
            .is_some_and(|names| names.iter().any(|name| name.matches(path)))
    }

    pub(super) fn derive(options: &Options, assets: &'static Assets) -> Self {
        let cache_control: Vec<HeaderValue> = assets
            .iter()
            .map(|asset| options.cache_control_of(asset))
            .collect();
        // One list per asset; assets no rule matches share the one of nosniff alone.
        let unmatched = options.unmatched_fields();
        let fields: Vec<Fields> = assets
            .iter()
            .map(|asset| {
                if options
                    .header_rules
                    .iter()
                    .any(|rule| rule.matches(asset.path()))
                    || ((options.csp.is_some() || options.preload) && is_page(asset))
                {
                    options.fields_of(asset)
                } else {
                    Arc::clone(&unmatched)
                }
            })
            .collect();
        let purge_tags = PurgeTagTable::derive(options, assets);
        let prebuild = |asset: &'static Asset, added: Added<'_>| {
            asset
                .bodies()
                .iter()
                .map(|variant| PrebuiltHeaders::new(asset, variant, added))
                .collect::<Vec<_>>()
        };
        let prebuilt = assets
            .iter()
            .zip(cache_control.iter().zip(&fields))
            .enumerate()
            .map(|(index, (asset, (cache_control, fields)))| {
                if asset.is_embedded() {
                    let added = Added {
                        cache_control,
                        fields,
                        shared_deltas: options.shared_deltas,
                        purge_tags: purge_tags.own(index),
                    };
                    prebuild(asset, added)
                } else {
                    Vec::new()
                }
            })
            .collect();
        let prebuilt_fingerprinted = assets
            .iter()
            .zip(&fields)
            .enumerate()
            .map(
                |(index, (asset, fields))| match asset.fingerprinted_path() {
                    Some(_) => {
                        let added = Added {
                            cache_control: &options.fingerprinted_cache_control,
                            fields,
                            shared_deltas: options.shared_deltas,
                            purge_tags: purge_tags.fingerprinted(index),
                        };
                        prebuild(asset, added)
                    }
                    None => Vec::new(),
                },
            )
            .collect();
        let not_found_fields = options
            .not_found_page
            .map_or_else(|| Arc::clone(&unmatched), |page| options.fields_of(page));
        let mut tables = Tables {
            cache_control,
            fields,
            not_found_fields,
            prebuilt,
            prebuilt_fingerprinted,
            purge_tags,
            directories: HashMap::new(),
            bare_directories: HashMap::new(),
            clean: HashMap::new(),
            hashed: hashed_names(assets),
            dev_rules: options.dev().and_then(|folder| {
                let selection = assets.selection();
                (folder.reader.rules)(
                    selection.dotfiles,
                    selection.follow_symlinks,
                    selection.include,
                    selection.exclude,
                )
                .ok()
            }),
        };
        // This build's files by index: an earlier release's is at its hashed URL only.
        let current = || {
            assets
                .iter()
                .enumerate()
                .filter(|(_, asset)| asset.earlier_release().is_none())
        };
        if options.clean_urls {
            for (i, asset) in current() {
                if let Some(bare) = asset.path().strip_suffix(".html") {
                    if !bare.ends_with('/') {
                        tables.clean.insert(bare, i);
                    }
                }
            }
        }
        let Some(index_file) = &options.index_file else {
            return tables;
        };
        for (i, asset) in current() {
            let path = asset.path();
            let Some(dir) = path.strip_suffix(index_file.as_str()) else {
                continue;
            };
            if !dir.ends_with('/') {
                continue; // `/notindex.html`
            }
            tables.directories.insert(dir, i);
            let bare = &dir[..dir.len() - 1];
            if let Some(slash) = bare.rfind('/') {
                let segment = &bare[slash + 1..];
                if !segment.is_empty() {
                    tables.bare_directories.insert(bare, segment);
                }
            }
        }
        tables
    }
}

/// The purge tags of each asset at its own URL and at its fingerprinted one, with
/// `cache_tags` (empty without): the prefix alone, the prefix and the class of the
/// response, and the prefix and the release the file is of (this build's, or the kept
/// release an earlier file comes from), when releases are recorded.
#[derive(Clone, Debug, Default)]
pub(super) struct PurgeTagTable {
    /// By the asset's index: its tags at its own URL.
    pub(super) own: Vec<Option<PurgeTags>>,
    /// By the asset's index: its tags at its fingerprinted URL.
    pub(super) fingerprinted: Vec<Option<PurgeTags>>,
}

impl PurgeTagTable {
    fn derive(options: &Options, assets: &'static Assets) -> Self {
        let Some(prefix) = &options.cache_tags else {
            return PurgeTagTable::default();
        };
        let tags = |asset: &Asset, class: &str| {
            let mut tags = vec![prefix.clone(), format!("{prefix}-{class}")];
            if let Some(release) = asset.earlier_release().or(assets.release()) {
                tags.push(format!("{prefix}-release-{release}"));
            }
            PurgeTags::new(&tags)
        };
        let own = assets
            .iter()
            .map(|asset| {
                let class = if !asset.is_embedded() {
                    "disk"
                } else if is_page(asset) {
                    "page"
                } else if asset.fingerprinted_path() == Some(asset.path()) {
                    // A file hashed by name (a bundler's chunk): its own URL is hashed.
                    "hashed"
                } else {
                    "other"
                };
                tags(asset, class)
            })
            .collect();
        let fingerprinted = assets
            .iter()
            .map(|asset| {
                let class = if asset.is_embedded() {
                    "hashed"
                } else {
                    "disk"
                };
                asset.fingerprinted_path().and_then(|_| tags(asset, class))
            })
            .collect();
        PurgeTagTable { own, fingerprinted }
    }

    /// The tags of the asset at `index` reached at its own URL.
    pub(super) fn own(&self, index: usize) -> Option<&PurgeTags> {
        self.own.get(index)?.as_ref()
    }

    /// The tags of the asset at `index` reached at its fingerprinted URL.
    pub(super) fn fingerprinted(&self, index: usize) -> Option<&PurgeTags> {
        self.fingerprinted.get(index)?.as_ref()
    }
}

/// The hashed names of the table's files at content-hashed URLs, by folder, each once.
fn hashed_names(assets: &'static Assets) -> HashMap<String, Vec<HashedName>> {
    let mut by_folder: HashMap<String, Vec<HashedName>> = HashMap::new();
    for name in assets
        .iter()
        .filter_map(Asset::fingerprinted_path)
        .filter_map(HashedName::of)
    {
        let names = by_folder.entry(name.folder().to_owned()).or_default();
        if !names.contains(&name) {
            names.push(name);
        }
    }
    by_folder
}
