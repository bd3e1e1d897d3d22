//! Dictionary compression (RFC 9842): a client that kept release 1 of a file gets
//! release 2 of it as a `dcb` or `dcz` body compressed against release 1, named by the
//! `Available-Dictionary` it sends; every other client gets what it got before.
//!
//! `fixtures/dictionary/releases` holds two releases recorded by
//! `embed_assets_build::Releases`: `release-1/` (also embedded here on its own, as the
//! server a browser first met) and `public/`, this build. From one to the other,
//! `js/app.js` (43 KB) gained a line and changed two, the page changed its heading, and
//! `css/site.css` did not change.

use http::header::{
    ACCEPT_RANGES, CACHE_CONTROL, CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_RANGE, ETAG, VARY,
};
use http::{HeaderMap, HeaderName, Method, StatusCode};
use integration_tests::{
    Reply, decode_body, decode_with_dictionary, get, header, send, spawn_service,
};

mod release_1 {
    embed_assets::embed_assets!(
        pub static SITE = "fixtures/dictionary/release-1",
        fingerprint = true,
        rewrite_references = true,
    );
}

mod release_2 {
    embed_assets::embed_assets!(
        pub static SITE = "fixtures/dictionary/public",
        fingerprint = true,
        rewrite_references = true,
        releases = "fixtures/dictionary/releases",
    );
}

use release_2::SITE;

const CHROME: &str = integration_tests::CHROMIUM_ACCEPT_ENCODING;
const USE_AS_DICTIONARY: HeaderName = HeaderName::from_static("use-as-dictionary");
/// What a delta at a hashed URL is sent with: the hashed files' policy, made private.
const PRIVATE_IMMUTABLE: &str = "private, max-age=31536000, immutable";

/// A file as release 1's server sent it (after its rewrite, for the page).
fn release_1_bytes(path: &str) -> &'static [u8] {
    release_1::SITE
        .get(path)
        .unwrap()
        .body(embed_assets::Encoding::Identity)
        .unwrap()
}

fn this_build(path: &str) -> &'static embed_assets::Asset {
    SITE.iter()
        .find(|a| a.path() == path && a.earlier_release().is_none())
        .unwrap()
}

/// The dictionary codings this build stores: `dcb`, and `dcz` with the zstd feature.
fn codings() -> Vec<&'static str> {
    let mut codings = vec!["dcb"];
    if cfg!(feature = "zstd") {
        codings.push("dcz");
    }
    codings
}

#[test]
fn changed_files_have_bodies_against_their_earlier_version_and_the_rest_none() {
    let app = this_build("/js/app.js");
    let page = this_build("/index.html");
    let css = this_build("/css/site.css");
    for (asset, earlier) in [
        (app, release_1_bytes("/js/app.js")),
        (page, release_1_bytes("/index.html")),
    ] {
        let deltas = asset.deltas();
        let got: Vec<&str> = deltas.iter().map(|d| d.encoding().as_str()).collect();
        let mut sorted = got.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, codings(), "{}: one body per coding", asset.path());
        let br = asset.variant(embed_assets::Encoding::Brotli).unwrap();
        for delta in deltas {
            assert_eq!(
                delta.dictionary(),
                Some(integration_tests::available_dictionary(earlier).as_str()),
                "{}",
                asset.path()
            );
            assert!(delta.len() < br.len(), "smaller than br");
            assert!(asset.variants().all(|v| v.etag() != delta.etag()));
        }
        assert!(
            deltas.windows(2).all(|w| w[0].len() <= w[1].len()),
            "smallest first"
        );
    }
    // The app's delta is a fraction of its brotli body: only the changed lines.
    let br = app.variant(embed_assets::Encoding::Brotli).unwrap().len();
    assert!(
        app.deltas()[0].len() * 10 < br,
        "{:?} vs {br}",
        app.deltas()[0].len()
    );
    // Unchanged: no earlier version with other bytes.
    assert!(css.deltas().is_empty());
    // Release 1's own app, kept at its hashed URL, is a dictionary but has none.
    let kept = SITE
        .iter()
        .find(|a| a.path() == "/js/app.js" && a.earlier_release().is_some())
        .unwrap();
    assert!(kept.deltas().is_empty());
    assert_eq!(kept.dictionary_match(), Some("match=\"app.*.js\""));
    assert_eq!(app.dictionary_match(), Some("match=\"app.*.js\""));
    assert_eq!(css.dictionary_match(), Some("match=\"site.*.css\""));
    assert_eq!(page.dictionary_match(), Some("match=\"{index.html}?\""));
    // What they cost the binary, in the report.
    let report = SITE.report();
    let bytes: u64 = [app, page]
        .iter()
        .flat_map(|asset| asset.deltas())
        .map(|delta| delta.len())
        .sum();
    assert_eq!((report.delta_files, report.delta_bytes), (2, bytes));
    assert!(
        report
            .to_string()
            .contains("2 files compressed against earlier versions")
    );
    // Without the releases option, nothing of it.
    assert!(
        release_1::SITE
            .iter()
            .all(|a| a.deltas().is_empty() && a.dictionary_match().is_none())
    );
}

/// A request's header fields.
type Fields<'a> = &'a [(&'a str, &'a str)];

async fn fetch(addr: std::net::SocketAddr, path: &str, fields: &[(&str, &str)]) -> Reply {
    get(addr, path, fields).await
}

fn encoding(headers: &HeaderMap) -> Option<&str> {
    header(headers, CONTENT_ENCODING)
}

/// This build served, and what its `js/app.js` is about.
struct App {
    addr: std::net::SocketAddr,
    /// Its hashed URL.
    url: &'static str,
    /// Release 1's bytes.
    old: &'static [u8],
    /// This build's.
    new: &'static [u8],
    /// `Available-Dictionary` for release 1's.
    dictionary: String,
}

impl App {
    async fn serve() -> App {
        let old = release_1_bytes("/js/app.js");
        App {
            addr: spawn_service(SITE.service()).await,
            url: SITE.url("/js/app.js").unwrap(),
            old,
            new: this_build("/js/app.js")
                .body(embed_assets::Encoding::Identity)
                .unwrap(),
            dictionary: integration_tests::available_dictionary(old),
        }
    }
}

#[tokio::test]
async fn a_client_with_the_earlier_version_gets_only_the_difference() {
    let App {
        addr,
        url: app_url,
        old: old_app,
        new: new_app,
        dictionary,
    } = App::serve().await;
    for coding in codings() {
        let accept = format!("br, {coding}");
        let fields = [
            ("accept-encoding", accept.as_str()),
            ("available-dictionary", dictionary.as_str()),
        ];
        let (status, headers, body) = fetch(addr, app_url, &fields).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(encoding(&headers), Some(coding));
        assert_eq!(decode_with_dictionary(&headers, &body, old_app), new_app);
        assert_eq!(
            header(&headers, VARY),
            Some("accept-encoding, available-dictionary")
        );
        // Only this client can decode it: no shared cache may store it.
        assert_eq!(header(&headers, CACHE_CONTROL), Some(PRIVATE_IMMUTABLE));
        assert_eq!(
            header(&headers, CONTENT_LENGTH),
            Some(body.len().to_string().as_str())
        );
        assert_eq!(
            header(&headers, USE_AS_DICTIONARY),
            Some("match=\"app.*.js\"")
        );
        let delta = this_build("/js/app.js")
            .deltas()
            .iter()
            .find(|d| d.encoding().as_str() == coding)
            .unwrap();
        assert_eq!(header(&headers, ETAG), Some(delta.etag()));
        assert_eq!(body, delta.body());

        // HEAD: the same fields, no body.
        let (status, head_headers, head_body) = send(addr, Method::HEAD, app_url, &fields).await;
        assert_eq!(status, StatusCode::OK);
        assert!(head_body.is_empty());
        assert_eq!(head_headers.get(ETAG), headers.get(ETAG));
        assert_eq!(
            head_headers.get(CONTENT_LENGTH),
            headers.get(CONTENT_LENGTH)
        );

        // Revalidation with the delta's own tag (RFC 9110 §13.1.2).
        let etag = delta.etag();
        let conditional = [fields[0], fields[1], ("if-none-match", etag)];
        let (status, not_modified, _) = fetch(addr, app_url, &conditional).await;
        assert_eq!(status, StatusCode::NOT_MODIFIED);
        assert_eq!(header(&not_modified, ETAG), Some(etag));
        assert_eq!(
            header(&not_modified, VARY),
            Some("accept-encoding, available-dictionary")
        );

        // A range of it is a range of the delta's bytes (RFC 9110 §14.1.2: of the
        // selected representation).
        let ranged = [fields[0], fields[1], ("range", "bytes=0-35")];
        let (status, partial, part) = fetch(addr, app_url, &ranged).await;
        assert_eq!(status, StatusCode::PARTIAL_CONTENT);
        assert_eq!(encoding(&partial), Some(coding));
        assert_eq!(part, &body[..36]);
        assert_eq!(
            header(&partial, CONTENT_RANGE),
            Some(format!("bytes 0-35/{}", body.len()).as_str())
        );
        assert_eq!(header(&partial, ACCEPT_RANGES), Some("bytes"));
    }
}

#[tokio::test]
async fn without_the_dictionary_or_the_coding_the_answer_is_as_before() {
    let App {
        addr,
        url: app_url,
        old: _,
        new: new_app,
        dictionary,
    } = App::serve().await;
    let other = integration_tests::available_dictionary(b"another file");
    let cases: [(Fields<'_>, Option<&str>); 8] = [
        // Another dictionary, or none: the brotli body.
        (
            &[
                ("accept-encoding", CHROME),
                ("available-dictionary", &other),
            ],
            Some("br"),
        ),
        (&[("accept-encoding", CHROME)], Some("br")),
        // The dictionary but no dictionary coding accepted.
        (
            &[
                ("accept-encoding", "gzip, br"),
                ("available-dictionary", &dictionary),
            ],
            Some("br"),
        ),
        (
            &[
                ("accept-encoding", "br, dcb;q=0, dcz;q=0"),
                ("available-dictionary", &dictionary),
            ],
            Some("br"),
        ),
        // `*` does not stand for a dictionary coding.
        (
            &[
                ("accept-encoding", "*"),
                ("available-dictionary", &dictionary),
            ],
            Some("br"),
        ),
        // A q-value that ranks gzip first is honoured.
        (
            &[
                ("accept-encoding", "gzip, dcb;q=0.5, dcz;q=0.5"),
                ("available-dictionary", &dictionary),
            ],
            Some("gzip"),
        ),
        // Not a byte sequence, or the hash in another form: unknown.
        (
            &[
                ("accept-encoding", CHROME),
                ("available-dictionary", dictionary.trim_matches(':')),
            ],
            Some("br"),
        ),
        (&[("available-dictionary", &dictionary)], None),
    ];
    for (fields, expected) in cases {
        let (status, headers, body) = fetch(addr, app_url, fields).await;
        assert_eq!(status, StatusCode::OK, "{fields:?}");
        assert_eq!(encoding(&headers), expected, "{fields:?}");
        assert_eq!(decode_body(&headers, &body), new_app, "{fields:?}");
        assert_eq!(
            header(&headers, VARY),
            Some("accept-encoding, available-dictionary"),
            "{fields:?}: the choice depended on both"
        );
    }
    // Two dictionaries named: neither is trusted (the field is one byte sequence).
    let (_, headers, _) = fetch(
        addr,
        app_url,
        &[
            ("accept-encoding", CHROME),
            ("available-dictionary", &dictionary),
            ("available-dictionary", &other),
        ],
    )
    .await;
    assert_eq!(encoding(&headers), Some("br"));
    // A file that did not change varies by Accept-Encoding alone, as ever.
    let css_url = SITE.url("/css/site.css").unwrap();
    let (_, headers, _) = fetch(addr, css_url, &[("accept-encoding", CHROME)]).await;
    assert_eq!(header(&headers, VARY), Some("accept-encoding"));
    assert_eq!(
        header(&headers, USE_AS_DICTIONARY),
        Some("match=\"site.*.css\"")
    );
}

#[tokio::test]
async fn a_page_is_compressed_against_its_earlier_version_at_its_own_url() {
    let addr = spawn_service(SITE.service()).await;
    let old_page = release_1_bytes("/index.html");
    let new_page = this_build("/index.html")
        .body(embed_assets::Encoding::Identity)
        .unwrap();
    let dictionary = integration_tests::available_dictionary(old_page);
    for url in ["/", "/index.html"] {
        let fields = [
            ("accept-encoding", CHROME),
            ("available-dictionary", dictionary.as_str()),
        ];
        let (status, headers, body) = fetch(addr, url, &fields).await;
        assert_eq!(status, StatusCode::OK, "{url}");
        assert!(
            matches!(encoding(&headers), Some("dcb" | "dcz")),
            "{url}: {headers:?}"
        );
        assert_eq!(
            decode_with_dictionary(&headers, &body, old_page),
            new_page,
            "{url}"
        );
        assert_eq!(
            header(&headers, USE_AS_DICTIONARY),
            Some("match=\"{index.html}?\"")
        );
        // Stale at once (revalidated as under no-cache), yet with the freshness
        // lifetime a browser needs before it keeps the page as a dictionary; private,
        // as every dictionary-compressed answer.
        assert_eq!(
            header(&headers, CACHE_CONTROL),
            Some(
                format!(
                    "private, {}",
                    embed_assets::ServeAssets::DICTIONARY_PAGE_CACHE_CONTROL
                )
                .as_str()
            )
        );
    }
    // The same page asked for by a client of release 1 that has no dictionary.
    let (_, headers, body) = fetch(addr, "/", &[("accept-encoding", "gzip, br")]).await;
    assert_eq!(encoding(&headers), Some("br"));
    assert_eq!(decode_body(&headers, &body), new_page);
    assert_eq!(
        header(&headers, CACHE_CONTROL),
        Some(embed_assets::ServeAssets::DICTIONARY_PAGE_CACHE_CONTROL)
    );
    // A policy of the user's is theirs, for the pages too; other files keep no-cache.
    let (_, headers, _) = fetch(addr, "/css/site.css", &[]).await;
    assert_eq!(header(&headers, CACHE_CONTROL), Some("no-cache"));
    for service in [
        SITE.service()
            .cache_control(http::HeaderValue::from_static("no-cache")),
        SITE.service()
            .cache_control_for("/", http::HeaderValue::from_static("no-cache")),
    ] {
        let addr = spawn_service(service).await;
        let (_, headers, _) = fetch(addr, "/index.html", &[]).await;
        assert_eq!(header(&headers, CACHE_CONTROL), Some("no-cache"));
    }
}

#[tokio::test]
async fn release_1s_files_name_themselves_dictionaries_for_release_2s() {
    // What a browser met first: release 1, whose responses say what they are
    // dictionaries for once the releases option is on (here: the kept copy).
    let addr = spawn_service(SITE.service()).await;
    let kept = SITE
        .iter()
        .find(|a| a.path() == "/js/app.js" && a.earlier_release().is_some())
        .unwrap();
    let url = kept.fingerprinted_path().unwrap();
    assert_eq!(url, release_1::SITE.url("/js/app.js").unwrap());
    let (status, headers, body) = fetch(addr, url, &[("accept-encoding", "gzip, br")]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(decode_body(&headers, &body), release_1_bytes("/js/app.js"));
    assert_eq!(
        header(&headers, USE_AS_DICTIONARY),
        Some("match=\"app.*.js\"")
    );
    assert_eq!(header(&headers, VARY), Some("accept-encoding"));
}
