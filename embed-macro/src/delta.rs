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
use crate::codec;
use crate::encode;
use crate::errors::{Errors, io_cause};
use crate::model::{Blob, Body, Delta, DeltaCoding, Document, EncodedAsset};
use crate::options::{Compression, Options};
use crate::url::encode_url_path;

/// The `dcb` stream's header: its magic number, then the dictionary's SHA-256.
const DCB_MAGIC: [u8; 4] = [0xff, 0x44, 0x43, 0x42];
#[cfg_attr(not(feature = "zstd"), allow(dead_code))]
/// The `dcz` stream's header: a Zstandard skippable frame of 32 bytes (the dictionary's
/// SHA-256).
const DCZ_MAGIC: [u8; 8] = [0x5e, 0x2a, 0x4d, 0x18, 0x20, 0x00, 0x00, 0x00];
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
        brotli: options.brotli.value,
        zstd: options.zstd.value,
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
            identity, br, gzip, ..
        } if br.is_some() || gzip.is_some() => std::fs::read(identity).ok(),
        _ => None,
    }
}

/// The length of the smallest body a client without a dictionary can get.
fn smallest(asset: &EncodedAsset) -> usize {
    let stored = match &asset.body {
        Body::Embedded { br, zstd, gzip, .. } => [br, zstd, gzip]
            .into_iter()
            .flatten()
            .map(|blob| blob.len)
            .min(),
        Body::OnDisk { .. } => None,
    };
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

/// An RFC 9842 body: the coding's magic number, the dictionary's SHA-256, the stream.
fn framed(magic: &[u8], hash: &[u8], stream: Vec<u8>) -> Vec<u8> {
    let mut out = Vec::with_capacity(magic.len() + hash.len() + stream.len());
    out.extend_from_slice(magic);
    out.extend_from_slice(hash);
    out.extend(stream);
    out
}

/// The options the delta bodies follow.
struct Settings {
    brotli: bool,
    // Always `false` without the feature (options.rs), so unread there.
    #[cfg_attr(not(feature = "zstd"), allow(dead_code))]
    zstd: bool,
    compression: Compression,
}

impl Settings {
    /// `target`'s `dcb` and `dcz` bodies against `dictionary`, each kept where it is
    /// smaller than `plain`, what a client without the dictionary gets, by the margin
    /// [`codec::pays`] asks of any body.
    fn deltas(&self, target: &[u8], dictionary: &[u8], plain: usize) -> Result<Vec<Delta>, String> {
        if target.len() + dictionary.len() > MAX_DELTA_SPAN {
            return Ok(Vec::new());
        }
        let (_, quality) = codec::levels(self.compression, target.len() as u64);
        let cache = cache_dir();
        let hash = Sha256::digest(dictionary);
        let name = sf_digest(&hash);
        let key = format!(
            "{}.{}",
            embed_assets_shared::hex(&Sha256::digest(target)),
            &embed_assets_shared::hex(&hash)[..32]
        );
        let mut made = Vec::new();
        let mut make = |coding: DeltaCoding,
                        suffix: String,
                        encode: &dyn Fn() -> Vec<u8>|
         -> Result<(), String> {
            let path = cache.join(format!("{key}.{suffix}"));
            let bytes = cached(&path, encode)
                .map_err(|err| format!("`{}`: {}", path.display(), io_cause(&err)))?;
            if codec::pays(plain, bytes.len()) {
                made.push(Delta {
                    coding,
                    dictionary: name.clone(),
                    blob: Blob {
                        etag: encode::etag(&Sha256::digest(&bytes)),
                        len: bytes.len() as u64,
                        path,
                    },
                });
            }
            Ok(())
        };
        if self.brotli {
            make(DeltaCoding::Brotli, format!("dcb{quality}"), &|| {
                framed(&DCB_MAGIC, &hash, brotli_with(target, dictionary, quality))
            })?;
        }
        #[cfg(feature = "zstd")]
        if self.zstd {
            let level = codec::zstd_level(self.compression, target.len() as u64);
            make(DeltaCoding::Zstd, format!("dcz{level}"), &|| {
                framed(&DCZ_MAGIC, &hash, zstd_with(target, dictionary, level))
            })?;
        }
        Ok(made)
    }
}

/// A brotli stream of `bytes` with `dictionary` as a raw (prefix) dictionary, in a window
/// that holds both (at most 16 MiB, `dcb`'s limit).
fn brotli_with(bytes: &[u8], dictionary: &[u8], quality: i32) -> Vec<u8> {
    let span = bytes.len() + dictionary.len() + 16;
    let lgwin = (22..=24).find(|bits| span <= 1 << bits).unwrap_or(24);
    let params = brotli::enc::BrotliEncoderParams {
        quality,
        lgwin,
        size_hint: bytes.len(),
        ..Default::default()
    };
    let mut out = Vec::new();
    let mut input = vec![0; 1 << 16];
    let mut output = vec![0; 1 << 16];
    let _ = brotli::enc::BrotliCompressCustomIoCustomDict(
        &mut brotli::enc::IoReaderWrapper(&mut &bytes[..]),
        &mut brotli::enc::IoWriterWrapper(&mut out),
        &mut input,
        &mut output,
        &params,
        brotli::enc::StandardAlloc::default(),
        &mut |_, _, _, _| (),
        dictionary,
        std::io::Error::from(std::io::ErrorKind::UnexpectedEof),
    );
    out
}

/// A zstd frame of `bytes` (its size in the header) with `dictionary` as raw content.
#[cfg(feature = "zstd")]
fn zstd_with(bytes: &[u8], dictionary: &[u8], level: i32) -> Vec<u8> {
    use std::io::Write;
    let run = || -> std::io::Result<Vec<u8>> {
        let mut encoder =
            zstd::stream::write::Encoder::with_ref_prefix(Vec::new(), level, dictionary)?;
        encoder.include_contentsize(true)?;
        encoder.set_pledged_src_size(Some(bytes.len() as u64))?;
        encoder.write_all(bytes)?;
        encoder.finish()
    };
    // Writing to a Vec cannot fail; a refused parameter would leave an empty body,
    // which `pays` then drops.
    run().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page_bytes(n: usize) -> Vec<u8> {
        (0..n)
            .map(|i| format!("export function f{i}() {{ return {}; }}\n", i * 7))
            .collect::<String>()
            .into_bytes()
    }

    #[test]
    fn a_dcb_body_decodes_with_its_dictionary_only() {
        let old = page_bytes(2000);
        let mut new = old.clone();
        new.extend_from_slice(b"export const added = 1;\n");
        let dcb = brotli_with(&new, &old, 11);
        let plain = codec::brotli(&new, 11);
        assert!(
            dcb.len() * 20 < plain.len(),
            "{} vs {}",
            dcb.len(),
            plain.len()
        );
        let mut decoded = Vec::new();
        brotli_decompressor::BrotliDecompressCustomDict(
            &mut &dcb[..],
            &mut decoded,
            &mut [0; 4096],
            &mut [0; 4096],
            old.clone(),
        )
        .expect("decodes");
        assert_eq!(decoded, new);
        let mut without = Vec::new();
        let wrong = brotli_decompressor::BrotliDecompressCustomDict(
            &mut &dcb[..],
            &mut without,
            &mut [0; 4096],
            &mut [0; 4096],
            Vec::new(),
        );
        assert!(wrong.is_err() || without != new);
    }

    #[cfg(feature = "zstd")]
    #[test]
    fn a_dcz_body_decodes_with_its_dictionary_as_raw_content() {
        let old = page_bytes(2000);
        let mut new = old.clone();
        new.splice(1000..1000, b"// one line\n".iter().copied());
        let dcz = zstd_with(&new, &old, 19);
        let plain = zstd::bulk::compress(&new, 19).unwrap();
        assert!(
            dcz.len() * 20 < plain.len(),
            "{} vs {}",
            dcz.len(),
            plain.len()
        );
        let decoded = zstd::bulk::Decompressor::with_dictionary(&old)
            .unwrap()
            .decompress(&dcz, new.len())
            .expect("decodes");
        assert_eq!(decoded, new);
        let without = zstd::bulk::Decompressor::new()
            .unwrap()
            .decompress(&dcz, new.len());
        assert!(without.is_err());
    }

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
