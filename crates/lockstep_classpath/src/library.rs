//! A lazily-read class library: the JDK, or `-cp` jars and directories.
//!
//! Opening builds only an index, internal class name -> location; bytes are
//! read (and inflated) when [`Library::load`] asks for them. Containers are
//! memory-mapped so that opening a 130 MB JDK image costs ~16 ms and so
//! that `load` needs no locks: it is `&self`, and `Library` is
//! `Send + Sync`.
//!
//! Class paths are expanded first (`expand`: wildcards, directories of
//! jars, manifest `Class-Path`); archives are indexed by their layout
//! (`archive`), nested library jars inflated into memory and indexed after
//! their archive's own classes.
//!
//! What it does not know: class-file contents (it never checks that the
//! bytes under a name really declare that name — except for loose `.class`
//! files, which have no other name to go by), and module boundaries (a JDK image's `module-info` classes all map to the one
//! name `module-info`; the first module's wins, like any duplicate).

use std::fmt;
use std::path::{Path, PathBuf};

use rawzip::{CompressionMethod, ZipArchiveEntryWayfinder, ZipSliceArchive};

use crate::archive;
use crate::bytes::{map_file, read_file, FileBytes};
use crate::inputs::MAX_NESTING;
use crate::jimage::JImage;
use crate::zipfile::{self, Flavor};
use crate::{
    detect_kind, dir, expand_classpath, jdk, peek, ClassBytes, InputKind, Origin, Problem,
    ReadOptions,
};

/// An index of internal class names to where their bytes are, over a list
/// of containers searched in order (first definition of a name wins).
pub struct Library {
    sources: Vec<Source>,
    /// Every class name back to back, so indexing a 26k-class JDK costs no
    /// per-name allocation (allocation dominated the open time).
    text: String,
    /// `(start, len)` of each name in `text`, sorted by name, unique;
    /// `entries[i]` locates name `i`.
    spans: Vec<(usize, usize)>,
    entries: Vec<Entry>,
}

/// Collects names and entries while containers are indexed.
#[derive(Default)]
struct Builder {
    text: String,
    raw: Vec<((usize, usize), Entry)>,
}

impl Builder {
    /// Adds the name made of `parts` concatenated.
    fn push(&mut self, parts: &[&str], entry: Entry) {
        let start = self.text.len();
        for part in parts {
            self.text.push_str(part);
        }
        self.raw.push(((start, self.text.len() - start), entry));
    }
}

fn span_str(text: &str, (start, len): (usize, usize)) -> &str {
    // Spans are made by `Builder::push` from whole `&str`s, so they are
    // always in range and on char boundaries; `get` keeps that unproven
    // fact from becoming a panic.
    text.get(start..start + len).unwrap_or("")
}

enum Source {
    /// A jar or jmod, or a jar nested in one (`origin` has an entry then).
    Zip {
        origin: Origin,
        archive: ZipSliceArchive<FileBytes>,
    },
    Image {
        path: PathBuf,
        image: JImage<FileBytes>,
    },
    /// A class directory or a loose class file: entries carry their paths.
    Files,
}

struct Entry {
    source: u32,
    loc: Loc,
}

enum Loc {
    Zip {
        /// The entry's name, which the class name alone does not give
        /// (`BOOT-INF/classes/`, `META-INF/versions/11/`).
        name: Box<str>,
        wayfinder: ZipArchiveEntryWayfinder,
        method: CompressionMethod,
        encrypted: bool,
    },
    Image {
        slot: u32,
    },
    File {
        path: PathBuf,
    },
}

impl Library {
    /// [`Library::open_with`] with the default [`ReadOptions`].
    pub fn open(paths: &[PathBuf]) -> (Library, Vec<Problem>) {
        Library::open_with(paths, &ReadOptions::default())
    }

    /// Indexes jars (plain, multi-release, Spring Boot, WAR, EAR), jmods,
    /// class directories, JDK images and class files, in classpath order,
    /// after expanding the class path (wildcards, directories of jars,
    /// manifest `Class-Path`). Inputs that cannot be opened become problems
    /// and are skipped; the rest still form a library.
    pub fn open_with(paths: &[PathBuf], options: &ReadOptions) -> (Library, Vec<Problem>) {
        let (paths, mut problems) = expand_classpath(paths);
        let mut sources = Vec::new();
        let mut builder = Builder::default();
        for path in &paths {
            let mut add = Adder {
                sources: &mut sources,
                builder: &mut builder,
                problems: &mut problems,
                options,
            };
            if let Err(problem) = add.source(path) {
                problems.push(problem);
            }
        }
        let Builder { text, mut raw } = builder;
        // Stable sort: for equal names, push order (classpath order, then
        // order inside the container) is kept, and dedup keeps the first.
        raw.sort_by(|a, b| span_str(&text, a.0).cmp(span_str(&text, b.0)));
        raw.dedup_by(|later, earlier| span_str(&text, later.0) == span_str(&text, earlier.0));
        let (spans, entries) = raw.into_iter().unzip();
        (
            Library {
                sources,
                text,
                spans,
                entries,
            },
            problems,
        )
    }

    /// The JDK at `home`: JDK 9+ `lib/modules` (preferred) or `jmods/*.jmod`;
    /// JDK 8 `jre/lib/rt.jar` (or `lib/rt.jar` in a JRE) plus the other boot
    /// jars next to it. Fails on the first problem: a half-readable JDK
    /// would give silently wrong answers.
    pub fn jdk(home: &Path) -> Result<Library, Problem> {
        let sources = jdk::jdk_class_sources(home)?;
        let (library, problems) = Library::open(&sources);
        if let Some(problem) = problems.into_iter().next() {
            return Err(problem);
        }
        if library.is_empty() {
            return Err(Problem::new(
                Origin::file(home),
                "JDK has no classes in its runtime image",
            ));
        }
        Ok(library)
    }

    fn index_of(&self, internal_name: &str) -> Option<usize> {
        self.spans
            .binary_search_by(|&span| span_str(&self.text, span).cmp(internal_name))
            .ok()
    }

    /// Whether the library defines `internal_name` (`java/lang/Thread`).
    pub fn contains(&self, internal_name: &str) -> bool {
        self.index_of(internal_name).is_some()
    }

    /// Reads the class `internal_name`: `None` if the library does not
    /// define it, `Some(Err)` if it does but the bytes cannot be read.
    /// Safe to call from many threads at once.
    pub fn load(&self, internal_name: &str) -> Option<Result<ClassBytes, Problem>> {
        let index = self.index_of(internal_name)?;
        let entry = self.entries.get(index)?;
        let source = self.sources.get(usize::try_from(entry.source).ok()?)?;
        Some(read_entry(internal_name, entry, source))
    }

    /// Where `internal_name` would be loaded from, without reading it.
    pub fn origin(&self, internal_name: &str) -> Option<Origin> {
        let index = self.index_of(internal_name)?;
        let entry = self.entries.get(index)?;
        let source = self.sources.get(usize::try_from(entry.source).ok()?)?;
        Some(origin_of(internal_name, entry, source))
    }

    /// Every class name, sorted (byte-wise), each once.
    pub fn class_names(&self) -> impl Iterator<Item = &str> + '_ {
        self.spans.iter().map(|&span| span_str(&self.text, span))
    }

    /// Number of distinct class names.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }
}

impl fmt::Debug for Library {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Library")
            .field("containers", &self.sources.len())
            .field("classes", &self.spans.len())
            .finish()
    }
}

/// Indexes containers into the sources and names of a library.
struct Adder<'a> {
    sources: &'a mut Vec<Source>,
    builder: &'a mut Builder,
    problems: &'a mut Vec<Problem>,
    options: &'a ReadOptions,
}

impl Adder<'_> {
    fn next_source(&self, origin: &Origin) -> Result<u32, Problem> {
        u32::try_from(self.sources.len())
            .map_err(|_| Problem::new(origin.clone(), "too many library containers"))
    }

    fn source(&mut self, path: &Path) -> Result<(), Problem> {
        let kind = detect_kind(path)?;
        let origin = Origin::file(path);
        match kind {
            InputKind::Jar | InputKind::Jmod => {
                let flavor = if kind == InputKind::Jmod {
                    Flavor::Jmod
                } else {
                    Flavor::Jar
                };
                let file_name = path.file_name().map(|n| n.to_string_lossy().into_owned());
                let data = map_file(path)?;
                self.archive(
                    data,
                    (flavor, file_name.as_deref().unwrap_or("")),
                    origin,
                    0,
                )?;
            }
            InputKind::JImage => {
                let source = self.next_source(&origin)?;
                let data = map_file(path)?;
                let image = JImage::parse(data).map_err(|m| Problem::new(origin.clone(), m))?;
                let builder = &mut *self.builder;
                builder
                    .raw
                    .reserve(usize::try_from(image.table_length()).unwrap_or(0));
                let errors = image.for_each_class(|slot, names| {
                    let entry = Entry {
                        source,
                        loc: Loc::Image { slot },
                    };
                    if names.parent.is_empty() {
                        builder.push(&[names.base], entry);
                    } else {
                        builder.push(&[names.parent, "/", names.base], entry);
                    }
                });
                self.problems
                    .extend(errors.into_iter().map(|m| Problem::new(origin.clone(), m)));
                self.sources.push(Source::Image {
                    path: path.to_path_buf(),
                    image,
                });
            }
            InputKind::Directory => {
                let source = self.next_source(&origin)?;
                for file in dir::class_files(path, self.problems) {
                    let name = file.class_name().to_string();
                    self.builder.push(
                        &[&name],
                        Entry {
                            source,
                            loc: Loc::File { path: file.path },
                        },
                    );
                }
                self.sources.push(Source::Files);
            }
            InputKind::ClassFile => {
                let source = self.next_source(&origin)?;
                // A loose class file has no path-implied name; read the one
                // it declares (see `peek`).
                let bytes = read_file(path)?;
                let name = peek::this_class_name(&bytes).ok_or_else(|| {
                    Problem::new(
                        origin.clone(),
                        "cannot read the class name from this file (not a well-formed class file)",
                    )
                })?;
                self.builder.push(
                    &[&name],
                    Entry {
                        source,
                        loc: Loc::File {
                            path: path.to_path_buf(),
                        },
                    },
                );
                self.sources.push(Source::Files);
            }
        }
        Ok(())
    }

    /// Indexes the archive in `data` (named by `origin`, `depth` archives
    /// deep), then the archives nested in it.
    fn archive(
        &mut self,
        data: FileBytes,
        (flavor, file_name): (Flavor, &str),
        origin: Origin,
        depth: usize,
    ) -> Result<(), Problem> {
        let source = self.next_source(&origin)?;
        let (archive, entries) = zipfile::open(data, &origin, self.problems)?;
        let contents = archive::contents(
            &archive,
            entries,
            (flavor, file_name),
            self.options.release,
            &origin,
            self.problems,
        );
        self.builder.raw.reserve(contents.classes.len());
        for class in &contents.classes {
            self.builder.push(
                &[&class.class],
                Entry {
                    source,
                    loc: Loc::Zip {
                        name: class.entry.name.as_str().into(),
                        wayfinder: class.entry.wayfinder,
                        method: class.entry.method,
                        encrypted: class.entry.encrypted,
                    },
                },
            );
        }
        // In a library, an EAR's application modules are libraries too.
        let nested: Vec<_> = contents
            .nested_app
            .iter()
            .chain(&contents.nested_lib)
            .map(|entry| {
                (
                    origin.child(&entry.name),
                    zipfile::read_nested(&archive, entry),
                )
            })
            .collect();
        self.sources.push(Source::Zip { origin, archive });
        for (child, read) in nested {
            if depth >= MAX_NESTING {
                self.problems
                    .push(Problem::new(child, "archive nested too deeply; not read"));
                continue;
            }
            let name = child.entry.clone().unwrap_or_default();
            let result = read
                .map_err(|message| Problem::new(child.clone(), message))
                .and_then(|bytes| {
                    self.archive(
                        FileBytes::Owned(bytes),
                        (Flavor::Jar, &name),
                        child,
                        depth + 1,
                    )
                });
            if let Err(problem) = result {
                self.problems.push(problem);
            }
        }
        Ok(())
    }
}

fn origin_of(internal_name: &str, entry: &Entry, source: &Source) -> Origin {
    match (&entry.loc, source) {
        (Loc::File { path }, _) => Origin::file(path),
        (Loc::Zip { name, .. }, Source::Zip { origin, .. }) => origin.child(name),
        (Loc::Image { slot }, Source::Image { path, image }) => {
            let full = image
                .location_at(*slot)
                .and_then(|loc| image.names(&loc).map(|n| n.full_name()));
            match full {
                Ok(full) => Origin::entry(path, full),
                Err(_) => Origin::entry(path, format!("{internal_name}.class")),
            }
        }
        // Entries are only ever created with their matching source kind.
        (_, Source::Zip { origin, .. }) => origin.clone(),
        (_, Source::Image { path, .. }) => Origin::file(path),
        (_, Source::Files) => Origin::file(internal_name),
    }
}

fn read_entry(internal_name: &str, entry: &Entry, source: &Source) -> Result<ClassBytes, Problem> {
    let origin = origin_of(internal_name, entry, source);
    let bytes = match (&entry.loc, source) {
        (Loc::File { path }, _) => read_file(path).map_err(|p| p.message),
        (
            Loc::Zip {
                wayfinder,
                method,
                encrypted,
                ..
            },
            Source::Zip { archive, .. },
        ) => zipfile::read_raw(archive, *wayfinder, *method, *encrypted),
        (Loc::Image { slot }, Source::Image { image, .. }) => image.read_slot(*slot),
        _ => Err("internal error: index entry does not match its container".to_string()),
    };
    match bytes {
        Ok(bytes) => Ok(ClassBytes { origin, bytes }),
        Err(message) => Err(Problem::new(origin, message)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn library_is_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<Library>();
    }
}
