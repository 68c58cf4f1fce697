//! `non-atomic-method`: a static finding names the method that should be
//! atomic (its location: class, method, descriptor).
//!
//! Runs are checked with the run-time atomicity checkers that give no
//! false alarm on the run they saw: the block-based checker (paper 003,
//! slides 18–24) and conflict serializability; the static findings'
//! methods are added to the transactions (`AtomicSpec::patterns`), so they
//! are checked whether or not the default heuristic picks them.
//!
//! - *observed*: one of those checkers reported a `non-atomic-method`
//!   finding whose transaction (its `transaction:` note) is the finding's
//!   method;
//! - *reached*: the run entered the method (a method-entry event with the
//!   same class, name and descriptor), and no checker saw a violation;
//! - *not reached*: otherwise (also for traces recorded with
//!   `--no-method-events`, which hold no entries).
//!
//! A run transaction is named by class and method name only: two
//! overloads of one name are one method to the observed match.

use lockstep_dynamic::AtomicSpec;
use lockstep_report::{EvidenceStatus, Finding};

use crate::{Judgement, Matcher, Run};

/// The rule id.
pub const RULE: &str = "non-atomic-method";

/// The `non-atomic-method` matcher.
pub struct NonAtomicMethod;

impl Matcher for NonAtomicMethod {
    fn rule(&self) -> &'static str {
        RULE
    }

    fn judge(&self, finding: &Finding, run: &Run) -> Judgement {
        let Some(name) = method_name(finding) else {
            return Judgement::new(EvidenceStatus::NotReached, "the finding names no method");
        };
        if let Some(by) = observed_by(&name, run) {
            return Judgement::new(
                EvidenceStatus::Observed,
                format!("a run saw `{name}` not atomic ({by})"),
            );
        }
        let l = &finding.location;
        let method = l.method.as_deref().unwrap_or_default();
        let entered = l.descriptor.as_deref().map_or_else(
            || run.executed.entered_named(&l.class, method),
            |d| run.executed.entered(&l.class, method, d),
        );
        if entered {
            Judgement::new(
                EvidenceStatus::Reached,
                format!("`{name}` ran and no run showed it not atomic"),
            )
        } else {
            Judgement::new(EvidenceStatus::NotReached, format!("`{name}` never ran"))
        }
    }
}

/// `pkg.Cls.method` of a finding located in a method.
fn method_name(finding: &Finding) -> Option<String> {
    let method = finding.location.method.as_deref()?;
    let method = method.split('(').next().unwrap_or(method);
    Some(format!("{}.{method}", finding.location.class))
}

/// The checker of a run finding on transaction `name`, if any.
fn observed_by(name: &str, run: &Run) -> Option<String> {
    let transaction = format!("transaction: `{name}` ");
    run.findings
        .iter()
        .filter(|f| f.rule == RULE)
        .filter(|f| f.notes.iter().any(|n| n.starts_with(&transaction)))
        .find_map(|f| {
            f.notes
                .iter()
                .find_map(|n| n.strip_prefix("found by: "))
                .map(str::to_owned)
        })
}

/// The atomicity checkers a run is checked with for `findings`: none when
/// no finding is a `non-atomic-method` one (the checkers cost time);
/// else block-based and conflict serializability, with each finding's
/// method as a transaction.
pub fn spec_for(findings: &[Finding]) -> AtomicSpec {
    let mut patterns: Vec<String> = findings
        .iter()
        .filter(|f| f.rule == RULE && f.provenance.is_none())
        .filter_map(method_name)
        // `*` is the only special character of a pattern.
        .filter(|n| !n.contains('*'))
        .collect();
    patterns.sort();
    patterns.dedup();
    if patterns.is_empty() {
        return AtomicSpec::default();
    }
    AtomicSpec {
        blocks: true,
        serializability: true,
        patterns,
        ..AtomicSpec::default()
    }
}
