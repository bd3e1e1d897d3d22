//! `compressed_only = true` (the default): files with a gzip body leave their own bytes
//! out of the binary; the identity representation is decoded from gzip on first use
//! and then served like any other, with the same ETag, length and ranges.

use embed_assets::{Assets, Encoding, embed_assets};
use http::StatusCode;
use http::header::{CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_RANGE, ETAG};
use integration_tests::{SITE, fixture, get, head, header, public_fixture_paths, spawn_service};

static LEAN: Assets = embed_assets!("fixtures/site", compressed_only = true);
/// The same files with every identity body stored.
static FULL: Assets = embed_assets!("fixtures/site", compressed_only = false);

#[test]
fn compressed_only_is_the_default() {
    for (lean, default) in LEAN.iter().zip(SITE.iter()) {
        let stored = |a: &embed_assets::Asset| a.variant(Encoding::Identity).unwrap().is_stored();
        assert_eq!(stored(lean), stored(default), "{}", lean.path());
    }
    assert!(
        FULL.iter()
            .all(|a| a.variant(Encoding::Identity).unwrap().is_stored())
    );
}

#[test]
fn only_files_with_a_gzip_body_drop_their_bytes_and_the_report_says_so() {
    let report = LEAN.report();
    let lean: Vec<&str> = LEAN
        .iter()
        .filter(|a| !a.variant(Encoding::Identity).unwrap().is_stored())
        .map(|a| a.path())
        .collect();
    assert!(
        lean.contains(&"/css/app.css") && lean.contains(&"/js/app.js"),
        "{lean:?}"
    );
    for asset in LEAN.iter() {
        let has_gzip = asset.variant(Encoding::Gzip).is_some();
        let stored = asset.variant(Encoding::Identity).unwrap().is_stored();
        assert_eq!(stored, !has_gzip, "{}", asset.path());
    }
    assert_eq!(report.decoded_on_demand, lean.len());
    let saved: u64 = lean.iter().map(|p| fixture(p).len() as u64).sum();
    assert_eq!(report.decoded_on_demand_bytes, saved);
    assert_eq!(report.stored_bytes() + saved, FULL.report().stored_bytes());
    assert!(
        report.to_string().contains("decoded from gzip on demand"),
        "{report}"
    );
}

#[test]
fn decoded_bytes_equal_the_file_and_keep_the_build_time_etag() {
    for path in public_fixture_paths() {
        let (lean, full) = (LEAN.get(&path).unwrap(), FULL.get(&path).unwrap());
        assert_eq!(lean.etag(), full.etag(), "{path}");
        assert_eq!(lean.len(), full.len(), "{path}");
        let identity = lean.variant(Encoding::Identity).unwrap();
        assert_eq!(
            identity.len(),
            fixture(&path).len() as u64,
            "{path}: len before decoding"
        );
        if lean.is_embedded() {
            assert!(identity.body() == fixture(&path), "{path}");
            // Decoded once: the same bytes at the same address afterwards.
            assert_eq!(identity.body().as_ptr(), identity.body().as_ptr(), "{path}");
        }
    }
}

#[tokio::test]
async fn clients_without_compression_and_ranges_get_the_exact_bytes() {
    let addr = spawn_service(LEAN.service()).await;
    for path in ["/css/app.css", "/js/app.js", "/data.json"] {
        let file = fixture(path);
        let etag = LEAN.get(path).unwrap().etag();
        // HEAD first: it states the length without needing the bytes.
        let (status, headers, _) = head(addr, path, &[]).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(
            header(&headers, CONTENT_LENGTH),
            Some(&*file.len().to_string())
        );
        let (status, headers, body) = get(addr, path, &[]).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        assert_eq!(header(&headers, CONTENT_ENCODING), None, "{path}");
        assert_eq!(header(&headers, ETAG), Some(etag), "{path}");
        assert!(body == file, "{path}: identity body");
        let (status, headers, body) = get(addr, path, &[("range", "bytes=10-99")]).await;
        assert_eq!(status, StatusCode::PARTIAL_CONTENT, "{path}");
        assert_eq!(
            header(&headers, CONTENT_RANGE),
            Some(&*format!("bytes 10-99/{}", file.len()))
        );
        assert!(body[..] == file[10..100], "{path}: range");
        // Compressing clients get the stored bodies, as without the option.
        let (_, headers, _) = get(addr, path, &[("accept-encoding", "gzip")]).await;
        assert_eq!(header(&headers, CONTENT_ENCODING), Some("gzip"), "{path}");
    }
}
