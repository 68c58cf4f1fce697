//! Block-local atomicity (paper 001 §3–4) as a forward dataflow over one
//! method body.
//!
//! Every variable carries a set of [`Origin`]s: the heap reads (and
//! locking calls) its value derives from, each with the monitor block it
//! was read in and, once known, where that block's protection ended. A
//! variable with no origin is unshared. The state also holds the stack of
//! open blocks: `synchronized` regions (shaped by the IR's `held_before`,
//! so exceptional paths agree with the bytecode) and
//! `java.util.concurrent` locks (tracked through the models layer).
//!
//! - A heap read of a mutable field or array element inside a block yields
//!   a value of the current block (the innermost non-reentrant one). A read
//!   of a stable field (`final`, or initialised lazily once) yields a value
//!   that is never stale itself, but calls reading through it are reads.
//! - A call whose callee returns locked data and acquires a lock the method
//!   does not hold returns a value of a fresh block that has already ended
//!   (§4); a call reading heap state inside a block is a read of that block.
//! - Copies carry origins over; every other operation *uses* its operands
//!   (arithmetic, comparisons, conditions, array indices, dereferences,
//!   call receivers and arguments, stored values) and its result derives
//!   from them.
//! - A use of a value whose block has ended, or was re-entered since, is a
//!   stale use. The stale origin is then dropped from the used variable and
//!   from the result, so one stale value gives one warning (footnote 3).
//! - A variable of an immutable type (`values`) keeps its origins as
//!   snapshots, and so does what is computed from it: a snapshot's only
//!   stale use is a store back into the place it was read from, a lost
//!   update (`write_back`); every other use leaves it as it is.
//!
//! One refinement of the letter of §3, in the direction §4 intends: a value
//! read in an outer block is current in a nested inner block (the outer
//! lock is still held), so "current" means "its block is still open",
//! not "its block is the innermost one".
//!
//! Block ids are static: a region, a `lock()` call site or a locking call
//! site. Re-entering a block (a loop) makes the values of its previous
//! instance stale, which is what separates two executions of one
//! `synchronized` statement. `wait()` ends the protection of the values of
//! the waited-on block without closing it.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use lockstep_ir::{Body, Call, MonitorId, Operand, Rvalue, StmtId, StmtKind, VarId};

use super::locks::{LockKey, LockKind};
use super::summary::{Hop, Unknown};
use super::views::LockViews;
use super::write_back::WriteBacks;
use lockstep_program::MethodId;

/// At most this many origins are kept per variable (the smallest, in a
/// fixed order); more only lose warnings.
pub const MAX_ORIGINS: usize = 8;

/// A monitor block, statically: all executions of one acquisition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Site {
    /// A `synchronized` block or method.
    Region(MonitorId),
    /// A `java.util.concurrent` acquisition (`lock.lock()`) at this call.
    Acquire(StmtId),
    /// The blocks inside a callee reached from this call.
    Call(StmtId),
}

/// Where the protection of a value ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum End {
    /// Not yet: the value is current while its block is open.
    Held,
    /// The block was exited (`monitorexit`, `unlock()`) here.
    Exit(StmtId),
    /// The lock was released and re-acquired by `wait()`/`await()` here.
    Wait(StmtId),
    /// The callee released its lock before returning here.
    Call(StmtId),
    /// The block was left where no statement says so (re-entered from a
    /// loop, or held on one path only).
    Lost,
}

/// Where a shared value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Origin {
    /// The value read is immutable (a boxed count, a `String`: `values`):
    /// a snapshot whose use is no stale use. Only storing it, or what is
    /// computed from it, back into the place it was read from is one: a
    /// lost update (`write_back`). First, so that the bound on origins per
    /// variable keeps the other origins before these.
    pub snapshot: bool,
    /// The heap read or the call.
    pub read: StmtId,
    pub site: Site,
    pub end: End,
    /// A `final` field: the value itself never goes stale, but what a call
    /// reads through it inside the block does (`finalList.size()`).
    pub stable: bool,
}

/// What a heap read yields inside a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReadKind {
    /// Not a heap read.
    #[default]
    None,
    /// A mutable field or an array element: a shared value.
    Mutable,
    /// A `final` field.
    Stable,
    /// A read its block updates the place of (`reservations`): the value
    /// names this thread's own update and is never stale.
    Reserved,
}

/// What the analysis knows about a call statement.
#[derive(Debug, Clone)]
pub enum CallFact {
    /// Acquires this lock (interned key).
    Acquire(u32),
    /// Releases this lock.
    Release(u32),
    /// `Object.wait()` on this monitor.
    Wait(u32),
    /// `Condition.await()`: the innermost `java.util.concurrent` lock.
    Await,
    /// A call of methods with summaries, in the caller's terms.
    Call(CallSummary),
}

#[derive(Debug, Clone, Default)]
pub struct CallSummary {
    /// Locks the callees may acquire (interned keys), each with where.
    pub locks: Vec<(u32, Hop)>,
    /// A callee acquires a lock that cannot be named here.
    pub distinct: bool,
    /// Monitors the callees may `wait()` on.
    pub waits: Vec<u32>,
    /// A callee's result may derive from heap state it reads: inside a
    /// block, the result is a value of that block.
    pub heap: bool,
    /// The callee and the place where it acquires a lock, for messages.
    pub callee: Option<MethodId>,
    pub witness: Option<Hop>,
    /// The call is to unknown code, or a callee returns the result of a
    /// call to unknown code (`distinct` is then set): why and where.
    pub unknown: Option<(Unknown, Option<Hop>)>,
    /// The caller owns the result (a removed element, a copy): it is never
    /// shared, whatever the callee locks.
    pub owned: bool,
}

/// The method-specific inputs of the dataflow.
#[derive(Debug, Default)]
pub struct Prepared {
    /// Interned locks.
    pub keys: Vec<LockKey>,
    /// The lock of each monitor region.
    pub region_keys: Vec<u32>,
    pub calls: HashMap<StmtId, CallFact>,
    /// What the heap read of each statement yields inside a block.
    pub reads: Vec<ReadKind>,
    /// Variables whose values cannot go stale (immutable types,
    /// exceptions; `values`), by variable index.
    pub immune: Vec<bool>,
    /// Fields holding one side of a read-write lock (`views`).
    pub views: Arc<LockViews>,
    /// The places reads read and stores write, for the write-backs of
    /// snapshots (`write_back`).
    pub write_backs: WriteBacks,
}

impl Prepared {
    pub fn intern(&mut self, key: LockKey) -> u32 {
        if let Some(i) = self.keys.iter().position(|k| *k == key) {
            return i as u32;
        }
        self.keys.push(key);
        (self.keys.len() - 1) as u32
    }

    pub fn key(&self, id: u32) -> Option<&LockKey> {
        self.keys.get(id as usize)
    }

    fn is_immune(&self, v: VarId) -> bool {
        self.immune.get(v.index()).copied().unwrap_or(false)
    }
}

/// A stale use: `origin`'s value is used at `stmt` after its block ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct StaleUse {
    pub stmt: StmtId,
    pub origin: Origin,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Open {
    site: Site,
    key: u32,
    region: Option<MonitorId>,
    /// A reentrant acquisition opens no block (§3); it is on the stack only
    /// so that its release is matched.
    reentrant: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct State {
    open: Vec<Open>,
    /// Shared variables only; each set sorted and deduplicated.
    vars: BTreeMap<VarId, Vec<Origin>>,
}

impl State {
    fn current_block(&self) -> Option<Site> {
        self.open
            .iter()
            .rev()
            .find(|o| !o.reentrant)
            .map(|o| o.site)
    }

    fn is_open(&self, site: Site) -> bool {
        self.open.iter().any(|o| o.site == site && !o.reentrant)
    }

    fn current(&self, o: &Origin) -> bool {
        o.end == End::Held && self.is_open(o.site)
    }

    fn stale(&self, o: &Origin) -> bool {
        !o.stable && !self.current(o)
    }

    /// Sets the end of every still-protected value of `site`.
    fn end_block(&mut self, site: Site, end: End) {
        for origins in self.vars.values_mut() {
            let mut changed = false;
            for o in origins.iter_mut() {
                if o.site == site && o.end == End::Held {
                    o.end = end;
                    changed = true;
                }
            }
            if changed {
                origins.sort();
                origins.dedup();
            }
        }
    }

    fn origins(&self, v: VarId) -> &[Origin] {
        self.vars.get(&v).map(Vec::as_slice).unwrap_or(&[])
    }

    fn assign(&mut self, v: VarId, mut origins: Vec<Origin>) {
        origins.sort();
        origins.dedup();
        origins.truncate(MAX_ORIGINS);
        if origins.is_empty() {
            self.vars.remove(&v);
        } else {
            self.vars.insert(v, origins);
        }
    }

    /// Joins `other` into `self`; true if `self` changed. Open blocks are
    /// those open on both paths; origins are the union.
    fn join(&mut self, other: &State) -> bool {
        let mut changed = false;
        if self.open != other.open {
            let before = self.open.len();
            self.open.retain(|o| other.open.contains(o));
            changed |= self.open.len() != before;
        }
        for (v, theirs) in &other.vars {
            match self.vars.get_mut(v) {
                None => {
                    self.vars.insert(*v, theirs.clone());
                    changed = true;
                }
                Some(mine) => {
                    let mut merged: Vec<Origin> = mine.iter().chain(theirs).copied().collect();
                    merged.sort();
                    merged.dedup();
                    merged.truncate(MAX_ORIGINS);
                    if merged != *mine {
                        *mine = merged;
                        changed = true;
                    }
                }
            }
        }
        changed
    }
}

/// Runs the analysis of one method; returns every stale use (one per stale
/// value: the first use, in statement order, of each read).
pub fn analyse(body: &Body, prep: &Prepared) -> Vec<StaleUse> {
    first_per_read(all_stale_uses(body, prep))
}

/// Every stale use of every origin, before [`first_per_read`] keeps one
/// per read (a caller that sets some origins aside filters first).
pub fn all_stale_uses(body: &Body, prep: &Prepared) -> Vec<StaleUse> {
    let mut region_by_enter = HashMap::new();
    let mut region_by_exit = HashMap::new();
    for (i, r) in body.monitors.iter().enumerate() {
        let id = MonitorId(i as u32);
        if let Some(e) = r.enter {
            region_by_enter.insert(e, id);
        }
        for &x in &r.exits {
            region_by_exit.insert(x, id);
        }
    }
    let flow = Flow {
        body,
        prep,
        region_by_enter,
        region_by_exit,
    };
    let inputs = flow.fixpoint();
    let mut uses = Vec::new();
    for (b, input) in inputs.iter().enumerate() {
        let (Some(block), Some(state)) = (body.blocks.get(b), input) else {
            continue;
        };
        let mut state = state.clone();
        for s in block.stmt_ids() {
            if let Some(stmt) = body.stmts.get(s.index()) {
                flow.transfer(s, &stmt.kind, &mut state, Some(&mut uses));
            }
        }
    }
    uses
}

/// One warning per stale value: for each read, its first stale use (by
/// statement id, then a fixed preference for ends with a position).
pub fn first_per_read(mut uses: Vec<StaleUse>) -> Vec<StaleUse> {
    let rank = |u: &StaleUse| {
        let end_rank = match u.origin.end {
            End::Exit(_) | End::Wait(_) | End::Call(_) => 0,
            End::Held | End::Lost => 1,
        };
        (u.origin.read, u.stmt, end_rank, u.origin)
    };
    uses.sort_by_key(rank);
    let mut seen = BTreeSet::new();
    uses.retain(|u| seen.insert(u.origin.read));
    uses.sort();
    uses
}

struct Flow<'a> {
    body: &'a Body,
    prep: &'a Prepared,
    region_by_enter: HashMap<StmtId, MonitorId>,
    region_by_exit: HashMap<StmtId, MonitorId>,
}

impl Flow<'_> {
    fn key_of_region(&self, r: MonitorId) -> u32 {
        // Regions are interned first, in order, by the preparation.
        self.prep
            .region_keys
            .get(r.index())
            .copied()
            .unwrap_or(u32::MAX)
    }

    fn comparable(&self, key: u32) -> bool {
        self.prep.key(key).is_some_and(LockKey::comparable)
    }

    /// Is `key` held (by any open entry, reentrant or not), or covered by
    /// a held lock (the write side of its read-write lock, `views`)?
    fn held(&self, state: &State, key: u32) -> bool {
        if !self.comparable(key) {
            return false;
        }
        state.open.iter().any(|o| {
            o.key == key
                || match (self.prep.key(o.key), self.prep.key(key)) {
                    (Some(h), Some(w)) => self.prep.views.covers(h, w),
                    _ => false,
                }
        })
    }

    /// Makes the open regions of `state` those the IR expects at the start
    /// of a block, so unstructured or exceptional paths cannot desynchronise
    /// the analysis from the bytecode's monitors.
    fn conform(&self, state: &mut State, expected: &[MonitorId]) {
        let have: Vec<MonitorId> = state.open.iter().filter_map(|o| o.region).collect();
        if have == expected {
            return;
        }
        state
            .open
            .retain(|o| o.region.is_none_or(|r| expected.contains(&r)));
        for &r in expected {
            if !state.open.iter().any(|o| o.region == Some(r)) {
                let key = self.key_of_region(r);
                let reentrant = self.held(state, key);
                state.open.push(Open {
                    site: Site::Region(r),
                    key,
                    region: Some(r),
                    reentrant,
                });
            }
        }
    }

    fn fixpoint(&self) -> Vec<Option<State>> {
        let body = self.body;
        let n = body.blocks.len();
        let mut input: Vec<Option<State>> = vec![None; n];
        let Some(entry) = body.blocks.first() else {
            return input;
        };
        let mut start = State::default();
        self.conform(&mut start, &self.body.regions_held_before(entry.first));
        if let Some(slot) = input.first_mut() {
            *slot = Some(start);
        }
        let mut queue: BTreeSet<usize> = BTreeSet::new();
        queue.insert(0);
        let mut steps = 0usize;
        while let Some(b) = queue.pop_first() {
            steps += 1;
            // The lattice is finite (origins are drawn from the method's
            // statements) and inputs only grow, so this bound is a guard
            // against bugs, not a limit met in practice.
            if steps > 64 * n + 1000 {
                break;
            }
            let (Some(block), Some(Some(mut state))) = (body.blocks.get(b), input.get(b).cloned())
            else {
                continue;
            };
            // Handlers see the join of the states before every statement.
            let mut exc: Option<State> = None;
            for s in block.stmt_ids() {
                let Some(stmt) = body.stmts.get(s.index()) else {
                    continue;
                };
                if !block.exceptional.is_empty() {
                    match &mut exc {
                        None => exc = Some(state.clone()),
                        Some(e) => {
                            e.join(&state);
                        }
                    }
                }
                self.transfer(s, &stmt.kind, &mut state, None);
            }
            let mut targets: Vec<(usize, &State)> =
                block.succs.iter().map(|t| (t.index(), &state)).collect();
            if let Some(e) = &exc {
                targets.extend(block.exceptional.iter().map(|x| (x.handler.index(), e)));
            }
            for (t, st) in targets {
                let Some(tb) = body.blocks.get(t) else {
                    continue;
                };
                let mut st = st.clone();
                self.conform(&mut st, &self.body.regions_held_before(tb.first));
                let changed = match input.get_mut(t) {
                    Some(slot @ None) => {
                        *slot = Some(st);
                        true
                    }
                    Some(Some(existing)) => existing.join(&st),
                    None => false,
                };
                if changed {
                    queue.insert(t);
                }
            }
        }
        input
    }

    /// The variables statement `kind` uses (reads as an operation, not as a
    /// plain copy).
    fn uses(kind: &StmtKind) -> Vec<VarId> {
        let mut out = Vec::new();
        let mut add = |op: &Operand| {
            if let Some(v) = op.var() {
                out.push(v);
            }
        };
        match kind {
            StmtKind::Assign { value, .. } => match value {
                // Copies carry the value's state; they are not uses.
                Rvalue::Use(_) | Rvalue::Cast(..) | Rvalue::Convert(..) => {}
                other => other.for_each_operand(&mut add),
            },
            // Releasing a lock reads the lock variable only to name the lock.
            StmtKind::MonitorExit(_) => {}
            // Returning hands the value to the caller, which sees the result
            // of a locking call as shared anyway (§4).
            StmtKind::Return(_) => {}
            other => other.for_each_operand(&mut add),
        }
        out.sort();
        out.dedup();
        out
    }

    fn transfer(
        &self,
        s: StmtId,
        kind: &StmtKind,
        state: &mut State,
        mut sink: Option<&mut Vec<StaleUse>>,
    ) {
        // 1. Uses: report stale origins, then drop them from the variable.
        let used = Self::uses(kind);
        for &v in &used {
            let origins = state.origins(v);
            let reported = |o: &Origin| state.stale(o) && self.stale_use(s, v, o);
            if !origins.iter().any(&reported) {
                continue;
            }
            let (stale, fresh): (Vec<Origin>, Vec<Origin>) =
                origins.iter().partition(|o| reported(o));
            if let Some(sink) = sink.as_deref_mut() {
                sink.extend(stale.iter().map(|&origin| StaleUse { stmt: s, origin }));
            }
            state.assign(v, fresh);
        }
        let derived = |state: &State| -> Vec<Origin> {
            let mut out: Vec<Origin> = used
                .iter()
                .flat_map(|&v| state.origins(v).iter().copied())
                .collect();
            out.sort();
            out.dedup();
            out
        };
        // 2. Effects and the value defined.
        match kind {
            StmtKind::Assign { dst, value } => {
                let origins = match value {
                    Rvalue::Use(op) | Rvalue::Cast(op, _) | Rvalue::Convert(_, op) => op
                        .var()
                        .map(|v| state.origins(v).to_vec())
                        .unwrap_or_default(),
                    Rvalue::FieldLoad { .. } | Rvalue::StaticLoad(_) | Rvalue::ArrayLoad { .. } => {
                        self.read(s, state)
                    }
                    Rvalue::New(_) | Rvalue::CaughtException => Vec::new(),
                    _ => derived(state),
                };
                self.define(state, *dst, origins);
            }
            StmtKind::MonitorEnter(_) => {
                if let Some(&r) = self.region_by_enter.get(&s) {
                    let key = self.key_of_region(r);
                    self.acquire(state, Site::Region(r), key, Some(r));
                }
            }
            StmtKind::MonitorExit(_) => {
                if let Some(&r) = self.region_by_exit.get(&s) {
                    if let Some(pos) = state.open.iter().rposition(|o| o.region == Some(r)) {
                        // Nested regions above it are left with it; locks of
                        // `java.util.concurrent` may outlive it.
                        let mut i = state.open.len();
                        while i > pos {
                            i -= 1;
                            if state.open.get(i).is_some_and(|o| o.region.is_some()) {
                                let o = state.open.remove(i);
                                if !o.reentrant {
                                    state.end_block(o.site, End::Exit(s));
                                }
                            }
                        }
                    }
                }
            }
            StmtKind::Invoke { result, call } => {
                let operands = derived(state);
                let origins = self.call(s, state, &operands);
                if let Some(dst) = result {
                    self.define(state, *dst, origins);
                }
                self.construct(state, call, &operands);
            }
            StmtKind::InvokeDynamic {
                result: Some(dst), ..
            } => {
                let origins = derived(state);
                self.define(state, *dst, origins);
            }
            _ => {}
        }
    }

    /// Is using `v` at `s` a stale use of `o`, whose block has ended? A
    /// snapshot's only stale use is its write-back into the place it was
    /// read from (`write_back`); any other value's is every use.
    fn stale_use(&self, s: StmtId, v: VarId, o: &Origin) -> bool {
        !o.snapshot || self.prep.write_backs.writes_back(s, v, o.read)
    }

    /// Assigns `dst`; the origins of a variable whose values cannot go
    /// stale are snapshots: kept only to find the value written back.
    fn define(&self, state: &mut State, dst: VarId, mut origins: Vec<Origin>) {
        if self.prep.is_immune(dst) {
            for o in &mut origins {
                o.snapshot = true;
            }
        }
        state.assign(dst, origins);
    }

    /// A constructor of an object this method allocates builds it from its
    /// arguments: `new Integer(c.intValue() + 1)` carries the snapshots its
    /// arguments carry, as `Integer.valueOf` does, so that storing it back
    /// is found (`write_back`). Other origins are the arguments' uses.
    fn construct(&self, state: &mut State, call: &Call, operands: &[Origin]) {
        if &*call.method.name != "<init>" {
            return;
        }
        let Some(object) = call.receiver.as_ref().and_then(Operand::var) else {
            return;
        };
        // Not `this` in a constructor's `super(...)`: only a new object is
        // made of its arguments.
        if !self.allocated_here(object) {
            return;
        }
        let origins = state
            .origins(object)
            .iter()
            .chain(operands.iter().filter(|o| o.snapshot))
            .copied()
            .collect();
        self.define(state, object, origins);
    }

    /// Is `v` defined once, by a `new` of this method?
    fn allocated_here(&self, v: VarId) -> bool {
        let def = self.body.unique_def.get(v.index()).copied().flatten();
        def.and_then(|d| self.body.stmts.get(d.index()))
            .is_some_and(|d| {
                matches!(
                    d.kind,
                    StmtKind::Assign {
                        value: Rvalue::New(_),
                        ..
                    }
                )
            })
    }

    /// A heap read at `s`: shared with the current block, if any.
    fn read(&self, s: StmtId, state: &State) -> Vec<Origin> {
        let stable = match self.prep.reads.get(s.index()).copied().unwrap_or_default() {
            ReadKind::None | ReadKind::Reserved => return Vec::new(),
            ReadKind::Mutable => false,
            ReadKind::Stable => true,
        };
        match state.current_block() {
            Some(site) => vec![Origin {
                read: s,
                site,
                end: End::Held,
                stable,
                snapshot: false,
            }],
            None => Vec::new(),
        }
    }

    /// Opens a block (or a reentrant hold) on `key`.
    fn acquire(&self, state: &mut State, site: Site, key: u32, region: Option<MonitorId>) {
        let reentrant = self.held(state, key);
        if !reentrant {
            // Values of an earlier execution of this block are stale now.
            state.end_block(site, End::Lost);
        }
        state.open.push(Open {
            site,
            key,
            region,
            reentrant,
        });
    }

    /// `wait()` on an open block: its values so far are stale.
    fn wait_on(&self, state: &mut State, s: StmtId, pos: Option<usize>) {
        if let Some(site) = pos.and_then(|p| state.open.get(p)).map(|o| o.site) {
            state.end_block(site, End::Wait(s));
        }
    }

    /// The outermost non-reentrant open block on monitor `key` (a `wait()`
    /// releases every hold of the monitor).
    fn monitor_block(&self, state: &State, key: u32) -> Option<usize> {
        if !self.comparable(key) {
            return None;
        }
        let path = self.prep.key(key).map(|k| &k.path)?;
        state.open.iter().position(|o| {
            !o.reentrant
                && self
                    .prep
                    .key(o.key)
                    .is_some_and(|k| k.kind == LockKind::Monitor && &k.path == path)
        })
    }

    /// A call: its lock effect, and the origins of its result.
    fn call(&self, s: StmtId, state: &mut State, derived: &[Origin]) -> Vec<Origin> {
        match self.prep.calls.get(&s) {
            // No known target: an operation over its operands.
            None => derived.to_vec(),
            Some(CallFact::Acquire(key)) => {
                self.acquire(state, Site::Acquire(s), *key, None);
                Vec::new()
            }
            Some(CallFact::Release(key)) => {
                let wanted = self.prep.key(*key);
                let matches = |o: &Open| {
                    o.region.is_none()
                        && match (wanted, self.prep.key(o.key)) {
                            (Some(w), Some(k)) => {
                                w.comparable() && w.path == k.path && w.kind.releases(k.kind)
                            }
                            _ => false,
                        }
                };
                // An unmatched release (a lock named differently) releases
                // the innermost `java.util.concurrent` lock.
                let pos = state
                    .open
                    .iter()
                    .rposition(matches)
                    .or_else(|| state.open.iter().rposition(|o| o.region.is_none()));
                if let Some(p) = pos {
                    let o = state.open.remove(p);
                    if !o.reentrant {
                        state.end_block(o.site, End::Exit(s));
                    }
                }
                Vec::new()
            }
            Some(CallFact::Wait(key)) => {
                // Unmatched: the monitor is held under another name; the
                // innermost monitor block is the likeliest.
                let pos = self.monitor_block(state, *key).or_else(|| {
                    state.open.iter().rposition(|o| {
                        !o.reentrant
                            && self
                                .prep
                                .key(o.key)
                                .is_some_and(|k| k.kind == LockKind::Monitor)
                    })
                });
                self.wait_on(state, s, pos);
                Vec::new()
            }
            Some(CallFact::Await) => {
                let pos = state
                    .open
                    .iter()
                    .rposition(|o| !o.reentrant && o.region.is_none());
                self.wait_on(state, s, pos);
                Vec::new()
            }
            Some(CallFact::Call(c)) => {
                let locking = c.distinct || c.locks.iter().any(|&(k, _)| !self.held(state, k));
                // What a call computes from a snapshot (`c.intValue()`,
                // `Integer.valueOf(n + 1)`) is still that snapshot.
                let snapshots = derived.iter().copied().filter(|o| o.snapshot);
                for &w in &c.waits {
                    let pos = self.monitor_block(state, w);
                    self.wait_on(state, s, pos);
                }
                if c.owned {
                    // Handed to this thread: not shared.
                    Vec::new()
                } else if locking {
                    vec![Origin {
                        read: s,
                        site: Site::Call(s),
                        end: End::Call(s),
                        stable: false,
                        snapshot: false,
                    }]
                } else if c.heap {
                    // A call reading heap state (through its receiver and
                    // arguments, stable ones included: `finalList.size()`)
                    // inside a block reads under the block's lock, as if
                    // inlined; outside any block it reads nothing shared.
                    let read = state.current_block().map(|site| Origin {
                        read: s,
                        site,
                        end: End::Held,
                        stable: false,
                        snapshot: false,
                    });
                    read.into_iter().chain(snapshots).collect()
                } else {
                    // Otherwise it only computes with its operands.
                    derived.to_vec()
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn origin(read: u32, site: Site, end: End) -> Origin {
        Origin {
            read: StmtId(read),
            site,
            end,
            stable: false,
            snapshot: false,
        }
    }

    fn open(site: Site, key: u32) -> Open {
        Open {
            site,
            key,
            region: None,
            reentrant: false,
        }
    }

    #[test]
    fn current_stale_and_stable() {
        let a = Site::Acquire(StmtId(1));
        let mut st = State::default();
        st.open.push(open(a, 0));
        let held = origin(2, a, End::Held);
        assert!(!st.stale(&held), "its block is open");
        assert!(st.stale(&origin(2, a, End::Exit(StmtId(3)))));
        assert!(st.stale(&origin(2, Site::Call(StmtId(9)), End::Held)));
        let stable = Origin {
            stable: true,
            ..origin(2, a, End::Exit(StmtId(3)))
        };
        assert!(!st.stale(&stable), "a final field never goes stale");
        // A reentrant hold opens no block.
        st.open = vec![Open {
            reentrant: true,
            ..open(a, 0)
        }];
        assert!(st.stale(&held));
    }

    #[test]
    fn ending_a_block_marks_only_its_held_values() {
        let (a, b) = (Site::Acquire(StmtId(1)), Site::Acquire(StmtId(5)));
        let mut st = State::default();
        st.assign(
            VarId(0),
            vec![origin(2, a, End::Held), origin(6, b, End::Held)],
        );
        st.end_block(a, End::Exit(StmtId(3)));
        assert_eq!(
            st.origins(VarId(0)),
            [origin(2, a, End::Exit(StmtId(3))), origin(6, b, End::Held)]
        );
    }

    #[test]
    fn join_keeps_blocks_open_on_both_paths_and_all_origins() {
        let (a, b) = (Site::Acquire(StmtId(1)), Site::Acquire(StmtId(5)));
        let mut left = State {
            open: vec![open(a, 0), open(b, 1)],
            ..State::default()
        };
        left.assign(VarId(0), vec![origin(2, a, End::Held)]);
        let mut right = State {
            open: vec![open(a, 0)],
            ..State::default()
        };
        right.assign(VarId(0), vec![origin(7, a, End::Held)]);
        right.assign(VarId(1), vec![origin(8, a, End::Held)]);
        assert!(left.join(&right));
        assert_eq!(left.open, vec![open(a, 0)]);
        assert_eq!(left.origins(VarId(0)).len(), 2);
        assert_eq!(left.origins(VarId(1)).len(), 1);
        assert!(!left.join(&right), "nothing new the second time");
    }

    #[test]
    fn origins_per_variable_are_bounded() {
        let a = Site::Acquire(StmtId(1));
        let mut st = State::default();
        st.assign(VarId(0), (0..20).map(|i| origin(i, a, End::Held)).collect());
        assert_eq!(st.origins(VarId(0)).len(), MAX_ORIGINS);
    }

    #[test]
    fn one_use_per_read_the_first() {
        let a = Site::Acquire(StmtId(1));
        let o = origin(2, a, End::Exit(StmtId(3)));
        let uses = vec![
            StaleUse {
                stmt: StmtId(9),
                origin: o,
            },
            StaleUse {
                stmt: StmtId(4),
                origin: o,
            },
            StaleUse {
                stmt: StmtId(6),
                origin: origin(5, a, End::Lost),
            },
        ];
        let kept = first_per_read(uses);
        assert_eq!(kept.len(), 2);
        assert_eq!(kept[0].stmt, StmtId(4));
        assert_eq!(kept[1].origin.read, StmtId(5));
    }
}
