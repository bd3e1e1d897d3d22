//! Dictionary compression (RFC 9842) against the kept releases: each file of this build
//! that an earlier release had in another version gets `dcb` and `dcz` bodies compressed
//! with that version as the dictionary, for a client that still has it; and every file
//! that can be such a dictionary says so with `Use-As-Dictionary`.
//!
//! The earlier version of a file at a hashed URL is a file of a kept release at a URL
//! with the same [`HashedName`] (`/js/app.*.js`, `/assets/index-*.js`); of a page, the
//! page at the same path. The dictionary is the earlier version's bytes as they were
//! served (after the same rewrite), which is what a browser kept.

use std::collections::HashSet;

use base64::Engine as _;
use embed_assets_shared::hashed::{self, HashedName};
use sha2::{Digest, Sha256};

use crate::blob_cache::{cache_dir, cached};
use crate::codec::{self, Codec, Coding};
use crate::encode;
use crate::errors::{Errors, io_cause};
use crate::model::{Blob, Body, Document, Encoded, EncodedAsset};
use crate::options::{Compression, Options};
use crate::url::encode_url_path;

/// The largest dictionary plus file a delta is made for: a `dcz` client must accept a
/// window of 8 MiB (RFC 9842 §5.2), and brotli's window of 16 MiB covers it too.
const MAX_DELTA_SPAN: usize = 8 << 20;

/// Sets `dictionary_match` on every file that can be a dictionary, and adds to each of
/// this build's files its bodies compressed against its earlier versions: the kept
/// releases' files in `assets` and `dropped` (the ones of their files not served).
pub(crate) fn apply(
    assets: &mut [EncodedAsset],
    dropped: &[EncodedAsset],
    options: &Options,
    span: proc_macro2::Span,
) -> syn::Result<()> {
    let settings = Settings {
        codings: codec::enabled(options)
            .into_iter()
            .filter(|coding| coding.needs_dictionary())
            .collect(),
        compression: options.compression.value,
    };
    let pool: Vec<&EncodedAsset> = assets
        .iter()
        .filter(|asset| asset.release.is_some())
        .chain(dropped)
        .collect();
    let mut errors = Errors::default();
    let mut found = Vec::new();
    for (index, asset) in assets.iter().enumerate() {
        if asset.release.is_some() {
            continue;
        }
        let Some(target) = identity_of(asset) else {
            continue;
        };
        let mut seen = HashSet::new();
        let mut deltas = Vec::new();
        for version in pool.iter().filter(|other| is_earlier_version(other, asset)) {
            if !seen.insert(&version.etag) {
                continue;
            }
            let Some(dictionary) = identity_of(version) else {
                continue;
            };
            match settings.deltas(&target, &dictionary, smallest(asset)) {
                Ok(made) => deltas.extend(made),
                Err(err) => errors.at_span(
                    span,
                    format!(
                        "cannot write the dictionary-compressed copy of `{}`: {err}",
                        asset.url_path
                    ),
                ),
            }
        }
        // Smaller first: the one sent when a client accepts both.
        deltas.sort_by_key(|delta| delta.blob.len);
        found.push((index, deltas));
    }
    drop(pool);
    for (index, deltas) in found {
        assets[index].deltas = deltas;
    }
    for asset in assets.iter_mut() {
        asset.dictionary_match = dictionary_match(asset);
    }
    errors.finish()
}

/// The identity bytes of an embedded file that has compressed bodies (so not a
/// precompressed or tiny one), read from where the macro keeps them.
fn identity_of(asset: &EncodedAsset) -> Option<Vec<u8>> {
    match &asset.body {
        Body::Embedded {
            identity, encoded, ..
        } if !encoded.is_empty() => std::fs::read(identity).ok(),
        _ => None,
    }
}

/// The length of the smallest body a client without a dictionary can get.
fn smallest(asset: &EncodedAsset) -> usize {
    let stored = asset.body.encoded().iter().map(|body| body.blob.len).min();
    stored.unwrap_or(asset.len) as usize
}

/// The content-hashed name of a file served at a hashed URL.
fn hashed_name(asset: &EncodedAsset) -> Option<HashedName> {
    HashedName::of(asset.fingerprinted.as_deref()?)
}

fn is_page(asset: &EncodedAsset) -> bool {
    asset.fingerprinted.is_none() && Document::of(&asset.url_path) == Some(Document::Html)
}

/// Whether `other`, a file of a kept release, is another version of `asset`: the same
/// hashed name, or for a page the same path, and other bytes.
fn is_earlier_version(other: &EncodedAsset, asset: &EncodedAsset) -> bool {
    if other.etag == asset.etag {
        return false;
    }
    match hashed_name(asset) {
        Some(name) => hashed_name(other).as_ref() == Some(&name),
        None => is_page(asset) && is_page(other) && other.url_path == asset.url_path,
    }
}

/// `match="…"`: a URL pattern (relative to the response's URL, so it holds wherever the
/// service is mounted) of the URLs the file's later versions have. A file at a hashed
/// URL matches its name with any hash; a page its own URL (`{index.html}?` for a
/// folder's index, which is also served at the folder's URL).
fn dictionary_match(asset: &EncodedAsset) -> Option<String> {
    if !matches!(asset.body, Body::Embedded { .. }) {
        return None;
    }
    let pattern = match asset.fingerprinted.as_deref() {
        Some(url) => {
            let name = HashedName::of(&encode_url_path(url))?;
            // The suffix is in the file name: only the prefix has a folder part.
            let file = &name.prefix[name.folder().len()..];
            format!(
                "{}*{}",
                pattern_literal(file),
                pattern_literal(&name.suffix)
            )
        }
        None if is_page(asset) && asset.release.is_none() => {
            let url = encode_url_path(&asset.url_path);
            match &url[hashed::folder(&url).len()..] {
                "index.html" => "{index.html}?".to_owned(),
                file => pattern_literal(file),
            }
        }
        None => return None,
    };
    Some(format!("match=\"{}\"", sf_string(&pattern)))
}

/// `text` as literal characters of a URL pattern: its special characters escaped.
fn pattern_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '\\' | '*' | '?' | '+' | '(' | ')' | '{' | '}' | ':') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The inside of a structured-field string (RFC 8941 §3.3.3): `\` and `"` escaped.
fn sf_string(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"")
}

/// A SHA-256 digest as a structured-field byte sequence (RFC 8941 §3.3.5), the form of
/// `Available-Dictionary`.
fn sf_digest(digest: &[u8]) -> String {
    format!(
        ":{}:",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

/// The options the delta bodies follow.
struct Settings {
    /// The dictionary codings the options ask for, in their order of preference.
    codings: Vec<&'static Coding>,
    compression: Compression,
}

impl Settings {
    /// `target`'s bodies in each dictionary coding against `dictionary`, each kept where
    /// it is smaller than `plain`, what a client without the dictionary gets, by the
    /// margin [`codec::pays`] asks of any body.
    fn deltas(
        &self,
        target: &[u8],
        dictionary: &[u8],
        plain: usize,
    ) -> Result<Vec<Encoded>, String> {
        if target.len() + dictionary.len() > MAX_DELTA_SPAN {
            return Ok(Vec::new());
        }
        let cache = cache_dir();
        let hash = Sha256::digest(dictionary);
        let name = sf_digest(&hash);
        let key = format!(
            "{}.{}",
            embed_assets_shared::hex(&Sha256::digest(target)),
            &embed_assets_shared::hex(&hash)[..32]
        );
        let mut made = Vec::new();
        for &coding in &self.codings {
            let Codec::WithDictionary(encoder) = coding.codec else {
                continue;
            };
            let level = coding.level(self.compression, target.len() as u64);
            let path = cache.join(format!("{key}.{}", coding.settings(level)));
            let bytes = cached(&path, || encoder(target, dictionary, level))
                .map_err(|err| format!("`{}`: {}", path.display(), io_cause(&err)))?;
            if codec::pays(plain, bytes.len()) {
                made.push(Encoded {
                    coding,
                    dictionary: Some(name.clone()),
                    blob: Blob {
                        etag: encode::etag(&Sha256::digest(&bytes)),
                        len: bytes.len() as u64,
                        path,
                    },
                });
            }
        }
        Ok(made)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn match_patterns_escape_what_url_patterns_read() {
        assert_eq!(pattern_literal("a(1)*.js"), "a\\(1\\)\\*.js");
        assert_eq!(sf_string("a\\*"), "a\\\\*");
        assert_eq!(
            sf_digest(&Sha256::digest(b"abc")),
            ":ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=:"
        );
    }
}
