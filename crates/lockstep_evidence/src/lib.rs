//! Static findings confirmed by runs (`lockstep check --evidence`).
//!
//! The traces of one or more runs are checked by the run-time checkers of
//! `lockstep_dynamic` (happens-before and lockset for races, the
//! lock-order graph and the hang dump for deadlocks), one run at a time,
//! and the sites each run executed are collected ([`executed`]). Each
//! static finding of a rule that has a [`Matcher`] then gets an
//! [`Evidence`]: *observed* when some run reported the same problem,
//! *reached* when some run executed its code without showing it, *not
//! reached* otherwise. The matching rules, per rule, are in the modules
//! [`race`], [`deadlock`] and [`atomicity`] and in `docs/evidence.md`.
//!
//! Adding a rule: a module with a [`Matcher`] for its rule id and one
//! line in [`MATCHERS`]. Findings of rules without a matcher get no
//! evidence and are counted apart. No I/O: the CLI reads the traces.

pub mod atomicity;
pub mod deadlock;
pub mod executed;
pub mod race;
pub mod site;

use lockstep_dynamic::{AtomicSpec, Options};
use lockstep_report::{Evidence, EvidenceStatus, Finding};
use lockstep_trace::Trace;

use crate::executed::Executed;

/// What one run showed: the run-time checkers' findings and the sites
/// it executed.
#[derive(Debug, Default)]
pub struct Run {
    /// `data-race`, `deadlock` (and, when asked, `non-atomic-method`)
    /// findings with provenance `run`.
    pub findings: Vec<Finding>,
    /// The executed sites.
    pub executed: Executed,
}

/// Every run the evidence comes from.
#[derive(Debug, Default)]
pub struct Runs {
    /// One per trace, in the order given.
    pub runs: Vec<Run>,
    /// The checkers' notes (merge gaps, truncation), prefixed by the run
    /// number when there are several.
    pub notes: Vec<String>,
}

impl Runs {
    /// Checks each trace on its own (ids are per run) with the default
    /// checkers, deadlocks included.
    pub fn check(traces: &[Trace]) -> Runs {
        Runs::check_with(traces, AtomicSpec::default())
    }

    /// [`Runs::check`], plus the atomicity checkers `findings` need
    /// ([`atomicity::spec_for`]: none without `non-atomic-method` findings).
    pub fn check_for(traces: &[Trace], findings: &[Finding]) -> Runs {
        Runs::check_with(traces, atomicity::spec_for(findings))
    }

    fn check_with(traces: &[Trace], atomicity: AtomicSpec) -> Runs {
        let options = Options {
            atomicity,
            ..Options::default()
        };
        let mut out = Runs::default();
        for (i, trace) in traces.iter().enumerate() {
            let outcome = lockstep_dynamic::check_traces(std::slice::from_ref(trace), &options);
            let prefix = if traces.len() > 1 {
                format!("run {}: ", i + 1)
            } else {
                String::new()
            };
            out.notes
                .extend(outcome.notes.iter().map(|n| format!("{prefix}{n}")));
            out.runs.push(Run {
                findings: outcome.findings,
                executed: Executed::of(trace),
            });
        }
        out
    }
}

/// What one run says about one finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judgement {
    /// Observed, reached or not reached in this run.
    pub status: EvidenceStatus,
    /// What matched, in one sentence.
    pub detail: String,
    /// Among judgements of the same status, the one with the larger
    /// weight speaks for all runs (e.g. "only one access ran" over
    /// "neither ran").
    pub weight: u32,
}

impl Judgement {
    /// A judgement of weight 0.
    pub fn new(status: EvidenceStatus, detail: impl Into<String>) -> Self {
        Judgement {
            status,
            detail: detail.into(),
            weight: 0,
        }
    }

    /// Sets the weight.
    pub fn with_weight(mut self, weight: u32) -> Self {
        self.weight = weight;
        self
    }
}

/// The run-time judgement of one static rule.
pub trait Matcher: Sync {
    /// The rule id whose findings this matcher judges.
    fn rule(&self) -> &'static str;
    /// What `run` says about the static `finding`.
    fn judge(&self, finding: &Finding, run: &Run) -> Judgement;
}

/// The matchers, one per rule runs can speak to.
pub static MATCHERS: &[&dyn Matcher] = &[
    &race::DataRace,
    &deadlock::Deadlock,
    &atomicity::NonAtomicMethod,
];

/// The matcher for `rule`, if runs can speak to it.
pub fn matcher(rule: &str) -> Option<&'static dyn Matcher> {
    MATCHERS.iter().copied().find(|m| m.rule() == rule)
}

/// Sets the evidence of every static finding (provenance `None`) whose
/// rule has a matcher; findings of other rules keep `None`.
pub fn attach(findings: &mut [Finding], runs: &Runs) {
    for finding in findings.iter_mut() {
        if finding.provenance.is_some() {
            continue;
        }
        if let Some(m) = matcher(&finding.rule) {
            finding.evidence = Some(evidence(m, finding, runs));
        }
    }
}

/// Combines the runs' judgements: the best status over the runs, in how
/// many runs it held, and the detail of the heaviest run of that status.
pub fn evidence(m: &dyn Matcher, finding: &Finding, runs: &Runs) -> Evidence {
    let judgements: Vec<Judgement> = runs.runs.iter().map(|r| m.judge(finding, r)).collect();
    let Some(best) = judgements
        .iter()
        .min_by_key(|j| (j.status, std::cmp::Reverse(j.weight)))
    else {
        return Evidence {
            status: EvidenceStatus::NotReached,
            runs: 0,
            in_runs: 0,
            detail: "no run to match".into(),
        };
    };
    let in_runs = judgements
        .iter()
        .filter(|j| j.status == best.status)
        .count() as u64;
    let total = judgements.len() as u64;
    let detail = if total > 1 && best.status != EvidenceStatus::NotReached {
        format!("{} (in {in_runs} of {total} runs)", best.detail)
    } else {
        best.detail.clone()
    };
    Evidence {
        status: best.status,
        runs: total,
        in_runs: if best.status == EvidenceStatus::NotReached {
            0
        } else {
            in_runs
        },
        detail,
    }
}
