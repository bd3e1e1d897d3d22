//! The runtime's error type.

use std::fmt;
use std::io;

/// Why a response body could not be sent in full.
///
/// Only bodies read from disk can fail; embedded bodies never do. When a body fails,
/// the server closes the connection, so a client never takes short bytes for a whole
/// file.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// Reading an on-disk asset failed.
    Read(io::Error),
    /// An on-disk asset changed (was truncated or replaced) while it was being sent.
    Changed,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Read(_) => f.write_str("reading an on-disk asset failed"),
            Error::Changed => f.write_str("an on-disk asset changed while it was being sent"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Read(err) => Some(err),
            Error::Changed => None,
        }
    }
}
