//! lockstep's detectors: one module per rule family.
//!
//! A detector takes the program model and the shared facts in a
//! [`Context`] and returns [`Finding`]s. Detectors never print, never touch
//! the file system and never depend on each other; their user documentation
//! lives next to their code (the `docs` of their [`RuleMeta`]).

pub mod data_race;
pub mod non_atomic_method;
pub mod reacquired_lock;
pub mod stale_value;
mod util;

use std::collections::BTreeSet;

use lockstep_pointsto::PointsToResult;
use lockstep_program::{CallGraph, EntryPoints, Program, ThreadRoot};
use lockstep_report::Finding;

/// Static description of a rule: its stable id and its documentation.
#[derive(Debug)]
pub struct RuleMeta {
    /// Stable id, used in `--select`, JSON and SARIF. Never changes once released.
    pub id: &'static str,
    /// CamelCase name for SARIF.
    pub name: &'static str,
    /// One line: what the rule finds.
    pub summary: &'static str,
    /// Whether the rule runs without `--select`.
    pub default_enabled: bool,
    /// Markdown: what it finds, why it matters, an example and its fix, known limits.
    pub docs: &'static str,
}

impl RuleMeta {
    pub fn to_report(&self) -> lockstep_report::RuleMeta {
        lockstep_report::RuleMeta::new(self.id, self.name, self.summary)
    }
}

/// Settings that change what detectors report.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Report reacquired-lock witnesses inside self-synchronized JDK classes.
    pub include_library_witnesses: bool,
    /// data-race, open programs: report races in every class, also those
    /// that take no lock and have no volatile or concurrent field.
    pub open_every_class: bool,
    /// stale-value: how calls to code the analysis cannot see are summarised.
    pub unknown_callees: stale_value::UnknownCallees,
}

/// Everything a detector may look at. Built once by the driver.
pub struct Context<'a> {
    pub program: &'a Program,
    pub call_graph: &'a CallGraph,
    pub thread_roots: &'a [ThreadRoot],
    /// The program was analysed as a library (paper 002 §4.5.3 harness).
    pub open_program: bool,
    /// The entry points the call graph was built from.
    pub entries: &'a EntryPoints,
    /// Points-to facts, when the driver computed them (rules that need them
    /// solve them themselves otherwise, with the default configuration).
    pub points_to: Option<&'a PointsToResult>,
    /// The rule ids that are enabled for this run.
    pub enabled: &'a BTreeSet<String>,
    pub options: &'a Options,
}

impl Context<'_> {
    pub fn is_enabled(&self, rule: &RuleMeta) -> bool {
        self.enabled.contains(rule.id)
    }
}

/// A detector: one analysis, reporting under one or more rules.
pub trait Detector: Sync {
    fn rules(&self) -> &'static [&'static RuleMeta];
    /// Run if any of its rules is enabled; report only enabled rules.
    fn run(&self, cx: &Context<'_>) -> Vec<Finding>;
}

/// Every detector lockstep has.
pub fn all() -> Vec<&'static dyn Detector> {
    vec![
        &data_race::DataRace,
        &non_atomic_method::NonAtomicMethod,
        &reacquired_lock::ReacquiredLock,
        &stale_value::StaleValue,
    ]
}

/// The metadata of every rule, in rule-id order.
pub fn all_rules() -> Vec<&'static RuleMeta> {
    let mut rules: Vec<&'static RuleMeta> = all()
        .into_iter()
        .flat_map(|d| d.rules().iter().copied())
        .collect();
    rules.sort_by_key(|r| r.id);
    rules
}

/// The rule with this id.
pub fn rule(id: &str) -> Option<&'static RuleMeta> {
    all_rules().into_iter().find(|r| r.id == id)
}

/// Resolve `--select`/`--ignore` into the set of enabled rule ids.
/// Unknown ids are an error naming the known ones.
pub fn enabled_rules(select: &[String], ignore: &[String]) -> Result<BTreeSet<String>, String> {
    let rules = all_rules();
    for id in select.iter().chain(ignore) {
        if !rules.iter().any(|r| r.id == id) {
            let known: Vec<&str> = rules.iter().map(|r| r.id).collect();
            return Err(format!(
                "unknown rule `{id}` (known rules: {})",
                known.join(", ")
            ));
        }
    }
    let mut enabled: BTreeSet<String> = if select.is_empty() {
        rules
            .iter()
            .filter(|r| r.default_enabled)
            .map(|r| r.id.to_string())
            .collect()
    } else {
        select.iter().cloned().collect()
    };
    for id in ignore {
        enabled.remove(id);
    }
    Ok(enabled)
}
