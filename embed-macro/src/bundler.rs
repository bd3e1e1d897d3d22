//! Files a bundler already content-hashed: named by Vite's manifest
//! (`.vite/manifest.json` in the folder), or by the `hashed` globs for other bundlers.
//! They are served with the fingerprinted (immutable) policy at their own URL, get no
//! second hash, and the manifest's entry points become constants.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use serde_json::Value;

use crate::errors::Errors;
use crate::model::{Body, EncodedAsset, Entry};
use crate::options::Options;

/// Where Vite (5 and later, `build.manifest = true`) writes its manifest, below `outDir`.
pub(crate) const VITE_MANIFEST: &str = ".vite/manifest.json";

/// Marks the hashed files of `assets` (their own URL becomes their fingerprinted URL),
/// drops the manifest from the table, and returns the manifest's entry points.
pub(crate) fn apply(assets: &mut Vec<EncodedAsset>, options: &Options) -> syn::Result<Vec<Entry>> {
    let manifest_url = format!("/{VITE_MANIFEST}");
    // Build metadata, never served, even with `dotfiles = true`.
    assets.retain(|asset| asset.url_path != manifest_url);

    let mut errors = Errors::default();
    let mut hashed: HashSet<String> = HashSet::new();
    let mut entries = Vec::new();
    let manifest_path = options.root.join(VITE_MANIFEST);
    if manifest_path.is_file() {
        match read_manifest(&manifest_path) {
            Ok(manifest) => {
                let (files, found) = from_manifest(&manifest);
                for file in &files {
                    if !options.root.join(file).is_file() {
                        errors.at_span(
                            options.root_span,
                            format!(
                                "{}/{VITE_MANIFEST} lists `{file}`, which is not in the folder: \
                                 the folder is not one build's output (run the build again)",
                                options.root_display
                            ),
                        );
                    }
                }
                hashed.extend(files.into_iter().map(|file| format!("/{file}")));
                entries = found;
            }
            Err(message) => errors.at_span(
                options.root_span,
                format!("{}/{VITE_MANIFEST}: {message}", options.root_display),
            ),
        }
    }
    for asset in assets.iter_mut() {
        let relative = asset.url_path.trim_start_matches('/');
        let named = hashed.contains(&asset.url_path)
            || options
                .hashed
                .value
                .as_ref()
                .is_some_and(|globs| globs.is_match(relative));
        // A file left on disk can change after the build: its URL is not a promise.
        if named && matches!(asset.body, Body::Embedded { .. }) {
            asset.fingerprinted = Some(asset.url_path.clone());
        }
    }
    errors.finish()?;
    Ok(entries)
}

fn read_manifest(path: &Path) -> Result<BTreeMap<String, Value>, String> {
    let text = std::fs::read_to_string(path).map_err(|err| err.to_string())?;
    match serde_json::from_str::<Value>(&text).map_err(|err| format!("not valid JSON: {err}"))? {
        Value::Object(map) => Ok(map.into_iter().collect()),
        _ => Err("expected a JSON object of chunks".to_owned()),
    }
}

/// Every output file the manifest names (chunks, their CSS and their assets, all
/// content-hashed by Vite), and the entry points.
fn from_manifest(manifest: &BTreeMap<String, Value>) -> (Vec<String>, Vec<Entry>) {
    let strings = |chunk: &Value, key: &str| -> Vec<String> {
        chunk
            .get(key)
            .and_then(Value::as_array)
            .map(|list| {
                list.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    };
    let file_of = |chunk: &Value| chunk.get("file").and_then(Value::as_str).map(str::to_owned);

    let mut files = Vec::new();
    for chunk in manifest.values() {
        files.extend(file_of(chunk));
        files.extend(strings(chunk, "css"));
        files.extend(strings(chunk, "assets"));
    }
    files.sort();
    files.dedup();

    let mut entries = Vec::new();
    for (source, chunk) in manifest {
        if chunk.get("isEntry").and_then(Value::as_bool) != Some(true) {
            continue;
        }
        let Some(file) = file_of(chunk) else {
            continue;
        };
        // Vite's documented walk: the entry's CSS, then its static imports', depth first.
        let mut css = Vec::new();
        let mut imports = Vec::new();
        let mut seen = HashSet::from([source.clone()]);
        let mut stack: Vec<&Value> = vec![chunk];
        while let Some(chunk) = stack.pop() {
            for sheet in strings(chunk, "css") {
                if !css.contains(&sheet) {
                    css.push(sheet);
                }
            }
            for key in strings(chunk, "imports").into_iter().rev() {
                if seen.insert(key.clone()) {
                    if let Some(imported) = manifest.get(&key) {
                        imports.extend(file_of(imported));
                        stack.push(imported);
                    }
                }
            }
        }
        let url = |file: String| format!("/{file}");
        entries.push(Entry {
            source: source.clone(),
            file: url(file),
            css: css.into_iter().map(url).collect(),
            imports: imports.into_iter().map(url).collect(),
        });
    }
    (files, entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(json: &str) -> BTreeMap<String, Value> {
        match serde_json::from_str::<Value>(json).unwrap() {
            Value::Object(map) => map.into_iter().collect(),
            _ => unreachable!(),
        }
    }

    /// The shape Vite's backend-integration guide documents.
    const GUIDE: &str = r#"{
      "_shared-B7PI925R.js": { "file": "assets/shared-B7PI925R.js", "name": "shared", "css": ["assets/shared-ChJ_j-JJ.css"] },
      "_shared-ChJ_j-JJ.css": { "file": "assets/shared-ChJ_j-JJ.css", "src": "_shared-ChJ_j-JJ.css" },
      "logo.svg": { "file": "assets/logo-BuPIv-2h.svg", "src": "logo.svg" },
      "baz.js": { "file": "assets/baz-B2H3sXNv.js", "name": "baz", "src": "baz.js", "isDynamicEntry": true },
      "views/bar.js": { "file": "assets/bar-gkvgaI9m.js", "name": "bar", "src": "views/bar.js", "isEntry": true,
                        "imports": ["_shared-B7PI925R.js"], "dynamicImports": ["baz.js"] },
      "views/foo.js": { "file": "assets/foo-BRBmoGS9.js", "name": "foo", "src": "views/foo.js", "isEntry": true,
                        "imports": ["_shared-B7PI925R.js"], "css": ["assets/foo-5UjPuW-k.css"], "assets": ["assets/logo-BuPIv-2h.svg"] }
    }"#;

    #[test]
    fn every_named_file_is_hashed_and_entries_carry_their_css_and_imports() {
        let (files, entries) = from_manifest(&manifest(GUIDE));
        assert_eq!(
            files,
            [
                "assets/bar-gkvgaI9m.js",
                "assets/baz-B2H3sXNv.js",
                "assets/foo-5UjPuW-k.css",
                "assets/foo-BRBmoGS9.js",
                "assets/logo-BuPIv-2h.svg",
                "assets/shared-B7PI925R.js",
                "assets/shared-ChJ_j-JJ.css",
            ]
        );
        assert_eq!(entries.len(), 2, "only isEntry chunks: {entries:?}");
        let foo = &entries[1];
        assert_eq!(foo.source, "views/foo.js");
        assert_eq!(foo.file, "/assets/foo-BRBmoGS9.js");
        assert_eq!(
            foo.css,
            ["/assets/foo-5UjPuW-k.css", "/assets/shared-ChJ_j-JJ.css"]
        );
        assert_eq!(foo.imports, ["/assets/shared-B7PI925R.js"]);
        assert_eq!(entries[0].css, ["/assets/shared-ChJ_j-JJ.css"]);
    }

    #[test]
    fn import_cycles_end() {
        let cyclic = r#"{
          "a.js": { "file": "assets/a-1.js", "isEntry": true, "imports": ["_b.js"] },
          "_b.js": { "file": "assets/b-2.js", "imports": ["a.js"] }
        }"#;
        let (_, entries) = from_manifest(&manifest(cyclic));
        assert_eq!(entries[0].imports, ["/assets/b-2.js"]);
    }
}
