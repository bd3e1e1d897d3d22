//! A folder served whole ([`ServeAssets::folder`]), the third source of answers beside
//! the table and the table in dev mode: its routing (a path is a file of the folder,
//! a directory's index or its redirect to the slash, or the single-page app's page),
//! its answers from the folder's cache (`hit`) or read (`file`), and its 404 page
//! (`not_found`). Nothing here runs for a service over a table.

mod hit;
mod not_found;

use std::path::{Path, PathBuf};

use http::Method;

use super::ServeAssets;
use super::dispatch::Claim;
use super::future::{Answer, ResponseFuture};
use super::head::RequestHead;
use super::options::{DiskFolder, FolderSite, Options};
use super::route::{self, Target};
use crate::disk::{self, Named};
use crate::path;
use crate::respond;

/// Where a request's path leads in a folder served whole.
pub(in crate::service) enum Routed<'t> {
    /// A path below the folder, selected by its rules; what it names is found on disk
    /// when the request is answered.
    File(String),
    /// Anything else: the mount point's redirect, or not found.
    Other(Target<'t>),
}

/// Where a request's path leads in a folder served whole.
pub(in crate::service) fn route<'t>(
    options: &Options,
    site: &FolderSite,
    head: &RequestHead<'_>,
) -> Routed<'t> {
    // Mounted (`nest_service("/static", ..)`): the mount point itself is the root
    // folder, redirected to its slash as a table's would be.
    if options.index_file.is_some() && head.path == "/" {
        if let Some(mount) = head.mount {
            return Routed::Other(route::to_directory(mount, head));
        }
    }
    match folder_file(site, options, head.path) {
        Some(relative) => Routed::File(relative),
        None => Routed::Other(Target::NotFound),
    }
}

/// The path below the folder that a request's `path` names, decoded (once, here), when
/// the folder's rules select it: no empty segment (see `path::decode`); a path ending
/// in `/` names its directory's index file. Every method: a file answers 405 to the
/// ones it does not take.
fn folder_file(site: &FolderSite, options: &Options, path: &str) -> Option<String> {
    let rules = site.rules.as_ref()?;
    let mut relative = path::decode(path)?.strip_prefix('/')?.to_owned();
    if relative.is_empty() || relative.ends_with('/') {
        relative.push_str(options.index_file.as_ref()?);
    }
    let names_a_file = !relative.split('/').any(str::is_empty);
    (names_a_file && rules.selects(Path::new(&relative))).then_some(relative)
}

/// Whether a request's method is one a file answers (the others get 405 on it).
fn is_get_or_head(method: &Method) -> bool {
    method == Method::GET || method == Method::HEAD
}

impl ServeAssets {
    /// A path below the folder: from the folder's cache at once when nothing needs
    /// reading, else read. A file there that exists (or a directory with its index,
    /// redirected) is a hit; other methods get 405 on it, 404 elsewhere.
    pub(in crate::service) fn answer_folder_file<'a>(
        &self,
        folder: &DiskFolder,
        site: &FolderSite,
        relative: &str,
        head: &RequestHead<'_>,
        claim: Claim,
    ) -> Option<Answer<'a>> {
        let get_or_head = is_get_or_head(head.method);
        if get_or_head {
            if let Some(answer) = self.folder_hit(folder, site, relative, head) {
                return Some(answer);
            }
        }
        let is_hit = || self.folder_file_is_hit(folder, site, relative);
        if claim == Claim::Hits && !(get_or_head && is_hit()) {
            return None;
        }
        if !get_or_head {
            return Some(Answer::Response(if is_hit() {
                respond::method_not_allowed()
            } else {
                self.not_found(head.method, head.headers)
            }));
        }
        Some(Answer::Later(
            self.respond_folder_file(folder, site, relative, head),
        ))
    }

    /// Whether `relative` is a file of the folder, or a directory with its index (which
    /// the request is redirected from): the one way to tell a hit before calling the
    /// application (whose readiness is spent once it is called). A link that is not
    /// followed is a miss as a missing file is: the answer must not tell them apart.
    fn folder_file_is_hit(&self, folder: &DiskFolder, site: &FolderSite, relative: &str) -> bool {
        let options = &self.config.options;
        let follow_symlinks = site.follow_symlinks;
        match disk::named_below(&folder.path, relative, follow_symlinks) {
            Named::File => true,
            Named::Directory => options.index_file.as_ref().is_some_and(|index| {
                let index = format!("{relative}/{index}");
                disk::named_below(&folder.path, &index, follow_symlinks) == Named::File
            }),
            Named::Nothing => false,
        }
    }

    /// The index file of `path` when `path` is a directory that has one: the request
    /// for it is redirected to the directory's slash.
    fn directory_index(&self, path: &Path) -> Option<PathBuf> {
        let index = path.join(self.config.options.index_file.as_ref()?);
        (disk::is_directory(path) && disk::is_regular_file(&index)).then_some(index)
    }

    /// A file of the folder, read whole or streamed, a directory's redirect to its
    /// slash, or the single-page app's page. Served as its own bytes (or a checked
    /// sibling's), with the type the macro would give it and the cache rules of its
    /// path. 404 when it does not exist, is not a regular file, or (unless links are
    /// followed) a link lies on its way.
    fn respond_folder_file(
        &self,
        folder: &DiskFolder,
        site: &FolderSite,
        relative: &str,
        head: &RequestHead<'_>,
    ) -> ResponseFuture {
        let options = &self.config.options;
        // A file past one chunk is streamed.
        let mut request = self.disk_request(folder, relative, head, true);
        if self.directory_index(&request.path).is_some() {
            // `/dir` of a directory with its index: to `dir/`, links relative to it.
            let segment = relative.rsplit('/').next().unwrap_or_default();
            let Some(location) = route::directory_location(segment, head.query) else {
                return ResponseFuture::ready(self.not_found(head.method, head.headers));
            };
            let response = respond::redirect(location);
            let (folder, reader) = (folder.path.clone(), folder.reader);
            let (relative, follow_symlinks) = (relative.to_owned(), site.follow_symlinks);
            return ResponseFuture::boxed(async move {
                let allowed =
                    follow_symlinks || (reader.no_link_on_the_way)(folder, relative).await;
                if allowed {
                    response
                } else {
                    request.service.not_found(&request.method, &request.headers)
                }
            });
        }
        let spa_page = site.spa_page.as_deref().filter(|_| {
            route::takes_spa_page(options, head, &format!("/{relative}"))
                && !disk::is_regular_file(&request.path)
        });
        let Some(page) = spa_page else {
            return self.respond_below(folder, relative, request);
        };
        // The single-page app's page, read from the folder.
        let relative = page.trim_start_matches('/');
        request.path = folder.path.join(relative);
        request.cache_control = route::FALLBACK_CACHE_CONTROL.clone();
        request.fields = options.fields_for(page);
        request.vary_accept = true;
        self.respond_below(folder, relative, request)
    }
}
