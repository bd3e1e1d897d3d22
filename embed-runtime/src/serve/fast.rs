//! The fast path of a connection: its HTTP/1.1 requests that the assets answer, parsed
//! with `httparse` and answered with one `writev` of head and body, before any HTTP
//! framework. The first request that is not such a hit — a miss, a method other than
//! GET or HEAD, a body, `Expect`, `Upgrade`, HTTP/1.0, HTTP/2's preface, a head this
//! path does not parse — hands the connection over to hyper with the bytes read and not
//! answered, and hyper serves it (through [`WithFallback`](crate::WithFallback), so the
//! application gets its misses) for the rest of its life.
//!
//! The decision is the one every adapter makes: `ServeAssets::answer` under
//! `Claim::Hits`, with the request's head as hyper would give it. So is the response:
//! the same `Response` value, its head written as hyper writes it (`encode.rs`).
//!
//! This file is the connection's loop; the parser is `parse.rs`, the writing `out.rs`.

use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::task::Poll;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use http::StatusCode;
use http::header::STRICT_TRANSPORT_SECURITY;
use tokio::io::AsyncWriteExt as _;
use tokio::time::{Instant, Sleep};

use super::access::Entry;
use super::out::{Batch, Writing, write_response};
use super::pages::{self, Pages};
use super::parse::{MAX_HEAD, Next, Scratch, next};
use super::transport::Transport;
use super::{Serving, encode};
use crate::ServeAssets;
use crate::respond::{Prebuilt, PrebuiltFields};
use crate::service::Answer;

/// Room made in the read buffer before each read.
const READ_SIZE: usize = 8 * 1024;

/// How a connection's fast path ended.
pub(super) enum Outcome<T> {
    /// The connection is over: closed by the client, an error, a timeout, a
    /// `Connection: close`, or a shutdown.
    Closed,
    /// The rest of the connection is hyper's: the stream and the bytes read from it
    /// that no response answered yet. `stopping` when a shutdown has started.
    HandOver {
        stream: T,
        /// The head of a request parsed here and not answered (else empty), then the
        /// bytes after it.
        head: Bytes,
        read: BytesMut,
        stopping: bool,
    },
}

/// Answers `stream`'s requests while they are hits of `assets`. `stop` completes when
/// a shutdown starts; once it has, it is not polled again (`stopping` says so).
pub(super) async fn serve_hits<T: Transport>(
    mut stream: T,
    assets: &ServeAssets,
    serving: Serving<'_>,
    mut stop: Pin<&mut impl Future<Output = ()>>,
) -> Outcome<T> {
    let limits = serving.limits;
    let mut read = BytesMut::with_capacity(READ_SIZE);
    let mut batch = Batch::default();
    let mut scratch = Scratch::default();
    let mut stopping = false;
    // As hyper's: the header-read timeout from the connection's start, then, between
    // requests, the shorter of it and the idle timeout.
    let mut deadline = Deadline::new(limits.header_read);
    let between_requests = limits.idle.min(limits.header_read);
    loop {
        let hit = loop {
            if !read.is_empty() {
                let head = match next(&mut read, &mut scratch, assets) {
                    Next::Hit(hit) => break hit,
                    Next::Partial if read.len() < MAX_HEAD => None,
                    Next::Partial => Some(Bytes::new()),
                    Next::NotOurs(head) => Some(head),
                };
                // hyper's answers come after those answered here.
                if let Some(head) = head {
                    if batch.write(&mut stream).await.is_err() {
                        return Outcome::Closed;
                    }
                    return Outcome::HandOver {
                        stream,
                        head,
                        read,
                        stopping,
                    };
                }
            }
            // No whole request left: what was answered goes before waiting for more.
            if batch.write(&mut stream).await.is_err() {
                return Outcome::Closed;
            }
            let filled = fill(
                &mut stream,
                &mut read,
                &mut deadline,
                stop.as_mut(),
                &mut stopping,
            );
            if !filled.await {
                return Outcome::Closed;
            }
        };
        let last = hit.close || stopping;
        let writing = Writing {
            method: &hit.method,
            last,
            sendfile_whole: limits.sendfile_whole,
            hsts: serving.hsts,
        };
        let access = hit.access;
        let written = match hit.answer {
            Answer::Prebuilt(prebuilt) => {
                let len = encode::encode_prebuilt(&prebuilt, &hit.method, last, batch.head());
                if let Some(hsts) = serving.hsts {
                    if !prebuilt.headers().contains_key(STRICT_TRANSPORT_SECURITY) {
                        encode::add_field(batch.head(), &STRICT_TRANSPORT_SECURITY, hsts);
                    }
                }
                if let Some(entry) = access {
                    let not_modified = prebuilt.status == StatusCode::NOT_MODIFIED;
                    let fields = prebuilt.fields.fields(not_modified);
                    entry.log(prebuilt.status, fields, Some(len));
                }
                // Over TLS, every body is encrypted here: none goes from memory on its own.
                let sealed = stream
                    .plain()
                    .and_then(|tcp| Some((sealed(&prebuilt, len, serving)?, tcp)));
                match sealed {
                    // The responses held and this head with `MSG_MORE`, then the body
                    // from memory with `sendfile`.
                    Some((source, tcp)) => {
                        batch.push(Bytes::new());
                        async {
                            batch.write_more(tcp).await?;
                            match source {
                                Sealed::Pages(pages, offset) => pages.send(tcp, offset, len).await,
                                Sealed::Body(body) => body.send(tcp, len).await,
                            }
                        }
                        .await
                    }
                    None => {
                        batch.push(if len == 0 {
                            Bytes::new()
                        } else {
                            prebuilt.body
                        });
                        Ok(())
                    }
                }
            }
            Answer::Response(response) => {
                log_response(access, &response);
                write_response(&mut stream, response, &writing, &mut batch).await
            }
            Answer::Later(future) => {
                // What was answered before goes now rather than after the wait (a
                // file opened or read on the blocking pool).
                async {
                    batch.write(&mut stream).await?;
                    let response = future.await;
                    log_response(access, &response);
                    write_response(&mut stream, response, &writing, &mut batch).await
                }
                .await
            }
        };
        let written = match written {
            Ok(()) if last || batch.is_full() => batch.write(&mut stream).await,
            written => written,
        };
        if written.is_err() {
            return Outcome::Closed;
        }
        if last {
            let _ = stream.shutdown().await;
            return Outcome::Closed;
        }
        deadline.restart(between_requests);
    }
}

/// The access log's event of a response, when it is listened to.
fn log_response(access: Option<Box<Entry>>, response: &http::Response<crate::body::Body>) {
    if let Some(entry) = access {
        let bytes = http_body::Body::size_hint(response.body()).exact();
        entry.log(response.status(), response.headers(), bytes);
    }
}

/// Where a prebuilt answer's body is in sealed memory, to be sent from with `sendfile`.
enum Sealed<'a> {
    /// One of the table's bodies, at this offset of the pages.
    Pages(&'a Pages, u64),
    /// A body cached at run time, in memory of its own.
    Body(&'a pages::SealedBody),
}

/// The sealed memory a whole 200's body of `len` bytes is sent from, if any: the
/// table's pages hold it, or it is a body cached with its fields (a file of a folder
/// served whole) large enough to be worth its own, made on first use.
fn sealed<'a>(prebuilt: &'a Prebuilt<'_>, len: u64, serving: Serving<'a>) -> Option<Sealed<'a>> {
    if len == 0 || !serving.limits.sendfile_embedded {
        return None;
    }
    if let Some(pages) = serving.pages {
        if let Some(offset) = pages.offset_of(&prebuilt.body) {
            return Some(Sealed::Pages(pages, offset));
        }
    }
    let PrebuiltFields::Shared(fields) = &prebuilt.fields else {
        return None;
    };
    if prebuilt.body.len() < Pages::FROM {
        return None;
    }
    let body = match fields.body_pages.get() {
        Some(body) => body.as_ref()?,
        // Made on first use; while `Body::MOST` others exist, asked for again on a later
        // use (one of them may be gone by then), and never where the kernel refuses.
        None => match pages::SealedBody::of(&prebuilt.body) {
            Ok(body) => fields
                .body_pages
                .get_or_init(|| Some(Box::new(body)))
                .as_ref()?,
            Err(true) => return None,
            Err(false) => {
                let _ = fields.body_pages.set(None);
                return None;
            }
        },
    };
    body.downcast_ref::<pages::SealedBody>().map(Sealed::Body)
}

/// Reads more of the stream into `read`. `false` when the connection is to close: the
/// client closed it or failed, the deadline passed, or a shutdown started with no
/// request begun.
async fn fill(
    stream: &mut impl Transport,
    read: &mut BytesMut,
    deadline: &mut Deadline,
    mut stop: Pin<&mut impl Future<Output = ()>>,
    stopping: &mut bool,
) -> bool {
    read.reserve(READ_SIZE);
    poll_fn(|cx| {
        if let Poll::Ready(filled) = stream.poll_fill(cx, read) {
            return Poll::Ready(matches!(filled, Ok(n) if n > 0));
        }
        // Waiting: for the client, the deadline or a shutdown, whichever comes first.
        if !*stopping && stop.as_mut().poll(cx).is_ready() {
            *stopping = true;
        }
        if *stopping && read.is_empty() {
            return Poll::Ready(false);
        }
        if deadline.poll_passed(cx) {
            return Poll::Ready(false);
        }
        Poll::Pending
    })
    .await
}

/// A deadline moved on every request, with one timer armed at a time: the timer is
/// only re-armed when it fires before the deadline, so a busy connection touches
/// tokio's timer wheel about once per timeout rather than once per request.
struct Deadline {
    at: Instant,
    timer: Pin<Box<Sleep>>,
}

impl Deadline {
    fn new(after: Duration) -> Self {
        let at = Instant::now() + after;
        Deadline {
            at,
            timer: Box::pin(tokio::time::sleep_until(at)),
        }
    }

    /// Counts `after` from now.
    fn restart(&mut self, after: Duration) {
        self.at = Instant::now() + after;
        // A deadline earlier than the timer (a shorter timeout between requests than
        // before the first) needs the timer moved, or it would be seen late.
        if self.at < self.timer.deadline() {
            let at = self.at;
            self.timer.as_mut().reset(at);
        }
    }

    fn poll_passed(&mut self, cx: &mut std::task::Context<'_>) -> bool {
        loop {
            if self.timer.as_mut().poll(cx).is_pending() {
                return false;
            }
            if Instant::now() >= self.at {
                return true;
            }
            let at = self.at;
            self.timer.as_mut().reset(at);
        }
    }
}
