//! Command-line arguments.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use lockstep_report::OutputFormat;

#[derive(Debug, Parser)]
#[command(
    name = "lockstep",
    version,
    about = "Finds concurrency bugs in JVM programs: races, atomicity violations, stale values",
    long_about = None,
    propagate_version = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

// Parsed once per process; boxing the big variant would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Analyse class files, class directories, jars, jmods or a JDK image and report findings.
    Check(CheckArgs),
    /// Run a Java program under lockstep's recorder and report the races and deadlocks observed:
    /// `lockstep run [OPTIONS] -- java [JVM options] (MAIN | -jar APP.jar) [ARGS]`.
    Run(RunArgs),
    /// Check saved run traces (`lockstep run --trace`) for data races and deadlocks.
    CheckTrace(crate::check_trace::CheckTraceArgs),
    /// List the rules, or show the documentation of one.
    Rules {
        /// A rule id, e.g. `reacquired-lock`.
        rule: Option<String>,
    },
    /// Internals for debugging and snapshot tests.
    #[command(hide = true, subcommand)]
    Debug(DebugCommand),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Concise,
    Json,
    Sarif,
    Github,
}

impl From<Format> for OutputFormat {
    fn from(f: Format) -> Self {
        match f {
            Format::Text => OutputFormat::Text,
            Format::Concise => OutputFormat::Concise,
            Format::Json => OutputFormat::Json,
            Format::Sarif => OutputFormat::Sarif,
            Format::Github => OutputFormat::Github,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// Where the program comes from; shared by `check` and the debug commands.
#[derive(Debug, Args, Clone)]
pub struct InputArgs {
    /// Application inputs: .class files, class directories, jars (also Spring Boot jars, WARs, EARs), .jmod files, or a JDK `lib/modules` image. Default: `inputs` of lockstep.toml.
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Libraries read for their behaviour but never reported on (jars, directories, jmods). Separate with ':' or repeat.
    #[arg(
        long = "classpath",
        short = 'c',
        visible_alias = "cp",
        value_name = "PATHS",
        value_delimiter = ':'
    )]
    pub classpath: Vec<PathBuf>,
    /// Module path entries (jars or directories of jars), read as libraries like -cp. Separate with ':' or repeat.
    #[arg(
        long = "module-path",
        short = 'p',
        value_name = "PATHS",
        value_delimiter = ':'
    )]
    pub module_path: Vec<PathBuf>,
    /// JDK home whose classes are loaded lazily (default: $JAVA_HOME, else the `java` on PATH).
    #[arg(long, value_name = "DIR")]
    pub jdk: Option<PathBuf>,
    /// Analyse without any JDK classes.
    #[arg(long, conflicts_with = "jdk")]
    pub no_jdk: bool,
    /// Worker threads (default: number of cores). Output does not depend on it.
    #[arg(long, short = 'j', value_name = "N")]
    pub threads: Option<usize>,
}

/// How stale-value summarises calls it cannot see.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum UnknownCalleesMode {
    Distinct,
    Local,
}

/// How precise (and costly) the points-to analysis is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PointsToMode {
    #[value(name = "2obj")]
    TwoObject,
    Insensitive,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Output format [default: text].
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Write the report to FILE instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Run only these rules (comma-separated ids); also enables rules that are off by default.
    #[arg(long, value_delimiter = ',', value_name = "RULES")]
    pub select: Vec<String>,
    /// Do not run these rules (comma-separated ids).
    #[arg(long, value_delimiter = ',', value_name = "RULES")]
    pub ignore: Vec<String>,
    /// Analyse as a library: every public method of every public class may run concurrently with every other.
    #[arg(long)]
    pub open: bool,
    /// Report reacquired-lock witnesses inside self-synchronized JDK classes (Vector, StringBuffer, ...) too.
    #[arg(long)]
    pub include_library_witnesses: bool,
    /// stale-value: calls to code lockstep cannot see (missing classes, natives outside the JDK, reflection) take no lock (`local`, the default: unknown is not reported as stale) or a lock of their own (`distinct`, sound, noisy).
    #[arg(long, value_enum, value_name = "MODE", default_value = "local")]
    pub unknown_callees: UnknownCalleesMode,
    /// data-race: also report pairs that only an assumed outside caller (--open, or code no main reaches) makes concurrent when nothing shows the field or either method is meant for concurrent use (by default those are not races).
    #[arg(long)]
    pub open_every_class: bool,
    /// data-race: explain every pair of accesses of this field (`pkg.Class.name`; `Class.name` when one field fits), and of the elements or contents of the arrays and JDK containers it holds, and why each is or is not a race; printed on stderr.
    #[arg(long, value_name = "FIELD")]
    pub explain: Option<String>,
    /// non-atomic-method: print the inferred guard of every field and the atomicity of every method on stderr.
    #[arg(long)]
    pub explain_atomicity: bool,
    /// Points-to sensitivity for data-race: `2obj` (default: 2-object-sensitive, 1-object heap) or `insensitive` (cheaper, less precise, for very large programs).
    #[arg(long, value_name = "MODE", default_value = "2obj")]
    pub points_to: PointsToMode,
    /// Points-to: summarise the non-thread-safe JDK containers (HashMap, ArrayList, ...) as content models, one set of contents per container object, instead of analysing their bytecode (the default; kept for scripts that pass it).
    #[arg(long, overrides_with = "no_container_models")]
    pub container_models: bool,
    /// Points-to: analyse the JDK containers' bytecode instead of their content models (the behaviour before session 19; storage past the context bound is shared by every container).
    #[arg(long, overrides_with = "container_models")]
    pub no_container_models: bool,
    /// Print nothing but the report (no summary on stderr, no progress).
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Print counts and time per phase on stderr.
    #[arg(long)]
    pub stats: bool,
    /// Time budget in seconds (fractions allowed) from the start of the check: once it is spent, the rules stop refining and report what they have (a rule's remaining methods are skipped, the reacquired-lock-pair search stops early, rules not yet started do not run), and the report names every rule that was cut and what it left out. Points-to stops making new contexts once 40% of the time left when the check starts is spent, and stops solving at 60% (the report names the cut); reading and the race facts always run to the end. What gets cut depends on the machine's speed, so output is no longer deterministic; `0` cuts every budgeted step. Without it, nothing is cut.
    #[arg(long, value_name = "SECS", value_parser = parse_seconds)]
    pub max_time: Option<std::time::Duration>,
    /// Memory budget in MiB for the whole process (resident memory, read from `/proc/self/statm`; Linux only, elsewhere a warning and no budget): points-to stops making new contexts once memory reaches 60% of it and stops solving at 75%, and rules stop refining once it is reached, as with `--max-time` (the report names every cut). Reading and the race facts always run to the end, so the process can still use more. What gets cut depends on memory use, so output is no longer deterministic. Without it, nothing is cut.
    #[arg(long, value_name = "MIB", value_parser = parse_mebibytes)]
    pub max_memory: Option<u64>,
    /// Colors in text output.
    #[arg(long, value_enum, default_value = "auto")]
    pub color: ColorChoice,
    /// Never show a progress bar.
    #[arg(long)]
    pub no_progress: bool,
    /// Report only findings not listed in this baseline file (see --write-baseline).
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Write the findings of this run to FILE as a baseline.
    #[arg(long, value_name = "FILE")]
    pub write_baseline: Option<PathBuf>,
    /// Exit 2 when any input could not be read or a class the program references is missing from the class path (for CI: never pass on a partial analysis).
    #[arg(long)]
    pub fail_on_problems: bool,
    /// Report only findings of at least this confidence: high, medium or low (default: all). Each rule's docs say what makes its findings high or low.
    #[arg(long, value_name = "LEVEL")]
    pub min_confidence: Option<lockstep_report::Confidence>,
    /// Directories of Java sources, to show the code of each finding (separate with ':' or repeat). Default: `src/main/java` and `src/test/java` beside or above each input, and under the current directory.
    #[arg(long, value_name = "DIRS", value_delimiter = ':')]
    pub source_path: Vec<PathBuf>,
    /// Make SARIF and `github` locations relative to this directory (the repository root). Default: the git root of the current directory.
    #[arg(long, value_name = "DIR")]
    pub source_root: Option<PathBuf>,
    /// Confirm findings by runs: a trace written by `lockstep run --trace` (repeat for several runs). Each `data-race`, `deadlock` and `non-atomic-method` finding is marked observed, reached or not reached in the runs; observed ones are listed first.
    #[arg(long, value_name = "TRACE")]
    pub evidence: Vec<PathBuf>,
    /// Race-free types discovered from runs (`lockstep check-trace --discover-types`): the static guard inference checks each guard and read-only type, reports it accepted or refuted (naming the access that refutes it) on stderr, and uses the accepted ones. Enables non-atomic-method, the rule that reads them.
    #[arg(long, value_name = "FILE")]
    pub types: Option<PathBuf>,
    /// Settings only lockstep.toml gives (suppression patterns, ...).
    #[arg(skip)]
    pub file_settings: crate::config::FileSettings,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Write the report to FILE instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Keep a copy of the trace in FILE (for `lockstep check-trace`).
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// Write the run as Chrome trace-event JSON (open in Perfetto or chrome://tracing).
    #[arg(long, value_name = "FILE")]
    pub timeline: Option<PathBuf>,
    /// After SECS seconds, record every thread's stack, held and awaited locks, stop the JVM and report what was seen (a cycle of threads waiting for each other's locks is a `deadlock` finding).
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<u64>,
    /// Record only classes in these packages (`com.example.*`; separate with ',' or repeat).
    #[arg(long, value_delimiter = ',', value_name = "PATTERNS")]
    pub include: Vec<String>,
    /// Do not record classes in these packages.
    #[arg(long, value_delimiter = ',', value_name = "PATTERNS")]
    pub exclude: Vec<String>,
    /// Do not record method entry and exit (smaller traces, faster runs).
    #[arg(long)]
    pub no_method_events: bool,
    /// Atomicity checkers to run as well (rule `non-atomic-method`; none by default; separate with ',').
    #[arg(long, value_enum, value_delimiter = ',', value_name = "CHECKERS")]
    pub atomicity: Vec<AtomicityChoice>,
    /// More transactions for the atomicity checkers: `pkg.Class.method` patterns (`*` matches anything; separate with ','). Without `--atomicity`, runs all of them.
    #[arg(long, value_delimiter = ',', value_name = "PATTERNS")]
    pub atomic: Vec<String>,
    /// Static guidance: analyse these classes, jars or directories first (the application; the `java` command's class path is read as libraries) and leave the field and array accesses proven race-free without probes.
    #[arg(long = "static", value_name = "PATHS", num_args = 1.., value_delimiter = ':')]
    pub static_paths: Vec<PathBuf>,
    /// `--static`: do not reuse or store the guidance in the cache (`$XDG_CACHE_HOME/lockstep/guidance`; also `LOCKSTEP_NO_CACHE=1`).
    #[arg(long)]
    pub no_cache: bool,
    /// After the run, check these classes statically (data-race, deadlock, non-atomic-method) and report their findings marked with what the run showed (`check --evidence` in one command).
    #[arg(long, value_name = "PATHS", num_args = 1.., value_delimiter = ':')]
    pub evidence_for: Vec<PathBuf>,
    /// Print nothing but the report (no summary on stderr).
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Colors in text output.
    #[arg(long, value_enum, default_value = "auto")]
    pub color: ColorChoice,
    /// The program: `java [JVM options] (MAIN | -jar APP.jar) [ARGS]`, after `--`.
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub command: Vec<std::ffi::OsString>,
}

/// An atomicity checker (paper 003; rule `non-atomic-method`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AtomicityChoice {
    /// Reduction (R* N? L*), each access classified by its lockset at that moment.
    ReductionOnline,
    /// Reduction, each access classified by its variable's final lockset.
    ReductionOffline,
    /// 1v/2v blocks: every feasible interleaving of two transactions' blocks serializable, then cycles of three.
    BlockBased,
    /// The observed run's conflict graph of transactions has no cycle (Velodrome-style).
    Serializability,
    /// All four.
    All,
}

/// The checkers and patterns as the run-time engine takes them; patterns
/// alone turn every checker on.
pub fn atomic_spec(
    choices: &[AtomicityChoice],
    patterns: &[String],
) -> lockstep_dynamic::AtomicSpec {
    let all =
        choices.contains(&AtomicityChoice::All) || (choices.is_empty() && !patterns.is_empty());
    let on = |c| all || choices.contains(&c);
    lockstep_dynamic::AtomicSpec {
        reduction_online: on(AtomicityChoice::ReductionOnline),
        reduction_offline: on(AtomicityChoice::ReductionOffline),
        blocks: on(AtomicityChoice::BlockBased),
        serializability: on(AtomicityChoice::Serializability),
        patterns: patterns.to_vec(),
    }
}

#[derive(Debug, Subcommand)]
pub enum DebugCommand {
    /// Print the IR of methods: `lockstep debug ir <PATH>... --method pkg.Class.name`.
    Ir {
        #[command(flatten)]
        input: InputArgs,
        /// `pkg.Class` (every method) or `pkg.Class.method` (every overload); binary names with `$` for nested classes.
        #[arg(long, short = 'm', value_name = "CLASS[.METHOD]")]
        method: String,
    },
    /// Print the call graph edges from application methods.
    Callgraph {
        #[command(flatten)]
        input: InputArgs,
        /// Use CHA instead of RTA.
        #[arg(long)]
        cha: bool,
        /// Analyse as a library.
        #[arg(long)]
        open: bool,
    },
    /// Read, parse and lower every method of the inputs (no call graph, no
    /// rules), validate the IR, and print counts and times: the benchmark of
    /// the front end.
    Lower {
        #[command(flatten)]
        input: InputArgs,
        /// Also run the IR validator on every body.
        #[arg(long)]
        validate: bool,
    },
    /// Print thread roots with their start sites.
    Threads {
        #[command(flatten)]
        input: InputArgs,
        /// Analyse as a library.
        #[arg(long)]
        open: bool,
    },
    /// Print what the RTA call graph reaches per package (methods,
    /// statements) and the shortest call chain into each package.
    Reach {
        #[command(flatten)]
        input: InputArgs,
        /// Analyse as a library.
        #[arg(long)]
        open: bool,
        /// Print only the packages with the most statements.
        #[arg(long, default_value_t = 40)]
        top: usize,
    },
}

/// `--max-memory`: a whole, positive number of MiB, in bytes.
fn parse_mebibytes(text: &str) -> Result<u64, String> {
    let mib: u64 = text.trim().parse().ok().filter(|&n| n > 0).ok_or_else(|| {
        format!("`{text}` is not a memory budget (a whole number of MiB, 1 or more)")
    })?;
    mib.checked_mul(1 << 20)
        .ok_or_else(|| format!("`{text}` MiB is more memory than can be counted"))
}

/// `--max-time`: a finite, non-negative number of seconds.
fn parse_seconds(text: &str) -> Result<std::time::Duration, String> {
    let secs: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a number of seconds"))?;
    std::time::Duration::try_from_secs_f64(secs)
        .map_err(|_| format!("`{text}` is not a time budget (a number of seconds, 0 or more)"))
}
