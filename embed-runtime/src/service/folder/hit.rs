//! A request of a folder served whole answered on its own thread from what the
//! folder's cache keeps, when the file (and the precompressed sibling the request
//! prefers) are cached at their current versions: a whole 200 or a 304 with the header
//! fields built once for that version (as an embedded asset's), anything else
//! assembled per request. Anything not cached goes the way that reads (`file`).

use std::sync::Arc;
use std::time::SystemTime;

use http::HeaderValue;
use http::header::ACCEPT_ENCODING;

use super::super::ServeAssets;
use super::super::future::Answer;
use super::super::head::RequestHead;
use super::super::options::{DiskFolder, Fields, FolderSite};
use crate::body::Body;
use crate::coding::Encoding;
use crate::disk::{Content, FileMeta};
use crate::negotiate;
use crate::representation::Representation;
use crate::respond::{self, Prebuilt, PrebuiltFields, PrebuiltHeaders};

impl ServeAssets {
    /// The answer to a GET or HEAD of `relative` in a folder served whole, from its
    /// cache, or `None` when something must be read first (or it is not such a folder).
    pub(super) fn folder_hit(
        &self,
        folder: &DiskFolder,
        site: &FolderSite,
        relative: &str,
        head: &RequestHead<'_>,
    ) -> Option<Answer<'static>> {
        let options = &self.config.options;
        let cache = &self.config.bodies;
        let hit = (folder.reader.cache_hit)(cache, &folder.path, relative, site.follow_symlinks)?;
        let offered = hit.siblings.iter().flatten().copied();
        let sibling;
        let (encoding, cached) =
            match negotiate::choose(head.headers.get_all(ACCEPT_ENCODING), offered) {
                // The sibling the request prefers, unless it must be read or checked
                // first (then the way that reads does).
                Some((offered, encoding)) => {
                    sibling = hit.sibling(cache, offered)?;
                    (encoding, &sibling)
                }
                None => (Encoding::Identity, &hit.file),
            };
        let meta = FileMeta {
            etag: Some(Arc::clone(&cached.etag)),
            version: cached.version,
        };
        let content_type = &*hit.file.content_type;
        // The URL's cache rule and header fields: needed only where fields are built,
        // not for an answer whose fields were built before.
        let policy = || {
            let url = format!("/{relative}");
            (options.cache_control_for(&url), options.fields_for(&url))
        };
        let negotiated = hit.negotiated;
        let role = match encoding {
            Encoding::Identity => usize::from(negotiated),
            _ => 2,
        };
        let slot = &cached.heads[role];
        let stated = meta.version.stated;
        let built = slot.get().and_then(|dated| heads_of(dated, stated));
        let rep = match &built {
            Some(heads) => Representation::on_disk_with(&meta, content_type, heads.values.clone()),
            None => Representation::on_disk(&meta, content_type)?,
        }
        .coded(encoding, negotiated);
        // The first request of a version that states its date builds its fields, from
        // the representation it is answered with. A file that changed under a second
        // ago states no date yet: its fields are made per request until it does.
        let prebuilt_heads = match (built, slot.get()) {
            (Some(heads), _) => Some(heads),
            (None, None) if rep.values.last_modified.is_some() => {
                let dated = slot.get_or_init(|| {
                    Arc::new(DatedHeads {
                        stated,
                        heads: Arc::new(PrebuiltHeaders::of(&rep, added(&policy()))),
                    })
                });
                heads_of(dated, stated)
            }
            (None, Some(_)) | (None, None) => None,
        };
        let outcome = respond::outcome(&rep, head.method, head.headers);
        if let Some(heads) = prebuilt_heads {
            let body = || cached.bytes.clone();
            let fields = PrebuiltFields::Shared(heads);
            if let Some(prebuilt) = Prebuilt::of(&outcome, fields, head.method, body) {
                return Some(Answer::Prebuilt(prebuilt));
            }
        }
        let content = Content::Whole(cached.bytes.clone());
        let chunk_size = options.chunk_size;
        let budget = Arc::clone(&self.config.budget);
        let policy = policy();
        let answer = respond::respond_to(outcome, &rep, head.method, added(&policy), |slices| {
            Body::from_file(content, slices, chunk_size, budget)
        });
        Some(Answer::Response(answer))
    }
}

/// What a folder's file adds to its fields: its URL's cache rule and header fields.
fn added<'a>((cache_control, fields): &'a (&'a HeaderValue, Fields)) -> respond::Added<'a> {
    respond::Added {
        cache_control,
        fields,
        shared_deltas: false,
        purge_tags: None,
    }
}

/// The header fields a cache slot holds for a cached version, with the date they
/// state: a sibling's is the later of its own and its file's, and its file can change
/// (to the same bytes) while the sibling's entry does not.
struct DatedHeads {
    stated: SystemTime,
    heads: Arc<PrebuiltHeaders>,
}

/// The fields `slot` holds when they state `stated`; `None` (fields made per request)
/// otherwise. Only this service writes the slots, so they always hold [`DatedHeads`].
fn heads_of(slot: &crate::disk::Heads, stated: SystemTime) -> Option<Arc<PrebuiltHeaders>> {
    let dated = slot.downcast_ref::<DatedHeads>()?;
    (dated.stated == stated).then(|| Arc::clone(&dated.heads))
}
