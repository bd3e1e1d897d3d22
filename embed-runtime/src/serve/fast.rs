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
//! the same `Response` value, its head written as hyper writes it (`head.rs`).

use std::future::{Future, poll_fn};
use std::io;
use std::mem::MaybeUninit;
use std::pin::{Pin, pin};
use std::task::Poll;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use http::header::{CONNECTION, CONTENT_LENGTH, EXPECT, TRANSFER_ENCODING, UPGRADE};
use http::uri::PathAndQuery;
use http::{HeaderMap, HeaderValue, Method, Response, Version};
use http_body::Body as _;
use tokio::io::{AsyncWriteExt as _, Interest};
use tokio::net::TcpStream;
use tokio::time::{Instant, Sleep};

use super::out::{Batch, clear_readiness};
#[cfg(target_os = "linux")]
use super::sendfile::Gate;
use super::{Limits, head};
use crate::body::Body;
use crate::service::{Answer, Claim, READ_FIELDS};
use crate::{RequestHead, ServeAssets};

/// The header lines a request of the fast path may have; a request with more goes to
/// hyper, whose limit (100) then applies.
const MAX_HEADERS: usize = 64;

/// The bytes of a request head read here at most: a longer head goes to hyper, whose
/// limits then apply (and whose answer, 431 or 414, is the one the client gets).
const MAX_HEAD: usize = 16 * 1024;

/// Room made in the read buffer before each read.
const READ_SIZE: usize = 8 * 1024;

/// How a connection's fast path ended.
pub(super) enum Outcome {
    /// The connection is over: closed by the client, an error, a timeout, a
    /// `Connection: close`, or a shutdown.
    Closed,
    /// The rest of the connection is hyper's: the stream and the bytes read from it
    /// that no response answered yet. `stopping` when a shutdown has started.
    HandOver {
        stream: TcpStream,
        /// The head of a request parsed here and not answered (else empty), then the
        /// bytes after it.
        head: Bytes,
        read: BytesMut,
        stopping: bool,
    },
}

/// Answers `stream`'s requests while they are hits of `assets`. `stop` completes when
/// a shutdown starts; once it has, it is not polled again (`stopping` says so).
pub(super) async fn serve_hits(
    mut stream: TcpStream,
    assets: &ServeAssets,
    limits: &Limits,
    mut stop: Pin<&mut impl Future<Output = ()>>,
) -> Outcome {
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
        };
        let written = match hit.answer {
            Answer::Prebuilt(prebuilt) => {
                let len = head::encode_prebuilt(&prebuilt, &hit.method, last, batch.head());
                batch.push(if len == 0 {
                    Bytes::new()
                } else {
                    prebuilt.body
                });
                Ok(())
            }
            Answer::Response(response) => {
                write_response(&mut stream, response, &writing, &mut batch).await
            }
            Answer::Later(future) => {
                // What was answered before goes now rather than after the wait (a
                // file opened or read on the blocking pool).
                async {
                    batch.write(&mut stream).await?;
                    let response = future.await;
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

/// What a connection reuses from one request to the next: the request's fields the
/// service reads, and where each lies in its head.
#[derive(Default)]
struct Scratch {
    headers: HeaderMap,
    spans: Vec<FieldSpan>,
}

/// A field the service reads, as its index in `READ_FIELDS`, and its value as a start
/// and end offset in the request head.
type FieldSpan = (usize, (usize, usize));

/// A request the assets answer.
struct Hit<'a> {
    method: Method,
    /// Its `Connection` field says `close`.
    close: bool,
    answer: Answer<'a>,
}

/// What the read buffer starts with.
enum Next<'a> {
    /// Not a whole head yet.
    Partial,
    /// A request for hyper and the application (or one hyper answers with an error),
    /// with its head when it was split off the read buffer (else empty).
    NotOurs(Bytes),
    Hit(Hit<'a>),
}

/// Parses the request at the start of `read` and asks `assets` whether it is a hit.
/// A whole head is split off `read` (and given back in `Next::NotOurs`), so that the
/// request's target and field values are slices of it, not copies.
/// `scratch` is the connection's, emptied and filled again for each request (its room
/// kept).
fn next<'a>(read: &mut BytesMut, scratch: &mut Scratch, assets: &'a ServeAssets) -> Next<'a> {
    let Scratch { headers, spans } = scratch;
    let not_ours = || Next::NotOurs(Bytes::new());
    // Left uninitialised until parsed, as hyper does: no 2 KiB to clear per request.
    let mut fields = [const { MaybeUninit::<httparse::Header<'_>>::uninit() }; MAX_HEADERS];
    let mut request = httparse::Request::new(&mut []);
    let len = match request.parse_with_uninit_headers(read, &mut fields) {
        Ok(httparse::Status::Complete(len)) => len,
        Ok(httparse::Status::Partial) => return Next::Partial,
        Err(_) => return not_ours(),
    };
    // HTTP/1.0 keeps hyper's handling of its keep-alive and version rules.
    if request.version != Some(1) {
        return not_ours();
    }
    let method = match request.method {
        Some("GET") => Method::GET,
        Some("HEAD") => Method::HEAD,
        _ => return not_ours(),
    };
    // Origin form only: an absolute or asterisk target is hyper's to read.
    let Some(target) = request.path.filter(|target| target.starts_with('/')) else {
        return not_ours();
    };
    // Where the target and each field lie in the head, to slice them out of it once it
    // is split off the buffer (offsets from addresses: the split moves no byte).
    let start = read.as_ptr() as usize;
    let span = |part: &[u8]| {
        let from = part.as_ptr() as usize - start;
        (from, from + part.len())
    };
    let (from, to) = span(target.as_bytes());
    // Only the fields the service reads go into the map (each name known, so no name
    // is parsed or allocated); the others are looked at for what makes a request
    // hyper's, and `Connection` for `close`.
    spans.clear();
    let mut close = false;
    for field in request.headers.iter() {
        let name = field.name.as_bytes();
        let is =
            |known: &str| known.len() == name.len() && known.as_bytes().eq_ignore_ascii_case(name);
        if let Some(known) = READ_FIELDS.iter().position(|known| is(known.as_str())) {
            spans.push((known, span(field.value)));
        } else if is(CONNECTION.as_str()) {
            close |= head::has_close_token(field.value);
        } else if [CONTENT_LENGTH, TRANSFER_ENCODING, EXPECT, UPGRADE]
            .iter()
            .any(|hyper_s| is(hyper_s.as_str()))
        {
            // A body (or the promise of one) and a change of protocol are hyper's.
            return not_ours();
        }
    }
    let head = read.split_to(len).freeze();
    // The same parser hyper gives the target to, so what it rejects goes to it.
    let Ok(target) = PathAndQuery::from_maybe_shared(head.slice(from..to)) else {
        return Next::NotOurs(head);
    };
    headers.clear();
    for &(known, (from, to)) in spans.iter() {
        let Ok(value) = HeaderValue::from_maybe_shared(head.slice(from..to)) else {
            return Next::NotOurs(head);
        };
        headers.append(READ_FIELDS[known].clone(), value);
    }
    let request_head = RequestHead::new(
        &method,
        target.path(),
        target.query(),
        Version::HTTP_11,
        headers,
    );
    let answer = assets.answer_borrowed(request_head, Claim::Hits);
    // The values are slices of `head`: let them go now, so that the read buffer is
    // the connection's alone again and its next `reserve` reclaims it in place rather
    // than allocating another.
    headers.clear();
    match answer {
        Some(answer) => Next::Hit(Hit {
            method,
            close,
            answer,
        }),
        None => Next::NotOurs(head),
    }
}

/// Reads more of the stream into `read`. `false` when the connection is to close: the
/// client closed it or failed, the deadline passed, or a shutdown started with no
/// request begun.
async fn fill(
    stream: &mut TcpStream,
    read: &mut BytesMut,
    deadline: &mut Deadline,
    mut stop: Pin<&mut impl Future<Output = ()>>,
    stopping: &mut bool,
) -> bool {
    read.reserve(READ_SIZE);
    poll_fn(|cx| {
        loop {
            match stream.poll_read_ready(cx) {
                Poll::Ready(Ok(())) => {
                    let room = read.capacity() - read.len();
                    match stream.try_read_buf(read) {
                        Ok(0) => return Poll::Ready(false),
                        Ok(n) => {
                            // Less than there was room for: the socket has nothing
                            // left to read now.
                            if n < room {
                                clear_readiness(stream, Interest::READABLE);
                            }
                            return Poll::Ready(true);
                        }
                        Err(error) if error.kind() == io::ErrorKind::WouldBlock => continue,
                        Err(_) => return Poll::Ready(false),
                    }
                }
                Poll::Ready(Err(_)) => return Poll::Ready(false),
                Poll::Pending => break,
            }
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

/// How a response is written: to which method, whether it is the connection's last,
/// and whether an on-disk file goes whole with `sendfile` (`Server::sendfile_whole_files`).
#[derive(Clone, Copy)]
struct Writing<'a> {
    method: &'a Method,
    last: bool,
    sendfile_whole: bool,
}

/// Answers with `response`: into `batch` when its body is one run of bytes in memory,
/// else its head and the responses before it written at once, then the body's chunks
/// as they come.
async fn write_response(
    stream: &mut TcpStream,
    response: Response<Body>,
    writing: &Writing<'_>,
    batch: &mut Batch,
) -> io::Result<()> {
    let Writing {
        method,
        last,
        sendfile_whole,
    } = *writing;
    let (parts, body) = response.into_parts();
    let len = head::encode(
        parts.status,
        &parts.headers,
        head::body_len(&body),
        method,
        last,
        batch.head(),
    );
    if len == 0 {
        batch.push(Bytes::new());
        return Ok(());
    }
    let mut body = match body.into_bytes() {
        Ok(bytes) => {
            batch.push(bytes);
            return Ok(());
        }
        Err(body) => body,
    };
    batch.push(Bytes::new());
    batch.write(stream).await?;
    let (mut sent, mut gate) = send_file_front(stream, &mut body, sendfile_whole).await?;
    let mut body = pin!(body);
    while let Some(frame) = poll_fn(|cx| body.as_mut().poll_frame(cx)).await {
        // A body that fails (a file changed or unreadable mid-way) ends the connection
        // short of its `Content-Length`: the client cannot take it for the whole.
        let frame = frame.map_err(io::Error::other)?;
        if let Ok(data) = frame.into_data() {
            if sent + data.len() as u64 == len {
                if let Some(gate) = gate.take() {
                    gate.pass(sent).await?;
                }
            }
            stream.write_all(&data).await?;
            sent += data.len() as u64;
        }
    }
    if sent == len {
        Ok(())
    } else {
        Err(io::Error::from(io::ErrorKind::UnexpectedEof))
    }
}

/// Without `sendfile`, every byte goes as the body's chunks, and no gate is waited for.
#[cfg(not(target_os = "linux"))]
async fn send_file_front(_: &TcpStream, _: &mut Body, _: bool) -> io::Result<(u64, Option<Gate>)> {
    Ok((0, None))
}

/// Without `sendfile`, nothing to wait for.
#[cfg(not(target_os = "linux"))]
enum Gate {}

#[cfg(not(target_os = "linux"))]
impl Gate {
    async fn pass(self, _: u64) -> io::Result<()> {
        match self {}
    }
}

/// Sends the front of an on-disk file's body with `sendfile` (see `sendfile`).
#[cfg(target_os = "linux")]
async fn send_file_front(
    stream: &TcpStream,
    body: &mut Body,
    whole: bool,
) -> io::Result<(u64, Option<Gate>)> {
    match body.disk_mut() {
        Some(disk) => super::sendfile::send_front(stream, disk, whole).await,
        None => Ok((0, None)),
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Assets;

    static SITE: Assets = crate::embed_assets!("../examples/public");

    fn decide(request: &str) -> &'static str {
        let mut read = BytesMut::from(request.as_bytes());
        match next(&mut read, &mut Scratch::default(), &SITE.service()) {
            Next::Partial => {
                assert_eq!(
                    read.len(),
                    request.len(),
                    "a partial head stays in the buffer"
                );
                "partial"
            }
            Next::NotOurs(head) => {
                // What hyper is handed: every byte, in order.
                assert_eq!([&head[..], &read[..]].concat(), request.as_bytes());
                "hyper"
            }
            Next::Hit(_) => {
                assert!(read.is_empty(), "the head is split off the buffer");
                "hit"
            }
        }
    }

    #[test]
    fn plain_http_1_1_hits_are_answered_here_and_the_rest_handed_over() {
        let hit = "GET /css/app.css HTTP/1.1\r\nHost: localhost\r\n\r\n";
        assert_eq!(decide(hit), "hit");
        assert_eq!(
            decide("HEAD / HTTP/1.1\r\nHost: x\r\nRange: bytes=0-1\r\n\r\n"),
            "hit"
        );
        assert_eq!(
            decide("GET /about HTTP/1.1\r\nHost: x\r\n\r\n"),
            "hit",
            "a redirect"
        );
        for not_ours in [
            "GET /no/such/file HTTP/1.1\r\nHost: x\r\n\r\n",
            "POST /css/app.css HTTP/1.1\r\nHost: x\r\n\r\n",
            "GET /css/app.css HTTP/1.0\r\nHost: x\r\n\r\n",
            "GET /css/app.css HTTP/1.1\r\n\r\n",
            "GET /css/app.css HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n",
            "GET /css/app.css HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n",
            "GET /css/app.css HTTP/1.1\r\nHost: x\r\nUpgrade: h2c\r\n\r\n",
            "GET /css/app.css HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n\r\n",
            "GET http://x/css/app.css HTTP/1.1\r\nHost: x\r\n\r\n",
            "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
            "GET /css/app.css HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n",
            "GET /a\x7fb HTTP/1.1\r\nHost: x\r\n\r\n",
        ] {
            assert_eq!(decide(not_ours), "hyper", "{not_ours:?}");
        }
        assert_eq!(decide(&hit[..hit.len() - 2]), "partial");
        assert_eq!(decide("GE"), "partial");
    }

    #[test]
    fn a_pipelined_hit_consumes_its_own_head_only() {
        let first = "GET /css/app.css HTTP/1.1\r\nHost: localhost\r\n\r\n";
        let both = format!("{first}GET /js/app.js HTTP/1.1\r\nHost: localhost\r\n\r\n");
        let mut read = BytesMut::from(both.as_bytes());
        match next(&mut read, &mut Scratch::default(), &SITE.service()) {
            Next::Hit(_) => {}
            _ => panic!("a hit"),
        }
        assert_eq!(&read[..], &both.as_bytes()[first.len()..]);
    }

    #[test]
    fn a_connection_close_marks_the_last_response() {
        let request = "GET / HTTP/1.1\r\nHost: x\r\nConnection: keep-alive, close\r\n\r\n";
        match next(
            &mut BytesMut::from(request.as_bytes()),
            &mut Scratch::default(),
            &SITE.service(),
        ) {
            Next::Hit(hit) => assert!(hit.close),
            _ => panic!("a hit"),
        }
    }
}
