//! Reading every class of the application inputs, eagerly and in a
//! deterministic order: inputs in the order given, entries sorted by name
//! inside each. Entries are read in parallel (rayon) but collected by index,
//! so the output never depends on scheduling.
//!
//! It does not deduplicate classes across inputs (two inputs defining the
//! same class is something the analysis may want to report) and does not
//! apply multi-release jar overrides.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::bytes::{map_file, read_file};
use crate::jimage::JImage;
use crate::zipfile::{self, Flavor};
use crate::{detect_kind, dir, ClassBytes, InputKind, InputSet, Origin, Problem};

/// Reads every class of every named input (the application: reported on).
///
/// Never fails as a whole: each unreadable input or entry becomes a
/// [`Problem`] in the result, in the same order as the classes.
pub fn read_inputs(paths: &[PathBuf]) -> InputSet {
    let mut set = InputSet::default();
    for path in paths {
        read_one(path, &mut set);
    }
    set
}

fn read_one(path: &Path, set: &mut InputSet) {
    let kind = match detect_kind(path) {
        Ok(kind) => kind,
        Err(problem) => {
            set.problems.push(problem);
            return;
        }
    };
    let results: Vec<Result<ClassBytes, Problem>> = match kind {
        InputKind::ClassFile => vec![read_file(path).map(|bytes| ClassBytes {
            origin: Origin::file(path),
            bytes,
        })],
        InputKind::Directory => {
            let files = dir::class_files(path, &mut set.problems);
            files
                .par_iter()
                .map(|f| {
                    read_file(&f.path).map(|bytes| ClassBytes {
                        origin: Origin::file(&f.path),
                        bytes,
                    })
                })
                .collect()
        }
        InputKind::Jar => read_zip(path, Flavor::Jar, &mut set.problems),
        InputKind::Jmod => read_zip(path, Flavor::Jmod, &mut set.problems),
        InputKind::JImage => read_image(path, &mut set.problems),
    };
    for result in results {
        match result {
            Ok(class) => set.classes.push(class),
            Err(problem) => set.problems.push(problem),
        }
    }
}

fn read_zip(
    path: &Path,
    flavor: Flavor,
    problems: &mut Vec<Problem>,
) -> Vec<Result<ClassBytes, Problem>> {
    // Application archives are read whole, once; reading avoids the (small)
    // risk of a mapped file changing under us.
    let data = match read_file(path) {
        Ok(data) => data,
        Err(problem) => {
            problems.push(problem);
            return Vec::new();
        }
    };
    let (archive, mut entries) = match zipfile::open(&data[..], flavor, path, problems) {
        Ok(opened) => opened,
        Err(problem) => {
            problems.push(problem);
            return Vec::new();
        }
    };
    // Stable: among duplicate names the central directory's first stays first.
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    let mut unique = Vec::with_capacity(entries.len());
    for entry in entries {
        let duplicate = unique
            .last()
            .is_some_and(|prev: &zipfile::ZipClassEntry| prev.name == entry.name);
        if duplicate {
            problems.push(Problem::new(
                Origin::entry(path, entry.name),
                "duplicate entry in the central directory; using the first",
            ));
        } else {
            unique.push(entry);
        }
    }
    unique
        .par_iter()
        .map(|entry| {
            let origin = Origin::entry(path, entry.name.clone());
            match zipfile::read_entry(&archive, entry) {
                Ok(bytes) => Ok(ClassBytes { origin, bytes }),
                Err(message) => Err(Problem::new(origin, message)),
            }
        })
        .collect()
}

fn read_image(path: &Path, problems: &mut Vec<Problem>) -> Vec<Result<ClassBytes, Problem>> {
    let data = match map_file(path) {
        Ok(data) => data,
        Err(problem) => {
            problems.push(problem);
            return Vec::new();
        }
    };
    let image = match JImage::parse(data) {
        Ok(image) => image,
        Err(message) => {
            problems.push(Problem::new(Origin::file(path), message));
            return Vec::new();
        }
    };
    let (classes, errors) = image.classes();
    problems.extend(
        errors
            .into_iter()
            .map(|m| Problem::new(Origin::file(path), m)),
    );
    let mut named: Vec<(String, u32)> = classes
        .into_iter()
        .map(|c| (c.full_name(), c.slot))
        .collect();
    named.sort();
    named
        .par_iter()
        .map(|(name, slot)| {
            let origin = Origin::entry(path, name.clone());
            match image.read_slot(*slot) {
                Ok(bytes) => Ok(ClassBytes { origin, bytes }),
                Err(message) => Err(Problem::new(origin, message)),
            }
        })
        .collect()
}
