//! The file-selection rules are one piece of code, used twice: by the macro, which
//! embeds the files of a folder it selects, and by dev mode, which serves the files
//! added to the folder since the build that the macro would have selected. Here the
//! same folder goes through both ways, under several sets of options, and the two
//! selections must be the same file for file.
//!
//! The macro's selection is the table it built. Dev mode's is what a dev-mode service
//! over a copy of the folder serves: every file of the folder (those the table lists
//! are served whether or not dev mode would select them), and, for each, a new file
//! named like it (`app-added.css` next to `app.css`: the same folder, the same
//! extensions, the same leading dot) that only dev mode's own rules can let through.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use embed_assets::{Assets, embed_assets};
use http::StatusCode;
use integration_tests::{get, spawn_service};

const FOLDER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/select");

/// Default rules: no dotfiles, no links, everything else. (The build warns that
/// `linked.txt`, a link, is skipped: that is what these two tables check.)
#[allow(deprecated)]
static DEFAULTS: Assets = embed_assets!("fixtures/select");

/// Patterns that cross `/`, a list, an exclude inside an include.
#[allow(deprecated)]
static FILTERED: Assets = embed_assets!(
    "fixtures/select",
    include = ["*.css", "*.js", "*.html", "*.map", "*.txt"],
    exclude = ["*.map", "js/vendor/**"],
);

/// Dotfiles in, links followed, one folder left out.
static DOTTED: Assets = embed_assets!(
    "fixtures/select",
    dotfiles = true,
    follow_symlinks = true,
    exclude = "docs/**",
);

/// Every file and symbolic link below `dir`, as `/`-separated paths below it.
fn walk(dir: &Path, below: &str, out: &mut Vec<String>) {
    let mut entries: Vec<_> = fs::read_dir(dir).unwrap().map(|e| e.unwrap()).collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name().into_string().unwrap();
        let relative = if below.is_empty() {
            name.clone()
        } else {
            format!("{below}/{name}")
        };
        let kind = entry.file_type().unwrap();
        if kind.is_dir() {
            walk(&entry.path(), &relative, out);
        } else {
            out.push(relative);
        }
    }
}

/// `css/site.css.map` → `css/site-added.css.map`, `.env` → `.env-added`: a new name in
/// the same folder, with the same extensions and the same leading dot.
fn added(relative: &str) -> String {
    let (dir, name) = match relative.rsplit_once('/') {
        Some((dir, name)) => (format!("{dir}/"), name),
        None => (String::new(), relative),
    };
    let lead = usize::from(name.starts_with('.'));
    let new_name = match name[lead..].find('.') {
        Some(dot) => format!("{}-added{}", &name[..lead + dot], &name[lead + dot..]),
        None => format!("{name}-added"),
    };
    format!("{dir}{new_name}")
}

/// A fresh copy of the folder, with an added twin of every file (a link's twin is a
/// link to the same target).
fn copy_with_twins(name: &str, files: &[String]) -> PathBuf {
    let root = std::env::temp_dir().join(format!("embed-select-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&root);
    for relative in files {
        let source = Path::new(FOLDER).join(relative);
        for target in [root.join(relative), root.join(added(relative))] {
            fs::create_dir_all(target.parent().unwrap()).unwrap();
            let meta = fs::symlink_metadata(&source).unwrap();
            if meta.file_type().is_symlink() {
                std::os::unix::fs::symlink(fs::read_link(&source).unwrap(), &target).unwrap();
            } else {
                fs::copy(&source, &target).unwrap();
            }
        }
    }
    root
}

async fn served_by_dev_mode(
    assets: &'static Assets,
    name: &str,
    paths: &[String],
) -> BTreeSet<String> {
    let folder = copy_with_twins(name, paths);
    let addr = spawn_service(assets.service().dev_folder(&folder)).await;
    let mut served = BTreeSet::new();
    for relative in paths.iter().flat_map(|p| [p.clone(), added(p)]) {
        let url = format!("/{relative}");
        let (status, _, _) = get(addr, &url, &[]).await;
        match status {
            StatusCode::OK => {
                served.insert(relative);
            }
            StatusCode::NOT_FOUND => {}
            other => panic!("{name}: {url}: {other}"),
        }
    }
    fs::remove_dir_all(&folder).unwrap();
    served
}

async fn both_ways_select_the_same(assets: &'static Assets, name: &str) {
    let mut files = Vec::new();
    walk(Path::new(FOLDER), "", &mut files);
    let listed: BTreeSet<String> = assets
        .iter()
        .map(|asset| asset.path().trim_start_matches('/').to_owned())
        .collect();
    assert!(
        !listed.is_empty() && listed.len() < files.len(),
        "{name}: {listed:?}"
    );
    let expected: BTreeSet<String> = listed
        .iter()
        .flat_map(|path| [path.clone(), added(path)])
        .collect();
    let served = served_by_dev_mode(assets, name, &files).await;
    assert_eq!(
        served, expected,
        "{name}: what dev mode serves of the folder and of its added files is exactly \
         what the macro selected"
    );
}

#[test]
fn added_names_keep_folder_extensions_and_leading_dot() {
    assert_eq!(added("app.css"), "app-added.css");
    assert_eq!(added("css/site.css.map"), "css/site-added.css.map");
    assert_eq!(added(".env"), ".env-added");
    assert_eq!(
        added(".well-known/security.txt"),
        ".well-known/security-added.txt"
    );
    assert_eq!(added("notes"), "notes-added");
}

#[tokio::test]
async fn with_the_default_rules() {
    both_ways_select_the_same(&DEFAULTS, "defaults").await;
    let listed: Vec<_> = DEFAULTS.iter().map(|a| a.path()).collect();
    assert!(
        !listed.contains(&"/.env") && !listed.contains(&"/linked.txt"),
        "{listed:?}"
    );
}

#[tokio::test]
async fn with_include_and_exclude_patterns() {
    both_ways_select_the_same(&FILTERED, "filtered").await;
    let listed: Vec<_> = FILTERED.iter().map(|a| a.path()).collect();
    assert!(listed.contains(&"/css/site.css") && !listed.contains(&"/js/vendor/lib.js"));
}

#[tokio::test]
async fn with_dotfiles_and_followed_links() {
    both_ways_select_the_same(&DOTTED, "dotted").await;
    let listed: Vec<_> = DOTTED.iter().map(|a| a.path()).collect();
    assert!(listed.contains(&"/.well-known/security.txt") && listed.contains(&"/linked.txt"));
}
