//! A request answered from a file read at run time: an on-disk asset, streamed, or a
//! dev-mode file, read whole. The file is read in `disk`; the answer is `respond`'s.

use std::borrow::Cow;
use std::io;
use std::path::PathBuf;
use std::sync::Arc;

use http::header::ACCEPT_ENCODING;
use http::{HeaderMap, HeaderValue, Method, Response, StatusCode};

use super::ServeAssets;
use super::options::Fields;
use crate::asset::Asset;
use crate::body::Body;
use crate::coding::Encoding;
use crate::disk::{Content, DiskFile, Reader};
use crate::negotiate;
use crate::representation::{Negotiated, Representation};
use crate::respond::{self, EmbeddedPolicy, PurgeTags};

/// A request answered from a file read at run time: an on-disk asset (streamed), or
/// an embedded one in dev mode (re-read on every request, so edits show on refresh;
/// identity only, as nothing is compressed at run time). Owned, so the future is
/// `'static`.
pub(super) struct FileRequest {
    pub(super) service: ServeAssets,
    /// The code that reads the file (linked only where some file is read).
    pub(super) reader: &'static Reader,
    /// The table's entry; `None` for a dev-folder file added since the build.
    pub(super) asset: Option<&'static Asset>,
    pub(super) path: PathBuf,
    pub(super) method: Method,
    pub(super) headers: HeaderMap,
    pub(super) cache_control: HeaderValue,
    pub(super) fields: Fields,
    pub(super) vary_accept: bool,
    pub(super) purge_tags: Option<PurgeTags>,
    /// A file of a folder served whole: streamed in chunks when it is larger than one,
    /// rather than read whole as dev mode reads the files it would have embedded.
    pub(super) stream: bool,
}

impl FileRequest {
    pub(super) async fn respond(self) -> Response<Body> {
        let tags = || Arc::clone(&self.service.config.tags);
        let read = if self.stream {
            // A folder served whole: a file of one chunk or less read whole, a larger
            // one streamed.
            let whole_up_to = self.service.config.options.chunk_size as u64;
            let cache = Arc::clone(&self.service.config.bodies);
            (self.reader.fetch)(self.path.clone(), tags(), cache, whole_up_to).await
        } else if self.asset.is_none_or(Asset::is_embedded) {
            // Dev mode reads embedded files, and files added since the build, whole.
            (self.reader.read)(self.path.clone()).await
        } else {
            (self.reader.open)(self.path.clone(), tags()).await
        };
        let policy = EmbeddedPolicy {
            added: respond::Added {
                cache_control: &self.cache_control,
                fields: &self.fields[..],
                shared_deltas: self.service.config.options.shared_deltas,
                purge_tags: self.purge_tags.as_ref(),
            },
            prebuilt: None,
            vary_accept: self.vary_accept,
        };
        let file = match read {
            Ok(file) => file,
            Err(err) => return self.unreadable(&err, policy),
        };
        let content_type = match self.asset {
            Some(asset) => Cow::Borrowed(asset.content_type()),
            None => Cow::Owned((self.reader.media_type)(&self.path, &file.content)),
        };
        let (file, encoding, negotiated) = if self.stream {
            self.sibling_for(file).await
        } else {
            (file, Encoding::Identity, false)
        };
        let DiskFile { meta, content } = file;
        let Some(mut rep) = Representation::on_disk(&meta, &content_type) else {
            return respond::status_only(StatusCode::INTERNAL_SERVER_ERROR);
        };
        rep.encoding = encoding;
        if negotiated {
            rep.negotiated = Negotiated::Encoding;
        }
        let chunk_size = self.service.config.options.chunk_size;
        let budget = Arc::clone(&self.service.config.budget);
        let mut response = respond::respond(
            &rep,
            &self.method,
            &self.headers,
            // A file read from disk has no dictionary-compressed body.
            respond::Added {
                shared_deltas: false,
                ..policy.added
            },
            |slices| Body::from_file(content, slices, chunk_size, budget),
        );
        if self.vary_accept {
            respond::add_vary_accept(response.headers_mut());
        }
        response
    }
}

impl FileRequest {
    /// A folder's file, or in its place the precompressed sibling the request prefers
    /// among those that decode to its bytes (a stale one is passed over); its coding,
    /// and whether the choice depended on `Accept-Encoding` (some sibling exists).
    async fn sibling_for(&self, file: DiskFile) -> (DiskFile, Encoding, bool) {
        // A file streamed is compared with its sibling as a stream, read again.
        let identity = match &file.content {
            Content::Whole(bytes) => Some(bytes.clone()),
            Content::Open(_) => None,
        };
        let mut present = (self.reader.siblings)(
            &self.service.config.bodies,
            &self.path,
            &file.meta.version,
            self.service.follows_symlinks(),
        );
        if present.is_empty() {
            return (file, Encoding::Identity, false);
        }
        let options = &self.service.config.options;
        let accept = || self.headers.get_all(ACCEPT_ENCODING);
        while let Some((encoding, _)) = negotiate::choose(accept(), present.iter().map(|&e| (e, e)))
        {
            let sibling = (self.reader.sibling)(
                self.path.clone(),
                encoding,
                identity.clone(),
                file.meta.version,
                Arc::clone(&self.service.config.tags),
                Arc::clone(&self.service.config.bodies),
                options.chunk_size as u64,
            )
            .await;
            match sibling {
                Some(sibling) => return (sibling, encoding, true),
                None => present.retain(|&e| e != encoding),
            }
        }
        (file, Encoding::Identity, true)
    }

    /// The answer when the file could not be read.
    fn unreadable(&self, err: &io::Error, policy: EmbeddedPolicy<'_>) -> Response<Body> {
        match self.asset {
            // Dev mode: a file (or the whole folder) that is missing falls back to the
            // embedded bytes.
            Some(asset) if asset.is_embedded() => {
                respond::answer_embedded(asset, policy, &self.method, &self.headers).into_response()
            }
            _ if err.kind() == io::ErrorKind::PermissionDenied => {
                respond::status_only(StatusCode::FORBIDDEN)
            }
            // Deleted or replaced by a folder since start-up (as if never listed), or
            // a dev-folder path that names no regular file.
            None => self.service.not_found(&self.method, &self.headers),
            Some(_) if err.kind() == io::ErrorKind::NotFound => {
                self.service.not_found(&self.method, &self.headers)
            }
            Some(_) => respond::status_only(StatusCode::INTERNAL_SERVER_ERROR),
        }
    }
}
