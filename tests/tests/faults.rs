//! File-system faults under concurrent load: while eight clients download an on-disk
//! file in loops (and others download a second on-disk file and request embedded
//! ones), the file is deleted, truncated, overwritten in place (with a new mtime, and
//! as `cp -p` does, with the old mtime put back), given another mtime (`touch -r`),
//! replaced by a rename, and made unreadable. Only downloads of that file may be affected, and only cleanly:
//! a complete body is always one whole version of the file, a cut one ends short of
//! its `Content-Length` with the connection closed, and a new request gets 404
//! (deleted), 403 (unreadable) or the new content. Nothing panics, and the process's
//! open file descriptors return to their count before the load. `disk.rs` covers each
//! fault alone, without load. With `EMBED_TEST_SOURCE=folder`, the same files are a
//! folder served whole (`ServeAssets::folder`), and the same must hold.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Once};
use std::time::{Duration, Instant};

use embed_assets::{Assets, ServeAssets, embed_assets};
use http::StatusCode;
use integration_tests::{fixture, get, noise, serves_folder, site_dir, spawn_service};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The fixture site with a 4 KiB limit: `big.bin`, `css/app.css`, `js/app.js` and
/// `image.png` are read from disk.
static SMALL: Assets = embed_assets!(
    "fixtures/site",
    max_embed_size = "4 KiB",
    disk = ["css/app.css", "js/app.js"],
    on_disk = "allow"
);

/// The file the faults hit.
const TARGET: &str = "/big.bin";
/// An on-disk file nothing happens to.
const CONTROL: &str = "/image.png";

/// Panics anywhere in the process since the hook was installed.
static PANICS: AtomicUsize = AtomicUsize::new(0);

fn count_panics() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            PANICS.fetch_add(1, Ordering::SeqCst);
            default(info);
        }));
    });
}

fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd")
        .map(|dir| dir.count())
        .unwrap_or(0)
}

/// The result of one download.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord, Clone, Copy)]
enum Download {
    /// 200 with every byte of one of the file's versions (index into the versions).
    Complete(usize),
    /// 200 that ended before its `Content-Length`, the connection closed; or the
    /// connection closed before any byte of a response.
    Cut,
    /// 404: the file is gone.
    Gone,
    /// 403: the file is there but cannot be read.
    Forbidden,
    /// Anything else: a wrong status, a complete body matching no version, a head
    /// cut short, an error or a timeout. Always a test failure.
    Wrong,
}

/// One `GET path` with `Connection: close` on raw TCP, read to the end of the
/// connection and classified against the versions the file has had.
async fn download(addr: SocketAddr, path: &str, versions: &[Arc<Vec<u8>>]) -> (Download, String) {
    let run = async {
        let mut stream = TcpStream::connect(addr).await.map_err(|e| e.to_string())?;
        let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
        stream
            .write_all(request.as_bytes())
            .await
            .map_err(|e| e.to_string())?;
        let mut received = Vec::new();
        let mut buf = vec![0u8; 256 << 10];
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => received.extend_from_slice(&buf[..n]),
            }
        }
        Ok::<_, String>(received)
    };
    let received = match tokio::time::timeout(Duration::from_secs(30), run).await {
        Ok(Ok(received)) => received,
        Ok(Err(err)) => return (Download::Wrong, err),
        Err(_) => return (Download::Wrong, "timed out".into()),
    };
    if received.is_empty() {
        // The file changed between the open (whose length the head states) and the
        // first read: the server gives up before any byte, and the client sees the
        // connection close. A failed request, never wrong bytes.
        return (Download::Cut, "closed before the head".into());
    }
    let Some(end) = received.windows(4).position(|w| w == b"\r\n\r\n") else {
        return (
            Download::Wrong,
            format!("no head in {} bytes", received.len()),
        );
    };
    let head = String::from_utf8_lossy(&received[..end]).to_ascii_lowercase();
    let body = &received[end + 4..];
    let status = head.split(' ').nth(1).unwrap_or_default().to_owned();
    let length: Option<usize> = head
        .lines()
        .find_map(|line| line.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse().ok());
    match (status.as_str(), length) {
        ("404", _) => (Download::Gone, String::new()),
        ("403", _) => (Download::Forbidden, String::new()),
        ("200", Some(length)) if body.len() < length => (Download::Cut, String::new()),
        ("200", Some(length)) if body.len() == length => {
            match versions.iter().position(|v| v[..] == body[..]) {
                Some(i) => (Download::Complete(i), String::new()),
                None => (
                    Download::Wrong,
                    format!("a complete {length}-byte body that is no version of {path}"),
                ),
            }
        }
        _ => (
            Download::Wrong,
            format!("head {head:?}, {} body bytes", body.len()),
        ),
    }
}

/// The load: downloaders of the target and the control, and embedded requests, each
/// in a loop until told to stop.
struct Load {
    stop: Arc<AtomicBool>,
    /// Downloads of the target that completed with its first version so far.
    originals: Arc<std::sync::atomic::AtomicUsize>,
    target: Vec<tokio::task::JoinHandle<Vec<(Download, String)>>>,
    control: Vec<tokio::task::JoinHandle<Vec<(Download, String)>>>,
    embedded: Vec<tokio::task::JoinHandle<usize>>,
}

impl Load {
    fn start(
        addr: SocketAddr,
        versions: Arc<std::sync::Mutex<Vec<Arc<Vec<u8>>>>>,
        control: Arc<Vec<u8>>,
    ) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let originals = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let loop_downloads =
            |path: &'static str, versions: Arc<std::sync::Mutex<Vec<Arc<Vec<u8>>>>>| {
                let stop = stop.clone();
                let originals = originals.clone();
                tokio::spawn(async move {
                    let mut results = Vec::new();
                    while !stop.load(Ordering::Relaxed) && results.len() < 10_000 {
                        let known = versions.lock().unwrap().clone();
                        let result = download(addr, path, &known).await;
                        if path == TARGET && result.0 == Download::Complete(0) {
                            originals.fetch_add(1, Ordering::Relaxed);
                        }
                        results.push(result);
                    }
                    results
                })
            };
        let target = (0..8)
            .map(|_| loop_downloads(TARGET, versions.clone()))
            .collect();
        let control_versions = Arc::new(std::sync::Mutex::new(vec![control]));
        let control = (0..2)
            .map(|_| loop_downloads(CONTROL, control_versions.clone()))
            .collect();
        let embedded = (0..2)
            .map(|_| {
                let stop = stop.clone();
                tokio::spawn(async move {
                    let (index, data) = (fixture("/index.html"), fixture("/data.json"));
                    let mut answered = 0;
                    while !stop.load(Ordering::Relaxed) && answered < 100_000 {
                        for (path, file) in [("/index.html", &index), ("/data.json", &data)] {
                            let (status, _, body) = get(addr, path, &[]).await;
                            assert_eq!(status, StatusCode::OK, "{path} under load");
                            assert!(body[..] == file[..], "{path} under load");
                            answered += 1;
                        }
                    }
                    answered
                })
            })
            .collect();
        Load {
            stop,
            originals,
            target,
            control,
            embedded,
        }
    }

    /// Waits (at least 400 ms, at most 20 s) until a download of the target's first
    /// version has completed: the load runs, and others are in flight. A loaded machine
    /// only makes this wait longer.
    async fn wait_until_running(&self) {
        let start = Instant::now();
        tokio::time::sleep(Duration::from_millis(400)).await;
        while self.originals.load(Ordering::Relaxed) == 0
            && start.elapsed() < Duration::from_secs(20)
        {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Stops the loops and returns the target's and the control's results and the
    /// number of embedded answers.
    async fn finish(self) -> (Vec<(Download, String)>, Vec<(Download, String)>, usize) {
        self.stop.store(true, Ordering::Relaxed);
        let mut target = Vec::new();
        for task in self.target {
            target.extend(task.await.expect("target downloader"));
        }
        let mut control = Vec::new();
        for task in self.control {
            control.extend(task.await.expect("control downloader"));
        }
        let mut embedded = 0;
        for task in self.embedded {
            embedded += task.await.expect("embedded requests");
        }
        (target, control, embedded)
    }
}

/// What a fault may do to the downloads of the target.
#[derive(Debug, Clone, Copy)]
struct Allowed {
    cut: bool,
    gone: bool,
    forbidden: bool,
}

fn tally(results: &[(Download, String)]) -> BTreeMap<Download, usize> {
    let mut counts = BTreeMap::new();
    for (download, _) in results {
        *counts.entry(*download).or_default() += 1;
    }
    counts
}

/// Waits until the process has no more open descriptors than `baseline` (closed
/// connections are released asynchronously), for at most five seconds.
async fn fds_settle_to(baseline: usize) -> usize {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let now = open_fds();
        if now <= baseline || Instant::now() > deadline {
            return now;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn write_atomically(path: &Path, bytes: &[u8]) {
    let temp = path.with_extension("new");
    std::fs::write(&temp, bytes).unwrap();
    std::fs::rename(&temp, path).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn faults_under_load_affect_only_that_file_and_leak_nothing() {
    // As root, this runs again in a child that root's file-permission override is taken
    // from, so that the mode-000 fault gives 403.
    if !integration_tests::programs::file_permissions_apply(
        "faults_under_load_affect_only_that_file_and_leak_nothing",
    ) {
        return;
    }
    count_panics();
    let root = std::env::temp_dir().join(format!("embed-faults-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    // The pages the load asks for beside the files are embedded in `SMALL`; a folder
    // served whole holds them too.
    for file in ["css/app.css", "js/app.js", "index.html", "data.json"] {
        std::fs::create_dir_all(root.join(file).parent().unwrap()).unwrap();
        std::fs::copy(site_dir().join(file), root.join(file)).unwrap();
    }
    let big: PathBuf = root.join("big.bin");
    let original = Arc::new(noise(6 << 20, 11));
    let control = Arc::new(noise(2 << 20, 12));
    std::fs::write(&big, &original[..]).unwrap();
    std::fs::write(root.join("image.png"), &control[..]).unwrap();
    // Small chunks: many reads per download, so every fault lands mid-stream. With
    // `EMBED_TEST_SOURCE=folder`, the same files as a folder served whole
    // (`ServeAssets::folder`): its large files streamed, its small ones kept.
    let service = if serves_folder() {
        ServeAssets::folder(&root).chunk_size(64 << 10)
    } else {
        let service = SMALL.service().disk_root(&root).chunk_size(64 << 10);
        service.check_disk().expect("every on-disk file is there");
        service
    };
    let addr = spawn_service(service).await;

    // Warm up (runtime threads, the client) before counting descriptors.
    let versions = Arc::new(std::sync::Mutex::new(vec![original.clone()]));
    for _ in 0..2 {
        let known = versions.lock().unwrap().clone();
        assert_eq!(
            download(addr, TARGET, &known).await.0,
            Download::Complete(0)
        );
    }
    let baseline = open_fds();
    let panics_before = PANICS.load(Ordering::SeqCst);

    let replaced = Arc::new(noise(5 << 20, 13));
    let overwritten = Arc::new(noise(6 << 20, 14));
    let copied_over = Arc::new(noise(6 << 20, 15));
    type Fault = (&'static str, Allowed, Box<dyn Fn(&Path) + Send>);
    let faults: Vec<Fault> = vec![
        (
            "deleted",
            Allowed {
                cut: false,
                gone: true,
                forbidden: false,
            },
            Box::new(|big: &Path| std::fs::remove_file(big).unwrap()),
        ),
        (
            "truncated to 1 KiB",
            Allowed {
                cut: true,
                gone: false,
                forbidden: false,
            },
            Box::new(|big: &Path| {
                std::fs::OpenOptions::new()
                    .write(true)
                    .open(big)
                    .unwrap()
                    .set_len(1024)
                    .unwrap();
            }),
        ),
        (
            "overwritten in place, same length",
            Allowed {
                cut: true,
                gone: false,
                forbidden: false,
            },
            Box::new({
                let overwritten = overwritten.clone();
                move |big: &Path| {
                    use std::io::Write;
                    let mut file = std::fs::OpenOptions::new().write(true).open(big).unwrap();
                    file.write_all(&overwritten).unwrap();
                }
            }),
        ),
        (
            // `cp -p new big.bin`: the same length written in place, then the old mtime
            // put back. Only the ctime, which no program can set, tells.
            "overwritten as cp -p does, same length and mtime",
            Allowed {
                cut: true,
                gone: false,
                forbidden: false,
            },
            Box::new({
                let copied_over = copied_over.clone();
                move |big: &Path| {
                    use std::io::Write;
                    let mtime = std::fs::metadata(big).unwrap().modified().unwrap();
                    let mut file = std::fs::OpenOptions::new().write(true).open(big).unwrap();
                    file.write_all(&copied_over).unwrap();
                    file.set_modified(mtime).unwrap();
                }
            }),
        ),
        (
            // `touch -r other big.bin`: the bytes stay, the mtime changes.
            "given another mtime",
            Allowed {
                cut: true,
                gone: false,
                forbidden: false,
            },
            Box::new(|big: &Path| {
                let time = std::time::UNIX_EPOCH + Duration::from_secs(1_500_000_000);
                let file = std::fs::OpenOptions::new().write(true).open(big).unwrap();
                file.set_modified(time).unwrap();
            }),
        ),
        (
            "replaced by a rename",
            Allowed {
                cut: false,
                gone: false,
                forbidden: false,
            },
            Box::new({
                let replaced = replaced.clone();
                move |big: &Path| write_atomically(big, &replaced)
            }),
        ),
        (
            // A chmod changes the ctime, which a stream cannot tell from an in-place
            // rewrite that put the mtime back: downloads in flight may end early.
            "made unreadable (mode 000)",
            Allowed {
                cut: true,
                gone: false,
                forbidden: true,
            },
            Box::new(|big: &Path| {
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(big, std::fs::Permissions::from_mode(0o000)).unwrap();
            }),
        ),
    ];
    for (name, allowed, fault) in faults {
        // Each fault starts from the original bytes, written anew (a new mtime, so new
        // validators) with the permissions restored.
        write_atomically(&big, &original);
        let after: Arc<Vec<u8>> = match name {
            "truncated to 1 KiB" => Arc::new(original[..1024].to_vec()),
            "overwritten in place, same length" => overwritten.clone(),
            "overwritten as cp -p does, same length and mtime" => copied_over.clone(),
            "replaced by a rename" => replaced.clone(),
            _ => original.clone(),
        };
        *versions.lock().unwrap() = vec![original.clone(), after];
        tokio::time::sleep(Duration::from_millis(20)).await;

        let load = Load::start(addr, versions.clone(), control.clone());
        load.wait_until_running().await;
        let at = Instant::now();
        tokio::task::spawn_blocking({
            let big = big.clone();
            move || fault(&big)
        })
        .await
        .unwrap();
        tokio::time::sleep(Duration::from_millis(600)).await;
        let (target, control_results, embedded) = load.finish().await;

        let counts = tally(&target);
        eprintln!(
            "{name}: target {counts:?}, control {:?}, {embedded} embedded answers \
             (the load ran on {:.0?} after the fault)",
            tally(&control_results),
            at.elapsed()
        );
        for (download, detail) in &target {
            match download {
                Download::Wrong => panic!("{name}: {TARGET}: {detail}"),
                Download::Cut => assert!(allowed.cut, "{name}: a download was cut"),
                Download::Gone => assert!(allowed.gone, "{name}: 404"),
                Download::Forbidden => assert!(allowed.forbidden, "{name}: 403"),
                Download::Complete(_) => {}
            }
        }
        assert!(
            counts.contains_key(&Download::Complete(0)),
            "{name}: no download of the original completed: the load never ran"
        );
        // After the fault, the file answers as it now is.
        let known = versions.lock().unwrap().clone();
        let (now, detail) = download(addr, TARGET, &known).await;
        let expected = if allowed.gone {
            Download::Gone
        } else if allowed.forbidden {
            Download::Forbidden
        } else if name == "given another mtime" {
            // The same bytes: the first version they match.
            Download::Complete(0)
        } else {
            Download::Complete(1)
        };
        assert_eq!(
            now, expected,
            "{name}: a request after the fault ({detail})"
        );
        for (download, detail) in &control_results {
            assert_eq!(
                *download,
                Download::Complete(0),
                "{name}: {CONTROL}: {detail}"
            );
        }
        assert!(embedded > 0, "{name}: no embedded request was answered");
        let fds = fds_settle_to(baseline).await;
        eprintln!("{name}: {fds} open descriptors after the load, {baseline} before");
        assert!(
            fds <= baseline,
            "{name}: {fds} open descriptors after the load, {baseline} before"
        );
    }
    assert_eq!(
        PANICS.load(Ordering::SeqCst),
        panics_before,
        "something panicked under the faults"
    );
    let _ = std::fs::remove_dir_all(&root);
}
