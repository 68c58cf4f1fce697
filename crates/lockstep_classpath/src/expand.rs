//! Expanding a class path as `java` does before anything is read:
//!
//! * `dir/*` is every jar directly in `dir` (`.jar`/`.JAR`), sorted by
//!   name (the JVM leaves the order unspecified; sorting keeps output
//!   deterministic);
//! * a directory that holds jars and no class files is read as its jars
//!   (a module path or a `lib/` folder; `java` itself would not);
//! * a jar's manifest `Class-Path` adds jars and directories relative to
//!   the jar, right after it, recursively; each path is read once.
//!
//! It does not check that the results are readable: [`crate::Library`]
//! reports those problems when it indexes them. `Class-Path` entries that
//! do not exist are reported here, since the JVM would skip them silently.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::bytes::map_file;
use crate::manifest::{self, Manifest};
use crate::{detect_kind, dir, io_message, zipfile, InputKind, Origin, Problem};

/// The paths `entries` stand for, in class-path order, each once, with the
/// problems met (a wildcard on a missing directory, a dangling manifest
/// `Class-Path` entry).
pub fn expand_classpath(entries: &[PathBuf]) -> (Vec<PathBuf>, Vec<Problem>) {
    let mut expansion = Expansion::default();
    for entry in entries {
        expansion.entry(entry);
    }
    (expansion.paths, expansion.problems)
}

/// The existing paths a jar's manifest `Class-Path` names, resolved
/// against the jar's directory; missing ones become problems.
pub(crate) fn class_path_of(
    jar: &Path,
    class_path: &[String],
    problems: &mut Vec<Problem>,
) -> Vec<PathBuf> {
    let base = jar.parent().unwrap_or(Path::new(""));
    let mut found = Vec::new();
    for written in class_path {
        // Absolute `file:` URLs name a path; other schemes cannot be read.
        let relative = written.strip_prefix("file:").unwrap_or(written);
        if relative.contains("://") {
            continue;
        }
        let path = base.join(relative);
        if path.exists() {
            found.push(path);
        } else {
            problems.push(Problem::new(
                Origin::file(&path),
                format!(
                    "no such file or directory (named by the manifest Class-Path of {})",
                    jar.display()
                ),
            ));
        }
    }
    found
}

#[derive(Default)]
struct Expansion {
    paths: Vec<PathBuf>,
    problems: Vec<Problem>,
    /// Canonical paths already added (the path itself when it has none).
    seen: HashSet<PathBuf>,
}

impl Expansion {
    fn entry(&mut self, entry: &Path) {
        if entry.file_name().is_some_and(|n| n == "*") {
            let dir = match entry.parent() {
                Some(p) if !p.as_os_str().is_empty() => p,
                _ => Path::new("."),
            };
            self.jars_in(dir, entry);
        } else if entry.is_dir() && holds_jars_only(entry) {
            self.jars_in(entry, entry);
        } else {
            self.add(entry);
        }
    }

    fn jars_in(&mut self, dir: &Path, written: &Path) {
        let reader = match std::fs::read_dir(dir) {
            Ok(reader) => reader,
            Err(e) => {
                self.problems
                    .push(Problem::new(Origin::file(written), io_message(&e)));
                return;
            }
        };
        let mut jars: Vec<PathBuf> = reader
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| is_jar_name(p) && p.is_file())
            .collect();
        jars.sort();
        for jar in jars {
            self.add(&jar);
        }
    }

    /// Adds `path` once, then what its manifest's `Class-Path` names.
    fn add(&mut self, path: &Path) {
        let key = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        if !self.seen.insert(key) {
            return;
        }
        self.paths.push(path.to_path_buf());
        if let Some(manifest) = manifest_of(path) {
            for next in class_path_of(path, &manifest.class_path, &mut self.problems) {
                self.entry(&next);
            }
        }
    }
}

fn is_jar_name(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("jar"))
}

/// A directory with jars directly in it and no class file anywhere below.
fn holds_jars_only(dir: &Path) -> bool {
    let has_jar = std::fs::read_dir(dir).is_ok_and(|reader| {
        reader
            .filter_map(Result::ok)
            .any(|e| is_jar_name(&e.path()))
    });
    // Problems of the walk are the library's to report when it indexes.
    has_jar && dir::class_files(dir, &mut Vec::new()).is_empty()
}

/// The manifest of a jar, if `path` is a readable jar that has one.
/// Unreadable jars are left for the library to report.
fn manifest_of(path: &Path) -> Option<Manifest> {
    if detect_kind(path).ok()? != InputKind::Jar {
        return None;
    }
    let data = map_file(path).ok()?;
    let origin = Origin::file(path);
    let (archive, entries) = zipfile::open(data, &origin, &mut Vec::new()).ok()?;
    let entry = entries.iter().find(|e| e.name == manifest::MANIFEST)?;
    let bytes = zipfile::read_entry(&archive, entry).ok()?;
    Some(manifest::parse(&bytes))
}
