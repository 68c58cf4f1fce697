//! The on-disk cache of compiled fixtures, keyed by a content hash: where it
//! lives, and how an entry is built privately and published in one rename.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::error::CompileError;

/// Bumped whenever the layout of a cache entry changes, so entries in the
/// old layout are simply never looked up again. (javac's arguments are part
/// of the key already.)
pub(crate) const CACHE_FORMAT: &str = "lockstep-javac-cache/1";

/// Written last into a cache entry before it is renamed into place; an entry
/// without it is not trusted.
const MANIFEST: &str = "manifest.txt";
/// javac's own output (warnings) for a successful compile.
const JAVAC_LOG: &str = "javac.log";

/// The directory compiled fixtures are cached in:
///
/// 1. `$LOCKSTEP_FIXTURE_CACHE`, if set;
/// 2. otherwise `<target>/lockstep-javac-cache`, where `<target>` is
///    `$CARGO_TARGET_DIR` (relative values are taken from the workspace
///    root), else the nearest ancestor of the running executable holding
///    cargo's `CACHEDIR.TAG` (test binaries live in `<target>/debug/deps`,
///    which also covers a `build.target-dir` set in `.cargo/config.toml`),
///    else `<workspace root>/target`;
/// 3. as a last resort `<system temp dir>/lockstep-javac-cache`.
///
/// Everything in it can be deleted at any time when no test is running.
pub fn cache_root() -> PathBuf {
    if let Some(dir) = std::env::var_os("LOCKSTEP_FIXTURE_CACHE").filter(|v| !v.is_empty()) {
        return PathBuf::from(dir);
    }
    target_dir()
        .unwrap_or_else(std::env::temp_dir)
        .join("lockstep-javac-cache")
}

fn target_dir() -> Option<PathBuf> {
    let workspace = workspace_root();
    if let Some(dir) = std::env::var_os("CARGO_TARGET_DIR").filter(|v| !v.is_empty()) {
        let dir = PathBuf::from(dir);
        return Some(match (&workspace, dir.is_absolute()) {
            (Some(root), false) => root.join(dir),
            _ => dir,
        });
    }
    if let Ok(exe) = std::env::current_exe() {
        if let Some(dir) = exe
            .ancestors()
            .skip(1)
            .find(|d| d.join("CACHEDIR.TAG").is_file())
        {
            return Some(dir.to_path_buf());
        }
    }
    workspace.map(|root| root.join("target"))
}

/// The outermost directory above this crate whose Cargo.toml declares a
/// `[workspace]` (the lockstep repository's root when built from it).
pub fn workspace_root() -> Option<PathBuf> {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .filter(|d| {
            fs::read_to_string(d.join("Cargo.toml"))
                .map(|t| t.lines().any(|l| l.trim() == "[workspace]"))
                .unwrap_or(false)
        })
        .last()
        .map(Path::to_path_buf)
}

/// A directory name no other thread or process will pick: pid, a
/// process-wide counter and the clock.
fn unique_name(prefix: &str) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!("{prefix}-{}-{n}-{nanos:08x}", std::process::id())
}

/// Temp and trash dirs are normally removed by their creator; a test
/// process killed mid-compile leaves its own behind. Anything older than an
/// hour is certainly abandoned (no javac run takes that long), so misses
/// sweep those up. Errors are ignored: another process may be sweeping too.
fn remove_stale_temp_dirs(root: &Path) {
    const STALE: std::time::Duration = std::time::Duration::from_secs(3600);
    let Ok(items) = fs::read_dir(root) else {
        return;
    };
    for item in items.flatten() {
        let name = item.file_name();
        let name = name.to_string_lossy();
        if !(name.starts_with(".tmp-") || name.starts_with(".trash-")) {
            continue;
        }
        let old = item
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > STALE);
        if old {
            let _ = fs::remove_dir_all(item.path());
        }
    }
}

fn create_unique_dir(root: &Path) -> Result<PathBuf, CompileError> {
    loop {
        let dir = root.join(unique_name(".tmp"));
        match fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            // Same pid+counter+nanos can only recur after a pid wrap; retry.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(CompileError::io(
                    format!("creating temp dir {}", dir.display()),
                    e,
                ))
            }
        }
    }
}

/// Moves the finished `tmp` entry to `entry`, tolerating a concurrent winner.
fn publish(tmp: &Path, entry: &Path, root: &Path) -> Result<(), CompileError> {
    for _attempt in 0..2 {
        match fs::rename(tmp, entry) {
            Ok(()) => return Ok(()),
            Err(rename_err) => {
                if entry.join(MANIFEST).is_file() {
                    // Lost the race to an identical compile: use the winner's.
                    let _ = fs::remove_dir_all(tmp);
                    return Ok(());
                }
                if !entry.exists() {
                    let _ = fs::remove_dir_all(tmp);
                    return Err(CompileError::io(
                        format!("renaming {} to {}", tmp.display(), entry.display()),
                        rename_err,
                    ));
                }
                // A damaged entry without a manifest (interrupted cleanup,
                // hand editing): move it aside atomically, then retry once.
                let trash = root.join(unique_name(".trash"));
                if fs::rename(entry, &trash).is_ok() {
                    let _ = fs::remove_dir_all(&trash);
                }
            }
        }
    }
    if entry.join(MANIFEST).is_file() {
        let _ = fs::remove_dir_all(tmp);
        return Ok(());
    }
    let _ = fs::remove_dir_all(tmp);
    Err(CompileError::Io {
        context: format!("publishing cache entry {}", entry.display()),
        message: "a damaged entry is in the way and could not be replaced".to_string(),
    })
}

/// A published cache entry: its class output and javac's log.
pub(crate) struct Entry {
    /// `<entry>/classes`, the `-d` directory.
    pub classes_dir: PathBuf,
    /// Internal names of the classes in it, sorted.
    pub classes: Vec<String>,
    /// What javac printed when the entry was built.
    pub javac_output: String,
    /// True when the entry existed before this call.
    pub cache_hit: bool,
}

/// What a builder produced in a private entry directory: javac's log and the
/// description of the compile that goes into the manifest.
pub(crate) struct Built {
    /// javac's output (warnings).
    pub log: String,
    /// Compiler version and command line, for people reading the manifest.
    pub description: String,
}

/// The entry `<root>/<key>`, built first when missing: `build` gets a fresh
/// private directory, writes the sources into its `src` and the classes into
/// its `classes`, and the cache then adds the log and (last) the manifest and
/// renames the directory into place.
pub(crate) fn get_or_build(
    root: &Path,
    key: &str,
    build: impl FnOnce(&Path) -> Result<Built, CompileError>,
) -> Result<Entry, CompileError> {
    let entry = root.join(key);
    if entry.join(MANIFEST).is_file() {
        return load_entry(&entry, true);
    }
    fs::create_dir_all(root)
        .map_err(|e| CompileError::io(format!("creating cache root {}", root.display()), e))?;
    remove_stale_temp_dirs(root);
    let tmp = create_unique_dir(root)?;
    let built = build(&tmp).and_then(|built| write_manifest(&tmp, key, &built));
    if let Err(e) = built {
        // Best effort: a leftover temp dir is harmless, only untidy.
        let _ = fs::remove_dir_all(&tmp);
        return Err(e);
    }
    publish(&tmp, &entry, root)?;
    load_entry(&entry, false)
}

/// Writes javac's log and then the manifest, which marks the entry complete.
fn write_manifest(dir: &Path, key: &str, built: &Built) -> Result<(), CompileError> {
    let log = dir.join(JAVAC_LOG);
    fs::write(&log, &built.log)
        .map_err(|e| CompileError::io(format!("writing {}", log.display()), e))?;
    let manifest = format!("{CACHE_FORMAT}\nkey {key}\n{}\n", built.description);
    let mpath = dir.join(MANIFEST);
    fs::write(&mpath, manifest)
        .map_err(|e| CompileError::io(format!("writing {}", mpath.display()), e))
}

fn load_entry(entry: &Path, cache_hit: bool) -> Result<Entry, CompileError> {
    let classes_dir = entry.join("classes");
    let mut classes = Vec::new();
    list_classes(&classes_dir, "", &mut classes)
        .map_err(|e| CompileError::io(format!("listing {}", classes_dir.display()), e))?;
    classes.sort();
    let javac_output = fs::read_to_string(entry.join(JAVAC_LOG)).unwrap_or_default();
    Ok(Entry {
        classes_dir,
        classes,
        javac_output,
        cache_hit,
    })
}

fn list_classes(dir: &Path, prefix: &str, out: &mut Vec<String>) -> io::Result<()> {
    for item in fs::read_dir(dir)? {
        let item = item?;
        let name = item.file_name().to_string_lossy().into_owned();
        if item.file_type()?.is_dir() {
            list_classes(&item.path(), &format!("{prefix}{name}/"), out)?;
        } else if let Some(stem) = name.strip_suffix(".class") {
            out.push(format!("{prefix}{stem}"));
        }
    }
    Ok(())
}
