//! Locating javac and running it on a fixture's sources through the cache.

use std::ffi::OsStr;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use crate::cache::{self, cache_root, CACHE_FORMAT};
use crate::error::CompileError;
use crate::expect::{expectations, Expectation};
use crate::fixture::{read_java_dir, validate, SourceFile};
use crate::hash::KeyHasher;

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
    let entry = cache::get_or_build(&root, &key, |dir| build_entry(dir, &javac, opts, sources))?;
    Ok(CompiledFixture {
        classes_dir: entry.classes_dir,
        sources: sources.to_vec(),
        classes: entry.classes,
        cache_hit: entry.cache_hit,
        key,
        javac_output: entry.javac_output,
    })
}

/// Writes the sources into `dir/src` and runs javac into `dir/classes`.
fn build_entry(
    dir: &Path,
    javac: &JavaCompiler,
    opts: &CompileOptions,
    sources: &[SourceFile],
) -> Result<cache::Built, CompileError> {
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
    Ok(cache::Built {
        log: output,
        description: format!("{}\n$ {command}", javac.version),
    })
}

/// Compiles every `.java` file under `dir` (recursively), in sorted order of
/// their `/`-separated paths relative to `dir`, which become the
/// [`SourceFile::path`]s — so lay fixtures out by package:
/// `tests/fixtures/<case>/com/x/A.java`.
pub fn compile_dir(dir: &Path, opts: &CompileOptions) -> Result<CompiledFixture, CompileError> {
    let sources = read_java_dir(dir)?;
    compile(&sources, opts)
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
