//! What runs say about a static finding (`lockstep check --evidence`):
//! the status a finding gets when its traces are matched against it, and
//! the counts of a report's summary line. The matching itself lives in
//! `lockstep_evidence`; this layer only carries and renders the result.

use std::fmt;

use crate::model::{Finding, Report};

/// How the runs relate to a static finding. Ordered most telling first
/// (the text report lists observed findings first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EvidenceStatus {
    /// A run showed the problem: the racing pair unordered, the lock-order
    /// cycle, the deadlock.
    Observed,
    /// The code ran (both accesses, every acquisition) but the run showed
    /// no problem: ordered, or atomic, in that run.
    Reached,
    /// The code did not run (or only part of it: the detail says which).
    NotReached,
}

impl EvidenceStatus {
    /// All statuses, most telling first.
    pub const ALL: [EvidenceStatus; 3] = [
        EvidenceStatus::Observed,
        EvidenceStatus::Reached,
        EvidenceStatus::NotReached,
    ];

    /// The name used in JSON and SARIF: `observed`, `reached`, `not-reached`.
    pub fn as_str(self) -> &'static str {
        match self {
            EvidenceStatus::Observed => "observed",
            EvidenceStatus::Reached => "reached",
            EvidenceStatus::NotReached => "not-reached",
        }
    }

    /// The text label: `observed in a run`, ...
    pub fn label(self) -> &'static str {
        match self {
            EvidenceStatus::Observed => "observed in a run",
            EvidenceStatus::Reached => "reached in a run (not observed)",
            EvidenceStatus::NotReached => "not reached in a run",
        }
    }
}

impl fmt::Display for EvidenceStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The evidence of one static finding.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Evidence {
    /// What the runs showed.
    pub status: EvidenceStatus,
    /// How many runs (traces) were matched against the finding.
    pub runs: u64,
    /// In how many of them the status was reached (`observed`: runs that
    /// showed the problem; `reached`: runs that ran the code; 0 for
    /// `not-reached`).
    pub in_runs: u64,
    /// One sentence saying what matched: which sites ran, which run
    /// finding is the same problem.
    pub detail: String,
}

/// Counts of the report's findings per evidence status, for the summary
/// line; `None` when the report was not matched against runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EvidenceCounts {
    /// Runs (traces) the evidence comes from.
    pub runs: u64,
    /// Findings observed.
    pub observed: u64,
    /// Findings reached but not observed.
    pub reached: u64,
    /// Findings not reached.
    pub not_reached: u64,
    /// Findings of rules no run checker speaks to (no evidence field).
    pub unmatched: u64,
}

impl EvidenceCounts {
    /// Counts the distinct findings of `report`, or `None` without runs.
    pub fn of(report: &Report) -> Option<EvidenceCounts> {
        let runs = report.evidence_runs?;
        let mut counts = EvidenceCounts {
            runs,
            ..EvidenceCounts::default()
        };
        for finding in report.canonical_findings() {
            counts.add(finding);
        }
        Some(counts)
    }

    fn add(&mut self, finding: &Finding) {
        let slot = match finding.evidence.as_ref().map(|e| e.status) {
            Some(EvidenceStatus::Observed) => &mut self.observed,
            Some(EvidenceStatus::Reached) => &mut self.reached,
            Some(EvidenceStatus::NotReached) => &mut self.not_reached,
            None => &mut self.unmatched,
        };
        *slot += 1;
    }

    /// `evidence from 2 runs: 1 observed, 1 reached, 3 not reached`, plus
    /// `; 4 findings of rules runs do not check` when there are some.
    pub fn line(&self) -> String {
        let runs = if self.runs == 1 { "run" } else { "runs" };
        let mut line = format!(
            "evidence from {} {runs}: {} observed, {} reached, {} not reached",
            self.runs, self.observed, self.reached, self.not_reached
        );
        if self.unmatched > 0 {
            let what = if self.unmatched == 1 {
                "finding"
            } else {
                "findings"
            };
            line.push_str(&format!(
                "; {} {what} of rules runs do not check",
                self.unmatched
            ));
        }
        line
    }
}

/// A finding's evidence as JSON and SARIF write it (the same object in
/// both: `status`, `runs`, `in_runs`, `detail`).
#[derive(serde::Serialize)]
pub(crate) struct EvidenceOut<'a> {
    status: &'static str,
    runs: u64,
    in_runs: u64,
    detail: &'a str,
}

impl<'a> EvidenceOut<'a> {
    pub(crate) fn of(finding: &'a Finding) -> Option<EvidenceOut<'a>> {
        finding.evidence.as_ref().map(|e| EvidenceOut {
            status: e.status.as_str(),
            runs: e.runs,
            in_runs: e.in_runs,
            detail: &e.detail,
        })
    }
}

/// The summary's evidence counts as JSON and SARIF write them.
#[derive(serde::Serialize)]
pub(crate) struct EvidenceCountsOut {
    runs: u64,
    observed: u64,
    reached: u64,
    not_reached: u64,
    unmatched: u64,
}

impl EvidenceCountsOut {
    pub(crate) fn of(report: &Report) -> Option<EvidenceCountsOut> {
        EvidenceCounts::of(report).map(|c| EvidenceCountsOut {
            runs: c.runs,
            observed: c.observed,
            reached: c.reached,
            not_reached: c.not_reached,
            unmatched: c.unmatched,
        })
    }
}
