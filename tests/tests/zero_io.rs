//! Embedded assets are served with no file-system I/O: `fixture-server serve` answers
//! a few thousand requests in its own process while `strace`, attached after start-up,
//! records every syscall of every thread that names a path or reads from a descriptor.
//! None may touch a file (the sealed memory `embed_assets::serve` sends large bodies
//! from is not one). A control under the same tracer then fetches an on-disk asset
//! of the same server, and the tracer must catch its `openat` and `read`: a blind
//! tracer fails the test instead of passing it.
//!
//! Needs `strace` (`apt-get install strace`; `tests/run.sh` installs it) and the right
//! to trace a child process (root, or `ptrace_scope` 0).

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use bytes::Bytes;
use embed_assets::Encoding;
use http::header::{
    ACCEPT_ENCODING, CONTENT_LENGTH, CONTENT_RANGE, CONTENT_TYPE, IF_NONE_MATCH, RANGE,
};
use http::{HeaderName, Method, Request, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use integration_tests::{
    Reply, SITE, decode_body, encode_path, fixture, header, parse_multipart, public_fixture_paths,
};

/// What `strace` records: every syscall that takes a path (`%file`: `open`, `openat`,
/// the `stat` family, `access`, `readlink`, ...) and the syscalls that read or describe
/// an open descriptor; also accepts and socket writes, which show that the tracer saw
/// every connection and every response leave, whichever thread served it.
const TRACED: &str = "%file,read,pread64,readv,preadv,preadv2,fstat,sendfile,\
                      copy_file_range,splice,accept,accept4,write,writev,sendto,sendmsg";

/// The traced syscalls that send a response.
const WRITES: [&str; 4] = ["write", "writev", "sendto", "sendmsg"];

/// The traced syscalls that work on a descriptor: file I/O only when one of their
/// descriptors is a file.
const ON_DESCRIPTORS: [&str; 9] = [
    "read",
    "pread64",
    "readv",
    "preadv",
    "preadv2",
    "fstat",
    "sendfile",
    "copy_file_range",
    "splice",
];

/// What `strace -yy` prints for the sealed memory `serve` sends large embedded bodies
/// from with `sendfile` (`memfd_create`: memory, named by the kernel, no file system).
const BODY_PAGES: &str = "/memfd:embed-assets-bodies";

/// What `strace -yy` prints for descriptors that are not files: sockets, pipes, the
/// eventfd tokio's reactor is woken through, and the sealed memory of large bodies.
const NOT_FILES: [&str; 11] = [
    "TCP:",
    "TCPv6:",
    "UDP:",
    "UDPv6:",
    "UNIX:",
    "UNIX-STREAM:",
    "NETLINK:",
    "socket:[",
    "pipe:[",
    "anon_inode:[eventfd]",
    BODY_PAGES,
];

/// How many requests the traced phase sends, and how many it keeps in flight (each on a
/// keep-alive connection of one client).
const REQUESTS: usize = 3000;
const CONNECTIONS: usize = 8;

/// How long any one wait (for the server, the tracer, a response) may take.
const PATIENCE: Duration = Duration::from_secs(20);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serving_embedded_assets_makes_no_file_syscalls_while_a_disk_read_is_caught() {
    if integration_tests::programs::require(&["strace"], &[], "strace").is_none() {
        return;
    }
    let requests = requests();
    let server = Server::start();
    let addr = server.addr;

    let tracer = Tracer::attach(server.pid(), "embedded");
    let started = Instant::now();
    let served = send_all(addr, requests).await;
    let real = tracer.finish();
    let real_seconds = started.elapsed().as_secs_f64();

    // The control: the same server, the same tracer, one file that is on disk.
    let tracer = Tracer::attach(server.pid(), "control");
    let big = Probe::new(
        Method::GET,
        "/on-disk/big.bin",
        &[],
        Expect::Body(Arc::new(fixture("/big.bin"))),
    );
    let reply = big
        .send(&Client::builder(TokioExecutor::new()).build_http(), addr)
        .await;
    let control = tracer.finish();
    big.check(&reply);

    let control_io = file_io(&control);
    eprintln!(
        "control (GET /on-disk/big.bin): {} file syscalls seen, {} of them on big.bin; \
         {} traced syscalls in all",
        control_io.len(),
        control_io.iter().filter(|l| l.contains("big.bin")).count(),
        control.lines().count(),
    );
    let opened = control_io
        .iter()
        .any(|line| syscall(line) == Some("openat") && line.contains("/fixtures/site/big.bin\""));
    let read = control_io.iter().any(|line| {
        matches!(
            syscall(line),
            Some("read" | "pread64" | "readv" | "preadv" | "preadv2")
        ) && line.contains("/fixtures/site/big.bin>")
    });
    assert!(
        opened && read,
        "the tracer is blind: serving big.bin from disk must show an openat and a read of \
         it, but saw opened={opened} read={read} in:\n{control}"
    );

    let real_io = file_io(&real);
    let accepted = real
        .lines()
        .filter(|line| matches!(syscall(line), Some("accept" | "accept4")))
        .count();
    let writes = real
        .lines()
        .filter(|line| {
            syscall(line).is_some_and(|name| WRITES.contains(&name))
                && descriptors(line)
                    .first()
                    .is_some_and(|fd| fd.starts_with("TCP:"))
        })
        .count();
    eprintln!(
        "embedded: {served} requests on {accepted} connections in {real_seconds:.1} s, \
         {writes} socket writes, {} traced syscalls, {} of them file I/O",
        real.lines().count(),
        real_io.len(),
    );
    assert!(
        real_io.is_empty(),
        "serving embedded assets touched the file system {} times; the first ones:\n{}",
        real_io.len(),
        real_io[..real_io.len().min(20)].join("\n")
    );
    assert!(
        writes >= served,
        "the tracer saw {writes} socket writes for {served} responses: it missed threads"
    );
    // The client may open a few more connections than requests in flight (a new one
    // races each wait for an idle one); far fewer than requests is what keep-alive means.
    assert!(
        (1..=served / 20).contains(&accepted),
        "{accepted} connections accepted while tracing {served} requests: expected at least \
         1 (else the tracer missed the phase) and at most {} (keep-alive)",
        served / 20
    );
}

#[test]
fn the_trace_reader_flags_files_but_not_sockets_pipes_or_eventfds() {
    let trace = r#"
412 read(0</work/site/big.bin>, "\x89PNG", 4096) = 4096
412 openat(AT_FDCWD</work>, "/work/site/big.bin", O_RDONLY|O_CLOEXEC) = 10</work/site/big.bin>
412 statx(10</work/site/big.bin>, "", AT_STATX_SYNC_AS_STAT|AT_EMPTY_PATH, STATX_ALL, {}) = 0
412 pread64(10</a/file, with comma>, "", 4096, 0) = 0
412 read(7, "x", 1) = 1
413 read(9<TCP:[127.0.0.1:8080->127.0.0.1:40000]>, "GET /app.css 10</x> HTTP/1.1", 8192) = 30
413 read(4<anon_inode:[eventfd]>, "\1\0\0\0\0\0\0\0", 8) = 8
413 read(0<pipe:[123456]>,  <unfinished ...>
413 <... read resumed>"", 64) = 0
413 accept4(8<TCP:[127.0.0.1:8080]>, {sa_family=AF_INET}, [16], SOCK_CLOEXEC) = 9<TCP:[1]>
413 sendfile(9<TCP:[127.0.0.1:8080->127.0.0.1:40000]>, 10</work/site/big.bin>, NULL, 8) = 8
413 sendfile(9<TCP:[127.0.0.1:8080->127.0.0.1:40000]>, 11</memfd:embed-assets-bodies (deleted)>, [0] => [8], 8) = 8
413 +++ exited with 0 +++
"#;
    let flagged: Vec<&str> = file_io(trace).iter().filter_map(|l| syscall(l)).collect();
    assert_eq!(
        flagged,
        ["read", "openat", "statx", "pread64", "read", "sendfile"],
        "a read from a file, the path syscalls, a file whose path has a comma, a descriptor \
         strace could not name, and a sendfile from a file; not the socket, eventfd, pipe \
         or the sealed memory of large bodies"
    );
}

/// The lines of `trace` (`strace -f -yy` output) that touch the file system: any
/// syscall taking a path, and descriptor syscalls on a descriptor that is not a socket,
/// pipe or eventfd, or that strace could not name.
fn file_io(trace: &str) -> Vec<&str> {
    trace
        .lines()
        .filter(|line| match syscall(line) {
            None | Some("accept" | "accept4") => false,
            Some(name) if WRITES.contains(&name) => false,
            Some(name) if ON_DESCRIPTORS.contains(&name) => {
                let fds = descriptors(line);
                fds.is_empty()
                    || !fds
                        .iter()
                        .all(|fd| NOT_FILES.iter().any(|p| fd.starts_with(p)))
            }
            Some(_) => true,
        })
        .collect()
}

/// The syscall a trace line starts (without the `-f` pid prefix); `None` for the rest
/// of an interrupted call, exits and signals.
fn syscall(line: &str) -> Option<&str> {
    let line = line.trim_start_matches(|c: char| c.is_ascii_digit() || c == ' ');
    let line = line.strip_prefix("[pid").map_or(line, |rest| {
        rest.split_once(']')
            .map_or(rest, |(_, call)| call.trim_start())
    });
    let (name, _) = line.split_once('(')?;
    let is_name = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    is_name.then_some(name)
}

/// What `-yy` printed for each descriptor argument of a descriptor syscall
/// (`9<TCP:[...]>` gives `TCP:[...]`); read only up to the first string argument, whose
/// bytes could look like anything. A bare number means strace could not name it.
fn descriptors(line: &str) -> Vec<&str> {
    let Some((_, args)) = line.split_once('(') else {
        return Vec::new();
    };
    let args = args.split('"').next().unwrap_or_default();
    let mut found = Vec::new();
    let mut rest = args;
    while let Some(at) = rest.find(|c: char| c.is_ascii_digit()) {
        let after_digits = rest[at..].trim_start_matches(|c: char| c.is_ascii_digit());
        let preceded_by_separator = at == 0 || rest[..at].ends_with([' ', '(']);
        match after_digits.strip_prefix('<') {
            Some(named) if preceded_by_separator => {
                // The name ends at the `>` that closes this argument.
                let end = named
                    .find(">,")
                    .or_else(|| named.find(">)"))
                    .unwrap_or(named.len());
                found.push(&named[..end]);
                rest = &named[end..];
            }
            _ => {
                // The first argument is always a descriptor: unnamed means unknown.
                if found.is_empty() && at == 0 {
                    found.push("");
                }
                rest = after_digits;
            }
        }
    }
    found
}

/// `fixture-server serve` in its own process; killed on drop.
struct Server {
    child: Child,
    addr: SocketAddr,
}

impl Server {
    fn start() -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_fixture-server"))
            .arg("serve")
            // The server exits when this pipe closes, even if this process is killed.
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start fixture-server");
        let stdout = child.stdout.take().expect("piped stdout");
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("read the port");
        let port: u16 = line
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("fixture-server printed {line:?}, not a port"));
        Server {
            child,
            addr: SocketAddr::from(([127, 0, 0, 1], port)),
        }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `strace` attached to a running process and all its threads, writing to a file.
struct Tracer {
    child: Child,
    output: PathBuf,
    messages: mpsc::Receiver<String>,
}

impl Tracer {
    /// Attaches and returns once strace reports it is tracing every thread.
    ///
    /// # Panics
    /// If strace is missing, cannot attach, or says nothing within [`PATIENCE`].
    fn attach(pid: u32, name: &str) -> Self {
        let output = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("zero-io-{}-{name}.strace", std::process::id()));
        let _ = std::fs::remove_file(&output);
        let mut child = Command::new("strace")
            .args(["-f", "-yy", "-e"])
            .arg(format!("trace={TRACED}"))
            .arg("-o")
            .arg(&output)
            .args(["-p", &pid.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|err| {
                panic!(
                    "cannot run strace ({err}): this test needs it, `apt-get install strace` \
                     (tests/run.sh installs it)"
                )
            });
        // Keep reading strace's messages so it never blocks on a full pipe.
        let stderr = child.stderr.take().expect("piped stderr");
        let (sender, messages) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let mut tracer = Tracer {
            child,
            output,
            messages,
        };
        let deadline = Instant::now() + PATIENCE;
        let mut said = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match tracer.messages.recv_timeout(left) {
                // "strace: Process 4242 attached with 5 threads": all threads at once.
                Ok(line) if line.contains(&format!("Process {pid} attached")) => return tracer,
                Ok(line) => said.push(line),
                Err(_) => {
                    let status = tracer.child.try_wait().ok().flatten();
                    panic!(
                        "strace did not attach to {pid} (exit: {status:?}); it said:\n{}\n\
                         (tracing needs root or kernel.yama.ptrace_scope=0)",
                        said.join("\n")
                    );
                }
            }
        }
    }

    /// Detaches (SIGINT, as Ctrl-C would) and returns everything strace recorded.
    fn finish(mut self) -> String {
        let pid = self.child.id().to_string();
        let interrupted = Command::new("kill").args(["-INT", &pid]).status();
        assert!(
            interrupted.is_ok_and(|status| status.success()),
            "kill -INT {pid} failed"
        );
        let deadline = Instant::now() + PATIENCE;
        while self.child.try_wait().expect("wait for strace").is_none() {
            assert!(Instant::now() < deadline, "strace did not detach in time");
            std::thread::sleep(Duration::from_millis(20));
        }
        std::fs::read_to_string(&self.output).unwrap_or_else(|err| {
            panic!("cannot read strace output {}: {err}", self.output.display())
        })
    }
}

impl Drop for Tracer {
    fn drop(&mut self) {
        // Only still running if the test failed before `finish`.
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        let _ = std::fs::remove_file(&self.output);
    }
}

/// One request of the traced phase and what its response must be.
#[derive(Debug, Clone)]
struct Probe {
    method: Method,
    target: String,
    headers: Vec<(HeaderName, String)>,
    expect: Expect,
}

#[derive(Debug, Clone)]
enum Expect {
    /// 200 with these bytes once the content coding is undone.
    Body(Arc<Vec<u8>>),
    /// 200 to a HEAD: no body, this `Content-Length`.
    Head(usize),
    /// 206 with exactly these bytes and this `Content-Range`.
    Partial(Vec<u8>, String),
    /// 206 `multipart/byteranges` with these parts.
    Parts(Vec<Vec<u8>>),
    /// This status and an empty body (304) or any body (404, 301).
    Status(StatusCode),
}

impl Probe {
    fn new(method: Method, target: &str, headers: &[(HeaderName, &str)], expect: Expect) -> Self {
        Probe {
            method,
            target: target.to_owned(),
            headers: headers
                .iter()
                .map(|(name, value)| (name.clone(), (*value).to_owned()))
                .collect(),
            expect,
        }
    }

    fn check(&self, (status, headers, body): &Reply) {
        let what = format!("{} {} {:?}", self.method, self.target, self.headers);
        match &self.expect {
            Expect::Body(bytes) => {
                assert_eq!(*status, StatusCode::OK, "{what}");
                assert!(decode_body(headers, body) == **bytes, "{what}: wrong bytes");
            }
            Expect::Head(len) => {
                assert_eq!(*status, StatusCode::OK, "{what}");
                assert!(body.is_empty(), "{what}: HEAD with a body");
                assert_eq!(header(headers, CONTENT_LENGTH), Some(&*len.to_string()));
            }
            Expect::Partial(bytes, range) => {
                assert_eq!(*status, StatusCode::PARTIAL_CONTENT, "{what}");
                assert_eq!(
                    header(headers, CONTENT_RANGE),
                    Some(range.as_str()),
                    "{what}"
                );
                assert!(body[..] == bytes[..], "{what}: wrong bytes");
            }
            Expect::Parts(parts) => {
                assert_eq!(*status, StatusCode::PARTIAL_CONTENT, "{what}");
                let content_type = header(headers, CONTENT_TYPE).expect("Content-Type");
                let got: Vec<Vec<u8>> = parse_multipart(content_type, body)
                    .into_iter()
                    .map(|part| part.bytes)
                    .collect();
                assert_eq!(&got, parts, "{what}");
            }
            Expect::Status(expected) => {
                assert_eq!(status, expected, "{what}");
                if *expected == StatusCode::NOT_MODIFIED {
                    assert!(body.is_empty(), "{what}: 304 with a body");
                }
            }
        }
    }
}

/// [`REQUESTS`] requests over the fixture site: every file plain, gzip, br, HEAD,
/// revalidated (304) and ranged, plus directory, redirect, 404 and multipart cases,
/// repeated in order. The 3 MiB `big.bin` is fetched whole once, and otherwise by HEAD,
/// 304 and range.
fn requests() -> Vec<Probe> {
    let mut once = Vec::new();
    let mut round = Vec::new();
    for path in public_fixture_paths() {
        let bytes = Arc::new(fixture(&path));
        let target = encode_path(&path);
        let asset = SITE
            .get(&path)
            .unwrap_or_else(|| panic!("{path} is embedded"));
        assert!(asset.is_embedded(), "{path} must be embedded in SITE");
        let full = Expect::Body(Arc::clone(&bytes));
        if path == "/big.bin" {
            once.push(Probe::new(Method::GET, &target, &[], full));
        } else {
            round.push(Probe::new(Method::GET, &target, &[], full));
            for coding in ["gzip", "br;q=1, gzip;q=0.5"] {
                let expect = Expect::Body(Arc::clone(&bytes));
                round.push(Probe::new(
                    Method::GET,
                    &target,
                    &[(ACCEPT_ENCODING, coding)],
                    expect,
                ));
            }
        }
        round.push(Probe::new(
            Method::HEAD,
            &target,
            &[(ACCEPT_ENCODING, "br")],
            Expect::Head(
                asset
                    .body(Encoding::Brotli)
                    .map_or(bytes.len(), <[u8]>::len),
            ),
        ));
        round.push(Probe::new(
            Method::GET,
            &target,
            &[(IF_NONE_MATCH, asset.etag())],
            Expect::Status(StatusCode::NOT_MODIFIED),
        ));
        if bytes.len() >= 2 {
            let (start, end) = (1, (bytes.len() - 1).min(100));
            round.push(Probe::new(
                Method::GET,
                &target,
                &[(RANGE, &format!("bytes={start}-{end}"))],
                Expect::Partial(
                    bytes[start..=end].to_vec(),
                    format!("bytes {start}-{end}/{}", bytes.len()),
                ),
            ));
        }
    }
    let css = fixture("/css/app.css");
    round.extend([
        Probe::new(
            Method::GET,
            "/",
            &[(ACCEPT_ENCODING, "br")],
            Expect::Body(Arc::new(fixture("/index.html"))),
        ),
        Probe::new(
            Method::GET,
            "/docs/",
            &[],
            Expect::Body(Arc::new(fixture("/docs/index.html"))),
        ),
        Probe::new(
            Method::GET,
            "/docs",
            &[],
            Expect::Status(StatusCode::MOVED_PERMANENTLY),
        ),
        Probe::new(
            Method::GET,
            "/no/such/file.css",
            &[],
            Expect::Status(StatusCode::NOT_FOUND),
        ),
        Probe::new(
            Method::GET,
            "/.env",
            &[],
            Expect::Status(StatusCode::NOT_FOUND),
        ),
        Probe::new(
            Method::GET,
            "/css/app.css",
            &[(RANGE, "bytes=0-9,100-109")],
            Expect::Parts(vec![css[0..10].to_vec(), css[100..110].to_vec()]),
        ),
    ]);
    let mut all = once;
    all.extend(round.iter().cycle().take(REQUESTS - all.len()).cloned());
    all
}

/// Sends every request over [`CONNECTIONS`] keep-alive connections (one client, that
/// many requests in flight) and checks each response; returns how many were sent.
async fn send_all(addr: SocketAddr, requests: Vec<Probe>) -> usize {
    let client = Client::builder(TokioExecutor::new()).build_http::<Full<Bytes>>();
    let requests = Arc::new(requests);
    let mut workers = Vec::new();
    for worker in 0..CONNECTIONS {
        let (client, requests) = (client.clone(), Arc::clone(&requests));
        workers.push(tokio::spawn(async move {
            for probe in requests.iter().skip(worker).step_by(CONNECTIONS) {
                probe.check(&probe.send(&client, addr).await);
            }
        }));
    }
    for worker in workers {
        worker.await.expect("a request failed its check");
    }
    requests.len()
}

type HttpClient = Client<HttpConnector, Full<Bytes>>;

impl Probe {
    /// Sends the request to `addr` with `client` and reads the whole response.
    async fn send(&self, client: &HttpClient, addr: SocketAddr) -> Reply {
        let mut request = Request::builder()
            .method(self.method.clone())
            .uri(format!("http://{addr}{}", self.target));
        for (name, value) in &self.headers {
            request = request.header(name, value);
        }
        let request = request
            .body(Full::new(Bytes::new()))
            .expect("valid request");
        let exchange = async {
            let response = client.request(request).await.expect("HTTP request");
            let (parts, body) = response.into_parts();
            let body = body.collect().await.expect("response body").to_bytes();
            (parts.status, parts.headers, body)
        };
        tokio::time::timeout(PATIENCE, exchange)
            .await
            .unwrap_or_else(|_| panic!("{} {}: no response in time", self.method, self.target))
    }
}
