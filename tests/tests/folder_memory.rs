//! What a folder served whole holds in memory is what `cache_size` says: a server in a
//! process of its own (`folder-server`, under `serve` with its sealed copies) is
//! crawled three times over a tree three times the cache, then its resident memory and
//! its sealed memory files (which resident memory does not show) are weighed against
//! the cache's size and the process's base: the same server, crawled the same way,
//! with a cache of size 0 (its threads, buffers and allocator after that work).

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use http::StatusCode;
use integration_tests::get;

/// The cache under test: 8 MiB.
const CACHE: u64 = 8 << 20;

struct Server {
    child: Child,
    addr: SocketAddr,
}

impl Server {
    fn start(folder: &Path, cache: u64) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_folder-server"))
            .arg(folder)
            .arg(cache.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start folder-server");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("the port");
        let port: u16 = line.trim().parse().expect("a port number");
        Server {
            child,
            addr: SocketAddr::from(([127, 0, 0, 1], port)),
        }
    }

    /// Resident memory and the sizes of its memory files, in bytes.
    fn memory(&self) -> (u64, u64) {
        let proc = PathBuf::from(format!("/proc/{}", self.child.id()));
        let status = std::fs::read_to_string(proc.join("status")).expect("/proc status");
        let rss_kib: u64 = status
            .lines()
            .find_map(|line| line.strip_prefix("VmRSS:"))
            .and_then(|value| value.split_whitespace().next())
            .and_then(|value| value.parse().ok())
            .expect("VmRSS");
        let mut memfds = 0;
        for entry in std::fs::read_dir(proc.join("fd"))
            .expect("/proc fd")
            .flatten()
        {
            let is_memfd = std::fs::read_link(entry.path())
                .is_ok_and(|target| target.to_string_lossy().starts_with("/memfd:"));
            if is_memfd {
                memfds += std::fs::metadata(entry.path()).map_or(0, |meta| meta.len());
            }
        }
        (rss_kib << 10, memfds)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The tree: 24 MiB in files of 4 KiB and of 20 KiB (sealed copies under `serve`).
fn tree(root: &Path) -> Vec<String> {
    let mut urls = Vec::new();
    for (count, len, dir) in [(2048, 4 << 10, "small"), (819, 20 << 10, "large")] {
        std::fs::create_dir_all(root.join(dir)).unwrap();
        for i in 0..count {
            let name = format!("{dir}/file-{i:04}.js");
            let mut bytes = format!("// {name}\n").into_bytes();
            bytes.resize(len, b'x');
            std::fs::write(root.join(&name), bytes).unwrap();
            urls.push(format!("/{name}"));
        }
    }
    urls
}

/// Memory held (resident and in memory files) after three crawls of `urls` by a
/// server of `folder` whose cache is `cache` bytes.
async fn after_three_crawls(folder: &Path, urls: &[String], cache: u64) -> u64 {
    let server = Server::start(folder, cache);
    let addr = server.addr;
    for round in 0..3 {
        // Four clients at a time, each file once per round.
        let mut clients = Vec::new();
        for part in urls.chunks(urls.len().div_ceil(4)) {
            let part = part.to_vec();
            clients.push(tokio::spawn(async move {
                for url in part {
                    let (status, _, body) = get(addr, &url, &[]).await;
                    assert_eq!(status, StatusCode::OK, "{url}");
                    assert!(body.len() >= 4096, "{url}");
                }
            }));
        }
        for client in clients {
            client.await.expect("a client");
        }
        let (rss, memfds) = server.memory();
        eprintln!(
            "cache {} MiB, round {round}: resident {:.1} MiB, memory files {:.1} MiB",
            cache >> 20,
            rss as f64 / 1048576.0,
            memfds as f64 / 1048576.0,
        );
    }
    let (rss, memfds) = server.memory();
    rss + memfds
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn repeated_crawls_of_a_tree_three_times_the_cache_stay_within_it() {
    let root = std::env::temp_dir().join(format!("embed-folder-memory-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let urls = tree(&root);
    let base = after_three_crawls(&root, &urls, 0).await;
    let held = after_three_crawls(&root, &urls, CACHE).await;
    let _ = std::fs::remove_dir_all(&root);
    let beyond = held.saturating_sub(base);
    eprintln!(
        "held {:.2} MiB beyond the base: {:.2} x the cache",
        beyond as f64 / 1048576.0,
        beyond as f64 / CACHE as f64
    );
    assert!(
        beyond <= CACHE + CACHE / 5,
        "{beyond} bytes held beyond the base ({base}), over 1.2 x the cache's {CACHE}"
    );
}
