//! [`ReadBudget`]: the bytes of file data read from disk but not yet taken by the
//! server's socket, across every download of a service, bounded; the buffers they are
//! read into, used again; and [`Held`], what one download has handed out and the server
//! still holds.
//!
//! A server takes a body's chunks before its socket does: hyper queues up to ~400 KiB
//! per connection, and a download reads one chunk ahead to overlap disk and socket. A
//! client that stops reading made the server keep all of that: 400 of them held
//! 765 MiB at 1 MiB chunks. Here a download whose last chunk the server still holds
//! gets another only within the budget (the chunk read ahead, or a consumer that keeps
//! chunks); otherwise it waits until the server drops one, or the budget has room. A
//! download with nothing held reads a full chunk within the budget, or a small one
//! ([`SMALL_CHUNK`]) outside it. So memory stays under the budget plus one small chunk
//! per stalled download, and every download still makes progress.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Waker};

use super::room;

/// What a download reads at a time when the budget has no room: small enough that
/// hundreds of stalled clients hold little, large enough to keep a draining one busy.
pub(crate) const SMALL_CHUNK: usize = 32 << 10;

/// The default budget: what full-size chunks in flight may hold in all.
pub(crate) const DEFAULT_BUDGET: usize = 32 << 20;

/// How many spare buffers are kept for the next reads.
const SPARE_BUFFERS: usize = 8;

/// Bytes of full-size chunks in flight, the downloads waiting for room, and spare
/// buffers to read into.
#[derive(Debug)]
pub(crate) struct ReadBudget {
    total: usize,
    free: AtomicUsize,
    waiting: Mutex<Vec<Waker>>,
    spares: Mutex<Vec<Vec<u8>>>,
}

impl ReadBudget {
    pub(crate) fn new(bytes: usize) -> Arc<Self> {
        Arc::new(ReadBudget {
            total: bytes,
            free: AtomicUsize::new(bytes),
            waiting: Mutex::new(Vec::new()),
            spares: Mutex::new(Vec::new()),
        })
    }

    /// The whole budget.
    pub(crate) fn total(&self) -> usize {
        self.total
    }

    /// Wakes `cx` when bytes come back to the budget.
    pub(crate) fn wait(&self, cx: &mut Context<'_>) {
        let mut waiting = self.waiting.lock().unwrap_or_else(|p| p.into_inner());
        if !waiting.iter().any(|w| w.will_wake(cx.waker())) {
            waiting.push(cx.waker().clone());
        }
    }

    /// Takes `bytes` from the budget if it has room for them.
    pub(crate) fn try_take(self: &Arc<Self>, bytes: usize) -> Option<Lease> {
        let mut free = self.free.load(Ordering::SeqCst);
        loop {
            let left = free.checked_sub(bytes)?;
            match self
                .free
                .compare_exchange_weak(free, left, Ordering::SeqCst, Ordering::SeqCst)
            {
                Ok(_) => {
                    return Some(Lease {
                        budget: Arc::clone(self),
                        bytes,
                    });
                }
                Err(now) => free = now,
            }
        }
    }

    /// An empty buffer with room for `len` bytes after its [`lead`](super::lead): a spare one when
    /// there is one (not more than twice as large), so a read does not fault in fresh
    /// pages.
    pub(crate) fn buffer(&self, len: usize) -> Vec<u8> {
        let least = len + room(len);
        let mut spares = self.spares.lock().unwrap_or_else(|p| p.into_inner());
        let fits = |spare: &Vec<u8>| (least..=least.saturating_mul(2)).contains(&spare.capacity());
        match spares.iter().position(fits) {
            Some(i) => spares.swap_remove(i),
            None => Vec::with_capacity(least),
        }
    }

    /// Keeps `buffer` for a later read, up to [`SPARE_BUFFERS`].
    fn give_back(&self, mut buffer: Vec<u8>) {
        buffer.clear();
        let mut spares = self.spares.lock().unwrap_or_else(|p| p.into_inner());
        if spares.len() < SPARE_BUFFERS {
            spares.push(buffer);
        }
    }

    #[cfg(test)]
    pub(crate) fn free(&self) -> usize {
        self.free.load(Ordering::Relaxed)
    }
}

/// Bytes of the budget, given back when dropped.
#[derive(Debug)]
pub(crate) struct Lease {
    budget: Arc<ReadBudget>,
    bytes: usize,
}

impl Drop for Lease {
    fn drop(&mut self) {
        self.budget.free.fetch_add(self.bytes, Ordering::SeqCst);
        let waiting = std::mem::take(
            &mut *self
                .budget
                .waiting
                .lock()
                .unwrap_or_else(|p| p.into_inner()),
        );
        for waker in waiting {
            waker.wake();
        }
    }
}

/// The owner of one chunk's bytes while the server sends them (`Bytes::from_owner`):
/// when the server drops them, the buffer goes back to the spares, the lease to the
/// budget, and the download's [`Held`] counts one chunk less.
#[derive(Debug)]
pub(crate) struct Chunk {
    buffer: Vec<u8>,
    /// Where the chunk's bytes start in `buffer` (its [`lead`](super::lead)).
    start: usize,
    budget: Arc<ReadBudget>,
    lease: Option<Lease>,
    held: Arc<Held>,
}

impl Chunk {
    pub(crate) fn new(
        buffer: Vec<u8>,
        start: usize,
        budget: Arc<ReadBudget>,
        lease: Option<Lease>,
        held: Arc<Held>,
    ) -> Self {
        held.chunks.fetch_add(1, Ordering::SeqCst);
        let leased = lease.as_ref().map_or(0, |lease| lease.bytes);
        held.leased.fetch_add(leased, Ordering::SeqCst);
        Chunk {
            buffer,
            start,
            budget,
            lease,
            held,
        }
    }
}

impl AsRef<[u8]> for Chunk {
    fn as_ref(&self) -> &[u8] {
        &self.buffer[self.start..]
    }
}

impl Drop for Chunk {
    fn drop(&mut self) {
        self.budget.give_back(std::mem::take(&mut self.buffer));
        let leased = self.lease.as_ref().map_or(0, |lease| lease.bytes);
        drop(self.lease.take());
        self.held.leased.fetch_sub(leased, Ordering::SeqCst);
        self.held.chunks.fetch_sub(1, Ordering::SeqCst);
        let waker = self
            .held
            .waker
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

/// The chunks one download has handed out that the server still holds (its socket
/// has not taken them), with the bytes of them leased from the budget, and the download
/// to wake when one is dropped.
#[derive(Debug, Default)]
pub(crate) struct Held {
    chunks: AtomicUsize,
    leased: AtomicUsize,
    waker: Mutex<Option<Waker>>,
}

impl Held {
    /// How many chunks the server holds.
    pub(crate) fn chunks(&self) -> usize {
        self.chunks.load(Ordering::SeqCst)
    }

    /// The bytes of the budget they hold.
    pub(crate) fn leased(&self) -> usize {
        self.leased.load(Ordering::SeqCst)
    }

    /// Wakes `cx` when the server drops a chunk.
    pub(crate) fn wait(&self, cx: &mut Context<'_>) {
        let mut waker = self.waker.lock().unwrap_or_else(|p| p.into_inner());
        match &mut *waker {
            Some(known) if known.will_wake(cx.waker()) => {}
            slot => *slot = Some(cx.waker().clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disk::lead;

    #[test]
    fn leases_come_back_when_chunks_are_dropped() {
        let budget = ReadBudget::new(3 << 20);
        let a = budget.try_take(1 << 20).unwrap();
        let b = budget.try_take(2 << 20).unwrap();
        assert!(budget.try_take(1).is_none(), "no room left");
        drop(a);
        assert_eq!(budget.free(), 1 << 20);
        let held = Arc::new(Held::default());
        let chunk = Chunk::new(
            budget.buffer(10),
            0,
            Arc::clone(&budget),
            Some(b),
            Arc::clone(&held),
        );
        assert_eq!((held.chunks(), held.leased()), (1, 2 << 20));
        let bytes = bytes::Bytes::from_owner(chunk);
        drop(bytes);
        assert_eq!((held.chunks(), held.leased()), (0, 0));
        assert_eq!(budget.free(), 3 << 20);
        // The buffer is kept for the next read.
        assert!(budget.buffer(10).capacity() >= 10);
    }

    /// Whatever the buffer's address and the file offset, a chunk read after the lead
    /// starts half a page from the offset modulo a page, within the room the buffer has
    /// for it; a short read starts where the buffer does.
    #[test]
    fn a_chunk_starts_half_a_page_from_its_file_offset() {
        const PAGE: usize = 4096;
        let budget = ReadBudget::new(1 << 20);
        for len in [64 << 10, 100_000, 1 << 20] {
            let buffer = budget.buffer(len);
            for offset in [0, 1, 16, 2047, 2048, 4095, 4096, 1 << 20, (1 << 20) + 77] {
                let start = lead(&buffer, offset, len);
                assert!(start < PAGE && start + len <= buffer.capacity());
                let at = buffer.as_ptr() as usize + start;
                let apart = (at + PAGE - (offset % PAGE as u64) as usize) % PAGE;
                assert_eq!(apart, PAGE / 2, "len {len}, offset {offset}");
            }
        }
        for len in [1, 100, SMALL_CHUNK] {
            let buffer = budget.buffer(len);
            assert!(buffer.capacity() >= len);
            assert_eq!(lead(&buffer, 16, len), 0, "len {len}");
        }
    }
}
