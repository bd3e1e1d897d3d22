//! The messages of the library's `tracing` events (`embed_assets::tls`,
//! `embed_assets::access`, ...), as a test reads its logs: from every thread of the test
//! process (a server's workers, its ACME thread), or from the calling thread alone.

use std::sync::{Arc, Mutex, OnceLock};

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

/// Keeps the message of each event whose target starts with `embed_assets`, with its
/// target.
#[derive(Clone, Default)]
struct Recorder(Arc<Mutex<Vec<(String, String)>>>);

struct Message<'a>(&'a mut String);

impl Visit for Message<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            *self.0 = format!("{value:?}");
        }
    }
}

impl Subscriber for Recorder {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        metadata.target().starts_with("embed_assets")
    }
    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }
    fn record(&self, _: &Id, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, event: &Event<'_>) {
        let mut message = String::new();
        event.record(&mut Message(&mut message));
        let target = event.metadata().target().to_owned();
        self.0.lock().unwrap().push((target, message));
    }
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

impl Recorder {
    fn messages(&self, target: &str) -> Vec<String> {
        self.0
            .lock()
            .unwrap()
            .iter()
            .filter(|(seen, _)| seen == target)
            .map(|(_, message)| message.clone())
            .collect()
    }
}

/// The process's recorder, installed as the global subscriber on first use.
fn global() -> &'static Recorder {
    static GLOBAL: OnceLock<Recorder> = OnceLock::new();
    GLOBAL.get_or_init(|| {
        let recorder = Recorder::default();
        let _ = tracing::subscriber::set_global_default(recorder.clone());
        recorder
    })
}

/// Starts keeping the messages of every thread (a process-wide subscriber: call it
/// before the server starts, and in a test binary that installs no other).
pub fn record() {
    global();
}

/// The messages on `target` (`embed_assets::tls`, say) kept since [`record`].
pub fn messages(target: &str) -> Vec<String> {
    global().messages(target)
}

/// The messages on `target` made on this thread while `f` runs.
pub fn messages_of(target: &str, f: impl FnOnce()) -> Vec<String> {
    let recorder = Recorder::default();
    tracing::subscriber::with_default(recorder.clone(), f);
    recorder.messages(target)
}
