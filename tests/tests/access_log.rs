//! `serve`'s access log: one `tracing` event per request on the target
//! `embed_assets::access`, for the hits the server answers itself and the requests
//! the application answers alike, with method, path, status, bytes and coding; and
//! the start-up line, as an event, once a subscriber is installed.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::routing::get as route_get;
use embed_assets::Server;
use http::{Method, StatusCode};
use integration_tests::{SITE, fixture, get, head, send};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

/// One event: its target and its fields as text (the message under `message`).
type Seen = (String, BTreeMap<String, String>);

/// A subscriber that keeps every event of the `embed_assets` targets.
#[derive(Clone, Default)]
struct Recorder {
    events: Arc<Mutex<Vec<Seen>>>,
    ids: Arc<AtomicU64>,
}

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.0.insert(field.name().to_owned(), value.to_string());
    }
}

impl Subscriber for Recorder {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        metadata.target().starts_with("embed_assets")
    }

    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(self.ids.fetch_add(1, Ordering::Relaxed) + 1)
    }

    fn record(&self, _: &Id, _: &Record<'_>) {}

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn event(&self, event: &Event<'_>) {
        let mut fields = BTreeMap::new();
        event.record(&mut Fields(&mut fields));
        let target = event.metadata().target().to_owned();
        self.events.lock().unwrap().push((target, fields));
    }

    fn enter(&self, _: &Id) {}

    fn exit(&self, _: &Id) {}
}

impl Recorder {
    /// The access log's events for `path` so far.
    fn access(&self, path: &str) -> Vec<BTreeMap<String, String>> {
        self.events
            .lock()
            .unwrap()
            .iter()
            .filter(|(target, fields)| {
                target == "embed_assets::access"
                    && fields.get("path").map(String::as_str) == Some(path)
            })
            .map(|(_, fields)| fields.clone())
            .collect()
    }
}

/// `key=value` of the fields that matter.
fn summary(fields: &BTreeMap<String, String>) -> String {
    ["method", "status", "bytes", "coding"]
        .iter()
        .map(|key| format!("{key}={}", fields.get(*key).map_or("-", String::as_str)))
        .collect::<Vec<_>>()
        .join(" ")
}

#[tokio::test]
async fn every_request_is_logged_once_hits_and_misses_alike() {
    let recorder = Recorder::default();
    tracing::subscriber::set_global_default(recorder.clone()).expect("the one subscriber");
    let server = Server::bind("127.0.0.1:0")
        .unwrap()
        .workers(1)
        .shutdown_on_signals(false);
    let (addr, stop) = (server.local_addr(), server.shutdown_handle());
    let app = Router::new().route("/api/health", route_get(|| async { "ok" }));
    let thread = std::thread::spawn(move || server.serve(SITE.service(), app).unwrap());

    let index = fixture("/index.html");
    let (status, _, body) = get(addr, "/index.html", &[]).await;
    assert_eq!((status, &body[..]), (StatusCode::OK, &index[..]));
    let (_, headers, body) = get(addr, "/js/app.js?v=1", &[("accept-encoding", "br")]).await;
    assert_eq!(
        integration_tests::header(&headers, http::header::CONTENT_ENCODING),
        Some("br")
    );
    let br_len = body.len();
    head(addr, "/index.html", &[]).await;
    assert_eq!(get(addr, "/api/health", &[]).await.0, StatusCode::OK);
    assert_eq!(
        send(addr, Method::POST, "/index.html", &[]).await.0,
        StatusCode::METHOD_NOT_ALLOWED
    );
    assert_eq!(
        get(addr, "/missing.txt", &[]).await.0,
        StatusCode::NOT_FOUND
    );
    stop.shutdown();
    thread.join().unwrap();

    let logged = |path: &str| {
        recorder
            .access(path)
            .iter()
            .map(summary)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        logged("/index.html"),
        [
            format!(
                "method=GET status=200 bytes={} coding=identity",
                index.len()
            ),
            "method=HEAD status=200 bytes=0 coding=identity".to_owned(),
            "method=POST status=405 bytes=0 coding=identity".to_owned(),
        ]
    );
    assert_eq!(
        logged("/js/app.js?v=1"),
        [format!("method=GET status=200 bytes={br_len} coding=br")]
    );
    assert_eq!(
        logged("/api/health"),
        ["method=GET status=200 bytes=2 coding=identity"]
    );
    assert_eq!(
        logged("/missing.txt"),
        ["method=GET status=404 bytes=14 coding=identity"]
    );
    let one = &recorder.access("/api/health")[0];
    assert_eq!(
        one.get("message").map(String::as_str),
        Some(format!("GET /api/health 200 2 identity {}us", one["micros"]).as_str())
    );
    // The start-up line, as an event of its own target.
    let started = recorder
        .events
        .lock()
        .unwrap()
        .iter()
        .filter(|(target, _)| target == "embed_assets::serve")
        .map(|(_, fields)| fields.get("message").cloned().unwrap_or_default())
        .collect::<Vec<_>>();
    assert_eq!(
        started,
        [format!(
            "embed-assets: serving on http://{addr} with 1 worker"
        )]
    );
}
