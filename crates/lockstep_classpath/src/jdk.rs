//! Finding a JDK and the files that hold its classes.
//!
//! Discovery order: an explicit `--jdk` path, else `$JAVA_HOME`, else the
//! `java` on `PATH` with symlinks resolved (`/usr/bin/java` ->
//! `/etc/alternatives/java` -> `/usr/lib/jvm/X/bin/java` gives home
//! `/usr/lib/jvm/X`). A wrong explicit path or `$JAVA_HOME` is an error,
//! not a reason to silently try the next source: the user asked for it.
//!
//! It does not run `java` or read the `release` file, so it knows the
//! layout (image, jmods, rt.jar), not the version.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::{io_message, Origin, Problem};

const NOT_A_JDK: &str =
    "not a JDK home: found none of lib/modules, jmods/*.jmod, jre/lib/rt.jar, lib/rt.jar";

/// JDK 8 boot class path jars besides `rt.jar`, when present.
const JDK8_BOOT_JARS: [&str; 5] = ["rt.jar", "jsse.jar", "jce.jar", "charsets.jar", "jfr.jar"];

/// Finds a JDK home from `explicit`, `$JAVA_HOME` or `PATH`.
pub fn find_jdk(explicit: Option<&Path>) -> Result<PathBuf, Problem> {
    find_jdk_with(
        explicit,
        std::env::var_os("JAVA_HOME"),
        std::env::var_os("PATH"),
    )
}

/// [`find_jdk`] with the environment passed in (for tests and callers that
/// sandbox their environment).
pub fn find_jdk_with(
    explicit: Option<&Path>,
    java_home: Option<OsString>,
    path_var: Option<OsString>,
) -> Result<PathBuf, Problem> {
    if let Some(explicit) = explicit {
        return check_explicit(explicit);
    }
    if let Some(home) = java_home.filter(|h| !h.is_empty()) {
        let home = PathBuf::from(home);
        return match jdk_class_sources(&home) {
            Ok(_) => Ok(home),
            Err(problem) => Err(Problem::new(
                problem.origin,
                format!("$JAVA_HOME: {}", problem.message),
            )),
        };
    }
    if let Some(path_var) = path_var {
        for dir in std::env::split_paths(&path_var) {
            for exe in ["java", "java.exe"] {
                let candidate = dir.join(exe);
                if !candidate.is_file() {
                    continue;
                }
                if let Some(home) = home_of_java(&candidate) {
                    if jdk_class_sources(&home).is_ok() {
                        return Ok(home);
                    }
                }
            }
        }
    }
    Err(Problem::new(
        Origin::file("java"),
        "no JDK found: pass --jdk <path>, set JAVA_HOME, or put `java` on PATH",
    ))
}

fn check_explicit(explicit: &Path) -> Result<PathBuf, Problem> {
    let meta = std::fs::metadata(explicit)
        .map_err(|e| Problem::new(Origin::file(explicit), io_message(&e)))?;
    // Accept the `java` launcher itself as a pointer to its JDK.
    let home = if meta.is_file() {
        home_of_java(explicit).ok_or_else(|| Problem::new(Origin::file(explicit), NOT_A_JDK))?
    } else {
        explicit.to_path_buf()
    };
    jdk_class_sources(&home)?;
    Ok(home)
}

/// `<home>/bin/java` (after resolving symlinks) -> `<home>`.
fn home_of_java(java: &Path) -> Option<PathBuf> {
    let real = std::fs::canonicalize(java).ok()?;
    let bin = real.parent()?;
    if bin.file_name()? != "bin" {
        return None;
    }
    Some(bin.parent()?.to_path_buf())
}

/// The containers that hold the JDK's classes, in search order, or a
/// problem saying why `home` is not a JDK.
pub fn jdk_class_sources(home: &Path) -> Result<Vec<PathBuf>, Problem> {
    let meta =
        std::fs::metadata(home).map_err(|e| Problem::new(Origin::file(home), io_message(&e)))?;
    if !meta.is_dir() {
        return Err(Problem::new(Origin::file(home), NOT_A_JDK));
    }
    let modules = home.join("lib").join("modules");
    if modules.is_file() {
        return Ok(vec![modules]);
    }
    let jmods = home.join("jmods");
    if let Ok(reader) = std::fs::read_dir(&jmods) {
        let mut found: Vec<PathBuf> = reader
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "jmod"))
            .collect();
        if !found.is_empty() {
            // Modules never split packages, so order only fixes determinism.
            found.sort();
            return Ok(found);
        }
    }
    for lib in [home.join("jre").join("lib"), home.join("lib")] {
        if lib.join("rt.jar").is_file() {
            return Ok(JDK8_BOOT_JARS
                .iter()
                .map(|jar| lib.join(jar))
                .filter(|p| p.is_file())
                .collect());
        }
    }
    Err(Problem::new(Origin::file(home), NOT_A_JDK))
}
