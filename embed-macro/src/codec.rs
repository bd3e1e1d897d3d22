//! The codecs: gzip, brotli and zstd, their settings by `compression` and size, and the
//! rule for keeping a body. Used by the encode, rewrite and delta phases.

use std::io::Write;

use crate::options::Compression;

/// brotli's window: the maximum, which browsers decode as fast as any other.
pub(crate) const BROTLI_WINDOW: i32 = 22;

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
}
