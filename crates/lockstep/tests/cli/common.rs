//! Shared helpers: running the binary, compiling fixtures, building archives.

use std::path::{Path, PathBuf};
use std::process::Command;

use lockstep_testkit::{compile, read_java_dir, CompileOptions, CompiledFixture};
use serde_json::Value;

/// What one run of the binary produced.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// The standard output parsed as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not valid JSON ({e}):\n{}\nstderr:\n{}",
                self.stdout, self.stderr
            )
        })
    }

    /// Asserts the exit code, showing the output when it differs.
    #[track_caller]
    pub fn expect_code(&self, code: i32) -> &Run {
        assert_eq!(
            self.code, code,
            "unexpected exit code\nstdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        self
    }
}

/// The rules a `check` of these tests runs when it chooses none: the
/// default rules plus `reacquired-lock`, which is off by default (its
/// sampled precision is below the bar) but is the pattern the bundled
/// example and most input fixtures demonstrate. Tests of the default
/// selection itself use [`lockstep_as_is`].
pub const TEST_RULES: &str = "reacquired-lock,blocking-under-lock,wait-notify";

/// Runs `lockstep` with `args`; a `check` that names no rules (no
/// `--select`/`--ignore`) gets `--select` [`TEST_RULES`]. Asserts that it
/// exited normally and never panicked.
#[track_caller]
pub fn lockstep<I, S>(args: I) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let mut args: Vec<std::ffi::OsString> =
        args.into_iter().map(|a| a.as_ref().to_os_string()).collect();
    let chooses_rules = args.iter().any(|a| {
        let a = a.to_string_lossy();
        a.starts_with("--select") || a.starts_with("--ignore")
    });
    if args.first().is_some_and(|a| a == "check") && !chooses_rules {
        args.push("--select".into());
        args.push(TEST_RULES.into());
    }
    lockstep_as_is(args)
}

/// Runs `lockstep` with exactly `args`; asserts that it exited normally
/// and never panicked.
#[track_caller]
pub fn lockstep_as_is<I, S>(args: I) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_lockstep"));
    cmd.args(args);
    // Deterministic, uncolored output regardless of the caller's terminal.
    cmd.env("NO_COLOR", "1");
    let out = cmd.output().expect("cannot run the lockstep binary");
    let run = Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(out.stderr).expect("stderr is UTF-8"),
    };
    assert!(
        !run.stderr.contains("panicked"),
        "lockstep panicked:\n{}",
        run.stderr
    );
    assert!(
        out.status.code().is_some(),
        "lockstep was killed by a signal\nstderr:\n{}",
        run.stderr
    );
    run
}

/// `lockstep check <args> --format json --quiet`, with the JSON parsed.
#[track_caller]
pub fn check_json<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> (Run, Value) {
    let mut all: Vec<std::ffi::OsString> = vec!["check".into()];
    all.extend(args.iter().map(|a| a.as_ref().to_os_string()));
    all.extend(["--format".into(), "json".into(), "--quiet".into()]);
    let run = lockstep(&all);
    let json = run.json();
    (run, json)
}

pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("crates/lockstep has a workspace root")
        .to_path_buf()
}

/// The bundled example, `examples/inventory`, compiled with debug info.
pub fn example() -> CompiledFixture {
    let src = workspace_root().join("examples/inventory/src");
    let sources = read_java_dir(&src).expect("read the example sources");
    compile(&sources, &CompileOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// The example's classes directory as an argument.
pub fn example_dir() -> PathBuf {
    example().classes_dir
}

/// A JDK tool (`jar`, `jmod`): `$JAVA_HOME/bin/<name>` if it exists, else
/// the one next to the testkit's javac, else `<name>` on PATH.
pub fn jdk_tool(name: &str) -> PathBuf {
    let exe = format!("{name}{}", std::env::consts::EXE_SUFFIX);
    if let Some(home) = std::env::var_os("JAVA_HOME").filter(|h| !h.is_empty()) {
        let p = Path::new(&home).join("bin").join(&exe);
        if p.is_file() {
            return p;
        }
    }
    if let Ok(javac) = lockstep_testkit::javac() {
        // Resolve symlinks such as /usr/bin/javac -> /usr/lib/jvm/.../bin/javac.
        let real = std::fs::canonicalize(javac.path()).unwrap_or(javac.path().to_path_buf());
        if let Some(p) = real.parent().map(|bin| bin.join(&exe)) {
            if p.is_file() {
                return p;
            }
        }
    }
    PathBuf::from(name)
}

/// Runs a JDK tool and asserts it succeeded.
#[track_caller]
pub fn run_tool(name: &str, args: &[&std::ffi::OsStr]) {
    let tool = jdk_tool(name);
    let out = Command::new(&tool)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", tool.display()));
    assert!(
        out.status.success(),
        "{} failed: {}{}",
        tool.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `jar --create` of everything in `classes` into `jar`; `store` leaves the
/// entries uncompressed (so their bytes can be found and damaged).
pub fn make_jar(classes: &Path, jar: &Path, store: bool) {
    let mut args: Vec<&std::ffi::OsStr> = vec!["--create".as_ref()];
    if store {
        args.push("--no-compress".as_ref());
    }
    args.extend([
        "--file".as_ref(),
        jar.as_os_str(),
        "-C".as_ref(),
        classes.as_os_str(),
        ".".as_ref(),
    ]);
    run_tool("jar", &args);
}

/// `jmod create --class-path <classes> <jmod>`.
pub fn make_jmod(classes: &Path, jmod: &Path) {
    run_tool(
        "jmod",
        &[
            "create".as_ref(),
            "--class-path".as_ref(),
            classes.as_os_str(),
            jmod.as_os_str(),
        ],
    );
}

/// Copies every file under `from` into `to`, keeping the layout.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for item in std::fs::read_dir(from).unwrap() {
        let item = item.unwrap();
        let target = to.join(item.file_name());
        if item.file_type().unwrap().is_dir() {
            copy_tree(&item.path(), &target);
        } else {
            std::fs::copy(item.path(), target).unwrap();
        }
    }
}

/// The findings array of a JSON report.
pub fn findings(json: &Value) -> &Vec<Value> {
    json["findings"].as_array().expect("findings is an array")
}

/// The problems array of a JSON report.
pub fn problems(json: &Value) -> &Vec<Value> {
    json["problems"].as_array().expect("problems is an array")
}

/// The rules of all findings, sorted and deduplicated.
pub fn rules_of(json: &Value) -> Vec<String> {
    let mut rules: Vec<String> = findings(json)
        .iter()
        .map(|f| f["rule"].as_str().unwrap().to_string())
        .collect();
    rules.sort();
    rules.dedup();
    rules
}

/// A class with no locks and no threads: nothing to report.
pub const PLAIN: &str = "package t.plain;\n\
public class Plain {\n\
    private int n;\n\
    public int next() { return ++n; }\n\
    public static void main(String[] args) { System.out.println(new Plain().next()); }\n\
}\n";

/// `lockstep check <example> --format json --quiet` with the JDK, run once
/// per test binary: with the JDK's call graph it is the slowest run of the
/// suite, and several tests look at it.
pub fn example_json_with_jdk() -> &'static Run {
    static RUN: std::sync::OnceLock<Run> = std::sync::OnceLock::new();
    RUN.get_or_init(|| {
        let dir = example_dir();
        lockstep([
            "check".as_ref(),
            dir.as_os_str(),
            "--format".as_ref(),
            "json".as_ref(),
            "--quiet".as_ref(),
        ])
    })
}

/// The example's source directory for `com.example.inventory`.
pub fn example_source(file: &str) -> PathBuf {
    workspace_root()
        .join("examples/inventory/src/com/example/inventory")
        .join(file)
}

/// The 1-based line of the first line of `file` that contains `needle`.
#[track_caller]
pub fn line_of(file: &Path, needle: &str) -> u64 {
    let text = std::fs::read_to_string(file).unwrap();
    let index = text
        .lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("`{needle}` not in {}", file.display()));
    index as u64 + 1
}
