//! Shared caches in front keep dictionaries straight: behind nginx `proxy_cache` and
//! behind Varnish, as a user would deploy them, a client with no dictionary (or
//! another one, or no dictionary coding in its `Accept-Encoding`) never receives a
//! `dcb`/`dcz` body that another client caused to be cached, and a client with the
//! dictionary still gets the delta (RFC 9842), whichever client came first.
//!
//! By default (the first tests) a `dcb`/`dcz` answer is `private`, so no shared cache
//! stores it, even one that keys its copies on the URL alone (nginx
//! `proxy_ignore_headers Vary;`, Varnish with `Vary` removed in
//! `vcl_backend_response`, as a CDN that passes `Available-Dictionary` through without
//! keying on it): every other client gets br, stored once and shared, and the client
//! with the dictionary gets the delta from the server or the shared br. The same
//! cache with `shared_cache_deltas()` hands A's `dcb` body to B, which a test shows
//! (so the ignoring set-up really ignores `Vary`).
//!
//! With `shared_cache_deltas()` behind caches that honour `Vary` (the later tests), once
//! each variant is stored, asking again is a cache HIT that never reaches our server.
//! Nothing in the caches' configuration knows about dictionaries: no custom cache key,
//! no hashing of `Available-Dictionary`. What keeps the variants apart is the
//! `Vary: accept-encoding, available-dictionary` our server sends with every response
//! of a file that has a delta (and the caches honouring it).
//! One setting is needed for Varnish, and is about compression, not dictionaries:
//! `http_gzip_support=off`. Otherwise Varnish asks the server for gzip whatever the
//! client accepts (and unzips it for clients without gzip): safe, but no client ever
//! gets br, `dcb` or `dcz`.
//!
//! Each test runs against both caches in turn. For each, it starts our server (this
//! build of `fixtures/dictionary`, default options, with a recording middleware that
//! shows which requests got past the cache) and the cache on 127.0.0.1 with a free
//! port, its config, logs and storage in a fresh temporary folder. Both caches report
//! what they did in `X-Cache: HIT` / `MISS` (nginx from `$upstream_cache_status`,
//! Varnish from `obj.hits` in `vcl_deliver`).
//!
//! Needs nginx and Varnish (Debian packages `nginx-light` and `varnish`; Varnish
//! compiles its VCL with `gcc`, a dependency of the package). Without one, its half of
//! each test is skipped with a message, or fails with `EMBED_TEST_REQUIRE_ALL=1` (see
//! `integration_tests::programs`); `bash tests/run.sh` installs both.

use axum::middleware;
use http::header::{CACHE_CONTROL, CONTENT_ENCODING, VARY};
use http::{HeaderMap, StatusCode};
use integration_tests::browser::{Seen, ServerLog, record};
use integration_tests::caches::{CacheKind, CacheProcess, Vary, X_CACHE};
use integration_tests::{
    Reply, app, decode_body, decode_with_dictionary, get, header, spawn_router,
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
/// The same without the dictionary codings: a browser without RFC 9842 support.
const NO_DICTIONARY_CODINGS: &str = "gzip, deflate, br, zstd";
/// What our server sends for a file that has a delta.
const VARY_BOTH: &str = "accept-encoding, available-dictionary";
/// What our server sends for fingerprinted files.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";
/// What it sends for their deltas, unless told the caches in front key on dictionaries.
const PRIVATE_IMMUTABLE: &str = "private, max-age=31536000, immutable";

/// The server's option: dictionary-compressed answers `private` (the default) or
/// shareable (`shared_cache_deltas()`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Deltas {
    Private,
    Shared,
}

/// Behind a cache that keys on the URL alone, with the default options, clients come
/// in an order that would spread a stored delta: A (the dictionary) first, then B (no
/// dictionary), C (another dictionary), D (the dictionary but no dictionary coding),
/// then each again, then B first on a fresh cache and A after it. No one but A ever
/// gets `dcb`/`dcz`; A gets the delta from the server, or the br everyone shares; no
/// delta is ever a cache HIT; every body decodes to this build's file.
#[tokio::test]
async fn behind_a_cache_that_ignores_vary_no_client_without_the_dictionary_gets_the_delta() {
    for kind in CacheKind::ALL {
        let app = App::new();
        let clients = app.clients();
        let (a, b) = (&clients[0], &clients[1]);
        let orders: [Vec<&Client>; 2] = [
            clients.iter().chain(&clients).chain([a]).collect(),
            vec![b, a, b, a],
        ];
        for order in orders {
            let Some(cache) = Cache::start(kind, Vary::Ignored, Deltas::Private).await else {
                continue;
            };
            let a_first = order[0].name == "A";
            let mut deltas = 0;
            for client in order {
                let reply = cache.get(&app, &client.fields).await;
                let who = format!("{kind}: {}", client.name);
                let encoding = header(&reply.1, CONTENT_ENCODING);
                if client.name == "A" && matches!(encoding, Some("dcb" | "dcz")) {
                    app.assert_delta(&reply, &who);
                    cache.assert_status(&reply, "MISS", &format!("{}: a delta", client.name));
                    deltas += 1;
                } else {
                    app.assert_no_delta(&reply, Some("br"), &who);
                }
            }
            // While no br is stored, A's request reaches the server, which sends the delta.
            assert!(
                !a_first || deltas > 0,
                "{kind}: A, first, got the delta from the server"
            );
        }
    }
}

/// The proof that the set-up above ignores `Vary`: with `shared_cache_deltas()`, the
/// same cache stores A's delta and hands it to B, who cannot decode it. This is what
/// the default prevents, and why the option is only for caches that key on
/// `Available-Dictionary`.
#[tokio::test]
async fn with_shared_cache_deltas_a_cache_that_ignores_vary_hands_the_delta_to_anyone() {
    for kind in CacheKind::ALL {
        let Some(cache) = Cache::start(kind, Vary::Ignored, Deltas::Shared).await else {
            continue;
        };
        let app = App::new();
        let clients = app.clients();
        let a = cache.get(&app, &clients[0].fields).await;
        app.assert_delta(&a, &format!("{kind}: A"));
        cache.assert_status(&a, "MISS", "A");
        let b = cache.get(&app, &clients[1].fields).await;
        cache.assert_status(&b, "HIT", "B");
        assert!(
            matches!(header(&b.1, CONTENT_ENCODING), Some("dcb" | "dcz")),
            "{kind}: B got A's stored delta: {:?}",
            b.1
        );
    }
}

/// Behind caches that honour `Vary`, with the default options: the delta reaches A
/// from the server every time (never stored), and B's br is stored and shared.
#[tokio::test]
async fn by_default_a_delta_is_never_stored_by_a_shared_cache() {
    for kind in CacheKind::ALL {
        let Some(cache) = Cache::start(kind, Vary::Honoured, Deltas::Private).await else {
            continue;
        };
        let app = App::new();
        let clients = app.clients();
        let (with, without) = (&clients[0].fields, &clients[1].fields);
        for round in ["first", "again"] {
            let a = cache.get(&app, with).await;
            app.assert_delta(&a, &format!("{kind}: A, {round}"));
            cache.assert_status(&a, "MISS", &format!("A, {round}"));
        }
        let b = cache.get(&app, without).await;
        app.assert_no_delta(&b, Some("br"), &format!("{kind}: B, first"));
        cache.assert_status(&b, "MISS", "B, first");
        let b = cache.get(&app, without).await;
        app.assert_no_delta(&b, Some("br"), &format!("{kind}: B, again"));
        cache.assert_status(&b, "HIT", "B, again");
    }
}

/// With `shared_cache_deltas()`: A (a browser that kept release 1's `js/app.js`) gets
/// the delta of release 2's and the cache stores it; B (no dictionary) and C (another dictionary), with the same
/// `Accept-Encoding`, then get br, each its own variant; asked again, all three are
/// HITs with their own bytes.
#[tokio::test]
async fn a_client_without_the_dictionary_never_gets_the_delta_another_client_had_cached() {
    for kind in CacheKind::ALL {
        let Some(cache) = Cache::start(kind, Vary::Honoured, Deltas::Shared).await else {
            continue;
        };
        let app = App::new();
        let with = app.with_dictionary();
        let without: Fields = vec![("accept-encoding", CHROME.to_owned())];
        let wrong = app.with_wrong_dictionary();

        // A, with the dictionary, fills the cache with the delta.
        let a = cache.get(&app, &with).await;
        app.assert_delta(&a, &format!("{kind}: A, first"));
        cache.assert_status(&a, "MISS", "A, first");
        // B, same Accept-Encoding, no dictionary: its own variant, never A's delta.
        let b = cache.get(&app, &without).await;
        app.assert_no_delta(&b, Some("br"), &format!("{kind}: B, first"));
        cache.assert_status(&b, "MISS", "B, first");
        // C, another (well-formed) dictionary: neither A's nor B's.
        let c = cache.get(&app, &wrong).await;
        app.assert_no_delta(&c, Some("br"), &format!("{kind}: C, first"));
        cache.assert_status(&c, "MISS", "C, first");

        // Each again: a HIT with the bytes stored for it.
        for (who, fields, first) in [("A", &with, &a), ("B", &without, &b), ("C", &wrong, &c)] {
            let again = cache.get(&app, fields).await;
            assert_eq!(
                header(&again.1, CONTENT_ENCODING),
                header(&first.1, CONTENT_ENCODING),
                "{kind}: {who}, again"
            );
            assert!(again.2 == first.2, "{kind}: {who}, again: the stored bytes");
            cache.assert_status(&again, "HIT", &format!("{who}, again"));
        }

        // Three variants, three requests at our server, each with the client's fields.
        cache.assert_origin_saw(
            &app,
            &[
                (CHROME, Some(&app.dictionary), "dcb|dcz"),
                (CHROME, None, "br"),
                (CHROME, Some(&app.wrong_dictionary), "br"),
            ],
        );
    }
}

/// With `shared_cache_deltas()`, the other order: B's br body in the cache first does not stop A getting the delta.
#[tokio::test]
async fn a_client_with_the_dictionary_gets_the_delta_after_one_without_filled_the_cache() {
    for kind in CacheKind::ALL {
        let Some(cache) = Cache::start(kind, Vary::Honoured, Deltas::Shared).await else {
            continue;
        };
        let app = App::new();
        let with = app.with_dictionary();
        let without: Fields = vec![("accept-encoding", CHROME.to_owned())];

        let b = cache.get(&app, &without).await;
        app.assert_no_delta(&b, Some("br"), &format!("{kind}: B, first"));
        cache.assert_status(&b, "MISS", "B, first");
        let a = cache.get(&app, &with).await;
        app.assert_delta(&a, &format!("{kind}: A, first"));
        cache.assert_status(&a, "MISS", "A, first");

        let b_again = cache.get(&app, &without).await;
        app.assert_no_delta(&b_again, Some("br"), &format!("{kind}: B, again"));
        cache.assert_status(&b_again, "HIT", "B, again");
        assert!(b_again.2 == b.2, "{kind}: B, again: the stored bytes");
        let a_again = cache.get(&app, &with).await;
        app.assert_delta(&a_again, &format!("{kind}: A, again"));
        cache.assert_status(&a_again, "HIT", "A, again");
        assert!(a_again.2 == a.2, "{kind}: A, again: the stored bytes");

        cache.assert_origin_saw(
            &app,
            &[
                (CHROME, None, "br"),
                (CHROME, Some(&app.dictionary), "dcb|dcz"),
            ],
        );
    }
}

/// With `shared_cache_deltas()`: a client that sends `Available-Dictionary` but does
/// not accept `dcb`/`dcz` (a
/// browser that lost support, a proxy that filtered its `Accept-Encoding`) never gets
/// a dictionary-compressed body, whether the delta is in the cache before it or after.
#[tokio::test]
async fn a_client_that_does_not_accept_the_dictionary_codings_never_gets_the_delta() {
    for kind in CacheKind::ALL {
        let Some(cache) = Cache::start(kind, Vary::Honoured, Deltas::Shared).await else {
            continue;
        };
        let app = App::new();
        let with = app.with_dictionary();
        // D: the dictionary, and br but no dictionary coding. E: the same without any
        // Accept-Encoding at all, so identity.
        let d: Fields = vec![
            ("accept-encoding", NO_DICTIONARY_CODINGS.to_owned()),
            ("available-dictionary", app.dictionary.clone()),
        ];
        let e: Fields = vec![("available-dictionary", app.dictionary.clone())];

        let first_d = cache.get(&app, &d).await;
        app.assert_no_delta(&first_d, Some("br"), &format!("{kind}: D, first"));
        cache.assert_status(&first_d, "MISS", "D, first");
        let a = cache.get(&app, &with).await;
        app.assert_delta(&a, &format!("{kind}: A, first"));
        cache.assert_status(&a, "MISS", "A, first");
        let first_e = cache.get(&app, &e).await;
        app.assert_no_delta(&first_e, None, &format!("{kind}: E, first"));
        cache.assert_status(&first_e, "MISS", "E, first");

        for (who, fields, coding) in [("D", &d, Some("br")), ("E", &e, None)] {
            let again = cache.get(&app, fields).await;
            app.assert_no_delta(&again, coding, &format!("{kind}: {who}, again"));
            cache.assert_status(&again, "HIT", &format!("{who}, again"));
        }
        let a_again = cache.get(&app, &with).await;
        app.assert_delta(&a_again, &format!("{kind}: A, again"));
        cache.assert_status(&a_again, "HIT", "A, again");

        cache.assert_origin_saw(
            &app,
            &[
                (NO_DICTIONARY_CODINGS, Some(&app.dictionary), "br"),
                (CHROME, Some(&app.dictionary), "dcb|dcz"),
                ("", Some(&app.dictionary), ""),
            ],
        );
    }
}

// ---------------------------------------------------------------------------------
// The file and its clients

/// A request's header fields, in order.
type Fields = Vec<(&'static str, String)>;

/// Release 2's `js/app.js`, the file every test asks for, and what a client of
/// release 1 kept of it.
struct App {
    /// Its fingerprinted URL, `/js/app.<hash>.js`.
    url: &'static str,
    /// Release 1's bytes: the dictionary.
    old: &'static [u8],
    /// This build's.
    new: &'static [u8],
    /// `Available-Dictionary` for release 1's bytes.
    dictionary: String,
    /// A well-formed `Available-Dictionary` for other bytes.
    wrong_dictionary: String,
}

impl App {
    fn new() -> Self {
        let old = release_1::SITE
            .get("/js/app.js")
            .expect("release 1 has js/app.js")
            .body(embed_assets::Encoding::Identity)
            .expect("an identity body");
        let this_build = SITE
            .iter()
            .find(|a| a.path() == "/js/app.js" && a.earlier_release().is_none())
            .expect("this build has js/app.js");
        let url = SITE.url("/js/app.js").expect("a fingerprinted URL");
        assert!(url.starts_with("/js/app.") && url != "/js/app.js", "{url}");
        Self {
            url,
            old,
            new: this_build
                .body(embed_assets::Encoding::Identity)
                .expect("an identity body"),
            dictionary: integration_tests::available_dictionary(old),
            wrong_dictionary: integration_tests::available_dictionary(b"another file"),
        }
    }

    /// A (the dictionary), B (none), C (another one), D (the dictionary, but no
    /// dictionary coding accepted): every one accepts br.
    fn clients(&self) -> [Client; 4] {
        let d = vec![
            ("accept-encoding", NO_DICTIONARY_CODINGS.to_owned()),
            ("available-dictionary", self.dictionary.clone()),
        ];
        [
            Client {
                name: "A",
                fields: self.with_dictionary(),
            },
            Client {
                name: "B",
                fields: vec![("accept-encoding", CHROME.to_owned())],
            },
            Client {
                name: "C",
                fields: self.with_wrong_dictionary(),
            },
            Client {
                name: "D",
                fields: d,
            },
        ]
    }

    /// Client A: a browser holding release 1's file.
    fn with_dictionary(&self) -> Fields {
        vec![
            ("accept-encoding", CHROME.to_owned()),
            ("available-dictionary", self.dictionary.clone()),
        ]
    }

    /// Client C: a browser holding some other dictionary for the URL.
    fn with_wrong_dictionary(&self) -> Fields {
        vec![
            ("accept-encoding", CHROME.to_owned()),
            ("available-dictionary", self.wrong_dictionary.clone()),
        ]
    }

    /// `reply` is the delta: `dcb` or `dcz`, decoding against release 1 to this build.
    fn assert_delta(&self, reply: &Reply, who: &str) {
        let (status, headers, body) = reply;
        assert_eq!(*status, StatusCode::OK, "{who}");
        assert!(
            matches!(header(headers, CONTENT_ENCODING), Some("dcb" | "dcz")),
            "{who}: the delta, got {headers:?}"
        );
        assert!(
            decode_with_dictionary(headers, body, self.old) == self.new,
            "{who}: the delta decodes to this build's js/app.js"
        );
    }

    /// `reply` is this build's file in `coding` (`None`: identity), not a delta.
    fn assert_no_delta(&self, reply: &Reply, coding: Option<&str>, who: &str) {
        let (status, headers, body) = reply;
        assert_eq!(*status, StatusCode::OK, "{who}");
        assert_eq!(
            header(headers, CONTENT_ENCODING),
            coding,
            "{who}: never dcb/dcz, got {headers:?}"
        );
        assert!(
            decode_body(headers, body) == self.new,
            "{who}: decodes to this build's js/app.js"
        );
    }
}

/// A client of the file: a name for messages, and its request fields.
struct Client {
    name: &'static str,
    fields: Fields,
}

// ---------------------------------------------------------------------------------
// The caches

/// Our server with this build of the dictionary site, and a cache in front of it.
struct Cache {
    kind: CacheKind,
    vary: Vary,
    deltas: Deltas,
    process: CacheProcess,
    log: ServerLog,
}

impl Cache {
    /// `None` when the cache's program is not installed (that half of the test is
    /// skipped, see `integration_tests::programs`).
    async fn start(kind: CacheKind, vary: Vary, deltas: Deltas) -> Option<Self> {
        let program = kind.program()?;
        let log = ServerLog::default();
        let service = match deltas {
            Deltas::Private => SITE.service(),
            Deltas::Shared => SITE.service().shared_cache_deltas(),
        };
        let router = app(service).layer(middleware::from_fn_with_state(log.clone(), record));
        let origin = spawn_router(router).await;
        let process = CacheProcess::start_with(kind, &program, origin, vary).await;
        Some(Self {
            kind,
            vary,
            deltas,
            process,
            log,
        })
    }

    /// `reply` carries the server's `Vary` (gone where Varnish removed it from what it
    /// stores) and its `Cache-Control`: `private` on a delta unless the deltas are
    /// shared.
    fn assert_policy(&self, reply: &Reply, who: &str) {
        let headers: &HeaderMap = &reply.1;
        let removed = self.vary == Vary::Ignored && self.kind == CacheKind::Varnish;
        let vary = (!removed).then_some(VARY_BOTH);
        assert_eq!(header(headers, VARY), vary, "{who}");
        let delta = matches!(header(headers, CONTENT_ENCODING), Some("dcb" | "dcz"));
        let policy = match (delta, self.deltas) {
            (true, Deltas::Private) => PRIVATE_IMMUTABLE,
            _ => IMMUTABLE,
        };
        assert_eq!(header(headers, CACHE_CONTROL), Some(policy), "{who}");
    }

    /// `GET` the file through the cache with `fields`; the reply carries the
    /// server's policy (`assert_policy`).
    async fn get(&self, app: &App, fields: &Fields) -> Reply {
        let fields: Vec<(&str, &str)> = fields
            .iter()
            .map(|(name, value)| (*name, value.as_str()))
            .collect();
        let reply = get(self.process.addr, app.url, &fields).await;
        self.assert_policy(&reply, &format!("{}: {fields:?}", self.kind));
        reply
    }

    /// The cache says `expected` (`HIT` or `MISS`) for `reply`.
    fn assert_status(&self, reply: &Reply, expected: &str, who: &str) {
        let kind = self.kind;
        let status = header(&reply.1, X_CACHE).unwrap_or_else(|| {
            panic!("{kind}: {who}: no X-Cache in {:?}", reply.1);
        });
        assert_eq!(status, expected, "{kind}: {who}: what the cache did");
    }

    /// Exactly these requests for the file reached our server, in order: the
    /// `Accept-Encoding` (`""`: none) and `Available-Dictionary` the cache passed on,
    /// and the coding our server answered with (`""`: identity, `"dcb|dcz"`: either).
    fn assert_origin_saw(&self, app: &App, expected: &[(&str, Option<&String>, &str)]) {
        let kind = self.kind;
        let seen: Vec<Seen> = self
            .log
            .snapshot()
            .into_iter()
            .filter(|seen| seen.path == app.url)
            .collect();
        assert_eq!(
            seen.len(),
            expected.len(),
            "{kind}: one request per variant reached the server, every other one was a HIT: {seen:#?}"
        );
        for (seen, (accept, dictionary, coding)) in seen.iter().zip(expected) {
            assert_eq!(
                seen.accept_encoding.as_deref().unwrap_or_default(),
                *accept,
                "{kind}: the client's Accept-Encoding reached the server: {seen:?}"
            );
            assert_eq!(
                seen.available_dictionary.as_ref(),
                *dictionary,
                "{kind}: the client's Available-Dictionary reached the server: {seen:?}"
            );
            let got = seen.content_encoding.as_deref().unwrap_or_default();
            let fits = match *coding {
                "dcb|dcz" => got == "dcb" || got == "dcz",
                one => got == one,
            };
            assert!(fits, "{kind}: answered with {coding}: {seen:?}");
        }
    }
}
