//! A service's configuration: the options, the tables derived from them on first use,
//! and beside them the live state its requests share (content tags being computed,
//! the read budget of downloads from disk).

use std::sync::Arc;

use super::options::Options;
use super::tables::LazyTables;
use crate::disk::{BodyCache, ContentTags, ReadBudget};

/// The options and, once the first request needs them, the tables derived from them.
/// A builder call makes a new `Config` whose tables are not derived yet, so a chain
/// of options derives them once.
#[derive(Clone, Debug)]
pub(super) struct Config {
    pub(super) options: Options,
    /// Derived on first use.
    pub(super) tables: LazyTables,
    /// The content ETags of the files read at run time, as they are hashed.
    pub(super) tags: Arc<ContentTags>,
    /// What the downloads of files on disk may hold in full-size chunks, in all.
    pub(super) budget: Arc<ReadBudget>,
    /// The small files of a folder served whole, cached while they do not change.
    pub(super) bodies: Arc<BodyCache>,
}

impl Config {
    pub(super) fn new(options: Options) -> Self {
        Config {
            budget: budget(&options),
            bodies: bodies(&options),
            options,
            tables: LazyTables::default(),
            tags: Arc::default(),
        }
    }

    /// Changes the options; the tables are derived again when next needed.
    pub(super) fn change(&mut self, change: impl FnOnce(&mut Options)) {
        change(&mut self.options);
        self.tables = LazyTables::default();
        self.tags = Arc::default();
        self.budget = budget(&self.options);
        self.bodies = bodies(&self.options);
    }
}

/// The read budget the options ask for: at least one full chunk, so that every
/// download can get one.
fn budget(options: &Options) -> Arc<ReadBudget> {
    ReadBudget::new(options.read_budget.max(options.chunk_size))
}

/// The cache of a folder served whole, as large as the options say.
fn bodies(options: &Options) -> Arc<BodyCache> {
    Arc::new(BodyCache::new(options.cache_size))
}
