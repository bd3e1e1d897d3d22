//! The folder of kept releases, which `embed-assets-build`'s `Releases` writes after
//! each release build. Version 1:
//!
//! ```text
//! releases/
//!   objects/3f/2a1b9c…              one file's bytes, named by their SHA-256 in hex
//!                                   (the first two digits are a folder)
//!   00000007-3f2a1b9c0d1e2f3a.release
//!                                   one release: its sequence number (newer releases
//!                                   have higher ones) and its id
//! ```
//!
//! A `.release` file is ASCII text: the line `embed-assets release 1`, then optionally
//! the line `recorded <seconds>` (when it was recorded, in seconds since the Unix epoch),
//! then one line per file, sorted by path: the SHA-256 of its bytes in lowercase hex, a
//! space, and its path below the recorded folder, `/`-separated, with `%`, control
//! characters and non-ASCII bytes percent-encoded (as UTF-8). The id is the first 16 hex
//! digits of the SHA-256 of that text without the `recorded` line: the same files make
//! the same id, on any machine, whenever they are recorded. Files whose bytes are the
//! same are stored once, across releases.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};

use percent_encoding::{AsciiSet, CONTROLS, percent_decode_str, utf8_percent_encode};
use sha2::{Digest, Sha256};

/// The first line of a `.release` file.
pub const HEADER: &str = "embed-assets release 1";
/// The folder of file contents, inside the releases folder.
pub const OBJECTS: &str = "objects";
/// The extension of a release's file.
pub const EXTENSION: &str = "release";

/// What a path in a `.release` file escapes: `%` and control characters (line ends
/// would end its line); non-ASCII bytes are escaped too, so the file is ASCII.
const ESCAPED: &AsciiSet = &CONTROLS.add(b'%');

/// The line that states when a release was recorded, before its seconds.
const RECORDED: &str = "recorded ";

/// One release: every recorded file's path and the SHA-256 of its bytes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Release {
    /// Path below the folder (`css/app.css`) → SHA-256 of the bytes, lowercase hex.
    pub files: BTreeMap<String, String>,
    /// When it was recorded, in seconds since the Unix epoch; `None` in a list written
    /// without the `recorded` line. Not part of the id.
    pub recorded: Option<u64>,
}

impl Release {
    /// The release's file text, as described in the [module documentation](self).
    pub fn to_text(&self) -> String {
        self.text(self.recorded)
    }

    /// The file text, with the `recorded` line when `recorded` is some.
    fn text(&self, recorded: Option<u64>) -> String {
        let mut text = String::with_capacity(HEADER.len() + 32 + self.files.len() * 96);
        text.push_str(HEADER);
        text.push('\n');
        if let Some(seconds) = recorded {
            let _ = writeln!(text, "{RECORDED}{seconds}");
        }
        for (path, hash) in &self.files {
            let _ = writeln!(text, "{hash} {}", utf8_percent_encode(path, ESCAPED));
        }
        text
    }

    /// Reads a release's file text.
    ///
    /// # Errors
    /// A message naming the line that is not of the format, or a header of another
    /// version.
    pub fn parse(text: &str) -> Result<Release, String> {
        let mut lines = text.lines();
        match lines.next() {
            Some(HEADER) => {}
            Some(other) if other.starts_with("embed-assets release ") => {
                return Err(format!(
                    "written in format `{other}`, this version reads `{HEADER}`: \
                     record the releases again with a matching embed-assets-build"
                ));
            }
            _ => {
                return Err(format!(
                    "not a release list (its first line is not `{HEADER}`)"
                ));
            }
        }
        let mut files = BTreeMap::new();
        let mut recorded = None;
        for (number, line) in lines.enumerate() {
            let bad = |why: &str| format!("line {}: {why}: {line:?}", number + 2);
            if let Some(seconds) = line.strip_prefix(RECORDED) {
                if number != 0 {
                    return Err(bad("`recorded` belongs right after the first line"));
                }
                let valid = !seconds.is_empty() && seconds.bytes().all(|b| b.is_ascii_digit());
                recorded = Some(
                    seconds
                        .parse()
                        .ok()
                        .filter(|_| valid)
                        .ok_or_else(|| bad("expected `recorded <seconds since 1970>`"))?,
                );
                continue;
            }
            let (hash, path) = line
                .split_once(' ')
                .ok_or_else(|| bad("expected `<sha-256> <path>`"))?;
            if !is_sha256_hex(hash) {
                return Err(bad("not a SHA-256 in lowercase hex"));
            }
            let path = percent_decode_str(path)
                .decode_utf8()
                .map_err(|_| bad("the path is not UTF-8"))?;
            if !is_relative_path(&path) {
                return Err(bad("not a relative `/`-separated path"));
            }
            if files.insert(path.into_owned(), hash.to_owned()).is_some() {
                return Err(bad("a path listed twice"));
            }
        }
        Ok(Release { files, recorded })
    }

    /// The release's id: the first 16 hex digits of the SHA-256 of its text without
    /// the `recorded` line.
    pub fn id(&self) -> String {
        crate::hex(&Sha256::digest(self.text(None).as_bytes()))[..16].to_owned()
    }
}

/// One release in a releases folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kept {
    /// Its place in the order of recording: higher is newer.
    pub sequence: u64,
    /// Its id ([`Release::id`]).
    pub id: String,
    /// Its `.release` file.
    pub path: PathBuf,
}

impl Kept {
    /// Its file's name in the releases folder, as messages name it.
    pub fn name(&self) -> String {
        self.path.file_name().map_or_else(
            || self.id.clone(),
            |name| name.to_string_lossy().into_owned(),
        )
    }

    /// Reads this release's list.
    ///
    /// # Errors
    /// A message when the file cannot be read or is not of the format, naming the
    /// file.
    pub fn read(&self) -> Result<Release, String> {
        std::fs::read_to_string(&self.path)
            .map_err(|err| err.to_string())
            .and_then(|text| Release::parse(&text))
            .map_err(|why| format!("release list `{}`: {why}", self.name()))
    }
}

/// The name of a release's file: `00000007-3f2a1b9c0d1e2f3a.release`.
pub fn file_name(sequence: u64, id: &str) -> String {
    format!("{sequence:08}-{id}.{EXTENSION}")
}

/// Where the bytes with SHA-256 `hash` (lowercase hex) are kept, below the releases
/// folder: `objects/3f/2a1b…`.
pub fn object_path(hash: &str) -> PathBuf {
    Path::new(OBJECTS).join(&hash[..2]).join(&hash[2..])
}

/// The releases in `dir`, oldest first; none when `dir` does not exist. Files of other
/// names are not releases and are left out.
///
/// # Errors
/// When `dir` cannot be read.
pub fn list(dir: &Path) -> io::Result<Vec<Kept>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(err) => return Err(err),
    };
    let mut kept = Vec::new();
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if let Some((sequence, id)) = parse_file_name(name) {
            kept.push(Kept {
                sequence,
                id: id.to_owned(),
                path: entry.path(),
            });
        }
    }
    kept.sort_by_key(|release| release.sequence);
    Ok(kept)
}

/// `00000007-3f2a1b9c0d1e2f3a.release` → (7, `3f2a1b9c0d1e2f3a`).
fn parse_file_name(name: &str) -> Option<(u64, &str)> {
    let stem = name.strip_suffix(EXTENSION)?.strip_suffix('.')?;
    let (sequence, id) = stem.split_once('-')?;
    let valid = sequence.len() >= 8
        && sequence.bytes().all(|b| b.is_ascii_digit())
        && id.len() == 16
        && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    valid.then(|| Some((sequence.parse().ok()?, id)))?
}

/// Whether `text` is a SHA-256 in lowercase hex.
pub fn is_sha256_hex(text: &str) -> bool {
    text.len() == 64 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// A path below a folder as a release lists it: `/`-separated segments, none empty,
/// `.` or `..`, no backslash.
fn is_relative_path(path: &str) -> bool {
    !path.is_empty()
        && !path.contains('\\')
        && path
            .split('/')
            .all(|segment| !matches!(segment, "" | "." | ".."))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hash(seed: u8) -> String {
        crate::hex(&Sha256::digest([seed]))
    }

    fn sample() -> Release {
        let mut release = Release::default();
        release.files.insert("index.html".into(), hash(1));
        release.files.insert("js/app.3f2a1b9c.js".into(), hash(2));
        release
            .files
            .insert("100% café\r\n\tmenu.txt".into(), hash(3));
        release
    }

    #[test]
    fn a_release_reads_back_as_written() {
        let release = sample();
        let text = release.to_text();
        assert!(text.starts_with("embed-assets release 1\n"));
        assert_eq!(text.lines().count(), 4, "one line per file: {text:?}");
        assert!(
            text.contains(" 100%25 caf%C3%A9%0D%0A%09menu.txt\n"),
            "`%`, controls and non-ASCII escaped, spaces as they are: {text:?}"
        );
        assert_eq!(Release::parse(&text), Ok(release));
    }

    #[test]
    fn the_id_is_the_contents_and_only_the_contents() {
        let release = sample();
        assert_eq!(release.id().len(), 16);
        assert_eq!(release.id(), sample().id(), "the same files, the same id");
        let mut changed = sample();
        changed.files.insert("index.html".into(), hash(9));
        assert_ne!(changed.id(), release.id(), "other bytes");
        let mut renamed = sample();
        let bytes = renamed.files.remove("index.html").unwrap();
        renamed.files.insert("home.html".into(), bytes);
        assert_ne!(renamed.id(), release.id(), "another name");
        let mut later = sample();
        later.recorded = Some(1_796_000_000);
        assert_eq!(later.id(), release.id(), "recorded at another time");
    }

    #[test]
    fn the_recorded_time_reads_back_and_is_optional() {
        let mut release = sample();
        release.recorded = Some(1_796_389_876);
        let text = release.to_text();
        assert!(
            text.starts_with("embed-assets release 1\nrecorded 1796389876\n"),
            "{text:?}"
        );
        assert_eq!(Release::parse(&text), Ok(release));
        assert_eq!(Release::parse(&sample().to_text()).unwrap().recorded, None);
    }

    #[test]
    fn malformed_lists_are_refused_with_the_line() {
        let good = hash(1);
        for (text, expected) in [
            ("", "not a release list"),
            ("embed-assets release 2\n", "this version reads"),
            (&format!("{HEADER}\n{good}\n") as &str, "line 2: expected"),
            (
                &format!("{HEADER}\nABC index.html\n"),
                "line 2: not a SHA-256",
            ),
            (
                &format!("{HEADER}\n{good} a/../b\n"),
                "line 2: not a relative",
            ),
            (
                &format!("{HEADER}\n{good} /abs\n"),
                "line 2: not a relative",
            ),
            (
                &format!("{HEADER}\n{good} a%FF\n"),
                "line 2: the path is not UTF-8",
            ),
            (
                &format!("{HEADER}\n{good} a\n{good} a\n"),
                "line 3: a path listed twice",
            ),
            (
                &format!("{HEADER}\nrecorded soon\n"),
                "line 2: expected `recorded",
            ),
            (
                &format!("{HEADER}\nrecorded \n"),
                "line 2: expected `recorded",
            ),
            (
                &format!("{HEADER}\nrecorded +5\n"),
                "line 2: expected `recorded",
            ),
            (
                &format!("{HEADER}\nrecorded 99999999999999999999999\n"),
                "line 2: expected `recorded",
            ),
            (
                &format!("{HEADER}\n{good} a\nrecorded 5\n"),
                "line 3: `recorded` belongs right after",
            ),
        ] {
            let err = Release::parse(text).unwrap_err();
            assert!(err.contains(expected), "{text:?}: {err}");
        }
    }

    #[test]
    fn release_files_are_listed_oldest_first_and_others_ignored() {
        let dir = std::env::temp_dir().join(format!("embed-release-list-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(list(&dir).unwrap(), Vec::new(), "no folder, no releases");
        std::fs::create_dir_all(&dir).unwrap();
        for name in [
            file_name(10, "00000000000000aa"),
            file_name(9, "00000000000000bb"),
            "notes.txt".to_owned(),
            "00000001-XYZ.release".to_owned(),
            "1-00000000000000cc.release".to_owned(),
        ] {
            std::fs::write(dir.join(name), "").unwrap();
        }
        let kept = list(&dir).unwrap();
        let found: Vec<_> = kept.iter().map(|k| (k.sequence, k.id.as_str())).collect();
        assert_eq!(found, [(9, "00000000000000bb"), (10, "00000000000000aa")]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn objects_are_named_by_their_hash() {
        let hash = hash(1);
        assert_eq!(
            object_path(&hash),
            Path::new("objects").join(&hash[..2]).join(&hash[2..])
        );
    }
}
