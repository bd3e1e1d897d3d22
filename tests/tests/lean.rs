//! A binary links only the code its table and its service use: with every file
//! embedded, no file stored compressed only, and no dev folder, the code that reads
//! files at run time (with mime_guess's table of media types) and the gzip decoder are
//! left out, though the service is built and answers. This test binary is such a
//! binary: it looks for what those bring into its own bytes.

use embed_assets::{Assets, Encoding, embed_assets};
use http::{Request, StatusCode};
use http_body_util::BodyExt;

/// Every file in memory, each with its own bytes stored.
static ASSETS: Assets = embed_assets!(
    "fixtures/site",
    compressed_only = false,
    exclude = ["big.bin"]
);

/// A media type of mime_guess's table that no file of the fixture has: present only
/// when the table is linked, which only the code reading files at run time uses (the
/// type of a dev-folder file added since the build). Written backwards, so that this
/// test does not put it in the binary itself.
const MEDIA_TYPE_TABLE: &[u8] = b"noitaripsdik.dnv/noitacilppa";

/// The message of flate2's gzip header parser, linked with the gzip decoder; backwards
/// too.
const GZIP_DECODER: &[u8] = b"redaeh pizg dilavni";

fn own_bytes() -> Vec<u8> {
    let path = std::env::current_exe().expect("the test binary's path");
    std::fs::read(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle)
}

fn contains_backwards(haystack: &[u8], backwards: &[u8]) -> bool {
    let needle: Vec<u8> = backwards.iter().rev().copied().collect();
    contains(haystack, &needle)
}

#[tokio::test]
async fn an_embedded_table_without_dev_mode_links_no_file_reading_nor_gzip_decoder() {
    assert!(ASSETS.iter().all(|asset| {
        asset.is_embedded()
            && asset
                .variant(Encoding::Identity)
                .is_some_and(|v| v.is_stored())
    }));
    // The service is linked and answers, so what it leaves out is left out by design.
    let service = ASSETS.service();
    let request = Request::get("/css/app.css")
        .header("host", "localhost")
        .header("accept-encoding", "br, gzip")
        .body(())
        .unwrap();
    let response = service.respond(&request).await;
    assert_eq!(response.status(), StatusCode::OK);
    let body = response.into_body().collect().await.unwrap().to_bytes();
    assert!(!body.is_empty());

    let bytes = own_bytes();
    // The search works: the table's own media type is in the binary.
    assert!(contains(&bytes, b"text/css; charset=utf-8"));
    assert!(
        !contains_backwards(&bytes, MEDIA_TYPE_TABLE),
        "mime_guess's table is linked: the code that reads files at run time is"
    );
    assert!(
        !contains_backwards(&bytes, GZIP_DECODER),
        "the gzip decoder is linked, with no file stored compressed only"
    );
}
