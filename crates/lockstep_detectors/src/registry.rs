//! The rule registry: every rule's id, name, default and documentation,
//! declared once beside its detector and listed here, once.
//!
//! Rule ids are typed ([`RuleId`]); sets of rules are bit sets
//! ([`RuleSet`]). The string form of an id is stable: it appears in
//! `--select`, JSON and SARIF and never changes once released.

use std::fmt;
use std::str::FromStr;

/// A rule of lockstep.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RuleId {
    BlockingUnderLock,
    DataRace,
    Deadlock,
    NonAtomicMethod,
    ReacquiredLock,
    ReacquiredLockPair,
    StaleValue,
    WaitNotify,
}

impl RuleId {
    /// Every rule, in id order.
    pub const ALL: [RuleId; 8] = [
        RuleId::BlockingUnderLock,
        RuleId::DataRace,
        RuleId::Deadlock,
        RuleId::NonAtomicMethod,
        RuleId::ReacquiredLock,
        RuleId::ReacquiredLockPair,
        RuleId::StaleValue,
        RuleId::WaitNotify,
    ];

    /// The rule's metadata (declared in its detector's module).
    pub fn meta(self) -> &'static RuleMeta {
        match self {
            RuleId::BlockingUnderLock => &crate::wait_notify::BLOCKING_RULE,
            RuleId::DataRace => &crate::data_race::DATA_RACE,
            RuleId::Deadlock => &crate::deadlock::RULE,
            RuleId::NonAtomicMethod => &crate::non_atomic_method::NON_ATOMIC_METHOD,
            RuleId::ReacquiredLock => &crate::reacquired_lock::RULE,
            RuleId::ReacquiredLockPair => &crate::reacquired_lock::PAIR_RULE,
            RuleId::StaleValue => &crate::stale_value::RULE,
            RuleId::WaitNotify => &crate::wait_notify::RULE,
        }
    }

    /// The stable id, `data-race`.
    pub fn as_str(self) -> &'static str {
        match self {
            RuleId::BlockingUnderLock => "blocking-under-lock",
            RuleId::DataRace => "data-race",
            RuleId::Deadlock => "deadlock",
            RuleId::NonAtomicMethod => "non-atomic-method",
            RuleId::ReacquiredLock => "reacquired-lock",
            RuleId::ReacquiredLockPair => "reacquired-lock-pair",
            RuleId::StaleValue => "stale-value",
            RuleId::WaitNotify => "wait-notify",
        }
    }

    fn bit(self) -> u32 {
        1 << (self as u32)
    }
}

impl fmt::Display for RuleId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<RuleId> for String {
    fn from(id: RuleId) -> String {
        id.as_str().to_string()
    }
}

/// An unknown rule id, with the known ones for the message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownRule(pub String);

impl fmt::Display for UnknownRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown rule `{}` (known rules: {})",
            self.0,
            known_rules()
        )
    }
}

fn known_rules() -> String {
    let known: Vec<&str> = RuleId::ALL.iter().map(|r| r.as_str()).collect();
    format!("all, {}", known.join(", "))
}

/// Why `--select`/`--ignore` give no rules to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SelectionError {
    Unknown(UnknownRule),
    /// The selection leaves no rule enabled.
    Empty,
}

impl fmt::Display for SelectionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SelectionError::Unknown(u) => u.fmt(f),
            SelectionError::Empty => write!(
                f,
                "no rule left to run: the selection and --ignore exclude every rule (known rules: {})",
                known_rules()
            ),
        }
    }
}

impl FromStr for RuleId {
    type Err = UnknownRule;

    fn from_str(s: &str) -> Result<RuleId, UnknownRule> {
        RuleId::ALL
            .into_iter()
            .find(|r| r.as_str() == s)
            .ok_or_else(|| UnknownRule(s.to_string()))
    }
}

/// Static description of a rule.
#[derive(Debug)]
pub struct RuleMeta {
    pub id: RuleId,
    /// CamelCase name for SARIF.
    pub name: &'static str,
    /// One line: what the rule finds.
    pub summary: &'static str,
    /// Whether the rule runs without `--select`.
    pub default_enabled: bool,
    /// Markdown with the sections of [`DOC_SECTIONS`].
    pub docs: &'static str,
}

/// The sections every rule's documentation has, in this order.
pub const DOC_SECTIONS: [&str; 5] = [
    "## What it finds",
    "## Why it matters",
    "## Example",
    "## How to fix it",
    "## Known limits",
];

impl RuleMeta {
    pub fn to_report(&self) -> lockstep_report::RuleMeta {
        lockstep_report::RuleMeta::new(self.id.as_str(), self.name, self.summary)
    }
}

/// A set of rules.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct RuleSet(u32);

impl RuleSet {
    pub fn empty() -> RuleSet {
        RuleSet(0)
    }

    pub fn all() -> RuleSet {
        RuleId::ALL.into_iter().collect()
    }

    /// The rules that run without `--select`.
    pub fn defaults() -> RuleSet {
        RuleId::ALL
            .into_iter()
            .filter(|r| r.meta().default_enabled)
            .collect()
    }

    pub fn contains(self, r: RuleId) -> bool {
        self.0 & r.bit() != 0
    }

    pub fn insert(&mut self, r: RuleId) {
        self.0 |= r.bit();
    }

    pub fn remove(&mut self, r: RuleId) {
        self.0 &= !r.bit();
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Does the set hold one of `rules`?
    pub fn any_of(self, rules: &[RuleId]) -> bool {
        rules.iter().any(|&r| self.contains(r))
    }

    /// The rules, in id order.
    pub fn iter(self) -> impl Iterator<Item = RuleId> {
        RuleId::ALL.into_iter().filter(move |&r| self.contains(r))
    }

    /// Resolves `--select`/`--ignore`: the defaults (or the selected
    /// rules; `all` stands for every rule), less the ignored ones. Ids are
    /// trimmed and empty ones skipped. Unknown ids, and a selection that
    /// leaves nothing to run, are errors naming the known rules.
    pub fn from_selection(select: &[String], ignore: &[String]) -> Result<RuleSet, SelectionError> {
        let selected = parse_ids(select)?;
        let ignored = parse_ids(ignore)?;
        let mut set = if selected.is_empty() {
            RuleSet::defaults()
        } else {
            selected
        };
        for r in ignored.iter() {
            set.remove(r);
        }
        if set.is_empty() {
            return Err(SelectionError::Empty);
        }
        Ok(set)
    }
}

/// The rules named by `ids` (`all` for every rule).
fn parse_ids(ids: &[String]) -> Result<RuleSet, SelectionError> {
    let mut set = RuleSet::empty();
    for id in ids.iter().map(|s| s.trim()).filter(|s| !s.is_empty()) {
        if id == "all" {
            set = RuleSet::all();
            continue;
        }
        set.insert(id.parse().map_err(SelectionError::Unknown)?);
    }
    Ok(set)
}

impl FromIterator<RuleId> for RuleSet {
    fn from_iter<I: IntoIterator<Item = RuleId>>(iter: I) -> RuleSet {
        let mut set = RuleSet::empty();
        for r in iter {
            set.insert(r);
        }
        set
    }
}

/// The metadata of every rule, in rule-id order.
pub fn all_rules() -> Vec<&'static RuleMeta> {
    RuleId::ALL.into_iter().map(RuleId::meta).collect()
}

/// The rule with this id.
pub fn rule(id: &str) -> Option<&'static RuleMeta> {
    id.parse::<RuleId>().ok().map(RuleId::meta)
}
