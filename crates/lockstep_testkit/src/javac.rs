//! Locating javac, running it, and caching its output by content hash.

use std::ffi::OsStr;
use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::expect::{expectations, Expectation};
use crate::hash::KeyHasher;
use crate::snippet::snippet_path;

/// Bumped whenever the layout of a cache entry changes, so entries in the
/// old layout are simply never looked up again. (javac's arguments are part
/// of the key already.)
const CACHE_FORMAT: &str = "lockstep-javac-cache/1";

/// Written last into a cache entry before it is renamed into place; an entry
/// without it is not trusted.
const MANIFEST: &str = "manifest.txt";
/// javac's own output (warnings) for a successful compile.
const JAVAC_LOG: &str = "javac.log";

// ---------------------------------------------------------------------------
// Locating javac
// ---------------------------------------------------------------------------

/// A javac executable and the version it reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JavaCompiler {
    path: PathBuf,
    version: String,
}

impl JavaCompiler {
    /// Uses the javac at `path` (or, for a bare name such as `"javac"`, the
    /// first one on `PATH`), running `javac -version` to check it works.
    pub fn at(path: impl AsRef<Path>) -> Result<JavaCompiler, String> {
        let path = path.as_ref();
        let resolved = if path.components().count() == 1 && !path.is_file() {
            find_on_path(path.as_os_str())
                .ok_or_else(|| format!("`{}` not found on PATH", path.display()))?
        } else {
            path.to_path_buf()
        };
        let out = Command::new(&resolved)
            .arg("-version")
            .output()
            .map_err(|e| format!("cannot run `{} -version`: {e}", resolved.display()))?;
        // JDK 9+ prints the version on stdout, JDK 8 on stderr.
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let version = text
            .lines()
            .map(str::trim)
            .find(|l| l.starts_with("javac"))
            .map(str::to_string);
        match (out.status.success(), version) {
            (true, Some(version)) => Ok(JavaCompiler {
                path: resolved,
                version,
            }),
            _ => Err(format!(
                "`{} -version` did not report a javac version ({}): {}",
                resolved.display(),
                out.status,
                text.trim()
            )),
        }
    }

    /// The executable that is run.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What `javac -version` printed, e.g. `javac 17.0.15`.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// The feature release (`17` for `javac 17.0.15`, `8` for
    /// `javac 1.8.0_392`), for tests that need a language level.
    pub fn feature_version(&self) -> Option<u32> {
        let number = self.version.split_whitespace().nth(1)?;
        let mut parts = number.split(['.', '-', '+', '_']);
        let first: u32 = parts.next()?.parse().ok()?;
        if first == 1 {
            parts.next()?.parse().ok()
        } else {
            Some(first)
        }
    }
}

/// Finds javac: `$LOCKSTEP_JAVAC` if set (no fallback when it is set but
/// broken, since that is a configuration mistake worth hearing about), else
/// `$JAVA_HOME/bin/javac` if it exists, else `javac` on `PATH`.
///
/// The answer is computed once per process: `javac -version` takes about as
/// long as a JVM start, and every compile needs the version for its key.
pub fn javac() -> Result<JavaCompiler, String> {
    static FOUND: OnceLock<Result<JavaCompiler, String>> = OnceLock::new();
    FOUND.get_or_init(locate_javac).clone()
}

fn locate_javac() -> Result<JavaCompiler, String> {
    if let Some(explicit) = std::env::var_os("LOCKSTEP_JAVAC").filter(|v| !v.is_empty()) {
        return JavaCompiler::at(Path::new(&explicit)).map_err(|e| format!("LOCKSTEP_JAVAC: {e}"));
    }
    if let Some(home) = std::env::var_os("JAVA_HOME").filter(|v| !v.is_empty()) {
        let candidate = Path::new(&home).join("bin").join(exe_name("javac"));
        if candidate.is_file() {
            return JavaCompiler::at(candidate);
        }
    }
    match find_on_path(OsStr::new("javac")) {
        Some(p) => JavaCompiler::at(p),
        None => Err(
            "javac not found: set LOCKSTEP_JAVAC or JAVA_HOME, or put javac on PATH".to_string(),
        ),
    }
}

fn exe_name(name: &str) -> String {
    format!("{name}{}", std::env::consts::EXE_SUFFIX)
}

fn find_on_path(name: &OsStr) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    let mut file = name.to_os_string();
    if Path::new(name).extension().is_none() {
        file.push(std::env::consts::EXE_SUFFIX);
    }
    std::env::split_paths(&path)
        .map(|dir| dir.join(&file))
        .find(|p| p.is_file())
}

// ---------------------------------------------------------------------------
// Inputs and outputs
// ---------------------------------------------------------------------------

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

/// How to invoke javac. Build with struct update syntax:
/// `CompileOptions { release: Some(8), ..Default::default() }`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompileOptions {
    /// `--release N` (e.g. 8, 11, 17); `None` compiles for javac's own
    /// release.
    pub release: Option<u32>,
    /// `-g` (all debug info: lines, locals, source) when true, `-g:none`
    /// when false. Default true: finding locations need LineNumberTable.
    pub debug_info: bool,
    /// Passed to javac after the kit's own flags and before the sources.
    pub extra_args: Vec<String>,
    /// Use this javac instead of [`javac()`] (e.g. a newer JDK for a test
    /// that needs new bytecode). Part of the cache key through its path and
    /// version.
    pub compiler: Option<JavaCompiler>,
    /// Cache root for this call instead of [`cache_root()`]. Not part of the
    /// key. Mostly for the kit's own tests, which need a cold cache.
    pub cache_dir: Option<PathBuf>,
}

impl Default for CompileOptions {
    fn default() -> Self {
        CompileOptions {
            release: None,
            debug_info: true,
            extra_args: Vec::new(),
            compiler: None,
            cache_dir: None,
        }
    }
}

impl CompileOptions {
    /// Default options with `--release N`.
    pub fn release(n: u32) -> CompileOptions {
        CompileOptions {
            release: Some(n),
            ..CompileOptions::default()
        }
    }

    /// The javac flags these options stand for, in order (without `-d`,
    /// sources, or the locale and encoding flags the kit always adds).
    fn javac_flags(&self) -> Vec<String> {
        let mut flags = Vec::new();
        if let Some(n) = self.release {
            flags.push("--release".to_string());
            flags.push(n.to_string());
        }
        flags.push(if self.debug_info { "-g" } else { "-g:none" }.to_string());
        flags.extend(self.extra_args.iter().cloned());
        flags
    }
}

/// javac's output for a set of sources: a directory of class files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompiledFixture {
    /// Root of the class output (`-d`); `com/x/A.class` lives under it.
    /// Shared by every test that compiles the same input: treat as
    /// read-only.
    pub classes_dir: PathBuf,
    /// The sources, in the order they were given (sorted for `compile_dir`).
    pub sources: Vec<SourceFile>,
    /// Internal names of the classes produced (`com/x/A`, `com/x/A$1`),
    /// sorted.
    pub classes: Vec<String>,
    /// True when the result came from the cache without running javac.
    pub cache_hit: bool,
    /// The cache key (hex), which is also the cache entry's directory name.
    pub key: String,
    /// What javac printed (warnings) when the entry was compiled.
    pub javac_output: String,
}

impl CompiledFixture {
    /// Absolute paths of every `.class` file, sorted by internal name.
    pub fn class_files(&self) -> Vec<PathBuf> {
        self.classes.iter().map(|c| self.class_path(c)).collect()
    }

    /// Where the class file for `name` is (or would be); accepts the
    /// internal (`com/x/A$B`) or binary (`com.x.A$B`) form.
    pub fn class_path(&self, name: &str) -> PathBuf {
        let mut p = self.classes_dir.clone();
        for part in name.split(['/', '.']) {
            p.push(part);
        }
        p.set_extension("class");
        p
    }

    /// The bytes of the class file for `name` (see [`Self::class_path`]).
    pub fn read_class(&self, name: &str) -> io::Result<Vec<u8>> {
        fs::read(self.class_path(name))
    }

    /// The `// expect:` comments of this fixture's sources.
    ///
    /// # Panics
    /// On a malformed directive; see [`crate::expectations`].
    pub fn expectations(&self) -> Vec<Expectation> {
        expectations(&self.sources)
    }
}

/// Why a compile did not produce classes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CompileError {
    /// No usable javac (see [`javac()`]).
    NoJavac(String),
    /// A source file's path is unusable, or two sources share a path.
    InvalidSource {
        /// The offending path as given.
        path: String,
        /// What is wrong with it.
        reason: String,
    },
    /// [`compile_dir`] found no `.java` files, or `compile` got an empty list.
    NoSources(String),
    /// Reading the fixture or writing the cache failed.
    Io {
        /// What was being done, with the path.
        context: String,
        /// The OS error.
        message: String,
    },
    /// javac ran and rejected the sources.
    Javac {
        /// The command line, for reproducing by hand.
        command: String,
        /// Exit code, if javac exited normally.
        status: Option<i32>,
        /// javac's stderr and stdout: the diagnostics.
        output: String,
    },
}

impl CompileError {
    fn io(context: impl Into<String>, err: io::Error) -> CompileError {
        CompileError::Io {
            context: context.into(),
            message: err.to_string(),
        }
    }
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CompileError::NoJavac(msg) => write!(f, "no javac: {msg}"),
            CompileError::InvalidSource { path, reason } => {
                write!(f, "invalid source `{path}`: {reason}")
            }
            CompileError::NoSources(what) => write!(f, "no Java sources: {what}"),
            CompileError::Io { context, message } => write!(f, "{context}: {message}"),
            CompileError::Javac {
                command,
                status,
                output,
            } => {
                let status = status.map_or("killed by a signal".to_string(), |c| {
                    format!("exit code {c}")
                });
                write!(f, "javac failed ({status})\n$ {command}\n{output}")
            }
        }
    }
}

impl std::error::Error for CompileError {}

// ---------------------------------------------------------------------------
// The cache
// ---------------------------------------------------------------------------

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
/// `[workspace]`.
fn workspace_root() -> Option<PathBuf> {
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

/// Every javac argument except the source files. javac runs in the entry's
/// `src` dir, so nothing here depends on where the entry is built, and all of
/// it goes into the cache key.
fn javac_args(opts: &CompileOptions) -> Vec<String> {
    let mut args: Vec<String> = vec![
        // Diagnostics in English whatever the machine's locale, so tests can
        // match on them.
        "-J-Duser.language=en".into(),
        "-J-Duser.country=US".into(),
        "-encoding".into(),
        "UTF-8".into(),
        // Fixtures never need annotation processors, and scanning the
        // classpath for them would make the output depend on the machine.
        "-proc:none".into(),
        "-d".into(),
        "../classes".into(),
    ];
    args.extend(opts.javac_flags());
    args
}

fn cache_key(javac: &JavaCompiler, opts: &CompileOptions, sources: &[SourceFile]) -> String {
    let mut h = KeyHasher::new();
    h.field("format", CACHE_FORMAT.as_bytes());
    h.field("javac-path", javac.path.to_string_lossy().as_bytes());
    h.field("javac-version", javac.version.as_bytes());
    // javac reads extra options from this variable, so it changes the output.
    let env_opts = std::env::var("JDK_JAVAC_OPTIONS").unwrap_or_default();
    h.field("JDK_JAVAC_OPTIONS", env_opts.as_bytes());
    for arg in javac_args(opts) {
        h.field("arg", arg.as_bytes());
    }
    for s in sources {
        h.field("source-path", s.path.as_bytes());
        h.field("source-text", s.text.as_bytes());
    }
    h.finish_hex()
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

fn validate(sources: &[SourceFile]) -> Result<(), CompileError> {
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

/// Compiles `sources` with javac, or returns the cached classes of an
/// identical earlier compile.
///
/// The key hashes javac's path and version, the flags, and every source's
/// path and text. A miss compiles into a fresh private directory under the
/// cache root and then renames it to `<root>/<key>` in one step, so readers
/// never see a half-written entry; when another process won that race, its
/// (identical) entry is used and ours is discarded. Failed compiles are not
/// cached.
pub fn compile(
    sources: &[SourceFile],
    opts: &CompileOptions,
) -> Result<CompiledFixture, CompileError> {
    validate(sources)?;
    let javac = match &opts.compiler {
        Some(c) => c.clone(),
        None => javac().map_err(CompileError::NoJavac)?,
    };
    let root = opts.cache_dir.clone().unwrap_or_else(cache_root);
    let key = cache_key(&javac, opts, sources);
    let entry = root.join(&key);

    if entry.join(MANIFEST).is_file() {
        return load_entry(&entry, key, sources, true);
    }

    fs::create_dir_all(&root)
        .map_err(|e| CompileError::io(format!("creating cache root {}", root.display()), e))?;
    remove_stale_temp_dirs(&root);
    let tmp = create_unique_dir(&root)?;
    let built = build_entry(&tmp, &javac, opts, sources, &key);
    if let Err(e) = built {
        // Best effort: a leftover temp dir is harmless, only untidy.
        let _ = fs::remove_dir_all(&tmp);
        return Err(e);
    }
    publish(&tmp, &entry, &root)?;
    load_entry(&entry, key, sources, false)
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

/// Writes the sources into `dir/src`, runs javac into `dir/classes`, and
/// writes the log and (last) the manifest.
fn build_entry(
    dir: &Path,
    javac: &JavaCompiler,
    opts: &CompileOptions,
    sources: &[SourceFile],
    key: &str,
) -> Result<(), CompileError> {
    let src = dir.join("src");
    let classes = dir.join("classes");
    for s in sources {
        let path = src.join(s.path.replace('/', std::path::MAIN_SEPARATOR_STR));
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)
                .map_err(|e| CompileError::io(format!("creating {}", parent.display()), e))?;
        }
        fs::write(&path, &s.text)
            .map_err(|e| CompileError::io(format!("writing {}", path.display()), e))?;
    }
    fs::create_dir_all(&classes)
        .map_err(|e| CompileError::io(format!("creating {}", classes.display()), e))?;

    let mut args = javac_args(opts);
    // Relative paths (javac runs in `src`) keep diagnostics short:
    // `com/x/A.java:3: error: ...`.
    args.extend(sources.iter().map(|s| s.path.clone()));

    let command = format!("{} {}", javac.path.display(), args.join(" "));
    let out = Command::new(&javac.path)
        .args(&args)
        .current_dir(&src)
        .output()
        .map_err(|e| CompileError::io(format!("running {}", javac.path.display()), e))?;
    let output = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    if !out.status.success() {
        return Err(CompileError::Javac {
            command,
            status: out.status.code(),
            output,
        });
    }
    let log = dir.join(JAVAC_LOG);
    fs::write(&log, &output)
        .map_err(|e| CompileError::io(format!("writing {}", log.display()), e))?;
    let manifest = format!(
        "{CACHE_FORMAT}\nkey {key}\n{}\n$ {command}\n",
        javac.version
    );
    let mpath = dir.join(MANIFEST);
    fs::write(&mpath, manifest)
        .map_err(|e| CompileError::io(format!("writing {}", mpath.display()), e))
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

fn load_entry(
    entry: &Path,
    key: String,
    sources: &[SourceFile],
    cache_hit: bool,
) -> Result<CompiledFixture, CompileError> {
    let classes_dir = entry.join("classes");
    let mut classes = Vec::new();
    list_classes(&classes_dir, "", &mut classes)
        .map_err(|e| CompileError::io(format!("listing {}", classes_dir.display()), e))?;
    classes.sort();
    let javac_output = fs::read_to_string(entry.join(JAVAC_LOG)).unwrap_or_default();
    Ok(CompiledFixture {
        classes_dir,
        sources: sources.to_vec(),
        classes,
        cache_hit,
        key,
        javac_output,
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

// ---------------------------------------------------------------------------
// Conveniences
// ---------------------------------------------------------------------------

/// Compiles every `.java` file under `dir` (recursively), in sorted order of
/// their `/`-separated paths relative to `dir`, which become the
/// [`SourceFile::path`]s — so lay fixtures out by package:
/// `tests/fixtures/<case>/com/x/A.java`.
pub fn compile_dir(dir: &Path, opts: &CompileOptions) -> Result<CompiledFixture, CompileError> {
    let sources = read_java_dir(dir)?;
    compile(&sources, opts)
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

/// Compiles one source text with default options, naming the file after its
/// first public top-level type (else its first top-level type) and placing
/// it under its `package` directory.
pub fn compile_snippet(class_src: &str) -> Result<CompiledFixture, CompileError> {
    compile_snippet_with(class_src, &CompileOptions::default())
}

/// [`compile_snippet`] with explicit options.
pub fn compile_snippet_with(
    class_src: &str,
    opts: &CompileOptions,
) -> Result<CompiledFixture, CompileError> {
    let source = SourceFile::from_snippet(class_src)?;
    compile(std::slice::from_ref(&source), opts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jc(version: &str) -> JavaCompiler {
        JavaCompiler {
            path: PathBuf::from("/x/javac"),
            version: version.to_string(),
        }
    }

    #[test]
    fn feature_versions() {
        assert_eq!(jc("javac 17.0.15").feature_version(), Some(17));
        assert_eq!(jc("javac 1.8.0_392").feature_version(), Some(8));
        assert_eq!(jc("javac 25").feature_version(), Some(25));
        assert_eq!(jc("javac 26-ea").feature_version(), Some(26));
        assert_eq!(jc("javac").feature_version(), None);
    }

    #[test]
    fn key_depends_on_every_input() {
        let a = [SourceFile::new("A.java", "class A {}")];
        let base = cache_key(&jc("javac 17"), &CompileOptions::default(), &a);
        assert_eq!(
            base,
            cache_key(&jc("javac 17"), &CompileOptions::default(), &a)
        );
        assert_ne!(
            base,
            cache_key(&jc("javac 18"), &CompileOptions::default(), &a)
        );
        assert_ne!(
            base,
            cache_key(&jc("javac 17"), &CompileOptions::release(8), &a)
        );
        let no_debug = CompileOptions {
            debug_info: false,
            ..Default::default()
        };
        assert_ne!(base, cache_key(&jc("javac 17"), &no_debug, &a));
        let b = [SourceFile::new("p/A.java", "class A {}")];
        assert_ne!(
            base,
            cache_key(&jc("javac 17"), &CompileOptions::default(), &b)
        );
        let c = [SourceFile::new("A.java", "class A { }")];
        assert_ne!(
            base,
            cache_key(&jc("javac 17"), &CompileOptions::default(), &c)
        );
        // The cache location is not part of the key.
        let elsewhere = CompileOptions {
            cache_dir: Some(PathBuf::from("/elsewhere")),
            ..Default::default()
        };
        assert_eq!(base, cache_key(&jc("javac 17"), &elsewhere, &a));
    }

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

    #[test]
    fn class_path_accepts_both_name_forms() {
        let f = CompiledFixture {
            classes_dir: PathBuf::from("/c"),
            sources: vec![],
            classes: vec!["com/x/A$B".into()],
            cache_hit: false,
            key: String::new(),
            javac_output: String::new(),
        };
        let want = Path::new("/c/com/x/A$B.class");
        assert_eq!(f.class_path("com/x/A$B"), want);
        assert_eq!(f.class_path("com.x.A$B"), want);
        assert_eq!(f.class_files(), vec![want.to_path_buf()]);
    }
}
