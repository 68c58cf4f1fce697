//! A fixture's Java sources: the source-file type, reading a fixture
//! directory, and checking source paths before they are compiled.

use std::fs;
use std::io;
use std::path::Path;

use crate::error::CompileError;
use crate::snippet::snippet_path;

/// One Java source file of a fixture.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SourceFile {
    /// Relative path with `/` separators, e.g. `com/x/A.java`. It must end
    /// in `.java` and may not be absolute or contain `..`.
    pub path: String,
    /// The file's contents.
    pub text: String,
}

impl SourceFile {
    /// A source file at `path` (relative, `/`-separated) with `text`.
    pub fn new(path: impl Into<String>, text: impl Into<String>) -> SourceFile {
        SourceFile {
            path: path.into(),
            text: text.into(),
        }
    }

    /// A source file whose path is inferred from `text` as
    /// [`compile_snippet`] does.
    pub fn from_snippet(text: &str) -> Result<SourceFile, CompileError> {
        match snippet_path(text) {
            Some(path) => Ok(SourceFile::new(path, text)),
            None => Err(CompileError::InvalidSource {
                path: "<snippet>".to_string(),
                reason: "no top-level class, interface, enum or record declaration found"
                    .to_string(),
            }),
        }
    }

    /// The base name (`A.java`), which is what a class file's `SourceFile`
    /// attribute holds and so what findings and expectations are keyed on.
    pub fn file_name(&self) -> &str {
        base_name(&self.path)
    }
}

pub(crate) fn base_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

pub(crate) fn validate(sources: &[SourceFile]) -> Result<(), CompileError> {
    if sources.is_empty() {
        return Err(CompileError::NoSources("empty source list".to_string()));
    }
    let mut seen = std::collections::BTreeSet::new();
    for s in sources {
        let bad = |reason: &str| CompileError::InvalidSource {
            path: s.path.clone(),
            reason: reason.to_string(),
        };
        if !s.path.ends_with(".java") {
            return Err(bad("must end in .java"));
        }
        if s.path.starts_with('/') || s.path.contains('\\') || s.path.contains(':') {
            return Err(bad("must be relative and use `/` separators"));
        }
        if s.path
            .split('/')
            .any(|part| part.is_empty() || part == "." || part == "..")
        {
            return Err(bad("must not contain empty, `.` or `..` components"));
        }
        if !seen.insert(s.path.as_str()) {
            return Err(bad("given twice"));
        }
    }
    Ok(())
}

/// Reads every `.java` file under `dir`, sorted by relative path.
pub fn read_java_dir(dir: &Path) -> Result<Vec<SourceFile>, CompileError> {
    let mut paths = Vec::new();
    collect_java(dir, "", &mut paths)
        .map_err(|e| CompileError::io(format!("reading fixture dir {}", dir.display()), e))?;
    paths.sort();
    if paths.is_empty() {
        return Err(CompileError::NoSources(format!(
            "no .java files under {}",
            dir.display()
        )));
    }
    paths
        .into_iter()
        .map(|rel| {
            let full = dir.join(rel.replace('/', std::path::MAIN_SEPARATOR_STR));
            let text = fs::read_to_string(&full)
                .map_err(|e| CompileError::io(format!("reading {}", full.display()), e))?;
            Ok(SourceFile::new(rel, text))
        })
        .collect()
}

fn collect_java(dir: &Path, prefix: &str, out: &mut Vec<String>) -> io::Result<()> {
    for item in fs::read_dir(dir)? {
        let item = item?;
        let name = item.file_name().to_string_lossy().into_owned();
        let kind = item.file_type()?;
        if kind.is_dir() {
            collect_java(&item.path(), &format!("{prefix}{name}/"), out)?;
        } else if name.ends_with(".java") {
            out.push(format!("{prefix}{name}"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_bad_paths() {
        for p in [
            "/abs/A.java",
            "../A.java",
            "a//A.java",
            "A.txt",
            "a\\A.java",
            "./A.java",
        ] {
            assert!(
                matches!(
                    validate(&[SourceFile::new(p, "")]),
                    Err(CompileError::InvalidSource { .. })
                ),
                "{p}"
            );
        }
        let dup = [SourceFile::new("A.java", ""), SourceFile::new("A.java", "")];
        assert!(validate(&dup).is_err());
        assert!(matches!(validate(&[]), Err(CompileError::NoSources(_))));
        assert!(validate(&[SourceFile::new("com/x/A.java", "")]).is_ok());
    }
}
