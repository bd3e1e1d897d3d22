//! Walk the folder: filters, URL paths, the embed/on-disk split.

use std::path::{Component, Path};
use std::time::UNIX_EPOCH;

use embed_assets_shared::select::FileRules;
use walkdir::WalkDir;

use crate::errors::{Errors, display_path, io_cause};
use crate::model::{Body, DiskReason, EncodedAsset, FileEntry, Pass};
use crate::options::{Globs, Options};

/// Lists the files below `options.root`, sorted by URL path.
pub(crate) fn scan_dir(options: &Options, pass: Pass) -> syn::Result<Vec<FileEntry>> {
    let mut errors = Errors::default();
    let mut files = walk(options, pass, &mut errors);
    if !errors.is_empty() && pass == Pass::Current {
        // The build stops before encoding: check the fingerprint patterns on the names
        // now, so an `include` typo does not hide a `fingerprint` one.
        crate::fingerprint::check_patterns(&files, options, &mut errors);
    }
    errors.finish()?;
    if files.is_empty() && !options.allow_empty.value && pass == Pass::Current {
        return Err(empty_folder(options));
    }
    files.sort_by(|a, b| a.url_path.cmp(&b.url_path));
    check_budget(&files, options)?;
    Ok(files)
}

/// The selection rules the options give (`include`, `exclude`, `dotfiles`,
/// `follow_symlinks`), as the walk and the notice of skipped links read them.
fn file_rules(options: &Options) -> FileRules {
    let set = |globs: &Option<Globs>| globs.as_ref().map(|globs| globs.set.clone());
    FileRules::new(
        options.dotfiles.value,
        options.follow_symlinks.value,
        set(&options.include.value),
        set(&options.exclude.value),
    )
}

/// The build's warning (its text, and where it points) about the symbolic links the
/// walk skips (`follow_symlinks = false`) among the files and folders the filters
/// select: each is a 404 at run time, which nothing else would tell. `None` when there
/// is none, or links are followed.
pub(crate) fn skipped_links_notice(options: &Options) -> Option<(String, proc_macro2::Span)> {
    if options.follow_symlinks.value {
        return None;
    }
    let rules = file_rules(options);
    let root = options
        .root
        .canonicalize()
        .unwrap_or_else(|_| options.root.clone());
    let links: Vec<String> = WalkDir::new(&options.root)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|entry| entry.depth() == 0 || rules.enters(entry.file_name()))
        .filter_map(Result::ok)
        .filter(|entry| entry.depth() > 0 && entry.path_is_symlink())
        .filter_map(|entry| {
            let below = entry.path().strip_prefix(&options.root).ok()?;
            if !rules.selects(below) {
                return None;
            }
            let target = std::fs::read_link(entry.path()).ok()?;
            let outside = entry.path().canonicalize().map_or(" (broken)", |real| {
                if real.starts_with(&root) {
                    ""
                } else {
                    " (outside the folder)"
                }
            });
            Some(format!(
                "`{}` -> `{}`{outside}",
                display_path(&options.root_display, &lossy_relative(below)),
                target.display()
            ))
        })
        .collect();
    if links.is_empty() {
        return None;
    }
    let (count, are, they, them) = if links.len() == 1 {
        ("1 symbolic link".to_owned(), "is", "it", "it")
    } else {
        (
            format!("{} symbolic links", links.len()),
            "are",
            "they",
            "them",
        )
    };
    let mut named: Vec<String> = links.iter().take(20).cloned().collect();
    if links.len() > 20 {
        named.push(format!("and {} more", links.len() - 20));
    }
    let message = format!(
        "{count} in `{}` {are} skipped (`follow_symlinks = false`), so {} will answer 404: {}; write `follow_symlinks = true` to embed what {they} point to, or `exclude` {them} to say so",
        options.root_display,
        if links.len() == 1 {
            "its URL"
        } else {
            "their URLs"
        },
        named.join(", ")
    );
    Some((
        message,
        options.follow_symlinks.written.unwrap_or(options.root_span),
    ))
}

/// The files below `options.root` that the filters select, in walk order, with every
/// problem met on the way (unreadable entries, names without a URL, `include` and `disk`
/// patterns that match nothing) added to `errors`.
pub(crate) fn walk(options: &Options, pass: Pass, errors: &mut Errors) -> Vec<FileEntry> {
    let shown = |relative: &str| display_path(&options.root_display, relative);
    let source_date_epoch = source_date_epoch();
    let include = options.include.value.as_ref();
    let rules = file_rules(options);
    let mut include_hits = vec![false; include.map_or(0, |globs| globs.patterns.len())];
    let disk = options.disk.value.as_ref();
    let mut disk_hits = vec![false; disk.map_or(0, |globs| globs.patterns.len())];
    let walker = WalkDir::new(&options.root)
        .follow_links(rules.follows_symlinks())
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|entry| entry.depth() == 0 || rules.enters(entry.file_name()));
    let mut files = Vec::new();
    for entry in walker {
        let entry = match entry {
            Ok(entry) => entry,
            Err(err) => {
                let below = err.path().and_then(|p| p.strip_prefix(&options.root).ok());
                let relative = below.map(lossy_relative).unwrap_or_default();
                let is_broken_link = err.path().is_some_and(|p| p.is_symlink() && !p.exists());
                let cause = if err.loop_ancestor().is_some() {
                    "symbolic link loop".to_owned()
                } else if is_broken_link {
                    "broken symbolic link".to_owned()
                } else {
                    err.io_error().map_or_else(|| err.to_string(), io_cause)
                };
                errors.at_span(
                    options.root_span,
                    format!("cannot read `{}`: {cause}", shown(&relative)),
                );
                continue;
            }
        };
        let file_type = entry.file_type();
        if file_type.is_dir() || file_type.is_symlink() {
            // A symlink is only seen here when not following links: skipped by design.
            continue;
        }
        let Ok(below) = entry.path().strip_prefix(&options.root) else {
            continue;
        };
        // Filter first: excluding a file whose name has no URL is the way out.
        if let Some(include) = include {
            include.mark(below, &mut include_hits);
        }
        if !rules.selects(below) {
            continue;
        }
        let relative = match relative_url_path(below) {
            Ok(relative) => relative,
            Err(msg) => {
                let name = shown(&lossy_relative(below));
                errors.at_span(options.root_span, format!("`{name}`: {msg}"));
                continue;
            }
        };
        if !file_type.is_file() {
            // A named pipe would block the build forever on open; a socket or device
            // has no bytes to embed. `exclude` (above) is the way out.
            errors.at_span(
                options.root_span,
                format!(
                    "`{}` is not a regular file (a named pipe, socket or device): remove it or `exclude` it",
                    shown(&relative)
                ),
            );
            continue;
        }
        let meta = match entry.metadata() {
            Ok(meta) => meta,
            Err(err) => {
                let cause = err.io_error().map_or_else(|| err.to_string(), io_cause);
                errors.at_span(
                    options.root_span,
                    format!("cannot read `{}`: {cause}", shown(&relative)),
                );
                continue;
            }
        };
        let len = meta.len();
        if let Some(disk) = disk {
            disk.mark(below, &mut disk_hits);
        }
        let (over_limit, disk) = placement(below, len, options);
        let since_epoch = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .unwrap_or_default();
        // Clamped to what an HTTP-date can state, so formatting it cannot panic.
        let mtime = since_epoch.as_secs().min(LAST_HTTP_DATE);
        files.push(FileEntry {
            url_path: format!("/{relative}"),
            abs_path: entry.path().to_path_buf(),
            relative,
            len,
            modified: source_date_epoch.unwrap_or(mtime),
            mtime,
            over_limit,
            disk,
        });
    }
    if let Some(include) = include.filter(|_| pass == Pass::Current) {
        report_unmatched("include", include, &include_hits, options, errors);
    }
    if let Some(disk) = disk.filter(|_| pass == Pass::Current) {
        report_unmatched("disk", disk, &disk_hits, options, errors);
    }
    files
}

/// A folder with nothing to embed is most often a frontend build that did not run (a
/// wiped `dist/`): a binary that serves 404 for every page should not build quietly.
fn empty_folder(options: &Options) -> syn::Error {
    let filtered = options.include.value.is_some() || options.exclude.value.is_some();
    let why = if filtered {
        "its files are all left out by `include`/`exclude`"
    } else if options.dotfiles.value {
        "it has no file"
    } else {
        "it has no file (names starting with `.` are skipped unless `dotfiles = true`)"
    };
    syn::Error::new(
        options.root_span,
        format!(
            "`{}` has nothing to embed: {why}; if a build writes it (a frontend's `dist/`), run that build first, or write `allow_empty = true` if it is empty on purpose",
            options.root_display
        ),
    )
}

/// Where a file of `len` bytes at `below` is served from: whether it is over
/// `max_embed_size` yet compresses (embedded only if its gzip body fits, which
/// `encode.rs` finds out), or why it stays on disk.
fn placement(below: &Path, len: u64, options: &Options) -> (bool, Option<DiskReason>) {
    let listed = options
        .disk
        .value
        .as_ref()
        .is_some_and(|globs| globs.is_match(below));
    if listed {
        (false, Some(DiskReason::Listed))
    } else if len <= options.max_embed_size.value {
        (false, None)
    } else if embed_assets_shared::is_precompressed(below) {
        (false, Some(DiskReason::Incompressible))
    } else if !options.gzip.value {
        (false, Some(DiskReason::NoGzip))
    } else {
        (true, None)
    }
}

/// An `include` or `disk` pattern that matches no file of the folder is a typo
/// (`*.csss`), so an error at that pattern. (An `exclude` pattern may match nothing:
/// whether a frontend build writes source maps, say, can depend on its mode.)
fn report_unmatched(
    option: &str,
    globs: &Globs,
    hits: &[bool],
    options: &Options,
    errors: &mut Errors,
) {
    for ((pattern, span), _) in globs.patterns.iter().zip(hits).filter(|(_, hit)| !**hit) {
        let hint =
            if !options.dotfiles.value && (pattern.starts_with('.') || pattern.contains("/.")) {
                " (names starting with `.` are skipped unless `dotfiles = true`)"
            } else {
                ""
            };
        errors.at_span(
            *span,
            format!(
                "`{option}` pattern `{pattern}` matches no file in `{}`{hint}; patterns match the path below the folder, like `css/*.css`",
                options.root_display
            ),
        );
    }
}

/// The per-invocation budget: embedded bytes over `max_total_size` are a compile error
/// that names the largest files and the ways out, rather than minutes of rustc time
/// and gigabytes of its memory.
fn check_budget(files: &[FileEntry], options: &Options) -> syn::Result<()> {
    // A file over `max_embed_size` is embedded only if a sample shows it compresses
    // (`encode.rs`): counted once that is known, by `check_embedded_budget`.
    let sure = files.iter().filter(|f| f.is_embedded() && !f.over_limit);
    check_total(sure.map(|f| (f.relative.as_str(), f.len)), options)
}

/// [`check_budget`] once the files are encoded, when it is known which files over
/// `max_embed_size` stay embedded (compressed only) and which go to disk: each counts
/// its own size, as every embedded file does.
pub(crate) fn check_embedded_budget(assets: &[EncodedAsset], options: &Options) -> syn::Result<()> {
    let embedded = assets
        .iter()
        .filter(|asset| matches!(asset.body, Body::Embedded { .. }))
        .map(|asset| (asset.url_path.trim_start_matches('/'), asset.len));
    check_total(embedded, options)
}

/// An error naming the largest files when `files` (path below the folder, size) add
/// up to more than `max_total_size`.
fn check_total<'a>(
    files: impl Iterator<Item = (&'a str, u64)>,
    options: &Options,
) -> syn::Result<()> {
    let mut largest: Vec<(&str, u64)> = files.collect();
    let embedded: u64 = largest.iter().map(|(_, len)| len).sum();
    if embedded <= options.max_total_size.value {
        return Ok(());
    }
    largest.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let named: Vec<String> = largest
        .iter()
        .take(3)
        .map(|(relative, len)| {
            format!(
                "`{}` ({})",
                display_path(&options.root_display, relative),
                human(*len)
            )
        })
        .collect();
    let msg = format!(
        "the embedded files add up to {}, over `max_total_size` ({}); raise it, list large \
         files in `disk` so they are streamed from disk, or `exclude` some; largest: {}",
        human(embedded),
        human(options.max_total_size.value),
        named.join(", ")
    );
    Err(syn::Error::new(
        options.max_total_size.value_span_or(options.root_span),
        msg,
    ))
}

/// `1536` → `1.5 KiB`: sizes in messages.
pub(crate) fn human(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// The last second an HTTP-date can state (9999-12-31T23:59:59Z).
const LAST_HTTP_DATE: u64 = 253_402_300_799;

/// `SOURCE_DATE_EPOCH` (reproducible-builds.org), when set to whole seconds.
fn source_date_epoch() -> Option<u64> {
    let secs: u64 = std::env::var("SOURCE_DATE_EPOCH")
        .ok()?
        .trim()
        .parse()
        .ok()?;
    Some(secs.min(LAST_HTTP_DATE))
}

/// The `/`-separated, UTF-8 path below the folder; on every OS the same key.
pub(crate) fn relative_url_path(below: &Path) -> Result<String, &'static str> {
    let mut segments = Vec::new();
    for component in below.components() {
        let Component::Normal(name) = component else {
            return Err("unexpected path component");
        };
        let Some(name) = name.to_str() else {
            return Err("file name is not valid UTF-8, so it has no URL; rename it or exclude it");
        };
        if name.contains('\\') {
            return Err(
                "file name contains `\\`, which no request path can name; rename it or exclude it",
            );
        }
        if name.chars().any(char::is_control) {
            return Err(
                "file name contains a control character, which no request path can name; rename it or exclude it",
            );
        }
        segments.push(name);
    }
    Ok(segments.join("/"))
}

/// A path below the folder for messages: `/`-joined components, each shown lossily
/// with control characters escaped, so any name prints on one line as it is.
fn lossy_relative(below: &Path) -> String {
    below
        .components()
        .map(|c| {
            let name = c.as_os_str().to_string_lossy();
            name.chars()
                .flat_map(|ch| {
                    let escaped: Vec<char> = if ch.is_control() {
                        ch.escape_debug().collect()
                    } else {
                        vec![ch]
                    };
                    escaped
                })
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn url_paths_are_slash_separated_utf8() {
        assert_eq!(
            relative_url_path(Path::new("css/app.css")).unwrap(),
            "css/app.css"
        );
        assert_eq!(
            relative_url_path(Path::new("café.txt")).unwrap(),
            "café.txt"
        );
        assert!(relative_url_path(Path::new("a\\b.txt")).is_err());
        assert!(relative_url_path(Path::new("a\nb")).is_err());
    }

    #[cfg(unix)]
    #[test]
    fn non_utf8_names_are_refused() {
        use std::os::unix::ffi::OsStrExt;
        let name = std::ffi::OsStr::from_bytes(b"caf\xe9.txt");
        let err = relative_url_path(Path::new(name)).unwrap_err();
        assert!(err.contains("not valid UTF-8"), "{err}");
    }

    #[test]
    fn display_paths_join_as_written() {
        assert_eq!(display_path("public", "css/a.css"), "public/css/a.css");
        assert_eq!(display_path("public/", "a"), "public/a");
        assert_eq!(display_path("public", ""), "public");
    }

    /// A fresh folder under the system temp dir, removed on drop.
    struct TempTree(PathBuf);

    impl TempTree {
        fn new(name: &str, files: &[(&str, &[u8])]) -> Self {
            let root = std::env::temp_dir()
                .join(format!("embed-assets-scan-{}-{name}", std::process::id()));
            let _ = std::fs::remove_dir_all(&root);
            for (path, bytes) in files {
                let path = root.join(path);
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(path, bytes).unwrap();
            }
            TempTree(root)
        }
    }

    impl Drop for TempTree {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn scan(tree: &TempTree, options: proc_macro2::TokenStream) -> syn::Result<Vec<FileEntry>> {
        let path = tree.0.to_str().unwrap();
        scan_dir(
            &crate::expand::parse_call(quote::quote!(#path, #options)).unwrap(),
            Pass::Current,
        )
    }

    fn urls(entries: &[FileEntry]) -> Vec<&str> {
        entries.iter().map(|e| e.url_path.as_str()).collect()
    }

    const TREE: &[(&str, &[u8])] = &[
        ("index.html", b"<!doctype html>"),
        ("css/app.css", b"body{}"),
        ("js/app.js", b"1"),
        ("js/app.js.map", b"{}"),
        (".env", b"SECRET=1"),
        (".git/config", b"[core]"),
        ("css/.hidden.css", b"x"),
        ("media/clip.mp4", &[0u8; 2048]),
    ];

    #[test]
    fn a_folder_with_nothing_to_embed_is_an_error_unless_allowed() {
        let empty = TempTree::new("empty", &[]);
        std::fs::create_dir_all(&empty.0).unwrap();
        let err = scan(&empty, quote::quote!()).unwrap_err().to_string();
        assert!(
            err.contains("has nothing to embed: it has no file"),
            "{err}"
        );
        assert!(err.contains("allow_empty = true"), "{err}");
        assert!(
            scan(&empty, quote::quote!(allow_empty = true))
                .unwrap()
                .is_empty()
        );

        let dotfiles = TempTree::new("only-dotfiles", &[(".env", b"x")]);
        let err = scan(&dotfiles, quote::quote!()).unwrap_err().to_string();
        assert!(err.contains("names starting with `.` are skipped"), "{err}");

        let filtered = TempTree::new("all-excluded", &[("app.js.map", b"{}")]);
        let err = scan(&filtered, quote::quote!(exclude = "*.map"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("left out by `include`/`exclude`"), "{err}");
    }

    #[test]
    fn files_are_sorted_by_url_and_dotfiles_skipped_by_default() {
        let tree = TempTree::new("default", TREE);
        let entries = scan(&tree, quote::quote!()).unwrap();
        assert_eq!(
            urls(&entries),
            [
                "/css/app.css",
                "/index.html",
                "/js/app.js",
                "/js/app.js.map",
                "/media/clip.mp4"
            ]
        );
        assert!(entries.iter().all(|e| e.is_embedded()));
        assert_eq!(entries[0].relative, "css/app.css");
        assert_eq!(entries[0].len, 6);
    }

    #[test]
    fn dotfiles_are_embedded_when_asked() {
        let tree = TempTree::new("dotfiles", TREE);
        let entries = scan(&tree, quote::quote!(dotfiles = true)).unwrap();
        let urls = urls(&entries);
        assert!(
            urls.contains(&"/.env")
                && urls.contains(&"/.git/config")
                && urls.contains(&"/css/.hidden.css")
        );
    }

    #[test]
    fn include_and_exclude_globs_filter_by_relative_path() {
        let tree = TempTree::new("globs", TREE);
        let entries = scan(
            &tree,
            quote::quote!(include = ["*.js", "*.map", "*.html"], exclude = "*.map"),
        )
        .unwrap();
        assert_eq!(urls(&entries), ["/index.html", "/js/app.js"]);
    }

    #[test]
    fn an_include_pattern_that_matches_nothing_is_an_error_and_exclude_may() {
        let tree = TempTree::new("unmatched", TREE);
        let err = scan(&tree, quote::quote!(include = ["*.css", "*.csss", ".env"])).unwrap_err();
        let found: Vec<String> = err.into_iter().map(|e| e.to_string()).collect();
        assert_eq!(found.len(), 2, "{found:#?}");
        assert!(
            found[0].starts_with("`include` pattern `*.csss` matches no file in"),
            "{found:?}"
        );
        assert!(found[1].contains("unless `dotfiles = true`"), "{found:?}");
        assert!(scan(&tree, quote::quote!(include = ".env", dotfiles = true)).is_ok());
        let entries = scan(&tree, quote::quote!(exclude = "*.nothing")).unwrap();
        assert!(urls(&entries).contains(&"/index.html"));
    }

    #[test]
    fn files_over_the_limit_are_listed_for_disk() {
        let tree = TempTree::new("limit", TREE);
        let entries = scan(&tree, quote::quote!(max_embed_size = 1024)).unwrap();
        let clip = entries
            .iter()
            .find(|e| e.url_path == "/media/clip.mp4")
            .unwrap();
        assert!(!clip.is_embedded());
        assert_eq!(clip.len, 2048);
        assert!(
            entries
                .iter()
                .filter(|e| e.url_path != "/media/clip.mp4")
                .all(|e| e.is_embedded())
        );
    }

    #[test]
    fn the_embedded_total_is_budgeted_and_on_disk_files_do_not_count() {
        let tree = TempTree::new("budget", TREE);
        let err = scan(&tree, quote::quote!(max_total_size = 1024))
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with(
                "the embedded files add up to 2.0 KiB, over `max_total_size` (1.0 KiB)"
            ),
            "{err}"
        );
        assert!(
            err.contains("clip.mp4` (2.0 KiB)"),
            "largest named first: {err}"
        );
        // Streaming the large file from disk brings the total under the budget.
        scan(
            &tree,
            quote::quote!(max_total_size = 1024, max_embed_size = 1000),
        )
        .unwrap();
    }

    #[test]
    fn sizes_read_well_in_messages() {
        assert_eq!(human(12), "12 B");
        assert_eq!(human(1536), "1.5 KiB");
        assert_eq!(human(5 << 20), "5.0 MiB");
        assert_eq!(human(3 << 30), "3.0 GiB");
    }

    #[cfg(unix)]
    #[test]
    fn skipped_symlinks_are_named_in_a_warning_with_where_they_point() {
        let tree = TempTree::new("symlink-notice", &[("real/a.txt", b"a"), ("c.txt", b"c")]);
        let outside = TempTree::new("symlink-notice-outside", &[("shared.css", b"x")]);
        std::os::unix::fs::symlink(tree.0.join("real/a.txt"), tree.0.join("b.txt")).unwrap();
        std::os::unix::fs::symlink(outside.0.join("shared.css"), tree.0.join("shared.css"))
            .unwrap();
        std::os::unix::fs::symlink(outside.0.join("shared.css"), tree.0.join("skip.map")).unwrap();
        let notice = |options: proc_macro2::TokenStream| {
            let path = tree.0.to_str().unwrap();
            let options = crate::expand::parse_call(quote::quote!(#path, #options)).unwrap();
            skipped_links_notice(&options).map(|(message, _)| message)
        };
        let message = notice(quote::quote!(exclude = "*.map")).expect("a warning");
        assert!(message.starts_with("2 symbolic links in `"), "{message}");
        assert!(message.contains("/b.txt` -> `"), "{message}");
        let inside = message
            .split(", ")
            .find(|link| link.contains("/b.txt` -> `"));
        assert!(
            inside.is_some_and(|link| !link.contains("outside")),
            "{message}"
        );
        assert!(
            message.contains(&format!(
                "/shared.css` -> `{}` (outside the folder)",
                outside.0.join("shared.css").display()
            )),
            "{message}"
        );
        assert!(!message.contains("skip.map"), "excluded: {message}");
        assert!(
            message.contains("`follow_symlinks = true` to embed what they point to"),
            "{message}"
        );
        assert_eq!(notice(quote::quote!(follow_symlinks = true)), None);
        std::fs::remove_file(tree.0.join("b.txt")).unwrap();
        std::fs::remove_file(tree.0.join("shared.css")).unwrap();
        assert_eq!(notice(quote::quote!(exclude = "*.map")), None);
    }

    #[test]
    fn symlinks_are_skipped_unless_followed() {
        let tree = TempTree::new("symlinks", &[("real/a.txt", b"a")]);
        std::os::unix::fs::symlink(tree.0.join("real"), tree.0.join("link")).unwrap();
        std::os::unix::fs::symlink(tree.0.join("real/a.txt"), tree.0.join("b.txt")).unwrap();
        assert_eq!(
            urls(&scan(&tree, quote::quote!()).unwrap()),
            ["/real/a.txt"]
        );
        let followed = scan(&tree, quote::quote!(follow_symlinks = true)).unwrap();
        assert_eq!(urls(&followed), ["/b.txt", "/link/a.txt", "/real/a.txt"]);
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_loop_is_an_error_naming_the_file() {
        let tree = TempTree::new("loop", &[("a/x.txt", b"x")]);
        std::os::unix::fs::symlink(tree.0.join("a"), tree.0.join("a/again")).unwrap();
        let err = scan(&tree, quote::quote!(follow_symlinks = true))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("symbolic link loop") && err.contains("a/again"),
            "{err}"
        );
    }

    #[cfg(unix)]
    #[test]
    fn excluded_names_without_a_url_do_not_fail_the_build() {
        use std::os::unix::ffi::OsStrExt;
        let tree = TempTree::new("badnames", &[("ok.css", b"x")]);
        std::fs::write(
            tree.0.join(std::ffi::OsStr::from_bytes(b"caf\xe9.txt")),
            b"x",
        )
        .unwrap();
        std::fs::write(tree.0.join("a\\b.txt"), b"x").unwrap();
        let err = scan(&tree, quote::quote!()).unwrap_err().to_string();
        assert!(err.contains("a\\b.txt"), "the name as it is: {err}");
        let entries = scan(&tree, quote::quote!(exclude = ["caf*", "a*"])).unwrap();
        assert_eq!(urls(&entries), ["/ok.css"]);
    }

    #[test]
    fn control_characters_are_escaped_in_messages() {
        assert_eq!(lossy_relative(Path::new("a\nb.txt")), "a\\nb.txt");
    }
}
