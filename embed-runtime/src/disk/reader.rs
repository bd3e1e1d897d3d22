//! The file reads of a service, as one table of functions ([`Reader`]). The service
//! reaches them only through it, so that a binary links them, and what they bring
//! (the content-tag hasher, mime_guess's table of media types, the glob compiler of the
//! file rules), only when something holds [`READER`]: an asset the macro left on disk
//! (`abi::asset`), `dev_folder` or `ServeAssets::folder`. A table whose files are all
//! embedded, served without dev mode, has no file-reading code in its binary (about
//! 300 KB of a one-page site's).

use std::fmt;
use std::future::Future;
use std::io;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;

use embed_assets_shared::glob::GlobError;
use embed_assets_shared::select::FileRules;

use bytes::Bytes;

use super::{BodyCache, CacheHit, Content, ContentTags, DiskFile, FileVersion};
use crate::coding::Encoding;

/// A read in flight.
pub(crate) type Reading<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// A folder's file rules, or why a pattern does not read.
pub(crate) type Rules = Result<FileRules, GlobError>;

/// A folder's file read: its path, the service's content tags and cache, and the most
/// it reads whole.
pub(crate) type Fetch =
    fn(PathBuf, Arc<ContentTags>, Arc<BodyCache>, u64) -> Reading<io::Result<DiskFile>>;

/// A folder's file's sibling fetched and checked: the file's path, the coding, the
/// file's bytes (`None` for a file streamed) and version, the service's content tags
/// and cache, and the most read whole.
pub(crate) type Sibling = fn(
    PathBuf,
    Encoding,
    Option<Bytes>,
    FileVersion,
    Arc<ContentTags>,
    Arc<BodyCache>,
    u64,
) -> Reading<Option<DiskFile>>;

/// What a service reads at run time, and how.
pub(crate) struct Reader {
    /// An on-disk asset, opened for streaming ([`DiskFile::open`]).
    pub(crate) open: fn(PathBuf, Arc<ContentTags>) -> Reading<io::Result<DiskFile>>,
    /// A dev-folder file, read whole ([`DiskFile::read`]).
    pub(crate) read: fn(PathBuf) -> Reading<io::Result<DiskFile>>,
    /// A file of a folder served whole, read whole up to a length, else opened
    /// ([`DiskFile::fetch`]).
    pub(crate) fetch: Fetch,
    /// The codings of a folder's file's precompressed siblings that exist
    /// ([`siblings::present`](super::siblings::present)).
    pub(crate) siblings: fn(&BodyCache, &Path, &FileVersion, bool) -> Vec<Encoding>,
    /// A folder's file's sibling in a coding, when it decodes to the file's bytes
    /// ([`siblings::matching`](super::siblings::matching)).
    pub(crate) sibling: Sibling,
    /// A folder's file and its siblings as its cache holds them, when nothing needs to
    /// be read ([`BodyCache::hit`]): the folder, the path below it, whether symbolic
    /// links are followed.
    pub(crate) cache_hit: fn(&BodyCache, &Path, &str, bool) -> Option<CacheHit>,
    /// The media type the macro would give a file that has no asset: one added to the
    /// dev folder since the build, or any file of a folder served whole.
    pub(crate) media_type: fn(&Path, &Content) -> String,
    /// Whether no component of a path below a folder is a symbolic link
    /// ([`no_link_on_the_way`](super::no_link_on_the_way)).
    pub(crate) no_link_on_the_way: fn(PathBuf, String) -> Reading<bool>,
    /// Whether a folder served whole can be served ([`check_folder`](super::check_folder)).
    pub(crate) check_folder: fn(&Path) -> io::Result<()>,
    /// The file rules of a folder read at run time: dot files, symbolic links,
    /// `include`, `exclude` (dev mode's from the macro's selection, a folder served
    /// whole's from its options).
    pub(crate) rules: fn(bool, bool, &[&str], &[&str]) -> Rules,
}

/// The one reader.
pub(crate) static READER: Reader = Reader {
    open: |path, tags| Box::pin(async move { DiskFile::open(path, &tags).await }),
    read: |path| Box::pin(DiskFile::read(path)),
    fetch: |path, tags, cache, whole_up_to| {
        Box::pin(async move { DiskFile::fetch(path, &tags, &cache, whole_up_to).await })
    },
    siblings: super::siblings::present,
    sibling: |path, encoding, identity, version, tags, cache, whole_up_to| {
        Box::pin(super::siblings::matching(
            path,
            encoding,
            identity,
            version,
            tags,
            cache,
            whole_up_to,
        ))
    },
    cache_hit: BodyCache::hit,
    media_type: |path, content| embed_assets_shared::content_type(path, || content.is_utf8()),
    no_link_on_the_way: |folder, relative| Box::pin(super::no_link_on_the_way(folder, relative)),
    check_folder: super::check_folder,
    rules: FileRules::from_patterns,
};

impl fmt::Debug for Reader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Reader")
    }
}
