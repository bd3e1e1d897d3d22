//! Purges by tag behind a real Varnish: with `cache_tags`, one ban on the tags of
//! `Surrogate-Key` empties one release's pages and leaves its hashed files cached, and
//! one ban on a release's tag empties that release alone (as Varnish's xkey or a CDN's
//! purge by tag would, from the same field).
//!
//! Needs Varnish (Debian package `varnish`); `bash tests/run.sh` installs it.

use http::header::CACHE_CONTROL;
use http::{HeaderValue, Method, StatusCode};
use integration_tests::caches::{CacheKind, CacheProcess, X_CACHE};
use integration_tests::{Reply, get, header, send, spawn_service};

use integration_tests::rolling::{RELEASE_1, RELEASE_3, SITE, earlier};

/// Long enough that nothing expires during the test.
const LONG: &str = "public, max-age=600";

fn cache_status(reply: &Reply) -> &str {
    header(&reply.1, X_CACHE).expect("X-Cache on every reply")
}

/// A ban expression matching objects whose `Surrogate-Key` has every one of `tags`.
fn having(tags: &[&str]) -> String {
    tags.iter()
        // Unquoted, without a space or a backslash: Varnish splits a ban expression at
        // spaces, takes quotes as part of the regex, and a backslash escapes.
        .map(|tag| format!("obj.http.Surrogate-Key ~ (^|[[:space:]]){tag}([[:space:]]|$)"))
        .collect::<Vec<_>>()
        .join(" && ")
}

#[tokio::test]
async fn a_ban_by_tag_purges_one_release_s_pages_and_leaves_hashed_files() {
    let Some(program) = CacheKind::Varnish.program() else {
        return;
    };
    let service = SITE
        .service()
        .cache_control(HeaderValue::from_static(LONG))
        .cache_tags("site");
    let origin = spawn_service(service).await;
    let varnish = CacheProcess::start(CacheKind::Varnish, &program, origin).await;
    let addr = varnish.addr;
    let kept_app = earlier("/js/app.js", RELEASE_1)
        .fingerprinted_path()
        .expect("release 1's app is kept at its hashed URL");
    let hashed_app = SITE.url("/js/app.js").expect("this build's app");
    let paths = [
        "/",
        "/css/app.css",
        hashed_app,
        "/assets/lazy-C3c3c3c3.js",
        kept_app,
    ];
    // Cached: each a MISS, then a HIT.
    for path in paths {
        let first = get(addr, path, &[]).await;
        assert_eq!(first.0, StatusCode::OK, "{path}");
        assert!(header(&first.1, CACHE_CONTROL).is_some(), "{path}");
        assert_eq!(cache_status(&first), "MISS", "{path}");
        assert_eq!(cache_status(&get(addr, path, &[]).await), "HIT", "{path}");
    }
    let ban = |expression: String| async move {
        let method = Method::from_bytes(b"BAN").expect("a method token");
        let reply = send(addr, method, "/", &[("x-ban", expression.as_str())]).await;
        let reason = String::from_utf8_lossy(&reply.2).into_owned();
        assert_eq!(reply.0, StatusCode::OK, "ban {expression}: {reason}");
    };
    // This release's pages: the page is fetched again, nothing else is.
    ban(having(&["site-page", &format!("site-release-{RELEASE_3}")])).await;
    for (path, expected) in [
        ("/", "MISS"),
        ("/css/app.css", "HIT"),
        (hashed_app, "HIT"),
        ("/assets/lazy-C3c3c3c3.js", "HIT"),
        (kept_app, "HIT"),
    ] {
        assert_eq!(
            cache_status(&get(addr, path, &[]).await),
            expected,
            "{path}"
        );
    }
    // Release 1 alone: its kept file goes, this build's stay.
    ban(having(&[&format!("site-release-{RELEASE_1}")])).await;
    for (path, expected) in [
        (kept_app, "MISS"),
        ("/", "HIT"),
        (hashed_app, "HIT"),
        ("/css/app.css", "HIT"),
    ] {
        assert_eq!(
            cache_status(&get(addr, path, &[]).await),
            expected,
            "{path}"
        );
    }
    // Everything of the service.
    ban(having(&["site"])).await;
    for path in paths {
        assert_eq!(cache_status(&get(addr, path, &[]).await), "MISS", "{path}");
    }
}
