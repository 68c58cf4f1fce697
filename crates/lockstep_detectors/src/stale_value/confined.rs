//! Stale values that no other thread can change, by the shared facts:
//! points-to and thread-local objects (`lockstep_facts::thread_local`).
//!
//! The dataflow of [`super::flow`] is thread-local and names locks by
//! access paths; it cannot tell a lock of an object this thread made and
//! never published from a lock of shared data. A stale use is dropped
//! when one of these holds in every context points-to analyses the
//! method in:
//!
//! - **the lock is thread-local**: every object the lock of the block
//!   may be (for a call, every lock its callees take, named in this
//!   method's terms) is one no other thread can reach, so no other thread
//!   can take it between the read and the use (a configurator's own
//!   `Hashtable`, a stack this thread built);
//! - **the value is a thread-local object or `null`**: the read yields a
//!   reference, and every object it may hold is thread-local (a new list a
//!   callee built and returned), or it is the result of a call whose every
//!   target returns the `null` constant: what it refers to is this
//!   thread's alone;
//! - **the data is thread-local**: a field or element read of an object no
//!   other thread can reach (the message this thread is decoding, read
//!   under an unrelated shared lock).
//!
//! The `null` checks read only the bodies of the RTA targets; the others
//! need the method to be reached by points-to and every set they read to
//! be non-empty: an empty set is no proof of `null` (points-to
//! reaches some methods through RTA's edges with no receiver object, and
//! objects made by reflection are in no set). A path it cannot evaluate,
//! code it does not analyse (unknown callees) and objects that stand for
//! many (class literals, merged library objects) keep the use.

use lockstep_facts::ThreadLocalObjects;
use lockstep_ir::{AccessPath, Body, ConstValue, Operand, Rvalue, StmtKind, Type, VarId};
use lockstep_pointsto::PointsToResult;
use lockstep_program::{CallGraph, MethodId, Program};

use super::flow::{CallFact, Origin, Prepared, Site};

/// What the check reads: points-to and the thread-local objects, and the
/// RTA call graph the rule's summaries use.
pub struct Confinement<'a> {
    pub program: &'a Program,
    pub call_graph: &'a CallGraph,
    pub pt: &'a PointsToResult,
    pub local: &'a ThreadLocalObjects,
}

impl Confinement<'_> {
    /// Can no other thread change the value of this origin in `m`?
    pub fn unchangeable(&self, m: MethodId, body: &Body, prep: &Prepared, origin: &Origin) -> bool {
        self.lock_is_local(m, body, prep, origin)
            || self.value_is_local(m, body, origin)
            || self.data_is_local(m, body, origin)
    }

    /// Every lock of the block, and every lock a call read inside it
    /// takes, is thread-local.
    fn lock_is_local(&self, m: MethodId, body: &Body, prep: &Prepared, origin: &Origin) -> bool {
        let block = match origin.site {
            Site::Region(r) => body
                .monitors
                .get(r.index())
                .is_some_and(|region| self.path_is_local(m, body, &region.lock)),
            Site::Acquire(s) => match prep.calls.get(&s) {
                Some(CallFact::Acquire(k)) => prep
                    .key(*k)
                    .is_some_and(|key| self.path_is_local(m, body, &key.path)),
                _ => false,
            },
            Site::Call(s) => {
                self.receiver_always_null(m, body, s) || self.call_locks_are_local(m, body, prep, s)
            }
        };
        // A locking call read inside a block takes its own locks too.
        let read_call = match (origin.site, prep.calls.get(&origin.read)) {
            (Site::Call(_), _) => true,
            (_, Some(CallFact::Call(_))) => self.call_locks_are_local(m, body, prep, origin.read),
            _ => true,
        };
        block && read_call
    }

    /// Every lock the callees of the call take is named here and is
    /// thread-local; code that takes a lock not named here keeps the use.
    fn call_locks_are_local(
        &self,
        m: MethodId,
        body: &Body,
        prep: &Prepared,
        s: lockstep_ir::StmtId,
    ) -> bool {
        match prep.calls.get(&s) {
            Some(CallFact::Call(c)) => {
                !c.distinct
                    && c.unknown.is_none()
                    && !c.locks.is_empty()
                    && c.locks.iter().all(|&(k, _)| {
                        prep.key(k)
                            .is_some_and(|key| self.path_is_local(m, body, &key.path))
                    })
            }
            _ => false,
        }
    }

    /// Is the receiver of the call at `s` always `null` (a local defined
    /// by a call that returns only `null`)? The call then throws before it
    /// returns anything, whatever its callees would lock.
    fn receiver_always_null(&self, m: MethodId, body: &Body, s: lockstep_ir::StmtId) -> bool {
        match body.stmts.get(s.index()).map(|st| &st.kind) {
            Some(StmtKind::Invoke { call, .. }) => call
                .receiver
                .as_ref()
                .is_some_and(|r| self.null_root(m, body, &lockstep_ir::operand_path(body, r))),
            _ => false,
        }
    }

    /// The read yields a reference to thread-local objects only, or to
    /// none (`null`); for a call, one whose targets points-to knows.
    fn value_is_local(&self, m: MethodId, body: &Body, origin: &Origin) -> bool {
        let Some(stmt) = body.stmts.get(origin.read.index()) else {
            return false;
        };
        let (dst, call) = match &stmt.kind {
            StmtKind::Assign { dst, .. } => (*dst, false),
            StmtKind::Invoke {
                result: Some(dst), ..
            } => (*dst, true),
            _ => return false,
        };
        if !is_reference(body, dst) {
            return false;
        }
        if call && self.returns_null(m, origin.read) {
            return true;
        }
        if !self.reached(m) {
            return false;
        }
        let set = self.pt.var(m, dst);
        !set.is_empty() && self.local.all_local(&set)
    }

    /// Does every target of the call return the `null` constant and
    /// nothing else? (jgroups' `Protocol.requiredUpServices`, which no
    /// protocol overrides.) The targets are RTA's, a superset of what
    /// points-to finds: a call points-to sees no receiver for still has
    /// them.
    fn returns_null(&self, m: MethodId, stmt: lockstep_ir::StmtId) -> bool {
        let callees = self.call_graph.callees_at(m, stmt);
        !callees.is_empty()
            && callees.iter().all(|e| {
                self.program
                    .body(e.callee)
                    .is_some_and(|b| only_null_returned(&b))
            })
    }

    /// A field or element read of thread-local objects only.
    fn data_is_local(&self, m: MethodId, body: &Body, origin: &Origin) -> bool {
        let base = match body.stmts.get(origin.read.index()).map(|s| &s.kind) {
            Some(StmtKind::Assign {
                value: Rvalue::FieldLoad { object, .. },
                ..
            }) => object,
            Some(StmtKind::Assign {
                value: Rvalue::ArrayLoad { array, .. },
                ..
            }) => array,
            _ => return false,
        };
        let path = lockstep_ir::operand_path(body, base);
        // A `final` field's value never goes stale; what is read through it
        // is the concern: that object must be thread-local too.
        let value_ok = !origin.stable || self.value_is_local(m, body, origin);
        value_ok && self.path_is_local(m, body, &path)
    }

    /// The path may point to some objects, and each is thread-local; or
    /// it starts at a variable that only ever holds a `null` some call
    /// returned, so the lock is never taken (the call or block throws).
    fn path_is_local(&self, m: MethodId, body: &Body, path: &AccessPath) -> bool {
        if self.null_root(m, body, path) {
            return true;
        }
        if !self.reached(m) {
            return false;
        }
        self.pt
            .path(self.program, m, None, path)
            .is_some_and(|set| !set.is_empty() && self.local.all_local(&set))
    }

    /// Does points-to analyse `m` at all? (Its sets say nothing otherwise.)
    fn reached(&self, m: MethodId) -> bool {
        self.pt.call_graph().is_reachable(m)
    }

    /// Is the root of the path a local defined once, by a call every target
    /// of which returns `null` ([`Self::returns_null`])?
    fn null_root(&self, m: MethodId, body: &Body, path: &AccessPath) -> bool {
        let mut at = path;
        let v = loop {
            match at {
                AccessPath::Local(v, _) => break *v,
                AccessPath::Field(base, _) | AccessPath::OuterThis(base, _) => at = base,
                AccessPath::Element(base, _) => at = base,
                _ => return false,
            }
        };
        // Through copies and casts to the one call that defines the value.
        let mut v = v;
        for _ in 0..8 {
            let Some(def) = body.unique_def.get(v.index()).copied().flatten() else {
                return false;
            };
            match body.stmts.get(def.index()).map(|s| &s.kind) {
                Some(StmtKind::Invoke {
                    result: Some(r), ..
                }) if *r == v => {
                    return self.returns_null(m, def);
                }
                Some(StmtKind::Assign {
                    dst,
                    value: Rvalue::Use(Operand::Var(src)) | Rvalue::Cast(Operand::Var(src), _),
                }) if *dst == v => v = *src,
                _ => return false,
            }
        }
        false
    }
}

/// Does the body return, and only ever the `null` constant?
fn only_null_returned(body: &Body) -> bool {
    let mut returns = body.stmts.iter().filter_map(|s| match &s.kind {
        StmtKind::Return(v) => Some(v),
        _ => None,
    });
    let mut any = false;
    returns.all(|v| {
        any = true;
        matches!(v, Some(Operand::Const(ConstValue::Null)))
    }) && any
}

fn is_reference(body: &Body, v: VarId) -> bool {
    matches!(
        body.vars.get(v.index()).map(|i| &i.ty),
        Some(Type::Ref(_) | Type::Null)
    )
}
