//! `Content-Type` for a file, and whether compressing it can pay.

use std::path::Path;

/// The media type for `path`, with `; charset=utf-8` for text types whose bytes are
/// UTF-8 (`is_utf8` is asked only for text types).
///
/// mime_guess's table, with the overrides browsers care about: JavaScript as
/// `text/javascript` (RFC 9239), `application/wasm` exactly (a charset breaks
/// streaming compilation), web manifests, and `application/octet-stream` for unknown
/// and missing extensions (served, never dropped).
pub fn content_type(path: &Path, is_utf8: impl FnOnce() -> bool) -> String {
    let ext = extension(path);
    let essence: String = match ext.as_str() {
        "js" | "mjs" | "cjs" => "text/javascript".into(),
        "wasm" => "application/wasm".into(),
        "webmanifest" => "application/manifest+json".into(),
        "json" | "map" => "application/json".into(),
        "ico" => "image/x-icon".into(),
        "avif" => "image/avif".into(),
        "woff" => "font/woff".into(),
        "woff2" => "font/woff2".into(),
        "md" => "text/markdown".into(),
        _ => mime_guess::from_ext(&ext)
            .first_raw()
            .unwrap_or("application/octet-stream")
            .into(),
    };
    if is_text(&essence) && is_utf8() {
        format!("{essence}; charset=utf-8")
    } else {
        essence
    }
}

/// Types whose bytes are characters, so that a charset parameter means something.
fn is_text(essence: &str) -> bool {
    essence.starts_with("text/")
        || essence.ends_with("+json")
        || essence.ends_with("+xml")
        || matches!(
            essence,
            "application/json" | "application/xml" | "application/javascript"
        )
}

/// Whether the format compresses its own bytes already, so gzip/brotli would only
/// burn compile time (the "does it pay" check would reject the result anyway).
pub fn is_precompressed(path: &Path) -> bool {
    matches!(
        extension(path).as_str(),
        "png"
            | "jpg"
            | "jpeg"
            | "gif"
            | "webp"
            | "avif"
            | "heic"
            | "heif"
            | "jxl"
            | "woff"
            | "woff2"
            | "mp4"
            | "m4v"
            | "m4a"
            | "mov"
            | "webm"
            | "mkv"
            | "ogg"
            | "ogv"
            | "oga"
            | "opus"
            | "mp3"
            | "aac"
            | "flac"
            | "zip"
            | "gz"
            | "tgz"
            | "br"
            | "zst"
            | "xz"
            | "bz2"
            | "7z"
            | "rar"
            | "jar"
            | "apk"
    )
}

fn extension(path: &Path) -> String {
    path.extension()
        .and_then(|ext| ext.to_str())
        .unwrap_or_default()
        .to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ct(name: &str) -> String {
        content_type(Path::new(name), || true)
    }

    #[test]
    fn media_types_follow_the_table() {
        for (name, expected) in [
            ("index.html", "text/html; charset=utf-8"),
            ("app.css", "text/css; charset=utf-8"),
            ("app.js", "text/javascript; charset=utf-8"),
            ("mod.mjs", "text/javascript; charset=utf-8"),
            ("data.json", "application/json; charset=utf-8"),
            ("logo.svg", "image/svg+xml; charset=utf-8"),
            ("notes.txt", "text/plain; charset=utf-8"),
            ("feed.xml", "text/xml; charset=utf-8"),
            (
                "site.webmanifest",
                "application/manifest+json; charset=utf-8",
            ),
            ("app.wasm", "application/wasm"),
            ("favicon.ico", "image/x-icon"),
            ("logo.png", "image/png"),
            ("photo.JPG", "image/jpeg"),
            ("pic.avif", "image/avif"),
            ("font.woff2", "font/woff2"),
            ("clip.mp4", "video/mp4"),
            ("LICENSE", "application/octet-stream"),
            ("blob.unknownext", "application/octet-stream"),
        ] {
            assert_eq!(ct(name), expected, "{name}");
        }
    }

    #[test]
    fn charset_only_for_text_that_is_utf8() {
        assert_eq!(
            content_type(Path::new("latin1.txt"), || false),
            "text/plain"
        );
        assert_eq!(
            content_type(Path::new("a.png"), || panic!("not asked")),
            "image/png"
        );
    }

    #[test]
    fn compressed_formats_are_recognised() {
        for name in [
            "a.png", "a.JPEG", "a.woff2", "a.mp4", "a.zip", "a.gz", "a.br", "a.webm",
        ] {
            assert!(is_precompressed(Path::new(name)), "{name}");
        }
        for name in ["a.html", "a.svg", "a.ico", "a.wasm", "a.js", "LICENSE"] {
            assert!(!is_precompressed(Path::new(name)), "{name}");
        }
    }
}
