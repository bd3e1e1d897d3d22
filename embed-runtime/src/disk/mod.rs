//! Every file-system call of the crate: files over `max_embed_size` opened, checked and
//! streamed in chunks (`stream`), dev-mode files read whole, the start-up check, and
//! the link checks of dev mode. Every HTTP decision stays in `respond`.

mod stream;

pub(crate) use self::stream::DiskBody;

use std::fs::{File, Metadata};
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use bytes::Bytes;

use http::HeaderValue;

use crate::asset::Encoding;
use crate::precondition::Validators;
use crate::representation::{HeaderValues, Representation};

/// Default read size for on-disk assets. Large enough that per-chunk overhead (a
/// blocking-pool hop and a syscall) vanishes next to loopback copy cost, small enough
/// that 32 concurrent downloads hold well under 100 MiB. See the README's benchmark.
pub(crate) const DEFAULT_CHUNK_SIZE: usize = 1 << 20;

/// An open on-disk asset with the metadata its validators come from.
#[derive(Debug)]
pub(crate) struct Opened {
    pub(crate) file: File,
    pub(crate) identity: FileIdentity,
}

/// Size and modification time: what the validators describe, re-checked as the body
/// is read so a file changed mid-download never goes out under the old ETag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FileIdentity {
    pub(crate) len: u64,
    pub(crate) modified: SystemTime,
}

impl FileIdentity {
    fn of(meta: &Metadata) -> Self {
        FileIdentity {
            len: meta.len(),
            modified: clamp_to_http_date(meta.modified().unwrap_or(UNIX_EPOCH)),
        }
    }

    /// `"<mtime in ns, hex>-<len, hex>"`: strong for our purposes (any write changes
    /// the mtime, at nanosecond resolution where the file system has it).
    /// The macro computes the same at build time for `Asset::etag` (`embed_assets_shared::etag`).
    pub(crate) fn etag(&self) -> String {
        let nanos = self
            .modified
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        embed_assets_shared::etag::on_disk(nanos, self.len)
    }

    /// Whole seconds since the epoch, as `Last-Modified` states it.
    pub(crate) fn modified_secs(&self) -> u64 {
        self.modified
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs())
    }
}

/// The last second an HTTP-date can state (9999-12-31T23:59:59Z).
const LAST_HTTP_DATE: u64 = 253_402_300_799;

/// A file time an HTTP-date can state: an mtime before 1970 or after 9999 (clock
/// mishaps, `touch -d`) is clamped, so formatting `Last-Modified` can never panic.
fn clamp_to_http_date(time: SystemTime) -> SystemTime {
    let last = UNIX_EPOCH + std::time::Duration::from_secs(LAST_HTTP_DATE);
    time.clamp(UNIX_EPOCH, last)
}

/// Opens `path` and reads its metadata from the open handle (no race between the
/// two), on the blocking pool. `NotFound` also when it is not a regular file.
async fn open(path: PathBuf) -> io::Result<Opened> {
    let opened = tokio::task::spawn_blocking(move || {
        let (file, meta) = open_regular(&path, io::ErrorKind::NotFound)?;
        advise_sequential(&file);
        Ok(Opened {
            file,
            identity: FileIdentity::of(&meta),
        })
    })
    .await;
    opened.unwrap_or_else(|join| Err(io::Error::other(join)))
}

/// A file read at run time, the one representation of bytes from disk: an on-disk
/// asset opened for streaming, or a dev-folder file read whole. Its validators describe
/// what was opened or read, not the build.
#[derive(Debug)]
pub(crate) struct DiskFile {
    pub(crate) meta: FileMeta,
    pub(crate) content: Content,
}

/// What a file's validators come from.
#[derive(Debug)]
pub(crate) struct FileMeta {
    etag: String,
    identity: FileIdentity,
}

/// A file's bytes: read whole, or an open handle to stream from.
#[derive(Debug)]
pub(crate) enum Content {
    Whole(Bytes),
    Open(Opened),
}

impl DiskFile {
    /// An on-disk asset, opened; validators from the open handle's metadata.
    pub(crate) async fn open(path: PathBuf) -> io::Result<Self> {
        let opened = open(path).await?;
        Ok(DiskFile {
            meta: FileMeta {
                etag: opened.identity.etag(),
                identity: opened.identity,
            },
            content: Content::Open(opened),
        })
    }

    /// A dev-folder file, read whole; its ETag is the one the macro would compute for
    /// these bytes, so an unchanged file keeps its build-time ETag.
    pub(crate) async fn read(path: PathBuf) -> io::Result<Self> {
        let (bytes, identity) = read_whole(path).await?;
        Ok(DiskFile {
            meta: FileMeta {
                etag: content_etag(&bytes),
                identity,
            },
            content: Content::Whole(bytes),
        })
    }
}

impl FileMeta {
    /// The identity representation of a file of type `content_type` as read from
    /// disk: `Last-Modified` from the file's time, no other encodings. `None` only if
    /// a value cannot be a header, which our formats rule out.
    pub(crate) fn representation<'a>(
        &'a self,
        content_type: &'a str,
    ) -> Option<Representation<'a>> {
        let identity = self.identity;
        let last_modified = httpdate::fmt_http_date(identity.modified);
        Some(Representation {
            content_type,
            encoding: Encoding::Identity,
            validators: Validators {
                etag: &self.etag,
                modified: identity.modified_secs(),
            },
            len: identity.len,
            values: HeaderValues {
                etag: HeaderValue::try_from(self.etag.as_str()).ok()?,
                last_modified: HeaderValue::try_from(last_modified).ok()?,
                content_type: HeaderValue::try_from(content_type).ok()?,
                content_length: HeaderValue::from(identity.len),
            },
            negotiated: false,
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

/// Reads a whole file and its identity, on the blocking pool: for the dev folder,
/// whose files are small enough to embed.
async fn read_whole(path: PathBuf) -> io::Result<(Bytes, FileIdentity)> {
    let read = tokio::task::spawn_blocking(move || {
        let (mut file, meta) = open_regular(&path, io::ErrorKind::NotFound)?;
        let mut bytes = Vec::with_capacity(meta.len() as usize);
        file.read_to_end(&mut bytes)?;
        Ok((Bytes::from(bytes), FileIdentity::of(&meta)))
    })
    .await;
    read.unwrap_or_else(|join| Err(io::Error::other(join)))
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
    tokio::task::spawn_blocking(check).await.unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn missing_files_and_folders_are_not_found() {
        let err = open(std::env::temp_dir().join("embed-assets-no-such-file"))
            .await
            .unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
        let err = open(std::env::temp_dir()).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
    }

    #[test]
    fn file_times_outside_http_dates_are_clamped() {
        let before = UNIX_EPOCH - std::time::Duration::from_secs(10);
        assert_eq!(clamp_to_http_date(before), UNIX_EPOCH);
        let after = UNIX_EPOCH + std::time::Duration::from_secs(LAST_HTTP_DATE + 100);
        let clamped = clamp_to_http_date(after);
        // Formatting must not panic at the bound.
        assert_eq!(
            httpdate::fmt_http_date(clamped),
            "Fri, 31 Dec 9999 23:59:59 GMT"
        );
    }

    #[test]
    fn etags_change_with_size_and_time() {
        let a = FileIdentity {
            len: 10,
            modified: UNIX_EPOCH + std::time::Duration::from_nanos(1_000_000_001),
        };
        let b = FileIdentity { len: 11, ..a };
        let c = FileIdentity {
            modified: UNIX_EPOCH + std::time::Duration::from_nanos(1_000_000_002),
            ..a
        };
        assert_eq!(a.etag(), "\"3b9aca01-a\"");
        assert_ne!(a.etag(), b.etag());
        assert_ne!(a.etag(), c.etag());
        assert_eq!(a.modified_secs(), 1);
    }
}
