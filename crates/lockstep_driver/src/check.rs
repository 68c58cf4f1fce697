//! One check: lower, entry points, call graph, shared facts, detectors,
//! report. Each step is a phase reported to the caller's [`Progress`].

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, OnceLock};
use std::time::{Duration, Instant};

use lockstep_detectors::{
    Budget, BudgetKind, Context, Cut, Detector, Needs, Options, Output, RuleSet,
};
use lockstep_facts::SharedFacts;
use lockstep_program::{entry_points, rta, LowerStats, Stats};
use lockstep_report::{BudgetCut, Finding, Report, Scope, Summary};

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
    /// When detectors stop refining (`--max-time`); unlimited by default.
    pub budget: Budget,
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
    /// How long each detector ran, named by its enabled rules, in
    /// detector order. Empty for detectors the budget skipped.
    pub detector_times: Vec<(String, DetectorTime)>,
}

/// One detector's time.
#[derive(Debug, Clone, Copy)]
pub struct DetectorTime {
    /// The CPU time of the thread it ran on, from its start to its end,
    /// less other work measured on that thread meanwhile: shared facts it
    /// computed on first use (timed under their own names) and other
    /// detectors the pool ran there while it waited. Parts of its
    /// parallel loops that other threads ran are not counted.
    pub cpu: Duration,
    /// From its start to its end: detectors run in parallel with each
    /// other and with the facts computed after the level they read, so
    /// this includes waiting for classes those facts load, and for other
    /// threads' parts of its parallel loops.
    pub wall: Duration,
}

impl Workspace {
    /// Runs the enabled rules.
    pub fn check(&self, settings: &CheckSettings, progress: &mut dyn Progress) -> Outcome {
        let (ran, open_program, stats, scope, pt_cut) =
            self.with_context(settings, progress, |cx| {
                let ran = run_detectors(cx, settings.rules);
                let pt_cut = cx
                    .facts
                    .points_to_if_computed()
                    .and_then(|pt| pt.stats().budget_cut);
                let stats = settings.stats.then(|| self.stats_lines(cx, settings));
                let scope =
                    crate::scope::scope(&self.program, cx.context.entries, cx.context.call_graph);
                (ran, cx.context.open_program(), stats, scope, pt_cut)
            });
        progress.phase("render");
        let mut findings: Vec<Finding> = Vec::new();
        let mut explanations = Vec::new();
        let mut stats = stats.unwrap_or_default();
        let mut cuts = ran.skipped;
        for out in ran.outputs {
            findings.extend(out.findings);
            explanations.extend(out.explanation);
            if settings.stats {
                stats.extend(out.stats);
            }
            cuts.extend(out.cuts);
        }
        findings.retain(|f| f.rule.parse().is_ok_and(|r| settings.rules.contains(r)));
        let mut report = self.report(findings, open_program, scope);
        if let Some(kind) = settings.budget.kind() {
            let mut all = points_to_cuts(pt_cut, settings.rules);
            all.extend(budget_cuts(cuts, settings.rules));
            all.sort();
            report.budget_cuts = Some(all);
            report.budget_name = Some(budget_name(kind));
        }
        Outcome {
            report,
            explanations,
            stats,
            detector_times: ran.times,
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
            budget: settings.budget,
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
        report.number_occurrences();
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
            lines.push(race_facts_time(&races.timings, &facts.timings()));
            let (aside, only) = races.no_intent;
            lines.push(format!(
                "assumed-caller pairs without concurrent intent (not races): {aside} access statements, {only} of them in no race"
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
            lines.push(format!(
                "points-to bounds: {} calls past the context bounds, {} of them in a context of their calling method, {} stream pipelines called by JDK code (one shared copy, not one per calling method)",
                s.budget_fallbacks, s.per_caller_fallbacks, s.shared_pipeline_calls
            ));
            if pt.config().container_models {
                lines.push(format!(
                    "points-to container models: {} container calls modelled, {} calls back into the program",
                    s.modelled_calls, s.model_callbacks
                ));
            }
            let program = &self.program;
            lines.push(points_to_by("package", &pt.facts_by_package(program)));
            lines.push(points_to_by("class", &pt.facts_by_class(program)));
        }
        lines
    }
}

/// The `points-to by package:`/`by class:` lines: the packages or classes
/// holding the most points-to facts (variables of their methods, fields of
/// the objects they allocate), where the next JDK boundary entries come from.
fn points_to_by(group: &str, rows: &[lockstep_pointsto::PackageFacts]) -> String {
    const SHOWN: usize = 15;
    let parts: Vec<String> = rows
        .iter()
        .take(SHOWN)
        .map(|r| {
            format!(
                "{} {} ({} contexts)",
                r.package.replace('/', "."),
                r.facts(),
                r.method_contexts
            )
        })
        .collect();
    format!("points-to by {group}: {}", parts.join(", "))
}

/// The `race facts time:` line: each step of the race facts, then the
/// facts computed after them on demand (lock order), in milliseconds.
fn race_facts_time(steps: &[(&str, Duration)], shared: &[(&str, Duration)]) -> String {
    let ms = |(name, d): &(&str, Duration)| format!("{name} {:.1} ms", d.as_secs_f64() * 1000.0);
    let mut parts: Vec<String> = steps.iter().map(ms).collect();
    let later = shared
        .iter()
        .filter(|(name, _)| !matches!(*name, "points-to" | "race facts"));
    parts.extend(later.map(ms));
    format!("race facts time: {}", parts.join(", "))
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

/// `open_program` is the entry points' mode: a library without `main` is
/// analysed as open even without `--open`.
fn facts_settings(settings: &CheckSettings, open_program: bool) -> lockstep_facts::Settings {
    lockstep_facts::Settings {
        open_program,
        every_class: settings.options.open_every_class,
        points_to: lockstep_pointsto::Config {
            budget: points_to_budget(settings.budget, Instant::now()),
            ..settings.points_to
        },
        explain_field: settings.options.explain_field.clone(),
        locks_only: !lockstep_detectors::enabled(settings.rules)
            .iter()
            .any(|d| d.needs() == Needs::RaceFacts),
    }
}

/// Points-to's share of a budget, from `now` (before lowering): no new
/// contexts once 40% of the time left is spent or memory reaches 60% of
/// its cap, no more solving at 60% of the time or 75% of the memory, so
/// that the race facts and the rules keep the rest. `None` without a
/// budget (nothing is cut).
fn points_to_budget(budget: Budget, now: Instant) -> Option<lockstep_pointsto::SolveBudget> {
    budget.kind()?;
    let left = budget.deadline().map(|d| d.saturating_duration_since(now));
    Some(lockstep_pointsto::SolveBudget {
        contexts: left.map(|l| now + l.mul_f64(0.4)),
        stop: left.map(|l| now + l.mul_f64(0.6)),
        memory: budget.memory().map(|m| lockstep_pointsto::SolveMemory {
            probe: m.probe,
            contexts_at: share(m.bytes, 60),
            stop_at: share(m.bytes, 75),
        }),
    })
}

/// `percent`% of `bytes`.
fn share(bytes: u64, percent: u64) -> u64 {
    bytes / 100 * percent
}

/// How the text output names the budget.
fn budget_name(kind: BudgetKind) -> String {
    let flags = match kind {
        BudgetKind::Time => "--max-time",
        BudgetKind::Memory => "--max-memory",
        BudgetKind::TimeAndMemory => "--max-time, --max-memory",
    };
    format!("{} ({flags})", kind.noun())
}

/// The report's account of what the budget cut from points-to: once for
/// every enabled rule that reads points-to (directly or through facts
/// built on it).
fn points_to_cuts(cut: Option<lockstep_pointsto::BudgetCut>, rules: RuleSet) -> Vec<BudgetCut> {
    let Some(cut) = cut else {
        return Vec::new();
    };
    let what = cut.describe();
    let mut out: Vec<BudgetCut> = lockstep_detectors::enabled(rules)
        .iter()
        .filter(|d| d.needs() >= Needs::PointsTo)
        .flat_map(|d| enabled_rules(*d, rules))
        .map(|rule| BudgetCut {
            rule: rule.to_string(),
            phase: "points-to".to_string(),
            what: what.clone(),
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// What the detectors of one check returned, how long each took, and
/// the rules of those the budget did not let start.
struct DetectorRuns {
    outputs: Vec<Output>,
    times: Vec<(String, DetectorTime)>,
    skipped: Vec<Cut>,
}

/// One detector's result: its output and time, or `None` when the budget
/// did not let it start (or its facts be computed).
type Slot = OnceLock<Option<(Output, DetectorTime)>>;

/// The levels of facts, in the order they are computed.
const LEVELS: [Needs; 5] = [
    Needs::CallGraph,
    Needs::PointsTo,
    Needs::RaceFacts,
    Needs::LockOrder,
    Needs::GuardFlags,
];

/// Computes the facts the enabled detectors read, level by level, and
/// starts each detector as soon as its level is ready, so detectors run
/// beside the facts still being computed and beside each other (a
/// `rayon` scope; the calling thread only forwards the phases to
/// `progress`). Results are gathered in detector order, whatever ran
/// first. With a budget, a detector whose facts or whose own start come
/// after the deadline does not run and is recorded as cut.
fn run_detectors(cx: &mut Session<'_, '_>, rules: RuleSet) -> DetectorRuns {
    let detectors = lockstep_detectors::enabled(rules);
    let slots: Vec<Slot> = detectors.iter().map(|_| OnceLock::new()).collect();
    let early_points_to = detectors
        .iter()
        .filter(|d| d.needs() == Needs::PointsTo && !starts_late(**d))
        .count();
    let late = LateStart {
        waiting_for: AtomicUsize::new(early_points_to),
        spawned: AtomicBool::new(false),
    };
    let plan = Plan {
        context: &cx.context,
        detectors: &detectors,
        slots: &slots,
        late: &late,
    };
    let progress = &mut *cx.progress;
    let (phases, received) = mpsc::channel::<&'static str>();
    // On a worker thread (a caller inside the pool) the plan runs here and
    // the phases are forwarded after it: blocking a worker on the channel
    // could leave no thread to run the plan.
    let on_worker = rayon::current_thread_index().is_some();
    rayon::in_place_scope(|s| {
        if on_worker {
            plan.run(s, phases);
        } else {
            s.spawn(move |s| plan.run(s, phases));
        }
        for name in received.iter() {
            progress.phase(name);
        }
    });
    let mut runs = DetectorRuns {
        outputs: Vec::new(),
        times: Vec::new(),
        skipped: Vec::new(),
    };
    for (d, slot) in detectors.iter().zip(slots) {
        match slot.into_inner().flatten() {
            Some((out, time)) => {
                runs.outputs.push(out);
                runs.times.push((enabled_rules(*d, rules).join(", "), time));
            }
            None => runs.skipped.extend(not_run(*d, rules, cx.context.budget)),
        }
    }
    runs
}

/// The enabled detectors, where their results go, and what they read.
#[derive(Clone, Copy)]
struct Plan<'a, 's> {
    context: &'a Context<'s>,
    detectors: &'a [&'static dyn Detector],
    slots: &'a [Slot],
    late: &'a LateStart,
}

/// When the detectors that start late ([`starts_late`]) start: once the
/// other points-to detectors have all ended (on the thread that ran the
/// last of them), or once the facts are done, whichever comes first.
struct LateStart {
    /// Points-to detectors that start early, still to end.
    waiting_for: AtomicUsize,
    /// The late detectors were spawned.
    spawned: AtomicBool,
}

/// Does the detector start after the points-to detectors rather than with
/// its level: it reads only the call graph, or it loads classes the facts
/// load too (`Detector::loads_classes`). Waiting for the loading window
/// would hold a worker that the points-to detectors need; once those have
/// ended, the worker that ran them would idle until the facts are done:
/// it runs these instead, which wait for the window only when they need a
/// class not loaded yet.
fn starts_late(d: &dyn Detector) -> bool {
    d.needs() == Needs::CallGraph || (d.needs() == Needs::PointsTo && d.loads_classes())
}

impl<'a> Plan<'a, '_> {
    /// Computes each level of facts some detector needs and spawns the
    /// detectors of that level once it is ready. The facts are computed on
    /// this thread alone, inside the program's loading window: detectors
    /// running meanwhile load no class before the facts are done, so the
    /// facts (which order their work by class and method ids) are those
    /// of a run where nothing else runs (`lockstep_program::window`).
    fn run(self, s: &rayon::Scope<'a>, phases: mpsc::Sender<&'static str>) {
        let program = self.context.program;
        let budget = self.context.budget;
        program.exclusive_loading(|| {
            for level in LEVELS.into_iter().skip(1) {
                if !self.detectors.iter().any(|d| d.needs() >= level) {
                    break;
                }
                if budget.expired() {
                    // These and all later levels are cut: their slots stay empty.
                    break;
                }
                self.compute(level, &phases);
                self.spawn_level(s, level);
            }
        });
        self.spawn_late(s);
        let _ = phases.send("detectors");
    }

    /// Starts the detectors that start late ([`starts_late`]), once.
    fn spawn_late(self, s: &rayon::Scope<'a>) {
        if !self.late.spawned.swap(true, Ordering::AcqRel) {
            let late = self.detectors.iter().zip(self.slots);
            for (&d, slot) in late.filter(|(d, _)| starts_late(**d)) {
                self.spawn_one(s, d, slot);
            }
        }
    }

    /// Computes the facts of `level` as their own phase.
    fn compute(self, level: Needs, phases: &mpsc::Sender<&'static str>) {
        let facts = self.context.facts;
        // A closed channel means the caller stopped listening: nothing to report to.
        let phase = |name| {
            let _ = phases.send(name);
        };
        match level {
            Needs::CallGraph => {}
            Needs::PointsTo => {
                phase("points-to");
                facts.points_to();
            }
            Needs::RaceFacts => {
                phase("race facts");
                facts.races();
            }
            Needs::LockOrder => {
                phase("lock-order facts");
                facts.lock_order();
            }
            Needs::GuardFlags => {
                phase("guard flags");
                facts.guard_flags();
            }
        }
    }

    /// Starts the detectors that read exactly `level` and do not start
    /// late. Once the points-to level has none left to end, the late ones
    /// start too.
    fn spawn_level(self, s: &rayon::Scope<'a>, level: Needs) {
        let at_level = self.detectors.iter().zip(self.slots);
        for (&d, slot) in at_level.filter(|(d, _)| d.needs() == level && !starts_late(**d)) {
            self.spawn_one(s, d, slot);
        }
        if level == Needs::PointsTo && self.late.waiting_for.load(Ordering::Acquire) == 0 {
            self.spawn_late(s);
        }
    }

    /// Runs one detector on the pool, timed (CPU and wall), unless the
    /// budget is spent; the last early points-to detector to end starts the
    /// late ones.
    fn spawn_one(self, s: &rayon::Scope<'a>, d: &'static dyn Detector, slot: &'a Slot) {
        let context = self.context;
        s.spawn(move |s| {
            let result = (!context.budget.expired()).then(|| {
                let started = Instant::now();
                let (out, cpu) = lockstep_facts::cpu_time::own(|| d.run(context));
                let wall = started.elapsed();
                (out, DetectorTime { cpu, wall })
            });
            let _ = slot.set(result);
            let early_points_to = d.needs() == Needs::PointsTo && !starts_late(d);
            let waiting = &self.late.waiting_for;
            if early_points_to && waiting.fetch_sub(1, Ordering::AcqRel) == 1 {
                self.spawn_late(s);
            }
        });
    }
}

/// The ids of the enabled rules a detector reports.
fn enabled_rules(d: &dyn Detector, rules: RuleSet) -> Vec<&'static str> {
    d.rules()
        .iter()
        .filter(|r| rules.contains(**r))
        .map(|r| r.as_str())
        .collect()
}

/// A detector the budget did not let start: each of its enabled rules is cut.
fn not_run(d: &dyn Detector, rules: RuleSet, budget: Budget) -> Vec<Cut> {
    let why = match budget.kind() {
        Some(BudgetKind::Memory) => "not run: memory had reached its budget before it started",
        Some(BudgetKind::TimeAndMemory) => {
            "not run: the time or memory budget was spent before it started"
        }
        _ => "not run: the time budget was spent before it started",
    };
    d.rules()
        .iter()
        .filter(|r| rules.contains(**r))
        .map(|r| Cut::new(*r, why))
        .collect()
}

/// The report's account of the cuts: enabled rules only, sorted, each once.
fn budget_cuts(mut cuts: Vec<Cut>, rules: RuleSet) -> Vec<BudgetCut> {
    cuts.retain(|c| rules.contains(c.rule));
    cuts.sort();
    cuts.dedup();
    cuts.into_iter()
        .map(|c| BudgetCut {
            rule: c.rule.as_str().to_string(),
            phase: "detectors".to_string(),
            what: c.what,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_to_gets_its_share_of_the_time_left() {
        let now = Instant::now();
        assert_eq!(points_to_budget(Budget::unlimited(), now), None);
        let b =
            points_to_budget(Budget::until(now + Duration::from_secs(10)), now).expect("a budget");
        assert_eq!(b.contexts, Some(now + Duration::from_secs(4)));
        assert_eq!(b.stop, Some(now + Duration::from_secs(6)));
        assert_eq!(b.memory, None);
        // A spent budget cuts at once.
        let spent = points_to_budget(Budget::until(now), now).expect("a budget");
        assert_eq!((spent.contexts, spent.stop), (Some(now), Some(now)));
    }

    #[test]
    fn points_to_gets_its_share_of_the_memory_cap() {
        let now = Instant::now();
        let cap = lockstep_detectors::MemoryCap {
            bytes: 1000,
            probe: lockstep_pointsto::MemoryProbe(|| Some(0)),
        };
        let b = points_to_budget(Budget::unlimited().with_memory(cap), now).expect("a budget");
        assert_eq!((b.contexts, b.stop), (None, None));
        let m = b.memory.expect("a memory share");
        assert_eq!((m.contexts_at, m.stop_at), (600, 750));
        assert_eq!(
            budget_name(BudgetKind::Memory),
            "the memory budget (--max-memory)"
        );
    }

    #[test]
    fn a_points_to_cut_is_reported_for_every_rule_reading_points_to() {
        let cut = lockstep_pointsto::BudgetCut {
            contexts_merged: Some(3),
            unpropagated: Some(7),
        };
        let rules = RuleSet::all();
        let cuts = points_to_cuts(Some(cut), rules);
        let named: Vec<&str> = cuts.iter().map(|c| c.rule.as_str()).collect();
        // The rules whose detectors read points-to or facts built on it:
        // every rule lockstep has (stale-value reads points-to too).
        for rule in [
            "data-race",
            "reacquired-lock",
            "deadlock",
            "wait-notify",
            "stale-value",
        ] {
            assert!(named.contains(&rule), "{rule}: {named:?}");
        }
        // A rule that is not enabled is not named.
        let mut without_stale = RuleSet::all();
        without_stale.remove(lockstep_detectors::RuleId::StaleValue);
        let named_without: Vec<String> = points_to_cuts(Some(cut), without_stale)
            .into_iter()
            .map(|c| c.rule)
            .collect();
        assert!(
            !named_without.iter().any(|r| r == "stale-value"),
            "{named_without:?}"
        );
        for c in &cuts {
            assert_eq!(c.phase, "points-to");
            assert_eq!(c.what, cut.describe());
        }
        assert!(points_to_cuts(None, rules).is_empty());
    }
}
