//! `lockstep check`: arguments to settings, the driver's check, the
//! rendered report on stdout (or `-o`), explanations and statistics on
//! stderr, and the exit code.

use std::io::Write;

use lockstep_detectors::{Options, RuleSet};
use lockstep_driver::{CheckSettings, Outcome, Progress, Workspace};
use lockstep_report::{render, RenderOptions};

use crate::args::{CheckArgs, Format, PointsToMode, UnknownCalleesMode};
use crate::progress::Phases;

impl Progress for Phases {
    fn phase(&mut self, name: &'static str) {
        self.start(name);
    }
}

pub fn run(args: &CheckArgs) -> u8 {
    crate::init_threads(args.input.threads);
    let mut rules = match RuleSet::from_selection(&args.select, &args.ignore) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    // A bad types file is an error before minutes of analysis.
    let declared_types = match crate::types::read(args.types.as_deref()) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    if args.types.is_some() {
        rules.insert(lockstep_detectors::RuleId::NonAtomicMethod);
    }
    // Refuse an unwritable `-o` now, not after minutes of analysis.
    if let Some(path) = &args.output {
        if let Err(e) = crate::preflight::writable(path) {
            eprintln!("error: cannot write the report: {e}");
            return 2;
        }
    }
    // Traces first: a bad one is an error before minutes of analysis.
    let traces = match crate::evidence::read_traces(&args.evidence) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let mut phases = Phases::new(!args.quiet && !args.no_progress);
    // The budget counts from here: reading the inputs is part of the check.
    let budget = budget(args);
    phases.start("read and parse");
    let workspace = match Workspace::load(&crate::inputs(&args.input)) {
        Ok(w) => w,
        Err(e) => {
            phases.finish();
            eprintln!("error: {e}");
            return 2;
        }
    };
    let mut settings = settings(args, rules);
    settings.options.declared_types = declared_types;
    // A field named without its package, when only one field fits.
    let explain = args
        .explain
        .as_deref()
        .map(|field| crate::explain_hint::resolve(workspace.program(), field));
    if let Some((field, note)) = &explain {
        settings.options.explain_field = Some(field.clone());
        if let Some(note) = note {
            eprintln!("{note}");
        }
    }
    if let Some(budget) = budget {
        settings.budget = budget;
    }
    let mut outcome = workspace.check(&settings, &mut phases);
    // After the check: missing classes are met while lowering.
    let warnings = workspace.warnings();
    // Suppressions and baseline (crate::post).
    if let Err(e) = crate::post::apply(&mut outcome.report, workspace.program(), args) {
        phases.finish();
        eprintln!("error: {e}");
        return 2;
    }
    if !traces.is_empty() {
        phases.start("evidence");
        crate::evidence::apply(&mut outcome.report, &traces, args.quiet);
    }
    // After suppressions, so a suppressed finding stays listed as such
    // whatever its confidence.
    if let Some(min) = args.min_confidence {
        outcome.report.retain_confidence(min);
    }
    let text = render(
        &outcome.report,
        args.format.unwrap_or(Format::Text).into(),
        &RenderOptions {
            color: crate::terminal::color(args.color, args.output.is_none()),
            rules: crate::rule_docs::report_rules(args.file_settings.help_uri_base.as_deref()),
            source_root: args.file_settings.source_root.clone(),
            sources: crate::sources::load(&outcome.report, args),
            ..RenderOptions::default()
        },
    );
    let total = phases.finish();
    if let Err(e) = write_report(args, &text) {
        eprintln!("error: cannot write the report: {e}");
        return 2;
    }
    if let Some(hint) = explain
        .as_ref()
        .and_then(|(field, _)| crate::explain_hint::unknown_field(workspace.program(), field))
    {
        eprintln!("{hint}");
    }
    print_explanations(args, rules, &outcome);
    if args.stats {
        print_stats(&outcome, &phases, total);
    } else if !args.quiet && args.output.is_some() {
        if let Some(counts) = lockstep_report::EvidenceCounts::of(&outcome.report) {
            eprintln!("{}", counts.line());
        }
        eprintln!("{}", lockstep_report::summary_line(&outcome.report));
    }
    if !args.quiet {
        for warning in &warnings {
            eprintln!("warning: {warning}");
        }
    }
    if args.fail_on_problems && !outcome.report.problems.is_empty() {
        eprintln!("{}", problems_failure(&outcome.report));
        return 2;
    }
    outcome.report.exit_code() as u8
}

/// Why `--fail-on-problems` failed the run.
fn problems_failure(report: &lockstep_report::Report) -> String {
    use lockstep_report::ProblemKind;
    let unreadable = report.problems_of_kind(ProblemKind::Unreadable).len();
    let missing = report.problems_of_kind(ProblemKind::MissingClass).len();
    format!(
        "error: --fail-on-problems: {unreadable} unreadable input(s), {missing} class(es) missing from the class path (listed in the report)"
    )
}

fn settings(args: &CheckArgs, rules: RuleSet) -> CheckSettings {
    CheckSettings {
        rules,
        open: args.open,
        points_to: lockstep_pointsto::Config {
            container_models: !args.no_container_models,
            ..match args.points_to {
                PointsToMode::TwoObject => lockstep_pointsto::Config::default(),
                PointsToMode::Insensitive => lockstep_pointsto::Config::insensitive(),
            }
        },
        options: Options {
            include_library_witnesses: args.include_library_witnesses,
            open_every_class: args.open_every_class,
            unknown_callees: match args.unknown_callees {
                UnknownCalleesMode::Distinct => {
                    lockstep_detectors::stale_value::UnknownCallees::Distinct
                }
                UnknownCalleesMode::Local => lockstep_detectors::stale_value::UnknownCallees::Local,
            },
            explain_field: args.explain.clone(),
            explain_atomicity: args.explain_atomicity,
            declared_types: Vec::new(),
        },
        stats: args.stats,
        budget: lockstep_detectors::Budget::unlimited(),
    }
}

fn write_report(args: &CheckArgs, text: &str) -> Result<(), String> {
    match &args.output {
        Some(path) => {
            std::fs::write(path, text.as_bytes()).map_err(|e| format!("{}: {e}", path.display()))
        }
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes())
                .and_then(|_| out.flush())
                .map_err(|e| format!("standard output: {e}"))
        }
    }
}

/// The budget of `--max-time` and `--max-memory`, from now; `None`
/// without either. A memory budget where memory cannot be read is
/// dropped with a warning.
fn budget(args: &CheckArgs) -> Option<lockstep_detectors::Budget> {
    let deadline = args
        .max_time
        .and_then(|t| std::time::Instant::now().checked_add(t));
    let memory = args.max_memory.filter(|_| {
        let readable = crate::memory::readable();
        if !readable {
            eprintln!(
                "warning: --max-memory is ignored: this system does not report the process's memory (/proc/self/status)"
            );
        }
        readable
    });
    if deadline.is_none() && memory.is_none() {
        return None;
    }
    let budget = deadline.map_or_else(
        lockstep_detectors::Budget::unlimited,
        lockstep_detectors::Budget::until,
    );
    Some(match memory {
        Some(bytes) => budget.with_memory(lockstep_detectors::MemoryCap {
            bytes,
            probe: lockstep_pointsto::MemoryProbe(crate::memory::resident),
        }),
        None => budget,
    })
}

/// `--explain` and `--explain-atomicity` output, or why there is none.
fn print_explanations(args: &CheckArgs, rules: RuleSet, outcome: &Outcome) {
    for line in &outcome.explanations {
        eprintln!("{line}");
    }
    let data_race = lockstep_detectors::RuleId::DataRace;
    if args.explain.is_some() && !rules.contains(data_race) {
        eprintln!("note: --explain needs the data-race rule (--select data-race)");
    }
    let atomicity = lockstep_detectors::RuleId::NonAtomicMethod;
    if args.explain_atomicity && !rules.contains(atomicity) {
        eprintln!(
            "note: --explain-atomicity needs the non-atomic-method rule (--select non-atomic-method)"
        );
    }
}

fn print_stats(outcome: &Outcome, phases: &Phases, total: std::time::Duration) {
    eprintln!("lockstep {} statistics", env!("CARGO_PKG_VERSION"));
    for line in &outcome.stats {
        eprintln!("{line}");
    }
    eprintln!(
        "detector times: its own CPU time (its thread's, without the shared facts it computed, \
         which the `race facts time:` line times, or parts of its parallel loops other threads ran), \
         then its wall time from start to end (waits for the facts included)"
    );
    eprintln!("time per phase:");
    for (name, d) in &phases.timings {
        eprintln!("  {name:<14} {:>8.1} ms", d.as_secs_f64() * 1000.0);
        if *name == "detectors" {
            // The rules run in parallel, beside the facts computed after
            // the level they read: a detector's wall time includes waiting
            // for those facts' class loads, so its own cost is its CPU time
            // (shared facts it computed on first use are timed under their
            // own names on the `race facts time:` line).
            for (rules, t) in &outcome.detector_times {
                eprintln!(
                    "    {rules:<40} CPU {:>8.1} ms, wall {:>8.1} ms",
                    t.cpu.as_secs_f64() * 1000.0,
                    t.wall.as_secs_f64() * 1000.0
                );
            }
        }
    }
    eprintln!("  {:<14} {:>8.1} ms", "total", total.as_secs_f64() * 1000.0);
}
