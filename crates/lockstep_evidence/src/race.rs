//! `data-race`: a static finding names a field, one access (its
//! location) and the accesses that race with it (its related locations:
//! the second access, then the others, at most eight).
//!
//! - *observed*: a run's `data-race` finding is on a field of the same
//!   simple name (or on array elements or container contents, which the
//!   trace does not tie to a field) and its two accesses are the
//!   finding's access and one of its partners, either way round;
//! - *reached*: the run executed an access of that field at the
//!   finding's access and at one of its partners, but reported no race
//!   between them (ordered, or on different objects);
//! - *not reached*: otherwise; the detail says which access ran, if one did.
//!
//! The field's class is not compared: the trace may name the class of the
//! access instruction (a subclass) where the static analysis names the
//! declaring class; the two sites already pin the statements.

use lockstep_report::{EvidenceStatus, Finding, Location};

use crate::site::{place, same_place};
use crate::{Judgement, Matcher, Run};

/// The rule id.
pub const RULE: &str = "data-race";

/// The `data-race` matcher.
pub struct DataRace;

impl Matcher for DataRace {
    fn rule(&self) -> &'static str {
        RULE
    }

    fn judge(&self, finding: &Finding, run: &Run) -> Judgement {
        let field = finding.field.as_deref().map(simple_name);
        let primary = &finding.location;
        let partners: Vec<&Location> = finding.related.iter().map(|r| &r.location).collect();
        if let Some(partner) = observed(field, primary, &partners, run) {
            // Named by the static side: the run's order of the two
            // accesses varies from run to run, the output must not.
            let detail = if same_place(primary, partner) {
                format!(
                    "a run saw two threads make the access at {} unordered",
                    place(primary)
                )
            } else {
                format!(
                    "a run saw the accesses at {} and {} unordered",
                    place(primary),
                    place(partner)
                )
            };
            return Judgement::new(EvidenceStatus::Observed, detail);
        }
        let primary_ran = run.executed.accessed(primary, field);
        let partner_ran = partners
            .iter()
            .copied()
            .find(|p| run.executed.accessed(p, field));
        match (primary_ran, partner_ran) {
            (true, Some(p)) if same_place(primary, p) => Judgement::new(
                EvidenceStatus::Reached,
                format!(
                    "the access at {} ran, but no run saw two threads make it unordered on one object",
                    place(primary)
                ),
            ),
            (true, Some(p)) => Judgement::new(
                EvidenceStatus::Reached,
                format!(
                    "both accesses ran ({} and {}), but no run saw them unordered on one object",
                    place(primary),
                    place(p)
                ),
            ),
            (true, None) => Judgement::new(
                EvidenceStatus::NotReached,
                format!(
                    "only the access at {} ran, none of the accesses racing with it",
                    place(primary)
                ),
            )
            .with_weight(1),
            (false, Some(p)) => Judgement::new(
                EvidenceStatus::NotReached,
                format!(
                    "only the racing access at {} ran, not the one at {}",
                    place(p),
                    place(primary)
                ),
            )
            .with_weight(1),
            (false, None) => Judgement::new(EvidenceStatus::NotReached, "neither access ran"),
        }
    }
}

/// `Cls.count` → `count`; a name without a dot is kept.
fn simple_name(field: &str) -> &str {
    field.rsplit('.').next().unwrap_or(field)
}

/// The finding's partner of a run race that is this finding, if any.
fn observed<'s>(
    field: Option<&str>,
    primary: &Location,
    partners: &[&'s Location],
    run: &Run,
) -> Option<&'s Location> {
    run.findings
        .iter()
        .filter(|f| f.rule == RULE)
        .filter(|f| match (field, f.field.as_deref()) {
            (Some(want), Some(got)) => want == simple_name(got),
            _ => true,
        })
        .find_map(|f| {
            let a = &f.location;
            let b = &f.related.first()?.location;
            let partner_of = |x: &Location, y: &Location| {
                if !same_place(primary, x) {
                    return None;
                }
                partners.iter().copied().find(|p| same_place(p, y))
            };
            partner_of(a, b).or_else(|| partner_of(b, a))
        })
}
