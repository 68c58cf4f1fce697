//! Finding a JDK and the files that hold its classes.
//!
//! Discovery order: an explicit `--jdk` path, else `$JAVA_HOME`, else the
//! `java` on `PATH` with symlinks resolved (`/usr/bin/java` ->
//! `/etc/alternatives/java` -> `/usr/lib/jvm/X/bin/java` gives home
//! `/usr/lib/jvm/X`). A wrong explicit path or `$JAVA_HOME` is an error,
//! not a reason to silently try the next source: the user asked for it.
//!
//! It does not run `java`; the version comes from the home's `release`
//! file ([`jdk_release`]), used to pick multi-release jar versions.

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

/// The feature release of the JDK at `home` (`17` for
/// `JAVA_VERSION="17.0.2"`, `8` for `"1.8.0_392"`), from its `release`
/// file; `None` when the file is absent or says something else.
pub fn jdk_release(home: &Path) -> Option<u16> {
    let text = std::fs::read_to_string(home.join("release")).ok()?;
    let line = text.lines().find_map(|l| l.strip_prefix("JAVA_VERSION="))?;
    release_of_version(line.trim().trim_matches('"'))
}

fn release_of_version(version: &str) -> Option<u16> {
    let mut parts = version.split(['.', '_', '-', '+']);
    let first: u16 = parts.next()?.parse().ok()?;
    if first == 1 {
        parts.next()?.parse().ok()
    } else {
        Some(first)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_to_releases() {
        assert_eq!(release_of_version("17.0.2"), Some(17));
        assert_eq!(release_of_version("1.8.0_392"), Some(8));
        assert_eq!(release_of_version("25"), Some(25));
        assert_eq!(release_of_version("21-ea"), Some(21));
        assert_eq!(release_of_version("x"), None);
    }
}
