//! A folder served whole ([`ServeAssets::folder`]): a request answered on its own
//! thread from what the folder's cache keeps, when the file (and the precompressed
//! sibling the request prefers) are kept at their current versions. Anything else
//! goes the way that reads (`dispatch`, `file`).

use std::sync::Arc;

use embed_assets_shared::select::FileRules;
use http::Response;
use http::header::ACCEPT_ENCODING;

use super::head::RequestHead;
use super::{ServeAssets, route};
use crate::body::Body;
use crate::coding::Encoding;
use crate::disk::{Content, FileMeta};
use crate::negotiate;
use crate::representation::{Negotiated, Representation};
use crate::respond;

impl ServeAssets {
    /// The answer to a GET or HEAD of `relative` in a folder served whole, from its
    /// cache, or `None` when something must be read first (or it is not such a folder).
    pub(super) fn folder_hit(
        &self,
        relative: &str,
        head: &RequestHead<'_>,
    ) -> Option<Response<Body>> {
        let options = &self.config.options;
        let dev = options
            .dev_folder
            .as_ref()
            .filter(|dev| dev.site.is_some())?;
        if !route::is_get_or_head(head.method) {
            return None;
        }
        let follow_symlinks = self
            .config
            .tables(self.assets)
            .dev
            .as_ref()
            .is_some_and(FileRules::follows_symlinks);
        let kept = (dev.reader.kept)(&self.config.bodies, &dev.path, relative, follow_symlinks)?;
        let offered = kept
            .siblings
            .iter()
            .map(|(encoding, cached)| ((*encoding, cached), *encoding));
        let (encoding, cached) = negotiate::choose(head.headers.get_all(ACCEPT_ENCODING), offered)
            .unwrap_or((Encoding::Identity, &kept.file));
        let meta = FileMeta {
            etag: Some(Arc::clone(&cached.etag)),
            version: cached.version,
        };
        let mut rep = Representation::on_disk(&meta, &kept.file.content_type)?;
        rep.encoding = encoding;
        if kept.negotiated {
            rep.negotiated = Negotiated::Encoding;
        }
        let url = format!("/{relative}");
        let fields = options.fields_for(&url);
        let content = Content::Whole(cached.bytes.clone());
        let chunk_size = options.chunk_size;
        let budget = Arc::clone(&self.config.budget);
        Some(respond::respond(
            &rep,
            head.method,
            head.headers,
            respond::Added {
                cache_control: options.cache_control_for(&url),
                fields: &fields,
                shared_deltas: false,
                purge_tags: None,
            },
            |slices| Body::from_file(content, slices, chunk_size, budget),
        ))
    }
}
