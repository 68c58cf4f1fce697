//! `lockstep_classpath`: the only layer of lockstep that touches the file
//! system to find class bytes.
//!
//! It turns user-named paths — single `.class` files, class directories
//! (Maven `target/classes`, Gradle `build/classes/java/main`), jars/zips,
//! `.jmod` files and JDK runtime images (`lib/modules`, the "jimage"
//! format) — into class-file bytes plus where they came from ([`Origin`]).
//! Every failure becomes a [`Problem`] naming the file (and entry) and what
//! is wrong; nothing here panics on bad input.
//!
//! Two ways in:
//! * [`read_inputs`] eagerly reads every class of the *application* inputs,
//!   in a deterministic order.
//! * [`Library`] is a lazily-read index (the JDK, `-cp` jars): it maps
//!   internal class names (`java/lang/Thread`) to locations and reads bytes
//!   only when [`Library::load`] is called.
//!
//! Class paths are read the way Java writes them (see `expand` and
//! `archive`): `dir/*` wildcards, directories of jars, manifest
//! `Class-Path`, Spring Boot jars, WARs and EARs with their nested
//! libraries, and multi-release jars for the release in [`ReadOptions`].
//!
//! What this crate deliberately does not know: the class-file format. It
//! never validates that bytes are a well-formed class (that is the parser
//! crate's job); the one exception is a tiny constant-pool walk that names a
//! loose `.class` file given on a library path (see `peek`). It does not
//! know anything about modules beyond the name a jimage stores: a module
//! path is read as a class path.

mod archive;
mod bytes;
mod detect;
mod dir;
mod expand;
mod inflate;
mod inputs;
mod jdk;
pub mod jimage;
mod library;
mod manifest;
mod peek;
mod zipfile;

use std::fmt;
use std::path::PathBuf;

pub use detect::detect_kind;
pub use expand::expand_classpath;
pub use inputs::{read_inputs, read_inputs_with};
pub use jdk::{find_jdk, find_jdk_with, jdk_class_sources, jdk_release};
pub use jimage::{jimage_from_bytes, ImageClass, JImage, Location};
pub use library::Library;

/// Largest class file we are willing to allocate for. Sizes come from
/// untrusted headers (zip central directory, jimage locations), so a lying
/// header must not make us allocate gigabytes; real class files are far
/// smaller (the JDK's biggest is well under 1 MiB).
pub const MAX_CLASS_BYTES: u64 = 64 << 20;

/// Where a class's bytes came from: a plain file (`entry == None`), or an
/// entry inside a container (jar, jmod, JDK image).
///
/// For directory inputs `container` is the path of the `.class` file itself.
/// For JDK images `entry` is the image's own name of the resource,
/// `/java.base/java/lang/Object.class`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Origin {
    pub container: PathBuf,
    pub entry: Option<String>,
}

impl Origin {
    /// An origin that is a whole file.
    pub fn file(path: impl Into<PathBuf>) -> Origin {
        Origin {
            container: path.into(),
            entry: None,
        }
    }

    /// An origin that is one entry of a container.
    pub fn entry(container: impl Into<PathBuf>, entry: impl Into<String>) -> Origin {
        Origin {
            container: container.into(),
            entry: Some(entry.into()),
        }
    }
}

impl Origin {
    /// The origin of `name` inside what `self` names: an entry of a file,
    /// or of a nested archive (`app.jar!BOOT-INF/lib/x.jar!a/B.class`).
    pub fn child(&self, name: &str) -> Origin {
        match &self.entry {
            None => Origin::entry(&self.container, name),
            Some(entry) => Origin::entry(&self.container, format!("{entry}!{name}")),
        }
    }
}

/// How classes are chosen from what the paths hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadOptions {
    /// The Java release the program runs on: a multi-release jar's
    /// `META-INF/versions/N/` class replaces the base class for every
    /// `N <= release`.
    pub release: u16,
}

impl Default for ReadOptions {
    /// Java 17, the oldest release still widely supported.
    fn default() -> Self {
        ReadOptions { release: 17 }
    }
}

impl fmt::Display for Origin {
    /// `lib/app.jar!com/x/A.class`, or just the path.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.container.display())?;
        if let Some(entry) = &self.entry {
            write!(f, "!{entry}")?;
        }
        Ok(())
    }
}

/// The bytes of one class file and where they came from.
///
/// `bytes` is an owned `Vec<u8>`: most classes are inflated anyway, and an
/// owned buffer lets callers keep classes after the container (a memory map)
/// is gone without lifetimes leaking into every consumer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassBytes {
    pub origin: Origin,
    pub bytes: Vec<u8>,
}

/// Something that went wrong finding or reading class bytes. Never fatal on
/// its own: callers report it and carry on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub origin: Origin,
    pub message: String,
}

impl Problem {
    pub fn new(origin: Origin, message: impl Into<String>) -> Problem {
        Problem {
            origin,
            message: message.into(),
        }
    }
}

impl fmt::Display for Problem {
    /// `<origin>: <message>`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.origin, self.message)
    }
}

impl std::error::Error for Problem {}

/// What kind of input a path is, decided by [`detect_kind`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InputKind {
    /// A single class file (`CAFEBABE`).
    ClassFile,
    /// A directory tree of `.class` files.
    Directory,
    /// A jar or zip (`PK\x03\x04`).
    Jar,
    /// A JDK `.jmod` (`JM\x01\x00` then a zip).
    Jmod,
    /// A JDK runtime image, `lib/modules` (`0xCAFEDADA`).
    JImage,
}

impl fmt::Display for InputKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            InputKind::ClassFile => "class file",
            InputKind::Directory => "directory",
            InputKind::Jar => "jar",
            InputKind::Jmod => "jmod",
            InputKind::JImage => "JDK runtime image",
        })
    }
}

/// Everything read from the application inputs: classes in deterministic
/// order (inputs in the order given, entries sorted by name inside each) and
/// the problems met on the way, in the same order.
#[derive(Debug, Default, Clone)]
pub struct InputSet {
    pub classes: Vec<ClassBytes>,
    pub problems: Vec<Problem>,
    /// Paths the inputs put on the library class path, in input order, each
    /// once: archives among the inputs that carry nested libraries (Spring
    /// Boot, WAR, EAR; [`Library::open`] indexes those) and the jars their
    /// manifests' `Class-Path` names.
    pub libraries: Vec<PathBuf>,
}

/// A human message for an I/O error; the common cases get the wording users
/// know from the shell rather than Rust's "(os error 2)".
pub(crate) fn io_message(err: &std::io::Error) -> String {
    match err.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => err.to_string(),
    }
}
