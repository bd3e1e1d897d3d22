//! sha256 ETags, a body in each coding the options ask for (`codec::CODINGS`), and
//! "does it pay?".
//!
//! Compressed bodies are written once to a cache folder keyed by the content hash and
//! embedded with `include_bytes!`: rustc digests a file include much faster, and with
//! far less memory, than the same bytes as a literal token.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use embed_assets_shared::{content_type, is_precompressed};
use sha2::{Digest, Sha256};

use crate::blob_cache::{cache_dir, cached};
use crate::codec::{self, Codec, Coding, gunzip, gzip, pays};
use crate::errors::Errors;
use crate::errors::{display_path, io_cause};
use crate::model::{Blob, Body, DiskReason, Document, Encoded, EncodedAsset, FileEntry, Inline};
use crate::options::{Compression, Options};

/// From this size on, a file's codings are compressed on threads of their own.
const PARALLEL_CODINGS_FROM: usize = 1 << 20;

/// How many bytes of a file over `max_embed_size` are tried with fast gzip before it is
/// compressed in full: a video or an archive under an unknown extension is then left on
/// disk in milliseconds, not after seconds of brotli.
const SAMPLE: usize = 1 << 20;

/// The encoders' settings and cache folder, shared by this phase and the rewrite phase.
pub(crate) struct Encoder<'a> {
    settings: Settings<'a>,
    cache: PathBuf,
}

/// What a worker thread needs from the options: plain data only (spans and tokens
/// are not `Send`).
struct Settings<'a> {
    /// The plain codings the options ask for, in their order of preference.
    codings: Vec<&'static Coding>,
    compression: Compression,
    compressed_only: bool,
    max_embed_size: u64,
    /// With `rewrite_references`: HTML and CSS are hashed only, as the rewrite phase
    /// encodes them from their final text.
    rewrite_references: bool,
    /// `reload_on_stale`: pages are served with the guard script added.
    reload_guard: bool,
    root_display: &'a str,
}

impl<'a> Encoder<'a> {
    pub(crate) fn new(options: &'a Options) -> Self {
        Encoder {
            settings: Settings {
                codings: codec::enabled(options)
                    .into_iter()
                    .filter(|coding| !coding.needs_dictionary())
                    .collect(),
                compression: options.compression.value,
                compressed_only: options.compressed_only.value,
                max_embed_size: options.max_embed_size.value,
                reload_guard: options.reload_on_stale.value,
                rewrite_references: options.rewrite_references.value,
                root_display: &options.root_display,
            },
            cache: cache_dir(),
        }
    }

    /// Hashes and compresses every file, in parallel across cores; the result is in the
    /// order of `files`. Documents the rewrite phase will rewrite are only hashed.
    /// Errors point at `root_span`, the path literal.
    pub(crate) fn encode_all(
        &self,
        files: &[FileEntry],
        root_span: proc_macro2::Span,
    ) -> syn::Result<Vec<EncodedAsset>> {
        // Largest first: a 7 MB bundle taken last would leave every other core idle
        // while one compresses it.
        let mut order: Vec<usize> = (0..files.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(files[i].len));
        let next = AtomicUsize::new(0);
        let workers = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(files.len())
            .max(1);
        let mut results: Vec<Option<Result<EncodedAsset, String>>> =
            (0..files.len()).map(|_| None).collect();
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..workers)
                .map(|_| {
                    scope.spawn(|| {
                        let mut done = Vec::new();
                        while let Some(&i) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
                            done.push((i, self.encode_one(&files[i])));
                        }
                        done
                    })
                })
                .collect();
            for handle in handles {
                // `encode_one` catches panics, so a worker only ends early if that fails;
                // its files are then reported below.
                for (i, result) in handle.join().unwrap_or_default() {
                    results[i] = Some(result);
                }
            }
        });
        let mut errors = Errors::default();
        let mut assets = Vec::with_capacity(files.len());
        for (file, result) in files.iter().zip(results) {
            match result {
                Some(Ok(asset)) => assets.push(asset),
                Some(Err(msg)) => errors.at_span(root_span, msg),
                None => errors.at_span(
                    root_span,
                    format!("encoding `{}` did not finish", self.shown(file)),
                ),
            }
        }
        errors.finish().map(|()| assets)
    }

    /// Encodes the document `file` served as `bytes`: its own bytes, or with
    /// `rewritten` a rewritten copy, which is written to the cache folder.
    pub(crate) fn encode_document(
        &self,
        file: &FileEntry,
        bytes: Vec<u8>,
        rewritten: bool,
    ) -> Result<EncodedAsset, String> {
        self.without_panics(file, || {
            if !rewritten {
                return self.encode_bytes(file, bytes, file.abs_path.clone(), true);
            }
            self.encode_copy(file, bytes, true)
        })
    }

    /// Encodes `bytes`, a changed copy of `file` (rewritten, or with the reload guard),
    /// written to the cache folder to be embedded from there.
    fn encode_copy(
        &self,
        file: &FileEntry,
        bytes: Vec<u8>,
        compress: bool,
    ) -> Result<EncodedAsset, String> {
        let blob = self.cache.join(format!(
            "{}.rewritten",
            embed_assets_shared::hex(&Sha256::digest(&bytes))
        ));
        match cached(&blob, || bytes.clone()) {
            Ok(_) => self.encode_bytes(file, bytes, blob, compress),
            Err(err) => Err(format!(
                "cannot write the rewritten copy of `{}` to `{}`: {}",
                self.shown(file),
                blob.display(),
                io_cause(&err)
            )),
        }
    }

    /// The bytes served for `file` before any rewrite of its links: its own, or for a
    /// page under `reload_on_stale`, with the guard script (`true`: changed).
    pub(crate) fn source(&self, file: &FileEntry) -> Result<(Vec<u8>, bool), String> {
        let bytes = fs::read(&file.abs_path)
            .map_err(|err| format!("cannot read `{}`: {}", self.shown(file), io_cause(&err)))?;
        if self.settings.reload_guard && Document::of(&file.url_path) == Some(Document::Html) {
            if let Some(guarded) = crate::reload_guard::add(&bytes) {
                return Ok((guarded, true));
            }
        }
        Ok((bytes, false))
    }

    fn shown(&self, file: &FileEntry) -> String {
        display_path(self.settings.root_display, &file.relative)
    }

    /// Runs `encode`, turning a panic (a bug in an encoder) into an error naming the file.
    fn without_panics(
        &self,
        file: &FileEntry,
        encode: impl FnOnce() -> Result<EncodedAsset, String>,
    ) -> Result<EncodedAsset, String> {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(encode)).unwrap_or_else(|panic| {
            let cause = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "no message".to_owned());
            Err(format!(
                "compressing `{}` failed: the encoder panicked ({cause})",
                self.shown(file)
            ))
        })
    }

    fn encode_one(&self, file: &FileEntry) -> Result<EncodedAsset, String> {
        self.without_panics(file, || {
            if let Some(reason) = file.disk {
                return Ok(on_disk(file, reason));
            }
            let (bytes, guarded) = self.source(file)?;
            if file.over_limit {
                return self.encode_over_limit(file, bytes);
            }
            let compress = !(self.settings.rewrite_references && file.is_document());
            if guarded {
                return self.encode_copy(file, bytes, compress);
            }
            self.encode_bytes(file, bytes, file.abs_path.clone(), compress)
        })
    }

    /// A file over `max_embed_size` of a kind that compresses: embedded compressed only
    /// (its own bytes decoded from gzip on demand) when its gzip body is within the
    /// limit, else listed for disk. A sample that does not compress spares the work.
    fn encode_over_limit(&self, file: &FileEntry, bytes: Vec<u8>) -> Result<EncodedAsset, String> {
        let sample = &bytes[..bytes.len().min(SAMPLE)];
        if !pays(sample.len(), gzip(sample, 1).len()) {
            return Ok(on_disk(file, DiskReason::Incompressible));
        }
        let asset = self.encode_bytes(file, bytes, file.abs_path.clone(), true)?;
        let Some(gzip_len) = asset.body.gzip().map(|blob| blob.len) else {
            return Ok(on_disk(file, DiskReason::Incompressible));
        };
        if gzip_len > self.settings.max_embed_size {
            return Ok(on_disk(file, DiskReason::CompressedTooLarge(gzip_len)));
        }
        Ok(asset)
    }
    /// Hashes `bytes`, the content served for `file`, stored at `identity`, and with
    /// `compress` makes its encoded bodies.
    fn encode_bytes(
        &self,
        file: &FileEntry,
        bytes: Vec<u8>,
        identity: PathBuf,
        compress: bool,
    ) -> Result<EncodedAsset, String> {
        let options = &self.settings;
        let cache = &self.cache;
        let shown = self.shown(file);
        let last_modified = http_date(file.modified);
        let digest = Sha256::digest(&bytes);
        let compress = compress && !bytes.is_empty() && !is_precompressed(&file.abs_path);
        let key = embed_assets_shared::hex(&digest);
        let make = |coding: &'static Coding| -> Result<Option<Encoded>, String> {
            let Codec::Plain(encoder) = coding.codec else {
                return Ok(None);
            };
            let level = coding.level(options.compression, bytes.len() as u64);
            let path = cache.join(format!("{key}.{}", coding.settings(level)));
            let encoded = cached(&path, || encoder(&bytes, level)).map_err(|err| {
                format!(
                    "cannot write the compressed copy of `{shown}` to `{}`: {}",
                    path.display(),
                    io_cause(&err)
                )
            })?;
            Ok(pays(bytes.len(), encoded.len()).then(|| Encoded {
                coding,
                dictionary: None,
                blob: Blob {
                    etag: etag(&Sha256::digest(&encoded)),
                    len: encoded.len() as u64,
                    path,
                },
            }))
        };
        let codings: &[&'static Coding] = if compress { &options.codings } else { &[] };
        // A large file's codings on threads of their own: the largest file is taken
        // first (`encode_all`), and its brotli alone would otherwise be the build's tail.
        let made: Vec<Result<Option<Encoded>, String>> = if bytes.len() > PARALLEL_CODINGS_FROM {
            std::thread::scope(|scope| {
                let handles: Vec<_> = codings
                    .iter()
                    .map(|&coding| scope.spawn(move || make(coding)))
                    .collect();
                handles
                    .into_iter()
                    .map(|handle| {
                        handle.join().unwrap_or_else(|_| {
                            Err(format!(
                                "compressing `{shown}` failed: the encoder panicked"
                            ))
                        })
                    })
                    .collect()
            })
        } else {
            codings.iter().map(|&coding| make(coding)).collect()
        };
        let mut encoded = Vec::with_capacity(made.len());
        for body in made {
            encoded.extend(body?);
        }
        let drop_identity = options.compressed_only || file.over_limit;
        // The runtime will decode the identity bytes from this gzip body: prove now that
        // it gives them back, so that decoding at run time cannot fail.
        let gzip = crate::model::gzip_of(&encoded);
        let store_identity = match (gzip, drop_identity) {
            (Some(blob), true) => {
                let decoded = fs::read(&blob.path).ok().and_then(|gz| gunzip(&gz));
                if decoded.as_deref() != Some(&bytes[..]) {
                    return Err(format!(
                        "the gzip body of `{shown}` in `{}` does not decode to the file; delete the cache folder and build again",
                        blob.path.display()
                    ));
                }
                false
            }
            _ => true,
        };
        let asset = EncodedAsset::new(
            file.url_path.clone(),
            content_type(&file.abs_path, || std::str::from_utf8(&bytes).is_ok()),
            last_modified,
            file.modified,
            bytes.len() as u64,
            etag(&digest),
            Body::Embedded {
                identity,
                source: file.abs_path.clone(),
                store_identity,
                encoded,
            },
        );
        Ok(EncodedAsset {
            integrity: Some(integrity(&bytes)),
            inline: inline_code(file, &bytes),
            ..asset
        })
    }
}

/// A file served from disk, for `reason`: listed only.
fn on_disk(file: &FileEntry, reason: DiskReason) -> EncodedAsset {
    let utf8_prefix = || read_prefix(&file.abs_path).is_some_and(|p| is_utf8_prefix(&p));
    EncodedAsset::new(
        file.url_path.clone(),
        content_type(&file.abs_path, utf8_prefix),
        http_date(file.mtime),
        file.mtime,
        file.len,
        // None: the runtime computes it from the bytes of the file it opens, which may
        // have changed since the build (see `Asset::etag`).
        String::new(),
        Body::OnDisk {
            relative: file.relative.clone(),
            reason,
        },
    )
}

/// The inline code of an HTML page (`None` for other files, or a page that is not
/// UTF-8).
fn inline_code(file: &FileEntry, bytes: &[u8]) -> Option<Inline> {
    if Document::of(&file.url_path) != Some(Document::Html) {
        return None;
    }
    crate::markup::inline_code(std::str::from_utf8(bytes).ok()?)
}

/// The Subresource Integrity metadata of `bytes` (W3C SRI §3.1): `sha384-` and the
/// standard base64 (with padding) of their SHA-384 digest.
pub(crate) fn integrity(bytes: &[u8]) -> String {
    use base64::Engine as _;
    let digest = sha2::Sha384::digest(bytes);
    format!(
        "sha384-{}",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

/// IMF-fixdate of `secs` since the epoch (clamped in `scan.rs` to what it can state).
fn http_date(secs: u64) -> String {
    httpdate::fmt_http_date(std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs))
}

/// A quoted strong ETag of a sha256 digest (`embed_assets_shared::etag::content`, which the
/// runtime's dev mode uses too).
pub(crate) fn etag(digest: &[u8]) -> String {
    embed_assets_shared::etag::content(digest)
}

fn read_prefix(path: &Path) -> Option<Vec<u8>> {
    use std::io::Read;
    let mut prefix = Vec::new();
    fs::File::open(path)
        .ok()?
        .take(64 * 1024)
        .read_to_end(&mut prefix)
        .ok()?;
    Some(prefix)
}

/// UTF-8, allowing one character cut off at the end of the prefix.
fn is_utf8_prefix(prefix: &[u8]) -> bool {
    match std::str::from_utf8(prefix) {
        Ok(_) => true,
        Err(err) => err.error_len().is_none(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panicking_encoder_is_an_error_naming_the_file() {
        let options = crate::expand::parse_call(quote::quote!("src")).unwrap();
        let encoder = Encoder::new(&options);
        let file = FileEntry {
            url_path: "/css/app.css".into(),
            abs_path: PathBuf::from("/nowhere/css/app.css"),
            relative: "css/app.css".into(),
            len: 1,
            modified: 0,
            mtime: 0,
            over_limit: false,
            disk: None,
        };
        let err = encoder
            .without_panics(&file, || panic!("window too large"))
            .unwrap_err();
        assert_eq!(
            err,
            "compressing `src/css/app.css` failed: the encoder panicked (window too large)"
        );
        let err = encoder.encode_one(&file).unwrap_err();
        assert!(err.starts_with("cannot read `src/css/app.css`"), "{err}");
    }

    #[test]
    fn etags_are_quoted_hex_of_128_bits() {
        let tag = etag(&Sha256::digest(b"abc"));
        assert_eq!(tag, "\"ba7816bf8f01cfea414140de5dae2223\"");
    }

    #[test]
    fn utf8_prefix_tolerates_a_cut_character() {
        assert!(is_utf8_prefix("café".as_bytes()));
        assert!(is_utf8_prefix(&"café".as_bytes()[..4]));
        assert!(!is_utf8_prefix(b"caf\xe9 x"));
    }
}
