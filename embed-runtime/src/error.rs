//! The runtime's error type.

use std::fmt;
use std::io;
use std::path::PathBuf;

/// Why a response body could not be sent in full.
///
/// Only bodies read from disk can fail; embedded bodies never do. When a body fails,
/// the server closes the connection, so a client never takes short bytes for a whole
/// file. [`ServeAssets::check_disk`](crate::ServeAssets::check_disk) returns
/// [`Error::Disk`] at start-up:
///
/// ```
/// # use embed_assets::{embed_assets, Assets};
/// static ASSETS: Assets = embed_assets!("../examples/public", max_embed_size = "1 KiB");
///
/// let service = ASSETS.service().disk_root("/nonexistent/media");
/// match service.check_disk() {
///     Err(embed_assets::Error::Disk(problems)) => {
///         for problem in &problems {
///             eprintln!("cannot serve {}: {}", problem.asset, problem.source);
///         }
///         assert!(!problems.is_empty());
///     }
///     other => panic!("{other:?}"),
/// }
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// Reading an on-disk asset failed.
    Read(io::Error),
    /// An on-disk asset changed (was truncated or replaced) while it was being sent.
    Changed,
    /// The start-up check found on-disk assets that cannot be served; every one is
    /// listed.
    Disk(Vec<DiskProblem>),
    /// The folder of [`ServeAssets::folder`](crate::ServeAssets::folder) cannot be
    /// served: it is missing, not a folder, or unreadable. Returned by
    /// [`check_disk`](crate::ServeAssets::check_disk), and by
    /// [`Server::serve`](crate::Server::serve) before it listens.
    Folder(DiskProblem),
}

/// One on-disk asset that [`ServeAssets::check_disk`](crate::ServeAssets::check_disk)
/// could not serve; see [`Error`] for an example.
#[derive(Debug)]
pub struct DiskProblem {
    /// Where it was looked for.
    pub path: PathBuf,
    /// Its URL path.
    pub asset: &'static str,
    /// What went wrong: not found, not a file, permission denied, ...
    pub source: io::Error,
}

impl fmt::Display for DiskProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({}): {}",
            self.asset,
            self.path.display(),
            self.source
        )
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Read(_) => f.write_str("reading an on-disk asset failed"),
            Error::Changed => f.write_str("an on-disk asset changed while it was being sent"),
            Error::Disk(problems) => {
                write!(f, "{} on-disk asset(s) cannot be served:", problems.len())?;
                for problem in problems {
                    write!(f, "\n  {problem}")?;
                }
                Ok(())
            }
            Error::Folder(problem) => write!(
                f,
                "the folder {} cannot be served: {}",
                problem.path.display(),
                problem.source
            ),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Read(err) => Some(err),
            Error::Changed | Error::Disk(_) | Error::Folder(_) => None,
        }
    }
}
