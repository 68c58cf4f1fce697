//! Field states along one thread's path: the value a thread last stored
//! into an int-like field (`int`, `short`, `byte`, `char`), or last saw at
//! a test of it or of a `boolean`, as a constant, followed
//! through the calls it makes, so a lock-order witness that needs the
//! field to hold another value at a test on its path is seen not to run.
//!
//! ```java
//! public void close() {                      // Database
//!     synchronized (this) {
//!         if (getState() != ONLINE) return;
//!         setState(CLOSING);                 // the state is now CLOSING ...
//!     }
//!     sessionManager.close();                // ... here, and so in every callee:
//! }
//! synchronized void close() {                // SessionManager: its monitor held ...
//!     sysSession.close();                    // → database.closeIfLast()
//! }
//! void closeIfLast() {
//!     if (dbState == ONLINE) close(NORMAL);  // ... never true here: no second order
//! }
//! ```
//!
//! hsqldb 2.7.1 is written this way. The analysis is a constant
//! propagation of one field at a time over a body (a forward
//! analysis with a three-level value: unreached, one constant, unknown),
//! where a branch comparing the field's loaded value with a constant
//! prunes the edge the value rules out, and a call either leaves the
//! value alone (no target may store the field, transitively), sets it
//! (a setter storing its argument), or gives the value its targets
//! return with under the value at the call (their bodies analysed with
//! it: a least fixpoint per field over the (method, value) pairs reached,
//! within a budget).
//!
//! `boolean` fields (and `AtomicBoolean` fields, read by `get` and
//! written by `set`) are followed from the tests a thread makes of them,
//! and from its stores only when the store is made holding the storing
//! object's own monitor and every write of the flag in the program is made
//! that way ([`crate::flag_writes`]): the value then lasts until that
//! monitor is released. Any other store makes the value unknown (see
//! [`is_boolean`]). A branch comparing an unknown value with a constant
//! tells the value on the equal edge (for a `boolean`, on both), so a path
//! that needs a flag `false` at one test and `true` at a later one, with
//! no store between, is seen not to run (ActiveMQ 5.17.2's
//! `Queue.addSubscription` wakes the queue only when dispatch is not
//! optimized, and `wakeup()` iterates only when it is).
//!
//! What it assumes, besides the call graph: the field is named, not
//! owned (a store into one object's field is taken as the value a later
//! test of the same field on another object sees, as the lifecycle of
//! one database, its sessions and their manager have it); no other
//! thread changes the field between this thread's store and its test
//! (the first order's own thread runs the path; a state a thread has
//! just claimed is rarely reset under it); exceptions leaving a callee
//! are taken to leave it with the value it was called with; a call
//! changes the field only through a store at most [`MAX_STORE_CALLS`]
//! calls below it (hsqldb's call graph makes nearly every method a
//! possible writer of the database state through some chain of guesses;
//! following them all costs seconds and answers "unknown").

use std::sync::Arc;

use lockstep_ir::{Body, Cond, ConstValue, MonitorId, Operand, Rvalue, StmtId, StmtKind, VarId};
use lockstep_models::BooleanCall;
use lockstep_program::{MethodId, Program};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::block_solver::{self, Forward, HandlerSees};
use crate::flag_writes::{boolean_call, loaded_atomic, own_monitor_held};
use crate::guard_flags::Flag;
use crate::once_gate::{is_receiver, releases};

/// Calls above a store of a field through which a call is taken to change
/// the field: deeper stores are not followed (see the module docs).
const MAX_STORE_CALLS: usize = 2;

/// Body analyses one exit fixpoint may run before it gives up (unknown).
const MAX_FIXPOINT_ANALYSES: usize = 20_000;

/// Statements of a body that is only a getter or a setter of a field.
const MAX_ACCESSOR_STMTS: usize = 4;

/// A field's value at a statement: one constant, or unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Val {
    Const(i32),
    Top,
}

impl Val {
    fn meet(self, other: Val) -> Val {
        if self == other {
            self
        } else {
            Val::Top
        }
    }
}

/// What every path to a statement knows: the field's value (`None`: no
/// path runs it), the variables holding the field's loaded value, those
/// holding the `AtomicBoolean` it is (with whether it was read from the
/// body's receiver), and the monitor region whose release ends a value
/// this body stored ([`crate::flag_writes`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct St {
    pub val: Option<Val>,
    vars: Vec<VarId>,
    refs: Vec<(VarId, bool)>,
    guard: Option<MonitorId>,
}

impl St {
    fn unreached() -> St {
        St::entry(None)
    }

    fn entry(val: Option<Val>) -> St {
        St {
            val,
            vars: Vec::new(),
            refs: Vec::new(),
            guard: None,
        }
    }

    fn meet(&self, other: &St) -> St {
        match (self.val, other.val) {
            (None, _) => other.clone(),
            (_, None) => self.clone(),
            (Some(a), Some(b)) => {
                // A value stored under a monitor lasts until its release
                // on the paths that stored it; two different regions: unknown.
                let (val, guard) = match (self.guard, other.guard) {
                    (Some(x), Some(y)) if x != y => (Val::Top, None),
                    (g, h) => (a.meet(b), g.or(h)),
                };
                St {
                    val: Some(val),
                    vars: self
                        .vars
                        .iter()
                        .filter(|v| other.vars.contains(v))
                        .copied()
                        .collect(),
                    refs: self
                        .refs
                        .iter()
                        .filter(|v| other.refs.contains(v))
                        .copied()
                        .collect(),
                    guard: if val == Val::Top { None } else { guard },
                }
            }
        }
    }

    /// The value is unknown from here on.
    fn forget(&mut self) {
        self.val = Some(Val::Top);
        self.guard = None;
    }

    fn holds_ref(&self, v: VarId) -> Option<bool> {
        self.refs.iter().find(|(x, _)| *x == v).map(|&(_, own)| own)
    }

    pub fn reached(&self) -> bool {
        self.val.is_some()
    }
}

/// The state before every statement of a body (`None`: no path reaches
/// it), under one value of the field at entry.
pub type Before = Arc<Vec<Option<St>>>;

/// Does `desc` name an int-like state field (compared with `if_icmp*`)?
fn int_like(desc: &str) -> bool {
    matches!(desc, "I" | "B" | "S" | "C")
}

/// Is `desc` a `boolean`? Booleans are followed from the tests a thread
/// makes of them only, never from its stores: code often switches a flag
/// off around an operation and back (commons-configuration's `load` turns
/// `autoSave` off while it adds properties), and a concurrent thread's
/// test of it is exactly what a deadlock report is about; an `int`
/// compared with named constants is a lifecycle state that moves forward.
/// A store of a boolean makes its value unknown; a branch on it tells the
/// value on each edge, so a path that needs the flag `false` at one test
/// and `true` at a later one, with no store between, does not run.
fn is_boolean(desc: &str) -> bool {
    desc == "Z"
}

fn field_of(field: &lockstep_ir::MemberRef, is_static: bool) -> Option<Flag> {
    (int_like(&field.descriptor) || is_boolean(&field.descriptor)).then(|| Flag {
        class: field.class.clone(),
        name: field.name.clone(),
        is_static,
    })
}

/// The int-like field a load reads, if any (any object's: see the module docs).
fn loaded(value: &Rvalue) -> Option<Flag> {
    match value {
        Rvalue::FieldLoad { field, .. } => field_of(field, false),
        Rvalue::StaticLoad(field) => field_of(field, true),
        _ => None,
    }
}

/// Does the load read a `boolean` field?
fn loads_boolean(value: &Rvalue) -> bool {
    match value {
        Rvalue::FieldLoad { field, .. } | Rvalue::StaticLoad(field) => {
            is_boolean(&field.descriptor)
        }
        _ => false,
    }
}

/// Does a getter body return a `boolean` field (or an `AtomicBoolean`'s value)?
fn returns_boolean_field(body: &Body) -> bool {
    body.stmts.iter().any(|st| match &st.kind {
        StmtKind::Assign { value, .. } => loads_boolean(value),
        StmtKind::Invoke { call, .. } => boolean_call(call) == Some(BooleanCall::Read),
        _ => false,
    })
}

/// The flag whose value an `AtomicBoolean` read returns, when its
/// receiver holds one of `refs`.
fn atomic_read<'f>(call: &lockstep_ir::Call, refs: &'f FxHashMap<VarId, Flag>) -> Option<&'f Flag> {
    let Some(Operand::Var(r)) = &call.receiver else {
        return None;
    };
    let f = refs.get(r)?;
    (boolean_call(call) == Some(BooleanCall::Read)).then_some(f)
}

/// The int-like field a statement stores, with the stored operand.
fn stored(kind: &StmtKind) -> Option<(Flag, &Operand)> {
    match kind {
        StmtKind::FieldStore { field, value, .. } => Some((field_of(field, false)?, value)),
        StmtKind::StaticStore { field, value } => Some((field_of(field, true)?, value)),
        _ => None,
    }
}

/// A getter or setter of a field: a body of a few statements that only
/// returns the field of `this` (or a static), or only stores a parameter
/// into it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Accessor {
    Get(Flag),
    /// The field and the argument index (receiver excluded) stored.
    Set(Flag, usize),
}

fn accessor(body: &Body) -> Option<Accessor> {
    if body.stmts.len() > MAX_ACCESSOR_STMTS || body.blocks.len() != 1 {
        return None;
    }
    let own = |o: &Operand| match o {
        Operand::Var(v) => is_receiver(body, *v),
        Operand::Const(_) => false,
    };
    let mut loads: Vec<(VarId, Flag)> = Vec::new();
    let mut refs: FxHashMap<VarId, Flag> = FxHashMap::default();
    let mut found = None;
    for stmt in &body.stmts {
        if let StmtKind::Assign { dst, value } = &stmt.kind {
            if let Some((f, true)) = loaded_atomic(body, value) {
                refs.insert(*dst, f);
                continue;
            }
        }
        match &stmt.kind {
            StmtKind::Invoke {
                result: Some(dst),
                call,
            } => loads.push((*dst, atomic_read(call, &refs)?.clone())),
            StmtKind::Assign {
                dst,
                value: Rvalue::FieldLoad { object, field },
            } if own(object) => loads.push((*dst, field_of(field, false)?)),
            StmtKind::Assign {
                dst,
                value: Rvalue::StaticLoad(field),
            } => loads.push((*dst, field_of(field, true)?)),
            StmtKind::Return(Some(Operand::Var(v))) => {
                let (_, f) = loads.iter().find(|(x, _)| x == v)?;
                found = Some(Accessor::Get(f.clone()));
            }
            StmtKind::FieldStore {
                object,
                field,
                value: Operand::Var(p),
            } if own(object) && !is_boolean(&field.descriptor) => {
                let k = body.params.iter().position(|x| x == p)?;
                let k = k.checked_sub(usize::from(!body.is_static))?;
                found = Some(Accessor::Set(field_of(field, false)?, k));
            }
            StmtKind::StaticStore {
                field,
                value: Operand::Var(p),
            } if !is_boolean(&field.descriptor) => {
                let k = body.params.iter().position(|x| x == p)?;
                let k = k.checked_sub(usize::from(!body.is_static))?;
                found = Some(Accessor::Set(field_of(field, true)?, k));
            }
            StmtKind::Return(None) | StmtKind::Nop => {}
            _ => return None,
        }
    }
    found
}

/// Every write of a flag: per (name, static), the field as named, the
/// writing method and whether the write is made under the writer's own
/// monitor ([`crate::flag_writes`]).
type StoreIndex = FxHashMap<(Arc<str>, bool), Vec<(Flag, MethodId, bool)>>;

/// Field states of one program over its reached call graph.
pub struct States<'a> {
    program: &'a Program,
    /// Per call statement of a method: the methods it may call.
    targets: FxHashMap<(MethodId, StmtId), Vec<MethodId>>,
    /// Per method: the methods calling it.
    callers: FxHashMap<MethodId, Vec<MethodId>>,
    may_store: FxHashMap<Flag, Arc<FxHashSet<MethodId>>>,
    /// Every store of an int-like field ([`Self::index_stores`], built once).
    stores: Option<StoreIndex>,
    /// Per flag: is every write made under the writer's own monitor?
    guarded: FxHashMap<Flag, bool>,
    accessors: FxHashMap<MethodId, Option<Accessor>>,
    tested: FxHashMap<MethodId, Arc<[Flag]>>,
    /// The `boolean` fields among those tested ([`is_boolean`]).
    booleans: FxHashSet<Flag>,
    before: FxHashMap<(MethodId, Option<Val>, Flag), Option<Before>>,
    /// Final exit values ([`Self::exit`]).
    exits: FxHashMap<(MethodId, Val, Flag), Option<Val>>,
    /// The fixpoint being solved, if any.
    fix: Option<Fix>,
}

/// One running exit fixpoint: its field, the current values of the pairs
/// reached (`None`: never returns, so far), who read each, and the pairs
/// to analyse again.
struct Fix {
    field: Flag,
    approx: FxHashMap<(MethodId, Val), Option<Val>>,
    deps: FxHashMap<(MethodId, Val), Vec<(MethodId, Val)>>,
    work: std::collections::VecDeque<(MethodId, Val)>,
    queued: FxHashSet<(MethodId, Val)>,
    current: (MethodId, Val),
}

impl<'a> States<'a> {
    /// `calls`: every call edge of the reached graph as (caller method,
    /// call statement, callee method).
    pub fn new(
        program: &'a Program,
        calls: impl Iterator<Item = (MethodId, StmtId, MethodId)>,
    ) -> Self {
        let mut targets: FxHashMap<(MethodId, StmtId), Vec<MethodId>> = FxHashMap::default();
        let mut callers: FxHashMap<MethodId, Vec<MethodId>> = FxHashMap::default();
        for (m, s, t) in calls {
            targets.entry((m, s)).or_default().push(t);
            callers.entry(t).or_default().push(m);
        }
        for v in targets.values_mut().chain(callers.values_mut()) {
            v.sort_unstable();
            v.dedup();
        }
        States {
            program,
            targets,
            callers,
            may_store: FxHashMap::default(),
            stores: None,
            guarded: FxHashMap::default(),
            accessors: FxHashMap::default(),
            tested: FxHashMap::default(),
            booleans: FxHashSet::default(),
            before: FxHashMap::default(),
            exits: FxHashMap::default(),
            fix: None,
        }
    }

    /// The int-like fields a body compares with a constant (loaded
    /// directly or through a getter), sorted.
    pub fn tested(&mut self, m: MethodId) -> Arc<[Flag]> {
        if let Some(t) = self.tested.get(&m) {
            return t.clone();
        }
        let mut out: Vec<Flag> = Vec::new();
        if let Some(body) = self.application_body(m) {
            let mut holds: FxHashMap<VarId, Flag> = FxHashMap::default();
            let mut refs: FxHashMap<VarId, Flag> = FxHashMap::default();
            for (i, stmt) in body.stmts.iter().enumerate() {
                match &stmt.kind {
                    StmtKind::Assign { dst, value } => {
                        if let Some((f, _)) = loaded_atomic(&body, value) {
                            refs.insert(*dst, f);
                        } else if let Some(f) = loaded(value) {
                            if loads_boolean(value) {
                                self.booleans.insert(f.clone());
                            }
                            holds.insert(*dst, f);
                        }
                    }
                    StmtKind::Invoke {
                        result: Some(dst),
                        call,
                    } => {
                        if let Some(f) = atomic_read(call, &refs).cloned() {
                            self.booleans.insert(f.clone());
                            holds.insert(*dst, f);
                        } else if let Some(f) = self.getter_at(m, StmtId(i as u32)) {
                            if self.boolean_getter_at(m, StmtId(i as u32)) {
                                self.booleans.insert(f.clone());
                            }
                            holds.insert(*dst, f);
                        }
                    }
                    StmtKind::If {
                        lhs: Operand::Var(v),
                        rhs: Operand::Const(ConstValue::Int(_)),
                        ..
                    } => {
                        if let Some(f) = holds.get(v) {
                            out.push(f.clone());
                        }
                    }
                    _ => {}
                }
            }
        }
        out.sort();
        out.dedup();
        let out: Arc<[Flag]> = Arc::from(out);
        self.tested.insert(m, out.clone());
        out
    }

    fn application_body(&self, m: MethodId) -> Option<Arc<Body>> {
        let data = self.program.try_method(m)?;
        if !self.program.is_application(data.class) {
            return None;
        }
        self.program.body(m)
    }

    fn accessor(&mut self, m: MethodId) -> Option<Accessor> {
        if let Some(a) = self.accessors.get(&m) {
            return a.clone();
        }
        let a = self.application_body(m).and_then(|b| accessor(&b));
        self.accessors.insert(m, a.clone());
        a
    }

    /// The targets of a call statement.
    fn targets_of(&self, m: MethodId, s: StmtId) -> &[MethodId] {
        self.targets.get(&(m, s)).map_or(&[][..], Vec::as_slice)
    }

    /// The field every target of the call at `s` is a getter of.
    fn getter_at(&mut self, m: MethodId, s: StmtId) -> Option<Flag> {
        let targets = self.targets_of(m, s).to_vec();
        let mut field: Option<Flag> = None;
        for t in targets {
            let Some(Accessor::Get(f)) = self.accessor(t) else {
                return None;
            };
            if field.as_ref().is_some_and(|g| *g != f) {
                return None;
            }
            field = Some(f);
        }
        field
    }

    /// Is every target of the call at `s` a getter of a `boolean` field?
    fn boolean_getter_at(&mut self, m: MethodId, s: StmtId) -> bool {
        let targets = self.targets_of(m, s).to_vec();
        !targets.is_empty()
            && targets.iter().all(|&t| {
                self.application_body(t)
                    .is_some_and(|b| returns_boolean_field(&b))
            })
    }

    /// Every application write of a flag, by name and kind.
    fn index_stores(&self) -> StoreIndex {
        let mut out: StoreIndex = FxHashMap::default();
        for c in self.program.application_classes() {
            for &m in self.program.class(c).methods.iter() {
                let Some(body) = self.program.body(m) else {
                    continue;
                };
                let constructor = self.program.method(m).is_constructor();
                let plain = |k: &StmtKind| stored(k).map(|(f, _)| f);
                for w in crate::flag_writes::writes(&body, constructor, plain) {
                    out.entry((w.flag.name.clone(), w.flag.is_static))
                        .or_default()
                        .push((w.flag, m, w.under_own_monitor));
                }
            }
        }
        for v in out.values_mut() {
            v.sort();
            v.dedup();
        }
        out
    }

    /// The methods that may store `field`, themselves or through calls.
    fn may_store(&mut self, field: &Flag) -> Arc<FxHashSet<MethodId>> {
        if let Some(s) = self.may_store.get(field) {
            return s.clone();
        }
        if self.stores.is_none() {
            self.stores = Some(self.index_stores());
        }
        let mut out: FxHashSet<MethodId> = FxHashSet::default();
        let mut work: Vec<MethodId> = Vec::new();
        let key = (field.name.clone(), field.is_static);
        let direct = self
            .stores
            .as_ref()
            .and_then(|s| s.get(&key))
            .map_or(&[][..], Vec::as_slice);
        for (f, m, _) in direct {
            if f.may_be(self.program, field) && out.insert(*m) {
                work.push(*m);
            }
        }
        for _ in 0..MAX_STORE_CALLS {
            let mut next = Vec::new();
            for m in work {
                for &c in self.callers.get(&m).map_or(&[][..], Vec::as_slice) {
                    if out.insert(c) {
                        next.push(c);
                    }
                }
            }
            work = next;
        }
        let out = Arc::new(out);
        self.may_store.insert(field.clone(), out.clone());
        out
    }

    /// Is every application write of `field` made by its object's own
    /// code under its own monitor ([`crate::flag_writes`])? Then a value a
    /// thread stored holding that monitor stays until it releases it.
    fn guarded(&mut self, field: &Flag) -> bool {
        if let Some(&g) = self.guarded.get(field) {
            return g;
        }
        if self.stores.is_none() {
            self.stores = Some(self.index_stores());
        }
        let key = (field.name.clone(), field.is_static);
        let g = self
            .stores
            .as_ref()
            .and_then(|s| s.get(&key))
            .is_some_and(|writes| {
                writes
                    .iter()
                    .filter(|(f, _, _)| f.may_be(self.program, field))
                    .all(|&(_, _, own)| own)
            });
        self.guarded.insert(field.clone(), g);
        g
    }

    /// The state before each statement of `m` when `field` holds `entry`
    /// on entry (`None`: the entry is unreached); `None` when `m` has no
    /// application body or the solver gave up.
    pub fn before(&mut self, m: MethodId, entry: Option<Val>, field: &Flag) -> Option<Before> {
        let key = (m, entry, field.clone());
        if let Some(b) = self.before.get(&key) {
            return b.clone();
        }
        let out = self.solve(m, entry, field);
        if self.fix.is_none() {
            self.before.insert(key, out.clone());
        }
        out
    }

    fn solve(&mut self, m: MethodId, entry: Option<Val>, field: &Flag) -> Option<Before> {
        let body = self.application_body(m)?;
        let stores = self.may_store(field);
        let nb = body.blocks.len();
        let mut flow = ValueFlow {
            states: self,
            method: m,
            body: &body,
            field,
            stores: &stores,
        };
        let at_entry = block_solver::solve(
            &body,
            &mut flow,
            St::entry(entry),
            HandlerSees::AfterEach,
            nb.saturating_mul(16),
        )?;
        let mut before: Vec<Option<St>> = vec![None; body.stmts.len()];
        for (b, st) in at_entry.iter().enumerate() {
            let (Some(mut st), Some(block)) = (st.clone(), body.blocks.get(b)) else {
                continue;
            };
            for s in block.first.0..block.end.0 {
                if let Some(slot) = before.get_mut(s as usize) {
                    *slot = Some(st.clone());
                }
                flow.step(StmtId(s), &mut st);
            }
        }
        Some(Arc::new(before))
    }

    /// The value `field` has when `m` returns normally after being called
    /// with `entry` (`None`: it never returns normally). Computed as the
    /// least fixpoint over every (method, value) pair the call reaches,
    /// from "never returns" up (so recursion is exact), within a budget
    /// of body analyses past which the pairs left are unknown.
    fn exit(&mut self, m: MethodId, entry: Val, field: &Flag) -> Option<Val> {
        let key = (m, entry, field.clone());
        if let Some(v) = self.exits.get(&key) {
            return *v;
        }
        if let Some(fix) = self.fix.as_mut().filter(|f| f.field == *field) {
            let pair = (m, entry);
            fix.deps.entry(pair).or_default().push(fix.current);
            if let Some(v) = fix.approx.get(&pair) {
                return *v;
            }
            fix.approx.insert(pair, None);
            fix.queued.insert(pair);
            fix.work.push_back(pair);
            return None;
        }
        if self.fix.is_some() {
            // Another field's fixpoint is running: do not nest.
            return Some(Val::Top);
        }
        self.fixpoint(field, (m, entry));
        self.exits.get(&key).copied().unwrap_or(Some(Val::Top))
    }

    /// Solves the exits of every pair reached from `seed` (see [`Self::exit`]).
    fn fixpoint(&mut self, field: &Flag, seed: (MethodId, Val)) {
        let mut fix = Fix {
            field: field.clone(),
            approx: FxHashMap::default(),
            deps: FxHashMap::default(),
            work: std::collections::VecDeque::from([seed]),
            queued: FxHashSet::from_iter([seed]),
            current: seed,
        };
        fix.approx.insert(seed, None);
        self.fix = Some(fix);
        let mut analyses = 0usize;
        let mut exhausted = false;
        while let Some(pair) = self.fix.as_mut().and_then(|f| {
            let p = f.work.pop_front()?;
            f.queued.remove(&p);
            Some(p)
        }) {
            analyses += 1;
            if analyses > MAX_FIXPOINT_ANALYSES {
                exhausted = true;
                break;
            }
            if let Some(f) = self.fix.as_mut() {
                f.current = pair;
            }
            let out = match self.solve(pair.0, Some(pair.1), field) {
                None => Some(Val::Top),
                Some(before) => self.returned(pair.0, &before),
            };
            let Some(f) = self.fix.as_mut() else { break };
            let old = f.approx.get(&pair).copied().flatten();
            let new = match (old, out) {
                (None, v) => v,
                (o, None) => o,
                (Some(a), Some(b)) => Some(a.meet(b)),
            };
            if new != f.approx.get(&pair).copied().flatten() || (old.is_none() && new.is_some()) {
                f.approx.insert(pair, new);
                let dependents = f.deps.get(&pair).cloned().unwrap_or_default();
                for d in dependents {
                    if f.queued.insert(d) {
                        f.work.push_back(d);
                    }
                }
            }
        }
        if let Some(f) = self.fix.take() {
            for (pair, v) in f.approx {
                let v = if exhausted { Some(Val::Top) } else { v };
                self.exits.insert((pair.0, pair.1, field.clone()), v);
            }
        }
    }

    /// The meet of the values at the body's reached returns.
    fn returned(&self, m: MethodId, before: &[Option<St>]) -> Option<Val> {
        let body = self.program.body(m)?;
        let mut out: Option<Val> = None;
        for (s, st) in body.stmts.iter().zip(before) {
            if !matches!(s.kind, StmtKind::Return(_)) {
                continue;
            }
            // A value stored under a monitor ends with it: a `synchronized`
            // method's returns release it.
            if let Some(v) = st.as_ref().and_then(|st| {
                st.val
                    .map(|v| if st.guard.is_some() { Val::Top } else { v })
            }) {
                out = Some(out.map_or(v, |o| o.meet(v)));
            }
        }
        out
    }

    /// The field's value after the call at `s` of `m`, called with `val`.
    fn after_call(
        &mut self,
        (m, s): (MethodId, StmtId),
        call: &lockstep_ir::Call,
        val: Val,
        field: &Flag,
        stores: &FxHashSet<MethodId>,
    ) -> Option<Val> {
        let targets = self.targets_of(m, s).to_vec();
        if !targets.iter().any(|t| stores.contains(t)) {
            return Some(val);
        }
        let mut out: Option<Val> = None;
        for t in targets {
            let v = match self.accessor(t) {
                Some(Accessor::Set(f, k)) if f.may_be(self.program, field) => {
                    match call.args.get(k) {
                        Some(Operand::Const(ConstValue::Int(c))) => Some(Val::Const(*c)),
                        _ => Some(Val::Top),
                    }
                }
                _ if !stores.contains(&t) => Some(val),
                _ => self.exit(t, val, field),
            };
            out = match (out, v) {
                (None, v) => v,
                (o, None) => o,
                (Some(a), Some(b)) => Some(a.meet(b)),
            };
        }
        out
    }
}

struct ValueFlow<'s, 'a, 'b> {
    states: &'s mut States<'a>,
    method: MethodId,
    body: &'b Body,
    field: &'b Flag,
    stores: &'b FxHashSet<MethodId>,
}

impl Forward for ValueFlow<'_, '_, '_> {
    type State = St;

    fn meet_into(&self, into: &mut St, from: &St) -> bool {
        let met = into.meet(from);
        block_solver::replace_if_changed(into, met)
    }

    fn step(&mut self, s: StmtId, st: &mut St) {
        let Some(val) = st.val else {
            return;
        };
        let Some(stmt) = self.body.stmts.get(s.index()) else {
            return;
        };
        let program = self.states.program;
        if let Some((f, value)) = stored(&stmt.kind) {
            if f.may_be(program, self.field) {
                let own = matches!(&stmt.kind, StmtKind::FieldStore { object: Operand::Var(v), .. } if is_receiver(self.body, *v));
                let c = match value {
                    Operand::Const(ConstValue::Int(c)) => Some(*c),
                    _ => None,
                };
                self.store(s, st, c, own);
            }
            return;
        }
        match &stmt.kind {
            StmtKind::Assign { dst, value } => {
                let copies = matches!(value, Rvalue::Use(Operand::Var(x)) if st.vars.contains(x));
                let copied_ref = match value {
                    Rvalue::Use(Operand::Var(x)) | Rvalue::Cast(Operand::Var(x), _) => {
                        st.holds_ref(*x)
                    }
                    _ => None,
                };
                st.vars.retain(|v| v != dst);
                st.refs.retain(|(v, _)| v != dst);
                let holds = copies || loaded(value).is_some_and(|f| f.may_be(program, self.field));
                if holds {
                    st.vars.push(*dst);
                }
                let loaded_ref = loaded_atomic(self.body, value)
                    .filter(|(f, _)| f.may_be(program, self.field))
                    .map(|(_, own)| own);
                if let Some(own) = loaded_ref.or(copied_ref) {
                    st.refs.push((*dst, own));
                }
            }
            StmtKind::MonitorExit(_) if releases(self.body, s, st.guard) => st.forget(),
            StmtKind::Invoke { result, call } if let Some(own) = self.on_flag(call, st) => {
                if let Some(dst) = result {
                    st.vars.retain(|v| v != dst);
                    st.refs.retain(|(v, _)| v != dst);
                }
                match boolean_call(call) {
                    Some(BooleanCall::Read) => st.vars.extend(*result),
                    Some(BooleanCall::Keeps) => {}
                    Some(BooleanCall::Store(c)) => self.store(s, st, c, own),
                    Some(BooleanCall::Changes) | None => st.forget(),
                }
            }
            StmtKind::Invoke { result, call } => {
                // The flag's `AtomicBoolean` handed to code that may set it.
                let handed = call
                    .args
                    .iter()
                    .any(|a| matches!(a, Operand::Var(x) if st.holds_ref(*x).is_some()));
                if handed {
                    st.forget();
                    return;
                }
                if let Some(dst) = result {
                    st.vars.retain(|v| v != dst);
                    st.refs.retain(|(v, _)| v != dst);
                    let getter = self.states.getter_at(self.method, s);
                    if getter.is_some_and(|f| f.may_be(program, self.field)) {
                        st.vars.push(*dst);
                    }
                }
                let after =
                    self.states
                        .after_call((self.method, s), call, val, self.field, self.stores);
                st.val = after;
                if after.is_none() {
                    st.vars.clear();
                }
            }
            _ => {}
        }
    }

    fn edge(&mut self, block: usize, succ: usize, st: &St) -> Option<St> {
        let k = match st.val {
            Some(Val::Const(k)) => k,
            Some(Val::Top) => return self.refine(block, succ, st),
            None => return None,
        };
        let (cond, c, target) = self.field_test(block, st)?;
        let holds = match cond {
            Cond::Eq => k == c,
            Cond::Ne => k != c,
            Cond::Lt => k < c,
            Cond::Ge => k >= c,
            Cond::Gt => k > c,
            Cond::Le => k <= c,
        };
        let taken = target.index() == succ;
        if taken == holds {
            None
        } else {
            Some(St::unreached())
        }
    }
}

impl ValueFlow<'_, '_, '_> {
    /// Is `call` made on a variable holding the field's `AtomicBoolean`?
    /// `Some(own)`: whether it was read from the body's receiver.
    fn on_flag(&self, call: &lockstep_ir::Call, st: &St) -> Option<bool> {
        match &call.receiver {
            Some(Operand::Var(r)) => st.holds_ref(*r),
            _ => None,
        }
    }

    /// A store of `value` (`None`: not a constant) into the field, into the
    /// body's receiver's when `own`. An int-like field takes the value. A
    /// `boolean` (see [`is_boolean`]) takes it only when the body holds its
    /// own monitor and every write of the flag is made that way
    /// ([`crate::flag_writes`]): then no other thread changes it before
    /// this one releases the monitor, where the value is forgotten.
    fn store(&mut self, s: StmtId, st: &mut St, value: Option<i32>, own: bool) {
        if !self.states.booleans.contains(self.field) {
            st.val = Some(value.map_or(Val::Top, Val::Const));
            st.guard = None;
            return;
        }
        let region = own_monitor_held(self.body, s).filter(|_| own);
        match (value, region) {
            (Some(c), Some(r)) if self.states.guarded(self.field) => {
                st.val = Some(Val::Const(c));
                st.guard = Some(r);
            }
            _ => st.forget(),
        }
    }

    /// The test ending `block`, when it compares a variable holding the
    /// field with a constant and its two edges go to different blocks: the
    /// comparison, the constant and the branch target.
    fn field_test(&self, block: usize, st: &St) -> Option<(Cond, i32, lockstep_ir::BlockId)> {
        let b = self.body.blocks.get(block)?;
        let last = b.end.0.checked_sub(1).filter(|&l| l >= b.first.0)?;
        let StmtKind::If {
            cond,
            lhs: Operand::Var(v),
            rhs: Operand::Const(ConstValue::Int(c)),
            target,
        } = &self.body.stmts.get(last as usize)?.kind
        else {
            return None;
        };
        if !st.vars.contains(v) {
            return None;
        }
        let distinct: FxHashSet<usize> = b.succs.iter().map(|x| x.index()).collect();
        (distinct.len() >= 2).then_some((*cond, *c, *target))
    }

    /// An unknown value compared with a constant: on the edge where they
    /// are equal the value is that constant (for a `boolean` compared with
    /// `0`, also on the other edge: `1`). The thread has just read it; see
    /// the module docs for what is assumed about other threads.
    fn refine(&self, block: usize, succ: usize, st: &St) -> Option<St> {
        let (cond, c, target) = self.field_test(block, st)?;
        let taken = target.index() == succ;
        let equal = match cond {
            Cond::Eq => taken,
            Cond::Ne => !taken,
            _ => return None,
        };
        let boolean = self.states.booleans.contains(self.field);
        let val = match (equal, boolean) {
            (true, _) => c,
            (false, true) if c == 0 => 1,
            (false, true) if c == 1 => 0,
            _ => return None,
        };
        Some(St {
            val: Some(Val::Const(val)),
            guard: None,
            ..st.clone()
        })
    }
}
