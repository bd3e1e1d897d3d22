//! [`DiskBody`]: a file's ranges streamed in chunks, each checked against the version
//! of the file the response was built from. While the client drains and the read
//! budget has room, the next chunk is read ahead as one is sent, so disk and socket
//! overlap; otherwise chunks are read one at a time, small (see `budget`).

use std::collections::VecDeque;
use std::fs::File;
use std::future::Future as _;
use std::io::{Read, Seek, SeekFrom};
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;

use super::budget::{Chunk, Held, Lease, ReadBudget, SMALL_CHUNK};
use super::pool::{Pool, Runtime};
use super::tags::Sending;
use super::{FileVersion, Opened, lead};
use crate::error::Error;
pub(super) use crate::plan::Segment;
use crate::range::ByteRange;

type ReadResult = Result<(File, Vec<u8>, usize), Error>;

/// Streams `segments`, reading file ranges `chunk_size` bytes at a time within the
/// read budget (see `budget`), and checking every chunk against the file's version
/// before it is handed out.
///
/// While the server holds none of this download's chunks (its socket took them all), the
/// next is a full chunk within the budget, or a small one outside it. While it holds
/// one, the next is handed out only within the budget (as a consumer that keeps chunks
/// needs), else it waits until the server drops one or the budget has room; a
/// consumer that keeps half the budget itself (collecting the whole body) gets full
/// chunks outside it. When the server asked for the next chunk after taking the last
/// (the client drains as fast as the disk reads), the one after is read while it is
/// sent. So a stalled client holds one small chunk or budgeted ones, and soon has
/// nothing read ahead for it.
#[derive(Debug)]
pub(crate) struct DiskBody {
    pub(super) segments: VecDeque<Segment>,
    pub(super) state: State,
    pub(super) chunk_size: usize,
    pub(super) version: FileVersion,
    pub(super) remaining: u64,
    budget: Arc<ReadBudget>,
    /// The chunks the server holds.
    held: Arc<Held>,
    /// Whether the server asked for a chunk while it still held the last one.
    waited: bool,
    /// Counted among the responses a hash waits for.
    _sending: Sending,
}

#[derive(Debug)]
pub(super) enum State {
    Idle(File),
    Reading(<Runtime as Pool>::Job<ReadResult>, Option<Lease>),
    Done,
}

/// Why a read starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Why {
    /// The server asked for a chunk.
    Asked,
    /// To have the next chunk ready: only within the budget.
    Ahead,
}

impl DiskBody {
    pub(crate) fn new(
        opened: Opened,
        segments: VecDeque<Segment>,
        chunk_size: usize,
        budget: Arc<ReadBudget>,
    ) -> Self {
        let remaining = segments
            .iter()
            .map(|segment| match segment {
                Segment::Bytes(bytes) => bytes.len() as u64,
                Segment::Range(range) => range.len(),
            })
            .sum();
        DiskBody {
            segments,
            state: State::Idle(opened.file),
            chunk_size: chunk_size.max(1),
            version: opened.version,
            remaining,
            budget,
            held: Arc::default(),
            waited: false,
            _sending: opened.sending,
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
        if self.held.chunks() > 0 {
            self.waited = true;
        }
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
                Some(Segment::Range(_)) => {
                    if !self.start_read(Why::Asked, Some(cx)) {
                        return Poll::Pending;
                    }
                }
            }
        }
        let State::Reading(handle, _) = &mut self.state else {
            return Poll::Ready(None);
        };
        let joined = match std::pin::Pin::new(handle).poll(cx) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(joined) => joined,
        };
        let lease = match std::mem::replace(&mut self.state, State::Done) {
            State::Reading(_, lease) => lease,
            _ => None,
        };
        Poll::Ready(Some(match joined {
            Ok(Ok((file, buffer, start))) => {
                self.state = State::Idle(file);
                self.remaining -= (buffer.len() - start) as u64;
                let chunk = Chunk::new(
                    buffer,
                    start,
                    Arc::clone(&self.budget),
                    lease,
                    Arc::clone(&self.held),
                );
                if !std::mem::take(&mut self.waited) {
                    self.start_read(Why::Ahead, None);
                }
                Ok(Bytes::from_owner(chunk))
            }
            Ok(Err(err)) => self.fail(err),
            Err(lost) => self.fail(Error::Read(lost)),
        }))
    }

    /// Starts reading the next chunk of the file range in front, if the rules above
    /// allow it now: `Idle` with a file range first becomes `Reading`. `false` when the
    /// read must wait; then `cx` (given for [`Why::Asked`]) is woken when the server
    /// drops a chunk or the budget has room.
    fn start_read(&mut self, why: Why, mut cx: Option<&mut Context<'_>>) -> bool {
        let Some(&Segment::Range(range)) = self.segments.front() else {
            return true;
        };
        let full = range.len().min(self.chunk_size as u64);
        let mut registered = false;
        let (want, lease) = loop {
            if let Some(lease) = self.budget.try_take(full as usize) {
                break (full, Some(lease));
            }
            if why == Why::Ahead {
                return false;
            }
            if self.held.chunks() == 0 {
                break (full.min(SMALL_CHUNK as u64), None);
            }
            // A consumer that keeps chunks rather than passing them on (one collecting
            // the whole body): no socket is behind it, so the rule is not for it.
            if self.held.leased() >= (self.budget.total() / 2).max(1) {
                break (full, None);
            }
            let Some(cx) = cx.as_deref_mut().filter(|_| !registered) else {
                return false;
            };
            self.held.wait(cx);
            self.budget.wait(cx);
            // Once more: a chunk may have been dropped, or budget given back, before
            // the wakers were in place.
            registered = true;
        };
        let file = match std::mem::replace(&mut self.state, State::Done) {
            State::Idle(file) => file,
            other => {
                self.state = other;
                return true;
            }
        };
        self.segments.pop_front();
        if want < range.len() {
            self.segments.push_front(Segment::Range(ByteRange {
                start: range.start + want,
                end: range.end,
            }));
        }
        let version = self.version;
        // NOTE: the buffer is taken here, on the thread that will also give it back
        // (after hyper sends it). Allocated on a blocking-pool thread, glibc puts each
        // buffer in that thread's arena and keeps the memory after it is freed
        // elsewhere: 32 downloads grew the process by 80-110 MiB instead of ~32.
        let buffer = self.budget.buffer(want as usize);
        let read =
            <Runtime as Pool>::spawn(move || read_chunk(file, buffer, range.start, want, version));
        self.state = State::Reading(read, lease);
        true
    }

    fn fail(&mut self, err: Error) -> Result<Bytes, Error> {
        self.state = State::Done;
        self.segments.clear();
        Err(err)
    }
}

/// Reads exactly `len` bytes at `offset` into `buffer` (empty, with room for them
/// after its [`lead`]), then checks the file still holds the bytes its version was taken
/// of: a short read or another version is [`Error::Changed`]. The buffer, with the
/// chunk from the returned index on.
fn read_chunk(
    mut file: File,
    mut buffer: Vec<u8>,
    offset: u64,
    len: u64,
    expected: FileVersion,
) -> ReadResult {
    file.seek(SeekFrom::Start(offset)).map_err(Error::Read)?;
    let start = lead(&buffer, offset, len as usize);
    buffer.resize(start, 0);
    // `read_to_end` on a `Take` fills the spare capacity without zeroing or growing it.
    (&mut file)
        .take(len)
        .read_to_end(&mut buffer)
        .map_err(Error::Read)?;
    let held = expected.held_by(&file).map_err(Error::Read)?;
    if (buffer.len() - start) as u64 != len || !held {
        return Err(Error::Changed);
    }
    Ok((file, buffer, start))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::path::PathBuf;

    fn temp_file(name: &str, bytes: &[u8]) -> PathBuf {
        let path =
            std::env::temp_dir().join(format!("embed-assets-disk-{}-{name}", std::process::id()));
        File::create(&path).unwrap().write_all(bytes).unwrap();
        path
    }

    /// A body streaming all of `data`, written to a temp file named after `name`, in
    /// chunks of `chunk` bytes within `budget`; and the file's path.
    async fn whole_body(
        name: &str,
        data: &[u8],
        chunk: usize,
        budget: Arc<ReadBudget>,
    ) -> (DiskBody, PathBuf) {
        let path = temp_file(name, data);
        let tags = Arc::new(super::super::ContentTags::default());
        let (opened, _) = super::super::open(path.clone(), tags).await.unwrap();
        let whole = ByteRange {
            start: 0,
            end: data.len() as u64 - 1,
        };
        let body = DiskBody::new(
            opened,
            VecDeque::from([Segment::Range(whole)]),
            chunk,
            budget,
        );
        (body, path)
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
        let tags = Arc::new(super::super::ContentTags::default());
        let (opened, _) = super::super::open(path.clone(), tags).await.unwrap();
        let segments = VecDeque::from([
            Segment::Bytes(Bytes::from_static(b"<head>")),
            Segment::Range(ByteRange {
                start: 10,
                end: 5_009,
            }),
            Segment::Bytes(Bytes::from_static(b"<mid>")),
            Segment::Range(ByteRange {
                start: 9_999,
                end: 9_999,
            }),
        ]);
        let body = DiskBody::new(opened, segments, 1_000, ReadBudget::new(1 << 20));
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
        let (mut body, path) =
            whole_body("truncated", &[7u8; 4_000], 1_000, ReadBudget::new(1 << 20)).await;
        let first = std::future::poll_fn(|cx| body.poll_chunk(cx))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(first.len(), 1_000);
        drop(first);
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
        if let Ok(second) = next {
            assert_eq!(&second[..], &[7u8; 1_000][..]);
            drop(second);
            next = std::future::poll_fn(|cx| body.poll_chunk(cx))
                .await
                .unwrap();
        }
        assert!(matches!(next, Err(Error::Changed)), "{next:?}");
        assert!(
            std::future::poll_fn(|cx| body.poll_chunk(cx))
                .await
                .is_none()
        );
        std::fs::remove_file(path).unwrap();
    }

    #[tokio::test]
    async fn the_next_chunk_is_read_while_one_is_sent() {
        let data: Vec<u8> = (0..3_000u32).map(|i| (i % 253) as u8).collect();
        let (mut body, path) = whole_body("ahead", &data, 1_000, ReadBudget::new(1 << 20)).await;
        let first = std::future::poll_fn(|cx| body.poll_chunk(cx))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(&first[..], &data[..1_000]);
        // One read in flight, and the rest of the range still to read: one chunk ahead.
        assert!(matches!(body.state, State::Reading(..)), "{:?}", body.state);
        let rest: Vec<_> = body.segments.iter().collect();
        assert!(
            matches!(
                rest[..],
                [Segment::Range(ByteRange {
                    start: 2_000,
                    end: 2_999
                })]
            ),
            "{rest:?}"
        );
        drop(first);
        let rest = collect(body).await.unwrap();
        assert_eq!(&rest[..], &data[1_000..]);
        std::fs::remove_file(path).unwrap();
    }

    async fn next(body: &mut DiskBody) -> Bytes {
        std::future::poll_fn(|cx| body.poll_chunk(cx))
            .await
            .unwrap()
            .unwrap()
    }

    /// A waker that counts its wakes.
    struct Count(std::sync::atomic::AtomicUsize);

    impl std::task::Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
    }

    fn counting_context() -> (Arc<Count>, std::task::Waker) {
        let count = Arc::new(Count(std::sync::atomic::AtomicUsize::new(0)));
        let waker = std::task::Waker::from(Arc::clone(&count));
        (count, waker)
    }

    impl Count {
        fn get(&self) -> usize {
            self.0.load(std::sync::atomic::Ordering::SeqCst)
        }
    }

    #[tokio::test]
    async fn with_no_room_a_chunk_waits_until_the_server_drops_the_last_or_room_comes() {
        let data: Vec<u8> = (0..5_000u32).map(|i| (i % 249) as u8).collect();
        let budget = ReadBudget::new(1_000);
        // Other downloads hold the whole budget.
        let others = budget.try_take(1_000).unwrap();
        let (mut body, path) = whole_body("stalled", &data, 1_000, Arc::clone(&budget)).await;
        // The server holds nothing yet: a chunk outside the budget, none read ahead.
        let first = next(&mut body).await;
        assert_eq!(&first[..], &data[..1_000]);
        assert!(matches!(body.state, State::Idle(_)), "{:?}", body.state);
        // It asks again while it still holds the first (its socket has not taken it):
        // nothing, until it drops the first.
        let (count, waker) = counting_context();
        let mut cx = Context::from_waker(&waker);
        for _ in 0..3 {
            assert!(body.poll_chunk(&mut cx).is_pending());
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        assert!(
            matches!(body.state, State::Idle(_)),
            "nothing read: {:?}",
            body.state
        );
        assert_eq!(count.get(), 0);
        drop(first);
        assert_eq!(count.get(), 1, "woken when the server dropped the chunk");
        let second = next(&mut body).await;
        assert_eq!(&second[..], &data[1_000..2_000]);
        // Held again: it waits, and room in the budget wakes it for a chunk within it.
        assert!(body.poll_chunk(&mut cx).is_pending());
        drop(others);
        assert_eq!(count.get(), 2, "woken when the budget had room");
        let third = next(&mut body).await;
        assert_eq!(&third[..], &data[2_000..3_000]);
        assert_eq!(budget.free(), 0, "the third is within the budget");
        drop((second, third));
        assert_eq!(budget.free(), 1_000);
        let rest = collect(body).await.unwrap();
        assert_eq!(&rest[..], &data[3_000..]);
        std::fs::remove_file(path).unwrap();
    }

    #[tokio::test]
    async fn a_consumer_that_keeps_every_chunk_still_gets_the_whole_body() {
        let data: Vec<u8> = (0..20_000u32).map(|i| (i % 241) as u8).collect();
        // Room for four chunks; the body is twenty.
        let budget = ReadBudget::new(4_000);
        let (mut body, path) = whole_body("collector", &data, 1_000, Arc::clone(&budget)).await;
        let mut kept = Vec::new();
        let collected = tokio::time::timeout(std::time::Duration::from_secs(10), async {
            while let Some(chunk) = std::future::poll_fn(|cx| body.poll_chunk(cx)).await {
                kept.push(chunk.unwrap());
            }
        })
        .await;
        assert!(
            collected.is_ok(),
            "the body stalled a consumer that keeps its chunks"
        );
        assert_eq!(kept.concat(), data);
        drop(kept);
        assert_eq!(budget.free(), 4_000);
        std::fs::remove_file(path).unwrap();
    }

    #[tokio::test]
    async fn with_no_room_in_the_budget_chunks_are_small_and_never_read_ahead() {
        let data: Vec<u8> = (0..300_000u32).map(|i| (i % 247) as u8).collect();
        let (mut body, path) = whole_body("no-budget", &data, 256 << 10, ReadBudget::new(0)).await;
        let mut out = Vec::new();
        while let Some(chunk) = std::future::poll_fn(|cx| body.poll_chunk(cx)).await {
            let chunk = chunk.unwrap();
            assert!(chunk.len() <= SMALL_CHUNK, "{}", chunk.len());
            assert!(
                matches!(body.state, State::Idle(_) | State::Done),
                "{:?}",
                body.state
            );
            out.extend_from_slice(&chunk);
        }
        assert_eq!(out, data);
        std::fs::remove_file(path).unwrap();
    }
}
