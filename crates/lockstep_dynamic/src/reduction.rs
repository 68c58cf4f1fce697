//! The reduction-based atomicity checker (paper 003, slides 12–17).
//!
//! Every event of a transaction is classified: an acquire is a right mover
//! (R), a release a left mover (L), a race-free access a both-mover (B:
//! thread-local, read-only after escape, or lock-protected — the enhanced
//! theorem of slide 13), any other access a non-mover (N). A transaction is
//! reducible, hence atomic, when it matches `(R|B)* N? (L|B)*`; the first
//! event that breaks the pattern is reported with the commit point before
//! it. On-line, an access is classified by its lockset state at that moment;
//! off-line, by the variable's final state (slide 17: the same run can pass
//! one and fail the other).

use crate::atomic_log::{AtomicLog, LogEvent, LogKind, Mover};
use crate::transactions::Txn;

/// Slide 17's event classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// Right mover (lock acquire).
    R,
    /// Left mover (lock release).
    L,
    /// Both mover (race-free access).
    B,
    /// Non-mover.
    N,
}

/// Which classification.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// By the lockset state at the moment of each access.
    Online,
    /// By each variable's final lockset state.
    Offline,
}

/// The class of a logged event (`None` for method entry/exit).
pub fn classify(log: &AtomicLog, e: &LogEvent, variant: Variant) -> Option<Class> {
    Some(match e.kind {
        LogKind::Enter(_) | LogKind::Exit(_) => return None,
        LogKind::Acquire(_) => Class::R,
        LogKind::Release(_) => Class::L,
        LogKind::Access { var, mover, .. } => match (mover, variant) {
            (Mover::Racy | Mover::Atomic, _) => Class::N,
            (Mover::Local, _) => Class::B,
            (Mover::ReadOnly | Mover::Protected, Variant::Online) => Class::B,
            (Mover::ReadOnly | Mover::Protected, Variant::Offline) => {
                let racy = log
                    .vars
                    .get(var as usize)
                    .and_then(Option::as_ref)
                    .is_some_and(|s| s.racy_at_end());
                if racy {
                    Class::N
                } else {
                    Class::B
                }
            }
        },
    })
}

/// Why a transaction is not reducible: the commit point (the non-mover or
/// release after which only left movers may come) and the event that broke
/// the pattern (log indices).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Irreducible {
    /// The commit point.
    pub commit: u32,
    /// The offending event after it.
    pub breaking: u32,
}

/// Checks one transaction against `(R|B)* N? (L|B)*`.
pub fn check(txn: &Txn, log: &AtomicLog, variant: Variant) -> Option<Irreducible> {
    let mut commit: Option<u32> = None;
    for &i in &txn.events {
        let e = log.events.get(i as usize)?;
        let Some(class) = classify(log, e, variant) else {
            continue;
        };
        match (commit, class) {
            (_, Class::B) => {}
            (None, Class::R) => {}
            (None, Class::N | Class::L) => commit = Some(i),
            (Some(_), Class::L) => {}
            (Some(c), Class::R | Class::N) => {
                return Some(Irreducible {
                    commit: c,
                    breaking: i,
                })
            }
        }
    }
    None
}
