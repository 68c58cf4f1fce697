//! The cache of `lockstep run --static`: the guidance the static analysis
//! computed, reused by later runs of the same classes (paper 004 Table 3
//! measures runs with the types already computed).
//!
//! An entry is keyed by a hash of everything the analysis read or that
//! changes its answer: the contents of the application's classes and jars
//! and of the `java` command's class path (each expanded as `java` does:
//! `dir/*`, manifest `Class-Path`), the JDK (its home, its `release` file,
//! and the size and modification time of its class containers, which are
//! too large to hash on every run), the guidance options, lockstep's
//! version and the running binary's size and modification time (so a
//! rebuilt binary never reuses an older one's analysis). Entries live in
//! `$XDG_CACHE_HOME/lockstep/guidance` (or `~/.cache/lockstep/guidance`),
//! one file per key, written to a temporary file and renamed, so
//! concurrent runs never see half an entry. `--no-cache` or
//! `LOCKSTEP_NO_CACHE=1` turns the cache off; an entry that does not read
//! back as guidance is recomputed.

use std::hash::Hasher;
use std::path::{Path, PathBuf};

use lockstep_instrument::Guidance;

use crate::run_static::GuidanceStats;

/// First line of a cache entry (then the counts, then the guidance text).
const ENTRY_HEADER: &str = "lockstep-guidance-cache 2";

/// Files of a class directory that the analysis may read.
const CLASS_FILE_EXTENSIONS: &[&str] = &["class", "jar", "jmod", "zip", "war", "ear"];

/// Is the cache turned off (`--no-cache`, or `LOCKSTEP_NO_CACHE` set to
/// anything but `0` or nothing)?
pub fn disabled(no_cache_flag: bool) -> bool {
    no_cache_flag
        || std::env::var_os("LOCKSTEP_NO_CACHE").is_some_and(|v| !v.is_empty() && v != "0")
}

/// Two independent 64-bit hashes of one stream (FNV-1a and the standard
/// library's SipHash), 128 bits together.
struct KeyHasher {
    fnv: u64,
    sip: std::hash::DefaultHasher,
}

impl KeyHasher {
    fn new() -> KeyHasher {
        KeyHasher {
            fnv: 0xcbf2_9ce4_8422_2325,
            sip: std::hash::DefaultHasher::new(),
        }
    }

    fn bytes(&mut self, b: &[u8]) {
        // Length first, so concatenations of parts cannot collide.
        self.raw(&(b.len() as u64).to_le_bytes());
        self.raw(b);
    }

    fn raw(&mut self, b: &[u8]) {
        for &x in b {
            self.fnv = (self.fnv ^ u64::from(x)).wrapping_mul(0x0100_0000_01b3);
        }
        self.sip.write(b);
    }

    fn text(&mut self, s: &str) {
        self.bytes(s.as_bytes());
    }

    fn path(&mut self, p: &Path) {
        self.bytes(p.as_os_str().as_encoded_bytes());
    }

    fn number(&mut self, n: u64) {
        self.raw(&n.to_le_bytes());
    }

    fn hex(&self) -> String {
        format!("{:016x}{:016x}", self.fnv, self.sip.finish())
    }
}

/// The cache key of one `--static` analysis. `options` names the
/// guidance options (they change which accesses and methods are listed).
pub fn key(
    static_paths: &[PathBuf],
    classpath: &[PathBuf],
    options: &str,
) -> Result<String, String> {
    let mut h = KeyHasher::new();
    h.text(ENTRY_HEADER);
    h.text(env!("CARGO_PKG_VERSION"));
    h.text(options);
    let exe = std::env::current_exe().map_err(|e| format!("the running binary: {e}"))?;
    stamp(&mut h, &exe)?;
    for (role, entries) in [("application", static_paths), ("class path", classpath)] {
        h.text(role);
        let (paths, _) = lockstep_classpath::expand_classpath(entries);
        for p in paths {
            contents(&mut h, &p)?;
        }
    }
    jdk(&mut h)?;
    Ok(h.hex())
}

/// Size and modification time of a file (for files too big to hash).
fn stamp(h: &mut KeyHasher, p: &Path) -> Result<(), String> {
    let meta = std::fs::metadata(p).map_err(|e| format!("{}: {e}", p.display()))?;
    let mtime = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as u64);
    h.path(p);
    h.number(meta.len());
    h.number(mtime);
    Ok(())
}

/// A class file, jar or directory: names and contents (a directory's
/// class files and archives, recursively, in name order).
fn contents(h: &mut KeyHasher, p: &Path) -> Result<(), String> {
    h.path(p);
    let meta = match std::fs::metadata(p) {
        Ok(m) => m,
        Err(_) => {
            // Missing: the analysis reports it; the key only records it.
            h.text("missing");
            return Ok(());
        }
    };
    if meta.is_file() {
        let bytes = std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()))?;
        h.bytes(&bytes);
        return Ok(());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(p)
        .map_err(|e| format!("{}: {e}", p.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    entries.sort();
    for e in entries {
        let wanted = e.is_dir()
            || e.extension()
                .and_then(|x| x.to_str())
                .is_some_and(|x| CLASS_FILE_EXTENSIONS.contains(&x));
        if wanted {
            contents(h, &e)?;
        }
    }
    Ok(())
}

/// The JDK `Workspace::load` will use: its home, `release` file and the
/// stamps of its class containers; none found is part of the key too.
fn jdk(h: &mut KeyHasher) -> Result<(), String> {
    let Ok(home) = lockstep_classpath::find_jdk(None) else {
        h.text("no jdk");
        return Ok(());
    };
    h.path(&home);
    h.bytes(&std::fs::read(home.join("release")).unwrap_or_default());
    let sources = lockstep_classpath::jdk_class_sources(&home).map_err(|p| p.to_string())?;
    for s in sources {
        stamp(h, &s)?;
    }
    Ok(())
}

/// The entry file of `key`.
pub fn entry_path(key: &str) -> PathBuf {
    crate::run::cache_dir()
        .join("guidance")
        .join(format!("{key}.txt"))
}

/// A cached entry, if there is one that reads back as guidance.
pub fn read(path: &Path) -> Option<(String, GuidanceStats)> {
    let text = std::fs::read_to_string(path).ok()?;
    let (first, guidance) = text.split_once('\n')?;
    let counts = first.strip_prefix(ENTRY_HEADER)?;
    let n: Vec<usize> = counts
        .split_whitespace()
        .map(str::parse)
        .collect::<Result<_, _>>()
        .ok()?;
    let [accesses, skipped, atomic, monitors] = n[..] else {
        return None;
    };
    Guidance::parse(guidance).ok()?;
    let stats = GuidanceStats {
        accesses,
        skipped,
        atomic,
        monitors,
    };
    Some((guidance.to_owned(), stats))
}

/// Stores an entry: a temporary file in the same directory, renamed into
/// place (concurrent runs writing the same key write the same bytes).
pub fn write(path: &Path, guidance: &str, stats: &GuidanceStats) -> Result<(), String> {
    let dir = path.parent().ok_or("cache path without a directory")?;
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let text = format!(
        "{ENTRY_HEADER} {} {} {} {}\n{guidance}",
        stats.accesses, stats.skipped, stats.atomic, stats.monitors
    );
    let tmp = dir.join(format!(
        ".{}.{}-{}.tmp",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("entry"),
        std::process::id(),
        crate::run::unique()
    ));
    std::fs::write(&tmp, text).map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("cannot store {}: {e}", path.display())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_follows_contents_and_options_not_times() {
        let dir = tempfile::tempdir().unwrap();
        let classes = dir.path().join("classes");
        std::fs::create_dir_all(classes.join("p")).unwrap();
        std::fs::write(classes.join("p/A.class"), b"one").unwrap();
        std::fs::write(classes.join("notes.txt"), b"ignored").unwrap();
        let app = [classes.clone()];
        let k1 = key(&app, &[], "o").unwrap();
        assert_eq!(k1.len(), 32);
        // Same contents, rewritten: same key.
        std::fs::write(classes.join("p/A.class"), b"one").unwrap();
        std::fs::write(classes.join("notes.txt"), b"other").unwrap();
        assert_eq!(key(&app, &[], "o").unwrap(), k1);
        // Other options, other contents, another class file: other keys.
        assert_ne!(key(&app, &[], "p").unwrap(), k1);
        std::fs::write(classes.join("p/A.class"), b"two").unwrap();
        let k2 = key(&app, &[], "o").unwrap();
        assert_ne!(k2, k1);
        std::fs::write(classes.join("p/B.class"), b"").unwrap();
        assert_ne!(key(&app, &[], "o").unwrap(), k2);
        // The same paths as application or as class path differ.
        assert_ne!(key(&[], &app, "o").unwrap(), key(&app, &[], "o").unwrap());
    }

    #[test]
    fn entries_round_trip_and_damaged_ones_are_misses() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/k.txt");
        let mut g = Guidance::default();
        g.skip_access("a/A", "m", "()V", 3);
        g.atomic_method("a/A", "get", "()I");
        g.elide_monitors("a/A", "inc", "()V");
        let stats = GuidanceStats {
            accesses: 5,
            skipped: 1,
            atomic: 1,
            monitors: 1,
        };
        write(&path, &g.to_text(), &stats).unwrap();
        let (text, back) = read(&path).unwrap();
        assert_eq!(Guidance::parse(&text).unwrap(), g);
        assert_eq!(
            (back.accesses, back.skipped, back.atomic, back.monitors),
            (5, 1, 1, 1)
        );
        // No temporary file is left behind.
        assert_eq!(
            std::fs::read_dir(dir.path().join("sub")).unwrap().count(),
            1
        );
        for damaged in [
            "",
            "lockstep-guidance-cache 2 5 1 1\nlockstep-guidance 1\n",
            "lockstep-guidance-cache 2 5 1 1 1\nnot guidance\n",
            // An entry of the first version (no monitor count) is a miss.
            "lockstep-guidance-cache 1 5 1 1\nlockstep-guidance 1\n",
            "other 1 2 3\nlockstep-guidance 1\n",
        ] {
            std::fs::write(&path, damaged).unwrap();
            assert!(read(&path).is_none(), "{damaged:?}");
        }
        assert!(read(&dir.path().join("absent.txt")).is_none());
    }
}
