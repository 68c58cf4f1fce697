//! What a zip-format archive holds for a class path, by its layout:
//!
//! * a plain jar: classes at their package path; in a multi-release jar
//!   (`Multi-Release: true`) `META-INF/versions/N/` overrides the base class
//!   for every `N` from 9 up to the release in use, the highest winning;
//! * a jmod: classes under `classes/`;
//! * a Spring Boot jar (`BOOT-INF/`): classes under `BOOT-INF/classes/`,
//!   libraries `BOOT-INF/lib/*.jar`;
//! * a WAR (`WEB-INF/`): classes under `WEB-INF/classes/`, libraries
//!   `WEB-INF/lib/*.jar`;
//! * an EAR (`.ear`, or a zip with top-level `.war` modules or
//!   `META-INF/application.xml`): top-level `.war`/`.jar` modules are
//!   application archives, `lib/*.jar` are libraries.
//!
//! It decides and lists; reading nested archives is the caller's (inputs
//! read them eagerly, the library indexes them). It does not know Spring
//! Boot's `classpath.idx` or layer files, nor EAR deployment descriptors
//! beyond their presence.

use std::collections::BTreeMap;

use rawzip::ZipSliceArchive;

use crate::manifest::{self, Manifest};
use crate::zipfile::{self, class_name_in, class_name_of, Flavor, ZipEntry};
use crate::{Origin, Problem};

use crate::manifest::MANIFEST;
const VERSIONS: &str = "META-INF/versions/";
/// Multi-release versions start at Java 9; lower directories are ignored.
const FIRST_VERSION: u16 = 9;

/// One class of an archive, after multi-release resolution.
#[derive(Debug, Clone)]
pub(crate) struct ClassEntry {
    /// Internal class name, `com/x/A`.
    pub class: String,
    pub entry: ZipEntry,
}

/// Everything of an archive that matters for a class path.
#[derive(Debug, Default)]
pub(crate) struct Contents {
    /// One entry per class name, sorted by entry name.
    pub classes: Vec<ClassEntry>,
    /// Nested archives of application code (EAR modules), by entry name.
    pub nested_app: Vec<ZipEntry>,
    /// Nested library archives (`BOOT-INF/lib`, `WEB-INF/lib`, EAR `lib/`).
    pub nested_lib: Vec<ZipEntry>,
    /// The manifest's `Class-Path`, as written (relative to the archive).
    pub class_path: Vec<String>,
}

/// The layouts of the module docs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layout {
    Plain(&'static str),
    Boot,
    Web,
    Enterprise,
}

impl Layout {
    fn of(flavor: Flavor, file_name: &str, entries: &[ZipEntry]) -> Layout {
        if flavor == Flavor::Jmod {
            return Layout::Plain(flavor.prefix());
        }
        let any = |prefix: &str| entries.iter().any(|e| e.name.starts_with(prefix));
        if any("BOOT-INF/classes/") || any("BOOT-INF/lib/") {
            Layout::Boot
        } else if any("WEB-INF/classes/") || any("WEB-INF/lib/") {
            Layout::Web
        } else if file_name.to_ascii_lowercase().ends_with(".ear")
            || entries.iter().any(|e| {
                e.name == "META-INF/application.xml"
                    || (!e.name.contains('/') && e.name.to_ascii_lowercase().ends_with(".war"))
            })
        {
            Layout::Enterprise
        } else {
            Layout::Plain("")
        }
    }
}

/// Sorts `entries` of the archive named by `origin` (whose file name is
/// `file_name`) into classes, nested archives and the manifest class path.
/// `release` picks multi-release versions.
pub(crate) fn contents<T: AsRef<[u8]>>(
    archive: &ZipSliceArchive<T>,
    entries: Vec<ZipEntry>,
    (flavor, file_name): (Flavor, &str),
    release: u16,
    origin: &Origin,
    problems: &mut Vec<Problem>,
) -> Contents {
    let manifest = read_manifest(archive, &entries, origin, problems);
    let layout = Layout::of(flavor, file_name, &entries);
    let mut contents = Contents {
        class_path: manifest.class_path.clone(),
        ..Contents::default()
    };
    // (class, version) -> entry; the first of duplicate names wins.
    let mut classes: BTreeMap<(String, u16), ZipEntry> = BTreeMap::new();
    for entry in entries {
        match classify(&entry.name, layout, &manifest, release) {
            Kind::Class(class, version) => match classes.entry((class.to_string(), version)) {
                std::collections::btree_map::Entry::Occupied(_) => {
                    problems.push(Problem::new(
                        origin.child(&entry.name),
                        "duplicate entry in the central directory; using the first",
                    ));
                }
                std::collections::btree_map::Entry::Vacant(slot) => {
                    slot.insert(entry);
                }
            },
            Kind::App => contents.nested_app.push(entry),
            Kind::Lib => contents.nested_lib.push(entry),
            Kind::Other => {}
        }
    }
    // Keys sort by class then version, so the last of each class is the
    // highest version that applies.
    for ((class, _), entry) in classes {
        match contents.classes.last_mut() {
            Some(last) if last.class == class => last.entry = entry,
            _ => contents.classes.push(ClassEntry { class, entry }),
        }
    }
    // Entry order, as inputs were always read (`a/B$1` before `a/B`).
    contents
        .classes
        .sort_by(|a, b| a.entry.name.cmp(&b.entry.name));
    contents.nested_app.sort_by(|a, b| a.name.cmp(&b.name));
    contents.nested_lib.sort_by(|a, b| a.name.cmp(&b.name));
    contents
}

enum Kind<'a> {
    /// A class and the multi-release version it is for (0: base).
    Class(&'a str, u16),
    App,
    Lib,
    Other,
}

fn classify<'a>(name: &'a str, layout: Layout, manifest: &Manifest, release: u16) -> Kind<'a> {
    let nested_jar = |prefix: &str| {
        name.strip_prefix(prefix)
            .is_some_and(|rest| !rest.contains('/') && rest.to_ascii_lowercase().ends_with(".jar"))
    };
    match layout {
        Layout::Plain(prefix) => {
            if let Some(class) = class_name_of(name, prefix) {
                return Kind::Class(class, 0);
            }
            if prefix.is_empty() && manifest.multi_release {
                if let Some((class, version)) = versioned_class(name) {
                    if (FIRST_VERSION..=release).contains(&version) {
                        return Kind::Class(class, version);
                    }
                }
            }
            Kind::Other
        }
        Layout::Boot | Layout::Web => {
            let (classes, lib) = if layout == Layout::Boot {
                ("BOOT-INF/classes/", "BOOT-INF/lib/")
            } else {
                ("WEB-INF/classes/", "WEB-INF/lib/")
            };
            if let Some(class) = name.strip_prefix(classes).and_then(class_name_in) {
                Kind::Class(class, 0)
            } else if nested_jar(lib) {
                Kind::Lib
            } else {
                Kind::Other
            }
        }
        Layout::Enterprise => {
            let lower = name.to_ascii_lowercase();
            if !name.contains('/') && (lower.ends_with(".war") || lower.ends_with(".jar")) {
                Kind::App
            } else if nested_jar("lib/") {
                Kind::Lib
            } else {
                Kind::Other
            }
        }
    }
}

/// `("a/B", 11)` for `META-INF/versions/11/a/B.class`.
fn versioned_class(name: &str) -> Option<(&str, u16)> {
    let rest = name.strip_prefix(VERSIONS)?;
    let (version, path) = rest.split_once('/')?;
    Some((class_name_in(path)?, version.parse().ok()?))
}

fn read_manifest<T: AsRef<[u8]>>(
    archive: &ZipSliceArchive<T>,
    entries: &[ZipEntry],
    origin: &Origin,
    problems: &mut Vec<Problem>,
) -> Manifest {
    let Some(entry) = entries.iter().find(|e| e.name == MANIFEST) else {
        return Manifest::default();
    };
    match zipfile::read_entry(archive, entry) {
        Ok(bytes) => manifest::parse(&bytes),
        Err(message) => {
            problems.push(Problem::new(origin.child(MANIFEST), message));
            Manifest::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versioned_names() {
        assert_eq!(
            versioned_class("META-INF/versions/11/a/B.class"),
            Some(("a/B", 11))
        );
        assert_eq!(versioned_class("META-INF/versions/x/a/B.class"), None);
        assert_eq!(versioned_class("META-INF/versions/11/a/B.txt"), None);
    }
}
