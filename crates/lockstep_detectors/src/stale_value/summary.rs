//! Callee summaries (paper 001 §4, "method calls"): which locks a method
//! acquires, itself or through its callees, in terms its callers can
//! compare with the locks they hold; which monitors it `wait()`s on; and
//! whether it only ever returns its receiver or an argument.
//!
//! A call whose callee acquires a lock the caller does not hold at the call
//! returns a shared value of a fresh monitor block (the flow analysis'
//! business); with every acquired lock already held, the acquisitions are
//! reentrant and the call is a local operation. Locks are paths built on
//! the callee's `this` and parameters and translated at each call site;
//! a lock that cannot be named in the caller is "distinct": the caller is
//! assumed not to hold it (sound, §5.1).
//!
//! Summaries of every reachable method (application and library) are
//! computed once, as the least fixed point over the call graph (which
//! handles recursion, §4), with a worklist ordered by method id. Each
//! summary is bounded ([`MAX_LOCKS`]), so the fixed point is reached after
//! a bounded number of changes per method. Thread starts
//! ([`EdgeKind::TaskLaunch`]) are not calls: the started task runs later,
//! in another thread.

use std::collections::{BTreeSet, HashMap, HashSet};

use rayon::prelude::*;

use lockstep_ir::{
    AccessPath, Body, Call, CallKind, ConstValue, Operand, Rvalue, StmtId, StmtKind, Type, VarId,
};
use lockstep_program::{CallGraph, EdgeKind, MethodId, Program};

use super::locks::{self, keep, translate, Actual, Effect, Keep, LockKey, LockKind, Translated};

/// At most this many locks are kept per summary; a method acquiring more
/// is summarised as also acquiring "some other lock" (callers then treat a
/// call to it as acquiring a lock they do not hold, the sound side).
pub const MAX_LOCKS: usize = 8;

/// At most this many waited-on monitors are kept per summary.
pub const MAX_WAITS: usize = 4;

/// Where a lock is acquired: a statement of a method, or (`None`) the
/// method's own `synchronized` entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Hop {
    pub method: MethodId,
    pub stmt: Option<StmtId>,
}

/// What callers need to know about a method.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// Locks it may acquire, in its own terms (sorted, at most [`MAX_LOCKS`]).
    pub locks: Vec<LockKey>,
    /// It may acquire a lock no caller can name (assumed not held).
    pub distinct: bool,
    /// Monitors it may `wait()` on, in its own terms (sorted).
    pub waits: Vec<AccessPath>,
    /// Every `return` returns `this` or a parameter (a builder's `return
    /// this`): the result is a value the caller already had.
    pub returns_arg: bool,
    /// Its result may carry data read under one of its locks: it returns
    /// inside its own `synchronized` region (a synchronized getter, even
    /// one returning constants computed under the lock), or its returned
    /// value derives from a heap read made under its lock or from the
    /// result of another such call. A method that locks only for side
    /// effects (printing to `System.err`, notifying listeners) returns an
    /// unshared value, as the paper's run-time semantics has it.
    pub returns_shared: bool,
    /// One place where it acquires a lock, for messages.
    pub witness: Option<Hop>,
}

impl Summary {
    pub fn acquires(&self) -> bool {
        self.distinct || !self.locks.is_empty()
    }

    /// A call to it may return a shared value (if its locks are not
    /// already held by the caller).
    pub fn shares_result(&self) -> bool {
        self.returns_shared && !self.returns_arg && self.acquires()
    }
}

/// A call statement of a method, with what the caller passes.
#[derive(Debug, Clone)]
pub struct CallSite {
    pub stmt: StmtId,
    pub receiver: Option<Actual>,
    pub args: Vec<Actual>,
    /// Resolved targets (sorted), thread starts excluded.
    pub callees: Vec<MethodId>,
    /// The call's lock effect from the models layer (`lock`, `wait`...),
    /// with the lock it concerns. Modelled calls are not summarised
    /// through their callees: the model says what they do.
    pub modelled: Option<(Effect, LockKey)>,
}

/// The facts of one method that do not depend on other methods.
#[derive(Debug, Clone)]
pub struct Facts {
    pub library: bool,
    /// What the method does itself (`returns_shared` from its own reads).
    pub own: Summary,
    pub sites: Vec<CallSite>,
    /// Indices into `sites` of the calls whose results flow into a
    /// returned value.
    pub returned_calls: Vec<usize>,
}

/// The lock effect of a call from the models layer.
pub fn call_effect(program: &Program, call: &Call) -> Option<Effect> {
    let m = &call.method;
    let e = lockstep_models::lock_effect_via(&m.class, &m.name, &m.descriptor, &|a, b| {
        program.is_subtype_name(a, b)
    })?;
    locks::effect(e)
}

/// The lock a modelled call acts on: its receiver, seen through a read or
/// write view (`rwl.readLock().lock()` read-locks `rwl`, so the matching
/// `rwl.readLock().unlock()`, a different view object, releases it).
fn receiver_lock(program: &Program, body: &Body, call: &Call, kind: LockKind) -> LockKey {
    let Some(recv) = &call.receiver else {
        return LockKey {
            kind,
            path: AccessPath::Unknown,
        };
    };
    if let Some((view_kind, path)) = recv.var().and_then(|v| view_of(program, body, v)) {
        return LockKey {
            kind: view_kind,
            path,
        };
    }
    LockKey {
        kind,
        path: lockstep_ir::operand_path(body, recv),
    }
}

/// If `v` is (a copy of) the result of `x.readLock()` / `x.writeLock()`:
/// the side and `x`.
fn view_of(program: &Program, body: &Body, mut v: VarId) -> Option<(LockKind, AccessPath)> {
    for _ in 0..16 {
        let s = body.unique_def.get(v.index()).copied().flatten()?;
        match &body.stmts.get(s.index())?.kind {
            StmtKind::Assign {
                value: Rvalue::Use(Operand::Var(w)) | Rvalue::Cast(Operand::Var(w), _),
                ..
            } => v = *w,
            StmtKind::Invoke { call, .. } => {
                let Some(Effect::View(kind)) = call_effect(program, call) else {
                    return None;
                };
                let recv = call.receiver.as_ref()?;
                return Some((kind, lockstep_ir::operand_path(body, recv)));
            }
            _ => return None,
        }
    }
    None
}

/// The lock a modelled call concerns.
pub fn modelled(
    program: &Program,
    body: &Body,
    call: &Call,
    effect: Effect,
) -> Option<(Effect, LockKey)> {
    let key = match effect {
        Effect::Acquire(kind) | Effect::Release(kind) => receiver_lock(program, body, call, kind),
        Effect::MonitorWait => LockKey::monitor(
            call.receiver
                .as_ref()
                .map(|r| lockstep_ir::operand_path(body, r))
                .unwrap_or(AccessPath::Unknown),
        ),
        // The condition's lock is not named by the condition object.
        Effect::ConditionAwait => LockKey {
            kind: LockKind::Exclusive,
            path: AccessPath::Unknown,
        },
        // A view only names a lock; it acquires nothing.
        Effect::View(_) => return None,
    };
    Some((effect, key))
}

fn is_library(program: &Program, m: MethodId) -> bool {
    !program.class(program.method(m).class).is_application
}

/// The facts of method `m`.
pub fn facts(program: &Program, cg: &CallGraph, m: MethodId) -> Facts {
    let library = is_library(program, m);
    let data = program.method(m);
    let mut own = Summary::default();
    let mut locks = BTreeSet::new();
    let mut waits = BTreeSet::new();
    let Some(body) = program.body(m) else {
        // Native (or abstract) methods: only the `synchronized` flag tells.
        if data.is_synchronized() {
            let path = if data.is_static() {
                AccessPath::ClassLiteral(program.class(data.class).name.clone())
            } else {
                AccessPath::This
            };
            add_lock(
                &mut locks,
                &mut own.distinct,
                LockKey::monitor(path),
                library,
            );
            own.witness = Some(Hop {
                method: m,
                stmt: None,
            });
        }
        // A synchronized native returns while holding its monitor.
        own.returns_shared = data.is_synchronized();
        own.locks = locks.into_iter().collect();
        return Facts {
            library,
            own,
            sites: Vec::new(),
            returned_calls: Vec::new(),
        };
    };
    for region in &body.monitors {
        // `synchronized (new Object())` guards nothing.
        if region.lock_var.is_some_and(|v| locks::is_fresh(&body, v)) {
            continue;
        }
        if add_lock(
            &mut locks,
            &mut own.distinct,
            LockKey::monitor(region.lock.clone()),
            library,
        ) {
            own.witness.get_or_insert(Hop {
                method: m,
                stmt: region.enter,
            });
        }
    }
    let mut sites = Vec::new();
    let mut returns = 0usize;
    let mut returns_arg = true;
    for (i, stmt) in body.stmts.iter().enumerate() {
        let sid = StmtId(i as u32);
        match &stmt.kind {
            StmtKind::Invoke { call, .. } => {
                let modelled = call_effect(program, call)
                    .and_then(|e| self::modelled(program, &body, call, e));
                match &modelled {
                    Some((Effect::Acquire(_), key)) => {
                        let fresh = call
                            .receiver
                            .as_ref()
                            .and_then(Operand::var)
                            .is_some_and(|v| locks::is_fresh(&body, v));
                        if !fresh && add_lock(&mut locks, &mut own.distinct, key.clone(), library) {
                            own.witness.get_or_insert(Hop {
                                method: m,
                                stmt: Some(sid),
                            });
                        }
                    }
                    Some((Effect::MonitorWait, key)) => add_wait(&mut waits, &key.path, library),
                    _ => {}
                }
                let mut all: Vec<MethodId> = cg
                    .callees_at(m, sid)
                    .iter()
                    .filter(|e| e.kind != EdgeKind::TaskLaunch)
                    .map(|e| e.callee)
                    .collect();
                all.sort();
                all.dedup();
                let callees = considered(program, &body, call, all);
                sites.push(CallSite {
                    stmt: sid,
                    receiver: call.receiver.as_ref().map(|r| Actual::of(&body, r)),
                    args: call.args.iter().map(|a| Actual::of(&body, a)).collect(),
                    callees,
                    modelled,
                });
            }
            StmtKind::Return(Some(op)) => {
                returns += 1;
                let path = lockstep_ir::operand_path(&body, op);
                returns_arg &= matches!(path, AccessPath::This | AccessPath::Param(..));
            }
            _ => {}
        }
    }
    own.returns_arg = returns > 0 && returns_arg;
    let juc = sites
        .iter()
        .any(|s| matches!(s.modelled, Some((Effect::Acquire(_), _))));
    let (reads_locked, returned_calls) = returned_slice(&body, &sites, juc);
    own.returns_shared = reads_locked;
    if !reads_locked {
        // Its own locks guard side effects only, not what it returns.
        locks.clear();
        own.distinct = false;
        own.witness = None;
    }
    bound(&mut locks, &mut own.distinct);
    own.locks = locks.into_iter().collect();
    own.waits = waits.into_iter().take(MAX_WAITS).collect();
    Facts {
        library,
        own,
        sites,
        returned_calls,
    }
}

/// The backward data slice of the values a method returns (through every
/// definition of each variable, flow-insensitively): whether it returns
/// inside one of its regions or reaches a heap read made under a lock of
/// the method (inside a region; anywhere in a method that takes
/// `java.util.concurrent` locks, whose held ranges are not known without
/// the flow analysis), and which call sites it reaches. When the method
/// returns `int`/`boolean` constants, the operands of its branches are in
/// the slice too, as a cheap stand-in for control dependence: `return
/// indexOf(o) >= 0` compiles to a branch on the call and two constants
/// (`Vector.contains`). Methods returning data are not tainted by every
/// branch of their body.
fn returned_slice(body: &Body, sites: &[CallSite], juc: bool) -> (bool, Vec<usize>) {
    let mut defs: HashMap<VarId, Vec<StmtId>> = HashMap::new();
    let mut work: Vec<VarId> = Vec::new();
    let mut branches: Vec<VarId> = Vec::new();
    let mut shared = false;
    let mut returns = false;
    let mut constant = false;
    for (i, stmt) in body.stmts.iter().enumerate() {
        let sid = StmtId(i as u32);
        if let Some(v) = stmt.kind.def() {
            defs.entry(v).or_default().push(sid);
        }
        match &stmt.kind {
            StmtKind::Return(Some(op)) => {
                returns = true;
                shared |= body.held_before.get(i).copied().flatten().is_some();
                constant |= matches!(op, Operand::Const(ConstValue::Int(_)));
                work.extend(op.var());
            }
            StmtKind::If { lhs, rhs, .. } => {
                branches.extend(lhs.var());
                branches.extend(rhs.var());
            }
            StmtKind::Switch { key, .. } => branches.extend(key.var()),
            _ => {}
        }
    }
    if !returns {
        return (false, Vec::new());
    }
    // `return a >= b` leaves its two constants in a stack variable.
    constant |= work.iter().any(|v| {
        defs.get(v).is_some_and(|ds| {
            ds.iter().any(|d| {
                matches!(
                    body.stmts.get(d.index()).map(|s| &s.kind),
                    Some(StmtKind::Assign {
                        value: Rvalue::Use(Operand::Const(ConstValue::Int(_))),
                        ..
                    })
                )
            })
        })
    });
    if constant {
        work.extend(branches);
    }
    work.sort();
    work.dedup();
    let site_of: HashMap<StmtId, usize> =
        sites.iter().enumerate().map(|(i, s)| (s.stmt, i)).collect();
    let mut seen: HashSet<VarId> = work.iter().copied().collect();
    let mut calls = BTreeSet::new();
    while let Some(v) = work.pop() {
        for &d in defs.get(&v).map(Vec::as_slice).unwrap_or(&[]) {
            let Some(stmt) = body.stmts.get(d.index()) else {
                continue;
            };
            let mut push = |op: &Operand| {
                if let Some(w) = op.var() {
                    if seen.insert(w) {
                        work.push(w);
                    }
                }
            };
            match &stmt.kind {
                StmtKind::Assign { value, .. } => {
                    if value.is_heap_read()
                        && (juc || body.held_before.get(d.index()).copied().flatten().is_some())
                    {
                        shared = true;
                    }
                    value.for_each_operand(&mut push);
                }
                StmtKind::Invoke { call, .. } => {
                    if let Some(&i) = site_of.get(&d) {
                        calls.insert(i);
                    }
                    call.receiver.iter().for_each(&mut push);
                    call.args.iter().for_each(&mut push);
                }
                StmtKind::InvokeDynamic { call, .. } => call.args.iter().for_each(&mut push),
                _ => {}
            }
        }
    }
    (shared, calls.into_iter().collect())
}

/// The callees whose summaries a call site uses. Application callees: all
/// of them (the call graph's dispatch). Library callees of a polymorphic
/// site: only the method the receiver's static type resolves to (the one
/// javac names, or a more precise one when the IR knows the receiver's
/// class). The JDK has dozens of implementations of `Map.get` or
/// `Iterator.next`, a few of them synchronized (`Hashtable`, `Provider`);
/// with every live one as a possible target, nearly every collection call
/// would count as acquiring a lock. A `Vector`, `Hashtable` or
/// `StringBuffer` used through its own type is still seen.
fn considered(program: &Program, body: &Body, call: &Call, all: Vec<MethodId>) -> Vec<MethodId> {
    if all.len() <= 1 || matches!(call.kind, CallKind::Static | CallKind::Special) {
        return all;
    }
    let mut out: Vec<MethodId> = all
        .iter()
        .copied()
        .filter(|&c| !is_library(program, c))
        .collect();
    if out.len() < all.len() {
        if let Some(t) = static_target(program, body, call) {
            if is_library(program, t) && all.binary_search(&t).is_ok() {
                out.push(t);
                out.sort();
            }
        }
    }
    out
}

/// The method a virtual or interface call resolves to from the receiver's
/// static type (its IR type when that is a class, else the referenced class).
fn static_target(program: &Program, body: &Body, call: &Call) -> Option<MethodId> {
    let m = &call.method;
    let ir_class = call
        .receiver
        .as_ref()
        .and_then(Operand::var)
        .and_then(|v| body.vars.get(v.index()))
        .and_then(|info| match &info.ty {
            Type::Ref(Some(c)) if !c.starts_with('[') => program.class_by_name(c),
            _ => None,
        });
    let class = match ir_class {
        Some(c) => c,
        None => program.class_by_name(&m.class)?,
    };
    program.resolve_method(class, &m.name, &m.descriptor)
}

/// Adds a lock as the summary policy says; true if the method acquires it
/// (kept or distinct).
fn add_lock(
    locks: &mut BTreeSet<LockKey>,
    distinct: &mut bool,
    key: LockKey,
    library: bool,
) -> bool {
    match keep(&key.path, library) {
        Keep::Yes => {
            locks.insert(key);
            true
        }
        Keep::Distinct => {
            *distinct = true;
            true
        }
        Keep::No => false,
    }
}

fn add_wait(waits: &mut BTreeSet<AccessPath>, path: &AccessPath, library: bool) {
    if keep(path, library) == Keep::Yes {
        waits.insert(path.clone());
    }
}

fn bound(locks: &mut BTreeSet<LockKey>, distinct: &mut bool) {
    if locks.len() > MAX_LOCKS {
        // Keep the first ones (a fixed order); the rest are still acquired.
        while locks.len() > MAX_LOCKS {
            locks.pop_last();
        }
        *distinct = true;
    }
}

/// Every reachable method's summary.
pub struct Summaries {
    methods: Vec<MethodId>,
    pub facts: Vec<Facts>,
    summaries: Vec<Summary>,
}

impl Summaries {
    /// Facts in parallel (collected in method order), then the fixed point.
    pub fn compute(program: &Program, cg: &CallGraph) -> Summaries {
        let methods = cg.reachable.clone();
        let facts: Vec<Facts> = methods.par_iter().map(|&m| facts(program, cg, m)).collect();
        let mut s = Summaries {
            summaries: facts.iter().map(|f| f.own.clone()).collect(),
            methods,
            facts,
        };
        s.fixpoint(cg);
        s
    }

    fn index(&self, m: MethodId) -> Option<usize> {
        self.methods.binary_search(&m).ok()
    }

    pub fn get(&self, m: MethodId) -> Option<&Summary> {
        self.index(m).and_then(|i| self.summaries.get(i))
    }

    pub fn facts_of(&self, m: MethodId) -> Option<&Facts> {
        self.index(m).and_then(|i| self.facts.get(i))
    }

    /// Whether every target of a call may return locked data. One
    /// synchronized implementation among many (a single synchronized
    /// `XYDataset.getXValue` among dozens) does not make every call through
    /// the interface a locked read; a call with one target is judged by it.
    pub fn all_share(&self, site: &CallSite) -> bool {
        !site.callees.is_empty()
            && site
                .callees
                .iter()
                .all(|&c| self.get(c).is_some_and(Summary::shares_result))
    }

    fn fixpoint(&mut self, cg: &CallGraph) {
        let mut queue: BTreeSet<usize> = (0..self.methods.len()).collect();
        while let Some(i) = queue.pop_first() {
            let Some(next) = self.combine(i) else {
                continue;
            };
            let Some(slot) = self.summaries.get_mut(i) else {
                continue;
            };
            if *slot == next {
                continue;
            }
            *slot = next;
            let Some(&m) = self.methods.get(i) else {
                continue;
            };
            for e in cg.callers(m) {
                if e.kind == EdgeKind::TaskLaunch {
                    continue;
                }
                if let Some(j) = self.index(e.caller) {
                    queue.insert(j);
                }
            }
        }
    }

    /// A method's own facts joined with its callees' current summaries:
    /// the waits of every call, and the locks of the calls whose shared
    /// results it returns (the locks of other calls guard their side
    /// effects, not its result).
    fn combine(&self, i: usize) -> Option<Summary> {
        let facts = self.facts.get(i)?;
        let mut out = facts.own.clone();
        let mut locks: BTreeSet<LockKey> = out.locks.iter().cloned().collect();
        let mut waits: BTreeSet<AccessPath> = out.waits.iter().cloned().collect();
        for (idx, site) in facts.sites.iter().enumerate() {
            if site.modelled.is_some() {
                continue;
            }
            let returned = facts.returned_calls.binary_search(&idx).is_ok() && self.all_share(site);
            for &c in &site.callees {
                let Some(callee) = self.get(c) else {
                    continue;
                };
                for w in &callee.waits {
                    if let Translated::Path(path) = translate(w, site.receiver.as_ref(), &site.args)
                    {
                        add_wait(&mut waits, &path, facts.library);
                    }
                }
                if !returned || !callee.shares_result() {
                    continue;
                }
                // Whether the call acquires a lock that is not fresh here
                // (a fresh `StringBuffer`'s `toString()` shares nothing).
                let mut acquires = callee.distinct;
                if callee.distinct && !facts.library {
                    out.distinct = true;
                }
                for key in &callee.locks {
                    let Translated::Path(path) =
                        translate(&key.path, site.receiver.as_ref(), &site.args)
                    else {
                        continue;
                    };
                    acquires = true;
                    let key = LockKey {
                        kind: key.kind,
                        path,
                    };
                    add_lock(&mut locks, &mut out.distinct, key, facts.library);
                }
                if acquires {
                    out.returns_shared = true;
                    if out.witness.is_none() {
                        out.witness = callee.witness;
                    }
                }
            }
        }
        bound(&mut locks, &mut out.distinct);
        out.locks = locks.into_iter().collect();
        out.waits = waits.into_iter().take(MAX_WAITS).collect();
        Some(out)
    }
}
