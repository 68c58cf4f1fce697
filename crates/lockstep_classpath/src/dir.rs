//! Walking a class directory (Maven `target/classes`, Gradle
//! `build/classes/java/main`) for `*.class` files.
//!
//! Symbolic links are followed, but each real directory is entered once, so
//! link cycles end. Unreadable directories and broken links become problems
//! and the walk goes on. It does not read file contents and does not check
//! that a file's path matches the class it declares.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::{io_message, Origin, Problem};

/// A `.class` file found under a root.
#[derive(Debug, Clone)]
pub(crate) struct DirClass {
    /// Path relative to the root, `/`-separated (lossy if not UTF-8): the
    /// sort key, and for library directories the class name plus `.class`.
    pub rel: String,
    pub path: PathBuf,
}

impl DirClass {
    /// The internal class name implied by the path (`com/x/A`).
    pub(crate) fn class_name(&self) -> &str {
        self.rel.strip_suffix(".class").unwrap_or(&self.rel)
    }
}

/// Every `*.class` file under `root`, sorted by relative path.
pub(crate) fn class_files(root: &Path, problems: &mut Vec<Problem>) -> Vec<DirClass> {
    let mut found = Vec::new();
    let mut visited: HashSet<PathBuf> = HashSet::new();
    // Canonical paths identify a directory regardless of the links that led
    // to it, which is what ends symlink cycles.
    if let Ok(canonical) = std::fs::canonicalize(root) {
        visited.insert(canonical);
    }
    let mut stack: Vec<(PathBuf, String)> = vec![(root.to_path_buf(), String::new())];
    while let Some((dir, prefix)) = stack.pop() {
        let reader = match std::fs::read_dir(&dir) {
            Ok(reader) => reader,
            Err(e) => {
                problems.push(Problem::new(Origin::file(&dir), io_message(&e)));
                continue;
            }
        };
        for item in reader {
            let item = match item {
                Ok(item) => item,
                Err(e) => {
                    problems.push(Problem::new(Origin::file(&dir), io_message(&e)));
                    continue;
                }
            };
            let path = item.path();
            let name = item.file_name().to_string_lossy().into_owned();
            let rel = format!("{prefix}{name}");
            let file_type = match item.file_type() {
                Ok(t) => t,
                Err(e) => {
                    problems.push(Problem::new(Origin::file(&path), io_message(&e)));
                    continue;
                }
            };
            let (is_dir, is_file) = if file_type.is_symlink() {
                match std::fs::metadata(&path) {
                    Ok(meta) => (meta.is_dir(), meta.is_file()),
                    Err(_) => {
                        // Dangling links are common in build trees; only
                        // complain when one claims to be a class.
                        if name.ends_with(".class") {
                            problems
                                .push(Problem::new(Origin::file(&path), "broken symbolic link"));
                        }
                        continue;
                    }
                }
            } else {
                (file_type.is_dir(), file_type.is_file())
            };
            if is_dir {
                let fresh = match std::fs::canonicalize(&path) {
                    Ok(canonical) => visited.insert(canonical),
                    // Without a canonical name we cannot detect a cycle, so
                    // only descend into real directories: those cannot form
                    // one (there are no hard links to directories).
                    Err(_) => !file_type.is_symlink(),
                };
                if fresh {
                    stack.push((path, format!("{rel}/")));
                }
            } else if is_file && name.ends_with(".class") {
                found.push(DirClass { rel, path });
            }
        }
    }
    found.sort_by(|a, b| a.rel.cmp(&b.rel));
    found
}
