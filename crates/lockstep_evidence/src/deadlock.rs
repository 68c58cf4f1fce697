//! `deadlock`: a static finding names the two acquisitions of its cycle
//! (its related locations: where each thread takes the lock it waits for;
//! one location when the same code runs with two objects swapped).
//!
//! - *observed*: a run's `deadlock` finding (a cycle of the run's
//!   lock-order graph, or the wait-for cycle of a run that hung) whose
//!   acquisition places are exactly the finding's: every place of one is
//!   a place of the other;
//! - *reached*: the run took a lock at each of the finding's places but
//!   its lock-order graph has no such cycle;
//! - *not reached*: otherwise; the detail says which acquisition ran.
//!
//! Lock objects are not compared: the static side names lock
//! expressions, the run objects; the places pin the acquisitions.

use lockstep_report::{EvidenceStatus, Finding, Location, Severity};

use crate::site::{place, same_place};
use crate::{Judgement, Matcher, Run};

/// The rule id.
pub const RULE: &str = "deadlock";

/// The `deadlock` matcher.
pub struct Deadlock;

impl Matcher for Deadlock {
    fn rule(&self) -> &'static str {
        RULE
    }

    fn judge(&self, finding: &Finding, run: &Run) -> Judgement {
        let places = distinct(finding.related.iter().map(|r| &r.location));
        if let Some(hit) = observed(&places, run) {
            let detail = if hit.severity == Severity::Error {
                "the run deadlocked on this cycle".to_string()
            } else {
                format!(
                    "a run took the locks at {} in both orders (its lock-order graph has this cycle)",
                    names(&places)
                )
            };
            return Judgement::new(EvidenceStatus::Observed, detail);
        }
        let ran: Vec<&Location> = places
            .iter()
            .copied()
            .filter(|p| run.executed.acquired(p))
            .collect();
        if !places.is_empty() && ran.len() == places.len() {
            return Judgement::new(
                EvidenceStatus::Reached,
                format!(
                    "the acquisitions at {} ran, but no run took the locks in both orders",
                    names(&places)
                ),
            );
        }
        if ran.is_empty() {
            return Judgement::new(
                EvidenceStatus::NotReached,
                "no acquisition of the cycle ran",
            );
        }
        Judgement::new(
            EvidenceStatus::NotReached,
            format!("only the acquisition at {} ran", names(&ran)),
        )
        .with_weight(ran.len() as u32)
    }
}

/// The locations without repeats (by [`same_place`]), in order.
fn distinct<'a>(locations: impl Iterator<Item = &'a Location>) -> Vec<&'a Location> {
    let mut out: Vec<&Location> = Vec::new();
    for l in locations {
        if !out.iter().any(|o| same_place(o, l)) {
            out.push(l);
        }
    }
    out
}

fn names(places: &[&Location]) -> String {
    let names: Vec<String> = places.iter().map(|p| place(p)).collect();
    names.join(" and ")
}

/// The run's deadlock finding with exactly these acquisition places.
fn observed<'r>(places: &[&Location], run: &'r Run) -> Option<&'r Finding> {
    if places.is_empty() {
        return None;
    }
    run.findings.iter().filter(|f| f.rule == RULE).find(|f| {
        let theirs: Vec<&Location> = f.related.iter().map(|r| &r.location).collect();
        places
            .iter()
            .all(|p| theirs.iter().any(|t| same_place(p, t)))
            && theirs
                .iter()
                .all(|t| places.iter().any(|p| same_place(p, t)))
    })
}
