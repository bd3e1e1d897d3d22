//! Hostile input over real HTTP: a generated path-traversal corpus (thousands of
//! request targets, sent byte for byte on raw TCP, or TLS with `EMBED_TEST_TLS=1`)
//! against embedded, on-disk and dev-folder assets, and abusive request headers
//! (thousands of ranges, overflowing numbers, 64 KiB values, garbage q-values and
//! dates, repeated fields).
//!
//! Every file a traversal could reach holds a marker: the fixtures' own secrets, and
//! random markers written at run time beside each served root and in dotfiles inside
//! the temporary disk root. No response body may ever contain one.

use std::collections::BTreeMap;
use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use embed_assets::{Assets, ServeAssets, embed_assets};
use http::header::{
    CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_RANGE, CONTENT_TYPE, ETAG, LAST_MODIFIED, LOCATION,
};
use http::{HeaderMap, StatusCode};
use integration_tests::frameworks::Framework;
use integration_tests::{
    Reply, SITE, assert_no_secret, connect, contains, decode_body, fixture, get, header,
    parse_multipart, read_to_close, resolve_location, site_dir, site_service, spawn_service,
};
use tokio::io::AsyncWriteExt;
use tokio::task::JoinSet;

/// The fixture site with a 4 KiB limit: `big.bin`, `css/app.css`, `js/app.js` and
/// `image.png` are listed and read from disk, the rest is embedded.
static SMALL: Assets = embed_assets!(
    "fixtures/site",
    max_embed_size = "4 KiB",
    disk = ["css/app.css", "js/app.js"],
    on_disk = "allow"
);

/// The on-disk entries of [`SMALL`], relative to the site.
const ON_DISK: [&str; 4] = ["big.bin", "css/app.css", "js/app.js", "image.png"];

/// Requests in flight at once while the corpus runs.
const IN_FLIGHT: usize = 24;

/// How long one raw exchange may take.
const EXCHANGE_TIMEOUT: Duration = Duration::from_secs(20);

/// A random marker, fresh per run, so a leak cannot hide behind a known string.
fn random_marker(what: &str) -> String {
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u32(std::process::id());
    format!("HOSTILE-{what}-{:016x}", hasher.finish())
}

/// Files that must never be served, written for this run and removed on drop.
struct Secrets {
    /// Every marker planted.
    markers: Vec<String>,
    /// Files written outside the temporary root (beside the fixture site).
    beside_fixtures: PathBuf,
    /// The temporary folder: `root/` (a disk root and dev folder) and a secret beside it.
    temp: PathBuf,
}

impl Secrets {
    /// The name of the secret file beside each served root.
    fn beside_name() -> String {
        format!("hostile-secret-{}.txt", std::process::id())
    }

    fn plant(test: &str) -> Self {
        let mut markers = Vec::new();
        let mut write = |path: &Path, what: &str| {
            let marker = random_marker(what);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).unwrap();
            }
            std::fs::write(path, &marker).unwrap();
            markers.push(marker);
        };
        // Beside `tests/fixtures/site`, the build root on-disk entries are read from.
        let beside_fixtures = site_dir().parent().unwrap().join(Self::beside_name());
        write(&beside_fixtures, "BESIDE-FIXTURES");
        let temp =
            std::env::temp_dir().join(format!("embed-hostile-{}-{test}", std::process::id()));
        let _ = std::fs::remove_dir_all(&temp);
        let root = temp.join("root");
        std::fs::create_dir_all(&root).unwrap();
        write(&temp.join(Self::beside_name()), "BESIDE-TEMP-ROOT");
        write(&root.join(".env"), "TEMP-DOTENV");
        write(&root.join(".git/HEAD"), "TEMP-GIT-HEAD");
        write(&root.join(".hidden/secret.txt"), "TEMP-HIDDEN");
        write(&root.join("etc/passwd"), "TEMP-ETC-PASSWD-UNLISTED");
        // The file every server is first asked for (a folder served whole has only
        // what is in it).
        std::fs::copy(site_dir().join("tiny.txt"), root.join("tiny.txt")).unwrap();
        for file in ON_DISK {
            let to = root.join(file);
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::copy(site_dir().join(file), to).unwrap();
        }
        Secrets {
            markers,
            beside_fixtures,
            temp,
        }
    }

    fn root(&self) -> PathBuf {
        self.temp.join("root")
    }

    /// Fails if `body` holds a planted marker, a fixture secret, or the head of a
    /// well-known file a traversal would reach.
    fn assert_absent(&self, what: &str, body: &[u8]) {
        assert_no_secret(what, body);
        for marker in &self.markers {
            assert!(!contains(body, marker), "{what}: response leaks {marker}");
        }
        for foreign in ["root:x:0:0", "[package]", "gitdir:", "ref: refs/"] {
            assert!(
                !contains(body, foreign),
                "{what}: response holds {foreign:?}"
            );
        }
    }
}

impl Drop for Secrets {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.beside_fixtures);
        let _ = std::fs::remove_dir_all(&self.temp);
    }
}

/// What came back for one raw request.
#[derive(Debug)]
enum Outcome {
    Reply(Reply),
    /// The server closed the connection without a response.
    Closed,
}

/// Writes `request` on a fresh connection and reads to the end; tolerant of a server
/// that closes without answering (unlike the harness's `raw_request`).
async fn exchange(addr: SocketAddr, request: Vec<u8>) -> Outcome {
    let run = async {
        let mut stream = connect(addr).await;
        // A server may answer (431, 414) and close before reading all of a huge head.
        let _ = stream.write_all(&request).await;
        let _ = stream.flush().await;
        let mut received = Vec::new();
        let _ = read_to_close(&mut stream, &mut received).await;
        received
    };
    let received = tokio::time::timeout(EXCHANGE_TIMEOUT, run)
        .await
        .expect("a raw exchange took more than 20 s");
    match parse(&received) {
        Some(reply) => Outcome::Reply(reply),
        None => Outcome::Closed,
    }
}

/// Status, headers and the raw body (no de-chunking: only markers are looked for).
fn parse(received: &[u8]) -> Option<Reply> {
    let end = received.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = std::str::from_utf8(&received[..end]).ok()?;
    let mut lines = head.split("\r\n");
    let status = lines.next()?.split(' ').nth(1)?;
    let status = StatusCode::from_bytes(status.as_bytes()).ok()?;
    let mut headers = HeaderMap::new();
    for line in lines {
        let (name, value) = line.split_once(':')?;
        headers.append(
            http::HeaderName::from_bytes(name.trim().as_bytes()).ok()?,
            http::HeaderValue::from_str(value.trim()).ok()?,
        );
    }
    Some((
        status,
        headers,
        Bytes::copy_from_slice(&received[end + 4..]),
    ))
}

fn get_request(addr: SocketAddr, target: &str) -> Vec<u8> {
    format!("GET {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").into_bytes()
}

/// Spellings of `..`: plain, percent-encoded in each case, double and triple encoded,
/// overlong UTF-8, `%u`, fullwidth and one-dot-leader look-alikes (raw and encoded),
/// and near misses servers have trimmed into `..` (`..;`, trailing NUL or space).
const DOT_DOTS: [&str; 27] = [
    "..",
    "%2e%2e",
    "%2E%2E",
    "%2e%2E",
    "%2E%2e",
    ".%2e",
    "%2e.",
    ".%2E",
    "%252e%252e",
    "%25252e%25252e",
    "%25%32%65%25%32%65",
    "%c0%ae%c0%ae",
    "%C0%AE%C0%AE",
    "%e0%80%ae%e0%80%ae",
    "%f0%80%80%ae%f0%80%80%ae",
    "%c0%2e%c0%2e",
    "%uff0e%uff0e",
    "%u002e%u002e",
    "%ef%bc%8e%ef%bc%8e",
    "\u{FF0E}\u{FF0E}",
    "%e2%80%a4%e2%80%a4",
    "\u{2024}\u{2024}",
    "%e2%80%a5",
    "...",
    "..;",
    "..%3b",
    "..%00",
];

/// Spellings of the path separator after each `..`.
const SEPARATORS: [&str; 19] = [
    "/",
    "%2f",
    "%2F",
    "\\",
    "%5c",
    "%5C",
    "%252f",
    "%255c",
    "%c0%af",
    "%e0%80%af",
    "%c1%9c",
    "%ef%bc%8f",
    "\u{FF0F}",
    "//",
    "/./",
    "\\/",
    "/\\",
    "%2f%2f",
    "%00/",
];

/// Where the traversal starts: the root, folders of embedded and on-disk files, an
/// on-disk file used as a folder, and odd but harmless prefixes.
const PREFIXES: [&str; 8] = [
    "/",
    "/css/",
    "/nested/deep/",
    "//",
    "/./",
    "/big.bin/",
    "/docs/",
    "/%2e/",
];

/// How many `..` segments: one (beside the root), two (`tests/`), eight (`/`).
const DEPTHS: [usize; 3] = [1, 2, 8];

/// What a traversal reaches for, relative to the folder above the served root (or to
/// `/` at depth eight), among them the secret planted beside each root.
fn traversal_targets() -> Vec<String> {
    vec![
        "outside/secret.txt".into(),
        Secrets::beside_name(),
        "site/.env".into(),
        ".git/HEAD".into(),
        "etc/passwd".into(),
        "Cargo.toml".into(),
        "site/.hidden/secret.txt".into(),
        "root/.env".into(),
        "site/big.bin".into(),
    ]
}

/// Every dot spelling x every separator x every target, with the prefix and depth
/// cycling through their lists, so every combination of two dimensions occurs.
fn generated_traversals() -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0usize;
    for dots in DOT_DOTS {
        for sep in SEPARATORS {
            for target in traversal_targets() {
                let prefix = PREFIXES[i % PREFIXES.len()];
                let depth = DEPTHS[(i / PREFIXES.len()) % DEPTHS.len()];
                i += 1;
                let climb = format!("{dots}{sep}").repeat(depth);
                let target = target.replace('/', sep);
                out.push(format!("{prefix}{climb}{target}"));
            }
        }
    }
    out
}

/// Hand-written shapes the generator does not make: Windows drive and UNC paths,
/// NUL, dotfiles, Unicode normalisation and case variants, suffixes on real embedded
/// and on-disk files, and very long targets.
fn handwritten_targets() -> Vec<String> {
    let mut out: Vec<String> = [
        // Windows: drive letters, UNC, device and stream names.
        "/C:\\Windows\\win.ini",
        "/C:/Windows/win.ini",
        "/c:%5cwindows%5cwin.ini",
        "/%43:%5c",
        "/%43%3a%5cWindows%5cwin.ini",
        "/C%3A/",
        "/\\\\server\\share\\secret.txt",
        "/%5c%5cserver%5cshare",
        "/%5C%5C%3F%5CC:%5C",
        "//%3F/C:/Windows",
        "/\\\\?\\C:\\Windows",
        "/\\\\.\\pipe\\x",
        "/CON",
        "/aux.txt",
        "/big.bin::$DATA",
        "/tiny.txt::$DATA",
        "/tiny.txt%3a%3a$DATA",
        "/BIG.BIN",
        "/Tiny.txt",
        "/TINY.TXT",
        "/tiny.txt.",
        "/tiny.txt%20",
        "/tiny.txt%2e",
        // NUL and friends.
        "/tiny.txt%00",
        "/big.bin%00",
        "/big.bin%00.txt",
        "/%00",
        "/%00../../outside/secret.txt",
        "/css/app.css%00.html",
        "/.env%00",
        "/%00.env",
        // Dotfiles and version control.
        "/.env",
        "/.git/HEAD",
        "/.git/config",
        "/.git",
        "/.git/",
        "/.hidden/secret.txt",
        "/.hidden%2fsecret.txt",
        "/.htaccess",
        "/.DS_Store",
        "/.well-known/../.env",
        "/%2egit/HEAD",
        "/%2Egit%2FHEAD",
        "/css/.env",
        "/.%65nv",
        "/%252eenv",
        // Unicode: NFD for the NFC name, fullwidth and case look-alikes.
        "/cafe%CC%81.txt",
        "/CAF%C3%89.txt",
        "/caf%C3%A9.txt%00",
        "/%EF%BC%8Fetc%EF%BC%8Fpasswd",
        "/\u{FF0E}env",
        "/%EF%BC%8Eenv",
        "/\u{FF0E}\u{FF0E}\u{FF0F}outside\u{FF0F}secret.txt",
        "/\u{2024}\u{2024}/outside/secret.txt",
        "/\u{FE52}\u{FE52}/outside/secret.txt",
        "/%EF%B9%92%EF%B9%92/outside/secret.txt",
        // The absolute form and odd authorities.
        "/http://evil.example/",
        "/%2f%2fevil.example",
        "/..",
        "/../",
        "/.",
        "/%2e",
        "/%2e%2e",
        "/css/..",
        "/css/%2e%2e",
    ]
    .into_iter()
    .map(str::to_owned)
    .collect();
    // Suffixes on real files, embedded and on disk, and on a directory.
    for file in [
        "/tiny.txt",
        "/big.bin",
        "/css/app.css",
        "/image.png",
        "/docs/",
        "/nested/deep/file.txt",
    ] {
        for suffix in [
            "/",
            "/.",
            "/..",
            "/../.env",
            "/../../outside/secret.txt",
            "%2f..%2f.env",
            "%5c..%5c.env",
            ".",
            "%00",
            "%2f",
            "%5c",
            ";",
            "~",
            ".bak",
            "%20",
            "%09",
            "%",
            "%2",
            "%zz",
        ] {
            out.push(format!("{file}{suffix}"));
        }
    }
    // Long: an 8 KiB and a 64 KiB segment, and long runs of `../`.
    out.push(format!("/{}", "a".repeat(8 << 10)));
    out.push(format!("/{}", "a".repeat(64 << 10)));
    out.push(format!("/{}etc/passwd", "../".repeat(3000)));
    out.push(format!("/{}outside/secret.txt", "%2e%2e/".repeat(1200)));
    out.push(format!("/{}outside/secret.txt", "..%2f".repeat(20_000)));
    out.push(format!("/{}tiny.txt", "/".repeat(8 << 10)));
    out.push(format!("/{}tiny.txt", "./".repeat(4 << 10)));
    out.push(format!("/{}", "%2e".repeat(22_000)));
    out.push(format!("/docs/{}", "x/".repeat(32 << 10)));
    out
}

/// The whole corpus, without duplicates, in a fixed order.
fn corpus() -> Vec<String> {
    let mut all = generated_traversals();
    all.extend(handwritten_targets());
    let mut seen = std::collections::HashSet::new();
    all.retain(|target| seen.insert(target.clone()));
    all
}

/// Whether a target is one the service itself must see (visible ASCII, origin-form,
/// short enough for any URI parser): then the answer must be the service's 404 (or
/// an on-host redirect), not a parser's 400.
/// The file `target` names once its `.` and empty segments merge (`%2e` and `%2f` read
/// as `.` and `/`), when it has no other escape and no `..`: `/./tiny.txt` names
/// `/tiny.txt`, `/.` and `//` name `/index.html`, `/docs/./` names `/docs/index.html`.
fn merged_file(target: &str) -> Option<String> {
    let decoded = ["%2e", "%2E"]
        .iter()
        .fold(target.to_owned(), |path, dot| path.replace(dot, "."));
    let decoded = ["%2f", "%2F"]
        .iter()
        .fold(decoded, |path, slash| path.replace(slash, "/"));
    let is_name = |segment: &&str| !segment.is_empty() && *segment != ".";
    let names: Vec<&str> = decoded.split('/').filter(is_name).collect();
    if decoded.contains(['%', '?', '\\']) || names.contains(&"..") {
        return None;
    }
    let mut file: String = names.iter().map(|name| format!("/{name}")).collect();
    if !decoded
        .rsplit('/')
        .next()
        .is_some_and(|last| is_name(&last))
    {
        file.push_str("/index.html");
    }
    Some(file)
}

fn reaches_the_service(target: &str) -> bool {
    target.starts_with('/')
        && target.len() <= 8 << 10
        && target.bytes().all(|b| b.is_ascii_graphic())
}

/// Sends every corpus target to `addr` and checks each answer; returns the count of
/// each status (`closed` for no answer).
async fn run_corpus(
    addr: SocketAddr,
    secrets: &Arc<Secrets>,
    targets: &[String],
) -> BTreeMap<String, usize> {
    let authority = addr.to_string();
    let mut statuses: BTreeMap<String, usize> = BTreeMap::new();
    for batch in targets.chunks(IN_FLIGHT) {
        let mut set = JoinSet::new();
        for target in batch {
            let target = target.clone();
            set.spawn(async move {
                let outcome = exchange(addr, get_request(addr, &target)).await;
                (target, outcome)
            });
        }
        while let Some(joined) = set.join_next().await {
            let (target, outcome) = joined.expect("request task");
            let shown: String = target.chars().take(120).collect();
            let Outcome::Reply((status, headers, body)) = outcome else {
                assert!(
                    !reaches_the_service(&target),
                    "GET {shown}: closed without a response"
                );
                *statuses.entry("closed".into()).or_default() += 1;
                continue;
            };
            secrets.assert_absent(&shown, &body);
            *statuses.entry(status.as_str().to_owned()).or_default() += 1;
            if status.is_redirection() {
                let location = header(&headers, LOCATION)
                    .unwrap_or_else(|| panic!("GET {shown}: {status} without Location"));
                assert!(
                    resolve_location(&target, location, &authority).is_some()
                        && !location.starts_with("//")
                        && !location.starts_with("/\\"),
                    "GET {shown}: Location {location:?} leaves {authority}"
                );
                continue;
            }
            if status == StatusCode::OK {
                // `/.`, `/docs//`, `/./tiny.txt`: merged as nginx merges them.
                let file = merged_file(&target)
                    .unwrap_or_else(|| panic!("GET {shown}: 200 for no file of the table"));
                let bytes = integration_tests::fixture(&file);
                assert!(body[..] == bytes[..], "GET {shown}: not {file}");
            } else if reaches_the_service(&target) {
                assert_eq!(status, StatusCode::NOT_FOUND, "GET {shown}");
            } else {
                assert!(
                    [
                        StatusCode::NOT_FOUND,
                        StatusCode::BAD_REQUEST,
                        StatusCode::URI_TOO_LONG,
                        StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
                    ]
                    .contains(&status),
                    "GET {shown}: {status}"
                );
            }
        }
    }
    statuses
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_traversal_corpus_never_reaches_a_file_outside_the_table() {
    let secrets = Arc::new(Secrets::plant("corpus"));
    let targets = corpus();
    let servers: [(&str, ServeAssets); 4] = [
        ("embedded + on-disk from the build folder", SMALL.service()),
        (
            "embedded + on-disk from a temporary disk root",
            SMALL.service().disk_root(secrets.root()),
        ),
        (
            "dev folder over a temporary root",
            SITE.service().dev_folder(secrets.root()),
        ),
        (
            "a folder served at run time",
            ServeAssets::folder(secrets.root()),
        ),
    ];
    let started = Instant::now();
    let mut total = 0;
    for (name, service) in servers {
        let addr = spawn_service(service).await;
        // The server answers the real files it holds, so a 404 means something.
        for (path, file) in [("/tiny.txt", "/tiny.txt"), ("/big.bin", "/big.bin")] {
            let (status, _, body) = get(addr, path, &[]).await;
            assert_eq!(status, StatusCode::OK, "{name}: GET {path}");
            assert!(body[..] == fixture(file)[..], "{name}: GET {path}");
        }
        let statuses = run_corpus(addr, &secrets, &targets).await;
        total += targets.len();
        eprintln!("{name}: {} targets, statuses {statuses:?}", targets.len());
    }
    eprintln!(
        "traversal corpus: {} distinct targets ({} generated), {total} requests in {:.1?}",
        targets.len(),
        generated_traversals().len(),
        started.elapsed()
    );
    assert!(targets.len() > 4000, "the corpus shrank: {}", targets.len());
}

/// The CSS file, embedded in [`SITE`] (it has br and gzip variants).
const CSS: &str = "/css/app.css";

/// Checks a 200 or 206 answer to `GET path` against the file: the full body, one
/// range or `multipart/byteranges` whose parts each match their `Content-Range`.
fn assert_correct_content(what: &str, reply: &Reply, file: &[u8]) {
    let (status, headers, body) = reply;
    let body = decode_body(headers, body);
    match *status {
        StatusCode::OK => assert!(body == file, "{what}: 200 with a wrong body"),
        StatusCode::PARTIAL_CONTENT => {
            let content_type = header(headers, CONTENT_TYPE).unwrap();
            if let Some(range) = header(headers, CONTENT_RANGE) {
                let (start, end) = parse_content_range(range);
                assert!(body[..] == file[start..=end], "{what}: 206 {range}");
            } else {
                let parts = parse_multipart(content_type, &body);
                assert!(parts.len() > 1, "{what}: multipart with one part");
                for part in parts {
                    let (start, end) = parse_content_range(&part.content_range);
                    assert!(part.bytes[..] == file[start..=end], "{what}: part {start}");
                }
            }
        }
        other => panic!("{what}: {other}"),
    }
}

/// `bytes START-END/LEN` as `(START, END)`.
fn parse_content_range(value: &str) -> (usize, usize) {
    let span = value
        .strip_prefix("bytes ")
        .and_then(|rest| rest.split('/').next())
        .unwrap_or_else(|| panic!("Content-Range {value:?}"));
    let (start, end) = span.split_once('-').expect("START-END");
    (start.parse().unwrap(), end.parse().unwrap())
}

/// Asks for `/api/health` while `work` runs, until it ends: the server must keep
/// answering other requests. Returns `work`'s output and how many health checks passed.
async fn while_answering<T>(
    addr: SocketAddr,
    work: impl std::future::Future<Output = T>,
) -> (T, usize) {
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = done.clone();
    let checks = tokio::spawn(async move {
        let mut passed = 0;
        // At least one check, however quickly the work ends.
        loop {
            let (status, _, body) = get(addr, "/api/health", &[]).await;
            assert_eq!(status, StatusCode::OK);
            assert_eq!(&body[..], b"ok");
            passed += 1;
            if flag.load(std::sync::atomic::Ordering::Relaxed) {
                return passed;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    });
    let output = work.await;
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    (output, checks.await.expect("health checks"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_ranges_get_the_full_body_and_the_server_keeps_answering() {
    let addr = spawn_service(SMALL.service().chunk_size(64 << 10)).await;
    for (path, many) in [
        // Single bytes, overlapping pairs, and suffixes: 10 000 each.
        (
            "/big.bin",
            (0..10_000).map(|i| format!("{i}-{i}")).collect::<Vec<_>>(),
        ),
        (
            "/big.bin",
            (0..10_000).map(|i| format!("{i}-{}", i + 1)).collect(),
        ),
        ("/tiny.txt", (0..10_000).map(|_| "-1".to_owned()).collect()),
        (
            "/index.html",
            (0..10_000).map(|i| format!("{}-", i % 100)).collect(),
        ),
    ] {
        let range = format!("bytes={}", many.join(","));
        let started = Instant::now();
        let (reply, checks) = while_answering(addr, get(addr, path, &[("range", &range)])).await;
        eprintln!(
            "{path}, {} ranges in a {} B field: {} in {:.1?} ({checks} health checks meanwhile)",
            many.len(),
            range.len(),
            reply.0,
            started.elapsed()
        );
        // More than 32 ranges: the full body (RFC 9110 §14.2: a server MAY ignore Range).
        assert_eq!(reply.0, StatusCode::OK, "{path}");
        assert!(reply.1.get(CONTENT_RANGE).is_none());
        assert!(reply.2[..] == fixture(path)[..], "{path}");
    }
}

#[tokio::test]
async fn overlapping_ranges_come_back_byte_exact_or_as_the_full_body() {
    let addr = spawn_service(SMALL.service().chunk_size(16 << 10)).await;
    for path in ["/big.bin", "/index.html", "/css/app.css"] {
        let file = fixture(path);
        for range in [
            "bytes=0-10,5-15",
            "bytes=0-99,0-99",
            "bytes=100-200,150-250,-50",
            "bytes=0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,\
             0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0",
            "bytes=-1,-1,-1",
            "bytes=0-,1-",
            "bytes=1-,0-0",
            "bytes=5-5,4-6,3-7,2-8,1-9,0-10",
        ] {
            let reply = get(addr, path, &[("range", range)]).await;
            let what = format!("{path} Range: {range}");
            assert_correct_content(&what, &reply, &file);
            // Overlap that adds up to more than the file is answered with all of it once.
            if range == "bytes=0-,1-" {
                assert_eq!(reply.0, StatusCode::OK, "{what}");
            }
        }
    }
}

#[tokio::test]
async fn overflowing_numbers_in_range_are_ignored_or_clamped_never_an_error() {
    let addr = spawn_service(SMALL.service()).await;
    let huge = "99999999999999999999999";
    let u64_max = u64::MAX.to_string();
    let u64_over = "18446744073709551616";
    for path in ["/big.bin", "/index.html"] {
        let file = fixture(path);
        let len = file.len();
        for range in [
            format!("bytes=0-{huge}"),
            format!("bytes={huge}-"),
            format!("bytes=-{huge}"),
            format!("bytes={huge}-{huge}"),
            format!("bytes=0-{u64_max}"),
            format!("bytes={u64_max}-"),
            format!("bytes=-{u64_max}"),
            format!("bytes=0-{u64_over}"),
            format!("bytes={}-{u64_max}", u64_max.len()),
            format!("bytes=0-0,{u64_max}-{u64_max}"),
            format!("bytes=-{u64_max},-{u64_max}"),
            format!("bytes=0-{}", "9".repeat(4096)),
            "bytes=00000000000000000000000000000000000001-2".to_owned(),
            format!("bytes=0-{}", len - 1),
        ] {
            let reply = get(addr, path, &[("range", &range)]).await;
            let what = format!("{path} Range: {}", &range[..range.len().min(60)]);
            match reply.0 {
                StatusCode::RANGE_NOT_SATISFIABLE => {
                    assert_eq!(
                        header(&reply.1, CONTENT_RANGE),
                        Some(&*format!("bytes */{len}")),
                        "{what}"
                    );
                }
                _ => assert_correct_content(&what, &reply, &file),
            }
            eprintln!("{what}: {}", reply.0);
        }
        // Unambiguous cases: a first byte past the end is unsatisfiable; a suffix longer
        // than the file is all of it.
        let (status, _, _) = get(addr, path, &[("range", &format!("bytes={u64_max}-"))]).await;
        assert_eq!(status, StatusCode::RANGE_NOT_SATISFIABLE, "{path}");
        let (status, headers, _) =
            get(addr, path, &[("range", &format!("bytes=-{u64_max}"))]).await;
        assert_eq!(status, StatusCode::PARTIAL_CONTENT, "{path}");
        assert_eq!(
            header(&headers, CONTENT_RANGE),
            Some(&*format!("bytes 0-{}/{len}", len - 1))
        );
    }
}

#[tokio::test]
async fn header_values_of_64_kib_are_parsed_not_rejected() {
    let addr = spawn_service(SMALL.service()).await;
    let css = fixture(CSS);
    let big = fixture("/big.bin");
    let (_, headers, _) = get(addr, "/big.bin", &[]).await;
    let big_etag = header(&headers, ETAG).unwrap().to_owned();
    let pad = |unit: &str| unit.repeat((64 << 10) / unit.len());

    // Accept-Encoding: 64 KiB of unknown codings, then br (embedded, negotiated).
    let accept = format!("{}br", pad("x-unknown;q=0.9, "));
    let (status, headers, body) = get(addr, "/index.html", &[("accept-encoding", &accept)]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(decode_body(&headers, &body), fixture("/index.html"));
    // On disk: no variants, identity whatever is asked.
    let (status, headers, body) = get(addr, CSS, &[("accept-encoding", &accept)]).await;
    assert_eq!(status, StatusCode::OK);
    assert!(headers.get(CONTENT_ENCODING).is_none());
    assert!(body[..] == css[..]);

    // If-None-Match: 64 KiB of other tags, with and without the current one.
    let others = pad("\"0123456789abcdef\", ");
    let (status, _, body) = get(
        addr,
        "/big.bin",
        &[("if-none-match", &format!("{others}\"x\""))],
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body.len(), big.len());
    let list = format!("{others}{big_etag}");
    let (status, _, body) = get(addr, "/big.bin", &[("if-none-match", &list)]).await;
    assert_eq!(status, StatusCode::NOT_MODIFIED);
    assert!(body.is_empty());

    // Range: 64 KiB of whitespace and empty list elements around one range.
    let range = format!("bytes={}0-9{}", pad(" ,"), pad(", "));
    let (status, headers, body) = get(addr, "/big.bin", &[("range", &range)]).await;
    if Framework::current() == Framework::ActixWeb {
        // actix-http refuses a request head over 128 KiB (a fixed limit of its parser)
        // with 431 before any service runs; this field alone is 128 KiB.
        assert_eq!(status, StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE);
    } else {
        assert_eq!(status, StatusCode::PARTIAL_CONTENT);
        assert_eq!(header(&headers, CONTENT_RANGE), Some("bytes 0-9/3145728"));
        assert_eq!(&body[..], &big[..10]);
    }
    // Range: a 64 KiB value that is no range at all.
    let (status, _, body) = get(addr, "/big.bin", &[("range", &pad("x"))]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body.len(), big.len());
}

#[tokio::test]
async fn a_head_over_hypers_limit_gets_431_and_the_server_keeps_answering() {
    let addr = spawn_service(SMALL.service()).await;
    // hyper's default read buffer limit is ~400 KiB for the whole head: a 1 MiB field
    // is refused by hyper before the service sees it.
    for name in ["range", "accept-encoding", "if-none-match", "x-junk"] {
        let request = format!(
            "GET /big.bin HTTP/1.1\r\nHost: {addr}\r\n{name}: {}\r\nConnection: close\r\n\r\n",
            "a".repeat(1 << 20)
        );
        let outcome = exchange(addr, request.into_bytes()).await;
        let Outcome::Reply((status, _, body)) = outcome else {
            panic!("{name}: closed without a response");
        };
        assert_eq!(
            status,
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            "{name}"
        );
        assert!(!contains(&body, "FIXTURE"));
        let (status, _, _) = get(addr, "/tiny.txt", &[]).await;
        assert_eq!(status, StatusCode::OK);
    }
    // Many fields: over hyper's default of 100 header fields is a 431 too.
    let mut request = format!("GET /tiny.txt HTTP/1.1\r\nHost: {addr}\r\n");
    for i in 0..200 {
        request.push_str(&format!("range: bytes={i}-{i}\r\n"));
    }
    request.push_str("Connection: close\r\n\r\n");
    let Outcome::Reply((status, _, _)) = exchange(addr, request.into_bytes()).await else {
        panic!("200 fields: closed without a response");
    };
    assert_eq!(status, StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE);
    let (status, _, _) = get(addr, "/tiny.txt", &[]).await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn garbage_q_values_still_give_a_body_that_decodes_to_the_file() {
    let addr = spawn_service(site_service()).await;
    let css = fixture(CSS);
    for accept in [
        "br;q=2",
        "br;q=-1",
        "br;q=1.0001",
        "br;q=0.0001",
        "br;q=NaN",
        "br;q=1e3",
        "br;q=",
        "br;q",
        "br;;;q=1",
        ";q=1",
        "*;q=0.5;q=1",
        "br;q=0.5;q=0",
        "gzip;q=1.000, br;q=1.",
        "br;q=0x1",
        "br;q=\"1\"",
        "br q=1",
        "BR;Q=1",
        ",,,,,,",
        "br, br, br;q=0",
        "identity;q=0, *;q=0",
        "gzip;q=0.5, gzip;q=0",
        "*",
        "*;q=0.000",
        "br;q=0.9999",
        "gzip;q=00000.5",
    ] {
        let (status, headers, body) = get(addr, CSS, &[("accept-encoding", accept)]).await;
        assert_eq!(status, StatusCode::OK, "Accept-Encoding: {accept}");
        assert!(
            decode_body(&headers, &body) == css,
            "Accept-Encoding: {accept}"
        );
        assert!(headers.get(ETAG).is_some());
        eprintln!(
            "Accept-Encoding: {accept:?} -> {}",
            header(&headers, CONTENT_ENCODING).unwrap_or("identity")
        );
    }
}

#[tokio::test]
async fn garbage_dates_are_ignored() {
    let addr = spawn_service(SMALL.service()).await;
    for path in [CSS, "/index.html", "/big.bin"] {
        let file = fixture(path);
        let (_, headers, _) = get(addr, path, &[]).await;
        let last_modified = header(&headers, LAST_MODIFIED).unwrap().to_owned();
        let garbage = [
            "garbage".to_owned(),
            "0".to_owned(),
            "-1".to_owned(),
            "Sun, 06 Nov 99999 08:49:37 GMT".to_owned(),
            "Sun, 32 Nov 1994 08:49:37 GMT".to_owned(),
            "Sun, 06 Nov 1994 25:61:61 GMT".to_owned(),
            "Sun, 06 Nov 1994 08:49:37 PST".to_owned(),
            format!("{last_modified} trailing"),
            format!("{last_modified}, {last_modified}"),
            "Sun, 06 Nov 1994 08:49:37".to_owned(),
            "Mon, 01 Jan 10000 00:00:00 GMT".to_owned(),
            "Thu, 01 Jan 1970 00:00:00 GMT".repeat(2000),
        ];
        for date in &garbage {
            let what = format!("{path} with {}", &date[..date.len().min(50)]);
            // Invalid If-Modified-Since / If-Unmodified-Since: ignored (RFC 9110
            // §13.1.3, §13.1.4), so the full 200.
            for name in ["if-modified-since", "if-unmodified-since"] {
                let (status, _, body) = get(addr, path, &[(name, date)]).await;
                assert_eq!(status, StatusCode::OK, "{name}: {what}");
                assert!(body[..] == file[..], "{name}: {what}");
            }
            // If-Range that is no validator of this representation: the Range is
            // ignored, the full 200.
            let (status, headers, body) =
                get(addr, path, &[("range", "bytes=0-9"), ("if-range", date)]).await;
            assert_eq!(status, StatusCode::OK, "if-range: {what}");
            assert!(headers.get(CONTENT_RANGE).is_none());
            assert!(body[..] == file[..], "if-range: {what}");
        }
    }
}

#[tokio::test]
async fn repeated_fields_follow_their_list_or_singleton_rules() {
    let addr = spawn_service(SMALL.service()).await;
    for path in [CSS, "/big.bin", "/index.html"] {
        let file = fixture(path);
        let (_, headers, _) = get(addr, path, &[]).await;
        let etag = header(&headers, ETAG).unwrap().to_owned();
        // Range twice: a singleton field sent as two lines is ignored.
        let (status, _, body) = get(
            addr,
            path,
            &[("range", "bytes=0-9"), ("range", "bytes=10-19")],
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{path}: two Range lines");
        assert!(body[..] == file[..]);
        // If-None-Match is a list: the current tag on the second line still matches.
        let (status, _, _) = get(
            addr,
            path,
            &[("if-none-match", "\"nope\""), ("if-none-match", &etag)],
        )
        .await;
        assert_eq!(
            status,
            StatusCode::NOT_MODIFIED,
            "{path}: split If-None-Match"
        );
        // The same tag a thousand times is still one match.
        let many: Vec<(&str, &str)> = (0..90).map(|_| ("if-none-match", &*etag)).collect();
        let (status, _, _) = get(addr, path, &many).await;
        assert_eq!(status, StatusCode::NOT_MODIFIED, "{path}: 90 If-None-Match");
        // If-Match is a list too.
        let (status, _, _) =
            get(addr, path, &[("if-match", "\"nope\""), ("if-match", &etag)]).await;
        assert_eq!(status, StatusCode::OK, "{path}: split If-Match");
        // If-Range twice: no longer one validator, so the range is not honoured.
        let (status, _, _) = get(
            addr,
            path,
            &[
                ("range", "bytes=0-9"),
                ("if-range", &etag),
                ("if-range", &etag),
            ],
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{path}: two If-Range lines");
    }
    // Accept-Encoding over two lines: the union, so `identity;q=0` then `br`.
    let (status, headers, body) = get(
        addr,
        "/index.html",
        &[
            ("accept-encoding", "identity;q=0"),
            ("accept-encoding", "br"),
        ],
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(header(&headers, CONTENT_ENCODING), Some("br"));
    assert_eq!(decode_body(&headers, &body), fixture("/index.html"));
}

#[tokio::test]
async fn malformed_requests_are_refused_by_hyper_and_the_server_lives_on() {
    let addr = spawn_service(SMALL.service()).await;
    let cases: Vec<(&str, String)> = vec![
        (
            "two different Content-Length",
            format!(
                "GET /tiny.txt HTTP/1.1\r\nHost: {addr}\r\nContent-Length: 1\r\nContent-Length: 2\r\nConnection: close\r\n\r\nx"
            ),
        ),
        (
            "Content-Length not a number",
            format!(
                "GET /tiny.txt HTTP/1.1\r\nHost: {addr}\r\nContent-Length: -1\r\nConnection: close\r\n\r\n"
            ),
        ),
        (
            "space before the colon",
            format!(
                "GET /tiny.txt HTTP/1.1\r\nHost: {addr}\r\nRange : bytes=0-1\r\nConnection: close\r\n\r\n"
            ),
        ),
        (
            "obsolete line folding",
            format!(
                "GET /tiny.txt HTTP/1.1\r\nHost: {addr}\r\nRange: bytes=0-1\r\n  , 2-3\r\nConnection: close\r\n\r\n"
            ),
        ),
        (
            "NUL in a field value",
            format!(
                "GET /tiny.txt HTTP/1.1\r\nHost: {addr}\r\nRange: bytes=0\u{0}-1\r\nConnection: close\r\n\r\n"
            ),
        ),
        (
            "a bare LF inside the request line",
            format!("GET /tiny.txt\nX HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"),
        ),
        (
            "an unknown HTTP version",
            format!("GET /tiny.txt HTTP/9.9\r\nHost: {addr}\r\nConnection: close\r\n\r\n"),
        ),
        (
            "a space in the target",
            format!("GET /tiny .txt HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"),
        ),
    ];
    for (what, request) in cases {
        let outcome = exchange(addr, request.into_bytes()).await;
        let status = match &outcome {
            Outcome::Reply((status, _, body)) => {
                assert!(!contains(body, "hi\n") || *status == StatusCode::OK);
                Some(*status)
            }
            Outcome::Closed => None,
        };
        eprintln!("{what}: {status:?}");
        assert!(
            matches!(
                status,
                Some(StatusCode::BAD_REQUEST | StatusCode::HTTP_VERSION_NOT_SUPPORTED) | None
            ),
            "{what}: {status:?}"
        );
        let (status, _, _) = get(addr, "/big.bin", &[("range", "bytes=0-0")]).await;
        assert_eq!(status, StatusCode::PARTIAL_CONTENT, "after {what}");
    }
    let (_, headers, _) = get(addr, "/tiny.txt", &[]).await;
    assert_eq!(header(&headers, CONTENT_LENGTH), Some("3"));
}
