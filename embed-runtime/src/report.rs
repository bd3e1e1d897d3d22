//! What the assets tell about themselves: what one embedded folder costs the binary
//! ([`Report`], [`Stored`]: for a start-up log), the releases it serves files of
//! ([`Release`], from [`Assets::releases`](crate::Assets::releases)), and a file on
//! disk that cannot be served ([`DiskProblem`], in an [`Error`](crate::Error) of
//! [`check_disk`](crate::ServeAssets::check_disk)).

use std::fmt;

pub use crate::error::DiskProblem;

use crate::coding::{CODINGS, Encoding};

/// Counts and sizes of one embedded folder, from
/// [`Assets::report`](crate::Assets::report).
///
/// ```
/// # use embed_assets::{embed_assets, Assets, Encoding};
/// static ASSETS: Assets = embed_assets!("../examples/public");
///
/// let report = ASSETS.report();
/// println!("{report}"); // one line, for a start-up log
/// assert_eq!(report.files, ASSETS.len());
/// assert!(report.coding(Encoding::Brotli).bytes < report.identity_bytes);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Report {
    /// Every listed file, embedded or on disk.
    pub files: usize,
    /// Files whose bytes are in the binary.
    pub embedded: usize,
    /// The embedded files' own (identity) bytes.
    pub identity_bytes: u64,
    /// Embedded files stored only compressed (`compressed_only`), whose own bytes are
    /// decoded from gzip when first needed.
    pub decoded_on_demand: usize,
    /// Their own bytes, which the binary does not carry.
    pub decoded_on_demand_bytes: u64,
    /// Files over `max_embed_size`, served from disk.
    pub on_disk: usize,
    /// Their size at build time.
    pub on_disk_bytes: u64,
    /// Files kept from earlier releases (the macro's `releases` option), counted in
    /// the figures above too.
    pub earlier_release_files: usize,
    /// The bytes the binary carries for them: stored identity and encoded bodies.
    pub earlier_release_bytes: u64,
    /// Files with bodies compressed against their earlier versions
    /// ([`Asset::deltas`](crate::Asset::deltas)).
    pub delta_files: usize,
    /// Bytes of all those bodies.
    pub delta_bytes: u64,
    /// The encoded bodies, per coding in [`Encoding::ALL`]'s order (identity's entry
    /// unused: see `identity_bytes`).
    pub(crate) encoded: [Stored; CODINGS.len()],
}

/// The bodies of one content coding in a [`Report`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Stored {
    /// Embedded files with at least one body in the coding.
    pub files: usize,
    /// Bytes of all those bodies.
    pub bytes: u64,
}

impl Report {
    /// The bodies stored in `encoding`; for [`Encoding::Identity`], the embedded files
    /// whose own bytes the binary carries.
    ///
    /// ```
    /// # use embed_assets::{embed_assets, Assets, Encoding};
    /// static ASSETS: Assets = embed_assets!("../examples/public");
    /// let report = ASSETS.report();
    /// let (br, gzip) = (report.coding(Encoding::Brotli), report.coding(Encoding::Gzip));
    /// assert!(br.files > 0 && br.bytes < gzip.bytes);
    /// ```
    pub fn coding(&self, encoding: Encoding) -> Stored {
        match encoding {
            Encoding::Identity => Stored {
                files: self.embedded - self.decoded_on_demand,
                bytes: self.identity_bytes - self.decoded_on_demand_bytes,
            },
            encoding => self.encoded[encoding.index()],
        }
    }

    /// Bytes the binary carries for these assets: the stored identity bodies plus the
    /// encoded ones, those compressed against earlier versions included.
    pub fn stored_bytes(&self) -> u64 {
        Encoding::ALL
            .into_iter()
            .map(|encoding| self.coding(encoding).bytes)
            .sum()
    }

    /// Counts `bodies`, the stored bodies of one embedded asset, identity last.
    pub(crate) fn add_bodies(&mut self, bodies: &[crate::Variant]) {
        let mut seen = [false; CODINGS.len()];
        for body in bodies {
            let encoding = body.encoding();
            if encoding == Encoding::Identity {
                continue;
            }
            let index = encoding.index();
            self.encoded[index].bytes += body.len();
            if !std::mem::replace(&mut seen[index], true) {
                self.encoded[index].files += 1;
            }
        }
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} embedded ({}; {} stored",
            Count(self.files, "file"),
            self.embedded,
            Size(self.identity_bytes),
            Size(self.stored_bytes()),
        )?;
        let mut first = true;
        for coding in CODINGS.iter().filter(|coding| !coding.needs_dictionary) {
            let stored = self.encoded[coding.encoding.index()];
            if coding.encoding == Encoding::Identity || stored.files == 0 {
                continue;
            }
            let lead = if std::mem::take(&mut first) {
                " with"
            } else {
                ","
            };
            write!(
                f,
                "{lead} {} for {} ({})",
                coding.token,
                Count(stored.files, "file"),
                Size(stored.bytes)
            )?;
        }
        if self.decoded_on_demand > 0 {
            write!(
                f,
                ", {} decoded from gzip on demand ({})",
                self.decoded_on_demand,
                Size(self.decoded_on_demand_bytes)
            )?;
        }
        write!(
            f,
            "), {} on disk ({})",
            self.on_disk,
            Size(self.on_disk_bytes),
        )?;
        if self.earlier_release_files > 0 {
            write!(
                f,
                "; {} of earlier releases ({} stored)",
                Count(self.earlier_release_files, "file"),
                Size(self.earlier_release_bytes)
            )?;
        }
        if self.delta_files > 0 {
            write!(
                f,
                "; {} compressed against earlier versions ({})",
                Count(self.delta_files, "file"),
                Size(self.delta_bytes)
            )?;
        }
        Ok(())
    }
}

/// A count of things, singular for one: `1 file`, `2 files`.
struct Count(usize, &'static str);

impl fmt::Display for Count {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plural = if self.0 == 1 { "" } else { "s" };
        write!(f, "{} {}{plural}", self.0, self.1)
    }
}

/// A byte count in binary units, for reports.
struct Size(u64);

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
        if self.0 < 1024 {
            return write!(f, "{} B", self.0);
        }
        let mut value = self.0 as f64 / 1024.0;
        let mut unit = 0;
        while value >= 1024.0 && unit < UNITS.len() - 1 {
            value /= 1024.0;
            unit += 1;
        }
        write!(f, "{value:.1} {}", UNITS[unit])
    }
}

/// A release the macro's `releases` option found kept (this build's too, when it is
/// recorded): its id and when it was recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Release {
    pub(crate) id: &'static str,
    pub(crate) recorded: Option<u64>,
}

impl Release {
    /// Its id: the first 16 hex digits of the SHA-256 of its list of files, the same
    /// for the same files on any machine.
    pub fn id(&self) -> &'static str {
        self.id
    }

    /// When `embed_assets_build::Releases` recorded it; `None` for a list written
    /// before recording times were kept.
    pub fn recorded(&self) -> Option<std::time::SystemTime> {
        self.recorded
            .map(|secs| std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs))
    }

    /// [`recorded`](Self::recorded) in whole seconds since the Unix epoch.
    pub fn recorded_secs(&self) -> Option<u64> {
        self.recorded
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_file_is_one_file_not_one_files() {
        let mut report = Report {
            files: 1,
            embedded: 1,
            ..Report::default()
        };
        report.encoded[Encoding::Brotli.index()].files = 1;
        let text = report.to_string();
        assert!(text.starts_with("1 file: 1 embedded"), "{text}");
        assert!(text.contains("with br for 1 file ("), "{text}");
        assert!(!text.contains("1 files"), "{text}");
        let two = Report {
            files: 2,
            ..Report::default()
        };
        assert!(two.to_string().starts_with("2 files:"), "{two}");
    }
}
