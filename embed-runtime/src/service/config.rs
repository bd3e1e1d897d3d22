//! The options a user sets, and the tables derived from them once per service, so a
//! request only looks up.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use embed_assets_shared::hashed::{self, HashedName};
use embed_assets_shared::select::FileRules;
use globset::GlobMatcher;
use http::header::{CONTENT_SECURITY_POLICY, LINK, X_CONTENT_TYPE_OPTIONS};
use http::{HeaderName, HeaderValue};

use crate::asset::{Asset, Delta};
use crate::disk::{ContentTags, ReadBudget};
use crate::respond::{Added, PrebuiltHeaders};
use crate::table::Assets;

const NOSNIFF: HeaderValue = HeaderValue::from_static("nosniff");

/// The fields a response of one asset gets from the `header` rules, in the order the
/// rules were given.
pub(super) type Fields = Arc<[(HeaderName, HeaderValue)]>;

/// One `header` rule: a field for the assets whose path matches a glob.
#[derive(Clone, Debug)]
pub(super) struct HeaderRule {
    pub(super) pattern: String,
    pub(super) matcher: GlobMatcher,
    /// The pattern holds a `/`: it is matched against the whole path, else against
    /// the file name.
    pub(super) whole_path: bool,
    pub(super) name: HeaderName,
    pub(super) value: HeaderValue,
}

impl HeaderRule {
    fn matches(&self, path: &str) -> bool {
        let subject = if self.whole_path {
            path
        } else {
            path.rsplit('/').next().unwrap_or(path)
        };
        self.matcher.is_match(subject)
    }
}

/// What the builder methods of [`ServeAssets`](super::ServeAssets) set.
#[derive(Clone, Debug)]
pub(super) struct Options {
    pub(super) index_file: Option<String>,
    pub(super) default_cache_control: HeaderValue,
    /// Whether `default_cache_control` was set (`.cache_control`): else a page that is
    /// a dictionary gets [`super::ServeAssets::DICTIONARY_PAGE_CACHE_CONTROL`].
    pub(super) default_cache_control_set: bool,
    /// `Cache-Control` at fingerprinted URLs.
    pub(super) fingerprinted_cache_control: HeaderValue,
    /// `(path prefix, value)`, applied longest prefix first.
    pub(super) cache_rules: Vec<(String, HeaderValue)>,
    pub(super) not_found_page: Option<&'static Asset>,
    /// Index of the page sent for unknown page-like paths (single-page apps).
    pub(super) spa_fallback: Option<usize>,
    /// Path prefixes the single-page app's page never answers (`/api`), without a
    /// trailing slash: each covers itself and the paths below it.
    pub(super) spa_excluded: Vec<String>,
    pub(super) clean_urls: bool,
    /// Dev mode: embedded assets are re-read from this folder on every request.
    pub(super) dev_folder: Option<PathBuf>,
    /// Where on-disk assets are read from; `None` if the table has none.
    pub(super) disk_root: Option<PathBuf>,
    pub(super) chunk_size: usize,
    /// What full-size chunks of on-disk files in flight may hold in all.
    pub(super) read_budget: usize,
    /// `header` rules, in the order given.
    pub(super) header_rules: Vec<HeaderRule>,
    /// `X-Content-Type-Options: nosniff` on every asset response.
    pub(super) nosniff: bool,
    /// The `content_security_policy` template: `{scripts}` and `{styles}` stand for a
    /// page's hash sources.
    pub(super) csp: Option<String>,
    /// `preload_links`: each page's `Link` preload values.
    pub(super) preload: bool,
}

/// The options and, once the first request needs them, the tables derived from them.
/// A builder call makes a new `Config` whose tables are not derived yet, so a chain
/// of options derives them once.
#[derive(Clone, Debug)]
pub(super) struct Config {
    pub(super) options: Options,
    tables: OnceLock<Tables>,
}

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
    /// `/dir/` → index of `/dir/index.html`.
    pub(super) directories: HashMap<&'static str, usize>,
    /// `/dir` → `dir`, for the redirect to `dir/`.
    pub(super) bare_directories: HashMap<&'static str, &'static str>,
    /// `/about` → index of `/about.html`, with clean URLs on.
    pub(super) clean: HashMap<&'static str, usize>,
    /// The names of the files served at a content-hashed URL, by folder (`/js/` →
    /// `/js/app.*.js`): a miss that names another version of one of them is final.
    pub(super) hashed: HashMap<String, Vec<HashedName>>,
    /// In dev mode, which files of the folder that the table does not list are served
    /// (added since the build): the macro's selection. `None` outside dev mode, or
    /// if a glob does not compile here (then nothing new is served).
    pub(super) dev: Option<FileRules>,
    /// The content ETags of the files read at run time, as they are hashed.
    pub(super) tags: Arc<ContentTags>,
    /// What the downloads of files on disk may hold in full-size chunks, in all.
    pub(super) budget: Arc<ReadBudget>,
}

impl Config {
    pub(super) fn new(options: Options) -> Self {
        Config {
            options,
            tables: OnceLock::new(),
        }
    }

    /// Changes the options; the tables are derived again when next needed.
    pub(super) fn change(&mut self, change: impl FnOnce(&mut Options)) {
        change(&mut self.options);
        self.tables = OnceLock::new();
    }

    /// The tables, derived from the options on first use.
    pub(super) fn tables(&self, assets: &'static Assets) -> &Tables {
        self.tables
            .get_or_init(|| Tables::derive(&self.options, assets))
    }
}

impl Options {
    /// The `Cache-Control` of a file at `path` at its own URL: the longest matching
    /// cache rule, else the default.
    pub(super) fn cache_control_for(&self, path: &str) -> &HeaderValue {
        self.cache_rule_for(path)
            .unwrap_or(&self.default_cache_control)
    }

    /// The longest cache rule matching `path`, if any.
    fn cache_rule_for(&self, path: &str) -> Option<&HeaderValue> {
        self.cache_rules
            .iter()
            .filter(|(prefix, _)| path.starts_with(prefix.as_str()))
            // The first of the longest, as the rules were given.
            .min_by_key(|(prefix, _)| std::cmp::Reverse(prefix.len()))
            .map(|(_, value)| value)
    }

    /// The `Cache-Control` of `asset` at its own URL: [`cache_control_for`], except
    /// that a page which is a dictionary (`Use-As-Dictionary`, with the macro's
    /// `releases`) and has no policy of the user's gets one with a freshness lifetime,
    /// which browsers need to keep it.
    ///
    /// [`cache_control_for`]: Self::cache_control_for
    fn cache_control_of(&self, asset: &Asset) -> HeaderValue {
        let own_policy =
            self.default_cache_control_set || self.cache_rule_for(asset.path()).is_some();
        let dictionary_page =
            asset.dictionary_match().is_some() && asset.fingerprinted_path().is_none();
        if dictionary_page && !own_policy {
            HeaderValue::from_static(super::ServeAssets::DICTIONARY_PAGE_CACHE_CONTROL)
        } else {
            self.cache_control_for(asset.path()).clone()
        }
    }

    /// The fields the `header` rules give a file at `path`: `nosniff` first unless it
    /// is off, then each matching rule in order, a later one replacing the value of an
    /// earlier one with the same name.
    pub(super) fn fields_for(&self, path: &str) -> Fields {
        let mut fields = self.unmatched_fields().to_vec();
        for rule in self.header_rules.iter().filter(|rule| rule.matches(path)) {
            match fields.iter_mut().find(|(name, _)| *name == rule.name) {
                Some(field) => field.1 = rule.value.clone(),
                None => fields.push((rule.name.clone(), rule.value.clone())),
            }
        }
        fields.into()
    }

    /// The fields of `asset`: those of its path, and on an HTML page the policy of the
    /// `content_security_policy` template with the page's hashes, after (so in place
    /// of) a rule's.
    pub(super) fn fields_of(&self, asset: &Asset) -> Fields {
        let fields = self.policy_fields(asset);
        let links = asset.preload_links();
        // Dev mode serves pages as they are on disk, not rewritten: the build's links
        // (hashed URLs after `rewrite_references`) would name what they do not load.
        if !self.preload || self.dev_folder.is_some() || links.is_empty() || !is_page(asset) {
            return fields;
        }
        // One field, the values comma-separated (RFC 8288 §3), after a rule's own.
        let Ok(link) = HeaderValue::try_from(links.join(", ")) else {
            return fields;
        };
        let mut fields = fields.to_vec();
        fields.push((LINK, link));
        fields.into()
    }

    /// [`fields_of`](Self::fields_of) before the preload links.
    fn policy_fields(&self, asset: &Asset) -> Fields {
        let policy = self
            .csp
            .as_deref()
            .filter(|_| is_page(asset))
            .map(|template| {
                let filled = template
                    .replace("{scripts}", &asset.script_hashes().join(" "))
                    .replace("{styles}", &asset.style_hashes().join(" "));
                // A placeholder with no hashes leaves a space before `;` or at the end.
                let policy = filled
                    .split(';')
                    .map(str::trim_end)
                    .collect::<Vec<_>>()
                    .join(";");
                // Hash sources are base64 in quotes and the template was checked when set.
                HeaderValue::try_from(policy)
                    .unwrap_or(HeaderValue::from_static("default-src 'none'"))
            });
        let Some(policy) = policy else {
            return self.fields_for(asset.path());
        };
        let mut fields: Vec<_> = self
            .fields_for(asset.path())
            .iter()
            .filter(|(name, _)| *name != CONTENT_SECURITY_POLICY)
            .cloned()
            .collect();
        fields.push((CONTENT_SECURITY_POLICY, policy));
        fields.into()
    }

    /// The fields of a file no rule matches.
    fn unmatched_fields(&self) -> Fields {
        if self.nosniff {
            Arc::new([(X_CONTENT_TYPE_OPTIONS, NOSNIFF)])
        } else {
            Arc::new([])
        }
    }
}

/// Whether `asset` is an HTML page (its policy is the one of a document).
fn is_page(asset: &Asset) -> bool {
    asset
        .content_type()
        .split(';')
        .next()
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("text/html"))
}

impl Tables {
    /// Whether `path` (decoded, not in the table) names a version of a file the table
    /// serves at a content-hashed URL: `/js/app.0badf00d.js` beside `/js/app.3f2a1b9c.js`.
    pub(super) fn is_other_version(&self, path: &str) -> bool {
        self.hashed
            .get(hashed::folder(path))
            .is_some_and(|names| names.iter().any(|name| name.matches(path)))
    }

    fn derive(options: &Options, assets: &'static Assets) -> Self {
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
        let prebuild = |asset: &'static Asset, added: Added<'_>| {
            asset
                .variants()
                .chain(asset.deltas().iter().map(Delta::variant))
                .map(|variant| PrebuiltHeaders::new(asset, variant, added))
                .collect::<Vec<_>>()
        };
        let prebuilt = assets
            .iter()
            .zip(cache_control.iter().zip(&fields))
            .map(|(asset, (cache_control, fields))| {
                if asset.is_embedded() {
                    let added = Added {
                        cache_control,
                        fields,
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
            .map(|(asset, fields)| match asset.fingerprinted_path() {
                Some(_) => {
                    let added = Added {
                        cache_control: &options.fingerprinted_cache_control,
                        fields,
                    };
                    prebuild(asset, added)
                }
                None => Vec::new(),
            })
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
            directories: HashMap::new(),
            bare_directories: HashMap::new(),
            clean: HashMap::new(),
            hashed: hashed_names(assets),
            dev: options.dev_folder.as_ref().and_then(|_| {
                let selection = assets.selection();
                FileRules::from_patterns(
                    selection.dotfiles,
                    selection.follow_symlinks,
                    selection.include,
                    selection.exclude,
                )
                .ok()
            }),
            tags: Arc::default(),
            // At least one full chunk, so that every download can get one.
            budget: ReadBudget::new(options.read_budget.max(options.chunk_size)),
        };
        // This build's files by index: an earlier release's is at its hashed URL only.
        let current = || {
            assets
                .iter()
                .enumerate()
                .filter(|(_, asset)| asset.release().is_none())
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
