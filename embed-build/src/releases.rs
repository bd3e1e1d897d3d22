//! [`Releases`]: snapshots of the embedded folder, one per release build, kept so that a
//! later build can serve the hashed files earlier releases' pages ask for.

use std::collections::HashSet;
use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use embed_assets_shared::release::{self, Kept, Release};
use sha2::{Digest, Sha256};

use crate::{Error, absolute};

/// The folder of kept releases: after each release build, a snapshot of the folder the
/// crate embeds, so that the next builds still have the hashed files earlier releases'
/// pages load (a page of release N, open in a browser, asks a server of release N+1 for
/// its own chunks during a rolling deploy). The macro's `releases` option serves them:
/// `#[embed_assets::embed("public", fingerprint = true, releases = "releases")]`.
///
/// ```no_run
/// // build.rs
/// fn main() -> Result<(), embed_assets_build::Error> {
///     embed_assets_build::track("public");
///     embed_assets_build::Releases::new("releases").keep(3).record("public")?;
///     Ok(())
/// }
/// ```
///
/// - Only a build of the release profile records (`cargo build --release`, or a profile
///   that inherits it): a debug build's files are no release. Outside a build script
///   (no `PROFILE` in the environment) every call records.
/// - A release is its files' paths and bytes: recording the same files again adds
///   nothing, and a release is identified by them ([`Recorded::id`]), the same on any
///   machine. Bytes are stored once across releases, named by their SHA-256.
/// - The newest [`keep`](Self::keep) releases are kept; older ones, and the bytes no
///   kept release lists, are removed. With [`max_age`](Self::max_age), so is a release
///   replaced longer ago than that, as hosting platforms limit skew protection by count
///   and by age (10 versions, 14 days).
/// - Every file of the folder is recorded, dotfiles (`.vite/manifest.json`) included
///   and symbolic links as the files they name, except files over
///   [`max_file_size`](Self::max_file_size).
///
/// The folder's format is described in `embed_assets_shared::release`; commit it with
/// the crate, or keep it as a CI cache between release builds.
#[derive(Debug, Clone)]
pub struct Releases {
    dir: PathBuf,
    keep: usize,
    max_age: Option<Duration>,
    max_file_size: u64,
}

/// What [`Releases::record`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Recorded {
    /// The id of the release the folder holds now ([`embed_assets_shared::release`]).
    pub id: String,
    /// Whether it was recorded now (`false`: the newest kept release has these files).
    pub new: bool,
    /// File contents stored now (not kept before, by any release).
    pub added_files: usize,
    /// Their bytes.
    pub added_bytes: u64,
    /// The ids of the releases removed now, oldest first.
    pub removed: Vec<String>,
    /// Files not recorded because they are over the size limit, relative to the folder.
    pub too_large: Vec<String>,
}

impl Releases {
    /// The releases kept when [`keep`](Self::keep) is not called.
    pub const DEFAULT_KEEP: usize = 3;

    /// The largest file recorded when [`max_file_size`](Self::max_file_size) is not
    /// called: the macro's default `max_embed_size` (5 MiB). Larger files are served
    /// from disk, never from an earlier release, so a snapshot has no use for them.
    pub const DEFAULT_MAX_FILE_SIZE: u64 = 5 * 1024 * 1024;

    /// The releases folder `dir`, relative to the crate's `Cargo.toml` (it is created
    /// when needed).
    pub fn new(dir: impl Into<PathBuf>) -> Releases {
        Releases {
            dir: dir.into(),
            keep: Self::DEFAULT_KEEP,
            max_age: None,
            max_file_size: Self::DEFAULT_MAX_FILE_SIZE,
        }
    }

    /// How many releases to keep, the one recorded now included (default
    /// [`DEFAULT_KEEP`](Self::DEFAULT_KEEP)); at least 1.
    pub fn keep(mut self, releases: usize) -> Releases {
        self.keep = releases;
        self
    }

    /// How long a release is kept once a newer one replaced it (no limit by default):
    /// a page of the old release still open in a browser that long after the deploy
    /// gets its hashed files; later it is assumed reloaded. A release is replaced when
    /// the next one is recorded (each `.release` file states when it was recorded); the
    /// newest release is always kept, and [`keep`](Self::keep) applies as well.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), embed_assets_build::Error> {
    /// use std::time::Duration;
    /// embed_assets_build::Releases::new("releases")
    ///     .keep(10)
    ///     .max_age(Duration::from_secs(14 * 24 * 60 * 60))
    ///     .record("public")?;
    /// # Ok(()) }
    /// ```
    pub fn max_age(mut self, age: Duration) -> Releases {
        self.max_age = Some(age);
        self
    }

    /// The largest file to record (default
    /// [`DEFAULT_MAX_FILE_SIZE`](Self::DEFAULT_MAX_FILE_SIZE)): set it to the
    /// macro's `max_embed_size` when that is larger.
    pub fn max_file_size(mut self, bytes: u64) -> Releases {
        self.max_file_size = bytes;
        self
    }

    /// Records `folder` (relative to the crate's `Cargo.toml`) as the newest release,
    /// in a release build; returns `None` in a debug build, which records nothing.
    ///
    /// # Errors
    /// When `keep` is 0, the folder cannot be read (or has a name that is not UTF-8),
    /// one folder is inside the other, or the releases folder cannot be written or
    /// holds a release list of another format.
    pub fn record(&self, folder: impl AsRef<Path>) -> Result<Option<Recorded>, Error> {
        println!("cargo:rerun-if-changed={}", folder.as_ref().display());
        if std::env::var("PROFILE").is_ok_and(|profile| profile != "release") {
            return Ok(None);
        }
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |since| since.as_secs());
        self.record_at(folder.as_ref(), now).map(Some)
    }

    /// [`record`](Self::record) at `now` (seconds since the Unix epoch), in any profile.
    fn record_at(&self, folder: &Path, now: u64) -> Result<Recorded, Error> {
        if self.keep == 0 {
            return Err(Error::new(
                "Releases::keep(0): keep at least the release being recorded",
            ));
        }
        let folder = absolute(folder);
        let dir = absolute(&self.dir);
        if dir.starts_with(&folder) || folder.starts_with(&dir) {
            return Err(Error::new(format!(
                "the releases folder {} and the recorded folder {} must not be inside one \
                 another",
                dir.display(),
                folder.display()
            )));
        }
        let (files, too_large) = self.read_folder(&folder)?;
        let mut snapshot = Release {
            recorded: Some(now),
            ..Release::default()
        };
        for found in &files {
            snapshot
                .files
                .insert(found.path.clone(), found.hash.clone());
        }
        let id = snapshot.id();
        let kept = release::list(&dir).map_err(|err| Error::io("reading", &dir, err))?;
        let new = kept.last().is_none_or(|newest| newest.id != id);
        let (mut added_files, mut added_bytes) = (0, 0);
        if new {
            for found in &files {
                if store_object(&dir, &found.hash, &folder.join(&found.path))? {
                    added_files += 1;
                    added_bytes += found.len;
                }
            }
            let sequence = kept.last().map_or(1, |newest| newest.sequence + 1);
            let target = dir.join(release::file_name(sequence, &id));
            write_atomically(&target, snapshot.to_text().as_bytes())?;
        }
        let removed = self.prune(&dir, now)?;
        Ok(Recorded {
            id,
            new,
            added_files,
            added_bytes,
            removed,
            too_large,
        })
    }

    /// Every file of `folder` up to the size limit, and the paths of the larger ones.
    fn read_folder(&self, folder: &Path) -> Result<(Vec<Found>, Vec<String>), Error> {
        if !folder.is_dir() {
            return Err(Error::new(format!(
                "{} is not a folder: nothing to record",
                folder.display()
            )));
        }
        let mut files = Vec::new();
        let mut too_large = Vec::new();
        for entry in walkdir::WalkDir::new(folder)
            .follow_links(true)
            .sort_by_file_name()
        {
            let entry =
                entry.map_err(|err| Error::new(format!("reading {}: {err}", folder.display())))?;
            if !entry.file_type().is_file() {
                continue;
            }
            let relative = entry.path().strip_prefix(folder).unwrap_or(entry.path());
            let Some(path) = relative_path(relative) else {
                return Err(Error::new(format!(
                    "{}: a name that is not UTF-8 cannot be served, so it cannot be recorded",
                    entry.path().display()
                )));
            };
            let len = entry
                .metadata()
                .map_err(|err| Error::new(format!("reading {}: {err}", entry.path().display())))?
                .len();
            if len > self.max_file_size {
                too_large.push(path);
                continue;
            }
            let bytes =
                fs::read(entry.path()).map_err(|err| Error::io("reading", entry.path(), err))?;
            files.push(Found {
                hash: embed_assets_shared::hex(&Sha256::digest(&bytes)),
                len: bytes.len() as u64,
                path,
            });
        }
        Ok((files, too_large))
    }

    /// Removes the releases beyond the newest `keep` and those replaced longer than
    /// `max_age` before `now`, then the bytes no kept release lists; the removed
    /// releases' ids, oldest first.
    fn prune(&self, dir: &Path, now: u64) -> Result<Vec<String>, Error> {
        let kept = release::list(dir).map_err(|err| Error::io("reading", dir, err))?;
        let excess = kept.len().saturating_sub(self.keep);
        let (old, recent) = kept.split_at(excess);
        let lists = recent
            .iter()
            .map(read_release)
            .collect::<Result<Vec<_>, _>>()?;
        // A release is replaced when the next one was recorded; one whose successor
        // states no time (a list written before times were) is not aged out.
        let too_old = |next: Option<&Release>| {
            let replaced = next.and_then(|next| next.recorded);
            self.max_age
                .zip(replaced)
                .is_some_and(|(age, at)| now.saturating_sub(at) > age.as_secs())
        };
        let mut removed: Vec<&Kept> = old.iter().collect();
        let mut listed = HashSet::new();
        for (i, (release, list)) in recent.iter().zip(&lists).enumerate() {
            if too_old(lists.get(i + 1)) {
                removed.push(release);
            } else {
                listed.extend(list.files.values().cloned());
            }
        }
        for release in &removed {
            fs::remove_file(&release.path)
                .map_err(|err| Error::io("removing", &release.path, err))?;
        }
        remove_unlisted_objects(dir, &listed)?;
        Ok(removed.iter().map(|release| release.id.clone()).collect())
    }
}

/// A file of the recorded folder.
struct Found {
    /// Below the folder, `/`-separated.
    path: String,
    /// The SHA-256 of its bytes, lowercase hex.
    hash: String,
    len: u64,
}

/// A kept release's list.
fn read_release(kept: &Kept) -> Result<Release, Error> {
    kept.read().map_err(|why| {
        let folder = kept.path.parent().unwrap_or(Path::new(""));
        Error::new(format!("{}: {why}", folder.display()))
    })
}

/// Copies `source` into the releases folder as the bytes with SHA-256 `hash`, unless
/// they are there; whether it did.
fn store_object(dir: &Path, hash: &str, source: &Path) -> Result<bool, Error> {
    let target = dir.join(release::object_path(hash));
    if target.is_file() {
        return Ok(false);
    }
    let bytes = fs::read(source).map_err(|err| Error::io("reading", source, err))?;
    // The file changed since it was hashed: its release would list other bytes.
    if embed_assets_shared::hex(&Sha256::digest(&bytes)) != hash {
        return Err(Error::new(format!(
            "{} changed while it was recorded: build again",
            source.display()
        )));
    }
    write_atomically(&target, &bytes)?;
    Ok(true)
}

/// Writes `bytes` to a temporary file beside `target`, then renames it: a build that
/// stops half-way leaves no partial file under `target`'s name.
fn write_atomically(target: &Path, bytes: &[u8]) -> Result<(), Error> {
    let parent = target.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(parent).map_err(|err| Error::io("creating", parent, err))?;
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    let temporary = parent.join(format!(".{name}.{}.partial", std::process::id()));
    let written = fs::File::create(&temporary)
        .and_then(|mut file| file.write_all(bytes).and_then(|()| file.sync_all()));
    if let Err(err) = written.and_then(|()| fs::rename(&temporary, target)) {
        let _ = fs::remove_file(&temporary);
        return Err(Error::io("writing", target, err));
    }
    Ok(())
}

/// Removes the objects that no kept release lists (and partial files a stopped build
/// left); other files are not the library's and stay.
fn remove_unlisted_objects(dir: &Path, listed: &HashSet<String>) -> Result<(), Error> {
    let objects = dir.join(release::OBJECTS);
    let shards = match fs::read_dir(&objects) {
        Ok(shards) => shards,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(err) => return Err(Error::io("reading", &objects, err)),
    };
    for shard in shards {
        let shard = shard.map_err(|err| Error::io("reading", &objects, err))?;
        let shard_name = shard.file_name().to_string_lossy().into_owned();
        if !shard.path().is_dir() {
            continue;
        }
        let entries =
            fs::read_dir(shard.path()).map_err(|err| Error::io("reading", &shard.path(), err))?;
        for entry in entries {
            let entry = entry.map_err(|err| Error::io("reading", &shard.path(), err))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let hash = format!("{shard_name}{name}");
            let stale = (release::is_sha256_hex(&hash) && !listed.contains(&hash))
                || (name.starts_with('.') && name.ends_with(".partial"));
            if stale {
                fs::remove_file(entry.path())
                    .map_err(|err| Error::io("removing", &entry.path(), err))?;
            }
        }
        // Emptied shards go too; one that still holds a file stays.
        let _ = fs::remove_dir(shard.path());
    }
    Ok(())
}

/// `css/app.css` from a relative path; `None` if a component is not UTF-8.
fn relative_path(relative: &Path) -> Option<String> {
    let parts: Option<Vec<&str>> = relative
        .components()
        .map(|component| component.as_os_str().to_str())
        .collect();
    Some(parts?.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A temporary crate-like folder with `public/` and `releases/` inside.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(name: &str) -> Scratch {
            let root = std::env::temp_dir().join(format!(
                "embed-build-releases-{}-{name}",
                std::process::id()
            ));
            let _ = fs::remove_dir_all(&root);
            fs::create_dir_all(root.join("public")).unwrap();
            Scratch(root)
        }

        fn write(&self, path: &str, bytes: &[u8]) {
            let path = self.0.join("public").join(path);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, bytes).unwrap();
        }

        fn record(&self, keep: usize) -> Result<Recorded, Error> {
            Releases::new(self.0.join("releases"))
                .keep(keep)
                .record(self.0.join("public"))
                .map(|recorded| recorded.expect("tests run outside a debug build script"))
        }

        fn kept(&self) -> Vec<(Kept, Release)> {
            release::list(&self.0.join("releases"))
                .unwrap()
                .into_iter()
                .map(|kept| {
                    let release = read_release(&kept).unwrap();
                    (kept, release)
                })
                .collect()
        }

        /// Every object file, as hashes.
        fn objects(&self) -> Vec<String> {
            let mut found = Vec::new();
            let objects = self.0.join("releases").join(release::OBJECTS);
            for shard in fs::read_dir(objects).into_iter().flatten().flatten() {
                for entry in fs::read_dir(shard.path()).unwrap().flatten() {
                    found.push(format!(
                        "{}{}",
                        shard.file_name().to_string_lossy(),
                        entry.file_name().to_string_lossy()
                    ));
                }
            }
            found.sort();
            found
        }

        fn object(&self, hash: &str) -> Vec<u8> {
            fs::read(self.0.join("releases").join(release::object_path(hash))).unwrap()
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    fn sha(bytes: &[u8]) -> String {
        embed_assets_shared::hex(&Sha256::digest(bytes))
    }

    #[test]
    fn a_release_is_its_files_and_the_same_files_add_nothing() {
        let scratch = Scratch::new("same");
        scratch.write("index.html", b"<p>one</p>");
        scratch.write("js/app.3f2a1b9c.js", b"console.log(1)");
        scratch.write(".vite/manifest.json", b"{}");
        let first = scratch.record(3).unwrap();
        assert!(first.new);
        assert_eq!((first.added_files, first.added_bytes), (3, 10 + 14 + 2));
        let kept = scratch.kept();
        assert_eq!(kept.len(), 1);
        let (listed, release) = &kept[0];
        assert_eq!(
            (listed.sequence, listed.id.as_str()),
            (1, first.id.as_str())
        );
        assert_eq!(release.id(), first.id, "the id is the list's");
        let paths: Vec<_> = release.files.keys().map(String::as_str).collect();
        assert_eq!(
            paths,
            [".vite/manifest.json", "index.html", "js/app.3f2a1b9c.js"]
        );
        for (path, hash) in &release.files {
            let bytes = fs::read(scratch.0.join("public").join(path)).unwrap();
            assert_eq!(scratch.object(hash), bytes, "{path}: stored as it is");
            assert_eq!(*hash, sha(&bytes));
        }

        let again = scratch.record(3).unwrap();
        assert!(!again.new);
        assert_eq!(again.id, first.id);
        assert_eq!((again.added_files, again.added_bytes), (0, 0));
        assert_eq!(scratch.kept().len(), 1);
    }

    #[test]
    fn a_change_is_a_new_release_that_stores_only_new_bytes() {
        let scratch = Scratch::new("change");
        scratch.write("index.html", b"<p>one</p>");
        scratch.write("a.css", b"same");
        scratch.write("copy.css", b"same");
        let first = scratch.record(3).unwrap();
        assert_eq!(
            first.added_files, 2,
            "two files of the same bytes, stored once"
        );
        scratch.write("index.html", b"<p>two</p>");
        let second = scratch.record(3).unwrap();
        assert!(second.new);
        assert_ne!(second.id, first.id);
        assert_eq!((second.added_files, second.added_bytes), (1, 10));
        let kept = scratch.kept();
        let order: Vec<_> = kept
            .iter()
            .map(|(k, _)| (k.sequence, k.id.clone()))
            .collect();
        assert_eq!(order, [(1, first.id.clone()), (2, second.id.clone())]);
        assert_eq!(scratch.objects().len(), 3);
        // Back to the first files: recorded again as the newest.
        scratch.write("index.html", b"<p>one</p>");
        let third = scratch.record(3).unwrap();
        assert!(third.new);
        assert_eq!(third.id, first.id, "the same files, the same id");
        assert_eq!(third.added_files, 0);
        assert_eq!(scratch.kept().last().unwrap().0.sequence, 3);
    }

    #[test]
    fn only_the_newest_are_kept_and_bytes_no_release_lists_are_removed() {
        let scratch = Scratch::new("prune");
        scratch.write("shared.js", b"kept by all");
        let mut ids = Vec::new();
        for version in 1..=4 {
            scratch.write("index.html", format!("<p>{version}</p>").as_bytes());
            ids.push(scratch.record(2).unwrap().id);
        }
        let kept = scratch.kept();
        let kept_ids: Vec<_> = kept.iter().map(|(k, _)| k.id.clone()).collect();
        assert_eq!(kept_ids, ids[2..]);
        let mut expected = vec![sha(b"kept by all"), sha(b"<p>3</p>"), sha(b"<p>4</p>")];
        expected.sort();
        assert_eq!(
            scratch.objects(),
            expected,
            "releases 1 and 2's pages are gone"
        );
        // Keeping fewer prunes at once, even when nothing new is recorded.
        let recorded = scratch.record(1).unwrap();
        assert!(!recorded.new);
        assert_eq!(recorded.removed, [ids[2].clone()]);
        assert_eq!(scratch.kept().len(), 1);
        assert_eq!(scratch.objects().len(), 2);
    }

    #[test]
    fn a_release_replaced_longer_ago_than_max_age_is_removed() {
        const DAY: u64 = 24 * 60 * 60;
        let scratch = Scratch::new("age");
        let releases = Releases::new(scratch.0.join("releases"))
            .keep(10)
            .max_age(Duration::from_secs(14 * DAY));
        let public = scratch.0.join("public");
        let start = 1_796_000_000;
        let mut ids = Vec::new();
        for (n, day) in [0, 1, 2].into_iter().enumerate() {
            scratch.write("index.html", format!("<p>{n}</p>").as_bytes());
            let recorded = releases.record_at(&public, start + day * DAY).unwrap();
            assert!(recorded.removed.is_empty(), "release {n}: {recorded:?}");
            ids.push(recorded.id);
        }
        let times: Vec<_> = scratch.kept().iter().map(|(_, r)| r.recorded).collect();
        assert_eq!(times, [0, 1, 2].map(|day| Some(start + day * DAY)));
        // Day 16: release 0 was replaced on day 1, 15 days ago; release 1 on day 2, 14
        // days ago, which is not longer than the limit.
        scratch.write("index.html", b"<p>3</p>");
        let recorded = releases.record_at(&public, start + 16 * DAY).unwrap();
        assert_eq!(recorded.removed, [ids[0].clone()]);
        ids.push(recorded.id);
        // A year later, with nothing new: all but the newest were replaced long ago.
        let recorded = releases.record_at(&public, start + 365 * DAY).unwrap();
        assert!(!recorded.new);
        assert_eq!(recorded.removed, [ids[1].clone(), ids[2].clone()]);
        let kept: Vec<_> = scratch.kept().into_iter().map(|(k, _)| k.id).collect();
        assert_eq!(kept, [ids[3].clone()], "the newest release is always kept");
        assert_eq!(scratch.objects(), [sha(b"<p>3</p>")], "only its bytes stay");
    }

    #[test]
    fn a_release_replaced_by_a_list_without_a_time_is_not_aged_out() {
        let scratch = Scratch::new("no-time");
        let public = scratch.0.join("public");
        let releases = Releases::new(scratch.0.join("releases")).max_age(Duration::ZERO);
        scratch.write("index.html", b"<p>old</p>");
        let old = releases.record_at(&public, 1_000).unwrap();
        scratch.write("index.html", b"<p>new</p>");
        let new = releases.record_at(&public, 2_000).unwrap();
        assert_eq!(new.removed, Vec::<String>::new(), "replaced just now");
        // The newer list rewritten as lists were before they stated a time: when the
        // old release was replaced is unknown, so age does not remove it.
        let (kept, mut list) = scratch.kept().remove(1);
        list.recorded = None;
        fs::write(&kept.path, list.to_text()).unwrap();
        let later = releases.record_at(&public, 9_000).unwrap();
        assert!(later.removed.is_empty(), "{later:?}");
        assert_eq!(scratch.kept().len(), 2);
        // Put its time back, and the old release is aged out.
        list.recorded = Some(2_000);
        fs::write(&kept.path, list.to_text()).unwrap();
        let later = releases.record_at(&public, 9_000).unwrap();
        assert_eq!(later.removed, [old.id]);
    }

    #[test]
    fn large_files_are_left_out_and_named() {
        let scratch = Scratch::new("large");
        scratch.write("index.html", b"<p>page</p>");
        scratch.write("video/intro.mp4", &[7; 2048]);
        let recorded = Releases::new(scratch.0.join("releases"))
            .max_file_size(1024)
            .record(scratch.0.join("public"))
            .unwrap()
            .unwrap();
        assert_eq!(recorded.too_large, ["video/intro.mp4"]);
        let (_, release) = &scratch.kept()[0];
        assert_eq!(release.files.keys().collect::<Vec<_>>(), ["index.html"]);
    }

    #[test]
    fn bad_set_ups_are_errors_that_say_what_to_change() {
        let scratch = Scratch::new("errors");
        scratch.write("index.html", b"x");
        let public = scratch.0.join("public");
        let err = |result: Result<Option<Recorded>, Error>| result.unwrap_err().to_string();
        let message = err(Releases::new(scratch.0.join("releases"))
            .keep(0)
            .record(&public));
        assert!(message.contains("keep(0)"), "{message}");
        let message = err(Releases::new(public.join("releases")).record(&public));
        assert!(
            message.contains("must not be inside one another"),
            "{message}"
        );
        let message = err(Releases::new(scratch.0.join("releases")).record(scratch.0.join("nope")));
        assert!(message.contains("is not a folder"), "{message}");
        // A list of another format is never rewritten or removed.
        let dir = scratch.0.join("releases");
        fs::create_dir_all(&dir).unwrap();
        let foreign = dir.join(release::file_name(1, "0123456789abcdef"));
        fs::write(&foreign, "embed-assets release 2\n").unwrap();
        let message = err(Releases::new(&dir).record(&public));
        assert!(message.contains("this version reads"), "{message}");
        assert!(foreign.is_file());
    }

    #[test]
    fn only_a_release_build_records() {
        // Build scripts see PROFILE; a test binary does not, and sets it only in a
        // child process, so that no other test sees it.
        if std::env::var_os("EMBED_BUILD_TEST_PROFILE").is_none() {
            for (profile, records) in [("debug", false), ("release", true)] {
                let status = std::process::Command::new(std::env::current_exe().unwrap())
                    .args(["--exact", "releases::tests::only_a_release_build_records"])
                    .env("EMBED_BUILD_TEST_PROFILE", profile)
                    .env("PROFILE", profile)
                    .env("EXPECT_RECORD", if records { "1" } else { "0" })
                    .status()
                    .unwrap();
                assert!(status.success(), "PROFILE={profile}");
            }
            return;
        }
        let profile = std::env::var("EMBED_BUILD_TEST_PROFILE").unwrap();
        let scratch = Scratch::new(&format!("profile-{profile}"));
        scratch.write("index.html", b"x");
        let recorded = Releases::new(scratch.0.join("releases"))
            .record(scratch.0.join("public"))
            .unwrap();
        let expected = std::env::var("EXPECT_RECORD").unwrap() == "1";
        assert_eq!(recorded.is_some(), expected);
        assert_eq!(scratch.kept().len(), usize::from(expected));
    }
}
