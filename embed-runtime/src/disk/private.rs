//! The private files of `serve`'s ACME side (feature `acme`): its cache folder, readable
//! by its owner alone, and files written whole or not at all (the account's key, the
//! certificate's key).

use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

/// Creates `folder` (readable by its owner alone, on Unix) if missing, and checks that
/// a file can be written in it.
pub(crate) fn make_private_folder(folder: &Path) -> io::Result<()> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(folder)?;
    write_private(&folder.join(".written"), b"")?;
    fs::remove_file(folder.join(".written"))
}

/// Writes `contents` to `path` whole or not at all (a file beside it, then renamed over
/// it), readable by its owner alone on Unix.
pub(crate) fn write_private(path: &Path, contents: &[u8]) -> io::Result<()> {
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(".new");
    let temporary = PathBuf::from(temporary);
    let mut options = fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(&temporary)?;
    file.write_all(contents)?;
    file.sync_all()?;
    drop(file);
    fs::rename(&temporary, path)
}
