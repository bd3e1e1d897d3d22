//! A request's walk: its head → `route` (one typed target) → `respond`, from memory at
//! once or from a file read at run time (`file`). [`ServeAssets::answer`] is the one
//! entry: it answers, or says the request is not the assets' to answer.

use std::sync::Arc;

use embed_assets_shared::select::FileRules;

use http::{HeaderMap, Method, Response, StatusCode, Version};

use super::Answer;
use super::file::FileRequest;
use super::folder;
use super::options::{DiskFolder, FolderSite, Options, Source};
use super::route::{self, Policy, Target};
use super::{RequestHead, ResponseFuture, ServeAssets};
use crate::asset::Asset;
use crate::body::Body;
use crate::disk::{self, Named};
use crate::respond;

/// What routes a request: the table (with dev mode's folder, in dev mode), or a
/// folder served whole, with what it answers.
#[derive(Clone, Copy)]
enum Router<'s> {
    Table(Option<&'s DiskFolder>),
    Folder(&'s DiskFolder, &'s FolderSite),
}

/// Which requests a caller wants answered; the rest are another handler's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Claim {
    /// Every request, 400, 404 and 405 included: the service on its own.
    Everything,
    /// Every request but the plain 404 (no page of ours, no choice by `Accept`): warp's
    /// filter rejects that, so `.or(..)` goes on to the next filter.
    #[cfg_attr(not(feature = "warp"), allow(dead_code))]
    AllButPlainNotFound,
    /// Only hits: a GET or HEAD of an asset at its own URL (its index, clean or
    /// fingerprinted URL included) or the redirect of a directory to its slash. Not
    /// the single-page app's page, 404 or 405, nothing with a bad `Host`: those go to
    /// the application behind [`WithFallback`](crate::WithFallback) first. In dev mode, a file
    /// added to the folder since the build is a hit when it exists. (Another version
    /// of a hashed file is answered under every claim: `Target::OtherVersion`.)
    #[cfg_attr(not(feature = "tower"), allow(dead_code))]
    Hits,
}

impl ServeAssets {
    /// Answers one request given as its head: the entry point of the framework
    /// adapters, and of any server that does not speak `http::Request`. Behaves as
    /// [`respond`](Self::respond).
    pub fn respond_head(&self, head: RequestHead<'_>) -> ResponseFuture {
        match self.answer(head, Claim::Everything) {
            Some(response) => response,
            // NOTE: never: `Claim::Everything` answers every request.
            None => ResponseFuture::ready(respond::status_only(StatusCode::NOT_FOUND)),
        }
    }

    /// The one entry of every adapter: the answer to `head`, or `None` when the request
    /// is not the assets' to answer under `claim` (another handler's: the application
    /// behind them, warp's next filter). Decided here, from the route, before any I/O,
    /// so that no adapter inspects a response to decide.
    pub(crate) fn answer(&self, head: RequestHead<'_>, claim: Claim) -> Option<ResponseFuture> {
        self.answer_borrowed(head, claim).map(Answer::into_future)
    }

    /// [`answer`](Self::answer), with the common answers' prebuilt fields borrowed
    /// rather than copied into a response: for a server that writes its own heads.
    pub(crate) fn answer_borrowed(
        &self,
        head: RequestHead<'_>,
        claim: Claim,
    ) -> Option<Answer<'_>> {
        // The source, chosen when the service was built, is asked once: a request for
        // an embedded file never asks about a folder.
        let router = match &self.config.options.source {
            Source::Table => Router::Table(None),
            Source::Dev(dev) => Router::Table(Some(dev)),
            Source::Folder(folder, site) => Router::Folder(folder, site),
        };
        let answer = self.answer_plain(head, claim, router)?;
        match (router, answer) {
            // A hit from a folder's cache is never a 404.
            (Router::Table(_), answer) | (_, answer @ Answer::Prebuilt(_)) => Some(answer),
            (Router::Folder(_, site), answer) => {
                Some(self.with_folder_not_found_page(site, answer, &head))
            }
        }
    }

    /// [`answer_borrowed`](Self::answer_borrowed) with the plain 404, the request
    /// routed by `router`: the table's, or a folder's.
    fn answer_plain<'s>(
        &'s self,
        head: RequestHead<'_>,
        claim: Claim,
        router: Router<'s>,
    ) -> Option<Answer<'s>> {
        if !has_valid_host(&head) {
            return (claim != Claim::Hits)
                .then(|| Answer::Response(respond::status_only(StatusCode::BAD_REQUEST)));
        }
        let (config, assets) = (&self.config, self.assets);
        let options = &config.options;
        let target = match (release_endpoint(options, &head), router) {
            (Some(target), _) => target,
            (None, Router::Table(dev)) => {
                let tables = config.tables.get(&config.options, assets);
                route::route(assets, config, tables, dev, &head)
            }
            (None, Router::Folder(folder, site)) => match folder::route(options, site, &head) {
                folder::Routed::File(relative) => {
                    return self.answer_folder_file(folder, site, &relative, &head, claim);
                }
                folder::Routed::Other(target) => target,
            },
        };
        let response = match target {
            // The single-page app's page answers for the application's paths too.
            Target::Asset(_, policy) if policy.answer.vary_accept && claim == Claim::Hits => {
                return None;
            }
            Target::Asset(asset, policy) => {
                let dev = match router {
                    Router::Table(dev) => dev,
                    Router::Folder(..) => None,
                };
                // From memory, here: embedded, and not re-read by dev mode (which
                // keeps an earlier release's files in memory too).
                if asset.disk.is_none() && (dev.is_none() || asset.earlier_release().is_some()) {
                    let answer = policy.answer;
                    return Some(
                        respond::answer_embedded(asset, answer, head.method, head.headers).into(),
                    );
                }
                return Some(self.respond_file(asset, policy, dev, &head));
            }
            Target::Redirect(location) => respond::redirect(location),
            Target::Releases => {
                let options = &self.config.options;
                let (_, json) = options.release_endpoint.as_ref()?;
                respond::release_list(json, &options.unmatched_fields(), head.method)
            }
            Target::MethodNotAllowed if claim == Claim::Hits => return None,
            Target::MethodNotAllowed => respond::method_not_allowed(),
            // Final in every claim: the application behind the assets would answer
            // with its own page, which is what breaks the page that asked.
            Target::OtherVersion => respond::not_found_no_store(head.method),
            Target::NotFound => match claim {
                Claim::Hits => return None,
                Claim::AllButPlainNotFound if self.is_plain_not_found() => return None,
                _ => self.not_found(head.method, head.headers),
            },
            // Dev mode's files added since the build are hits when they exist, so the
            // front serves them even when the application's fallback is a service
            // without dev mode; an absent one is the application's.
            Target::DevFile(relative) => return self.answer_dev_file(&relative, &head, claim),
        };
        Some(Answer::Response(response))
    }

    /// A file added to the dev folder since the build (a GET or HEAD): a hit when it
    /// exists, read whole.
    fn answer_dev_file<'a>(
        &self,
        relative: &str,
        head: &RequestHead<'_>,
        claim: Claim,
    ) -> Option<Answer<'a>> {
        if claim == Claim::Hits && !self.dev_file_is_hit(relative) {
            return None;
        }
        let Some(dev) = self.config.options.dev() else {
            return Some(Answer::Response(self.not_found(head.method, head.headers)));
        };
        let request = self.disk_request(dev, relative, head, false);
        Some(Answer::Later(self.respond_below(dev, relative, request)))
    }

    /// The one 404: the configured page or a plain text, varying by `Accept` when the
    /// single-page app's fallback made the choice.
    pub(super) fn not_found(&self, method: &Method, headers: &HeaderMap) -> Response<Body> {
        let options = &self.config.options;
        let config = &self.config;
        let page_fields = &config
            .tables
            .get(&config.options, self.assets)
            .not_found_fields;
        let mut response = respond::not_found(options.not_found_page, page_fields, method, headers);
        if route::varies_by_accept(&self.config) {
            respond::add_vary_accept(response.headers_mut());
        }
        response
    }

    /// Whether the 404 says nothing but "not here": no page of ours, and no choice made
    /// by `Accept` (a single-page app's 404 varies by it, and a cache must learn so).
    fn is_plain_not_found(&self) -> bool {
        let options = &self.config.options;
        options.not_found_page.is_none()
            && options
                .folder_site()
                .is_none_or(|site| site.not_found_page.is_none())
            && !route::varies_by_accept(&self.config)
    }

    /// An asset of the table read from disk: from dev mode's folder, or a file left on
    /// disk at build time.
    fn respond_file<'a>(
        &self,
        asset: &'static Asset,
        policy: Policy<'a>,
        dev: Option<&DiskFolder>,
        head: &RequestHead<'_>,
    ) -> Answer<'a> {
        let (path, reader) = match (dev, asset.disk) {
            (_, Some(disk)) => match self.config.options.disk_path(disk.path) {
                Some(path) => (path, disk.reader),
                None => return Answer::Response(self.not_found(head.method, head.headers)),
            },
            (Some(dev), None) => (
                dev.path.join(asset.path().trim_start_matches('/')),
                dev.reader,
            ),
            // NOTE: never: the caller answers an asset neither on disk nor in dev mode
            // from memory.
            (None, None) => {
                return respond::answer_embedded(asset, policy.answer, head.method, head.headers)
                    .into();
            }
        };
        let added = policy.answer.added;
        let request = FileRequest {
            service: self.clone(),
            reader,
            asset: Some(asset),
            path,
            method: head.method.clone(),
            headers: head.headers.clone(),
            cache_control: added.cache_control.clone(),
            fields: Arc::clone(policy.fields),
            vary_accept: policy.answer.vary_accept,
            purge_tags: added.purge_tags.cloned(),
            stream: false,
        };
        Answer::Later(ResponseFuture::boxed(request.respond()))
    }

    /// Whether the dev folder's (or the folder's) symbolic links are followed: the
    /// macro's `follow_symlinks`, or the folder's own policy.
    pub(super) fn follows_symlinks(&self) -> bool {
        match &self.config.options.source {
            Source::Table => false,
            Source::Dev(_) => self
                .config
                .tables
                .get(&self.config.options, self.assets)
                .dev_rules
                .as_ref()
                .is_some_and(FileRules::follows_symlinks),
            Source::Folder(_, site) => site.follow_symlinks,
        }
    }

    /// Whether a file added to the dev folder since the build exists: the one way to
    /// tell a hit before calling the application (whose readiness is spent once it is
    /// called). A link that is not followed is a miss as a missing file is.
    fn dev_file_is_hit(&self, relative: &str) -> bool {
        self.config.options.dev().is_some_and(|dev| {
            disk::named_below(&dev.path, relative, self.follows_symlinks()) == Named::File
        })
    }

    /// The request for `relative` below `folder` (dev mode's, or one served whole,
    /// whose files past one chunk are streamed when `stream`), with the cache rules
    /// and header fields of its path.
    pub(super) fn disk_request(
        &self,
        folder: &DiskFolder,
        relative: &str,
        head: &RequestHead<'_>,
        stream: bool,
    ) -> FileRequest {
        let options = &self.config.options;
        let url = format!("/{relative}");
        FileRequest {
            service: self.clone(),
            reader: folder.reader,
            asset: None,
            path: folder.path.join(relative),
            method: head.method.clone(),
            headers: head.headers.clone(),
            cache_control: options.cache_control_for(&url).clone(),
            fields: options.fields_for(&url),
            vary_accept: false,
            // No cache in front to purge.
            purge_tags: None,
            stream,
        }
    }

    /// `request`'s answer, or 404 when (unless links are followed) a link lies on the
    /// way from `folder` to `relative`.
    pub(super) fn respond_below(
        &self,
        folder: &DiskFolder,
        relative: &str,
        request: FileRequest,
    ) -> ResponseFuture {
        let (path, reader) = (folder.path.clone(), folder.reader);
        let (relative, follow_symlinks) = (relative.to_owned(), self.follows_symlinks());
        ResponseFuture::boxed(async move {
            let allowed = follow_symlinks || (reader.no_link_on_the_way)(path, relative).await;
            if !allowed {
                return request.service.not_found(&request.method, &request.headers);
            }
            request.respond().await
        })
    }
}

/// The list of releases, when the request is for `release_endpoint`'s path.
fn release_endpoint<'t>(options: &Options, head: &RequestHead<'_>) -> Option<Target<'t>> {
    // The endpoint's path is plain (no escape, checked by the builder) and no asset's.
    let (path, _) = options.release_endpoint.as_ref()?;
    (path == head.path).then(|| {
        if route::is_get_or_head(head.method) {
            Target::Releases
        } else {
            Target::MethodNotAllowed
        }
    })
}

/// RFC 9112 §3.2: a request with more than one `Host` field line or an invalid one, or
/// an HTTP/1.1 request with none, is answered with 400. A target in absolute form names
/// the host itself (§3.2.2), as HTTP/2's `:authority` does; HTTP/1.0 predates `Host`.
fn has_valid_host(head: &RequestHead<'_>) -> bool {
    let mut hosts = head.headers.get_all(http::header::HOST).iter();
    match (hosts.next(), hosts.next()) {
        (Some(_), Some(_)) => false,
        (Some(host), None) => is_authority(host.as_bytes()),
        (None, _) => head.has_authority || head.version != Version::HTTP_11,
    }
}

/// RFC 3986 §3.2: the bytes an `authority` without userinfo can hold (`reg-name` or an
/// IP literal, then `:port`). Checked byte by byte, with no allocation, on every request.
fn is_authority(host: &[u8]) -> bool {
    host.iter()
        .all(|&b| b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=%:[]".contains(&b))
}
