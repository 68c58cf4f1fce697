//! `lockstep check-trace`: runs the run-time race checkers and the
//! lock-order (`deadlock`) checker over saved traces (several runs
//! together) and prints the findings like `check`.
//! Exit codes as `check`: 0 no finding, 1 findings, 2 bad input (a trace
//! that cannot be opened or holds nothing readable). A truncated trace
//! still reports what it holds; the reader's notes go to standard error.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use lockstep_dynamic::{check_traces, CheckerSet, Options};
use lockstep_report::{render, InputProblem, OutputFormat, RenderOptions, Report};

use crate::args::{ColorChoice, Format};

/// Which run-time checker to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CheckerChoice {
    /// Eraser with escape, read-only, start/join and multi-lockset extensions.
    Lockset,
    /// Vector clocks with FastTrack's epochs.
    HappensBefore,
    /// Lock-order graph (GoodLock) and the hang dump's wait-for cycle: rule `deadlock`.
    Deadlock,
    /// Atomicity, reduction with on-line classification: rule `non-atomic-method`.
    ReductionOnline,
    /// Atomicity, reduction with off-line (final lockset) classification.
    ReductionOffline,
    /// Atomicity, 1v/2v blocks, pairwise and multi-transaction.
    BlockBased,
    /// Atomicity, conflict serializability of the run (Velodrome-style).
    Serializability,
    /// The four atomicity checkers.
    Atomicity,
    /// The race and deadlock checkers (the atomicity ones are asked for by name).
    All,
}

#[derive(Debug, Args)]
pub struct CheckTraceArgs {
    /// Trace files written by `lockstep run --trace`.
    #[arg(required = true, value_name = "TRACE")]
    pub traces: Vec<PathBuf>,
    /// The checker to run.
    #[arg(long, value_enum, default_value = "all")]
    pub checker: CheckerChoice,
    /// More transactions for the atomicity checkers: `pkg.Class.method` patterns (`*` matches anything; separate with ','). With `--checker all`, adds the four atomicity checkers.
    #[arg(long, value_delimiter = ',', value_name = "PATTERNS")]
    pub atomic: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Write the report to FILE instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Also write the run as Chrome trace-event JSON (Perfetto, chrome://tracing).
    #[arg(long, value_name = "FILE")]
    pub timeline: Option<PathBuf>,
    /// Colors in text output.
    #[arg(long, value_enum, default_value = "auto")]
    pub color: ColorChoice,
    /// Type discovery instead of checking: write the race-free types of the fields the runs accessed to FILE (JSON, docs/types-format.md; for `check --types`) and print the suggested annotations and the share of fields typed.
    #[arg(long, value_name = "FILE")]
    pub discover_types: Option<PathBuf>,
}

fn checker_set(choice: CheckerChoice) -> CheckerSet {
    let all = choice == CheckerChoice::All;
    CheckerSet {
        lockset: all || choice == CheckerChoice::Lockset,
        happens_before: all || choice == CheckerChoice::HappensBefore,
    }
}

fn atomicity(choice: CheckerChoice, patterns: &[String]) -> lockstep_dynamic::AtomicSpec {
    use crate::args::AtomicityChoice as A;
    let picked = match choice {
        CheckerChoice::ReductionOnline => vec![A::ReductionOnline],
        CheckerChoice::ReductionOffline => vec![A::ReductionOffline],
        CheckerChoice::BlockBased => vec![A::BlockBased],
        CheckerChoice::Serializability => vec![A::Serializability],
        CheckerChoice::Atomicity => vec![A::All],
        CheckerChoice::All if !patterns.is_empty() => vec![A::All],
        _ => return lockstep_dynamic::AtomicSpec::default(),
    };
    crate::args::atomic_spec(&picked, patterns)
}

/// Reads the traces; those that cannot be opened or hold nothing are problems.
fn read_traces(paths: &[PathBuf]) -> (Vec<lockstep_trace::Trace>, Vec<InputProblem>) {
    let mut problems = Vec::new();
    let mut traces = Vec::new();
    for path in paths {
        let file = match std::fs::File::open(path) {
            Ok(f) => f,
            Err(e) => {
                problems.push(InputProblem::new(path.display().to_string(), e.to_string()));
                continue;
            }
        };
        let trace = lockstep_trace::read(std::io::BufReader::new(file));
        if trace.header.is_none() && trace.chunks.is_empty() {
            let why = trace
                .problems
                .first()
                .map_or("empty trace".to_string(), |p| p.to_string());
            problems.push(InputProblem::new(path.display().to_string(), why));
            continue;
        }
        for p in &trace.problems {
            eprintln!("note: {}: {p}", path.display());
        }
        traces.push(trace);
    }
    (traces, problems)
}

/// `--discover-types FILE`: the types file and the suggested annotations.
fn discover_types(args: &CheckTraceArgs, out: &PathBuf) -> u8 {
    let (traces, problems) = read_traces(&args.traces);
    for p in &problems {
        eprintln!("error: {}: {}", p.file, p.message);
    }
    let discovery = lockstep_dynamic::types::discover(&traces);
    if let Err(e) = std::fs::write(out, discovery.to_json()) {
        eprintln!("error: cannot write the types file: {}: {e}", out.display());
        return 2;
    }
    if let Err(e) = write_to(args.output.as_ref(), &discovery.to_text()) {
        eprintln!("error: cannot write the annotations: {e}");
        return 2;
    }
    if problems.is_empty() {
        0
    } else {
        2
    }
}

/// Runs the command; returns the exit code.
pub fn run(args: &CheckTraceArgs) -> u8 {
    if let Some(out) = &args.discover_types {
        return discover_types(args, out);
    }
    let (traces, problems) = read_traces(&args.traces);
    let options = Options {
        checkers: checker_set(args.checker),
        deadlocks: matches!(args.checker, CheckerChoice::All | CheckerChoice::Deadlock),
        timeline: args.timeline.is_some(),
        atomicity: atomicity(args.checker, &args.atomic),
        ..Options::default()
    };
    let outcome = check_traces(&traces, &options);
    for n in outcome
        .notes
        .iter()
        .filter(|n| !n.contains("trace at byte offset"))
    {
        eprintln!("note: {n}");
    }
    let mut report = Report::new(env!("CARGO_PKG_VERSION"));
    report.findings = outcome.findings;
    report.summary.classes = outcome.stats.classes;
    report.summary.methods = outcome.stats.methods;
    report.problems = problems;
    report.normalize();
    report.number_occurrences();
    let color = crate::terminal::color(args.color, args.output.is_none());
    let format: OutputFormat = args.format.into();
    let text = render(
        &report,
        format,
        &RenderOptions {
            color,
            ..RenderOptions::default()
        },
    );
    if let Err(e) = write_to(args.output.as_ref(), &text) {
        eprintln!("error: cannot write the report: {e}");
        return 2;
    }
    if let (Some(path), Some(json)) = (&args.timeline, &outcome.timeline) {
        if let Err(e) = std::fs::write(path, json) {
            eprintln!("error: cannot write the timeline: {}: {e}", path.display());
            return 2;
        }
    }
    if !report.problems.is_empty() {
        return 2;
    }
    report.exit_code() as u8
}

fn write_to(path: Option<&PathBuf>, text: &str) -> Result<(), String> {
    match path {
        Some(p) => std::fs::write(p, text).map_err(|e| format!("{}: {e}", p.display())),
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes())
                .and_then(|_| out.flush())
                .map_err(|e| format!("standard output: {e}"))
        }
    }
}
