//! Budgets (`check --max-time`, `--max-memory`): a deadline and a cap on
//! the process's resident memory that detectors look at between units of
//! work (a method, a block, a finding), and the record of what they left
//! out once either was reached.
//!
//! Without a budget (the default) no step is ever cut and the output
//! does not depend on timing. With one, what is cut depends on how fast
//! the machine is and how much memory the earlier phases kept; a deadline
//! already passed when the detectors start (`--max-time 0`) cuts every
//! budgeted step, whatever the machine. Reading the clock is cheap, and
//! the memory probe the command line gives reads memory at most every
//! few milliseconds; detectors still look once per unit of work, never
//! per statement.

use std::time::Instant;

use lockstep_pointsto::MemoryProbe;
use rayon::prelude::*;

use crate::RuleId;

/// When the analysis must stop refining and report what it has.
#[derive(Debug, Clone, Copy, Default)]
pub struct Budget {
    deadline: Option<Instant>,
    memory: Option<MemoryCap>,
}

/// A cap on resident memory: detectors stop refining once the probe reads
/// `bytes` or more.
#[derive(Debug, Clone, Copy)]
pub struct MemoryCap {
    pub bytes: u64,
    pub probe: MemoryProbe,
}

/// Which limits a budget has, for naming it to the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BudgetKind {
    Time,
    Memory,
    TimeAndMemory,
}

impl BudgetKind {
    /// `the time budget`, `the memory budget`, `the time or memory budget`.
    pub fn noun(self) -> &'static str {
        match self {
            BudgetKind::Time => "the time budget",
            BudgetKind::Memory => "the memory budget",
            BudgetKind::TimeAndMemory => "the time or memory budget",
        }
    }
}

impl Budget {
    /// No deadline and no memory cap: nothing is ever cut.
    pub fn unlimited() -> Budget {
        Budget {
            deadline: None,
            memory: None,
        }
    }

    /// Work must stop at `deadline`.
    pub fn until(deadline: Instant) -> Budget {
        Budget {
            deadline: Some(deadline),
            memory: None,
        }
    }

    /// This budget with a memory cap as well.
    pub fn with_memory(self, cap: MemoryCap) -> Budget {
        Budget {
            memory: Some(cap),
            ..self
        }
    }

    /// The deadline, if one was set.
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// The memory cap, if one was set.
    pub fn memory(&self) -> Option<MemoryCap> {
        self.memory
    }

    /// Whether a deadline or a memory cap was set at all.
    pub fn is_limited(&self) -> bool {
        self.kind().is_some()
    }

    /// Which limits were set; `None` for an unlimited budget.
    pub fn kind(&self) -> Option<BudgetKind> {
        match (self.deadline.is_some(), self.memory.is_some()) {
            (true, true) => Some(BudgetKind::TimeAndMemory),
            (true, false) => Some(BudgetKind::Time),
            (false, true) => Some(BudgetKind::Memory),
            (false, false) => None,
        }
    }

    /// Whether the deadline has passed or memory reached its cap: the
    /// caller should skip the rest of its optional work and record a
    /// [`Cut`]. Memory that cannot be read never counts as reached.
    pub fn expired(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
            || self
                .memory
                .is_some_and(|m| m.probe.read().is_some_and(|r| r >= m.bytes))
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
    fn memory_at_its_cap_expires_the_budget() {
        let cap = |bytes| MemoryCap {
            bytes,
            probe: MemoryProbe(|| Some(1000)),
        };
        assert!(Budget::unlimited().with_memory(cap(1000)).expired());
        assert!(!Budget::unlimited().with_memory(cap(1001)).expired());
        assert_eq!(
            Budget::unlimited().with_memory(cap(1)).kind(),
            Some(BudgetKind::Memory)
        );
        let both = Budget::until(Instant::now() + std::time::Duration::from_secs(3600))
            .with_memory(cap(1001));
        assert!(!both.expired());
        assert_eq!(both.kind(), Some(BudgetKind::TimeAndMemory));
    }

    #[test]
    fn unreadable_memory_never_expires_the_budget() {
        let cap = MemoryCap {
            bytes: 0,
            probe: MemoryProbe(|| None),
        };
        assert!(!Budget::unlimited().with_memory(cap).expired());
    }

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
