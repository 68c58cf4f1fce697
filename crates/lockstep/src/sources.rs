//! Finding the Java sources of a report's locations (`--source-path`, by
//! default the `src/main/java` and `src/test/java` beside or above each
//! input and under the current directory) and their paths relative to the
//! repository (`--source-root`, by default the git root of the current
//! directory). The report layer gets the texts; it reads no files.

use std::path::{Path, PathBuf};

use lockstep_report::{Location, Report, Sources};

use crate::args::CheckArgs;

/// The sources of every location of `report` that can be found.
pub fn load(report: &Report, args: &CheckArgs) -> Sources {
    let dirs = source_dirs(args);
    let root = args
        .source_root
        .clone()
        .or_else(git_root)
        .and_then(|r| r.canonicalize().ok());
    let mut sources = Sources::default();
    for location in locations(report) {
        let key = location.source_path();
        if sources.texts.contains_key(&key) {
            continue;
        }
        let Some(file) = dirs.iter().map(|d| d.join(&key)).find(|f| f.is_file()) else {
            continue;
        };
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        if let Some(relative) = root.as_deref().and_then(|r| relative_to(&file, r)) {
            sources.repo_paths.insert(key.clone(), relative);
        }
        sources.texts.insert(key, text);
    }
    sources
}

fn locations(report: &Report) -> impl Iterator<Item = &Location> {
    report
        .findings
        .iter()
        .flat_map(|f| std::iter::once(&f.location).chain(f.related.iter().map(|r| &r.location)))
}

/// `--source-path`, or the usual Maven/Gradle layouts near the inputs.
fn source_dirs(args: &CheckArgs) -> Vec<PathBuf> {
    if !args.source_path.is_empty() {
        return args.source_path.clone();
    }
    let mut dirs = Vec::new();
    let cwd = std::env::current_dir().unwrap_or_default();
    let starts = args
        .input
        .paths
        .iter()
        .map(|p| cwd.join(p))
        .chain([cwd.clone()]);
    for start in starts {
        // `target/classes` → `../../src/main/java`: the nearest ancestor with sources.
        if let Some(base) = start
            .ancestors()
            .find(|a| a.join("src/main/java").is_dir() || a.join("src/test/java").is_dir())
        {
            for layout in ["src/main/java", "src/test/java"] {
                let dir = base.join(layout);
                if dir.is_dir() && !dirs.contains(&dir) {
                    dirs.push(dir);
                }
            }
        }
    }
    dirs
}

/// The nearest directory from the current one upward holding `.git`.
fn git_root() -> Option<PathBuf> {
    let cwd = std::env::current_dir().ok()?;
    cwd.ancestors()
        .find(|a| a.join(".git").exists())
        .map(Path::to_path_buf)
}

fn relative_to(file: &Path, root: &Path) -> Option<String> {
    let file = file.canonicalize().ok()?;
    let relative = file.strip_prefix(root).ok()?;
    Some(relative.to_string_lossy().replace('\\', "/"))
}
