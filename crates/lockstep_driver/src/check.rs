//! One check: lower, entry points, call graph, shared facts, detectors,
//! report. Each step is a phase reported to the caller's [`Progress`].

use lockstep_detectors::{Context, Needs, Options, Output, RuleSet};
use lockstep_facts::SharedFacts;
use lockstep_program::{entry_points, rta, LowerStats, Stats};
use lockstep_report::{Finding, Report, Scope, Summary};
use rayon::prelude::*;

use crate::load::Workspace;
use crate::Progress;

/// What to check and how.
#[derive(Debug, Clone, Default)]
pub struct CheckSettings {
    pub rules: RuleSet,
    /// Analyse as a library: every public method may run concurrently.
    pub open: bool,
    pub points_to: lockstep_pointsto::Config,
    pub options: Options,
    /// Collect `--stats` lines.
    pub stats: bool,
}

/// What a check produced.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// Findings and input problems, sorted and deduplicated.
    pub report: Report,
    /// Explanation lines the settings asked for (`--explain`, `--explain-atomicity`).
    pub explanations: Vec<String>,
    /// Statistics lines (with `stats`), without timings.
    pub stats: Vec<String>,
}

impl Workspace {
    /// Runs the enabled rules.
    pub fn check(&self, settings: &CheckSettings, progress: &mut dyn Progress) -> Outcome {
        let (outputs, open_program, stats, scope) = self.with_context(settings, progress, |cx| {
            let detectors = lockstep_detectors::enabled(settings.rules);
            prefetch_facts(cx.facts, &detectors, cx.progress());
            cx.phase("detectors");
            let outputs: Vec<Output> = detectors.par_iter().map(|d| d.run(&cx.context)).collect();
            let stats = settings.stats.then(|| self.stats_lines(cx, settings));
            let scope =
                crate::scope::scope(&self.program, cx.context.entries, cx.context.call_graph);
            (outputs, cx.context.open_program(), stats, scope)
        });
        progress.phase("render");
        let mut findings: Vec<Finding> = Vec::new();
        let mut explanations = Vec::new();
        let mut stats = stats.unwrap_or_default();
        for out in outputs {
            findings.extend(out.findings);
            explanations.extend(out.explanation);
            if settings.stats {
                stats.extend(out.stats);
            }
        }
        findings.retain(|f| f.rule.parse().is_ok_and(|r| settings.rules.contains(r)));
        Outcome {
            report: self.report(findings, open_program, scope),
            explanations,
            stats,
        }
    }

    /// Runs `f` on the detector context a check builds: the application
    /// lowered, the entry points (`settings.open`), the RTA call graph and
    /// the shared facts (computed on first use). Tests use it to run one
    /// detector, or to look at a detector's overview.
    pub fn with_context<T>(
        &self,
        settings: &CheckSettings,
        progress: &mut dyn Progress,
        f: impl FnOnce(&mut Session<'_, '_>) -> T,
    ) -> T {
        let program = &self.program;
        progress.phase("lower");
        let lowered = program.lower_all_application();
        progress.phase("call graph");
        let entries = entry_points(program, settings.open);
        let cg = rta(program, &entries);
        let facts = SharedFacts::new(
            program,
            &entries,
            facts_settings(settings, entries.mode.is_open()),
        );
        let context = Context {
            program,
            call_graph: &cg,
            entries: &entries,
            facts: &facts,
            rules: settings.rules,
            options: &settings.options,
        };
        let mut session = Session {
            context,
            facts: &facts,
            lowered,
            progress,
        };
        f(&mut session)
    }

    fn report(&self, findings: Vec<Finding>, open_program: bool, scope: Scope) -> Report {
        let mut report = Report::new(env!("CARGO_PKG_VERSION"));
        report.findings = findings;
        report.problems = self.problems.clone();
        report.problems.extend(self.program_problems());
        report.summary = Summary {
            classes: self.app_classes,
            methods: self.app_methods,
            open_program,
            scope: Some(scope),
        };
        report.normalize();
        report
    }

    fn stats_lines(&self, session: &Session<'_, '_>, settings: &CheckSettings) -> Vec<String> {
        let lowered = &session.lowered;
        let entries = session.context.entries;
        let cg = session.context.call_graph;
        let facts = session.facts;
        let mut lines = vec![format!(
            "input: {} application classes, {} methods, {} bytes",
            self.app_classes, self.app_methods, self.app_bytes
        )];
        if let Some(home) = &self.jdk {
            lines.push(format!("jdk: {}", home.display()));
        }
        lines.push(format!(
            "lowered: {} application methods ({} failed), {} statements",
            lowered.lowered, lowered.failed, lowered.statements
        ));
        lines.push(Stats::collect(&self.program, None, Some(cg)).to_string());
        lines.push(format!(
            "entry points: {} ({}): {} mains, {} library entries; {} classes reached from mains, {} entered as a library",
            entries.methods.len(),
            entries.mode.describe(),
            entries.scope.mains,
            entries.harness.len(),
            entries.scope.program_classes,
            entries.scope.library_classes
        ));
        let rules: Vec<&str> = settings.rules.iter().map(|r| r.as_str()).collect();
        lines.push(format!("rules: {}", rules.join(", ")));
        if let Some(races) = facts.races_if_computed() {
            let started = races
                .roots
                .iter()
                .filter(|r| matches!(r.kind, lockstep_facts::threads::RootKind::Start(_)))
                .count();
            lines.push(format!(
                "thread roots: {} ({started} thread starts), {} method contexts",
                races.roots.len(),
                races.graph.len()
            ));
        }
        if let Some(pt) = facts.points_to_if_computed() {
            let s = pt.stats();
            lines.push(format!(
                "points-to: {}, {} reachable methods, {} method contexts, {} objects, {} facts, {} thread starts",
                s.config,
                s.reachable_methods,
                s.method_contexts,
                s.objects,
                s.points_to_facts,
                pt.thread_starts().len()
            ));
        }
        lines
    }
}

/// A detector context being used, with what the driver knows around it.
pub struct Session<'s, 'p> {
    pub context: Context<'s>,
    facts: &'s SharedFacts<'s>,
    lowered: LowerStats,
    progress: &'p mut dyn Progress,
}

impl Session<'_, '_> {
    /// The application methods `non-atomic-method` proves atomic at every
    /// call site it reaches them from (whether or not that rule is
    /// enabled), in method-id order: the static half of `lockstep run
    /// --static` with an atomicity checker.
    pub fn proven_atomic_methods(&self) -> Vec<lockstep_program::MethodId> {
        let mut methods =
            lockstep_detectors::non_atomic_method::analyse(&self.context).atomic_methods;
        methods.sort();
        methods
    }
}

impl<'p> Session<'_, 'p> {
    fn phase(&mut self, name: &'static str) {
        self.progress.phase(name);
    }

    fn progress(&mut self) -> &mut dyn Progress {
        &mut *self.progress
    }
}

/// `open_program` is the entry points' mode: a library without `main` is
/// analysed as open even without `--open`.
fn facts_settings(settings: &CheckSettings, open_program: bool) -> lockstep_facts::Settings {
    lockstep_facts::Settings {
        open_program,
        every_class: settings.options.open_every_class,
        points_to: settings.points_to,
        explain_field: settings.options.explain_field.clone(),
    }
}

/// Computes the facts the enabled detectors read before they run, each
/// as its own phase (they would be computed on first use anyway).
fn prefetch_facts(
    facts: &SharedFacts<'_>,
    detectors: &[&'static dyn lockstep_detectors::Detector],
    progress: &mut dyn Progress,
) {
    if detectors.iter().any(|d| d.needs() >= Needs::RaceFacts) {
        progress.phase("points-to");
        facts.points_to();
        progress.phase("race facts");
        facts.races();
    }
}
