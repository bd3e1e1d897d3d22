//! The strong ETag formats, defined once.
//!
//! `embed_assets!` computes ETags while the crate compiles, and the runtime computes
//! them again for files it reads at run time (the dev folder, files left on disk). An
//! unchanged file must keep its build-time ETag, so both call these functions.
//!
//! Changing a format changes every ETag, so every client revalidates once.

/// The ETag of a representation's bytes: the first 128 bits of their SHA-256 `digest`,
/// in lowercase hex, quoted (`"9f86d081884c7d659a2feaa0c55ad015"`).
///
/// # Panics
/// If `digest` is shorter than 16 bytes (a SHA-256 digest has 32).
pub fn content(digest: &[u8]) -> String {
    let mut tag = String::with_capacity(34);
    tag.push('"');
    for byte in &digest[..16] {
        tag.push_str(&format!("{byte:02x}"));
    }
    tag.push('"');
    tag
}

/// The ETag of a file served from disk, from what its metadata says:
/// `"<mtime in nanoseconds since the epoch, hex>-<length, hex>"`. Strong for our
/// purposes: any write changes the mtime, at nanosecond resolution where the file
/// system has it.
pub fn on_disk(mtime_nanos: u128, len: u64) -> String {
    format!("\"{mtime_nanos:x}-{len:x}\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_tags_are_quoted_hex_of_128_bits() {
        let digest: [u8; 32] = core::array::from_fn(|i| (i as u8).wrapping_mul(17));
        assert_eq!(content(&digest), "\"00112233445566778899aabbccddeeff\"");
    }

    #[test]
    fn on_disk_tags_are_quoted_hex_of_time_and_length() {
        assert_eq!(on_disk(1_000_000_001, 10), "\"3b9aca01-a\"");
        assert_eq!(on_disk(0, 0), "\"0-0\"");
    }
}
