//! The precompressed siblings of a folder's files (`app.js.br`, `app.js.gz`), for a
//! folder served whole (`ServeAssets::folder`): a sibling is sent in place of its file
//! only while it decodes to exactly the file's bytes. A sibling left from an earlier
//! version of the file (the file replaced, its sibling not, or not yet) is ignored, not
//! served: the check is made once per version of the file and of the sibling, by
//! decoding the sibling (never past the file's length plus one byte, so a sibling that
//! decodes to more is refused without being decoded whole).

use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;

use super::cache::{BodyCache, SIBLINGS, Sibling};
use super::version::FileVersion;
use super::{Content, DiskFile, blocking, fetch};
use crate::coding::Encoding;

/// `path` with `.ext` added to its name.
pub(super) fn sibling_path(path: &Path, ext: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".");
    name.push(ext);
    name.into()
}

/// The codings of the siblings of `path` (kept in `cache` at `version`) that exist now
/// as regular files (an `lstat` each, so a link is none unless `follow_symlinks`, on
/// the caller's thread); those that do not are noted as absent with the file.
pub(crate) fn present(
    cache: &BodyCache,
    path: &Path,
    version: &FileVersion,
    follow_symlinks: bool,
) -> Vec<Encoding> {
    let mut present = Vec::new();
    for (index, (encoding, ext)) in SIBLINGS.iter().enumerate() {
        if FileVersion::of_regular(&sibling_path(path, ext), !follow_symlinks).is_some() {
            present.push(*encoding);
        } else {
            cache.note_sibling(path, version, index, Sibling::Absent(Instant::now()));
        }
    }
    present
}

/// The sibling of `path` in `encoding`, read whole (through `cache`, like the file),
/// when it decodes to exactly `identity`, the bytes of `path` at `version`; `None`
/// when it is missing, larger than `whole_up_to`, or does not match.
pub(crate) async fn matching(
    path: PathBuf,
    encoding: Encoding,
    identity: Bytes,
    version: FileVersion,
    cache: Arc<BodyCache>,
    whole_up_to: u64,
) -> Option<DiskFile> {
    let index = SIBLINGS.iter().position(|(e, _)| *e == encoding)?;
    let sibling = sibling_path(&path, SIBLINGS[index].1);
    // Larger than what is read whole: not opened at all.
    if std::fs::metadata(&sibling).ok()?.len() > whole_up_to {
        return None;
    }
    let tags = Arc::default();
    let file = fetch(sibling.clone(), tags, Arc::clone(&cache), whole_up_to)
        .await
        .ok()?;
    let Content::Whole(bytes) = &file.content else {
        return None;
    };
    let sibling_version = file.meta.version;
    let known = cache
        .get(&path, &version)
        .and_then(|kept| kept.siblings.get(index).copied());
    match known {
        Some(Sibling::Matches(checked)) if checked == sibling_version => {
            return Some(dated_after(file, &version));
        }
        Some(Sibling::Stale(checked)) if checked == sibling_version => return None,
        _ => {}
    }
    let (encoded, expected) = (bytes.clone(), identity);
    let matches = blocking(move || Ok(decodes_to(encoding, &encoded, &expected)))
        .await
        .unwrap_or(false);
    let noted = if matches {
        Sibling::Matches(sibling_version)
    } else {
        Sibling::Stale(sibling_version)
    };
    cache.note_sibling(&path, &version, index, noted);
    matches.then(|| dated_after(file, &version))
}

/// `sibling` stating the later of its own date and its file's (at `file`): it stands
/// for the file, whose bytes may have changed after it was written (a file rolled
/// back beside a sibling left from before), and a date earlier than the file's would
/// let a client's `If-Modified-Since` of bytes it took since pass (RFC 9110 §8.8.2.2).
pub(crate) fn dated_after(mut sibling: DiskFile, file: &FileVersion) -> DiskFile {
    sibling.meta.version.stated = sibling.meta.version.stated.max(file.stated);
    sibling
}

/// Whether `encoded`, decoded as `encoding`, is exactly `expected`.
fn decodes_to(encoding: Encoding, encoded: &[u8], expected: &[u8]) -> bool {
    let limit = expected.len() as u64 + 1;
    let mut decoded = Vec::with_capacity(expected.len());
    let read = match encoding {
        Encoding::Gzip => flate2::read::GzDecoder::new(encoded)
            .take(limit)
            .read_to_end(&mut decoded),
        Encoding::Brotli => brotli_decompressor::Decompressor::new(encoded, 4096)
            .take(limit)
            .read_to_end(&mut decoded),
        #[cfg(feature = "zstd")]
        Encoding::Zstd => zstd::stream::read::Decoder::with_buffer(encoded)
            .and_then(|decoder| decoder.take(limit).read_to_end(&mut decoded)),
        _ => Err(io::Error::other("no decoder")),
    };
    read.is_ok() && decoded == expected
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        encoder.write_all(bytes).unwrap();
        encoder.finish().unwrap()
    }

    #[test]
    fn a_sibling_matches_only_the_bytes_it_decodes_to() {
        let text = b"body { color: teal }\n".repeat(50);
        let encoded = gzip(&text);
        assert!(decodes_to(Encoding::Gzip, &encoded, &text));
        let mut other = text.clone();
        other[3] = b'x';
        assert!(!decodes_to(Encoding::Gzip, &encoded, &other));
        // Longer or shorter than the file: no match, and no more than one byte past
        // the file is decoded.
        assert!(!decodes_to(
            Encoding::Gzip,
            &encoded,
            &text[..text.len() - 1]
        ));
        assert!(!decodes_to(Encoding::Gzip, &gzip(&text[..10]), &text));
        // Not gzip at all; not brotli either.
        assert!(!decodes_to(Encoding::Gzip, &text, &text));
        assert!(!decodes_to(Encoding::Brotli, &encoded, &text));
    }

    #[cfg(feature = "zstd")]
    #[test]
    fn a_zstd_sibling_matches_only_its_own_bytes() {
        let text = b"console.log('app');\n".repeat(40);
        let encoded = zstd::encode_all(&text[..], 19).unwrap();
        assert!(decodes_to(Encoding::Zstd, &encoded, &text));
        assert!(!decodes_to(Encoding::Zstd, &encoded, &text[1..]));
        assert!(!decodes_to(Encoding::Zstd, &gzip(&text), &text));
        // A frame that decodes to far more than the file stops one byte past it.
        let long = zstd::encode_all(&vec![b'a'; 1 << 20][..], 3).unwrap();
        assert!(!decodes_to(Encoding::Zstd, &long, b"a"));
    }
}
