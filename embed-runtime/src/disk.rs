//! Files over `max_embed_size`: opened, checked and streamed from disk in chunks.
//! The only file I/O of the crate; every HTTP decision stays in `respond`.

use std::collections::VecDeque;
use std::fs::{File, Metadata};
use std::future::Future as _;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::task::{Context, Poll};
use std::time::{SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use tokio::task::JoinHandle;

use http::HeaderValue;

use crate::asset::Encoding;
use crate::body::Body;
use crate::error::Error;
use crate::precondition::Validators;
use crate::range::ByteRange;
use crate::respond::{HeaderValues, Representation, Slices};

/// Default read size for on-disk assets. Large enough that per-chunk overhead (a
/// blocking-pool hop and a syscall) vanishes next to loopback copy cost, small enough
/// that 32 concurrent downloads hold well under 100 MiB. See the README's benchmark.
pub(crate) const DEFAULT_CHUNK_SIZE: usize = 1 << 20;

/// What a body is made of: literal bytes (multipart headers) and ranges of the file.
#[derive(Debug)]
pub(crate) enum Segment {
    Bytes(Bytes),
    File(ByteRange),
}

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

    /// The body of the chosen slices: shared slices of bytes read whole, or chunks
    /// read `chunk_size` at a time from the open file.
    pub(crate) fn into_body(self, slices: Slices, chunk_size: usize) -> Body {
        let opened = match self {
            Content::Whole(bytes) => return crate::respond::memory_body(bytes, slices),
            Content::Open(opened) => opened,
        };
        let len = opened.identity.len;
        let segments = match slices {
            Slices::Whole if len == 0 => return Body::empty(),
            Slices::Whole => [Segment::File(ByteRange {
                start: 0,
                end: len - 1,
            })]
            .into(),
            Slices::One(range) => [Segment::File(range)].into(),
            Slices::Multipart(segments) => segments,
        };
        Body::from_disk(DiskBody::new(opened, segments, chunk_size))
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

type ChunkResult = Result<(File, Bytes), Error>;

/// Streams `segments`, reading file ranges `chunk_size` bytes at a time, one chunk
/// ahead: as soon as a chunk is handed to the server, the next one is read while it is
/// sent, so disk and socket overlap. At most two chunks are held per download (the one
/// being sent and the one being read); every chunk is still checked against the
/// validators before it is handed out.
#[derive(Debug)]
pub(crate) struct DiskBody {
    segments: VecDeque<Segment>,
    state: State,
    chunk_size: usize,
    identity: FileIdentity,
    remaining: u64,
}

#[derive(Debug)]
enum State {
    Idle(File),
    Reading(JoinHandle<ChunkResult>),
    Done,
}

impl DiskBody {
    pub(crate) fn new(opened: Opened, segments: VecDeque<Segment>, chunk_size: usize) -> Self {
        let remaining = segments
            .iter()
            .map(|segment| match segment {
                Segment::Bytes(bytes) => bytes.len() as u64,
                Segment::File(range) => range.len(),
            })
            .sum();
        DiskBody {
            segments,
            state: State::Idle(opened.file),
            chunk_size: chunk_size.max(1),
            identity: opened.identity,
            remaining,
        }
    }

    /// Bytes still to send.
    pub(crate) fn remaining(&self) -> u64 {
        self.remaining
    }

    /// The next chunk, `None` at the end, an error (and then the end) if the file
    /// failed or changed.
    pub(crate) fn poll_chunk(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Bytes, Error>>> {
        if let State::Idle(_) = self.state {
            match self.segments.front() {
                None => {
                    self.state = State::Done;
                    return Poll::Ready(None);
                }
                Some(Segment::Bytes(_)) => {
                    let Some(Segment::Bytes(bytes)) = self.segments.pop_front() else {
                        return Poll::Ready(None);
                    };
                    self.remaining -= bytes.len() as u64;
                    return Poll::Ready(Some(Ok(bytes)));
                }
                Some(Segment::File(_)) => self.start_read(),
            }
        }
        let State::Reading(handle) = &mut self.state else {
            return Poll::Ready(None);
        };
        let joined = match std::pin::Pin::new(handle).poll(cx) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(joined) => joined,
        };
        Poll::Ready(Some(match joined {
            Ok(Ok((file, bytes))) => {
                self.state = State::Idle(file);
                self.remaining -= bytes.len() as u64;
                // Read ahead: the next chunk of the file is read while this one is sent.
                if let Some(Segment::File(_)) = self.segments.front() {
                    self.start_read();
                }
                Ok(bytes)
            }
            Ok(Err(err)) => self.fail(err),
            Err(join) => self.fail(Error::Read(io::Error::other(join))),
        }))
    }

    /// Starts reading the next chunk of the file range in front: `Idle` with a file
    /// range first becomes `Reading`; anything else is left as it is.
    fn start_read(&mut self) {
        let Some(&Segment::File(range)) = self.segments.front() else {
            return;
        };
        let file = match std::mem::replace(&mut self.state, State::Done) {
            State::Idle(file) => file,
            other => {
                self.state = other;
                return;
            }
        };
        self.segments.pop_front();
        let want = range.len().min(self.chunk_size as u64);
        if want < range.len() {
            self.segments.push_front(Segment::File(ByteRange {
                start: range.start + want,
                end: range.end,
            }));
        }
        let identity = self.identity;
        // NOTE: allocate here, on the thread that will also free the buffer (after
        // hyper sends it). Allocated on a blocking-pool thread, glibc puts each
        // buffer in that thread's arena and keeps the memory after it is freed
        // elsewhere: 32 downloads grew the process by 80-110 MiB instead of ~32.
        let buf = Vec::with_capacity(want as usize);
        self.state = State::Reading(tokio::task::spawn_blocking(move || {
            read_chunk(file, buf, range.start, want, identity)
        }));
    }

    fn fail(&mut self, err: Error) -> Result<Bytes, Error> {
        self.state = State::Done;
        self.segments.clear();
        Err(err)
    }
}

/// Reads exactly `len` bytes at `offset` into `buf` (allocated with that capacity),
/// then checks the file is still the one the validators describe: a short read or
/// changed metadata is [`Error::Changed`].
fn read_chunk(
    mut file: File,
    mut buf: Vec<u8>,
    offset: u64,
    len: u64,
    expected: FileIdentity,
) -> ChunkResult {
    file.seek(SeekFrom::Start(offset)).map_err(Error::Read)?;
    // `read_to_end` on a `Take` fills the spare capacity without zeroing or growing it,
    // and the `Vec` becomes `Bytes` without a copy.
    (&mut file)
        .take(len)
        .read_to_end(&mut buf)
        .map_err(Error::Read)?;
    let now = file
        .metadata()
        .map_err(Error::Read)
        .map(|meta| FileIdentity::of(&meta))?;
    if buf.len() as u64 != len || now != expected {
        return Err(Error::Changed);
    }
    Ok((file, Bytes::from(buf)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn temp_file(name: &str, bytes: &[u8]) -> PathBuf {
        let path =
            std::env::temp_dir().join(format!("embed-assets-disk-{}-{name}", std::process::id()));
        File::create(&path).unwrap().write_all(bytes).unwrap();
        path
    }

    async fn collect(mut body: DiskBody) -> Result<Vec<u8>, Error> {
        let mut out = Vec::new();
        while let Some(chunk) = std::future::poll_fn(|cx| body.poll_chunk(cx)).await {
            out.extend_from_slice(&chunk?);
        }
        Ok(out)
    }

    #[tokio::test]
    async fn ranges_and_literals_stream_in_order_across_chunks() {
        let data: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
        let path = temp_file("ranges", &data);
        let opened = open(path.clone()).await.unwrap();
        let segments = VecDeque::from([
            Segment::Bytes(Bytes::from_static(b"<head>")),
            Segment::File(ByteRange {
                start: 10,
                end: 5_009,
            }),
            Segment::Bytes(Bytes::from_static(b"<mid>")),
            Segment::File(ByteRange {
                start: 9_999,
                end: 9_999,
            }),
        ]);
        let body = DiskBody::new(opened, segments, 1_000);
        assert_eq!(body.remaining(), 6 + 5_000 + 5 + 1);
        let out = collect(body).await.unwrap();
        let mut expected = b"<head>".to_vec();
        expected.extend_from_slice(&data[10..5_010]);
        expected.extend_from_slice(b"<mid>");
        expected.push(data[9_999]);
        assert_eq!(out, expected);
        std::fs::remove_file(path).unwrap();
    }

    #[tokio::test]
    async fn a_file_truncated_mid_stream_ends_with_an_error() {
        let path = temp_file("truncated", &[7u8; 4_000]);
        let opened = open(path.clone()).await.unwrap();
        let mut body = DiskBody::new(
            opened,
            VecDeque::from([Segment::File(ByteRange {
                start: 0,
                end: 3_999,
            })]),
            1_000,
        );
        let first = std::future::poll_fn(|cx| body.poll_chunk(cx))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(first.len(), 1_000);
        File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(1_500)
            .unwrap();
        // The second chunk was being read ahead while the first was handed out: it
        // may have been read, and checked, before the file changed. Then the third
        // one fails. No more than that one chunk can get through.
        let mut next = std::future::poll_fn(|cx| body.poll_chunk(cx))
            .await
            .unwrap();
        if let Ok(second) = &next {
            assert_eq!(&second[..], &[7u8; 1_000][..]);
            next = std::future::poll_fn(|cx| body.poll_chunk(cx))
                .await
                .unwrap();
        }
        assert!(matches!(next, Err(Error::Changed)), "{next:?}");
        assert!(std::future::poll_fn(|cx| body.poll_chunk(cx))
            .await
            .is_none());
        std::fs::remove_file(path).unwrap();
    }

    #[tokio::test]
    async fn the_next_chunk_is_read_while_one_is_sent() {
        let data: Vec<u8> = (0..3_000u32).map(|i| (i % 253) as u8).collect();
        let path = temp_file("ahead", &data);
        let opened = open(path.clone()).await.unwrap();
        let whole = ByteRange {
            start: 0,
            end: 2_999,
        };
        let mut body = DiskBody::new(opened, VecDeque::from([Segment::File(whole)]), 1_000);
        let first = std::future::poll_fn(|cx| body.poll_chunk(cx))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(&first[..], &data[..1_000]);
        // One read in flight, and the rest of the range still to read: one chunk ahead.
        assert!(matches!(body.state, State::Reading(_)), "{:?}", body.state);
        let rest: Vec<_> = body.segments.iter().collect();
        assert!(
            matches!(
                rest[..],
                [Segment::File(ByteRange {
                    start: 2_000,
                    end: 2_999
                })]
            ),
            "{rest:?}"
        );
        let rest = collect(body).await.unwrap();
        assert_eq!(&rest[..], &data[1_000..]);
        std::fs::remove_file(path).unwrap();
    }

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
