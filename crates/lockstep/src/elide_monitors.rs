//! Monitors a guided run need not record (`lockstep run --static`).
//!
//! Once the static analysis has left the race-free accesses without probes,
//! many monitors guard nothing the run still records: `LockedCounter`'s
//! `synchronized (c) { c.count++; }` records 4 events per increment and the
//! increment itself none. Such a monitor's events are left out when every
//! checker of the run provably loses nothing by it. A method's monitor
//! events (its `monitorenter`/`monitorexit` and, when `synchronized`, those
//! of its entry and exits) are left out when all of these hold:
//!
//! - **nothing recorded inside** (lockset): the method makes no call (so no
//!   instrumented code, container call, `wait`/`notify`, thread or lock
//!   call runs while it holds the monitor), reads and writes no static
//!   field, and every field and array access of it is proven race-free
//!   (already unprobed). No recorded access is ever made with the lock
//!   held, so no lockset changes;
//! - **no nesting** (deadlock): a `synchronized` method has no
//!   `monitorenter`, and no `monitorenter` of the method runs inside
//!   another monitor region of it. With no call either, nothing is
//!   acquired while the lock is held at this site: the lock-order graph
//!   loses no edge leaving it;
//! - **every site of the lock** (deadlock, happens-before): each lock
//!   object the method may lock (points-to, in every context it is reached
//!   in) is locked only by methods that are left out as well. A lock with
//!   one recorded site would lose the edges between the recorded and the
//!   unrecorded sites; this way a lock is recorded everywhere or nowhere,
//!   and a lock recorded nowhere acquires nothing while held, so it closes
//!   no cycle. A site whose lock the analysis does not know (an empty
//!   points-to set) could be any lock: then no monitor is left out;
//! - **the order of the critical sections is seen by nobody**
//!   (happens-before): no branch, `switch`, `return` value or `throw` of
//!   the method depends on a value read from the heap (a flow-insensitive
//!   taint of every variable computed from a field, array or length load).
//!   A release-acquire edge orders what comes after the acquire only when
//!   the acquiring thread can tell which section came first; when the
//!   sections' reads steer nothing, a pair of recorded accesses ordered
//!   only by such an edge is ordered by the schedule alone, a race in
//!   another schedule;
//! - **no atomicity checker** runs: reductions read acquires and releases
//!   as movers (`inc(); inc();` in one transaction is `R L R L`, a
//!   violation that would vanish), so with one nothing is left out.
//!
//! Known gaps (documented in `docs/static-guidance.md`): values read in a
//! section can still escape through a field of a thread-local object (a
//! proven-race-free store the thread later branches on) or through an
//! implicit exception (a null pointer, an array index); a happens-before
//! checker can then report a pair the lock ordered, a false alarm, never a
//! missed race (leaving synchronization out only removes edges). Code the
//! analysis never reached (reflection) keeps its monitor probes; should it
//! lock one of these objects, its sections are recorded alone, as for any
//! trust the guidance puts in the static analysis.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::sync::Arc;

use lockstep_instrument::Guidance;
use lockstep_ir::{Body, ConstValue, Operand, Rvalue, StmtKind, VarId};
use lockstep_pointsto::{ContextId, ObjectId, PointsToResult};
use lockstep_program::{MethodId, Program};

/// A lock as the run names it: one abstract object, or a class's monitor
/// (`static synchronized`, `synchronized (Foo.class)`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum LockKey {
    Object(ObjectId),
    Class(Arc<str>),
}

/// Adds to `g` the methods whose monitor events the race and deadlock
/// checkers do not need (module docs), given the race-free accesses
/// already in `g` and the contexts each reached method is reached in.
/// Returns how many.
pub fn elide(
    program: &Program,
    pt: &PointsToResult,
    contexts: &BTreeMap<MethodId, Vec<ContextId>>,
    g: &mut Guidance,
) -> usize {
    // Every reached application method that locks: its locks, and whether
    // it may go on its own.
    let mut sites: Vec<(MethodId, BTreeSet<LockKey>, bool)> = Vec::new();
    for (&m, ctxs) in contexts {
        let data = program.method(m);
        if !program.is_application(data.class) {
            continue;
        }
        let Some(body) = program.body(m) else {
            continue;
        };
        let Some(locks) = locks_of(pt, m, ctxs, &body) else {
            // A lock the analysis does not know may be any of them.
            return 0;
        };
        if locks.is_empty() {
            continue;
        }
        let class = &program.class(data.class).name;
        let unprobed = g.skipped_in(class, &data.name, &data.descriptor);
        let alone = locally_elidable(&body, |pc| unprobed.is_some_and(|s| s.contains(&pc)));
        sites.push((m, locks, alone));
    }
    let elided = every_site_elided(&sites);
    for &m in &elided {
        let data = program.method(m);
        let class = &program.class(data.class).name;
        g.elide_monitors(class, &data.name, &data.descriptor);
    }
    elided.len()
}

/// The methods whose locks are locked only by methods that may go: a
/// fixpoint, since keeping one method keeps every lock it may lock, and
/// with them the other methods locking those.
fn every_site_elided(sites: &[(MethodId, BTreeSet<LockKey>, bool)]) -> BTreeSet<MethodId> {
    let mut kept_locks: HashSet<&LockKey> = sites
        .iter()
        .filter(|(_, _, alone)| !alone)
        .flat_map(|(_, locks, _)| locks)
        .collect();
    loop {
        let before = kept_locks.len();
        for (_, locks, _) in sites {
            if locks.iter().any(|l| kept_locks.contains(l)) {
                kept_locks.extend(locks);
            }
        }
        if kept_locks.len() == before {
            break;
        }
    }
    sites
        .iter()
        .filter(|(_, locks, alone)| *alone && !locks.iter().any(|l| kept_locks.contains(l)))
        .map(|(m, _, _)| *m)
        .collect()
}

/// The locks `m` may lock in any of `contexts` (empty when it locks
/// nothing); `None` when one of its monitors is unknown to the analysis.
fn locks_of(
    pt: &PointsToResult,
    m: MethodId,
    contexts: &[ContextId],
    body: &Body,
) -> Option<BTreeSet<LockKey>> {
    let mut locks = BTreeSet::new();
    let mut monitor_of = |operand: Option<&Operand>| -> Option<()> {
        match operand {
            Some(Operand::Const(ConstValue::Class(name))) => {
                locks.insert(LockKey::Class(name.clone()));
            }
            Some(Operand::Var(v)) => {
                let before = locks.len();
                for &c in contexts {
                    locks.extend(pt.var_in(m, c, *v).iter().map(LockKey::Object));
                }
                if locks.len() == before && !objects_known(pt, m, contexts, *v) {
                    return None;
                }
            }
            _ => return None,
        }
        Some(())
    };
    if body.is_synchronized {
        if body.is_static {
            let class = Operand::Const(ConstValue::Class(body.class.clone()));
            monitor_of(Some(&class))?;
        } else {
            monitor_of(body.params.first().map(|&v| Operand::Var(v)).as_ref())?;
        }
    }
    for stmt in &body.stmts {
        if let StmtKind::MonitorEnter(op) = &stmt.kind {
            monitor_of(Some(op))?;
        }
    }
    Some(locks)
}

/// Does `v` point to something in at least one context? (A monitor whose
/// objects were all seen already adds no key but is known.)
fn objects_known(pt: &PointsToResult, m: MethodId, contexts: &[ContextId], v: VarId) -> bool {
    contexts.iter().any(|&c| !pt.var_in(m, c, v).is_empty())
}

/// The conditions on the method itself (module docs): no call, no static
/// field, every access unprobed (`unprobed(pc)`), no nested monitor, and
/// nothing steered by a value read from the heap.
fn locally_elidable(body: &Body, unprobed: impl Fn(u32) -> bool) -> bool {
    if !body.notes.is_empty() {
        // Unstructured locking or another oddity of the lowering.
        return false;
    }
    for (i, stmt) in body.stmts.iter().enumerate() {
        let ok = match &stmt.kind {
            StmtKind::Invoke { .. }
            | StmtKind::InvokeDynamic { .. }
            | StmtKind::StaticStore { .. }
            | StmtKind::Ret { .. } => false,
            StmtKind::Assign {
                value: Rvalue::StaticLoad(_),
                ..
            } => false,
            StmtKind::Assign {
                value: Rvalue::FieldLoad { .. } | Rvalue::ArrayLoad { .. },
                ..
            }
            | StmtKind::FieldStore { .. }
            | StmtKind::ArrayStore { .. } => unprobed(stmt.pc),
            StmtKind::MonitorEnter(_) => {
                !body.is_synchronized
                    && body
                        .regions_held_before(lockstep_ir::StmtId(i as u32))
                        .is_empty()
            }
            _ => true,
        };
        if !ok {
            return false;
        }
    }
    !steered_by_heap(body)
}

/// Does a branch, `switch`, returned value or thrown exception of `body`
/// depend on a value read from the heap? Flow-insensitive: a variable is
/// tainted when any assignment to it reads the heap or a tainted variable.
fn steered_by_heap(body: &Body) -> bool {
    let mut tainted: HashSet<VarId> = HashSet::new();
    loop {
        let before = tainted.len();
        for stmt in &body.stmts {
            let StmtKind::Assign { dst, value } = &stmt.kind else {
                continue;
            };
            let from_heap = matches!(
                value,
                Rvalue::FieldLoad { .. }
                    | Rvalue::ArrayLoad { .. }
                    | Rvalue::ArrayLength(_)
                    | Rvalue::StaticLoad(_)
            );
            let mut uses_tainted = false;
            stmt.kind
                .for_each_use(|v| uses_tainted |= tainted.contains(&v));
            if from_heap || uses_tainted {
                tainted.insert(*dst);
            }
        }
        if tainted.len() == before {
            break;
        }
    }
    body.stmts.iter().any(|stmt| {
        let steers = matches!(
            stmt.kind,
            StmtKind::If { .. }
                | StmtKind::Switch { .. }
                | StmtKind::Return(Some(_))
                | StmtKind::Throw(_)
        );
        let mut uses_tainted = false;
        stmt.kind
            .for_each_use(|v| uses_tainted |= tainted.contains(&v));
        steers && uses_tainted
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(i: u32) -> MethodId {
        MethodId(i)
    }

    fn obj(i: u32) -> LockKey {
        LockKey::Object(ObjectId(i))
    }

    #[test]
    fn a_lock_is_elided_everywhere_or_nowhere() {
        // m0 and m1 share o1; m1 also locks o2, which m2 (not elidable)
        // locks: keeping m2 keeps o2, so m1, so o1, so m0. m3 alone on o3
        // goes.
        let sites = vec![
            (m(0), BTreeSet::from([obj(1)]), true),
            (m(1), BTreeSet::from([obj(1), obj(2)]), true),
            (m(2), BTreeSet::from([obj(2)]), false),
            (m(3), BTreeSet::from([obj(3)]), true),
            (m(4), BTreeSet::from([LockKey::Class("a/A".into())]), true),
        ];
        assert_eq!(every_site_elided(&sites), BTreeSet::from([m(3), m(4)]));
    }
}
