//! The content codings as data: one row of [`CODINGS`] each (its name in the runtime,
//! the option that turns it on, the settings that name its cached bodies, its encoder),
//! the codecs behind them, and the rule for keeping a body. The encode and rewrite
//! phases store a body in each plain coding the options ask for, the delta phase one
//! in each dictionary coding; nothing else names codings one by one, but gzip, which
//! `compressed_only` decodes a file's own bytes from.

use std::fmt;
use std::io::Write;

use crate::options::{Compression, Options};

/// One content coding the macro can store bodies in.
pub(crate) struct Coding {
    /// The runtime's `Encoding` variant, which the generated table names.
    pub(crate) runtime: &'static str,
    /// Its `Content-Encoding` token.
    pub(crate) token: &'static str,
    /// Whether the options ask for it.
    pub(crate) enabled: fn(&Options) -> bool,
    /// What names its bodies in the cache, before the level (`br` of `br11w22`).
    tag: &'static str,
    /// What follows the level in that name (`w22`: brotli's window).
    after_level: &'static str,
    /// Its level (quality) for a file of this many bytes.
    level: fn(Compression, u64) -> i32,
    pub(crate) codec: Codec,
}

/// How a coding makes a body at a level.
#[derive(Clone, Copy)]
pub(crate) enum Codec {
    /// From the file's bytes.
    Plain(fn(&[u8], i32) -> Vec<u8>),
    /// From the file's bytes and a dictionary, the earlier version of the file the
    /// client kept (RFC 9842), the stream's header included.
    WithDictionary(fn(&[u8], &[u8], i32) -> Vec<u8>),
}

impl Coding {
    /// A row of [`CODINGS`]: a body's name in the cache is `tag` and its level.
    const fn new(
        (runtime, token): (&'static str, &'static str),
        enabled: fn(&Options) -> bool,
        tag: &'static str,
        level: fn(Compression, u64) -> i32,
        codec: Codec,
    ) -> Coding {
        Coding {
            runtime,
            token,
            enabled,
            tag,
            after_level: "",
            level,
            codec,
        }
    }

    /// Whether its bodies are made against a dictionary.
    pub(crate) fn needs_dictionary(&self) -> bool {
        matches!(self.codec, Codec::WithDictionary(_))
    }

    /// Its level for `compression` and a file of `len` bytes.
    pub(crate) fn level(&self, compression: Compression, len: u64) -> i32 {
        (self.level)(compression, len)
    }

    /// The settings its body at `level` is made with, which name the body in the cache
    /// (`br11w22`): a body made with other settings is never taken.
    pub(crate) fn settings(&self, level: i32) -> String {
        format!("{}{level}{}", self.tag, self.after_level)
    }
}

impl fmt::Debug for Coding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.token)
    }
}

impl PartialEq for Coding {
    fn eq(&self, other: &Self) -> bool {
        self.token == other.token
    }
}

impl Eq for Coding {}

/// `dcb` (RFC 9842): brotli with the dictionary as a raw prefix.
pub(crate) const DCB: Coding = Coding::new(
    ("DictionaryBrotli", "dcb"),
    |options| options.brotli.value,
    "dcb",
    brotli_quality,
    Codec::WithDictionary(|bytes, dictionary, quality| {
        framed(
            &DCB_MAGIC,
            dictionary,
            brotli_with(bytes, dictionary, quality),
        )
    }),
);

/// `dcz` (RFC 9842): Zstandard with the dictionary as raw content.
#[cfg(feature = "zstd")]
pub(crate) const DCZ: Coding = Coding::new(
    ("DictionaryZstd", "dcz"),
    |options| options.zstd.value,
    "dcz",
    zstd_level,
    Codec::WithDictionary(|bytes, dictionary, level| {
        framed(&DCZ_MAGIC, dictionary, zstd_with(bytes, dictionary, level))
    }),
);

/// `br` (RFC 7932).
pub(crate) const BROTLI: Coding = Coding {
    after_level: BROTLI_WINDOW_NAME,
    ..Coding::new(
        ("Brotli", "br"),
        |options| options.brotli.value,
        "br",
        brotli_quality,
        Codec::Plain(brotli),
    )
};

/// `zstd` (RFC 8878).
#[cfg(feature = "zstd")]
pub(crate) const ZSTD: Coding = Coding::new(
    ("Zstd", "zstd"),
    |options| options.zstd.value,
    "zst",
    zstd_level,
    Codec::Plain(zstd),
);

/// `gzip` (RFC 1952).
pub(crate) const GZIP: Coding = Coding::new(
    ("Gzip", "gzip"),
    |options| options.gzip.value,
    "gz",
    |compression, len| levels(compression, len).0 as i32,
    Codec::Plain(|bytes, level| gzip(bytes, level.unsigned_abs())),
);

/// Every coding, in the server's order of preference: an asset's bodies are listed in
/// this order (its dictionary bodies, smallest first, before the rest), and among
/// codings a client accepts equally the first is sent. (zstd, without its feature, is
/// not compiled: the options refuse it.)
pub(crate) const CODINGS: &[&Coding] = &[
    &DCB,
    #[cfg(feature = "zstd")]
    &DCZ,
    &BROTLI,
    #[cfg(feature = "zstd")]
    &ZSTD,
    &GZIP,
];

/// The codings the options ask for, in [`CODINGS`]' order.
pub(crate) fn enabled(options: &Options) -> Vec<&'static Coding> {
    CODINGS
        .iter()
        .copied()
        .filter(|coding| (coding.enabled)(options))
        .collect()
}

/// The `dcb` stream's header: its magic number, then the dictionary's SHA-256.
const DCB_MAGIC: [u8; 4] = [0xff, 0x44, 0x43, 0x42];
/// The `dcz` stream's header: a Zstandard skippable frame of 32 bytes (the dictionary's
/// SHA-256).
#[cfg(feature = "zstd")]
const DCZ_MAGIC: [u8; 8] = [0x5e, 0x2a, 0x4d, 0x18, 0x20, 0x00, 0x00, 0x00];

/// An RFC 9842 body: `magic`, the SHA-256 of `dictionary`, then `stream`.
fn framed(magic: &[u8], dictionary: &[u8], stream: Vec<u8>) -> Vec<u8> {
    use sha2::{Digest, Sha256};
    let hash = Sha256::digest(dictionary);
    let mut out = Vec::with_capacity(magic.len() + hash.len() + stream.len());
    out.extend_from_slice(magic);
    out.extend_from_slice(&hash);
    out.extend(stream);
    out
}

/// brotli's window: the maximum, which browsers decode as fast as any other.
pub(crate) const BROTLI_WINDOW: i32 = 22;
/// [`BROTLI_WINDOW`] in the name of a br body in the cache (`br11w22`).
const BROTLI_WINDOW_NAME: &str = "w22";

/// Above this size, `compression = "best"` trades a few percent of the body for an
/// encoder 10-20 times faster. Measured on Monaco's and Swagger UI's bundles: brotli 11
/// takes ~1.8 s per MB and brotli 9 ~0.12 s for bodies 5-12% larger; gzip 9 against 6
/// saves under 0.3% at twice the time. Most files of a site are below it and get the
/// smallest bodies; the few large bundles would otherwise be most of the build.
pub(crate) const BEST_EFFORT_UP_TO: u64 = 256 * 1024;

/// gzip level and brotli quality for `compression` and a file of `len` bytes.
pub(crate) fn levels(compression: Compression, len: u64) -> (u32, i32) {
    match compression {
        Compression::Max => (9, 11),
        Compression::Best if len <= BEST_EFFORT_UP_TO => (9, 11),
        Compression::Best => (6, 9),
        Compression::Fast => (6, 5),
    }
}

/// brotli quality for `compression` and a file of `len` bytes.
fn brotli_quality(compression: Compression, len: u64) -> i32 {
    levels(compression, len).1
}

/// zstd level for `compression` and a file of `len` bytes. At most 19: the "ultra"
/// levels above it use windows over the 8 MiB that HTTP's `zstd` coding allows a client
/// to refuse (RFC 9659 §3).
#[cfg(feature = "zstd")]
pub(crate) fn zstd_level(compression: Compression, len: u64) -> i32 {
    match compression {
        Compression::Max => 19,
        Compression::Best if len <= BEST_EFFORT_UP_TO => 19,
        Compression::Best => 12,
        Compression::Fast => 3,
    }
}

/// The rule for keeping an encoded body: it must save at least 10% and at least 128
/// bytes. Below that, the cost of a second cache entry (`Vary`) and of decoding
/// outweighs the bytes saved; most such files fit one packet either way.
pub(crate) fn pays(original: usize, encoded: usize) -> bool {
    encoded.saturating_add((original / 10).max(128)) <= original
}

pub(crate) fn gzip(bytes: &[u8], level: u32) -> Vec<u8> {
    // flate2's GzEncoder writes mtime 0 and no file name: the output depends on the
    // bytes alone, so builds are reproducible.
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(level));
    // Writing to a Vec cannot fail.
    let _ = encoder.write_all(bytes);
    encoder.finish().unwrap_or_default()
}

pub(crate) fn gunzip(gzip: &[u8]) -> Option<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    flate2::read::GzDecoder::new(gzip)
        .read_to_end(&mut bytes)
        .ok()?;
    Some(bytes)
}

pub(crate) fn brotli(bytes: &[u8], quality: i32) -> Vec<u8> {
    let params = brotli::enc::BrotliEncoderParams {
        quality,
        lgwin: BROTLI_WINDOW,
        size_hint: bytes.len(),
        ..Default::default()
    };
    let mut out = Vec::new();
    let _ = brotli::BrotliCompress(&mut &bytes[..], &mut out, &params);
    out
}

/// A single zstd frame with the content size in its header; deterministic.
#[cfg(feature = "zstd")]
pub(crate) fn zstd(bytes: &[u8], level: i32) -> Vec<u8> {
    zstd::bulk::compress(bytes, level).unwrap_or_default()
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
    use std::io::Read;

    #[test]
    fn compression_pays_only_past_both_thresholds() {
        assert!(pays(10_000, 2_000));
        assert!(pays(10_000, 9_000));
        assert!(!pays(10_000, 9_001), "under 10% saved");
        assert!(!pays(1_000, 873), "under 128 bytes saved");
        assert!(pays(1_000, 872));
        assert!(!pays(0, 0));
        assert!(!pays(100, 20), "a tiny file never pays");
    }

    #[test]
    fn bodies_are_named_in_the_cache_by_coding_level_and_window() {
        let named =
            |coding: &Coding, compression, len| coding.settings(coding.level(compression, len));
        assert_eq!(named(&BROTLI, Compression::Best, 10), "br11w22");
        assert_eq!(format!("w{BROTLI_WINDOW}"), BROTLI_WINDOW_NAME);
        assert_eq!(named(&BROTLI, Compression::Best, 1 << 20), "br9w22");
        assert_eq!(named(&GZIP, Compression::Fast, 10), "gz6");
        assert_eq!(named(&DCB, Compression::Max, 1 << 30), "dcb11");
        #[cfg(feature = "zstd")]
        {
            assert_eq!(named(&ZSTD, Compression::Best, 10), "zst19");
            assert_eq!(named(&DCZ, Compression::Fast, 10), "dcz3");
        }
    }

    #[test]
    fn both_codings_round_trip_at_both_settings() {
        let text = "body { color: red }\n".repeat(500);
        for compression in [Compression::Max, Compression::Best, Compression::Fast] {
            let (level, quality) = levels(compression, text.len() as u64);
            let gz = gzip(text.as_bytes(), level);
            let mut decoded = String::new();
            flate2::read::GzDecoder::new(&gz[..])
                .read_to_string(&mut decoded)
                .unwrap();
            assert_eq!(decoded, text);
            let br = brotli(text.as_bytes(), quality);
            let mut decoded = Vec::new();
            brotli::BrotliDecompress(&mut &br[..], &mut decoded).unwrap();
            assert_eq!(decoded, text.as_bytes());
            assert!(br.len() < gz.len() && gz.len() < text.len() / 10);
        }
    }

    #[test]
    fn compression_is_deterministic() {
        let text = b"deterministic output, please ".repeat(100);
        assert_eq!(gzip(&text, 9), gzip(&text, 9));
        assert_eq!(brotli(&text, 11), brotli(&text, 11));
    }

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
        let plain = brotli(&new, 11);
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
}
