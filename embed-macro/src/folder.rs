//! The folder argument: `$VAR` expansion, made absolute against the crate root, and
//! checked to be a folder.

use std::path::PathBuf;

use syn::LitStr;

use crate::errors::Errors;
use crate::interpolate::expand_env;

/// A path literal as written, with its `$VAR`s expanded, made absolute.
struct Written {
    written: String,
    expanded: String,
    relative: bool,
    absolute: PathBuf,
}

/// `lit`'s path, `$VAR`s expanded and made absolute against the crate root; `None`
/// after recording why not. `what` and `example` name it in the message for an empty
/// path (`"folder"`, `"public"`).
fn written(lit: &LitStr, what: &str, example: &str, errors: &mut Errors) -> Option<Written> {
    let written = lit.value();
    if written.is_empty() {
        errors.at(lit, format!("the {what} path is empty; expected a folder relative to the crate root, like `\"{example}\"`"));
        return None;
    }
    let expanded = match expand_env(&written) {
        Ok(expanded) => expanded,
        Err(msg) => {
            errors.at(lit, msg);
            return None;
        }
    };
    let path = PathBuf::from(&expanded);
    let relative = !path.is_absolute();
    let absolute = if relative {
        crate_root(lit, errors)?.join(&path)
    } else {
        path
    };
    Some(Written {
        written,
        expanded,
        relative,
        absolute,
    })
}

/// The folder `lit` names, absolute; `None` after recording why not.
pub(crate) fn resolve(lit: &LitStr, errors: &mut Errors) -> Option<PathBuf> {
    let path = written(lit, "folder", "public", errors)?;
    folder(lit, path, false, errors)
}

/// The folder of kept releases `lit` names (the `releases` option), absolute, `$VAR`s
/// expanded as in the folder argument. It need not exist: a debug build, or the first
/// release build of a crate, has recorded none.
pub(crate) fn resolve_releases(lit: &LitStr, errors: &mut Errors) -> Option<PathBuf> {
    let path = written(lit, "releases folder", "releases", errors)?;
    folder(lit, path, true, errors)
}

/// `path` when it is a folder (or, with `missing_ok`, nothing yet); `None` after
/// recording why not.
fn folder(lit: &LitStr, path: Written, missing_ok: bool, errors: &mut Errors) -> Option<PathBuf> {
    let Written {
        written,
        expanded,
        relative,
        absolute: root,
    } = path;
    // Checked here, with the option errors, so that one round reports everything.
    match std::fs::metadata(&root) {
        Ok(meta) if meta.is_dir() => Some(root),
        Ok(_) => {
            errors.at(lit, format!("`{written}` is not a folder"));
            None
        }
        Err(err) if err.kind() == std::io::ErrorKind::NotFound && missing_ok => Some(root),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            // Show what was looked at when it differs from what was written.
            let looked_at = if relative || expanded != written {
                format!(" (looked for `{}`", root.display())
            } else {
                String::new()
            };
            let hint = match (relative, looked_at.is_empty()) {
                (true, _) => "; paths are relative to the crate root)",
                (false, false) => ")",
                (false, true) => "",
            };
            let nearby = sibling_like(&root)
                .map(|sibling| format!("; did you mean `{}`?", beside(&written, &sibling)))
                .unwrap_or_default();
            errors.at(
                lit,
                format!("folder `{written}` not found{looked_at}{hint}{nearby}"),
            );
            None
        }
        Err(err) => {
            errors.at(
                lit,
                format!(
                    "cannot read folder `{written}`: {}",
                    crate::errors::io_cause(&err)
                ),
            );
            None
        }
    }
}

/// The name of a folder beside the missing `path` that is spelt nearly like its last
/// segment (`pubic` → `public`), if there is one.
fn sibling_like(path: &std::path::Path) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    let folders: Vec<String> = std::fs::read_dir(path.parent()?)
        .ok()?
        .filter_map(|entry| {
            let entry = entry.ok()?;
            entry.file_type().ok()?.is_dir().then_some(())?;
            entry.file_name().into_string().ok()
        })
        .collect();
    crate::suggest::nearest(name, folders.iter().map(String::as_str)).map(str::to_owned)
}

/// `written` with its last segment replaced by `sibling`.
fn beside(written: &str, sibling: &str) -> String {
    match written.trim_end_matches('/').rsplit_once('/') {
        Some((parent, _)) => format!("{parent}/{sibling}"),
        None => sibling.to_owned(),
    }
}

/// The crate root relative folders are resolved against.
fn crate_root(lit: &LitStr, errors: &mut Errors) -> Option<PathBuf> {
    // NOTE: never the process's working directory: rustc runs from the workspace root,
    // so a relative path would silently mean something else in a workspace member.
    match std::env::var_os("CARGO_MANIFEST_DIR") {
        Some(base) => Some(PathBuf::from(base)),
        None => {
            errors.at(
                lit,
                "`CARGO_MANIFEST_DIR` is not set; build with cargo or give an absolute path",
            );
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn problems(tokens: proc_macro2::TokenStream) -> Vec<String> {
        let lit: LitStr = syn::parse2(tokens).unwrap();
        let mut errors = Errors::default();
        let found = resolve(&lit, &mut errors);
        match errors.finish() {
            Ok(()) => {
                assert!(found.is_some());
                Vec::new()
            }
            Err(err) => err.into_iter().map(|e| e.to_string()).collect(),
        }
    }

    #[test]
    fn a_missing_folder_names_where_it_was_looked_for() {
        let found = problems(quote!("no-such-folder"));
        let root = std::env::var("CARGO_MANIFEST_DIR").unwrap();
        assert_eq!(
            found,
            [format!(
                "folder `no-such-folder` not found (looked for `{root}/no-such-folder`; paths are relative to the crate root)"
            )]
        );
        // A folder beside it spelt nearly the same is named.
        let found = problems(quote!("scr"));
        assert!(found[0].ends_with("; did you mean `src`?"), "{found:?}");
        let found = problems(quote!("/no/such/absolute/folder"));
        assert_eq!(found, ["folder `/no/such/absolute/folder` not found"]);
        let found = problems(quote!("Cargo.toml"));
        assert_eq!(found, ["`Cargo.toml` is not a folder"]);
        assert!(problems(quote!("src")).is_empty());
        let found = problems(quote!(""));
        assert!(
            found[0].starts_with("the folder path is empty"),
            "{found:?}"
        );
    }
}
