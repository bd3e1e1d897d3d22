//! The options a user sets on a [`ServeAssets`]: their defaults, their `Debug`, and
//! the header policy they give each asset (its `Cache-Control` and the `header` rules'
//! fields), which the tables resolve once per asset.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use embed_assets_shared::glob::Glob;
use embed_assets_shared::select::FileRules;
use http::header::{CONTENT_SECURITY_POLICY, LINK, X_CONTENT_TYPE_OPTIONS};
use http::{HeaderName, HeaderValue};

use super::ServeAssets;
use crate::asset::Asset;
use crate::disk::Reader;
use crate::respond;

const NOSNIFF: HeaderValue = HeaderValue::from_static("nosniff");

/// The fields a response of one asset gets from the `header` rules, in the order the
/// rules were given.
pub(super) type Fields = Arc<[(HeaderName, HeaderValue)]>;

/// One `header` rule: a field for the assets whose path matches a glob.
#[derive(Clone, Debug)]
pub(super) struct HeaderRule {
    /// The glob, which keeps the pattern as written.
    pub(super) matcher: Glob,
    /// The pattern holds a `/`: it is matched against the whole path, else against
    /// the file name.
    pub(super) whole_path: bool,
    pub(super) name: HeaderName,
    pub(super) value: HeaderValue,
}

impl HeaderRule {
    pub(super) fn matches(&self, path: &str) -> bool {
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
    /// Where the answers come from: the table, the table in dev mode, or a folder.
    pub(super) source: Source,
    /// Where on-disk assets are read from; `None` if the table has none.
    pub(super) disk_root: Option<PathBuf>,
    pub(super) chunk_size: usize,
    /// What full-size chunks of on-disk files in flight may hold in all.
    pub(super) read_budget: usize,
    /// What a folder served whole keeps of its small files' bytes, in all.
    pub(super) cache_size: u64,
    /// `header` rules, in the order given.
    pub(super) header_rules: Vec<HeaderRule>,
    /// `X-Content-Type-Options: nosniff` on every asset response.
    pub(super) nosniff: bool,
    /// The `content_security_policy` template: `{scripts}` and `{styles}` stand for a
    /// page's hash sources.
    pub(super) csp: Option<String>,
    /// `preload_links`: each page's `Link` preload values.
    pub(super) preload: bool,
    /// `shared_cache_deltas`: `dcb`/`dcz` answers keep the policy as it is, instead of
    /// being made `private`.
    pub(super) shared_deltas: bool,
    /// `cache_tags`: the prefix of every response's purge tags.
    pub(super) cache_tags: Option<String>,
    /// `release_endpoint`: where the list of releases is answered, and its JSON.
    pub(super) release_endpoint: Option<(String, bytes::Bytes)>,
    /// `release_endpoint`: this build's release id, as the `Release-Id` of every
    /// answer about an asset.
    pub(super) release_id: Option<HeaderValue>,
}

/// Where a service's answers come from: one choice, made by its constructor
/// ([`Assets::service`](crate::Assets::service), [`ServeAssets::folder`]) and
/// [`dev_folder`](ServeAssets::dev_folder).
#[derive(Clone, Debug)]
pub(super) enum Source {
    /// The embedded table alone.
    Table,
    /// The table in dev mode: its files re-read from a folder on every request, and
    /// files added there since the build served.
    Dev(DiskFolder),
    /// A folder served whole, with no table ([`ServeAssets::folder`]).
    Folder(DiskFolder, FolderSite),
}

/// A folder read at run time, and the code that reads it, which only a binary that
/// calls `dev_folder` or `folder` links.
#[derive(Clone, Debug)]
pub(super) struct DiskFolder {
    pub(super) path: PathBuf,
    pub(super) reader: &'static Reader,
}

/// A folder served whole's own options ([`ServeAssets::folder`]): its pages (the
/// single-page app's and the 404's, URL paths below it), whether links are followed
/// and `.well-known/` served, and the file rules those two make.
#[derive(Clone, Debug)]
pub(super) struct FolderSite {
    /// `spa_fallback`'s page, a URL path below the folder.
    pub(super) spa_page: Option<String>,
    /// `not_found_page`'s page, a URL path below the folder.
    pub(super) not_found_page: Option<String>,
    /// `follow_symlinks`: files reached through symbolic links are served.
    pub(super) follow_symlinks: bool,
    /// `well_known`: the root's `.well-known/` folder is served (RFC 8615).
    pub(super) well_known: bool,
    /// Which paths name files the folder serves, as the two options above say (no dot
    /// file otherwise); made again by [`remake_rules`](Self::remake_rules) when they change. `None`:
    /// every path is a miss (never with the rules this crate writes).
    pub(super) rules: Option<FileRules>,
}

impl FolderSite {
    /// A folder's defaults: no page of its own, links not followed, `.well-known/`
    /// served.
    pub(super) fn new(reader: &Reader) -> Self {
        let mut site = FolderSite {
            spa_page: None,
            not_found_page: None,
            follow_symlinks: false,
            well_known: true,
            rules: None,
        };
        site.remake_rules(reader);
        site
    }

    /// Makes [`rules`](Self::rules) again from the options above it.
    pub(super) fn remake_rules(&mut self, reader: &Reader) {
        self.rules = (reader.rules)(false, self.follow_symlinks, &[], &[])
            .ok()
            .map(|rules| rules.with_well_known(self.well_known));
    }
}

impl Options {
    /// What a folder served whole answers ([`ServeAssets::folder`]); `None` for an
    /// embedded table, in dev mode or not.
    pub(super) fn folder_site(&self) -> Option<&FolderSite> {
        self.folder().map(|(_, site)| site)
    }

    /// The folder served whole and what it answers ([`ServeAssets::folder`]).
    pub(super) fn folder(&self) -> Option<(&DiskFolder, &FolderSite)> {
        match &self.source {
            Source::Folder(folder, site) => Some((folder, site)),
            Source::Table | Source::Dev(_) => None,
        }
    }

    /// Dev mode's folder; `None` for a table alone and for a folder served whole.
    pub(super) fn dev(&self) -> Option<&DiskFolder> {
        match &self.source {
            Source::Dev(folder) => Some(folder),
            Source::Table | Source::Folder(..) => None,
        }
    }

    /// The folder read at run time: dev mode's or the one served whole.
    pub(super) fn disk_folder(&self) -> Option<&DiskFolder> {
        match &self.source {
            Source::Dev(folder) | Source::Folder(folder, _) => Some(folder),
            Source::Table => None,
        }
    }

    /// The defaults of `Assets::service`: index file `index.html`, `Cache-Control:
    /// no-cache`, a plain-text 404, on-disk files read below `disk_root`.
    pub(super) fn new(disk_root: Option<PathBuf>) -> Self {
        Options {
            index_file: Some("index.html".to_owned()),
            default_cache_control: HeaderValue::from_static(ServeAssets::DEFAULT_CACHE_CONTROL),
            default_cache_control_set: false,
            fingerprinted_cache_control: HeaderValue::from_static(
                ServeAssets::FINGERPRINTED_CACHE_CONTROL,
            ),
            cache_rules: Vec::new(),
            not_found_page: None,
            spa_fallback: None,
            spa_excluded: Vec::new(),
            clean_urls: false,
            source: Source::Table,
            disk_root,
            chunk_size: ServeAssets::DEFAULT_CHUNK_SIZE,
            read_budget: ServeAssets::DEFAULT_READ_BUDGET,
            cache_size: ServeAssets::DEFAULT_CACHE_SIZE,
            header_rules: Vec::new(),
            nosniff: true,
            csp: None,
            preload: false,
            shared_deltas: false,
            cache_tags: None,
            release_endpoint: None,
            release_id: None,
        }
    }
}

impl Options {
    /// Where an on-disk asset at `relative` (below the folder) is read, for a request
    /// and for the start-up check; `None` when the table has no disk root.
    pub(super) fn disk_path(&self, relative: &str) -> Option<PathBuf> {
        // NOTE: `relative` comes from the macro's table (`/`-separated, no `..`), never
        // from the request, so it cannot leave the root.
        self.disk_root.as_ref().map(|root| root.join(relative))
    }

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
    pub(super) fn cache_control_of(&self, asset: &Asset) -> HeaderValue {
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
        if !self.preload || self.disk_folder().is_some() || links.is_empty() || !is_page(asset) {
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

    /// The fields of a file no rule matches: `nosniff` unless it is off, and the
    /// release id with `release_endpoint`.
    pub(super) fn unmatched_fields(&self) -> Fields {
        let nosniff = self.nosniff.then_some((X_CONTENT_TYPE_OPTIONS, NOSNIFF));
        let release = (self.release_id.clone()).map(|id| (respond::RELEASE_ID, id));
        nosniff.into_iter().chain(release).collect()
    }
}

/// Whether `asset` is an HTML page (its policy is the one of a document).
pub(super) fn is_page(asset: &Asset) -> bool {
    asset
        .content_type()
        .split(';')
        .next()
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("text/html"))
}

impl fmt::Debug for ServeAssets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let config = &self.config.options;
        f.debug_struct("ServeAssets")
            .field("assets", &self.assets.len())
            .field("index_file", &config.index_file)
            .field("cache_control", &config.default_cache_control)
            .field("cache_rules", &config.cache_rules)
            .field("not_found_page", &config.not_found_page.map(Asset::path))
            .field(
                "spa_fallback",
                &config.spa_fallback.map(|i| self.assets.files()[i].path()),
            )
            .field("spa_excluded", &config.spa_excluded)
            .field("clean_urls", &config.clean_urls)
            .field("folder", &config.disk_folder().map(|folder| &folder.path))
            .field("disk_root", &config.disk_root)
            .field("chunk_size", &config.chunk_size)
            .field("read_budget", &config.read_budget)
            .field(
                "header_rules",
                &config
                    .header_rules
                    .iter()
                    .map(|rule| (rule.matcher.as_str(), &rule.name, &rule.value))
                    .collect::<Vec<_>>(),
            )
            .field("nosniff", &config.nosniff)
            .field("content_security_policy", &config.csp)
            .field("preload_links", &config.preload)
            .field("shared_cache_deltas", &config.shared_deltas)
            .field("cache_tags", &config.cache_tags)
            .field(
                "release_endpoint",
                &config.release_endpoint.as_ref().map(|(path, _)| path),
            )
            .finish()
    }
}
