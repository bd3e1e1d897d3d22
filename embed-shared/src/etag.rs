//! The strong ETag formats, defined once.
//!
//! `embed_assets!` computes ETags while the crate compiles, and the runtime computes
//! them for files it reads at run time (the dev folder, files left on disk), from their
//! bytes as well: an unchanged file keeps its build-time ETag, and two servers with the
//! same bytes send the same one, whatever the files' times.
//!
//! Changing a format changes every ETag, so every client revalidates once.

/// The ETag of a representation's bytes: the first 128 bits of their SHA-256 `digest`,
/// in lowercase hex, quoted (`"9f86d081884c7d659a2feaa0c55ad015"`).
///
/// # Panics
/// If `digest` is shorter than 16 bytes (a SHA-256 digest has 32).
pub fn content(digest: &[u8]) -> String {
    format!("\"{}\"", crate::hex(&digest[..16]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_tags_are_quoted_hex_of_128_bits() {
        let digest: [u8; 32] = core::array::from_fn(|i| (i as u8).wrapping_mul(17));
        assert_eq!(content(&digest), "\"00112233445566778899aabbccddeeff\"");
    }
}
