//! Locks as the stale-value analysis compares them: a kind (a monitor or a
//! `java.util.concurrent` lock in some mode) and the access path of the
//! locked object, as the source names it. Also the two syntactic facts the
//! analysis needs about operands: whether a value is a fresh allocation of
//! this method (locking it protects nothing another thread can see), and
//! how a callee's lock reads in the caller (`TRANSLATE`: `this` becomes the
//! receiver, parameters become the arguments).
//!
//! Paths are compared syntactically, as everywhere in lockstep: two
//! expressions for one object are two locks (a lock of a callee that the
//! caller holds under another name then counts as a new block: more
//! warnings, never fewer). [`AccessPath::Unknown`] is a lock distinct from
//! every lock, itself included (paper 001 §5.1: unknown locks are assumed
//! distinct, which keeps the analysis sound).

use std::sync::Arc;

use lockstep_ir::{AccessPath, Body, ConstValue, Operand, Rvalue, StmtKind, VarId};
use lockstep_models::{LockEffect, LockMode};

/// Access paths longer than this many components are not kept in
/// summaries (they become "some other lock").
pub const MAX_PATH: usize = 4;

/// Library summaries keep only locks on the receiver and what its fields
/// reach, up to this many components (`this`, `this.lock`, `this.sync.lock`).
pub const MAX_LIBRARY_PATH: usize = 3;

/// Which side of which kind of lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LockKind {
    /// A Java monitor (`synchronized`).
    Monitor,
    /// A `java.util.concurrent.locks` lock, exclusive.
    Exclusive,
    /// The read side of a read-write lock.
    Read,
    /// The write side of a read-write lock.
    Write,
    /// A `StampedLock` released by stamp: whichever side the stamp holds.
    Stamp,
}

impl LockKind {
    pub fn of_mode(mode: LockMode) -> LockKind {
        match mode {
            LockMode::Exclusive => LockKind::Exclusive,
            LockMode::Read => LockKind::Read,
            LockMode::Write => LockKind::Write,
            LockMode::Stamp => LockKind::Stamp,
        }
    }

    /// Does a release of kind `self` release an acquisition of kind `held`?
    pub fn releases(self, held: LockKind) -> bool {
        self == held
            || (self == LockKind::Stamp && matches!(held, LockKind::Read | LockKind::Write))
    }
}

/// A lock: its kind and the object, as the source names it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LockKey {
    pub kind: LockKind,
    pub path: AccessPath,
}

impl LockKey {
    pub fn monitor(path: AccessPath) -> LockKey {
        LockKey {
            kind: LockKind::Monitor,
            path,
        }
    }

    /// Whether two acquisitions of this key can be known to be of the same
    /// lock: never for an unknown path.
    pub fn comparable(&self) -> bool {
        !matches!(self.path, AccessPath::Unknown)
    }
}

/// Number of components of a path (`this.a.b` has 3).
pub fn size(path: &AccessPath) -> usize {
    match path {
        AccessPath::Field(base, _) | AccessPath::OuterThis(base, _) => 1 + size(base),
        AccessPath::Element(base, index) => 1 + size(base) + size(index),
        _ => 1,
    }
}

/// What a path is built on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Root {
    This,
    Param,
    /// A static field or a class literal: the same object in every method.
    Global,
    /// A local value or something unknown: not expressible in another method.
    Local,
}

pub fn root(path: &AccessPath) -> Root {
    match path {
        AccessPath::This => Root::This,
        AccessPath::Param(..) => Root::Param,
        AccessPath::Static(..) | AccessPath::ClassLiteral(_) => Root::Global,
        AccessPath::Field(base, _) | AccessPath::OuterThis(base, _) => root(base),
        AccessPath::Element(base, index) => match (root(base), index_ok(index)) {
            (r, true) => r,
            (_, false) => Root::Local,
        },
        AccessPath::Local(..) | AccessPath::IntConst(_) | AccessPath::Unknown => Root::Local,
    }
}

/// An array index is expressible in a callee's caller when it is a
/// constant or itself built on `this`, a parameter or a global.
fn index_ok(index: &AccessPath) -> bool {
    matches!(index, AccessPath::IntConst(_)) || root(index) != Root::Local
}

/// What a summary does with a lock of its method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// Keep the lock: callers can compare it with the locks they hold.
    Yes,
    /// Not expressible in callers: the method acquires "some other lock",
    /// which callers must assume they do not hold.
    Distinct,
    /// Not counted at all (library locks that protect no data of the caller).
    No,
}

/// Which locks a summary keeps. Application methods keep every lock a
/// caller could name (on `this`, parameters, statics) and count the rest
/// as distinct. Library methods keep only locks on their receiver and what
/// its fields reach (`Vector`'s `this`, a blocking queue's `this.lock`): the
/// locks that protect the data a library call returns. Locks the library
/// takes on arguments (a key's synchronized `hashCode` called by
/// `HashMap.get`) or on its own global state (class-loading and registry
/// locks) protect nothing the caller reads through the result, and counting
/// them would make almost every library call result a shared value.
pub fn keep(path: &AccessPath, library: bool) -> Keep {
    let r = root(path);
    if library {
        return if r == Root::This && size(path) <= MAX_LIBRARY_PATH {
            Keep::Yes
        } else {
            Keep::No
        };
    }
    match r {
        Root::Local => Keep::Distinct,
        _ if size(path) > MAX_PATH => Keep::Distinct,
        _ => Keep::Yes,
    }
}

/// A lock of a callee as the caller reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Translated {
    /// The lock is an object the caller allocated itself: no other thread
    /// can hold it, so acquiring it protects nothing (paper 001 §7: the
    /// warnings of the TSP benchmark were on data still thread-local).
    Fresh,
    /// The lock in the caller's terms ([`AccessPath::Unknown`] when it cannot be named).
    Path(AccessPath),
}

/// The caller's view of one operand at a call site.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Actual {
    pub path: AccessPath,
    /// The operand is an object allocated in the caller (`new`), not yet
    /// handed to anyone as far as this method's copies show.
    pub fresh: bool,
}

impl Actual {
    pub fn of(body: &Body, op: &Operand) -> Actual {
        Actual {
            path: operand_path(body, op),
            fresh: op.var().is_some_and(|v| is_fresh(body, v)),
        }
    }
}

fn operand_path(body: &Body, op: &Operand) -> AccessPath {
    match op {
        Operand::Var(v) => lockstep_ir::access_path(body, *v),
        Operand::Const(ConstValue::Int(i)) => AccessPath::IntConst(*i),
        Operand::Const(ConstValue::Class(c)) => AccessPath::ClassLiteral(c.clone()),
        Operand::Const(_) => AccessPath::Unknown,
    }
}

/// Is `v` (through copies and casts) a `new` of this method, or the
/// exception its handler caught (thrown to this thread, and hardly ever
/// shared: `e.getCause()` is synchronized)?
pub fn is_fresh(body: &Body, mut v: VarId) -> bool {
    // Copies form chains without cycles (each copy has one definition), but
    // the bound keeps malformed input from looping.
    for _ in 0..16 {
        let Some(StmtKind::Assign { value, .. }) = body
            .unique_def
            .get(v.index())
            .copied()
            .flatten()
            .and_then(|s| body.stmts.get(s.index()))
            .map(|s| &s.kind)
        else {
            return false;
        };
        match value {
            Rvalue::New(_) | Rvalue::NewArray(..) | Rvalue::CaughtException => return true,
            Rvalue::Use(Operand::Var(w)) | Rvalue::Cast(Operand::Var(w), _) => v = *w,
            _ => return false,
        }
    }
    false
}

/// `TRANSLATE`: a lock path of a callee (built on its `this` and
/// parameters) in the terms of a call site with `receiver` and `args`.
pub fn translate(path: &AccessPath, receiver: Option<&Actual>, args: &[Actual]) -> Translated {
    match path {
        AccessPath::This => match receiver {
            Some(a) if a.fresh => Translated::Fresh,
            Some(a) => Translated::Path(a.path.clone()),
            None => Translated::Path(AccessPath::Unknown),
        },
        AccessPath::Param(i, _) => match args.get(usize::from(*i)) {
            Some(a) if a.fresh => Translated::Fresh,
            Some(a) => Translated::Path(a.path.clone()),
            None => Translated::Path(AccessPath::Unknown),
        },
        AccessPath::Field(base, f) => map_base(translate(base, receiver, args), |b| {
            AccessPath::Field(Arc::new(b), f.clone())
        }),
        AccessPath::OuterThis(base, c) => map_base(translate(base, receiver, args), |b| {
            AccessPath::OuterThis(Arc::new(b), c.clone())
        }),
        AccessPath::Element(base, index) => {
            let index = match translate(index, receiver, args) {
                Translated::Path(p) => p,
                // An index is a number; a fresh object as index cannot happen.
                Translated::Fresh => AccessPath::Unknown,
            };
            map_base(translate(base, receiver, args), |b| {
                if matches!(index, AccessPath::Unknown) {
                    AccessPath::Unknown
                } else {
                    AccessPath::Element(Arc::new(b), Arc::new(index.clone()))
                }
            })
        }
        AccessPath::Static(..) | AccessPath::ClassLiteral(_) | AccessPath::IntConst(_) => {
            Translated::Path(path.clone())
        }
        AccessPath::Local(..) | AccessPath::Unknown => Translated::Path(AccessPath::Unknown),
    }
}

/// A field of a fresh object is reached only through that object (fresh
/// too, as far as this analysis knows); an unknown base stays unknown.
fn map_base(base: Translated, f: impl FnOnce(AccessPath) -> AccessPath) -> Translated {
    match base {
        Translated::Fresh => Translated::Fresh,
        Translated::Path(AccessPath::Unknown) => Translated::Path(AccessPath::Unknown),
        Translated::Path(b) => Translated::Path(f(b)),
    }
}

/// The lock effect of a call, from the models layer, as a lock kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Acquires (or may acquire: `tryLock`) the receiver in this mode.
    Acquire(LockKind),
    /// Releases the receiver in this mode.
    Release(LockKind),
    /// `Object.wait`: releases and re-acquires the receiver's monitor.
    MonitorWait,
    /// `Condition.await`: releases and re-acquires the condition's lock.
    ConditionAwait,
    /// The result is the read or write view of the receiver lock.
    View(LockKind),
}

pub fn effect(e: LockEffect) -> Option<Effect> {
    Some(match e {
        LockEffect::Lock(m) | LockEffect::LockedIfTrue(m) | LockEffect::LockedIfNonZero(m) => {
            Effect::Acquire(LockKind::of_mode(m))
        }
        LockEffect::Unlock(m) => Effect::Release(LockKind::of_mode(m)),
        LockEffect::MonitorWait => Effect::MonitorWait,
        LockEffect::ConditionAwait => Effect::ConditionAwait,
        LockEffect::ReadView => Effect::View(LockKind::Read),
        LockEffect::WriteView => Effect::View(LockKind::Write),
        LockEffect::OptimisticRead
        | LockEffect::Validate
        | LockEffect::MonitorNotify
        | LockEffect::NewCondition
        | LockEffect::ConditionSignal => return None,
    })
}

/// Shorter display for messages: `this.lock` reads as `lock` in the
/// source, `this` stays `this`.
pub fn short(path: &AccessPath) -> String {
    let s = path.to_string();
    match s.strip_prefix("this.") {
        Some(rest) if !rest.is_empty() => rest.to_string(),
        _ => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn field(base: AccessPath, f: &str) -> AccessPath {
        AccessPath::Field(Arc::new(base), Arc::from(f))
    }

    fn actual(path: AccessPath, fresh: bool) -> Actual {
        Actual { path, fresh }
    }

    #[test]
    fn translation_maps_this_and_parameters() {
        let recv = actual(field(AccessPath::This, "counter"), false);
        let lock = field(AccessPath::This, "lock");
        assert_eq!(
            translate(&lock, Some(&recv), &[]),
            Translated::Path(field(field(AccessPath::This, "counter"), "lock"))
        );
        let arg = actual(AccessPath::Param(1, None), false);
        assert_eq!(
            translate(
                &AccessPath::Param(0, None),
                None,
                std::slice::from_ref(&arg)
            ),
            Translated::Path(AccessPath::Param(1, None))
        );
        // A missing argument or a callee-local lock cannot be named.
        assert_eq!(
            translate(&AccessPath::Param(3, None), None, &[]),
            Translated::Path(AccessPath::Unknown)
        );
        assert_eq!(
            translate(&AccessPath::Local(VarId(4), None), Some(&recv), &[]),
            Translated::Path(AccessPath::Unknown)
        );
        let global = AccessPath::Static(Arc::from("a/B"), Arc::from("LOCK"));
        assert_eq!(
            translate(&global, None, &[]),
            Translated::Path(global.clone())
        );
    }

    #[test]
    fn locks_of_fresh_objects_are_dropped() {
        let fresh = actual(AccessPath::Local(VarId(2), None), true);
        assert_eq!(
            translate(&AccessPath::This, Some(&fresh), &[]),
            Translated::Fresh
        );
        assert_eq!(
            translate(&field(AccessPath::This, "lock"), Some(&fresh), &[]),
            Translated::Fresh
        );
    }

    #[test]
    fn what_summaries_keep() {
        let this_lock = field(AccessPath::This, "lock");
        assert_eq!(keep(&this_lock, false), Keep::Yes);
        assert_eq!(keep(&this_lock, true), Keep::Yes);
        let param = AccessPath::Param(0, None);
        assert_eq!(keep(&param, false), Keep::Yes);
        assert_eq!(keep(&param, true), Keep::No, "callback locks of the JDK");
        let global = AccessPath::Static(Arc::from("a/B"), Arc::from("LOCK"));
        assert_eq!(keep(&global, false), Keep::Yes);
        assert_eq!(keep(&global, true), Keep::No);
        let local = AccessPath::Local(VarId(1), None);
        assert_eq!(keep(&local, false), Keep::Distinct);
        let deep = field(field(field(field(AccessPath::This, "a"), "b"), "c"), "d");
        assert_eq!(keep(&deep, false), Keep::Distinct);
        assert_eq!(keep(&deep, true), Keep::No);
    }

    #[test]
    fn stamps_release_either_side() {
        assert!(LockKind::Stamp.releases(LockKind::Read));
        assert!(LockKind::Stamp.releases(LockKind::Write));
        assert!(!LockKind::Read.releases(LockKind::Write));
        assert!(LockKind::Monitor.releases(LockKind::Monitor));
    }

    #[test]
    fn short_names_drop_this() {
        assert_eq!(short(&field(AccessPath::This, "lock")), "lock");
        assert_eq!(short(&AccessPath::This), "this");
        assert_eq!(short(&AccessPath::Param(0, Some(Arc::from("c")))), "c");
    }
}
