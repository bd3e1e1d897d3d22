//! A folder's 404 page ([`ServeAssets::not_found_page`] on a folder served whole): read
//! from the folder in place of a plain 404.

use http::header::{
    IF_MATCH, IF_MODIFIED_SINCE, IF_NONE_MATCH, IF_RANGE, IF_UNMODIFIED_SINCE, RANGE,
};
use http::{HeaderMap, Method, Response, StatusCode};

use super::super::file::FileRequest;
use super::super::future::{Answer, ResponseFuture};
use super::super::head::RequestHead;
use super::super::options::FolderSite;
use super::super::{ServeAssets, route};
use crate::body::Body;
use crate::respond;

impl ServeAssets {
    /// `answer`, or on a folder served whole with a
    /// [404 page](ServeAssets::not_found_page), a 404 of it made the page: read from
    /// the folder as any file is (negotiated, `HEAD` without a body), with status 404,
    /// `Cache-Control: no-cache` and no validators, so that no cache turns it into a
    /// 304 and no range is taken of it. While the page cannot be read (missing, a link
    /// on its way), the plain 404 is sent. Answers that are not a 404 are untouched:
    /// a hit from the cache costs nothing more.
    pub(in crate::service) fn with_folder_not_found_page<'a>(
        &self,
        site: &FolderSite,
        answer: Answer<'a>,
        head: &RequestHead<'_>,
    ) -> Answer<'a> {
        let Some(page) = site.not_found_page.as_deref() else {
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

/// What a folder's 404 page is read for: the request it answers (the folder is the
/// service's).
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
        let Some((folder, site)) = options.folder() else {
            return plain;
        };
        let relative = self.url.trim_start_matches('/').to_owned();
        if !site.follow_symlinks
            && !(folder.reader.no_link_on_the_way)(folder.path.clone(), relative.clone()).await
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
            reader: folder.reader,
            asset: None,
            path: folder.path.join(&relative),
            method,
            headers: self.headers,
            cache_control: respond::NO_CACHE,
            fields: options.fields_for(&self.url),
            vary_accept: route::varies_by_accept(&self.service.config),
            purge_tags: None,
            stream: true,
        };
        let response = request.respond().await;
        if response.status() != StatusCode::OK {
            return plain;
        }
        respond::page_as_not_found(response)
    }
}
