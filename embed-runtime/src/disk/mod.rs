//! Every file-system call of the crate: files over `max_embed_size` opened, checked and
//! streamed in chunks (`stream`, within a read `budget`), their content ETags hashed in
//! the background (`tags`), the file side of `serve`'s `sendfile` path (`sendfile`),
//! dev-mode files read whole, the small files of a folder served whole cached while they
//! do not change (`cache`), their precompressed siblings checked against them
//! (`siblings`), the start-up check, the link checks of dev mode, and the private files
//! of an ACME cache folder (`private`). Opens and reads go to the runtime's blocking
//! `pool`; a cached file's one `stat` (is it still that version?) is made in place,
//! as cheap as the hop it saves. A service reaches them through `reader`. What a file
//! is, and whether it changed, is `version`. Every HTTP decision stays in `respond`.

mod budget;
mod cache;
mod pool;
#[cfg(feature = "acme")]
mod private;
mod reader;
#[cfg(all(feature = "serve", target_os = "linux"))]
pub(crate) mod sendfile;
mod siblings;
mod stream;
mod tags;
mod version;

pub(crate) use self::budget::{DEFAULT_BUDGET, ReadBudget};
pub(crate) use self::cache::{BodyCache, CacheHit, Heads};
pub(crate) use self::pool::blocking;
use self::pool::{Pool, Runtime};
pub(crate) use self::reader::{READER, Reader};
pub(crate) use self::stream::DiskBody;
pub(crate) use self::tags::ContentTags;
use self::tags::Sending;
pub(crate) use self::version::FileVersion;

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use bytes::Bytes;

use crate::error::Error;

/// The page size the kernel copies file data in.
const PAGE: usize = 4096;

/// Reads shorter than this are not placed (see [`lead`]): a page of room is not worth
/// it for a stalled download's small chunks, which many clients may hold at once.
const PLACED_FROM: usize = 64 << 10;

/// The room a buffer for `len` bytes read from a file needs beyond them, for [`lead`]
/// to place them: a page, or none for a short read.
pub(crate) fn room(len: usize) -> usize {
    if len >= PLACED_FROM { PAGE } else { 0 }
}

/// Where in `buffer` (with [`room`] for them) to read `len` file bytes from `offset`:
/// the bytes before it are padding, so that they start half a page away from their file
/// offset modulo a page; 0 for a short read. Every read of a file into memory here goes
/// through it.
///
/// NOTE: on AMD Zen the kernel's copy from the page cache into a user buffer (`rep
/// movsb`) slows down 2-9 times when the destination sits a few hundred bytes or less
/// after the source modulo 4 KiB: a 1 MiB chunk took 692 µs into a buffer at page
/// offset 16 (where glibc puts a block it maps for a large allocation) and 150 µs at
/// offset 0, against 77 µs at any offset from 256 to 2048 (2-core EPYC VM). Half a
/// page apart is the farthest from both sides, and keeps the chunk as aligned to a
/// cache line as its offset is; the padding costs at most a page of zeroes per chunk.
pub(crate) fn lead(buffer: &[u8], offset: u64, len: usize) -> usize {
    if room(len) == 0 {
        return 0;
    }
    let at = buffer.as_ptr() as usize % PAGE;
    let from = (offset % PAGE as u64) as usize;
    (PAGE / 2 + from + PAGE - at) % PAGE
}

/// Default read size for on-disk assets. Large enough that per-chunk overhead (a
/// blocking-pool hop and a syscall) vanishes next to loopback copy cost, small enough
/// that 32 concurrent downloads hold well under 100 MiB. See the benchmarks guide (`guide::benchmarks`).
pub(crate) const DEFAULT_CHUNK_SIZE: usize = 1 << 20;

/// An open on-disk asset with the metadata its validators come from.
#[derive(Debug)]
pub(crate) struct Opened {
    pub(crate) file: File,
    pub(crate) version: FileVersion,
    /// Counted among the responses a hash waits for, from before its own hash is asked
    /// for, until its body ends.
    pub(crate) sending: Sending,
}

/// Opens `path` and reads its metadata from the open handle (no race between the
/// two), on the blocking pool, with its content ETag when `tags` knows it or it is
/// small enough to hash at once. `NotFound` also when it is not a regular file.
async fn open(path: PathBuf, tags: Arc<ContentTags>) -> io::Result<(Opened, Option<Arc<str>>)> {
    blocking(move || {
        let sending = Sending::start();
        let (file, meta) = open_regular(&path, io::ErrorKind::NotFound)?;
        let version = FileVersion::of(&self::version::settled(&file, meta)?);
        Ok(opened(&path, file, version, sending, &tags))
    })
    .await
}

/// `file`, open at `path` with `version`, ready to stream, and its content ETag when
/// `tags` knows it or it is small enough to hash at once.
fn opened(
    path: &Path,
    mut file: File,
    version: FileVersion,
    sending: Sending,
    tags: &Arc<ContentTags>,
) -> (Opened, Option<Arc<str>>) {
    let etag = tags.of_open(path, &version, &mut file);
    advise_sequential(&file);
    let opened = Opened {
        file,
        version,
        sending,
    };
    (opened, etag)
}

/// A file read at run time, the one representation of bytes from disk: an on-disk
/// asset opened for streaming, or a dev-folder file read whole. Its validators describe
/// what was opened or read, not the build.
#[derive(Debug)]
pub(crate) struct DiskFile {
    pub(crate) meta: FileMeta,
    pub(crate) content: Content,
}

/// What a file's validators come from: its version, and its content ETag once known.
#[derive(Debug)]
pub(crate) struct FileMeta {
    /// The content ETag, when known (a large file's is computed in the background).
    pub(crate) etag: Option<Arc<str>>,
    pub(crate) version: FileVersion,
}

/// A file's bytes: read whole, or an open handle to stream from.
#[derive(Debug)]
pub(crate) enum Content {
    Whole(Bytes),
    Open(Opened),
}

impl DiskFile {
    /// An on-disk asset, opened; `Last-Modified` from the open handle's metadata, the
    /// ETag from its bytes once `tags` knows it (they are hashed in the background,
    /// never while a response waits).
    pub(crate) async fn open(path: PathBuf, tags: &Arc<ContentTags>) -> io::Result<Self> {
        let (opened, etag) = open(path, Arc::clone(tags)).await?;
        Ok(DiskFile {
            meta: FileMeta {
                etag,
                version: opened.version,
            },
            content: Content::Open(opened),
        })
    }

    /// A file of a folder served whole: read whole up to `whole_up_to` bytes (cached in
    /// `cache` for the next requests while the file is of the same version), else
    /// opened for streaming.
    pub(crate) async fn fetch(
        path: PathBuf,
        tags: &Arc<ContentTags>,
        cache: &Arc<BodyCache>,
        whole_up_to: u64,
    ) -> io::Result<Self> {
        fetch(path, Arc::clone(tags), Arc::clone(cache), whole_up_to).await
    }

    /// A dev-folder file, read whole; its ETag is the one the macro would compute for
    /// these bytes, so an unchanged file keeps its build-time ETag.
    pub(crate) async fn read(path: PathBuf) -> io::Result<Self> {
        let (bytes, version) = read_whole(path).await?;
        Ok(DiskFile {
            meta: FileMeta {
                etag: Some(content_etag(&bytes).into()),
                version,
            },
            content: Content::Whole(bytes),
        })
    }
}

impl Content {
    /// Whether the bytes are UTF-8: for a file read whole; a streamed one is not read
    /// ahead for this, so it says `false`.
    pub(crate) fn is_utf8(&self) -> bool {
        match self {
            Content::Whole(bytes) => std::str::from_utf8(bytes).is_ok(),
            Content::Open(_) => false,
        }
    }
}

/// The macro's content ETag (`embed_assets_shared::etag::content`), so an unchanged file keeps its
/// build-time ETag.
fn content_etag(bytes: &[u8]) -> String {
    use sha2::Digest;
    embed_assets_shared::etag::content(&sha2::Sha256::digest(bytes))
}

#[cfg(feature = "acme")]
pub(crate) use self::private::{make_private_folder, write_private};

/// A small file's bytes, read whole on the caller's thread: `serve`'s TLS certificate
/// and key, read at start and again when they change, and its ACME cache's files.
#[cfg(feature = "tls")]
pub(crate) fn read_small(path: &Path) -> io::Result<Vec<u8>> {
    std::fs::read(path)
}

/// Whether `path` is a regular file (symbolic links followed). A blocking `stat` on the
/// caller's thread: for dev mode's folder, a local build output, where the answer
/// decides whether a request is the service's at all.
pub(crate) fn is_regular_file(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|meta| meta.is_file())
}

/// What a path names below a folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Named {
    File,
    Directory,
    /// Nothing, something else (a socket, a FIFO), or a symbolic link on the way that
    /// is not followed.
    Nothing,
}

/// What `relative` names below `folder`, by blocking `stat`s on the caller's thread, as
/// [`is_regular_file`]: unless `follow_symlinks`, one `lstat` per component below the
/// folder (the folder itself may be a link, as a deploy's `current` is), and a link
/// among them names nothing, as a missing file does.
pub(crate) fn named_below(folder: &Path, relative: &str, follow_symlinks: bool) -> Named {
    let kind = |meta: std::fs::Metadata| {
        if meta.is_file() {
            Named::File
        } else if meta.is_dir() {
            Named::Directory
        } else {
            Named::Nothing
        }
    };
    if follow_symlinks {
        return std::fs::metadata(folder.join(relative)).map_or(Named::Nothing, kind);
    }
    let mut path = folder.to_path_buf();
    let mut named = Named::Directory;
    for component in relative.split('/').filter(|c| !c.is_empty()) {
        if named != Named::Directory {
            return Named::Nothing;
        }
        path.push(component);
        named = match std::fs::symlink_metadata(&path) {
            Ok(meta) if !meta.file_type().is_symlink() => kind(meta),
            _ => return Named::Nothing,
        };
    }
    named
}

/// Whether `path` is a directory (symbolic links followed), by a blocking `stat`, as
/// [`is_regular_file`].
pub(crate) fn is_directory(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|meta| meta.is_dir())
}

/// Reads a whole file and its version, on the blocking pool: for the dev folder,
/// whose files are small enough to embed.
async fn read_whole(path: PathBuf) -> io::Result<(Bytes, FileVersion)> {
    blocking(move || {
        let (mut file, meta) = open_regular(&path, io::ErrorKind::NotFound)?;
        let meta = self::version::settled(&file, meta)?;
        Ok((read_all(&mut file, meta.len())?, FileVersion::of(&meta)))
    })
    .await
}

/// The rest of `file`, `len` bytes long when it is unchanged, in a buffer aligned as
/// the chunks of a stream are.
fn read_all(file: &mut File, len: u64) -> io::Result<Bytes> {
    let len = len as usize;
    let mut bytes = Vec::with_capacity(len + room(len));
    let start = lead(&bytes, 0, len);
    bytes.resize(start, 0);
    file.read_to_end(&mut bytes)?;
    Ok(Bytes::from(bytes).slice(start..))
}

/// A file of a folder served whole: read whole when it is no longer than `whole_up_to`
/// (its ETag from these bytes, whether they are UTF-8 known), else opened for
/// streaming as an on-disk asset is. Decided on the open handle's length, so a file
/// that grows meanwhile is streamed, never read whole past the limit.
async fn fetch(
    path: PathBuf,
    tags: Arc<ContentTags>,
    cache: Arc<BodyCache>,
    whole_up_to: u64,
) -> io::Result<DiskFile> {
    // Cached, and the file still of that version: no open, no read, no hop to the pool.
    if let Some(version) = FileVersion::of_regular(&path, false) {
        if let Some(cached) = cache.get(&path, &version) {
            return Ok(DiskFile {
                meta: FileMeta {
                    etag: Some(cached.etag),
                    version,
                },
                content: Content::Whole(cached.bytes),
            });
        }
    }
    let forget = (Arc::clone(&cache), path.clone());
    let fetched = blocking(move || {
        // A file written to while it is read is read again: at most three times.
        for _ in 0..3 {
            let sending = Sending::start();
            let (mut file, meta) = open_regular(&path, io::ErrorKind::NotFound)?;
            let meta = self::version::settled(&file, meta)?;
            let version = FileVersion::of(&meta);
            if meta.len() > whole_up_to {
                let (opened, etag) = opened(&path, file, version, sending, &tags);
                return Ok(DiskFile {
                    meta: FileMeta { etag, version },
                    content: Content::Open(opened),
                });
            }
            let bytes = read_all(&mut file, meta.len())?;
            let unchanged =
                bytes.len() as u64 == version.len && FileVersion::of(&file.metadata()?) == version;
            if unchanged {
                let etag: Arc<str> = content_etag(&bytes).into();
                cache.insert(&path, version, bytes.clone(), Arc::clone(&etag));
                return Ok(DiskFile {
                    meta: FileMeta {
                        etag: Some(etag),
                        version,
                    },
                    content: Content::Whole(bytes),
                });
            }
        }
        Err(io::Error::other(Error::Changed))
    })
    .await;
    // Gone (or no regular file any more): what was cached of it goes too, rather than
    // waiting to be evicted.
    if fetched
        .as_ref()
        .is_err_and(|err| err.kind() == io::ErrorKind::NotFound)
    {
        let (cache, path) = forget;
        cache.forget(&path);
    }
    fetched
}

/// Tells the kernel the file will be read from start to end (`POSIX_FADV_SEQUENTIAL`),
/// so it reads ahead further. Only a hint: where it fails or the platform has none,
/// the file is read all the same.
#[cfg(any(target_os = "linux", target_os = "android", target_os = "freebsd"))]
fn advise_sequential(file: &File) {
    // NOTE: an error (a file system without readahead) changes nothing we rely on.
    let _ = rustix::fs::fadvise(file, 0, None, rustix::fs::Advice::Sequential);
}

#[cfg(not(any(target_os = "linux", target_os = "android", target_os = "freebsd")))]
fn advise_sequential(_file: &File) {}

/// Checks one on-disk asset for the start-up check: exists, is a file, can be read.
pub(crate) fn check(path: &Path) -> io::Result<()> {
    open_regular(path, io::ErrorKind::InvalidInput).map(drop)
}

/// Checks a folder served whole for the start-up check: it exists, is a directory,
/// its entries can be listed, and its first entry's metadata read (which a folder
/// without search permission refuses). An empty folder passes.
pub(crate) fn check_folder(path: &Path) -> io::Result<()> {
    let mut entries = std::fs::read_dir(path)?;
    if let Some(entry) = entries.next() {
        entry?.metadata()?;
    }
    Ok(())
}

/// Opens a regular file, with its metadata from the open handle; anything else is an
/// error of kind `not_a_file`.
///
/// NOTE: the type is checked before opening too: opening a named pipe blocks until a
/// writer appears, which would hold a blocking-pool thread (and the request) forever.
/// A FIFO swapped in between the two checks can still block; the second check, on the
/// handle, is the one the response relies on.
fn open_regular(path: &Path, not_a_file: io::ErrorKind) -> io::Result<(File, std::fs::Metadata)> {
    let refuse = || io::Error::new(not_a_file, "not a regular file");
    if !std::fs::metadata(path)?.is_file() {
        return Err(refuse());
    }
    let file = File::open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(refuse());
    }
    Ok((file, meta))
}

/// Whether no component of `relative` below `folder` is a symbolic link (the macro
/// skips links unless told to follow them), checked on the blocking pool.
pub(crate) async fn no_link_on_the_way(folder: PathBuf, relative: String) -> bool {
    let check = move || {
        let mut path = folder;
        relative.split('/').all(|name| {
            path.push(name);
            std::fs::symlink_metadata(&path).is_ok_and(|meta| !meta.file_type().is_symlink())
        })
    };
    <Runtime as Pool>::spawn(check).await.unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn what_the_cache_holds_of_a_file_goes_when_the_file_does() {
        let path =
            std::env::temp_dir().join(format!("embed-assets-forgotten-{}.txt", std::process::id()));
        std::fs::write(&path, b"cached until deleted").unwrap();
        let (tags, cache) = (Arc::default(), Arc::new(BodyCache::new(1 << 20)));
        let fetched = fetch(path.clone(), Arc::clone(&tags), Arc::clone(&cache), 1 << 20);
        let version = fetched.await.unwrap().meta.version;
        assert!(cache.get(&path, &version).is_some(), "cached");
        std::fs::remove_file(&path).unwrap();
        let err = fetch(path.clone(), tags, Arc::clone(&cache), 1 << 20)
            .await
            .unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
        assert!(cache.get(&path, &version).is_none(), "still cached");
    }

    #[tokio::test]
    async fn missing_files_and_folders_are_not_found() {
        let tags = Arc::new(ContentTags::default());
        let missing = std::env::temp_dir().join("embed-assets-no-such-file");
        let err = open(missing, Arc::clone(&tags)).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
        let err = open(std::env::temp_dir(), tags).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
    }
}
