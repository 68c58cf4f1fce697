//! lockstep's detectors: one module per rule family.
//!
//! A detector reads the program model and the shared facts in a
//! [`Context`] and returns an [`Output`]: findings, and on request
//! explanations and statistics. Detectors never print, never touch the
//! file system and never depend on each other: what two rules both need
//! lives in `lockstep_facts`, computed once per check. Every rule is
//! declared beside its detector and registered once in [`registry`];
//! its user documentation is the `docs.md` next to its code.

pub mod budget;
pub mod data_race;
pub mod deadlock;
pub mod non_atomic_method;
pub mod reacquired_lock;
pub mod registry;
pub mod stale_value;
mod util;
pub mod wait_notify;

use lockstep_facts::SharedFacts;
use lockstep_program::{CallGraph, EntryPoints, Program};
use lockstep_report::Finding;

pub use budget::{Budget, BudgetKind, Cut, MemoryCap};
pub use registry::{
    all_rules, rule, RuleId, RuleMeta, RuleSet, SelectionError, UnknownRule, DOC_SECTIONS,
};

/// Settings that change what detectors report or explain.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Report reacquired-lock witnesses inside self-synchronized JDK classes.
    pub include_library_witnesses: bool,
    /// data-race, open programs: report races in every class, also those
    /// that take no lock and have no volatile or concurrent field.
    pub open_every_class: bool,
    /// stale-value: how calls to code the analysis cannot see are summarised.
    pub unknown_callees: stale_value::UnknownCallees,
    /// data-race: explain every pair of accesses of this field (`pkg.Cls.name`).
    pub explain_field: Option<String>,
    /// non-atomic-method: explain the inferred guards and atomicities.
    pub explain_atomicity: bool,
    /// non-atomic-method: race-free types discovered from runs (`check
    /// --types`), checked against the static facts; accepted ones are used
    /// as declared guards.
    pub declared_types: Vec<non_atomic_method::declared::DeclaredType>,
}

/// Everything a detector may look at. Built once by the driver.
pub struct Context<'a> {
    pub program: &'a Program,
    /// The RTA call graph.
    pub call_graph: &'a CallGraph,
    /// The entry points the call graph was built from.
    pub entries: &'a EntryPoints,
    /// Points-to and the concurrency facts, computed on first use.
    pub facts: &'a SharedFacts<'a>,
    /// The rules enabled for this run.
    pub rules: RuleSet,
    pub options: &'a Options,
    /// When to stop refining (`--max-time`); unlimited by default.
    pub budget: Budget,
}

impl Context<'_> {
    pub fn is_enabled(&self, rule: RuleId) -> bool {
        self.rules.contains(rule)
    }

    /// The program was analysed as a library (paper 002 §4.5.3 harness).
    pub fn open_program(&self) -> bool {
        self.entries.mode.is_open()
    }
}

/// What a detector returns.
#[derive(Debug, Clone, Default)]
pub struct Output {
    pub findings: Vec<Finding>,
    /// Lines explaining the analysis (asked for by `Options`); shown on stderr.
    pub explanation: Vec<String>,
    /// Statistics lines for `--stats`.
    pub stats: Vec<String>,
    /// What the detector left out because the budget ran out (never
    /// anything without a budget).
    pub cuts: Vec<Cut>,
}

impl From<Vec<Finding>> for Output {
    fn from(findings: Vec<Finding>) -> Output {
        Output {
            findings,
            ..Output::default()
        }
    }
}

/// Which shared facts a detector reads. The driver computes them in this
/// order, each timed as its own phase, and starts a detector as soon as
/// what it reads is ready, beside the facts still being computed: a
/// detector must read no fact beyond the level it declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Needs {
    /// The program model and the RTA call graph only.
    CallGraph,
    /// Points-to too (its own call graph and objects), not the race facts.
    PointsTo,
    /// Points-to and the race facts.
    RaceFacts,
    /// Points-to, the lock-order facts, and of the race facts only what
    /// those read (thread roots, the context call graph, entry locks,
    /// start orderings): when no enabled rule needs [`Needs::RaceFacts`]
    /// itself, escape, ownership and the racing pairs are not computed.
    LockOrder,
    /// [`Needs::LockOrder`] and the guard flags over its acquisitions
    /// (`lockstep_facts::guard_flags`), which only `deadlock` reads: the
    /// other lock rules do not wait for them.
    GuardFlags,
}

/// A detector: one analysis, reporting under one or more rules.
pub trait Detector: Sync {
    fn rules(&self) -> &'static [RuleId];
    /// The facts it reads.
    fn needs(&self) -> Needs {
        Needs::CallGraph
    }
    /// Does it resolve classes the facts may not have loaded yet? Such a
    /// detector waits for the program's loading window while facts are
    /// computed, so the driver starts it after the other detectors of its
    /// level have ended rather than let it hold a worker they need.
    fn loads_classes(&self) -> bool {
        false
    }
    /// Runs if any of its rules is enabled; reports only enabled rules.
    fn run(&self, cx: &Context<'_>) -> Output;
}

/// Every detector lockstep has.
pub fn all() -> Vec<&'static dyn Detector> {
    vec![
        &data_race::DataRace,
        &deadlock::Deadlock,
        &non_atomic_method::NonAtomicMethod,
        &reacquired_lock::ReacquiredLock,
        &stale_value::StaleValue,
        &wait_notify::WaitNotify,
    ]
}

/// The detectors that run for `rules`.
pub fn enabled(rules: RuleSet) -> Vec<&'static dyn Detector> {
    all()
        .into_iter()
        .filter(|d| rules.any_of(d.rules()))
        .collect()
}
