//! What `max_embed_size` sends to disk: what the binary would store, not a file's raw
//! size. A compressible file over the limit is embedded compressed (its own bytes
//! decoded from gzip for a client that wants them) and served from memory; a file
//! that does not compress stays on disk; `disk` globs send files to disk whatever
//! their size. The build's warning about files on disk is in `on_disk.rs`.

use std::io::Read;

use embed_assets::{Assets, Encoding, embed_assets};
use http::StatusCode;
use http::header::{CONTENT_ENCODING, CONTENT_LENGTH, ETAG};
use integration_tests::{fixture, get, header, spawn_service};

/// `css/app.css` (33 KB, a 3.4 KB gzip body) is over the limit and compresses;
/// `big.bin` (3 MiB of noise) is over it and does not.
static LIMITED: Assets = embed_assets!(
    "fixtures/site",
    max_embed_size = "16 KiB",
    on_disk = "allow"
);

/// The same limit with gzip off: nothing to decode a file's own bytes from.
static NO_GZIP: Assets = embed_assets!(
    "fixtures/site",
    max_embed_size = "16 KiB",
    gzip = false,
    on_disk = "allow"
);

/// The style sheets on disk by name, though they are small.
static LISTED: Assets = embed_assets!("fixtures/site", disk = "css/*", on_disk = "allow");

const LIMIT: u64 = 16 << 10;

#[test]
fn a_compressible_file_over_the_limit_is_embedded_compressed_only() {
    let css = LIMITED.get("/css/app.css").unwrap();
    assert!(css.len() > LIMIT, "the fixture is over the limit");
    assert!(css.is_embedded());
    let identity = css.variant(Encoding::Identity).unwrap();
    assert!(!identity.is_stored(), "its own bytes are not in the binary");
    let gzip = css.variant(Encoding::Gzip).unwrap();
    assert!(gzip.is_stored() && gzip.len() <= LIMIT);
    assert!(css.variant(Encoding::Brotli).unwrap().len() < gzip.len());
    assert!(css.body(Encoding::Identity).unwrap() == fixture("/css/app.css"));
}

#[test]
fn a_file_over_the_limit_that_does_not_compress_stays_on_disk() {
    let big = LIMITED.get("/big.bin").unwrap();
    assert!(!big.is_embedded());
    assert_eq!(big.len(), fixture("/big.bin").len() as u64);
    // Under the limit, it is embedded whether it compresses or not.
    assert!(LIMITED.get("/image.png").unwrap().is_embedded());
    let report = LIMITED.report();
    assert_eq!(report.on_disk, 1, "{report}");
}

#[test]
fn without_gzip_a_file_over_the_limit_stays_on_disk() {
    assert!(!NO_GZIP.get("/css/app.css").unwrap().is_embedded());
    assert!(
        NO_GZIP.get("/js/app.js").unwrap().is_embedded(),
        "under the limit"
    );
}

#[test]
fn disk_globs_send_small_files_to_disk() {
    let css = LISTED.get("/css/app.css").unwrap();
    assert!(!css.is_embedded());
    assert!(LISTED.get("/js/app.js").unwrap().is_embedded());
    assert!(
        LISTED.get("/big.bin").unwrap().is_embedded(),
        "3 MiB is under 5 MiB"
    );
}

fn brotli_decode(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    brotli_decompressor::Decompressor::new(body, 4096)
        .read_to_end(&mut out)
        .unwrap();
    out
}

#[tokio::test]
async fn the_compressed_file_is_served_from_memory_with_no_folder_on_disk() {
    let empty = tempfile_dir();
    let addr = spawn_service(LIMITED.service().disk_root(&empty)).await;
    let css = LIMITED.get("/css/app.css").unwrap();
    let file = fixture("/css/app.css");

    let (status, headers, body) =
        get(addr, "/css/app.css", &[("accept-encoding", "br, gzip")]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(header(&headers, CONTENT_ENCODING), Some("br"));
    let br = css.variant(Encoding::Brotli).unwrap();
    assert_eq!(header(&headers, ETAG), Some(br.etag()));
    assert!(brotli_decode(&body) == file);

    let (status, headers, body) = get(addr, "/css/app.css", &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(header(&headers, CONTENT_ENCODING), None);
    assert_eq!(
        header(&headers, CONTENT_LENGTH),
        Some(&*file.len().to_string())
    );
    assert!(body == file, "decoded from gzip");

    // The file that stayed on disk is looked for in the (empty) folder.
    let (status, _, _) = get(addr, "/big.bin", &[]).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    std::fs::remove_dir_all(empty).unwrap();
}

/// An empty folder of this test's own.
fn tempfile_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("embed-assets-size-limit-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
