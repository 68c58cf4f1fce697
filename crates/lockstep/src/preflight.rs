//! Checks made before the analysis starts, so that a mistake costs a
//! second rather than the minutes of a whole analysis: the report file
//! can be written.

use std::fs::OpenOptions;
use std::path::Path;

/// Whether the report can be written to `path`: opened for writing
/// without truncating it (an existing report survives a failed run), and
/// removed again when this check created it.
pub fn writable(path: &Path) -> Result<(), String> {
    if path.is_dir() {
        return Err(format!("{}: is a directory", path.display()));
    }
    let existed = path.exists();
    OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    if !existed {
        // Best effort: the file is written again at the end anyway.
        let _ = std::fs::remove_file(path);
    }
    Ok(())
}
