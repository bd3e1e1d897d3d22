//! The precompressed siblings of a folder's files (`app.js.br`, `app.js.gz`), for a
//! folder served whole (`ServeAssets::folder`): a sibling is sent in place of its file
//! only while it decodes to exactly the file's bytes. A sibling left from an earlier
//! version of the file (the file replaced, its sibling not, or not yet) is ignored, not
//! served: the check is made once per version of the file and of the sibling, by
//! decoding the sibling and comparing it with the file as two streams, a piece at a
//! time, so files of any length are checked in bounded memory, and a sibling that
//! parts from its file is refused where it parts.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;

use super::cache::{BodyCache, SIBLINGS, SiblingCheck, sibling_path};
use super::version::FileVersion;
use super::{Content, ContentTags, DiskFile, blocking, fetch, open_regular};
use crate::coding::Encoding;

/// The codings of the siblings of `path` (cached in `cache` at `version`) that exist now
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
            cache.note_sibling(path, version, index, SiblingCheck::Absent(Instant::now()));
        }
    }
    present
}

/// The sibling of `path` in `encoding`, fetched as a file of the folder is (read whole
/// through `cache` up to `whole_up_to`, else opened to stream, its tag from `tags`),
/// when it decodes to exactly the bytes of `path` at `version`: `identity` when the
/// file was read whole, else the file itself, read again as a stream. `None` when it
/// is missing or does not match. What was found is noted in `cache` for both
/// versions, so a sibling is decoded once per version of it and of its file.
pub(crate) async fn matching(
    path: PathBuf,
    encoding: Encoding,
    identity: Option<Bytes>,
    version: FileVersion,
    tags: Arc<ContentTags>,
    cache: Arc<BodyCache>,
    whole_up_to: u64,
) -> Option<DiskFile> {
    let index = SIBLINGS.iter().position(|(e, _)| *e == encoding)?;
    let sibling = sibling_path(&path, SIBLINGS[index].1);
    let file = fetch(sibling.clone(), tags, Arc::clone(&cache), whole_up_to)
        .await
        .ok()?;
    let sibling_version = file.meta.version;
    match cache.sibling(&path, &version, index) {
        SiblingCheck::Matches(checked) if checked == sibling_version => {
            return Some(dated_after(file, &version));
        }
        SiblingCheck::Stale(checked) if checked == sibling_version => return None,
        _ => {}
    }
    let encoded = match &file.content {
        Content::Whole(bytes) => Some(bytes.clone()),
        Content::Open(_) => None,
    };
    let file_path = path.clone();
    let matches = blocking(move || {
        // Each side from memory when it was read whole, else from a handle of its own
        // (the opened one is the response's), refused unless still of the version
        // checked.
        let encoded: Box<dyn Read> = match encoded {
            Some(bytes) => Box::new(io::Cursor::new(bytes)),
            None => Box::new(open_at(&sibling, &sibling_version)?),
        };
        let expected: Box<dyn Read> = match identity {
            Some(bytes) => Box::new(io::Cursor::new(bytes)),
            None => Box::new(open_at(&file_path, &version)?),
        };
        Ok(decodes_to(encoding, encoded, expected))
    })
    .await;
    // A side that changed meanwhile: nothing is known, and nothing is sent.
    let matches = matches.ok()?;
    let noted = if matches {
        SiblingCheck::Matches(sibling_version)
    } else {
        SiblingCheck::Stale(sibling_version)
    };
    cache.note_sibling(&path, &version, index, noted);
    matches.then(|| dated_after(file, &version))
}

/// `path` opened for reading when it is still the regular file of `version` (checked
/// to be one before it is opened, as every file here: a named pipe would block).
fn open_at(path: &Path, version: &FileVersion) -> io::Result<File> {
    let (file, meta) = open_regular(path, io::ErrorKind::NotFound)?;
    if FileVersion::of(&meta) == *version {
        Ok(file)
    } else {
        Err(io::Error::other("changed since it was looked at"))
    }
}

/// `sibling` stating the later of its own date and its file's (at `file`): it stands
/// for the file, whose bytes may have changed after it was written (a file rolled
/// back beside a sibling left from before), and a date earlier than the file's would
/// let a client's `If-Modified-Since` of bytes it took since pass (RFC 9110 §8.8.2.2).
pub(crate) fn dated_after(mut sibling: DiskFile, file: &FileVersion) -> DiskFile {
    sibling.meta.version.stated = sibling.meta.version.stated.max(file.stated);
    sibling
}

/// How much of each side [`decodes_to`] holds at once.
const PIECE: usize = 64 * 1024;

/// Whether `encoded`, decoded as `encoding`, is exactly the bytes of `expected`: both
/// read as streams, a piece at a time, so memory stays bounded whatever their length
/// (the decoder's window, two pieces); it stops at the first difference, so a sibling
/// of another file, or one that decodes to more, costs at most one piece past where
/// they part.
fn decodes_to(encoding: Encoding, encoded: impl Read, mut expected: impl Read) -> bool {
    // NOTE: every coding is named, so that a new one is decided on here: a coding of
    // `SIBLINGS` without a decoder would have its siblings refused, never sent (the
    // test `every_sibling_coding_has_a_decoder` says so).
    let mut decoded: Box<dyn Read> = match encoding {
        Encoding::Gzip => Box::new(flate2::read::GzDecoder::new(encoded)),
        Encoding::Brotli => Box::new(brotli_decompressor::Decompressor::new(encoded, 4096)),
        #[cfg(feature = "zstd")]
        Encoding::Zstd => match zstd::stream::read::Decoder::new(encoded) {
            Ok(decoder) => Box::new(decoder),
            Err(_) => return false,
        },
        #[cfg(not(feature = "zstd"))]
        Encoding::Zstd => return false,
        Encoding::DictionaryBrotli | Encoding::DictionaryZstd | Encoding::Identity => {
            return false;
        }
    };
    let mut ours = vec![0; PIECE];
    let mut theirs = vec![0; PIECE];
    loop {
        let Ok(got) = fill(&mut decoded, &mut ours) else {
            return false;
        };
        let Ok(want) = fill(&mut expected, &mut theirs) else {
            return false;
        };
        if got != want || ours[..got] != theirs[..want] {
            return false;
        }
        if got < PIECE {
            return true;
        }
    }
}

/// Reads until `buf` is full or the stream ends; how much was read.
fn fill(reader: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match reader.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
    }
    Ok(filled)
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    fn decodes(encoding: Encoding, encoded: &[u8], expected: &[u8]) -> bool {
        decodes_to(encoding, encoded, expected)
    }

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        encoder.write_all(bytes).unwrap();
        encoder.finish().unwrap()
    }

    #[test]
    fn a_sibling_matches_only_the_bytes_it_decodes() {
        let text = b"body { color: teal }\n".repeat(50);
        let encoded = gzip(&text);
        assert!(decodes(Encoding::Gzip, &encoded, &text));
        let mut other = text.clone();
        other[3] = b'x';
        assert!(!decodes(Encoding::Gzip, &encoded, &other));
        // Longer or shorter than the file: no match, and no more than one byte past
        // the file is decoded.
        assert!(!decodes(Encoding::Gzip, &encoded, &text[..text.len() - 1]));
        assert!(!decodes(Encoding::Gzip, &gzip(&text[..10]), &text));
        // Not gzip at all; not brotli either.
        assert!(!decodes(Encoding::Gzip, &text, &text));
        assert!(!decodes(Encoding::Brotli, &encoded, &text));
    }

    #[test]
    fn files_of_many_pieces_are_compared_to_their_last_byte() {
        let text: Vec<u8> = (0..5 * PIECE + 123).map(|i| (i * 7 % 251) as u8).collect();
        let encoded = gzip(&text);
        assert!(decodes(Encoding::Gzip, &encoded, &text));
        // A difference in the last piece, or one byte more or less.
        let mut other = text.clone();
        *other.last_mut().unwrap() ^= 1;
        assert!(!decodes(Encoding::Gzip, &encoded, &other));
        assert!(!decodes(Encoding::Gzip, &encoded, &text[..text.len() - 1]));
        assert!(!decodes(
            Encoding::Gzip,
            &encoded,
            &[&text[..], b"x"].concat()
        ));
        // Exactly a whole number of pieces.
        let even = &text[..4 * PIECE];
        assert!(decodes(Encoding::Gzip, &gzip(even), even));
        assert!(!decodes(
            Encoding::Gzip,
            &gzip(even),
            &text[..4 * PIECE + 1]
        ));
    }

    /// A sibling in each coding of [`SIBLINGS`], as a tool writes it.
    fn encoded(encoding: Encoding, bytes: &[u8]) -> Vec<u8> {
        match encoding {
            Encoding::Gzip => gzip(bytes),
            Encoding::Brotli => {
                let mut out = Vec::new();
                let params = brotli::enc::BrotliEncoderParams::default();
                brotli::BrotliCompress(&mut &bytes[..], &mut out, &params).unwrap();
                out
            }
            #[cfg(feature = "zstd")]
            Encoding::Zstd => zstd::encode_all(bytes, 3).unwrap(),
            other => panic!("no encoder for {other} in this test: add one"),
        }
    }

    #[test]
    fn every_sibling_coding_has_a_decoder() {
        let text = b"export const a = 1;\n".repeat(100);
        for (encoding, ext) in SIBLINGS {
            assert!(
                decodes(encoding, &encoded(encoding, &text), &text),
                ".{ext}: no decoder, so such siblings are never sent"
            );
        }
        let extensions: Vec<&str> = SIBLINGS.iter().map(|(_, ext)| *ext).collect();
        let expected: &[&str] = if cfg!(feature = "zstd") {
            &["br", "zst", "gz"]
        } else {
            &["br", "gz"]
        };
        assert_eq!(extensions, expected);
    }

    #[cfg(feature = "zstd")]
    #[test]
    fn a_zstd_sibling_matches_only_its_own_bytes() {
        let text = b"console.log('app');\n".repeat(40);
        let encoded = zstd::encode_all(&text[..], 19).unwrap();
        assert!(decodes(Encoding::Zstd, &encoded, &text));
        assert!(!decodes(Encoding::Zstd, &encoded, &text[1..]));
        assert!(!decodes(Encoding::Zstd, &gzip(&text), &text));
        // A frame that decodes to far more than the file stops one byte past it.
        let long = zstd::encode_all(&vec![b'a'; 1 << 20][..], 3).unwrap();
        assert!(!decodes(Encoding::Zstd, &long, b"a"));
    }
}
