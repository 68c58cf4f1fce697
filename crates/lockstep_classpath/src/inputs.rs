//! Reading every class of the application inputs, eagerly and in a
//! deterministic order: inputs in the order given, entries sorted by class
//! name inside each. Entries are read in parallel (rayon) but collected by
//! index, so the output never depends on scheduling.
//!
//! Archives are read by their layout (`archive`): a Spring Boot jar's or a
//! WAR's own classes are application classes, an EAR's modules are read as
//! nested inputs, and archives with nested libraries or a manifest
//! `Class-Path` are handed back in [`InputSet::libraries`] for the library
//! class path. It does not deduplicate classes across inputs (two inputs
//! defining the same class is something the analysis may want to report).

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::archive::{self, Contents};
use crate::bytes::{map_file, read_file};
use crate::expand;
use crate::jimage::JImage;
use crate::zipfile::{self, Flavor};
use crate::{detect_kind, dir, ClassBytes, InputKind, InputSet, Origin, Problem, ReadOptions};

/// How deep archives nest: an EAR holds a WAR that holds library jars.
pub(crate) const MAX_NESTING: usize = 2;

/// Reads every class of every named input (the application: reported on),
/// with the default [`ReadOptions`].
pub fn read_inputs(paths: &[PathBuf]) -> InputSet {
    read_inputs_with(paths, &ReadOptions::default())
}

/// Reads every class of every named input (the application: reported on).
///
/// Never fails as a whole: each unreadable input or entry becomes a
/// [`Problem`] in the result, in the same order as the classes.
pub fn read_inputs_with(paths: &[PathBuf], options: &ReadOptions) -> InputSet {
    let mut set = InputSet::default();
    for path in paths {
        read_one(path, options, &mut set);
    }
    set
}

fn read_one(path: &Path, options: &ReadOptions, set: &mut InputSet) {
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
        InputKind::Jar => read_zip(path, Flavor::Jar, options, set),
        InputKind::Jmod => read_zip(path, Flavor::Jmod, options, set),
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
    options: &ReadOptions,
    set: &mut InputSet,
) -> Vec<Result<ClassBytes, Problem>> {
    // Application archives are read whole, once; reading avoids the (small)
    // risk of a mapped file changing under us.
    let data = match read_file(path) {
        Ok(data) => data,
        Err(problem) => {
            set.problems.push(problem);
            return Vec::new();
        }
    };
    let file_name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    let mut out = Vec::new();
    let mut nested_libraries = false;
    read_archive(
        &data,
        (flavor, file_name.as_deref().unwrap_or("")),
        (&Origin::file(path), 0),
        options,
        &mut |contents: &Contents, depth: usize, problems: &mut Vec<Problem>| {
            nested_libraries |= !contents.nested_lib.is_empty();
            // Only the outermost archive's manifest `Class-Path` means
            // anything: a nested jar's would be relative to no file.
            if depth == 0 {
                let found = expand::class_path_of(path, &contents.class_path, problems);
                for jar in found {
                    if !set.libraries.contains(&jar) {
                        set.libraries.push(jar);
                    }
                }
            }
        },
        &mut set.problems,
        &mut out,
    );
    if nested_libraries && !set.libraries.iter().any(|p| p == path) {
        set.libraries.push(path.to_path_buf());
    }
    out
}

/// Reads the classes of the archive in `data` (named by `origin`, `depth`
/// archives deep) into `out`, descending into nested application archives;
/// `seen` is shown each archive's contents (for its libraries).
fn read_archive(
    data: &[u8],
    (flavor, file_name): (Flavor, &str),
    (origin, depth): (&Origin, usize),
    options: &ReadOptions,
    seen: &mut dyn FnMut(&Contents, usize, &mut Vec<Problem>),
    problems: &mut Vec<Problem>,
    out: &mut Vec<Result<ClassBytes, Problem>>,
) {
    let (archive, entries) = match zipfile::open(data, origin, problems) {
        Ok(opened) => opened,
        Err(problem) => {
            problems.push(problem);
            return;
        }
    };
    let contents = archive::contents(
        &archive,
        entries,
        (flavor, file_name),
        options.release,
        origin,
        problems,
    );
    seen(&contents, depth, problems);
    out.par_extend(contents.classes.par_iter().map(|class| {
        let origin = origin.child(&class.entry.name);
        match zipfile::read_entry(&archive, &class.entry) {
            Ok(bytes) => Ok(ClassBytes { origin, bytes }),
            Err(message) => Err(Problem::new(origin, message)),
        }
    }));
    for module in &contents.nested_app {
        let child = origin.child(&module.name);
        if depth >= MAX_NESTING {
            problems.push(Problem::new(child, "archive nested too deeply; not read"));
            continue;
        }
        match zipfile::read_nested(&archive, module) {
            Ok(bytes) => read_archive(
                &bytes,
                (Flavor::Jar, &module.name),
                (&child, depth + 1),
                options,
                seen,
                problems,
                out,
            ),
            Err(message) => problems.push(Problem::new(child, message)),
        }
    }
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
