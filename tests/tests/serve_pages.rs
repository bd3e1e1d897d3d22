//! `serve` sends embedded bodies of 16 KiB and more with `sendfile` from sealed memory
//! (`Server::sendfile_embedded`, on by default): the memory exists while the server
//! runs and only then, and responses from it arrive whole and in order among others,
//! pipelined. The same for the bodies a folder served whole keeps, each in memory of
//! its own. Alone in their binary, so that no other server of this process holds such
//! memory while they look at the process's descriptors (each counts its own kind).

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use axum::Router;
use embed_assets::{Encoding, ServeAssets, Server};
use integration_tests::{SITE, fixture};

/// What the kernel names the memory (`/proc/self/fd/N` → `/memfd:NAME (deleted)`).
const MEMORY: &str = "/memfd:embed-assets-bodies";

/// What it names the memory of a body a folder's service keeps.
const KEPT: &str = "/memfd:embed-assets-kept";

fn memory_files() -> usize {
    files_named(MEMORY)
}

fn files_named(prefix: &str) -> usize {
    std::fs::read_dir("/proc/self/fd")
        .expect("/proc/self/fd")
        .filter_map(|entry| std::fs::read_link(entry.ok()?.path()).ok())
        .filter(|target| target.to_string_lossy().starts_with(prefix))
        .count()
}

/// Reads one response (every one here has `Content-Length`, or none for HEAD and 304):
/// its status and body.
fn read_response(stream: &mut TcpStream, head_request: bool) -> (u16, Vec<u8>) {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        stream.read_exact(&mut byte).expect("a response head");
        head.push(byte[0]);
    }
    let head = String::from_utf8(head).unwrap().to_ascii_lowercase();
    let status = head[9..12].parse().unwrap();
    let len = head
        .lines()
        .find_map(|line| line.strip_prefix("content-length: "))
        .map_or(0, |n| n.trim().parse().unwrap());
    let mut body = vec![
        0;
        if head_request || status == 304 {
            0
        } else {
            len
        }
    ];
    stream.read_exact(&mut body).expect("the whole body");
    (status, body)
}

/// A connection to `addr` whose reads give up after 10 s.
fn connect(addr: SocketAddr) -> TcpStream {
    let stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream
}

fn start(
    server: Server,
) -> (
    SocketAddr,
    embed_assets::ShutdownHandle,
    std::thread::JoinHandle<std::io::Result<()>>,
) {
    let server = server.shutdown_on_signals(false).workers(1);
    let addr = server.local_addr();
    let stop = server.shutdown_handle();
    let thread = std::thread::spawn(move || server.serve(SITE.service(), Router::new()));
    (addr, stop, thread)
}

#[test]
fn large_bodies_go_from_sealed_memory_whole_and_in_order_and_only_while_serving() {
    assert_eq!(memory_files(), 0);
    let big = fixture("/big.bin");
    assert!(big.len() >= 16 * 1024 && SITE.get("/big.bin").unwrap().is_embedded());
    let etag = SITE
        .get("/big.bin")
        .unwrap()
        .variant(Encoding::Identity)
        .unwrap()
        .etag();

    let (addr, stop, thread) = start(Server::bind("127.0.0.1:0").unwrap());
    let mut stream = connect(addr);
    // Written at once: the server answers them together, the large bodies by
    // `sendfile` between the others.
    let requests = format!(
        "GET /big.bin HTTP/1.1\r\nHost: a\r\n\r\n\
         GET /tiny.txt HTTP/1.1\r\nHost: a\r\n\r\n\
         HEAD /big.bin HTTP/1.1\r\nHost: a\r\n\r\n\
         GET /big.bin HTTP/1.1\r\nHost: a\r\nIf-None-Match: {etag}\r\n\r\n\
         GET /big.bin HTTP/1.1\r\nHost: a\r\n\r\n\
         GET /tiny.txt HTTP/1.1\r\nHost: a\r\n\r\n"
    );
    stream.write_all(requests.as_bytes()).unwrap();
    let tiny = fixture("/tiny.txt");
    assert_eq!(read_response(&mut stream, false), (200, big.clone()));
    assert_eq!(read_response(&mut stream, false), (200, tiny.clone()));
    assert_eq!(read_response(&mut stream, true), (200, Vec::new()));
    assert_eq!(read_response(&mut stream, false), (304, Vec::new()));
    assert_eq!(read_response(&mut stream, false), (200, big.clone()));
    assert_eq!(read_response(&mut stream, false), (200, tiny));
    assert_eq!(
        memory_files(),
        1,
        "the server holds the sealed memory while it runs"
    );
    drop(stream);
    stop.shutdown();
    thread.join().unwrap().unwrap();
    assert_eq!(memory_files(), 0, "and lets it go when it returns");

    let (addr, stop, thread) = start(
        Server::bind("127.0.0.1:0")
            .unwrap()
            .sendfile_embedded(false),
    );
    let mut stream = connect(addr);
    stream
        .write_all(b"GET /big.bin HTTP/1.1\r\nHost: a\r\n\r\n")
        .unwrap();
    assert_eq!(read_response(&mut stream, false), (200, big));
    assert_eq!(memory_files(), 0, "off, no memory is made");
    drop(stream);
    stop.shutdown();
    thread.join().unwrap().unwrap();
}

#[test]
fn a_folders_kept_bodies_go_from_sealed_memory_of_their_own() {
    let folder = std::env::temp_dir().join(format!("embed-kept-pages-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).unwrap();
    let big = integration_tests::noise(64 * 1024, 11);
    let other = integration_tests::noise(64 * 1024, 12);
    std::fs::write(folder.join("big.bin"), &big).unwrap();
    std::fs::write(folder.join("tiny.txt"), b"tiny\n").unwrap();
    // Kept fields are built for a file a second old: the bodies that use them.
    std::thread::sleep(Duration::from_millis(1_100));
    assert_eq!(files_named(KEPT), 0);

    let server = Server::bind("127.0.0.1:0")
        .unwrap()
        .shutdown_on_signals(false)
        .workers(1);
    let addr = server.local_addr();
    let stop = server.shutdown_handle();
    let service = ServeAssets::folder(&folder);
    let thread = std::thread::spawn(move || server.serve(service, Router::new()));
    let mut stream = connect(addr);
    // The first reads and keeps it; the others come from what is kept.
    stream
        .write_all(b"GET /big.bin HTTP/1.1\r\nHost: a\r\n\r\n")
        .unwrap();
    assert_eq!(read_response(&mut stream, false), (200, big.clone()));
    let requests = "GET /big.bin HTTP/1.1\r\nHost: a\r\n\r\n\
                    GET /tiny.txt HTTP/1.1\r\nHost: a\r\n\r\n\
                    HEAD /big.bin HTTP/1.1\r\nHost: a\r\n\r\n\
                    GET /big.bin HTTP/1.1\r\nHost: a\r\n\r\n";
    stream.write_all(requests.as_bytes()).unwrap();
    assert_eq!(read_response(&mut stream, false), (200, big.clone()));
    assert_eq!(read_response(&mut stream, false), (200, b"tiny\n".to_vec()));
    assert_eq!(read_response(&mut stream, true), (200, Vec::new()));
    assert_eq!(read_response(&mut stream, false), (200, big.clone()));
    assert_eq!(files_named(KEPT), 1, "the kept body, in memory of its own");

    // Replaced in place, the same length, its mtime put back: the new bytes at once.
    let path = folder.join("big.bin");
    let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
    std::fs::write(&path, &other).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    for _ in 0..2 {
        stream
            .write_all(b"GET /big.bin HTTP/1.1\r\nHost: a\r\n\r\n")
            .unwrap();
        assert_eq!(read_response(&mut stream, false), (200, other.clone()));
    }
    drop(stream);
    stop.shutdown();
    thread.join().unwrap().unwrap();
    let _ = std::fs::remove_dir_all(&folder);
}
