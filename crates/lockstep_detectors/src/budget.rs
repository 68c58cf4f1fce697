//! Time budgets (`check --max-time`): a deadline detectors look at
//! between units of work (a method, a block, a finding), and the record of
//! what they left out when it had passed.
//!
//! Without a deadline (the default) no step is ever cut and the output
//! does not depend on timing. With one, what is cut depends on how fast
//! the machine is; a deadline already passed when the detectors start
//! (`--max-time 0`) cuts every budgeted step, whatever the machine.
//! Reading the clock is cheap, but detectors still look at it once per
//! unit of work, never per statement.

use std::time::Instant;

use rayon::prelude::*;

use crate::RuleId;

/// When the analysis must stop refining and report what it has.
#[derive(Debug, Clone, Copy, Default)]
pub struct Budget {
    deadline: Option<Instant>,
}

impl Budget {
    /// No deadline: nothing is ever cut.
    pub fn unlimited() -> Budget {
        Budget { deadline: None }
    }

    /// Work must stop at `deadline`.
    pub fn until(deadline: Instant) -> Budget {
        Budget {
            deadline: Some(deadline),
        }
    }

    /// The deadline, if one was set.
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// Whether a deadline was set at all.
    pub fn is_limited(&self) -> bool {
        self.deadline.is_some()
    }

    /// Whether the deadline has passed: the caller should skip the rest of
    /// its optional work and record a [`Cut`].
    pub fn expired(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

/// Part of an analysis left out because the budget ran out: which rule
/// lost precision and, in words, what was not analysed.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Cut {
    pub rule: RuleId,
    /// `not run`, `412 of 3120 methods not analysed`, ...
    pub what: String,
}

impl Cut {
    pub fn new(rule: RuleId, what: impl Into<String>) -> Cut {
        Cut {
            rule,
            what: what.into(),
        }
    }
}

/// Counts the units of work a loop skipped once the budget ran out, and
/// turns them into a [`Cut`] at the end.
#[derive(Debug, Clone, Copy, Default)]
pub struct Skipped {
    pub skipped: usize,
    pub total: usize,
}

impl Skipped {
    /// `n of m <what>` (`3 of 10 methods not analysed`), or nothing when
    /// none was skipped.
    pub fn cut(self, rule: RuleId, what: &str) -> Option<Cut> {
        (self.skipped > 0)
            .then(|| Cut::new(rule, format!("{} of {} {what}", self.skipped, self.total)))
    }
}

/// `f` of every item, in parallel and in item order, except the items
/// that start after the budget ran out (`None`), with how many those were.
/// Without a deadline every item is analysed.
pub fn map_within<T: Sync, R: Send>(
    budget: Budget,
    items: &[T],
    f: impl Fn(&T) -> R + Sync,
) -> (Vec<Option<R>>, Skipped) {
    let results: Vec<Option<R>> = items
        .par_iter()
        .map(|item| (!budget.expired()).then(|| f(item)))
        .collect();
    let skipped = results.iter().filter(|r| r.is_none()).count();
    (
        results,
        Skipped {
            skipped,
            total: items.len(),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_deadline_never_expires() {
        assert!(!Budget::unlimited().expired());
        assert!(!Budget::unlimited().is_limited());
    }

    #[test]
    fn a_past_deadline_has_expired() {
        let b = Budget::until(Instant::now());
        assert!(b.is_limited());
        assert!(b.expired());
    }

    #[test]
    fn map_within_analyses_everything_without_a_deadline() {
        let (out, skipped) = map_within(Budget::unlimited(), &[1, 2, 3], |x| x * 2);
        assert_eq!(out, vec![Some(2), Some(4), Some(6)]);
        assert_eq!(skipped.skipped, 0);
    }

    #[test]
    fn map_within_skips_everything_after_the_deadline() {
        let (out, skipped) = map_within(Budget::until(Instant::now()), &[1, 2, 3], |x| x * 2);
        assert_eq!(out, vec![None, None, None]);
        assert_eq!((skipped.skipped, skipped.total), (3, 3));
    }

    #[test]
    fn skipped_work_becomes_a_cut_only_when_something_was_skipped() {
        let none = Skipped {
            skipped: 0,
            total: 10,
        };
        assert_eq!(none.cut(RuleId::DataRace, "races"), None);
        let some = Skipped {
            skipped: 3,
            total: 10,
        };
        assert_eq!(
            some.cut(RuleId::DataRace, "races not analysed"),
            Some(Cut::new(RuleId::DataRace, "3 of 10 races not analysed"))
        );
    }
}
