//! RFC 9110 §14 (Range) and §13.1.5 (If-Range) over real HTTP, on embedded assets.

use http::StatusCode;
use http::header::{
    ACCEPT_RANGES, CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_RANGE, CONTENT_TYPE, ETAG,
    LAST_MODIFIED, VARY,
};
use integration_tests::{fixture, get, head, header, parse_multipart, spawn_site, unbrotli};

const CSS: &str = "/css/app.css";
const PNG: &str = "/image.png";

#[tokio::test]
async fn single_ranges_at_start_middle_and_end_are_byte_exact() {
    let addr = spawn_site().await;
    let css = fixture(CSS);
    let len = css.len();
    let (_, full_headers, _) = get(addr, CSS, &[]).await;
    for (range, start, end) in [
        ("bytes=0-99", 0, 99),
        ("bytes=1000-1999", 1000, 1999),
        ("bytes=-100", len - 100, len - 1),
        (&format!("bytes={}-", len - 7), len - 7, len - 1),
        ("bytes=0-0", 0, 0),
        (&format!("bytes=100-{}", len * 2), 100, len - 1),
    ] {
        let (status, headers, body) = get(addr, CSS, &[("range", range)]).await;
        assert_eq!(status, StatusCode::PARTIAL_CONTENT, "Range: {range}");
        assert_eq!(&body[..], &css[start..=end], "Range: {range}");
        assert_eq!(
            header(&headers, CONTENT_RANGE),
            Some(&*format!("bytes {start}-{end}/{len}")),
            "Range: {range}"
        );
        assert_eq!(
            header(&headers, CONTENT_LENGTH),
            Some(&*(end - start + 1).to_string())
        );
        assert_eq!(header(&headers, ACCEPT_RANGES), Some("bytes"));
        // The same representation as the 200: same validators, same type.
        assert_eq!(headers.get(ETAG), full_headers.get(ETAG));
        assert_eq!(headers.get(LAST_MODIFIED), full_headers.get(LAST_MODIFIED));
        assert_eq!(headers.get(CONTENT_TYPE), full_headers.get(CONTENT_TYPE));
        assert_eq!(header(&headers, VARY), Some("accept-encoding"));
    }
}

#[tokio::test]
async fn a_range_applies_to_the_negotiated_encoding() {
    let addr = spawn_site().await;
    let (_, full_headers, br_full) = get(addr, CSS, &[("accept-encoding", "br")]).await;
    assert_eq!(header(&full_headers, CONTENT_ENCODING), Some("br"));
    let (status, headers, body) = get(
        addr,
        CSS,
        &[("accept-encoding", "br"), ("range", "bytes=10-29")],
    )
    .await;
    assert_eq!(status, StatusCode::PARTIAL_CONTENT);
    assert_eq!(header(&headers, CONTENT_ENCODING), Some("br"));
    assert_eq!(
        headers.get(ETAG),
        full_headers.get(ETAG),
        "the br variant's own ETag"
    );
    assert_eq!(&body[..], &br_full[10..30]);
    assert_eq!(
        header(&headers, CONTENT_RANGE),
        Some(&*format!("bytes 10-29/{}", br_full.len()))
    );
    // Reassembling the br ranges gives a body that decodes to the file.
    let (_, _, head_part) = get(
        addr,
        CSS,
        &[("accept-encoding", "br"), ("range", "bytes=0-99")],
    )
    .await;
    let (_, _, tail_part) = get(
        addr,
        CSS,
        &[("accept-encoding", "br"), ("range", "bytes=100-")],
    )
    .await;
    let whole = [head_part.to_vec(), tail_part.to_vec()].concat();
    assert_eq!(unbrotli(&whole), fixture(CSS));
}

#[tokio::test]
async fn several_ranges_come_back_as_multipart_byteranges() {
    let addr = spawn_site().await;
    let png = fixture(PNG);
    let len = png.len();
    let (status, headers, body) = get(addr, PNG, &[("range", "bytes=0-9, 100-199, -16")]).await;
    assert_eq!(status, StatusCode::PARTIAL_CONTENT);
    let content_type = header(&headers, CONTENT_TYPE).expect("content-type");
    assert!(
        content_type.starts_with("multipart/byteranges; boundary="),
        "{content_type}"
    );
    assert!(
        headers.get(CONTENT_RANGE).is_none(),
        "no top-level Content-Range on multipart"
    );
    assert_eq!(
        header(&headers, CONTENT_LENGTH),
        Some(&*body.len().to_string())
    );
    let parts = parse_multipart(content_type, &body);
    let expected = [(0, 9), (100, 199), (len - 16, len - 1)];
    assert_eq!(parts.len(), expected.len());
    for (part, (start, end)) in parts.iter().zip(expected) {
        assert_eq!(part.content_type, "image/png");
        assert_eq!(part.content_range, format!("bytes {start}-{end}/{len}"));
        assert_eq!(part.bytes, &png[start..=end]);
    }
}

#[tokio::test]
async fn unsatisfiable_ranges_get_416_with_the_length() {
    let addr = spawn_site().await;
    let len = fixture(PNG).len();
    for range in [
        format!("bytes={len}-"),
        "bytes=-0".to_owned(),
        format!("bytes={}-{}", len + 10, len + 20),
    ] {
        let (status, headers, body) = get(addr, PNG, &[("range", &range)]).await;
        assert_eq!(status, StatusCode::RANGE_NOT_SATISFIABLE, "Range: {range}");
        assert_eq!(
            header(&headers, CONTENT_RANGE),
            Some(&*format!("bytes */{len}"))
        );
        assert!(body.is_empty());
    }
    let (status, headers, _) = get(addr, "/empty.txt", &[("range", "bytes=0-")]).await;
    assert_eq!(status, StatusCode::RANGE_NOT_SATISFIABLE);
    assert_eq!(header(&headers, CONTENT_RANGE), Some("bytes */0"));
}

#[tokio::test]
async fn malformed_or_foreign_ranges_are_ignored_with_the_full_body() {
    let addr = spawn_site().await;
    let png = fixture(PNG);
    for range in [
        "bytes=9-1",
        "bytes=x-y",
        "lines=0-1",
        "bytes",
        "bytes=--1",
        "0-1",
    ] {
        let (status, headers, body) = get(addr, PNG, &[("range", range)]).await;
        assert_eq!(status, StatusCode::OK, "Range: {range}");
        assert_eq!(&body[..], &png[..], "Range: {range}");
        assert!(headers.get(CONTENT_RANGE).is_none());
    }
}

#[tokio::test]
async fn too_many_ranges_get_the_full_body_not_an_error() {
    let addr = spawn_site().await;
    let png = fixture(PNG);
    let many: Vec<String> = (0..200).map(|i| format!("{i}-{i}")).collect();
    let (status, _, body) = get(
        addr,
        PNG,
        &[("range", &format!("bytes={}", many.join(",")))],
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(&body[..], &png[..]);
    // Overlapping ranges that add up to more than the file: the full body too.
    let (status, _, body) = get(addr, PNG, &[("range", "bytes=0-, 0-, 0-")]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(&body[..], &png[..]);
}

#[tokio::test]
async fn if_range_allows_the_range_only_for_the_current_representation() {
    let addr = spawn_site().await;
    let png = fixture(PNG);
    let (_, full, _) = get(addr, PNG, &[]).await;
    let etag = header(&full, ETAG).expect("etag").to_owned();
    let date = header(&full, LAST_MODIFIED)
        .expect("last-modified")
        .to_owned();
    let weak = format!("W/{etag}");
    for (if_range, partial) in [
        (etag.as_str(), true),
        (date.as_str(), true),
        ("\"not-the-etag\"", false),
        (weak.as_str(), false),
        ("Mon, 01 Jan 1990 00:00:00 GMT", false),
        ("garbage", false),
    ] {
        let (status, _, body) =
            get(addr, PNG, &[("range", "bytes=0-9"), ("if-range", if_range)]).await;
        if partial {
            assert_eq!(status, StatusCode::PARTIAL_CONTENT, "If-Range: {if_range}");
            assert_eq!(&body[..], &png[..10]);
        } else {
            assert_eq!(status, StatusCode::OK, "If-Range: {if_range}");
            assert_eq!(&body[..], &png[..]);
        }
    }
}

#[tokio::test]
async fn head_ignores_range_and_matches_get() {
    let addr = spawn_site().await;
    let (status, headers, body) = head(addr, PNG, &[("range", "bytes=0-9")]).await;
    assert_eq!(status, StatusCode::OK);
    assert!(body.is_empty());
    assert_eq!(
        header(&headers, CONTENT_LENGTH),
        Some(&*fixture(PNG).len().to_string())
    );
    assert_eq!(header(&headers, ACCEPT_RANGES), Some("bytes"));
}

#[tokio::test]
async fn preconditions_are_evaluated_before_the_range() {
    let addr = spawn_site().await;
    let (_, full, _) = get(addr, PNG, &[]).await;
    let etag = header(&full, ETAG).expect("etag").to_owned();
    let (status, _, body) = get(
        addr,
        PNG,
        &[("range", "bytes=0-9"), ("if-none-match", &etag)],
    )
    .await;
    assert_eq!(status, StatusCode::NOT_MODIFIED);
    assert!(body.is_empty());
    let (status, _, _) = get(
        addr,
        PNG,
        &[("range", "bytes=0-9"), ("if-match", "\"other\"")],
    )
    .await;
    assert_eq!(status, StatusCode::PRECONDITION_FAILED);
}
