//! Content negotiation over real HTTP (RFC 9110 §12.5.3 `Accept-Encoding`, §8.4
//! `Content-Encoding`, §12.5.5 `Vary`): which stored body is sent, that it decodes to
//! the file's bytes, and that caches are told the response depends on the request.

use embed_assets::Encoding;
use http::header::{CONTENT_ENCODING, CONTENT_LENGTH, ETAG, VARY};
use http::{HeaderMap, StatusCode};
use integration_tests::{
    SITE, decode_body, encode_path, fixture, get, head, header, list_values, public_fixture_paths,
    spawn_site,
};

/// Whether the fixture `path` has a zstd body (the `zstd` feature).
fn stores_zstd(path: &str) -> bool {
    SITE.get(path)
        .and_then(|asset| asset.variant(Encoding::Zstd))
        .is_some()
}

/// Assets that compress well (README of the fixtures): both codings must be stored.
const COMPRESSIBLE: [&str; 3] = ["/css/app.css", "/js/app.js", "/data.json"];

/// Assets where compression cannot pay (already compressed, too small, empty, noise).
const INCOMPRESSIBLE: [&str; 4] = ["/image.png", "/tiny.txt", "/empty.txt", "/big.bin"];

/// The coding a response was sent in, `"identity"` when it has no `Content-Encoding`.
fn coding(headers: &HeaderMap) -> String {
    match list_values(headers, CONTENT_ENCODING).as_slice() {
        [] => "identity".to_owned(),
        [one] if one == "x-gzip" => "gzip".to_owned(),
        [one] => one.clone(),
        many => panic!("more than one Content-Encoding: {many:?}"),
    }
}

fn varies_on_accept_encoding(headers: &HeaderMap) -> bool {
    list_values(headers, VARY)
        .iter()
        .any(|name| name == "accept-encoding" || name == "*")
}

/// A strong entity-tag: `"` *etagc `"`, etagc = %x21 / %x23-7E / obs-text (RFC 9110
/// §8.8.3), and no `W/`.
fn is_strong_quoted_etag(etag: &str) -> bool {
    let bytes = etag.as_bytes();
    bytes.len() >= 2
        && bytes[0] == b'"'
        && bytes[bytes.len() - 1] == b'"'
        && bytes[1..bytes.len() - 1]
            .iter()
            .all(|&b| b == 0x21 || (0x23..=0x7e).contains(&b) || b >= 0x80)
}

/// GETs `path` with the given `Accept-Encoding` field lines and returns the coding
/// sent, after checking that the body decodes to the file and its length is right.
async fn coding_for(addr: std::net::SocketAddr, path: &str, accept: &[&str]) -> String {
    let fields: Vec<(&str, &str)> = accept.iter().map(|a| ("accept-encoding", *a)).collect();
    let (status, headers, body) = get(addr, path, &fields).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "GET {path} with Accept-Encoding {accept:?}"
    );
    assert!(
        decode_body(&headers, &body) == fixture(path),
        "GET {path} with Accept-Encoding {accept:?}: decoded body differs from the file"
    );
    assert_eq!(
        header(&headers, CONTENT_LENGTH),
        Some(body.len().to_string().as_str()),
        "GET {path} with Accept-Encoding {accept:?}: Content-Length"
    );
    coding(&headers)
}

#[tokio::test]
async fn every_fixture_decodes_to_its_file_under_every_accept_encoding() {
    let addr = spawn_site().await;
    for path in public_fixture_paths() {
        let url = encode_path(&path);
        for accept in [
            None,
            Some("identity"),
            Some("gzip"),
            Some("br"),
            Some("br, gzip"),
        ] {
            let fields: Vec<(&str, &str)> =
                accept.map(|a| ("accept-encoding", a)).into_iter().collect();
            let (status, headers, body) = get(addr, &url, &fields).await;
            let what = format!("GET {url} with Accept-Encoding {accept:?}");
            assert_eq!(status, StatusCode::OK, "{what}");
            assert!(
                decode_body(&headers, &body) == fixture(&path),
                "{what}: decoded body differs from the file"
            );
            assert_eq!(
                header(&headers, CONTENT_LENGTH),
                Some(body.len().to_string().as_str()),
                "{what}: Content-Length must count the bytes sent"
            );
            let sent = coding(&headers);
            let acceptable = match accept {
                None | Some("identity") => vec!["identity"],
                Some("gzip") => vec!["gzip", "identity"],
                Some("br") => vec!["br", "identity"],
                Some(_) => vec!["br", "gzip", "identity"],
            };
            assert!(acceptable.contains(&sent.as_str()), "{what}: sent {sent}");
            // Content-Encoding only on an encoded body, never `identity` (RFC 9110 §8.4).
            if sent == "identity" {
                assert_eq!(header(&headers, CONTENT_ENCODING), None, "{what}");
                assert!(body[..] == fixture(&path)[..], "{what}");
            }
        }
    }
}

#[tokio::test]
async fn compressible_text_is_sent_in_the_coding_asked_for() {
    let addr = spawn_site().await;
    for path in COMPRESSIBLE {
        assert_eq!(coding_for(addr, path, &["gzip"]).await, "gzip", "{path}");
        assert_eq!(coding_for(addr, path, &["br"]).await, "br", "{path}");
        assert_eq!(coding_for(addr, path, &[]).await, "identity", "{path}");
    }
}

#[tokio::test]
async fn each_coding_has_its_own_strong_quoted_etag() {
    let addr = spawn_site().await;
    for path in COMPRESSIBLE {
        let mut etags = Vec::new();
        for accept in ["identity", "gzip", "br"] {
            let (_, headers, _) = get(addr, path, &[("accept-encoding", accept)]).await;
            let etag = header(&headers, ETAG).expect("ETag").to_owned();
            assert!(
                is_strong_quoted_etag(&etag),
                "{path} as {accept}: ETag {etag} is not a strong quoted entity-tag"
            );
            // The same representation keeps its tag from one request to the next.
            let (_, again, _) = get(addr, path, &[("accept-encoding", accept)]).await;
            assert_eq!(
                header(&again, ETAG),
                Some(etag.as_str()),
                "{path} as {accept}"
            );
            etags.push(etag);
        }
        // RFC 9110 §8.8.3: a strong validator differs between content codings.
        assert_ne!(
            etags[0], etags[1],
            "{path}: identity and gzip share an ETag"
        );
        assert_ne!(etags[0], etags[2], "{path}: identity and br share an ETag");
        assert_ne!(etags[1], etags[2], "{path}: gzip and br share an ETag");
    }
}

#[tokio::test]
async fn q_values_choose_the_coding() {
    let addr = spawn_site().await;
    // With the `zstd` feature, `*` and `zstd` can pick the zstd body, ranked above gzip.
    let zstd_or_gzip = if stores_zstd("/css/app.css") {
        "zstd"
    } else {
        "gzip"
    };
    for (accept, expected) in [
        ("gzip;q=1.0, br;q=0.5", "gzip"),
        ("gzip;q=0.5, br;q=0.8", "br"),
        ("br;q=0.5, gzip;q=0.501", "gzip"),
        ("gzip;q=0.9, identity;q=1", "identity"),
        ("identity, gzip;q=0.5", "identity"),
        ("br;q=0.1, identity;q=0.05", "br"),
        // q=0 means "not acceptable" (§12.4.2).
        ("br;q=0", "identity"),
        ("br;q=0, gzip", "gzip"),
        ("br;q=0.000, gzip;q=0", "identity"),
        ("identity;q=0, gzip", "gzip"),
        // `*` matches any coding not listed (§12.5.3).
        ("*", "br"),
        ("*;q=0.5, gzip", "gzip"),
        ("*, br;q=0", zstd_or_gzip),
        ("*, br;q=0, zstd;q=0", "gzip"),
        ("*;q=0, gzip;q=0.2", "gzip"),
        ("*;q=0, identity", "identity"),
        // Optional whitespace around `;` (§12.4.2 weight = OWS ";" OWS "q=" qvalue).
        ("br ; q=0.4 , gzip ; q=0.5", "gzip"),
        // Codings we do not store are ignored.
        ("deflate, compress", "identity"),
        ("zstd;q=1, gzip;q=0.1", zstd_or_gzip),
    ] {
        assert_eq!(
            coding_for(addr, "/css/app.css", &[accept]).await,
            expected,
            "Accept-Encoding: {accept}"
        );
    }
}

#[tokio::test]
async fn br_is_preferred_over_gzip_at_equal_quality() {
    let addr = spawn_site().await;
    for accept in [
        "gzip, br",
        "br, gzip",
        "gzip, deflate, br, zstd",
        "gzip;q=0.5, br;q=0.500",
        "gzip;q=0.8, br;q=0.8, identity;q=0.5",
    ] {
        assert_eq!(
            coding_for(addr, "/css/app.css", &[accept]).await,
            "br",
            "Accept-Encoding: {accept}"
        );
    }
}

#[tokio::test]
async fn codings_and_q_are_case_insensitive_and_x_gzip_is_gzip() {
    let addr = spawn_site().await;
    for (accept, expected) in [
        // §8.4.1: all content codings are case-insensitive.
        ("GZIP", "gzip"),
        ("Br", "br"),
        ("gZiP;q=0.5, bR;q=0.4", "gzip"),
        // §5.6.6: parameter names are case-insensitive.
        ("br;Q=0.4, gzip;Q=0.5", "gzip"),
        ("br;Q=0, gzip", "gzip"),
        // §8.4.1.3: a recipient SHOULD consider x-gzip to be equivalent to gzip.
        ("x-gzip", "gzip"),
        ("X-GZIP;q=0.9, br;q=0.1", "gzip"),
    ] {
        assert_eq!(
            coding_for(addr, "/css/app.css", &[accept]).await,
            expected,
            "Accept-Encoding: {accept}"
        );
    }
}

#[tokio::test]
async fn repeated_accept_encoding_lines_are_one_list() {
    let addr = spawn_site().await;
    // RFC 9110 §5.3: field lines of a list-based field combine into one list.
    for (lines, expected) in [
        (&["br;q=0", "gzip"][..], "gzip"),
        (&["gzip;q=0.5", "br"][..], "br"),
        (&["gzip", "br;q=0.1"][..], "gzip"),
        (&["identity;q=0", "gzip"][..], "gzip"),
        (&["deflate", "br"][..], "br"),
    ] {
        assert_eq!(
            coding_for(addr, "/css/app.css", lines).await,
            expected,
            "Accept-Encoding lines {lines:?}"
        );
    }
}

#[tokio::test]
async fn no_or_empty_accept_encoding_means_identity() {
    let addr = spawn_site().await;
    for path in COMPRESSIBLE {
        assert_eq!(coding_for(addr, path, &[]).await, "identity", "{path}");
        // §12.5.3: an empty field value means no coding is wanted.
        assert_eq!(coding_for(addr, path, &[""]).await, "identity", "{path}");
        assert_eq!(
            coding_for(addr, path, &["identity"]).await,
            "identity",
            "{path}"
        );
    }
}

#[tokio::test]
async fn nothing_acceptable_gets_an_unencoded_body_or_406() {
    let addr = spawn_site().await;
    // Identity excluded and no stored coding accepted: §12.5.3 allows either 406 or
    // disregarding the field; never a coding the client did not ask for.
    for accept in [
        "identity;q=0",
        "*;q=0",
        "identity;q=0, br;q=0, gzip;q=0",
        "deflate, identity;q=0",
    ] {
        let (status, headers, body) =
            get(addr, "/css/app.css", &[("accept-encoding", accept)]).await;
        match status {
            StatusCode::NOT_ACCEPTABLE => {}
            StatusCode::OK => {
                assert_eq!(coding(&headers), "identity", "Accept-Encoding: {accept}");
                assert!(body[..] == fixture("/css/app.css")[..]);
            }
            other => panic!("Accept-Encoding: {accept}: status {other}"),
        }
    }
}

#[tokio::test]
async fn vary_accept_encoding_is_on_every_response_of_a_negotiated_asset() {
    let addr = spawn_site().await;
    for path in COMPRESSIBLE {
        // 200 in each coding, including the identity fallbacks.
        for accept in [
            None,
            Some("identity"),
            Some("gzip"),
            Some("br"),
            Some("identity;q=0"),
        ] {
            let fields: Vec<(&str, &str)> =
                accept.map(|a| ("accept-encoding", a)).into_iter().collect();
            let (status, headers, _) = get(addr, path, &fields).await;
            assert_eq!(status, StatusCode::OK);
            assert!(
                varies_on_accept_encoding(&headers),
                "GET {path} with Accept-Encoding {accept:?}: no Vary: Accept-Encoding"
            );
            let (_, headers, _) = head(addr, path, &fields).await;
            assert!(
                varies_on_accept_encoding(&headers),
                "HEAD {path} with Accept-Encoding {accept:?}: no Vary: Accept-Encoding"
            );
            // §15.4.5: a 304 carries the Vary a 200 would.
            let etag = header(&headers, ETAG).expect("ETag").to_owned();
            let mut conditional = fields.clone();
            conditional.push(("if-none-match", &etag));
            let (status, headers, _) = get(addr, path, &conditional).await;
            assert_eq!(status, StatusCode::NOT_MODIFIED, "{path} {accept:?}");
            assert!(
                varies_on_accept_encoding(&headers),
                "304 of {path} with Accept-Encoding {accept:?}: no Vary: Accept-Encoding"
            );
        }
    }
}

#[tokio::test]
async fn assets_without_variants_are_never_encoded_and_do_not_vary() {
    let addr = spawn_site().await;
    for path in INCOMPRESSIBLE {
        for accept in [None, Some("br, gzip"), Some("gzip"), Some("*")] {
            let fields: Vec<(&str, &str)> =
                accept.map(|a| ("accept-encoding", a)).into_iter().collect();
            let what = format!("{path} with Accept-Encoding {accept:?}");
            let (status, headers, body) = get(addr, path, &fields).await;
            assert_eq!(status, StatusCode::OK, "GET {what}");
            assert_eq!(header(&headers, CONTENT_ENCODING), None, "GET {what}");
            assert!(body[..] == fixture(path)[..], "GET {what}");
            assert_eq!(header(&headers, VARY), None, "GET {what}");
            let (_, head_headers, _) = head(addr, path, &fields).await;
            assert_eq!(header(&head_headers, VARY), None, "HEAD {what}");
            let etag = header(&headers, ETAG).expect("ETag").to_owned();
            let mut conditional = fields.clone();
            conditional.push(("if-none-match", &etag));
            let (status, headers, _) = get(addr, path, &conditional).await;
            assert_eq!(status, StatusCode::NOT_MODIFIED, "{what}");
            assert_eq!(header(&headers, VARY), None, "304 of {what}");
        }
    }
}

/// RFC 8878 `zstd` (with the `zstd` feature): stored for compressible text, chosen by
/// q-value like the others, below br and above gzip at equal q, with its own ETag.
#[cfg(feature = "zstd")]
#[tokio::test]
async fn zstd_bodies_are_negotiated_decoded_and_tagged() {
    let addr = spawn_site().await;
    for path in COMPRESSIBLE {
        assert!(
            stores_zstd(path),
            "{path}: no zstd body with the zstd feature"
        );
        for (accept, expected) in [
            ("zstd", "zstd"),
            ("gzip, zstd", "zstd"),
            ("zstd;q=0.5, gzip", "gzip"),
            ("gzip, deflate, br, zstd", "br"),
            ("br;q=0, zstd, gzip", "zstd"),
            ("zstd;q=0, gzip", "gzip"),
        ] {
            // `coding_for` also checks the decoded body and Content-Length.
            assert_eq!(
                coding_for(addr, path, &[accept]).await,
                expected,
                "{path} with Accept-Encoding: {accept}"
            );
        }
        let (_, zstd, _) = get(addr, path, &[("accept-encoding", "zstd")]).await;
        let zstd_etag = header(&zstd, ETAG).expect("ETag").to_owned();
        assert!(is_strong_quoted_etag(&zstd_etag), "{path}: {zstd_etag}");
        assert!(
            varies_on_accept_encoding(&zstd),
            "{path}: zstd without Vary"
        );
        for other in ["identity", "gzip", "br"] {
            let (_, headers, _) = get(addr, path, &[("accept-encoding", other)]).await;
            assert_ne!(
                header(&headers, ETAG),
                Some(zstd_etag.as_str()),
                "{path}: zstd and {other} share an ETag"
            );
        }
        // Revalidating the zstd body with its own tag: 304.
        let (status, _, body) = get(
            addr,
            path,
            &[("accept-encoding", "zstd"), ("if-none-match", &zstd_etag)],
        )
        .await;
        assert_eq!(status, StatusCode::NOT_MODIFIED, "{path}");
        assert!(body.is_empty());
    }
    for path in INCOMPRESSIBLE {
        assert!(!stores_zstd(path), "{path}: zstd where it cannot pay");
    }
}
