//! `embed_assets::Server`, the library's own server, on `127.0.0.1:0`: its workers all
//! accept, a request the assets do not claim reaches the application, a shutdown
//! refuses new connections and lets the responses in flight finish, and the header-read
//! timeout, the idle timeout and the connection cap bound what clients can hold.
//! (Its HTTP answers are the HTTP tests', run with `EMBED_TEST_FRAMEWORK=serve`.)
//!
//! Clients are blocking sockets with read timeouts, so that a server that does not
//! answer fails the test instead of hanging it.

use std::collections::BTreeSet;
use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use axum::Router;
use axum::routing::get;
use embed_assets::{Assets, ServeAssets, Server, ShutdownHandle, embed_assets};
use http::StatusCode;
use integration_tests::{SITE, fixture, noise};

/// How long any read of a response may take before the test fails.
const READ_TIMEOUT: Duration = Duration::from_secs(10);

/// A server serving on a thread of its own; shut down and joined when dropped.
struct Running {
    addr: SocketAddr,
    stop: ShutdownHandle,
    thread: Option<JoinHandle<std::io::Result<()>>>,
}

impl Running {
    fn start(server: Server, app: Router) -> Self {
        Running::start_with(server, SITE.service(), app)
    }

    fn start_with(server: Server, service: ServeAssets, app: Router) -> Self {
        let server = server.shutdown_on_signals(false);
        let addr = server.local_addr();
        let stop = server.shutdown_handle();
        let thread = std::thread::spawn(move || server.serve(service, app));
        Running {
            addr,
            stop,
            thread: Some(thread),
        }
    }

    /// Waits for `serve` to return, for at most `limit`.
    ///
    /// # Panics
    /// When it has not returned by then, or returned an error.
    fn join_within(&mut self, limit: Duration) {
        let thread = self.thread.take().expect("joined once");
        let began = Instant::now();
        while !thread.is_finished() {
            assert!(
                began.elapsed() < limit,
                "serve did not return within {limit:?}"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        thread
            .join()
            .expect("the serving thread panicked")
            .expect("serve returned an error");
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop.shutdown();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn loopback() -> Server {
    Server::bind("127.0.0.1:0").expect("bind 127.0.0.1:0")
}

fn connect(addr: SocketAddr) -> TcpStream {
    let stream = TcpStream::connect_timeout(&addr, READ_TIMEOUT).expect("connect");
    stream
        .set_read_timeout(Some(READ_TIMEOUT))
        .expect("read timeout");
    stream
}

/// One response read off `stream`: its status, its head as text, its body (by
/// `Content-Length`, which every response here has).
fn read_response(stream: &mut TcpStream) -> (StatusCode, String, Vec<u8>) {
    let head = read_head(stream).to_ascii_lowercase();
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse::<u16>().ok())
        .and_then(|code| StatusCode::from_u16(code).ok())
        .unwrap_or_else(|| panic!("status line of {head:?}"));
    let length: usize = head
        .lines()
        .find_map(|line| line.strip_prefix("content-length:"))
        .map(|value| value.trim().parse().expect("content-length"))
        .unwrap_or_else(|| panic!("no content-length in {head:?}"));
    let mut body = vec![0; length];
    stream.read_exact(&mut body).expect("read the body");
    (status, head, body)
}

/// A response's head, byte by byte up to its empty line (nothing of the body read).
fn read_head(stream: &mut TcpStream) -> String {
    let mut received = Vec::new();
    let mut byte = [0u8; 1];
    while !received.ends_with(b"\r\n\r\n") {
        let n = stream.read(&mut byte).expect("read the response head");
        assert_eq!(
            n,
            1,
            "closed in the head: {:?}",
            String::from_utf8_lossy(&received)
        );
        received.push(byte[0]);
    }
    String::from_utf8(received).expect("ASCII head")
}

/// `GET path` on a new connection, closed after the response.
fn get_once(addr: SocketAddr, path: &str) -> (StatusCode, String, Vec<u8>) {
    let mut stream = connect(addr);
    let request = format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    stream
        .write_all(request.as_bytes())
        .expect("write the request");
    read_response(&mut stream)
}

/// `GET path` on `stream`, which stays open.
fn get_on(stream: &mut TcpStream, path: &str) -> (StatusCode, String, Vec<u8>) {
    let request = format!("GET {path} HTTP/1.1\r\nHost: localhost\r\n\r\n");
    stream
        .write_all(request.as_bytes())
        .expect("write the request");
    read_response(stream)
}

/// Whether the server closed `stream` (end of stream or a reset) within `limit`.
fn closed_within(stream: &mut TcpStream, limit: Duration) -> bool {
    stream.set_read_timeout(Some(limit)).expect("read timeout");
    let mut sink = [0u8; 4096];
    loop {
        match stream.read(&mut sink) {
            Ok(0) => return true,
            // A status line (a 408) before the end is allowed; keep reading.
            Ok(_) => {}
            Err(error) if matches!(error.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                return false;
            }
            Err(_) => return true,
        }
    }
}

#[test]
fn port_0_binds_every_worker_to_one_port_and_each_accepts() {
    let app = Router::new().route(
        "/worker",
        get(|| async {
            std::thread::current()
                .name()
                .unwrap_or("unnamed")
                .to_owned()
        }),
    );
    let server = loopback().workers(2);
    let addr = server.local_addr();
    assert_ne!(addr.port(), 0, "the port the system picked");
    let running = Running::start(server, app);
    // SO_REUSEPORT spreads connections by a hash of their addresses: over 64
    // connections from new ports, both of two workers get some (all but 2^-63 of the
    // time).
    let mut workers = BTreeSet::new();
    for _ in 0..64 {
        let (status, _, body) = get_once(running.addr, "/worker");
        assert_eq!(status, StatusCode::OK);
        workers.insert(String::from_utf8(body).expect("thread name"));
    }
    let expected: BTreeSet<String> = ["embed-serve-0", "embed-serve-1"].map(String::from).into();
    assert_eq!(workers, expected, "the threads that answered");
}

#[test]
fn the_assets_answer_hits_and_the_application_everything_else() {
    let seen = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&seen);
    let app = Router::new()
        .route("/api/health", get(|| async { "ok" }))
        .fallback(|| async { (StatusCode::NOT_FOUND, "the application's 404") })
        .layer(axum::middleware::from_fn(
            move |request: axum::extract::Request, next: axum::middleware::Next| {
                counted.fetch_add(1, Ordering::SeqCst);
                next.run(request)
            },
        ));
    let running = Running::start(loopback().workers(1), app);

    let (status, head, body) = get_once(running.addr, "/tiny.txt");
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body, fixture("/tiny.txt"));
    assert!(
        head.contains("\r\netag: \""),
        "the assets' strong ETag: {head}"
    );
    assert_eq!(
        seen.load(Ordering::SeqCst),
        0,
        "a hit never reaches the application"
    );

    let (status, _, body) = get_once(running.addr, "/api/health");
    assert_eq!((status, body.as_slice()), (StatusCode::OK, &b"ok"[..]));
    let (status, _, body) = get_once(running.addr, "/no/such/file.txt");
    assert_eq!(
        (status, body.as_slice()),
        (StatusCode::NOT_FOUND, &b"the application's 404"[..])
    );
    // A method the assets do not serve, at an asset's path: the application's too.
    let mut stream = connect(running.addr);
    stream
        .write_all(b"DELETE /tiny.txt HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        .expect("write the request");
    let (status, _, body) = read_response(&mut stream);
    assert_eq!(
        (status, body.as_slice()),
        (StatusCode::NOT_FOUND, &b"the application's 404"[..])
    );
    assert_eq!(
        seen.load(Ordering::SeqCst),
        3,
        "every miss reached the application"
    );
}

#[test]
fn a_shutdown_refuses_new_connections_and_finishes_the_responses_in_flight() {
    const SIZE: usize = 1 << 20;
    let started = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&started);
    let app = Router::new().route(
        "/slow",
        get(move || {
            counted.fetch_add(1, Ordering::SeqCst);
            async {
                tokio::time::sleep(Duration::from_millis(800)).await;
                "x".repeat(SIZE)
            }
        }),
    );
    let mut running = Running::start(loopback().workers(2), app);
    let addr = running.addr;

    let mut slow = connect(addr);
    slow.write_all(b"GET /slow HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .expect("write the request");
    let began = Instant::now();
    while started.load(Ordering::SeqCst) == 0 {
        assert!(
            began.elapsed() < READ_TIMEOUT,
            "the slow request never started"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    running.stop.shutdown();

    // The listeners close first: connecting is refused well before the slow response
    // is done.
    let began = Instant::now();
    loop {
        match TcpStream::connect_timeout(&addr, Duration::from_secs(1)) {
            Err(error) if error.kind() == ErrorKind::ConnectionRefused => break,
            _ if began.elapsed() > Duration::from_secs(5) => {
                panic!("still accepting connections 5 s after the shutdown started")
            }
            _ => std::thread::sleep(Duration::from_millis(10)),
        }
    }

    // The response in flight arrives whole, and its connection is closed after it.
    let (status, head, body) = read_response(&mut slow);
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body.len(), SIZE);
    assert!(head.contains("\r\nconnection: close\r\n"), "{head}");
    assert!(closed_within(&mut slow, Duration::from_secs(5)));
    running.join_within(Duration::from_secs(10));
}

#[test]
fn a_shutdown_ends_idle_connections_at_once_and_serve_returns() {
    let mut running = Running::start(loopback().workers(2), Router::new());
    let mut idle = connect(running.addr);
    let (status, _, _) = get_on(&mut idle, "/tiny.txt");
    assert_eq!(status, StatusCode::OK);
    let began = Instant::now();
    running.stop.shutdown();
    assert!(closed_within(&mut idle, Duration::from_secs(5)));
    running.join_within(Duration::from_secs(5));
    assert!(
        began.elapsed() < Duration::from_secs(5),
        "{:?}",
        began.elapsed()
    );
}

#[test]
fn a_client_that_sends_half_a_request_line_is_disconnected_after_the_header_timeout() {
    let timeout = Duration::from_millis(500);
    let server = loopback().workers(1).header_read_timeout(timeout);
    let running = Running::start(server, Router::new());

    let mut half = connect(running.addr);
    half.write_all(b"GET /tiny.t")
        .expect("write half a request line");
    let began = Instant::now();
    assert!(
        closed_within(&mut half, Duration::from_secs(5)),
        "still open after 5 s"
    );
    let took = began.elapsed();
    assert!(
        took >= timeout - Duration::from_millis(100),
        "closed after {took:?}"
    );

    // A client that sends nothing at all, before the server knows the HTTP version.
    let mut silent = connect(running.addr);
    let began = Instant::now();
    assert!(
        closed_within(&mut silent, Duration::from_secs(5)),
        "still open after 5 s"
    );
    let took = began.elapsed();
    assert!(
        took >= timeout - Duration::from_millis(100),
        "closed after {took:?}"
    );

    // Others are served all along.
    assert_eq!(get_once(running.addr, "/tiny.txt").0, StatusCode::OK);
}

#[test]
fn an_idle_keep_alive_connection_is_closed_after_the_idle_timeout() {
    let server = loopback()
        .workers(1)
        .header_read_timeout(Duration::from_secs(30))
        .idle_timeout(Duration::from_millis(400));
    let running = Running::start(server, Router::new());
    let mut stream = connect(running.addr);
    for _ in 0..3 {
        // Requests closer together than the timeout keep the connection.
        assert_eq!(get_on(&mut stream, "/tiny.txt").0, StatusCode::OK);
        std::thread::sleep(Duration::from_millis(150));
    }
    let began = Instant::now();
    assert!(
        closed_within(&mut stream, Duration::from_secs(5)),
        "still open after 5 s"
    );
    assert!(
        began.elapsed() < Duration::from_secs(2),
        "{:?}",
        began.elapsed()
    );
}

#[tokio::test]
async fn an_idle_http2_connection_is_closed_after_the_idle_timeout() {
    use http_body_util::{BodyExt, Empty};
    use hyper_util::rt::{TokioExecutor, TokioIo};

    let server = loopback()
        .workers(1)
        .idle_timeout(Duration::from_millis(400));
    let running = Running::start(server, Router::new());
    let stream = tokio::net::TcpStream::connect(running.addr)
        .await
        .expect("connect");
    let (mut sender, connection) =
        hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(stream))
            .await
            .expect("HTTP/2 handshake");
    let connection = tokio::spawn(connection);
    let request = http::Request::get(format!("http://{}/tiny.txt", running.addr))
        .body(Empty::<bytes::Bytes>::new())
        .expect("request");
    let response = sender.send_request(request).await.expect("response");
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.version(), http::Version::HTTP_2);
    let body = response
        .into_body()
        .collect()
        .await
        .expect("body")
        .to_bytes();
    assert_eq!(body.as_ref(), fixture("/tiny.txt"));

    // The server ends the connection (a GOAWAY, then the close), and the client's
    // connection task returns.
    let ended = tokio::time::timeout(Duration::from_secs(5), connection).await;
    assert!(
        ended.is_ok(),
        "the idle HTTP/2 connection is still open after 5 s"
    );
}

#[test]
fn a_worker_at_its_connection_cap_accepts_again_when_one_closes() {
    let server = loopback().workers(1).max_connections(2);
    let running = Running::start(server, Router::new());
    let mut first = connect(running.addr);
    let mut second = connect(running.addr);
    assert_eq!(get_on(&mut first, "/tiny.txt").0, StatusCode::OK);
    assert_eq!(get_on(&mut second, "/tiny.txt").0, StatusCode::OK);

    // The third connects (the kernel's backlog takes it) but is not served.
    let mut third = connect(running.addr);
    third
        .write_all(b"GET /tiny.txt HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .expect("write the request");
    third
        .set_read_timeout(Some(Duration::from_millis(500)))
        .expect("read timeout");
    let mut byte = [0u8; 1];
    let waited = third.read(&mut byte);
    assert!(
        matches!(&waited, Err(error) if matches!(error.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut)),
        "served beyond the cap: {waited:?}"
    );

    // One closes: the third is accepted and answered.
    drop(first);
    third
        .set_read_timeout(Some(READ_TIMEOUT))
        .expect("read timeout");
    let (status, _, body) = read_response(&mut third);
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body, fixture("/tiny.txt"));
    // And the second is still served.
    assert_eq!(get_on(&mut second, "/tiny.txt").0, StatusCode::OK);
}

/// Set in the child process of [`sigterm_starts_a_graceful_shutdown`], which serves with
/// the signal handlers on (they stay for the rest of a process, so not in this one).
const SIGNAL_CHILD: &str = "EMBED_TEST_SERVE_SIGNAL_CHILD";

#[cfg(unix)]
#[test]
fn sigterm_starts_a_graceful_shutdown() {
    use std::io::BufRead;
    use std::process::{Command, Stdio};

    if std::env::var_os(SIGNAL_CHILD).is_some() {
        // The child: serves until SIGTERM, then says so.
        let app = Router::new().route(
            "/slow",
            get(|| async {
                tokio::time::sleep(Duration::from_millis(800)).await;
                "slow"
            }),
        );
        let server = loopback().workers(2);
        println!("listening on {}", server.local_addr());
        server.serve(SITE.service(), app).expect("serve");
        println!("serve returned");
        return;
    }

    let mut child = Command::new(std::env::current_exe().expect("this test binary"))
        .args([
            "--exact",
            "sigterm_starts_a_graceful_shutdown",
            "--nocapture",
        ])
        .env(SIGNAL_CHILD, "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start the child");
    let mut lines = std::io::BufReader::new(child.stdout.take().expect("piped stdout")).lines();
    let addr: SocketAddr = lines
        .by_ref()
        .map_while(Result::ok)
        .find_map(|line| line.strip_prefix("listening on ").map(str::to_owned))
        .expect("the child's address")
        .parse()
        .expect("a socket address");

    // An answer means `serve` runs, so its handlers are installed (before any worker
    // starts): the signal cannot find the default action, which would end the child.
    assert_eq!(get_once(addr, "/tiny.txt").0, StatusCode::OK);
    let mut slow = connect(addr);
    slow.write_all(b"GET /slow HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .expect("write the request");
    // Long enough for the request to be in flight, well within the handler's 800 ms.
    std::thread::sleep(Duration::from_millis(200));
    let killed = Command::new("sh")
        .args(["-c", &format!("kill -TERM {}", child.id())])
        .status()
        .expect("run kill");
    assert!(killed.success());

    let (status, _, body) = read_response(&mut slow);
    assert_eq!((status, body.as_slice()), (StatusCode::OK, &b"slow"[..]));
    let began = Instant::now();
    let exit = loop {
        if let Some(exit) = child.try_wait().expect("wait for the child") {
            break exit;
        }
        if began.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            panic!("the child still serves 10 s after SIGTERM");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    assert!(exit.success(), "{exit:?}");
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    assert!(rest.iter().any(|line| line == "serve returned"), "{rest:?}");
}

/// One response as bytes: its status line and fields in the order sent (`date` left
/// out, its presence checked), and its body: by `Content-Length`, none for a HEAD or a
/// 304.
fn read_exchange(stream: &mut TcpStream, head_request: bool) -> (Vec<String>, Vec<u8>) {
    let head = read_head(stream);
    let lines: Vec<String> = head
        .lines()
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect();
    assert!(
        lines
            .iter()
            .any(|l| l.to_ascii_lowercase().starts_with("date: ")),
        "no Date: {head}"
    );
    let length = lines
        .iter()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("content-length: ")
                .map(String::from)
        })
        .map_or(0, |value| value.trim().parse().expect("content-length"));
    let no_body = head_request || lines[0].starts_with("HTTP/1.1 304 ");
    let mut body = vec![0; if no_body { 0 } else { length }];
    stream.read_exact(&mut body).expect("read the body");
    let lines = lines
        .into_iter()
        .filter(|l| !l.to_ascii_lowercase().starts_with("date: "))
        .collect();
    (lines, body)
}

/// The same application behind `with_fallback` under `axum::serve` (hyper's HTTP/1.1),
/// the set-up `serve` must answer exactly as.
fn reference_server(app: Router) -> SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("address");
    listener.set_nonblocking(true).expect("nonblocking");
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
            let service = SITE.service().with_fallback(app);
            axum::serve(listener, service.into_make_service())
                .await
                .expect("axum::serve");
        });
    });
    addr
}

/// Requests whose answers must match, each on a connection of its own: hits (answered
/// by `serve` before hyper), their conditional, range and negotiated forms, and misses.
const COMPARED: &[&str] = &[
    "GET /index.html HTTP/1.1\r\nHost: localhost\r\n\r\n",
    "GET / HTTP/1.1\r\nHost: localhost\r\nAccept-Encoding: gzip, deflate, br, zstd\r\n\r\n",
    "GET /css/app.css HTTP/1.1\r\nHost: localhost\r\nAccept-Encoding: gzip, deflate, br, zstd\r\n\r\n",
    "GET /js/app.js HTTP/1.1\r\nHost: localhost\r\nAccept-Encoding: gzip\r\n\r\n",
    "HEAD /js/app.js HTTP/1.1\r\nHost: localhost\r\nAccept-Encoding: br\r\n\r\n",
    "HEAD / HTTP/1.1\r\nHost: localhost\r\n\r\n",
    "GET /tiny.txt HTTP/1.1\r\nHost: localhost\r\nIf-None-Match: *\r\n\r\n",
    "GET /tiny.txt HTTP/1.1\r\nHost: localhost\r\nIf-Match: \"nope\"\r\n\r\n",
    "GET /tiny.txt?v=1&x HTTP/1.1\r\nhost: localhost\r\nconnection: keep-alive\r\n\r\n",
    "GET /tiny.txt HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
    "GET /tiny.txt HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive, Close\r\n\r\n",
    "GET /empty.txt HTTP/1.1\r\nHost: localhost\r\n\r\n",
    "GET /image.png HTTP/1.1\r\nHost: localhost\r\nRange: bytes=0-9\r\n\r\n",
    "GET /image.png HTTP/1.1\r\nHost: localhost\r\nRange: bytes=0-1,5-6\r\n\r\n",
    "GET /image.png HTTP/1.1\r\nHost: localhost\r\nRange: bytes=99999999-\r\n\r\n",
    "GET /docs HTTP/1.1\r\nHost: localhost\r\n\r\n",
    "GET /docs/ HTTP/1.1\r\nHost: localhost\r\n\r\n",
    "GET /caf%C3%A9.txt HTTP/1.1\r\nHost: localhost\r\n\r\n",
    "GET /big.bin HTTP/1.1\r\nHost: localhost\r\nRange: bytes=-100\r\n\r\n",
    "GET /big.bin HTTP/1.1\r\nHost: localhost\r\n\r\n",
    // A browser's navigation: many fields, most of them not read by the service.
    "GET /index.html HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\
     sec-ch-ua: \"Chromium\";v=\"156\"\r\nsec-ch-ua-mobile: ?0\r\nUpgrade-Insecure-Requests: 1\r\n\
     User-Agent: Mozilla/5.0 (X11; Linux x86_64) Chrome/156.0.0.0\r\n\
     Accept: text/html,application/xhtml+xml,*/*;q=0.8\r\nSec-Fetch-Mode: navigate\r\n\
     Accept-Encoding: gzip, deflate, br, zstd\r\nAccept-Language: en-US,en;q=0.9\r\n\
     If-Modified-Since: Thu, 01 Jan 2099 00:00:00 GMT\r\n\r\n",
    "GET /css/app.css HTTP/1.1\r\nhOsT: localhost\r\nACCEPT-ENCODING: br\r\nX-Custom: a\r\n\
     range: bytes=5-9\r\nIf-Range: \"nope\"\r\n\r\n",
    // Misses and what is not plain HTTP/1.1: hyper and the application on both.
    "GET /no/such/file.txt HTTP/1.1\r\nHost: localhost\r\n\r\n",
    "POST /tiny.txt HTTP/1.1\r\nHost: localhost\r\nContent-Length: 3\r\n\r\nabc",
    "GET /tiny.txt HTTP/1.1\r\n\r\n",
    "GET /tiny.txt HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
    "GET /tiny.txt HTTP/1.0\r\nHost: localhost\r\n\r\n",
    "GET /tiny.txt HTTP/1.0\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n",
    "GET http://localhost/tiny.txt HTTP/1.1\r\nHost: localhost\r\n\r\n",
    "GET /tiny.txt HTTP/1.1\r\nHost: localhost\r\nExpect: 100-continue\r\n\r\n",
];

#[test]
fn every_answer_of_serve_is_the_answer_of_with_fallback_under_axum_serve() {
    let app = || {
        Router::new()
            .route("/api/health", get(|| async { "ok" }))
            .fallback(|| async { (StatusCode::NOT_FOUND, "the application's 404") })
    };
    let running = Running::start(loopback().workers(1), app());
    let reference = reference_server(app());
    for request in COMPARED {
        let head_request = request.starts_with("HEAD ");
        let answer = |addr| {
            let mut stream = connect(addr);
            stream
                .write_all(request.as_bytes())
                .expect("write the request");
            read_exchange(&mut stream, head_request)
        };
        let (ours, theirs) = (answer(running.addr), answer(reference));
        assert_eq!(ours.0, theirs.0, "the heads of {request:?}");
        assert!(ours.1 == theirs.1, "the bodies of {request:?}");
    }

    // Pipelined in one write: more hits than the fast path writes at once (in memory,
    // HEADs, 304s, 416s, redirects, multipart ranges and an on-disk file among them),
    // then a miss, hits again, and a last request that closes: answered in order, the
    // same bytes, and nothing after the close.
    let hits = [0, 1, 2, 3, 4, 5, 6, 7, 8, 11, 12, 13, 14, 15, 16, 17];
    let mut pipelined: Vec<&str> = hits.iter().map(|&i| COMPARED[i]).collect();
    pipelined.extend(hits.iter().rev().map(|&i| COMPARED[i]));
    pipelined.extend([COMPARED[18], COMPARED[19], COMPARED[2], COMPARED[4]]);
    let miss = COMPARED
        .iter()
        .find(|request| request.starts_with("GET /no/such/"))
        .expect("a miss");
    pipelined.extend([miss, COMPARED[0], COMPARED[6], COMPARED[9]]);
    let answers = |addr| {
        let mut stream = connect(addr);
        stream
            .write_all(pipelined.concat().as_bytes())
            .expect("write the requests");
        let answers = pipelined
            .iter()
            .map(|request| read_exchange(&mut stream, request.starts_with("HEAD ")))
            .collect::<Vec<_>>();
        let mut rest = Vec::new();
        stream.read_to_end(&mut rest).expect("read to the close");
        assert!(rest.is_empty(), "bytes after the last response: {rest:?}");
        answers
    };
    let (ours, theirs) = (answers(running.addr), answers(reference));
    assert_eq!(ours.len(), pipelined.len());
    for (i, (ours, theirs)) in ours.iter().zip(&theirs).enumerate() {
        assert_eq!(ours.0, theirs.0, "the heads of pipelined request {i}");
        assert!(ours.1 == theirs.1, "the bodies of pipelined request {i}");
    }
}

/// The fixture site with its files over 1 MiB read from a folder (`disk_root`), where
/// the test below writes `big.bin`.
static ON_DISK: Assets =
    embed_assets!("fixtures/site", max_embed_size = "1 MiB", on_disk = "allow");

/// The bytes at the end of an on-disk response that `serve` reads and checks rather
/// than hands to `sendfile` (`Server::sendfile_whole_files`): the kernel's largest send
/// buffer and receive window, as this kernel allows them, plus 3 MiB (one MiB of slack
/// and two chunks of the default 1 MiB).
#[cfg(target_os = "linux")]
fn copied_tail() -> usize {
    let read = |name: &str| {
        std::fs::read_to_string(format!("/proc/sys/net/{name}"))
            .unwrap_or_else(|err| panic!("/proc/sys/net/{name}: {err}"))
    };
    let limit = |tcp: &str, core: &str| {
        let autotuned: usize = read(tcp)
            .split_whitespace()
            .nth(2)
            .unwrap()
            .parse()
            .unwrap();
        let set: usize = read(core).trim().parse().unwrap();
        autotuned.max(2 * set)
    };
    limit("ipv4/tcp_wmem", "core/wmem_max") + limit("ipv4/tcp_rmem", "core/rmem_max") + (3 << 20)
}

/// What happens to the file while it is sent.
#[derive(Debug, Clone, Copy)]
enum Fault {
    /// Every byte written again in place, the same length (`dd conv=notrunc`).
    Overwritten,
    /// Cut to half its length.
    Truncated,
}

/// A large file goes out of the fast path with `sendfile`, whose socket holds the page
/// cache's pages, not copies: a write in place reaches bytes still queued. Whenever the
/// file changes, at whatever point of the download the client has read to (while it
/// has stopped reading, so the server filled every queue it could), the client gets
/// the whole original or a body cut short of its `Content-Length`, never a whole body
/// of mixed bytes. Here the client is on this machine: the server asks the kernel how
/// far behind it is, and copies no more than that.
#[cfg(target_os = "linux")]
#[test]
fn a_file_changed_while_sendfile_sends_it_never_arrives_whole_and_mixed() {
    let running_in = |dir: &std::path::Path| {
        Running::start_with(
            loopback().workers(1),
            ON_DISK.service().disk_root(dir),
            Router::new(),
        )
    };
    changed_while_sent("loopback", running_in, connect);
}

/// The same, with the client in another network namespace behind a virtual link, as a
/// container is: the server cannot see the client's socket, so the copied tail is as
/// long as the kernel's limits allow queues to be; the link, like loopback, hands the
/// page cache's pages to the client's socket.
#[cfg(target_os = "linux")]
#[test]
fn a_file_sent_to_another_namespace_while_it_changes_never_arrives_whole_and_mixed() {
    let Some(namespace) = Namespace::create() else {
        return;
    };
    let outside = namespace.outside;
    let running_in = |dir: &std::path::Path| {
        let server = Server::bind((outside, 0)).expect("bind the link's address");
        Running::start_with(
            server.workers(1),
            ON_DISK.service().disk_root(dir),
            Router::new(),
        )
    };
    changed_while_sent("another namespace", running_in, |addr| {
        namespace.run(|| connect(addr))
    });
}

/// A network namespace with a virtual link (veth) to this one, as a container has;
/// removed when dropped.
#[cfg(target_os = "linux")]
struct Namespace {
    name: String,
    ip: std::path::PathBuf,
    /// This namespace's end of the link.
    outside: std::net::Ipv4Addr,
}

#[cfg(target_os = "linux")]
impl Namespace {
    /// `None`, the calling test skipped, without `ip` or the right to make one.
    fn create() -> Option<Self> {
        let ip =
            integration_tests::programs::require(&["ip"], &["/usr/sbin", "/sbin"], "iproute2")?;
        let id = std::process::id() % 100_000;
        let name = format!("embed-assets-{id}");
        let run = |args: &[&str]| {
            std::process::Command::new(&ip)
                .args(args)
                .status()
                .is_ok_and(|status| status.success())
        };
        if !run(&["netns", "add", &name]) {
            integration_tests::programs::skip(
                "`ip netns add` failed: making a network namespace needs root",
            );
            return None;
        }
        let (octet, link) = ((id % 250) as u8, format!("ea{id}"));
        let namespace = Namespace {
            name,
            ip: ip.clone(),
            outside: std::net::Ipv4Addr::new(10, 213, octet, 1),
        };
        let inside = format!("10.213.{octet}.2/30");
        let outside = format!("{}/30", namespace.outside);
        let peer = format!("{link}b");
        for args in [
            &[
                "link",
                "add",
                &link,
                "type",
                "veth",
                "peer",
                "name",
                &peer,
                "netns",
                &namespace.name,
            ][..],
            &["addr", "add", &outside, "dev", &link],
            &["link", "set", &link, "up"],
            &["-n", &namespace.name, "addr", "add", &inside, "dev", &peer],
            &["-n", &namespace.name, "link", "set", &peer, "up"],
            &["-n", &namespace.name, "link", "set", "lo", "up"],
        ] {
            assert!(run(args), "ip {args:?} failed");
        }
        Some(namespace)
    }

    /// `work`'s result, run on a thread that entered the namespace (a socket made
    /// there stays in it).
    fn run<T: Send>(&self, work: impl FnOnce() -> T + Send) -> T {
        use std::os::fd::AsFd as _;
        std::thread::scope(|scope| {
            let thread = scope.spawn(|| {
                let handle = std::fs::File::open(format!("/run/netns/{}", self.name))
                    .expect("the namespace's handle");
                rustix::thread::move_into_link_name_space(
                    handle.as_fd(),
                    Some(rustix::thread::LinkNameSpaceType::Network),
                )
                .expect("enter the namespace");
                work()
            });
            thread
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        })
    }
}

#[cfg(target_os = "linux")]
impl Drop for Namespace {
    fn drop(&mut self) {
        // Its end of the link goes with it, and so the link.
        let _ = std::process::Command::new(&self.ip)
            .args(["netns", "del", &self.name])
            .status();
    }
}

/// The body of the two tests above: `running_in` starts the server on a folder,
/// `connect` connects the client.
#[cfg(target_os = "linux")]
fn changed_while_sent(
    client: &str,
    running_in: impl FnOnce(&std::path::Path) -> Running,
    connect: impl Fn(SocketAddr) -> TcpStream,
) {
    const MIB: usize = 1 << 20;
    // `sendfile` takes all but the copied tail: 12 MiB of it for a client whose
    // socket the server cannot see.
    let tail = copied_tail();
    let len = tail + 12 * MIB;
    let original = noise(len, 21);
    let changed = noise(len, 22);
    let dir = std::env::temp_dir().join(format!(
        "embed-assets-sendfile-{}-{}",
        std::process::id(),
        client.replace(' ', "-")
    ));
    std::fs::create_dir_all(&dir).expect("temp folder");
    let file = dir.join("big.bin");
    let running = running_in(&dir);
    let mut cut = 0;
    let mut new_bytes_seen = false;
    for (read_first, fault) in [
        (0, Fault::Overwritten),
        (4 * MIB, Fault::Overwritten),
        // The end of what `sendfile` sends, then inside the copied tail.
        (len - tail - MIB, Fault::Overwritten),
        (len - tail + 4 * MIB, Fault::Overwritten),
        (len - 6 * MIB, Fault::Overwritten),
        (len - MIB, Fault::Overwritten),
        (2 * MIB, Fault::Truncated),
        (len - 2 * MIB, Fault::Truncated),
    ] {
        // A new file (a rename over the last one), so the request opens the original.
        let fresh = dir.join("big.bin.new");
        std::fs::write(&fresh, &original).expect("write the file");
        std::fs::rename(&fresh, &file).expect("rename it into place");
        let mut stream = connect(running.addr);
        // `Connection: close`: a body sent whole ends with the connection, so the read
        // below does not wait for the idle timeout.
        stream
            .write_all(b"GET /big.bin HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            .expect("write the request");
        let head = read_head(&mut stream).to_ascii_lowercase();
        assert!(head.starts_with("http/1.1 200"), "{head}");
        assert!(
            head.contains(&format!("content-length: {len}\r\n")),
            "{head}"
        );
        let mut body = vec![0; read_first];
        stream.read_exact(&mut body).expect("the first bytes");
        // The client stops reading; the server fills the socket's queues.
        std::thread::sleep(Duration::from_millis(300));
        match fault {
            Fault::Overwritten => {
                let mut writer = std::fs::OpenOptions::new()
                    .write(true)
                    .open(&file)
                    .expect("open to write in place");
                writer.write_all(&changed).expect("overwrite in place");
            }
            Fault::Truncated => std::fs::OpenOptions::new()
                .write(true)
                .open(&file)
                .and_then(|writer| writer.set_len(len as u64 / 2))
                .expect("truncate"),
        }
        let mut rest = Vec::new();
        // The end of the connection, or a reset: the body ends where it ends.
        let _ = stream.read_to_end(&mut rest);
        body.extend_from_slice(&rest);
        assert!(
            body.len() < len || body == original,
            "{client}: read {read_first} bytes, then the file was {fault:?}: a whole body of \
             mixed bytes (first difference at byte {:?})",
            body.iter().zip(&original).position(|(a, b)| a != b)
        );
        if body.len() < len {
            cut += 1;
            assert!(body.len() > read_first.saturating_sub(1), "{fault:?}");
        }
        // Bytes of the new version that got through before the cut: the socket held
        // the file's own pages.
        new_bytes_seen |= body
            .iter()
            .zip(&original)
            .zip(&changed)
            .skip(read_first)
            .any(|((got, old), new)| got != old && got == new);
    }
    assert!(
        cut > 0,
        "{client}: no download was cut: the faults came too late to test anything"
    );
    assert!(
        new_bytes_seen,
        "{client}: no bytes of the new version reached the client: was the file sent with \
         sendfile?"
    );
    drop(running);
    std::fs::remove_dir_all(&dir).expect("remove the temp folder");
}

/// With `sendfile_whole_files`, every byte of an on-disk file goes with `sendfile`: a
/// download, a range of it, and a download during which the file is replaced by a
/// rename (the change that option is for) each arrive whole, of the version the
/// request opened.
#[cfg(target_os = "linux")]
#[test]
fn whole_files_with_sendfile_arrive_whole_even_when_replaced_by_a_rename() {
    const LEN: usize = 24 << 20;
    let original = noise(LEN, 31);
    let dir = std::env::temp_dir().join(format!("embed-assets-whole-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp folder");
    let file = dir.join("big.bin");
    std::fs::write(&file, &original).expect("write the file");
    let service = ON_DISK.service().disk_root(&dir);
    let server = loopback().workers(1).sendfile_whole_files(true);
    let running = Running::start_with(server, service, Router::new());

    let (status, _, body) = get_once(running.addr, "/big.bin");
    assert_eq!(status, StatusCode::OK);
    assert!(body == original, "the whole file");

    let mut stream = connect(running.addr);
    stream
        .write_all(
            b"GET /big.bin HTTP/1.1\r\nHost: localhost\r\nRange: bytes=1000-20000000\r\n\r\n",
        )
        .expect("write the request");
    let (status, _, body) = read_response(&mut stream);
    assert_eq!(status, StatusCode::PARTIAL_CONTENT);
    assert!(body == original[1000..=20_000_000], "the range");

    let mut stream = connect(running.addr);
    stream
        .write_all(b"GET /big.bin HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .expect("write the request");
    let head = read_head(&mut stream);
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    std::thread::sleep(Duration::from_millis(300));
    let fresh = dir.join("big.bin.new");
    std::fs::write(&fresh, noise(LEN, 32)).expect("write the new version");
    std::fs::rename(&fresh, &file).expect("rename it over the file");
    let mut body = vec![0; LEN];
    stream.read_exact(&mut body).expect("the whole body");
    assert!(body == original, "the version the request opened");
    drop(running);
    std::fs::remove_dir_all(&dir).expect("remove the temp folder");
}

#[test]
fn a_port_another_program_listens_on_is_refused_with_its_address() {
    // Another server of this library (its workers share a port with SO_REUSEPORT).
    let first = loopback();
    let addr = first.local_addr();
    let refused = Server::bind(addr).expect_err("a second server on the same port");
    assert_eq!(refused.kind(), std::io::ErrorKind::AddrInUse);
    assert!(
        refused.to_string().contains(&addr.to_string()) && refused.to_string().contains("in use"),
        "{refused}"
    );
    // Any other program's listener.
    let other = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let refused = Server::bind(other.local_addr().unwrap()).expect_err("a port in use");
    assert_eq!(refused.kind(), std::io::ErrorKind::AddrInUse);
    // Once the first server is gone, its port is free again.
    drop(first);
    let again = Server::bind(addr).expect("the port is free again");
    assert_eq!(again.local_addr(), addr);
}
