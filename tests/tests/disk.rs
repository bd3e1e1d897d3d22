//! Files over `max_embed_size`: listed at build time, streamed from disk at run time,
//! with the same HTTP semantics as embedded files. `big.bin` (3 MiB) is on disk here.

use std::path::{Path, PathBuf};
use std::time::Duration;

use embed_assets::{Assets, Error, embed_assets};
use http::StatusCode;
use http::header::{
    ACCEPT_RANGES, CONTENT_LENGTH, CONTENT_RANGE, CONTENT_TYPE, ETAG, LAST_MODIFIED, VARY,
};
use integration_tests::{
    Stream, connect, fixture, get, head, header, noise, parse_multipart, site_dir, spawn_service,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

static DISK: Assets = embed_assets!("fixtures/site", max_embed_size = "1 MiB", on_disk = "allow");

const BIG: &str = "/big.bin";

/// The files the macro lists by default (no dotfiles), as URL paths.
static SITE_FILES: std::sync::LazyLock<Vec<String>> =
    std::sync::LazyLock::new(integration_tests::public_fixture_paths);

/// A copy of the site's on-disk files in a fresh folder the test may change.
struct Root(PathBuf);

impl Root {
    fn new(name: &str) -> Self {
        let root =
            std::env::temp_dir().join(format!("embed-disk-test-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).unwrap();
        std::fs::copy(site_dir().join("big.bin"), root.join("big.bin")).unwrap();
        Root(root)
    }

    fn big(&self) -> PathBuf {
        self.0.join("big.bin")
    }
}

impl Drop for Root {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn only_small_files_are_embedded() {
    let big = DISK.get(BIG).expect("listed");
    assert!(!big.is_embedded());
    assert_eq!(big.disk_path(), Some("big.bin"));
    assert_eq!(big.len(), 3 << 20);
    assert!(big.body(embed_assets::Encoding::Identity).is_none());
    assert!(DISK.get("/css/app.css").expect("listed").is_embedded());
    assert!(
        DISK.build_root()
            .is_some_and(|root| Path::new(root).join("big.bin").is_file())
    );
}

#[tokio::test]
async fn on_disk_files_download_byte_exact_from_the_build_folder() {
    let addr = spawn_service(DISK.service()).await;
    let (status, headers, body) = get(addr, BIG, &[("accept-encoding", "br, gzip")]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(&body[..], &fixture(BIG)[..]);
    assert_eq!(header(&headers, CONTENT_LENGTH), Some("3145728"));
    assert_eq!(
        header(&headers, CONTENT_TYPE),
        Some("application/octet-stream")
    );
    assert_eq!(header(&headers, ACCEPT_RANGES), Some("bytes"));
    assert!(
        headers.get(VARY).is_none(),
        "on-disk files have no encoded variants"
    );
    assert!(headers.get(LAST_MODIFIED).is_some());
    let etag = header(&headers, ETAG).expect("etag");
    assert!(
        etag.starts_with('"') && etag.ends_with('"') && !etag.starts_with("W/"),
        "{etag}"
    );
}

/// `cache_tags`: a file read from disk is tagged as such, on its 200 and its 206.
#[tokio::test]
async fn on_disk_files_carry_the_disk_purge_tag() {
    let addr = spawn_service(DISK.service().cache_tags("media")).await;
    for range in [None, Some("bytes=0-99")] {
        let fields: Vec<(&str, &str)> = range.map(|range| ("range", range)).into_iter().collect();
        let (status, headers, _) = get(addr, BIG, &fields).await;
        assert!(status.is_success(), "{status}");
        let tag = |name| header(&headers, http::HeaderName::from_static(name));
        assert_eq!(tag("cache-tag"), Some("media,media-disk"), "{range:?}");
        assert_eq!(tag("surrogate-key"), Some("media media-disk"), "{range:?}");
    }
    // An embedded file of the same table is not.
    let (_, headers, _) = get(addr, "/css/app.css", &[]).await;
    assert_eq!(
        header(&headers, http::HeaderName::from_static("cache-tag")),
        Some("media,media-other")
    );
}

#[tokio::test]
async fn head_and_preconditions_work_as_for_embedded_files() {
    let addr = spawn_service(DISK.service()).await;
    let (_, get_headers, _) = get(addr, BIG, &[]).await;
    let (status, head_headers, body) = head(addr, BIG, &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert!(body.is_empty());
    for name in [
        CONTENT_LENGTH,
        CONTENT_TYPE,
        ETAG,
        LAST_MODIFIED,
        ACCEPT_RANGES,
    ] {
        assert_eq!(head_headers.get(&name), get_headers.get(&name), "{name}");
    }
    let etag = header(&get_headers, ETAG).unwrap();
    let (status, headers, body) = get(addr, BIG, &[("if-none-match", etag)]).await;
    assert_eq!(status, StatusCode::NOT_MODIFIED);
    assert!(body.is_empty());
    assert_eq!(header(&headers, ETAG), Some(etag));
    let last_modified = header(&get_headers, LAST_MODIFIED).unwrap();
    let (status, _, _) = get(addr, BIG, &[("if-modified-since", last_modified)]).await;
    assert_eq!(status, StatusCode::NOT_MODIFIED);
    let (status, _, _) = get(addr, BIG, &[("if-match", "\"other\"")]).await;
    assert_eq!(status, StatusCode::PRECONDITION_FAILED);
    let (status, _, _) = integration_tests::send(addr, http::Method::POST, BIG, &[]).await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
}

#[tokio::test]
async fn ranges_of_on_disk_files_are_byte_exact() {
    let addr = spawn_service(DISK.service().chunk_size(64 * 1024)).await;
    let big = fixture(BIG);
    let len = big.len();
    for (range, start, end) in [
        ("bytes=0-65535", 0, 65_535),
        ("bytes=1000000-1999999", 1_000_000, 1_999_999),
        ("bytes=-70000", len - 70_000, len - 1),
        ("bytes=65530-65541", 65_530, 65_541),
    ] {
        let (status, headers, body) = get(addr, BIG, &[("range", range)]).await;
        assert_eq!(status, StatusCode::PARTIAL_CONTENT, "Range: {range}");
        assert_eq!(
            header(&headers, CONTENT_RANGE),
            Some(&*format!("bytes {start}-{end}/{len}"))
        );
        assert_eq!(&body[..], &big[start..=end], "Range: {range}");
    }
    let (status, headers, body) =
        get(addr, BIG, &[("range", "bytes=0-9, 2000000-2100000, -10")]).await;
    assert_eq!(status, StatusCode::PARTIAL_CONTENT);
    assert_eq!(
        header(&headers, CONTENT_LENGTH),
        Some(&*body.len().to_string())
    );
    let parts = parse_multipart(header(&headers, CONTENT_TYPE).unwrap(), &body);
    let expected = [(0, 9), (2_000_000, 2_100_000), (len - 10, len - 1)];
    assert_eq!(parts.len(), expected.len());
    for (part, (start, end)) in parts.iter().zip(expected) {
        assert_eq!(part.content_type, "application/octet-stream");
        assert_eq!(part.content_range, format!("bytes {start}-{end}/{len}"));
        assert!(part.bytes[..] == big[start..=end], "part {start}-{end}");
    }
    let (status, headers, _) = get(addr, BIG, &[("range", &format!("bytes={len}-"))]).await;
    assert_eq!(status, StatusCode::RANGE_NOT_SATISFIABLE);
    assert_eq!(
        header(&headers, CONTENT_RANGE),
        Some(&*format!("bytes */{len}"))
    );
    let etag = header(&headers, ETAG).unwrap().to_owned();
    let (status, _, _) = get(addr, BIG, &[("range", "bytes=0-9"), ("if-range", &etag)]).await;
    assert_eq!(status, StatusCode::PARTIAL_CONTENT);
    let (status, _, body) = get(
        addr,
        BIG,
        &[("range", "bytes=0-9"), ("if-range", "\"stale\"")],
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body.len(), len);
}

#[tokio::test]
async fn concurrent_downloads_are_all_byte_exact() {
    let addr = spawn_service(DISK.service().chunk_size(256 * 1024)).await;
    let big = fixture(BIG);
    let downloads: Vec<_> = (0..8).map(|_| tokio::spawn(get(addr, BIG, &[]))).collect();
    for download in downloads {
        let (status, _, body) = download.await.unwrap();
        assert_eq!(status, StatusCode::OK);
        assert!(body[..] == big[..], "a concurrent download differs");
    }
}

#[tokio::test]
async fn a_changed_file_gets_new_validators_and_a_deleted_one_is_404() {
    let root = Root::new("changes");
    let addr = spawn_service(DISK.service().disk_root(&root.0)).await;
    let (status, before, body) = get(addr, BIG, &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body.len(), 3 << 20);
    let old_etag = header(&before, ETAG).unwrap().to_owned();

    // Grown: the new length and a new ETag, and the old ETag no longer matches.
    let grown = noise(3 << 20 | 12_345, 7);
    std::fs::write(root.big(), &grown).unwrap();
    let (status, after, body) = get(addr, BIG, &[("if-none-match", &old_etag)]).await;
    assert_eq!(status, StatusCode::OK, "a stale ETag must not give 304");
    assert!(body[..] == grown[..]);
    assert_ne!(header(&after, ETAG), Some(&*old_etag));
    assert_eq!(
        header(&after, CONTENT_LENGTH),
        Some(&*grown.len().to_string())
    );

    // Truncated: the new, shorter length.
    std::fs::write(root.big(), b"short").unwrap();
    let (status, _, body) = get(addr, BIG, &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(&body[..], b"short");

    std::fs::remove_file(root.big()).unwrap();
    let (status, _, _) = get(addr, BIG, &[]).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // The server goes on serving everything else.
    let (status, _, _) = get(addr, "/css/app.css", &[]).await;
    assert_eq!(status, StatusCode::OK);
}

/// A named pipe where the file was: opening it would wait for a writer forever, so it
/// must be refused as "not a file" (404) at once, by requests and the start-up check.
#[cfg(unix)]
#[tokio::test]
async fn a_named_pipe_in_place_of_a_file_is_a_prompt_404() {
    let root = Root::new("fifo");
    std::fs::remove_file(root.big()).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(root.big())
        .status()
        .expect("mkfifo (coreutils)");
    assert!(made.success());
    let service = DISK.service().disk_root(&root.0);
    assert!(
        service.check_disk().is_err(),
        "the check must not accept a pipe"
    );
    let addr = spawn_service(service).await;
    let answer = tokio::time::timeout(std::time::Duration::from_secs(10), get(addr, BIG, &[]));
    let (status, _, _) = answer.await.expect("answered without waiting on the pipe");
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _, _) = get(addr, "/css/app.css", &[]).await;
    assert_eq!(status, StatusCode::OK);
}

/// A connection with `GET big.bin` sent on it (`Connection: close`), to read as slowly
/// as the test likes.
async fn start_download(addr: std::net::SocketAddr) -> Box<dyn Stream> {
    let mut stream = connect(addr).await;
    stream
        .write_all(
            format!("GET {BIG} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").as_bytes(),
        )
        .await
        .unwrap();
    stream.flush().await.unwrap();
    stream
}

#[tokio::test]
async fn a_file_truncated_mid_download_closes_the_connection_short() {
    let root = Root::new("truncate");
    // Far larger than the socket buffers, so the server is still reading when we cut.
    let len = 64 << 20;
    std::fs::write(root.big(), noise(len, 3)).unwrap();
    let addr = spawn_service(DISK.service().disk_root(&root.0).chunk_size(64 * 1024)).await;
    let mut stream = start_download(addr).await;
    let mut received = vec![0u8; 256 * 1024];
    let first = stream.read(&mut received).await.unwrap();
    let head = String::from_utf8_lossy(&received[..first]).to_string();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(
        head.to_ascii_lowercase()
            .contains(&format!("content-length: {len}")),
        "{head}"
    );
    std::fs::OpenOptions::new()
        .write(true)
        .open(root.big())
        .unwrap()
        .set_len(1024)
        .unwrap();
    let mut total = first;
    let read_all = async {
        loop {
            match stream.read(&mut received).await {
                Ok(0) | Err(_) => break,
                Ok(n) => total += n,
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(30), read_all)
        .await
        .expect("the server closes the connection");
    assert!(
        total < len,
        "the body must end short of Content-Length, got {total} bytes"
    );
    // And the server keeps serving.
    let (status, _, _) = get(addr, "/index.html", &[]).await;
    assert_eq!(status, StatusCode::OK);
}

/// A file overwritten in place while it streams: the download is never a whole body of
/// two versions. Either it is one version whole, or it ends short of its
/// `Content-Length` (under `serve`, whose `sendfile` queues the page cache's pages, the
/// part received can end with bytes of the new version: it prints how many), and then
/// a client resuming as browsers and download managers do (`Range` from where it
/// stopped, `If-Range` with the validator it was given) gets the whole new file (200),
/// never a tail that would complete bytes of two versions.
#[tokio::test]
async fn a_download_cut_short_by_an_overwrite_resumes_as_the_whole_new_file() {
    let root = Root::new("overwrite-resume");
    let len = 64 << 20;
    let (old, new) = (noise(len, 5), noise(len, 6));
    std::fs::write(root.big(), &old).unwrap();
    // A date a second old, so that `Last-Modified` validates if no tag is known yet.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let addr = spawn_service(DISK.service().disk_root(&root.0).chunk_size(64 * 1024)).await;
    let mut stream = start_download(addr).await;
    let mut received = Vec::with_capacity(len + 4096);
    let mut buffer = vec![0u8; 256 * 1024];
    let head_end = loop {
        let n = stream.read(&mut buffer).await.unwrap();
        assert!(n > 0, "closed before the head");
        received.extend_from_slice(&buffer[..n]);
        if let Some(at) = received.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
    };
    let head = String::from_utf8_lossy(&received[..head_end]).to_ascii_lowercase();
    assert!(head.starts_with("http/1.1 200"), "{head}");
    let field = |name: &str| {
        head.lines()
            .find_map(|line| line.strip_prefix(&format!("{name}: ")))
            .map(str::to_owned)
    };
    let validator = field("etag")
        .or_else(|| field("last-modified"))
        .expect("a validator to resume with");
    // In place, as `cp` or a careless deploy writes it: the same length.
    {
        use std::io::Write;
        let mut file = std::fs::File::options()
            .write(true)
            .open(root.big())
            .unwrap();
        file.write_all(&new).unwrap();
    }
    let read_rest = async {
        loop {
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => break,
                Ok(n) => received.extend_from_slice(&buffer[..n]),
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(30), read_rest)
        .await
        .expect("the download ends");
    let body = &received[head_end..];
    if body.len() == len {
        assert!(
            body == &old[..] || body == &new[..],
            "a whole body of two versions"
        );
        return;
    }
    assert!(body.len() < len, "more than Content-Length");
    let newer = body
        .iter()
        .zip(&old)
        .filter(|(got, was)| got != was)
        .count();
    eprintln!(
        "cut short after {} of {len} bytes, {newer} of them not the old file's",
        body.len()
    );
    // Resumed from where it stopped, with the validator it was given.
    let resume = [
        ("range", format!("bytes={}-", body.len())),
        ("if-range", validator.clone()),
    ];
    let resume: Vec<(&str, &str)> = resume.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let (status, _, whole) = get(addr, BIG, &resume).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "a tail of the new file after {} bytes",
        body.len()
    );
    assert!(whole[..] == new[..], "the whole new file");
}

#[test]
fn the_startup_check_lists_every_missing_file() {
    assert!(
        DISK.service().check_disk().is_ok(),
        "the build folder has every file"
    );
    let root = Root::new("check");
    std::fs::remove_file(root.big()).unwrap();
    std::fs::create_dir(root.big()).unwrap();
    let err = DISK.service().disk_root(&root.0).check_disk().unwrap_err();
    let Error::Disk(problems) = &err else {
        panic!("unexpected {err:?}")
    };
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].asset, BIG);
    assert!(err.to_string().contains("/big.bin"), "{err}");
    let empty = std::env::temp_dir().join(format!("embed-disk-test-{}-empty", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    let err = DISK.service().disk_root(&empty).check_disk().unwrap_err();
    assert!(
        matches!(&err, Error::Disk(p) if p[0].source.kind() == std::io::ErrorKind::NotFound),
        "{err:?}"
    );
}

#[test]
fn the_report_counts_embedded_encoded_and_on_disk_files() {
    let report = DISK.report();
    let all = SITE_FILES.len();
    assert_eq!(report.files, all);
    assert_eq!(report.on_disk, 1, "big.bin");
    assert_eq!(report.on_disk_bytes, 3 << 20);
    assert_eq!(report.embedded, all - 1);
    let identity: u64 = SITE_FILES
        .iter()
        .filter(|p| *p != BIG)
        .map(|p| fixture(p).len() as u64)
        .sum();
    assert_eq!(report.identity_bytes, identity);
    use embed_assets::Encoding::{Brotli, Gzip, Identity, Zstd};
    let stored = |encoding| -> (usize, u64) {
        let bodies: Vec<u64> = DISK
            .iter()
            .filter(|a| a.variant(encoding).is_some_and(|v| v.is_stored()))
            .filter_map(|a| a.body(encoding))
            .map(|b| b.len() as u64)
            .collect();
        (bodies.len(), bodies.iter().sum())
    };
    for encoding in [Brotli, Gzip, Zstd, Identity] {
        let counted = report.coding(encoding);
        assert_eq!(
            (counted.files, counted.bytes),
            stored(encoding),
            "{encoding}"
        );
    }
    let (br, gzip) = (report.coding(Brotli), report.coding(Gzip));
    assert!(br.files > 0 && gzip.files >= br.files - 1);
    // By default (`compressed_only`), files with a gzip body store no bytes of their own.
    assert!(report.decoded_on_demand > 0);
    assert_eq!(
        report.stored_bytes(),
        report.identity_bytes - report.decoded_on_demand_bytes
            + gzip.bytes
            + br.bytes
            + report.coding(Zstd).bytes
    );
    let line = report.to_string();
    assert!(
        line.starts_with(&format!("{all} files: {} embedded", all - 1)),
        "{line}"
    );
    assert!(line.ends_with("1 on disk (3.0 MiB)"), "{line}");
}

/// The content ETag the runtime computes for `bytes` (SHA-256, the first 128 bits in hex).
fn content_etag(bytes: &[u8]) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(bytes);
    let hex: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
    format!("\"{hex}\"")
}

fn set_mtime(path: &Path, secs: u64) {
    let time = std::time::UNIX_EPOCH + Duration::from_secs(secs);
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(time)
        .unwrap();
}

#[tokio::test]
async fn replicas_with_the_same_bytes_and_other_mtimes_send_the_same_validator() {
    // Two servers, as two replicas behind a balancer: the same file, copied without its
    // times (`rsync` without `-t`, a container layer).
    let (a, b) = (Root::new("replica-a"), Root::new("replica-b"));
    set_mtime(&a.big(), 1_600_000_000);
    set_mtime(&b.big(), 1_700_000_000);
    let at_a = spawn_service(DISK.service().disk_root(&a.0)).await;
    let at_b = spawn_service(DISK.service().disk_root(&b.0)).await;
    let (_, from_a, _) = get(at_a, BIG, &[]).await;
    let (_, from_b, _) = get(at_b, BIG, &[]).await;
    let etag = header(&from_a, ETAG).expect("an ETag").to_owned();
    assert_eq!(header(&from_b, ETAG), Some(&*etag));
    assert_eq!(etag, content_etag(&fixture(BIG)), "the tag is the bytes'");
    let mtime = |root: &Root| std::fs::metadata(root.big()).unwrap().modified().unwrap();
    assert_ne!(mtime(&a), mtime(&b), "the replicas' files have other times");
    // A cache that stored A's answer revalidates at B; a player resumes at B.
    let (status, _, _) = get(at_b, BIG, &[("if-none-match", &etag)]).await;
    assert_eq!(status, StatusCode::NOT_MODIFIED);
    let resume = [("range", "bytes=1000-1999"), ("if-range", &*etag)];
    let (status, _, body) = get(at_b, BIG, &resume).await;
    assert_eq!(status, StatusCode::PARTIAL_CONTENT);
    assert_eq!(&body[..], &fixture(BIG)[1000..2000]);
}

#[tokio::test]
async fn an_overwrite_that_keeps_length_and_mtime_gets_a_new_etag_and_no_stale_range() {
    let root = Root::new("cp-p");
    let addr = spawn_service(DISK.service().disk_root(&root.0)).await;
    let (_, before, _) = get(addr, BIG, &[]).await;
    let old_etag = header(&before, ETAG).expect("an ETag").to_owned();
    let mtime = std::fs::metadata(root.big()).unwrap().modified().unwrap();
    // What `cp -p new big.bin` does: the same length written in place, the times put
    // back, so only the ctime (the kernel's) tells.
    std::thread::sleep(Duration::from_millis(20));
    let new = noise(3 << 20, 99);
    {
        use std::io::Write;
        let mut file = std::fs::File::options()
            .write(true)
            .open(root.big())
            .unwrap();
        file.write_all(&new).unwrap();
        file.set_modified(mtime).unwrap();
    }
    assert_eq!(
        std::fs::metadata(root.big()).unwrap().modified().unwrap(),
        mtime
    );
    let (status, after, body) = get(addr, BIG, &[("if-none-match", &old_etag)]).await;
    assert_eq!(status, StatusCode::OK, "the old tag names other bytes");
    assert!(body[..] == new[..]);
    assert_eq!(header(&after, ETAG), Some(&*content_etag(&new)));
    // A download resumed with the old tag gets the whole new file, not a tail of it.
    let resume = [("range", "bytes=1048576-"), ("if-range", &*old_etag)];
    let (status, _, body) = get(addr, BIG, &resume).await;
    assert_eq!(status, StatusCode::OK);
    assert!(body[..] == new[..]);
}

#[tokio::test]
async fn a_changed_file_whose_old_mtime_was_put_back_is_never_a_304_by_date() {
    let root = Root::new("npm-date");
    // Over the size hashed at once, so the first answers may carry only a date; and
    // the time npm gives every file it writes (1985-10-26).
    let old = noise(8 << 20, 11);
    std::fs::write(root.big(), &old).unwrap();
    let npm = 499_162_500;
    set_mtime(&root.big(), npm);
    // A file that changed less than a second ago has no date (the next test): this
    // one is older when it is asked for.
    std::thread::sleep(Duration::from_millis(1100));
    let addr = spawn_service(DISK.service().disk_root(&root.0)).await;
    let (status, first, body) = get(addr, BIG, &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert!(body[..] == old[..]);
    let date = header(&first, LAST_MODIFIED).expect("a date").to_owned();
    // In a later second (the file was written over a second ago): a line appended, and
    // the old mtime put back (`cp -p`, npm).
    {
        use std::io::Write;
        let mut file = std::fs::File::options()
            .append(true)
            .open(root.big())
            .unwrap();
        file.write_all(b"\n// one more line\n").unwrap();
    }
    set_mtime(&root.big(), npm);
    let new = std::fs::read(root.big()).unwrap();
    let (status, headers, body) = get(addr, BIG, &[("if-modified-since", &date)]).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "the date the client has is of other bytes"
    );
    assert!(body[..] == new[..], "the new bytes");
    assert_ne!(header(&headers, LAST_MODIFIED), Some(&*date));
    // A download resumed by date gets the whole new file, not a tail of it.
    let resume = [("range", "bytes=0-9"), ("if-range", &*date)];
    let (status, _, body) = get(addr, BIG, &resume).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body.len(), new.len());
    // Unchanged since, the new date (given once the change is a second old) is a 304.
    std::thread::sleep(Duration::from_millis(1100));
    let (_, headers, _) = get(addr, BIG, &[]).await;
    let date = header(&headers, LAST_MODIFIED).expect("a date").to_owned();
    let (status, _, _) = get(addr, BIG, &[("if-modified-since", &date)]).await;
    assert_eq!(status, StatusCode::NOT_MODIFIED);
}

#[cfg(unix)]
/// The second of the file's last status change, as an HTTP date: the `Last-Modified`
/// a client given this second's date would send back.
fn ctime_date(path: &Path) -> String {
    use std::os::unix::fs::MetadataExt;
    let ctime = std::fs::metadata(path).unwrap().ctime();
    httpdate::fmt_http_date(std::time::UNIX_EPOCH + Duration::from_secs(ctime as u64))
}

#[cfg(unix)]
#[tokio::test]
async fn a_file_changed_again_within_the_second_of_its_date_is_never_a_304_by_date() {
    let root = Root::new("racy-date");
    let npm = 499_162_500;
    let addr = spawn_service(DISK.service().disk_root(&root.0)).await;
    // Within one second: written, asked for, rewritten in place with its mtime put back
    // (npm); only the ctime tells, and it stays in the same second. A machine that
    // crosses a second in between tries again.
    let mut tries = 0;
    let (date, new) = loop {
        tries += 1;
        assert!(tries <= 5, "every try crossed a second");
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap();
        std::thread::sleep(Duration::from_nanos(u64::from(
            1_000_000_000 - now.subsec_nanos(),
        )));
        let old = noise(1 << 20, 21 + tries);
        std::fs::write(root.big(), &old).unwrap();
        set_mtime(&root.big(), npm);
        let date = ctime_date(&root.big());
        let (status, first, body) = get(addr, BIG, &[]).await;
        assert_eq!(status, StatusCode::OK);
        assert!(body[..] == old[..]);
        assert_eq!(
            header(&first, LAST_MODIFIED),
            None,
            "a file that changed this second has no date yet"
        );
        let new = noise(1 << 20, 41 + tries);
        {
            use std::io::Write;
            let mut file = std::fs::File::options()
                .write(true)
                .open(root.big())
                .unwrap();
            file.write_all(&new).unwrap();
        }
        set_mtime(&root.big(), npm);
        if ctime_date(&root.big()) == date {
            break (date, new);
        }
    };
    // A client with that second's date (from any server that gave it one) asks.
    let (status, headers, body) = get(addr, BIG, &[("if-modified-since", &date)]).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "the date cannot tell these bytes from the last"
    );
    assert!(body[..] == new[..]);
    assert_eq!(header(&headers, LAST_MODIFIED), None);
    // A second on, the file has its date, and a client revalidates by it.
    std::thread::sleep(Duration::from_millis(1100));
    let (_, headers, _) = get(addr, BIG, &[]).await;
    let date = header(&headers, LAST_MODIFIED)
        .expect("a date, a second on")
        .to_owned();
    let (status, _, _) = get(addr, BIG, &[("if-modified-since", &date)]).await;
    assert_eq!(status, StatusCode::NOT_MODIFIED);
}

#[tokio::test]
async fn a_large_file_is_served_at_once_and_its_content_etag_follows() {
    let root = Root::new("large");
    // Over the size hashed at once: the first answers do not wait for the hash.
    let large = noise(24 << 20, 5);
    std::fs::write(root.big(), &large).unwrap();
    let addr = spawn_service(DISK.service().disk_root(&root.0)).await;
    let started = std::time::Instant::now();
    let (status, first, _) = head(addr, BIG, &[]).await;
    let first_answer = started.elapsed();
    assert_eq!(status, StatusCode::OK);
    assert_eq!(header(&first, CONTENT_LENGTH), Some("25165824"));
    eprintln!(
        "first answer for a 24 MiB file after {first_answer:?}, ETag {:?}",
        header(&first, ETAG)
    );
    let expected = content_etag(&large);
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let etag = loop {
        let (_, headers, _) = head(addr, BIG, &[]).await;
        if let Some(etag) = header(&headers, ETAG) {
            break etag.to_owned();
        }
        assert!(std::time::Instant::now() < deadline, "no ETag after 20 s");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(etag, expected);
    let (status, _, body) = get(addr, BIG, &[("if-none-match", &etag)]).await;
    assert_eq!((status, body.len()), (StatusCode::NOT_MODIFIED, 0));
}
