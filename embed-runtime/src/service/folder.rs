//! A folder served whole ([`ServeAssets::folder`]): a request answered on its own
//! thread from what the folder's cache keeps, when the file (and the precompressed
//! sibling the request prefers) are kept at their current versions: a whole 200 or a
//! 304 with the header fields built once for that version (as an embedded asset's),
//! anything else assembled per request. Anything not kept goes the way that reads
//! (`dispatch`, `file`).

use std::sync::Arc;
use std::time::SystemTime;

use bytes::Bytes;
use embed_assets_shared::select::FileRules;
use http::header::{
    ACCEPT_ENCODING, ACCEPT_RANGES, ETAG, IF_MATCH, IF_MODIFIED_SINCE, IF_NONE_MATCH, IF_RANGE,
    IF_UNMODIFIED_SINCE, LAST_MODIFIED, RANGE,
};
use http::{HeaderMap, HeaderValue, Method, Response, StatusCode};

use super::file::FileRequest;
use super::future::{Answer, ResponseFuture};
use super::head::RequestHead;
use super::options::Fields;
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
            .flatten()
            .map(|offered| (*offered, offered.encoding));
        let sibling;
        let (encoding, cached) =
            match negotiate::choose(head.headers.get_all(ACCEPT_ENCODING), offered) {
                // The sibling the request prefers, unless it must be read or checked
                // first (then the way that reads does).
                Some(offered) => {
                    sibling = kept.sibling(&self.config.bodies, offered)?;
                    (offered.encoding, &sibling)
                }
                None => (Encoding::Identity, &kept.file),
            };
        let meta = FileMeta {
            etag: Some(Arc::clone(&cached.etag)),
            version: cached.version,
        };
        let content_type = &*kept.file.content_type;
        // The URL's cache rule and header fields: needed only where fields are built,
        // not for an answer whose fields were built before.
        let policy = || {
            let url = format!("/{relative}");
            (options.cache_control_for(&url), options.fields_for(&url))
        };
        let negotiated = kept.negotiated;
        // A file that changed under a second ago states no date yet: its fields are
        // made per request until it does.
        let role = match encoding {
            Encoding::Identity => usize::from(negotiated),
            _ => 2,
        };
        let slot = &cached.heads[role];
        let stated = meta.version.stated;
        let prebuilt_heads = match slot.get() {
            Some(kept) => heads_of(kept, stated),
            None if Representation::is_dated(&meta) => {
                let rep = state(
                    Representation::on_disk(&meta, content_type)?,
                    encoding,
                    negotiated,
                );
                let kept = slot.get_or_init(|| {
                    Arc::new(DatedHeads {
                        stated,
                        heads: Arc::new(PrebuiltHeaders::of(&rep, added(&policy()))),
                    })
                });
                heads_of(kept, stated)
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
                let policy = policy();
                respond::respond_to(outcome, &rep, head.method, added(&policy), |slices| {
                    Body::from_file(content, slices, chunk_size, budget)
                })
            }
        };
        Some(Answer::Response(answer))
    }
}

impl ServeAssets {
    /// `answer`, or on a folder served whole with a
    /// [404 page](ServeAssets::not_found_page), a 404 of it made the page: read from
    /// the folder as any file is (negotiated, `HEAD` without a body), with status 404,
    /// `Cache-Control: no-cache` and no validators, so that no cache turns it into a
    /// 304 and no range is taken of it. While the page cannot be read (missing, a link
    /// on its way), the plain 404 is sent. Answers that are not a 404 are untouched:
    /// a hit from the cache costs nothing more.
    pub(super) fn with_folder_not_found_page<'a>(
        &self,
        answer: Answer<'a>,
        head: &RequestHead<'_>,
    ) -> Answer<'a> {
        let Some(page) = self
            .config
            .options
            .folder_site()
            .and_then(|site| site.not_found_page.as_deref())
        else {
            return answer;
        };
        // Made only for an answer that is or may become a 404.
        let page = || NotFoundPage {
            service: self.clone(),
            url: page.to_owned(),
            method: head.method.clone(),
            headers: head.headers.clone(),
        };
        match answer {
            Answer::Response(response) if response.status() == StatusCode::NOT_FOUND => {
                Answer::Later(ResponseFuture::boxed(page().instead_of(response)))
            }
            Answer::Later(future) => {
                let page = page();
                Answer::Later(ResponseFuture::boxed(async move {
                    let response = future.await;
                    if response.status() == StatusCode::NOT_FOUND {
                        page.instead_of(response).await
                    } else {
                        response
                    }
                }))
            }
            other => other,
        }
    }
}

/// What a folder's 404 page is read for: the request it answers.
struct NotFoundPage {
    service: ServeAssets,
    url: String,
    method: Method,
    headers: HeaderMap,
}

impl NotFoundPage {
    /// The page with status 404 in place of `plain`, or `plain` when the page cannot
    /// be read.
    async fn instead_of(mut self, plain: Response<Body>) -> Response<Body> {
        let options = &self.service.config.options;
        let Some(dev) = &options.dev_folder else {
            return plain;
        };
        let relative = self.url.trim_start_matches('/').to_owned();
        let follow_symlinks = self.service.follows_symlinks();
        if !follow_symlinks
            && !(dev.reader.no_link_on_the_way)(dev.path.clone(), relative.clone()).await
        {
            return plain;
        }
        // The whole page, whatever the request asked of the file it did not find.
        for name in [
            IF_MATCH,
            IF_NONE_MATCH,
            IF_MODIFIED_SINCE,
            IF_UNMODIFIED_SINCE,
            IF_RANGE,
            RANGE,
        ] {
            self.headers.remove(name);
        }
        let method = if self.method == Method::HEAD {
            Method::HEAD
        } else {
            Method::GET
        };
        let request = FileRequest {
            service: self.service.clone(),
            reader: dev.reader,
            asset: None,
            path: dev.path.join(&relative),
            method,
            headers: self.headers,
            cache_control: respond::NO_CACHE,
            fields: options.fields_for(&self.url),
            vary_accept: route::varies_by_accept(&self.service.config),
            purge_tags: None,
            stream: true,
        };
        let mut response = request.respond().await;
        if response.status() != StatusCode::OK {
            return plain;
        }
        *response.status_mut() = StatusCode::NOT_FOUND;
        let out = response.headers_mut();
        for name in [ETAG, LAST_MODIFIED, ACCEPT_RANGES] {
            out.remove(name);
        }
        response
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

/// The header fields a cache slot keeps for a kept version, with the date they
/// state: a sibling's is the later of its own and its file's, and its file can change
/// (to the same bytes) while the sibling's entry does not.
struct DatedHeads {
    stated: SystemTime,
    heads: Arc<PrebuiltHeaders>,
}

/// The fields `slot` keeps when they state `stated`; `None` (fields made per request)
/// otherwise. Only this service writes the slots, so they always hold [`DatedHeads`].
fn heads_of(slot: &crate::disk::Heads, stated: SystemTime) -> Option<Arc<PrebuiltHeaders>> {
    let kept = slot.downcast_ref::<DatedHeads>()?;
    (kept.stated == stated).then(|| Arc::clone(&kept.heads))
}

/// `rep` as the coding `encoding`, chosen by `Accept-Encoding` when `negotiated`.
fn state(mut rep: Representation<'_>, encoding: Encoding, negotiated: bool) -> Representation<'_> {
    rep.encoding = encoding;
    if negotiated {
        rep.negotiated = Negotiated::Encoding;
    }
    rep
}
