//! Conditional requests over real HTTP (RFC 9110 §13): `If-Match`,
//! `If-Unmodified-Since`, `If-None-Match` and `If-Modified-Since`, evaluated in the
//! order of §13.2.2, giving 304 and 412. Dates are built from the `Last-Modified`
//! the server sent.

use std::net::SocketAddr;
use std::time::{Duration, SystemTime};

use http::header::{
    CACHE_CONTROL, CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_TYPE, DATE, ETAG, LAST_MODIFIED, VARY,
};
use http::{Method, StatusCode};
use integration_tests::{
    DateForm, Reply, fixture, format_http_date, get, head, header, list_values, parse_imf_fixdate,
    send, spawn_site,
};

/// What a plain 200 said about an asset: the validators to build conditions from.
struct Current {
    etag: String,
    last_modified: String,
    modified: SystemTime,
    cache_control: String,
    content_length: String,
    varies: bool,
}

async fn current(addr: SocketAddr, path: &str, accept: Option<&str>) -> Current {
    let fields: Vec<(&str, &str)> = accept.map(|a| ("accept-encoding", a)).into_iter().collect();
    let (status, headers, _) = get(addr, path, &fields).await;
    assert_eq!(status, StatusCode::OK, "GET {path}");
    let text = |name| header(&headers, name).map(str::to_owned);
    let last_modified = text(LAST_MODIFIED).expect("Last-Modified");
    Current {
        etag: text(ETAG).expect("ETag"),
        modified: parse_imf_fixdate(&last_modified),
        last_modified,
        cache_control: text(CACHE_CONTROL).expect("Cache-Control"),
        content_length: text(CONTENT_LENGTH).expect("Content-Length"),
        varies: !list_values(&headers, VARY).is_empty(),
    }
}

fn date(time: SystemTime) -> String {
    format_http_date(time, DateForm::ImfFixdate)
}

const SECOND: Duration = Duration::from_secs(1);

/// RFC 9110 §15.4.5: no content; the ETag, Cache-Control and Vary a 200 would carry;
/// no representation metadata; Content-Length only if it equals the 200's.
fn assert_not_modified(what: &str, reply: &Reply, current: &Current) {
    let (status, headers, body) = reply;
    assert_eq!(*status, StatusCode::NOT_MODIFIED, "{what}");
    assert!(body.is_empty(), "{what}: 304 with a body");
    assert_eq!(
        header(headers, ETAG),
        Some(current.etag.as_str()),
        "{what}: ETag"
    );
    assert_eq!(
        header(headers, CACHE_CONTROL),
        Some(current.cache_control.as_str()),
        "{what}: Cache-Control"
    );
    assert_eq!(
        header(headers, LAST_MODIFIED),
        Some(current.last_modified.as_str()),
        "{what}: Last-Modified"
    );
    assert_eq!(
        !list_values(headers, VARY).is_empty(),
        current.varies,
        "{what}: Vary must be as on the 200"
    );
    assert_eq!(
        header(headers, CONTENT_TYPE),
        None,
        "{what}: Content-Type on a 304"
    );
    assert_eq!(
        header(headers, CONTENT_ENCODING),
        None,
        "{what}: Content-Encoding on a 304"
    );
    if let Some(length) = header(headers, CONTENT_LENGTH) {
        assert_eq!(
            length, current.content_length,
            "{what}: Content-Length on a 304"
        );
    }
}

fn assert_full(what: &str, reply: &Reply, path: &str) {
    let (status, _, body) = reply;
    assert_eq!(*status, StatusCode::OK, "{what}");
    assert!(body[..] == fixture(path)[..], "{what}: not the whole file");
}

fn assert_failed(what: &str, reply: &Reply, path: &str) {
    let (status, _, body) = reply;
    assert_eq!(*status, StatusCode::PRECONDITION_FAILED, "{what}");
    assert!(
        body[..] != fixture(path)[..] || body.is_empty(),
        "{what}: 412 with the file"
    );
}

#[tokio::test]
async fn last_modified_is_an_http_date_not_after_the_response_date() {
    let addr = spawn_site().await;
    for path in ["/css/app.css", "/tiny.txt", "/"] {
        let (_, headers, _) = get(addr, path, &[]).await;
        // §8.8.2.1: an origin server SHOULD NOT send a Last-Modified later than its Date;
        // §5.6.7: it sends the IMF-fixdate form.
        let last_modified = header(&headers, LAST_MODIFIED).expect("Last-Modified");
        let modified = parse_imf_fixdate(last_modified);
        assert_eq!(
            format_http_date(modified, DateForm::ImfFixdate),
            last_modified
        );
        let sent = parse_imf_fixdate(header(&headers, DATE).expect("Date"));
        assert!(
            modified <= sent,
            "{path}: Last-Modified {last_modified} is in the future"
        );
    }
}

#[tokio::test]
async fn if_none_match_with_the_current_etag_gives_304_without_a_body() {
    let addr = spawn_site().await;
    for path in [
        "/css/app.css",
        "/tiny.txt",
        "/image.png",
        "/empty.txt",
        "/index.html",
    ] {
        let now = current(addr, path, None).await;
        let reply = get(addr, path, &[("if-none-match", &now.etag)]).await;
        assert_not_modified(&format!("GET {path}"), &reply, &now);
    }
}

#[tokio::test]
async fn if_none_match_uses_weak_comparison() {
    let addr = spawn_site().await;
    let now = current(addr, "/css/app.css", None).await;
    // §13.1.2: weak comparison, so W/ on the client's tag still matches.
    let weak = format!("W/{}", now.etag);
    let reply = get(addr, "/css/app.css", &[("if-none-match", &weak)]).await;
    assert_not_modified(&format!("If-None-Match: {weak}"), &reply, &now);
}

#[tokio::test]
async fn if_none_match_matches_any_member_of_a_list() {
    let addr = spawn_site().await;
    let path = "/js/app.js";
    let now = current(addr, path, None).await;
    let etag = &now.etag;
    for lines in [
        vec![format!("\"other\", {etag}")],
        vec![format!("\"a\",\"b\" ,W/{etag}")],
        vec![format!("{etag}, \"other\"")],
        vec!["\"other\"".to_owned(), etag.clone()],
    ] {
        let fields: Vec<(&str, &str)> = lines
            .iter()
            .map(|l| ("if-none-match", l.as_str()))
            .collect();
        let reply = get(addr, path, &fields).await;
        assert_not_modified(&format!("If-None-Match lines {lines:?}"), &reply, &now);
    }
}

#[tokio::test]
async fn if_none_match_star_gives_304_for_an_existing_asset() {
    let addr = spawn_site().await;
    let now = current(addr, "/tiny.txt", None).await;
    let reply = get(addr, "/tiny.txt", &[("if-none-match", "*")]).await;
    assert_not_modified("If-None-Match: *", &reply, &now);
}

#[tokio::test]
async fn if_none_match_with_other_tags_sends_the_full_representation() {
    let addr = spawn_site().await;
    let path = "/css/app.css";
    let now = current(addr, path, None).await;
    let unquoted = now.etag.trim_matches('"').to_owned();
    for value in [
        "\"other\"",
        "\"other\", W/\"nope\"",
        unquoted.as_str(),
        "\"\"",
    ] {
        let reply = get(addr, path, &[("if-none-match", value)]).await;
        assert_full(&format!("If-None-Match: {value}"), &reply, path);
    }
}

#[tokio::test]
async fn head_with_a_matching_if_none_match_gives_304() {
    let addr = spawn_site().await;
    let now = current(addr, "/css/app.css", None).await;
    let reply = head(addr, "/css/app.css", &[("if-none-match", &now.etag)]).await;
    assert_not_modified("HEAD with If-None-Match", &reply, &now);
}

#[tokio::test]
async fn if_match_with_the_current_etag_or_star_proceeds() {
    let addr = spawn_site().await;
    let path = "/css/app.css";
    let now = current(addr, path, None).await;
    let etag = &now.etag;
    for value in [etag.clone(), "*".to_owned(), format!("\"other\", {etag}")] {
        let reply = get(addr, path, &[("if-match", &value)]).await;
        assert_full(&format!("If-Match: {value}"), &reply, path);
    }
}

#[tokio::test]
async fn if_match_uses_strong_comparison_so_a_weak_tag_fails() {
    let addr = spawn_site().await;
    let path = "/css/app.css";
    let now = current(addr, path, None).await;
    // §13.1.1: If-Match uses the strong comparison function; W/ never matches.
    let weak = format!("W/{}", now.etag);
    let reply = get(addr, path, &[("if-match", &weak)]).await;
    assert_failed(&format!("If-Match: {weak}"), &reply, path);
}

#[tokio::test]
async fn if_match_with_other_tags_fails_with_412() {
    let addr = spawn_site().await;
    let path = "/tiny.txt";
    for value in ["\"other\"", "\"a\", \"b\""] {
        for method in [Method::GET, Method::HEAD] {
            let reply = send(addr, method.clone(), path, &[("if-match", value)]).await;
            assert_failed(&format!("{method} with If-Match: {value}"), &reply, path);
        }
    }
}

#[tokio::test]
async fn if_unmodified_since_before_last_modified_fails_with_412() {
    let addr = spawn_site().await;
    let path = "/css/app.css";
    let now = current(addr, path, None).await;
    for before in [
        now.modified - SECOND,
        now.modified - Duration::from_secs(86_400 * 365),
    ] {
        let value = date(before);
        let reply = get(addr, path, &[("if-unmodified-since", &value)]).await;
        assert_failed(&format!("If-Unmodified-Since: {value}"), &reply, path);
    }
}

#[tokio::test]
async fn if_unmodified_since_at_or_after_last_modified_proceeds() {
    let addr = spawn_site().await;
    let path = "/css/app.css";
    let now = current(addr, path, None).await;
    for since in [now.modified, now.modified + SECOND] {
        let value = date(since);
        let reply = get(addr, path, &[("if-unmodified-since", &value)]).await;
        assert_full(&format!("If-Unmodified-Since: {value}"), &reply, path);
    }
}

#[tokio::test]
async fn invalid_or_repeated_if_unmodified_since_is_ignored() {
    let addr = spawn_site().await;
    let path = "/tiny.txt";
    let now = current(addr, path, None).await;
    let before = date(now.modified - SECOND);
    let listed = format!("{before}, {before}");
    // §13.1.4: a recipient MUST ignore the field if it is not a valid HTTP-date,
    // including when the value appears to be a list of dates.
    for lines in [
        vec!["yesterday"],
        vec!["Sun, 32 Foo 1994 99:99:99 GMT"],
        vec!["0"],
        vec![""],
        vec![listed.as_str()],
        vec![before.as_str(), before.as_str()],
    ] {
        let fields: Vec<(&str, &str)> = lines.iter().map(|l| ("if-unmodified-since", *l)).collect();
        let reply = get(addr, path, &fields).await;
        assert_full(
            &format!("If-Unmodified-Since lines {lines:?}"),
            &reply,
            path,
        );
    }
}

#[tokio::test]
async fn if_match_takes_precedence_over_if_unmodified_since() {
    let addr = spawn_site().await;
    let path = "/css/app.css";
    let now = current(addr, path, None).await;
    // §13.2.2 step 2 only applies when If-Match is absent.
    let before = date(now.modified - SECOND);
    let reply = get(
        addr,
        path,
        &[("if-match", &now.etag), ("if-unmodified-since", &before)],
    )
    .await;
    assert_full(
        "matching If-Match with a failing If-Unmodified-Since",
        &reply,
        path,
    );
}

#[tokio::test]
async fn failed_if_match_wins_over_matching_if_none_match() {
    let addr = spawn_site().await;
    let path = "/css/app.css";
    let now = current(addr, path, None).await;
    let reply = get(
        addr,
        path,
        &[("if-match", "\"other\""), ("if-none-match", &now.etag)],
    )
    .await;
    assert_failed("failing If-Match with matching If-None-Match", &reply, path);
}

#[tokio::test]
async fn failed_if_unmodified_since_wins_over_matching_if_none_match() {
    let addr = spawn_site().await;
    let path = "/css/app.css";
    let now = current(addr, path, None).await;
    let before = date(now.modified - SECOND);
    let reply = get(
        addr,
        path,
        &[
            ("if-unmodified-since", &before),
            ("if-none-match", &now.etag),
        ],
    )
    .await;
    assert_failed(
        "failing If-Unmodified-Since with matching If-None-Match",
        &reply,
        path,
    );
}

#[tokio::test]
async fn if_modified_since_at_or_after_last_modified_gives_304() {
    let addr = spawn_site().await;
    for path in ["/css/app.css", "/image.png"] {
        let now = current(addr, path, None).await;
        for since in [
            now.modified,
            now.modified + SECOND,
            now.modified + Duration::from_secs(86_400),
        ] {
            let value = date(since);
            let reply = get(addr, path, &[("if-modified-since", &value)]).await;
            assert_not_modified(&format!("{path} If-Modified-Since: {value}"), &reply, &now);
        }
    }
}

#[tokio::test]
async fn if_modified_since_before_last_modified_sends_the_representation() {
    let addr = spawn_site().await;
    let path = "/css/app.css";
    let now = current(addr, path, None).await;
    let value = date(now.modified - SECOND);
    let reply = get(addr, path, &[("if-modified-since", &value)]).await;
    assert_full(&format!("If-Modified-Since: {value}"), &reply, path);
}

#[tokio::test]
async fn if_modified_since_in_the_obsolete_date_forms_is_understood() {
    let addr = spawn_site().await;
    let path = "/css/app.css";
    let now = current(addr, path, None).await;
    // §5.6.7: a recipient MUST accept all three HTTP-date formats.
    for form in [DateForm::Rfc850, DateForm::Asctime] {
        let at = format_http_date(now.modified, form);
        let reply = get(addr, path, &[("if-modified-since", &at)]).await;
        assert_not_modified(&format!("If-Modified-Since: {at}"), &reply, &now);
        let before = format_http_date(now.modified - SECOND, form);
        let reply = get(addr, path, &[("if-modified-since", &before)]).await;
        assert_full(&format!("If-Modified-Since: {before}"), &reply, path);
    }
}

#[tokio::test]
async fn invalid_or_repeated_if_modified_since_is_ignored() {
    let addr = spawn_site().await;
    let path = "/css/app.css";
    let now = current(addr, path, None).await;
    let after = date(now.modified + SECOND);
    let listed = format!("{after}, {after}");
    // §13.1.3: ignored if not a valid HTTP-date or if it has more than one member.
    for lines in [
        vec!["not a date"],
        vec![listed.as_str()],
        vec!["Sun, 32 Foo 1994 99:99:99 GMT"],
        vec![""],
        vec![after.as_str(), after.as_str()],
    ] {
        let fields: Vec<(&str, &str)> = lines.iter().map(|l| ("if-modified-since", *l)).collect();
        let reply = get(addr, path, &fields).await;
        assert_full(&format!("If-Modified-Since lines {lines:?}"), &reply, path);
    }
}

#[tokio::test]
async fn if_none_match_wins_over_if_modified_since() {
    let addr = spawn_site().await;
    let path = "/css/app.css";
    let now = current(addr, path, None).await;
    // §13.2.2 step 4 only applies when If-None-Match is absent.
    let after = date(now.modified + SECOND);
    let reply = get(
        addr,
        path,
        &[
            ("if-none-match", "\"other\""),
            ("if-modified-since", &after),
        ],
    )
    .await;
    assert_full(
        "non-matching If-None-Match with a 304-worthy date",
        &reply,
        path,
    );
    let before = date(now.modified - SECOND);
    let reply = get(
        addr,
        path,
        &[("if-none-match", &now.etag), ("if-modified-since", &before)],
    )
    .await;
    assert_not_modified("matching If-None-Match with an old date", &reply, &now);
}

#[tokio::test]
async fn head_with_if_modified_since_gives_304() {
    let addr = spawn_site().await;
    let now = current(addr, "/tiny.txt", None).await;
    let reply = head(
        addr,
        "/tiny.txt",
        &[("if-modified-since", &now.last_modified)],
    )
    .await;
    assert_not_modified("HEAD with If-Modified-Since", &reply, &now);
}

#[tokio::test]
async fn a_304_of_an_encoded_variant_names_that_variant() {
    let addr = spawn_site().await;
    let path = "/css/app.css";
    for accept in ["br", "gzip"] {
        let now = current(addr, path, Some(accept)).await;
        let reply = get(
            addr,
            path,
            &[("accept-encoding", accept), ("if-none-match", &now.etag)],
        )
        .await;
        assert_not_modified(&format!("{accept} variant"), &reply, &now);
    }
}

#[tokio::test]
async fn an_etag_of_one_coding_does_not_validate_another() {
    let addr = spawn_site().await;
    let path = "/css/app.css";
    let identity = current(addr, path, None).await;
    let gzip = current(addr, path, Some("gzip")).await;
    // A client holding the identity body asks with br: it must get the br body.
    let (status, headers, _) = get(
        addr,
        path,
        &[("accept-encoding", "br"), ("if-none-match", &identity.etag)],
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(header(&headers, CONTENT_ENCODING), Some("br"));
    // If-Match is compared with the selected (br) representation's strong tag.
    let reply = get(
        addr,
        path,
        &[("accept-encoding", "br"), ("if-match", &gzip.etag)],
    )
    .await;
    assert_failed(
        "If-Match with the gzip tag for the br variant",
        &reply,
        path,
    );
}

#[tokio::test]
async fn preconditions_are_ignored_when_the_answer_would_not_be_2xx() {
    let addr = spawn_site().await;
    let now = current(addr, "/tiny.txt", None).await;
    let after = date(now.modified + SECOND);
    // §13.2.1: a server MUST ignore preconditions if the response without them
    // would have been other than 2xx or 412.
    for (method, path, field, value, expected) in [
        (
            Method::GET,
            "/missing.txt",
            "if-none-match",
            "*",
            StatusCode::NOT_FOUND,
        ),
        (
            Method::GET,
            "/missing.txt",
            "if-match",
            "\"x\"",
            StatusCode::NOT_FOUND,
        ),
        (
            Method::GET,
            "/missing.txt",
            "if-modified-since",
            after.as_str(),
            StatusCode::NOT_FOUND,
        ),
        (
            Method::GET,
            "/docs",
            "if-none-match",
            "*",
            StatusCode::MOVED_PERMANENTLY,
        ),
        (
            Method::GET,
            "/docs",
            "if-match",
            "\"x\"",
            StatusCode::MOVED_PERMANENTLY,
        ),
        (
            Method::POST,
            "/tiny.txt",
            "if-none-match",
            "*",
            StatusCode::METHOD_NOT_ALLOWED,
        ),
        (
            Method::PUT,
            "/tiny.txt",
            "if-match",
            "\"x\"",
            StatusCode::METHOD_NOT_ALLOWED,
        ),
    ] {
        let (status, _, _) = send(addr, method.clone(), path, &[(field, value)]).await;
        assert_eq!(status, expected, "{method} {path} with {field}: {value}");
    }
}
