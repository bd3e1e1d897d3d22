//! The `.release` lists of kept releases (`embed_assets_shared::release`).

use std::collections::BTreeMap;
use std::path::Path;

use embed_assets_shared::release::{self, HEADER, Release};
use percent_encoding::percent_decode;
use sha2::{Digest, Sha256};

/// Fuzz target `release_list`: `data` is the text of a `.release` file (bytes that are
/// not UTF-8 are replaced, as a list is read as text).
///
/// - A text in the format of the module documentation, read again here strictly (ASCII,
///   every line ending in a line feed, the header, an optional `recorded <seconds>`,
///   then `<SHA-256 in lowercase hex> <path>` lines sorted by decoded path with no path
///   twice, paths percent-encoded UTF-8, relative, `/`-separated, with no empty, `.` or
///   `..` segment, no backslash and no raw `%`, control or non-ASCII byte), parses to
///   exactly what it lists.
/// - What parses has only valid hashes and relative paths; written back it is a text of
///   that strict format, which parses to the same release and writes the same text
///   again. Its id is the first 16 hex digits of the SHA-256 of that text without its
///   `recorded` line, whatever the time.
/// - What does not parse is an error with a message: one naming line `N` is about
///   that line (the text's first `N - 1` lines parse, its first `N` do not, with the
///   same message); any other is about the first line, which is not the header.
///
/// # Panics
/// When an invariant does not hold.
pub fn check_release_list(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let parsed = Release::parse(&text);
    if let Some(expected) = read_strictly(&text) {
        assert_eq!(parsed.as_ref(), Ok(&expected), "a valid list: {text:?}");
    }
    match parsed {
        Ok(release) => check_written(&release, &text),
        Err(message) => check_refusal(&text, &message),
    }
}

fn check_written(release: &Release, text: &str) {
    for (path, hash) in &release.files {
        assert!(is_relative_path(path), "{path:?} read from {text:?}");
        assert!(is_sha256_hex(hash), "{hash:?} read from {text:?}");
        assert!(release::is_sha256_hex(hash));
        let object = release::object_path(hash);
        assert_eq!(
            object,
            Path::new("objects").join(&hash[..2]).join(&hash[2..])
        );
    }
    let written = release.to_text();
    assert_eq!(
        read_strictly(&written).as_ref(),
        Some(release),
        "written as {written:?}, read from {text:?}"
    );
    let again = Release::parse(&written);
    assert_eq!(again.as_ref(), Ok(release), "{written:?}");
    assert_eq!(again.map(|release| release.to_text()), Ok(written.clone()));
    // The id: of the text without its `recorded` line.
    let undated: String = written
        .split_inclusive('\n')
        .filter(|line| !line.starts_with("recorded "))
        .collect();
    let digest = Sha256::digest(undated.as_bytes());
    let id: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(release.id(), id, "{written:?}");
    let other_time = Release {
        recorded: Some(release.recorded.map_or(0, |t| t ^ 1)),
        ..release.clone()
    };
    assert_eq!(other_time.id(), id);
    assert_eq!(
        release::file_name(7, &id),
        format!("00000007-{id}.{}", release::EXTENSION)
    );
}

fn check_refusal(text: &str, message: &str) {
    assert!(!message.is_empty(), "no message for {text:?}");
    let lines: Vec<&str> = text.lines().collect();
    let numbered = message
        .strip_prefix("line ")
        .and_then(|rest| rest.split_once(": "))
        .and_then(|(number, _)| number.parse::<usize>().ok());
    let Some(number) = numbered else {
        assert_ne!(
            lines.first().copied(),
            Some(HEADER),
            "{message:?} for a list with the header: {text:?}"
        );
        return;
    };
    assert!(
        (2..=lines.len()).contains(&number),
        "{message:?} names no line of {text:?}"
    );
    // The first lines of the text as `str::lines` reads them back: an empty last line
    // needs its line feed.
    let first = |count: usize| {
        let mut text = lines[..count].join("\n");
        if lines[count - 1].is_empty() {
            text.push('\n');
        }
        text
    };
    let before = first(number - 1);
    assert!(
        Release::parse(&before).is_ok(),
        "{message:?}, but the lines before do not parse: {before:?}"
    );
    let through = first(number);
    assert_eq!(
        Release::parse(&through).as_ref().map_err(String::as_str),
        Err(message),
        "{text:?}"
    );
}

/// The release `text` lists, read strictly as the module documentation describes the
/// format; `None` for any other text.
fn read_strictly(text: &str) -> Option<Release> {
    if !text.is_ascii() {
        return None;
    }
    let body = text.strip_suffix('\n')?;
    let mut lines = body.split('\n');
    if lines.next()? != HEADER {
        return None;
    }
    let mut lines = lines.peekable();
    let mut recorded = None;
    if let Some(seconds) = lines.peek().and_then(|line| line.strip_prefix("recorded ")) {
        if seconds.is_empty() || !seconds.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        recorded = Some(seconds.parse::<u64>().ok()?);
        lines.next();
    }
    let mut files = BTreeMap::new();
    let mut last: Option<String> = None;
    for line in lines {
        let (hash, escaped) = line.split_at_checked(64)?;
        let escaped = escaped.strip_prefix(' ')?;
        if !is_sha256_hex(hash) || escaped.bytes().any(|b| b.is_ascii_control()) {
            return None;
        }
        // Every `%` starts an escape.
        let bytes = escaped.as_bytes();
        for (i, _) in escaped.match_indices('%') {
            let hex = bytes.get(i + 1..i + 3)?;
            if !hex.iter().all(u8::is_ascii_hexdigit) {
                return None;
            }
        }
        let path = percent_decode(bytes).decode_utf8().ok()?.into_owned();
        if !is_relative_path(&path) || last.as_ref().is_some_and(|last| *last >= path) {
            return None;
        }
        last = Some(path.clone());
        files.insert(path, hash.to_owned());
    }
    Some(Release { files, recorded })
}

/// `/`-separated, relative: no empty, `.` or `..` segment, no backslash.
fn is_relative_path(path: &str) -> bool {
    !path.contains('\\')
        && path
            .split('/')
            .all(|segment| !segment.is_empty() && segment != "." && segment != "..")
}

fn is_sha256_hex(text: &str) -> bool {
    text.len() == 64
        && text
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seed_forms_hold() {
        let hash = "ab".repeat(32);
        for text in [
            String::new(),
            format!("{HEADER}\n"),
            format!("{HEADER}\nrecorded 5\n{hash} a/b c.txt\n{hash} caf%C3%A9\n"),
            format!("{HEADER}\n{hash} a\n{hash} a\n"),
            format!("{HEADER}\r\n{hash} a%0A\r\n"),
            "embed-assets release 2\n".to_owned(),
        ] {
            check_release_list(text.as_bytes());
        }
        assert!(read_strictly(&format!("{HEADER}\n{hash} b\n{hash} a\n")).is_none());
        assert!(read_strictly(&format!("{HEADER}\n{hash} 100%\n")).is_none());
    }
}
