//! `lockstep check`: load, build the program model, run the detectors, render.

use std::collections::BTreeSet;
use std::io::Write;

use lockstep_detectors::{Context, Options};
use lockstep_program::{entry_points, rta, thread_roots, Program, Stats};
use lockstep_report::{render, OutputFormat, RenderOptions, Report, Summary};
use rayon::prelude::*;

use crate::args::{CheckArgs, PointsToMode, UnknownCalleesMode};
use crate::load::{load, program_problem, Loaded};
use crate::progress::Phases;

pub fn run(args: &CheckArgs) -> u8 {
    crate::init_threads(args.input.threads);
    let enabled = match lockstep_detectors::enabled_rules(&args.select, &args.ignore) {
        Ok(e) => e,
        Err(msg) => {
            eprintln!("error: {msg}");
            return 2;
        }
    };
    let mut phases = Phases::new(!args.quiet && !args.no_progress);
    phases.start("read and parse");
    let Loaded {
        app,
        origins,
        libraries,
        mut problems,
        app_bytes,
        jdk,
    } = match load(&args.input) {
        Ok(l) => l,
        Err(e) => {
            phases.finish();
            eprintln!("error: {}", e.0);
            return 2;
        }
    };
    let app_classes = app.len() as u64;
    let app_methods: u64 = app.iter().map(|(_, c)| c.methods.len() as u64).sum();
    let program = Program::new(app, Box::new(libraries));

    phases.start("lower");
    let lowered = program.lower_all_application();
    phases.start("call graph");
    let entries = entry_points(&program, args.open);
    let open_program = entries.mode.is_open();
    let cg = rta(&program, &entries);
    phases.start("thread roots");
    let roots = thread_roots(&program, &cg);

    let atomicity_rule = lockstep_detectors::non_atomic_method::NON_ATOMIC_METHOD.id;
    let points_to = if enabled.contains(lockstep_detectors::data_race::DATA_RACE.id)
        || enabled.contains(atomicity_rule)
    {
        phases.start("points-to");
        let config = match args.points_to {
            PointsToMode::TwoObject => lockstep_pointsto::Config::default(),
            PointsToMode::Insensitive => lockstep_pointsto::Config::insensitive(),
        };
        Some(lockstep_pointsto::PointsTo::solve(
            &program, &entries, config,
        ))
    } else {
        None
    };

    phases.start("detectors");
    let options = Options {
        include_library_witnesses: args.include_library_witnesses,
        open_every_class: args.open_every_class,
        unknown_callees: match args.unknown_callees {
            UnknownCalleesMode::Distinct => {
                lockstep_detectors::stale_value::UnknownCallees::Distinct
            }
            UnknownCalleesMode::Local => lockstep_detectors::stale_value::UnknownCallees::Local,
        },
    };
    let cx = Context {
        program: &program,
        call_graph: &cg,
        thread_roots: &roots,
        open_program,
        entries: &entries,
        points_to: points_to.as_ref(),
        enabled: &enabled,
        options: &options,
    };
    // non-atomic-method is run here rather than with the others: its
    // overview (guards, atomicities, counts) feeds --explain-atomicity
    // and --stats.
    let detectors: Vec<_> = lockstep_detectors::all()
        .into_iter()
        .filter(|d| !d.rules().iter().any(|r| r.id == atomicity_rule))
        .collect();
    let (mut findings, atomicity) = rayon::join(
        || -> Vec<_> { detectors.par_iter().flat_map_iter(|d| d.run(&cx)).collect() },
        || {
            enabled
                .contains(atomicity_rule)
                .then(|| lockstep_detectors::non_atomic_method::analyse(&cx))
        },
    );
    if let Some(a) = &atomicity {
        findings.extend(a.findings.iter().cloned());
    }
    findings.retain(|f| enabled.contains(&f.rule));
    let explanation = match &args.explain {
        Some(field) if points_to.is_some() => {
            phases.start("explain");
            Some(lockstep_detectors::data_race::explain(&cx, field))
        }
        _ => None,
    };

    phases.start("render");
    // Missing super types are grouped by the missing class: one absent jar
    // explains many classes. Without a JDK, JDK types are expected missing.
    let mut missing: std::collections::BTreeMap<std::sync::Arc<str>, Vec<String>> =
        Default::default();
    for p in program.problems() {
        if let Some(class) = &p.missing_class {
            let jdk_type = ["java/", "javax/", "jdk/", "sun/"]
                .iter()
                .any(|pre| class.starts_with(pre));
            if !(jdk.is_none() && jdk_type) {
                missing
                    .entry(class.clone())
                    .or_default()
                    .push(p.origin.clone());
            }
            continue;
        }
        let message = match &p.method {
            Some(m) => format!("{m}: {}", p.message),
            None => p.message.clone(),
        };
        problems.push(program_problem(&origins, &p.origin, message));
    }
    for (class, needed_by) in &missing {
        let first = needed_by.first().cloned().unwrap_or_default();
        let n = needed_by.len();
        let who = if n == 1 {
            "1 class extends or implements it"
        } else {
            "classes extend or implement it"
        };
        let who = if n == 1 {
            who.to_string()
        } else {
            format!("{n} {who}")
        };
        let message = format!(
            "{} is not on the class path ({who}); add the jar that defines it with -cp",
            class.replace('/', ".")
        );
        problems.push(program_problem(&origins, &first, message));
    }
    let mut report = Report::new(env!("CARGO_PKG_VERSION"));
    report.findings = findings;
    report.problems = problems;
    report.summary = Summary {
        classes: app_classes,
        methods: app_methods,
        open_program,
    };
    report.normalize();
    // Suppressions, baseline (crate::post).
    if let Err(e) = crate::post::apply(&mut report, &program, args) {
        phases.finish();
        eprintln!("error: {e}");
        return 2;
    }
    let format: OutputFormat = args.format.unwrap_or(crate::args::Format::Text).into();
    let color = crate::terminal::color(args.color, args.output.is_none());
    let rules = crate::rule_docs::report_rules(args.file_settings.help_uri_base.as_deref());
    let text = render(
        &report,
        format,
        &RenderOptions {
            color,
            rules,
            source_root: args.file_settings.source_root.clone(),
            ..RenderOptions::default()
        },
    );
    let total = phases.finish();

    let written = match &args.output {
        Some(path) => {
            std::fs::write(path, text.as_bytes()).map_err(|e| format!("{}: {e}", path.display()))
        }
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes())
                .and_then(|_| out.flush())
                .map_err(|e| format!("standard output: {e}"))
        }
    };
    if let Err(e) = written {
        eprintln!("error: cannot write the report: {e}");
        return 2;
    }

    if let Some(hint) = args
        .explain
        .as_deref()
        .and_then(|f| crate::explain_hint::unknown_field(&program, f))
    {
        eprintln!("{hint}");
    }
    if let Some(lines) = &explanation {
        for l in lines {
            eprintln!("{l}");
        }
    } else if args.explain.is_some() {
        eprintln!("note: --explain needs the data-race rule (--select data-race)");
    }

    if args.explain_atomicity {
        match &atomicity {
            Some(a) => {
                for l in a.explain_lines() {
                    eprintln!("{l}");
                }
            }
            None => eprintln!(
                "note: --explain-atomicity needs the non-atomic-method rule (--select non-atomic-method)"
            ),
        }
    }

    // -q: nothing but the report, whatever else was asked.
    if args.stats && !args.quiet {
        let stats = Stats::collect(&program, None, Some(&cg), Some(&roots));
        eprintln!("lockstep {} statistics", env!("CARGO_PKG_VERSION"));
        eprintln!(
            "input: {} application classes, {} methods, {} bytes",
            app_classes, app_methods, app_bytes
        );
        if let Some(home) = &jdk {
            eprintln!("jdk: {}", home.display());
        }
        eprintln!(
            "lowered: {} application methods ({} failed), {} statements",
            lowered.lowered, lowered.failed, lowered.statements
        );
        // `Stats` does not end its last line.
        eprintln!("{stats}");
        eprintln!(
            "entry points: {} ({})",
            entries.methods.len(),
            entries.mode.describe()
        );
        eprintln!(
            "rules: {}",
            enabled.iter().cloned().collect::<Vec<_>>().join(", ")
        );
        if let Some(pt) = &points_to {
            let s = pt.stats();
            eprintln!(
                "points-to: {}, {} reachable methods, {} method contexts, {} objects, {} facts, {} thread starts",
                s.config,
                s.reachable_methods,
                s.method_contexts,
                s.objects,
                s.points_to_facts,
                pt.thread_starts().len()
            );
        }
        if let Some(a) = &atomicity {
            let s = &a.stats;
            eprintln!(
                "atomicity: {} of {} reached methods proven atomic at every call site ({:.1}%), {} must be atomic, {} warnings ({} before clustering), {} fields typed, {} method evaluations",
                s.atomic_everywhere,
                s.reached,
                s.atomic_share(),
                s.must_be_atomic,
                s.warnings,
                s.warnings_before_clustering,
                s.fields,
                s.evaluations
            );
            eprintln!(
                "atomicity time: {:.1} ms race facts, {:.1} ms guards and atomicity inference",
                s.facts_time.as_secs_f64() * 1000.0,
                s.inference_time.as_secs_f64() * 1000.0
            );
        }
        eprintln!("time per phase:");
        for (name, d) in &phases.timings {
            eprintln!("  {name:<14} {:>8.1} ms", d.as_secs_f64() * 1000.0);
        }
        eprintln!("  {:<14} {:>8.1} ms", "total", total.as_secs_f64() * 1000.0);
    } else if !args.quiet && args.output.is_some() {
        eprintln!("{}", lockstep_report::summary_line(&report));
    }
    report.exit_code() as u8
}

/// Rule ids from `--select` that are valid (used by tests of the CLI).
#[allow(dead_code)]
pub fn enabled_for(select: &[String], ignore: &[String]) -> Result<BTreeSet<String>, String> {
    lockstep_detectors::enabled_rules(select, ignore)
}
