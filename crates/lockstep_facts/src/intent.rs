//! Concurrent intent for pairs that only an assumed outside caller makes
//! concurrent (issue 14: "the harness pairs with everything").
//!
//! The open-program harness (paper 002 §4.5.3) calls every entry from any
//! number of threads at once. That assumption is the developer's to make,
//! not the analysis's: like RacerD for code not annotated `@ThreadSafe`,
//! a pair of accesses that runs concurrently only because a harness root
//! is on one side (two real thread roots do not make it concurrent) is
//! judged only when the code shows that *this memory* or *these methods*
//! are meant for concurrent use:
//!
//! - the field is `@GuardedBy`, or the class declaring it, or the class of
//!   either accessing method, is `@ThreadSafe`;
//! - some access of the same memory anywhere in the program holds a lock
//!   (the field is evidently meant to be protected, so an unlocked access
//!   is inconsistent locking): the same field (any object), or for array
//!   elements and container contents, the same field holding them or the
//!   same abstract object;
//! - one of the two accessing methods itself takes a lock (`synchronized`,
//!   a monitor block, a `java.util.concurrent` lock): it was written to
//!   run beside other threads.
//!
//! The last two signs do not count when both accesses are made by classes
//! the program itself calls only under a lock of the receiver, on their
//! receiver's memory: the harness is taken to follow that protocol and to
//! hold the callers' lock on both sides ([`crate::caller_locks`]).
//!
//! Otherwise the pair is [`Verdict::NoIntent`](crate::Verdict::NoIntent):
//! counted, and shown by `--explain`, but not a race. Class-level signs
//! (a lock taken somewhere else in the class, a `volatile` field) are not
//! enough: a class such as h2's `Database` locks somewhere, and everything
//! it reaches through the harness would race with itself.
//! `--open-every-class` turns the rule off.

use std::sync::Arc;

use lockstep_pointsto::ObjectId;
use lockstep_program::MethodId;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::accesses::Target;
use crate::analysis::{Access, Analysis, Buckets};
use crate::annotations::{class_policy, guarded_by};
use crate::threads::{Root, RootKind};

/// Memory of which at least one access, somewhere, holds a lock.
#[derive(Debug, Default)]
pub(crate) struct LockedMemory {
    /// Instance and static fields (any object).
    targets: FxHashSet<Target>,
    /// Fields holding arrays or containers whose elements or contents
    /// some access touches under a lock.
    holders: FxHashSet<(Arc<str>, Arc<str>)>,
    /// Array and container objects touched under a lock.
    objects: FxHashSet<(Target, ObjectId)>,
}

impl LockedMemory {
    /// Collects the accesses of every bucket that hold a lock (their own,
    /// or one every caller holds), and the accesses set aside as the
    /// running thread's own that hold one (`owned_locked`).
    pub(crate) fn of(buckets: &Buckets, owned_locked: &[OwnedLocked]) -> LockedMemory {
        let mut m = LockedMemory::default();
        for ((target, obj), list) in buckets {
            for a in list.iter().filter(|a| !a.locks.is_empty()) {
                m.note(target, a.holder.as_ref(), *obj);
            }
        }
        // By field only: an owned access's points-to set may name objects
        // of its site that other contexts publish, which the access does
        // not touch.
        for (target, holder) in owned_locked {
            m.note(target, holder.as_ref(), None);
        }
        m
    }

    /// One locked access of `target` (through `holder`, on `obj`).
    fn note(
        &mut self,
        target: &Target,
        holder: Option<&(Arc<str>, Arc<str>)>,
        obj: Option<ObjectId>,
    ) {
        match target {
            Target::Field { .. } | Target::Static { .. } => {
                self.targets.insert(target.clone());
            }
            Target::Element | Target::Container => {
                if let Some(h) = holder {
                    self.holders.insert(h.clone());
                }
                if let Some(o) = obj {
                    self.objects.insert((target.clone(), o));
                }
            }
        }
    }

    /// Is this array or container object touched under a lock somewhere?
    /// The one part of [`Self::locked`] that differs between two buckets
    /// of one target with equal accesses.
    pub(crate) fn object_locked(&self, target: &Target, obj: Option<ObjectId>) -> bool {
        obj.is_some_and(|o| self.objects.contains(&(target.clone(), o)))
    }

    /// Does some access of the memory of this pair hold a lock?
    fn locked(&self, target: &Target, obj: Option<ObjectId>, a: &Access, b: &Access) -> bool {
        match target {
            Target::Field { .. } | Target::Static { .. } => self.targets.contains(target),
            Target::Element | Target::Container => {
                self.object_locked(target, obj)
                    || [a, b]
                        .iter()
                        .filter_map(|x| x.holder.as_ref())
                        .any(|h| self.holders.contains(h))
            }
        }
    }
}

/// An access that holds a lock on an object the running thread owns:
/// its target and the field holding its array or container.
pub(crate) type OwnedLocked = (Target, Option<(Arc<str>, Arc<str>)>);

/// The intent facts, filled once per analysis.
#[derive(Debug, Default)]
pub(crate) struct Intent {
    pub(crate) locked: LockedMemory,
    /// Accesses set aside as owned that hold a lock ([`LockedMemory::of`]).
    pub(crate) owned_locked: Vec<OwnedLocked>,
    /// Per method: does its own body take a lock?
    method_locks: FxHashMap<MethodId, bool>,
    /// Per interned root set (by address): its roots that are not the
    /// harness.
    real_roots: FxHashMap<usize, Arc<[u32]>>,
    /// Access statements in at least one pair set aside by this rule.
    pub(crate) set_aside: FxHashSet<(MethodId, lockstep_ir::StmtId)>,
    /// Classes the program uses only under a lock of the receiver
    /// ([`crate::caller_locks`]; computed on first use).
    pub(crate) caller_locked: Option<FxHashSet<lockstep_program::ClassId>>,
}

impl Analysis<'_> {
    /// Is this pair concurrent only through an assumed outside caller:
    /// in an open program always; otherwise when no two roots of the
    /// program itself (mains, started threads, `@ThreadSafe` APIs) run
    /// the two accesses at the same time.
    fn needs_assumed_caller(&mut self, roots: &[Root], a: &Access, b: &Access) -> bool {
        self.open || self.program_roots_concurrent(roots, a, b).is_none()
    }

    /// Two roots of the program itself (not the harness) that run the two
    /// accesses at the same time, if any.
    fn program_roots_concurrent(
        &mut self,
        roots: &[Root],
        a: &Access,
        b: &Access,
    ) -> Option<(u32, u32)> {
        let ra = self.real_roots_of(roots, &a.roots);
        let rb = self.real_roots_of(roots, &b.roots);
        self.concurrency
            .concurrent(false, roots, (&ra, &a.ordered), (&rb, &b.ordered))
    }

    /// The two roots a race is shown with: in a closed program, two roots
    /// of the program itself when they make the pair concurrent (the
    /// assumed outside caller is then not what makes it a race, and its
    /// label would understate the finding), else the nearest concurrent
    /// pair of any roots.
    pub(crate) fn shown_roots(
        &mut self,
        roots: &[Root],
        a: &Access,
        b: &Access,
    ) -> Option<(u32, u32)> {
        if !self.open {
            if let Some(pair) = self.program_roots_concurrent(roots, a, b) {
                return Some(pair);
            }
        }
        self.concurrency.concurrent(
            self.open,
            roots,
            (&a.roots, &a.ordered),
            (&b.roots, &b.ordered),
        )
    }

    /// The roots of an interned root set that are not the harness (cached
    /// by the set's address: equal addresses are equal sets).
    fn real_roots_of(&mut self, roots: &[Root], set: &Arc<[u32]>) -> Arc<[u32]> {
        let key = set.as_ptr() as usize;
        if let Some(v) = self.intent.real_roots.get(&key) {
            return v.clone();
        }
        let v: Arc<[u32]> = set
            .iter()
            .copied()
            .filter(|&r| {
                roots
                    .get(r as usize)
                    .is_some_and(|x| !matches!(x.kind, RootKind::Harness(_)))
            })
            .collect();
        self.intent.real_roots.insert(key, v.clone());
        v
    }

    /// Is this pair set aside by the rule of this module: concurrent only
    /// through an assumed outside caller, on an instance field, array or
    /// container (static fields are always judged), with no sign of intent?
    pub(crate) fn no_intent(
        &mut self,
        (target, obj): (&Target, Option<ObjectId>),
        roots: &[Root],
        a: &Access,
        b: &Access,
    ) -> bool {
        !self.every_class
            && !matches!(target, Target::Static { .. })
            && self.needs_assumed_caller(roots, a, b)
            && !self.shows_intent(target, obj, roots, a, b)
    }

    /// Does the code show that the memory of this pair, or one of its two
    /// methods, is meant for concurrent use (the criteria are in the
    /// module docs)?
    fn shows_intent(
        &mut self,
        target: &Target,
        obj: Option<ObjectId>,
        roots: &[Root],
        a: &Access,
        b: &Access,
    ) -> bool {
        if self.annotated(target, a, b) {
            return true;
        }
        let signs = self.intent.locked.locked(target, obj, a, b)
            || self.method_takes_lock(a.method)
            || self.method_takes_lock(b.method);
        signs && !self.both_under_caller_lock(roots, a, b)
    }

    /// Are both accesses made on their receiver's memory by classes the
    /// program uses only under a lock of the receiver? The harness is then
    /// taken to hold that lock too, so the locks elsewhere show the
    /// protocol, not an inconsistency ([`crate::caller_locks`]).
    fn both_under_caller_lock(&mut self, roots: &[Root], a: &Access, b: &Access) -> bool {
        self.under_caller_lock(roots, a.method, a.stmt)
            && self.under_caller_lock(roots, b.method, b.stmt)
    }

    /// `@GuardedBy` on the field, or `@ThreadSafe` on its class or on the
    /// class of either accessing method.
    fn annotated(&self, target: &Target, a: &Access, b: &Access) -> bool {
        let p = self.program;
        let thread_safe =
            |c: lockstep_program::ClassId| class_policy(&p.class(c).file.annotations).thread_safe;
        if let Target::Field { class, name } | Target::Static { class, name } = target {
            if let Some(c) = p.class_by_name(class) {
                let guarded = p
                    .class(c)
                    .file
                    .fields
                    .iter()
                    .any(|f| f.name == *name && guarded_by(&f.annotations).is_some());
                if guarded || thread_safe(c) {
                    return true;
                }
            }
        }
        [a, b].iter().any(|x| thread_safe(p.method(x.method).class))
    }

    /// Does the body of `m` take a lock: `synchronized`, a monitor block,
    /// or a `java.util.concurrent` lock?
    pub(crate) fn method_takes_lock(&mut self, m: MethodId) -> bool {
        if let Some(&v) = self.intent.method_locks.get(&m) {
            return v;
        }
        let v = self.program.method(m).is_synchronized()
            || self.program.body(m).is_some_and(|body| {
                !body.monitors.is_empty()
                    || self.locks_of(m, &body).before.iter().any(|l| !l.is_empty())
            });
        self.intent.method_locks.insert(m, v);
        v
    }
}
