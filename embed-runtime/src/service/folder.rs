//! A folder served whole ([`ServeAssets::folder`]): a request answered on its own
//! thread from what the folder's cache keeps, when the file (and the precompressed
//! sibling the request prefers) are kept at their current versions: a whole 200 or a
//! 304 with the header fields built once for that version (as an embedded asset's),
//! anything else assembled per request. Anything not kept goes the way that reads
//! (`dispatch`, `file`).

use std::sync::Arc;

use bytes::Bytes;
use embed_assets_shared::select::FileRules;
use http::header::ACCEPT_ENCODING;
use http::{Method, StatusCode};

use super::future::Answer;
use super::head::RequestHead;
use super::{ServeAssets, route};
use crate::body::Body;
use crate::coding::Encoding;
use crate::disk::{Content, FileMeta};
use crate::negotiate;
use crate::representation::{Negotiated, Representation};
use crate::respond::{self, Outcome, Prebuilt, PrebuiltFields, PrebuiltHeaders};

impl ServeAssets {
    /// Whether the dev folder's (or the folder's) symbolic links are followed: the
    /// macro's `follow_symlinks`, or the folder's own policy.
    pub(super) fn follows_symlinks(&self) -> bool {
        self.config
            .tables(self.assets)
            .dev
            .as_ref()
            .is_some_and(FileRules::follows_symlinks)
    }

    /// The answer to a GET or HEAD of `relative` in a folder served whole, from its
    /// cache, or `None` when something must be read first (or it is not such a folder).
    pub(super) fn folder_hit(
        &self,
        relative: &str,
        head: &RequestHead<'_>,
    ) -> Option<Answer<'static>> {
        let options = &self.config.options;
        let dev = options
            .dev_folder
            .as_ref()
            .filter(|dev| dev.site.is_some())?;
        if !route::is_get_or_head(head.method) {
            return None;
        }
        let follow_symlinks = self.follows_symlinks();
        let kept = (dev.reader.kept)(&self.config.bodies, &dev.path, relative, follow_symlinks)?;
        let offered = kept
            .siblings
            .iter()
            .map(|(encoding, cached)| ((*encoding, cached.as_ref()), *encoding));
        let (encoding, cached) =
            match negotiate::choose(head.headers.get_all(ACCEPT_ENCODING), offered) {
                // The sibling the request prefers, not read or checked yet: read it.
                Some((_, None)) => return None,
                Some((encoding, Some(cached))) => (encoding, cached),
                None => (Encoding::Identity, &kept.file),
            };
        let meta = FileMeta {
            etag: Some(Arc::clone(&cached.etag)),
            version: cached.version,
        };
        let content_type = &*kept.file.content_type;
        let url = format!("/{relative}");
        let fields = options.fields_for(&url);
        let added = respond::Added {
            cache_control: options.cache_control_for(&url),
            fields: &fields,
            shared_deltas: false,
            purge_tags: None,
        };
        let negotiated = kept.negotiated;
        // A file that changed under a second ago states no date yet: its fields are
        // made per request until it does.
        let role = match encoding {
            Encoding::Identity => usize::from(negotiated),
            _ => 2,
        };
        let slot = &cached.heads[role];
        let prebuilt_heads = match slot.get() {
            Some(heads) => Some(Arc::clone(heads)),
            None if Representation::is_dated(&meta) => {
                let rep = state(
                    Representation::on_disk(&meta, content_type)?,
                    encoding,
                    negotiated,
                );
                Some(Arc::clone(
                    slot.get_or_init(|| Arc::new(PrebuiltHeaders::of(&rep, added))),
                ))
            }
            None => None,
        };
        let rep = match &prebuilt_heads {
            Some(heads) => state(
                Representation::on_disk_with(&meta, content_type, heads.values().clone()),
                encoding,
                negotiated,
            ),
            None => state(
                Representation::on_disk(&meta, content_type)?,
                encoding,
                negotiated,
            ),
        };
        let outcome = respond::outcome(&rep, head.method, head.headers);
        let prebuilt = |heads, status| {
            let body = if status == StatusCode::OK && head.method != Method::HEAD {
                cached.bytes.clone()
            } else {
                Bytes::new()
            };
            Some(Answer::Prebuilt(Prebuilt {
                status,
                fields: PrebuiltFields::Shared(heads),
                body,
            }))
        };
        let answer = match (prebuilt_heads, outcome) {
            (Some(heads), Outcome::Whole) => return prebuilt(heads, StatusCode::OK),
            (Some(heads), Outcome::NotModified) => {
                return prebuilt(heads, StatusCode::NOT_MODIFIED);
            }
            (_, outcome) => {
                let content = Content::Whole(cached.bytes.clone());
                let chunk_size = options.chunk_size;
                let budget = Arc::clone(&self.config.budget);
                respond::respond_to(outcome, &rep, head.method, added, |slices| {
                    Body::from_file(content, slices, chunk_size, budget)
                })
            }
        };
        Some(Answer::Response(answer))
    }
}

/// `rep` as the coding `encoding`, chosen by `Accept-Encoding` when `negotiated`.
fn state(mut rep: Representation<'_>, encoding: Encoding, negotiated: bool) -> Representation<'_> {
    rep.encoding = encoding;
    if negotiated {
        rep.negotiated = Negotiated::Encoding;
    }
    rep
}
