//! Callee summaries (paper 001 §4, "method calls"): which locks a method
//! acquires, itself or through its callees, in terms its callers can
//! compare with the locks they hold; whether its result can carry data
//! read under those locks (`returns_shared`) or derives from heap state at
//! all (`returns_heap`); which monitors it `wait()`s on; whether it only
//! ever returns its receiver or an argument.
//!
//! The flow analysis uses them at each call: a callee returning locked data
//! and acquiring a lock the caller does not hold makes the result a shared
//! value of a block that has already ended; with every such lock held, the
//! acquisitions are reentrant. A callee reading heap state, called inside
//! a block, reads under that block's lock, as if inlined. Locks are paths
//! built on the callee's `this` and parameters and translated at each call
//! site; a lock that cannot be named in the caller is "distinct": the
//! caller is assumed not to hold it (sound, §5.1). Only the locks that
//! guard a method's result are kept: the others guard side effects.
//!
//! Unknown code (§4–§5.1, [`Unknown`]: a class missing from the class
//! path, a native method outside the JDK, an abstract method that no
//! created class implements, a reflective call, code that cannot be read)
//! is summarised as acquiring a lock no caller holds and returning data
//! read under it, unless [`UnknownCallees::Local`] is asked for. JDK
//! natives are known: they lock nothing unless `synchronized`. A virtual
//! call without a target that resolves to a method with code is summarised
//! by that method ([`Callee::Resolved`]), from its own code.
//!
//! A call's targets are the call graph's (RTA), less the program's
//! overrides that no object its receiver may hold selects (points-to,
//! [`narrow_by_points_to`]) and, on a field whose every store allocates,
//! those the allocated classes do not select.
//!
//! Summaries of every reachable method (application and library) are
//! computed once, as the least fixed point over the call graph (which
//! handles recursion, §4), with a worklist ordered by method id. Each
//! summary is bounded ([`MAX_LOCKS`]) and only grows, so the fixed point is
//! reached after a bounded number of changes per method. Thread starts
//! ([`EdgeKind::TaskLaunch`]) are not calls: the started task runs later,
//! in another thread.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use rayon::prelude::*;

use lockstep_facts::dispatch::Dispatch;
use lockstep_ir::{
    AccessPath, Body, Call, CallKind, ConstValue, Operand, Rvalue, StmtId, StmtKind, Type, VarId,
};
use lockstep_program::{CallGraph, EdgeKind, MethodId, Program};

use super::contributions::{keep_smallest, Kept, PathIds, Version, VersionedSlots};
use super::fields::StableFields;
use super::locks::{self, keep, translate, Actual, Effect, Keep, LockKey, LockKind, Translated};
use super::reservations;
use super::values::{self, ValueTypes};

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

/// Why a callee cannot be analysed: its code is not available to the
/// analysis. Paper 001 §4–§5.1: such a callee is assumed to acquire a lock
/// distinct from every lock of its caller and to return a value read under
/// it ("a shared value belonging to a monitor block of its own").
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Unknown {
    /// The class the call names, or the method in its hierarchy, is not on
    /// the class path.
    MissingClass,
    /// A virtual or interface call without any target in the call graph
    /// to an abstract method: no class the call graph saw created
    /// implements it (implementations of clients or plugins, objects made
    /// by reflection, service loaders, deserialization, native code).
    NoImplementation,
    /// A native method outside the JDK (JNI code of the program or of a
    /// library on the class path).
    Native,
    /// A method with code that could not be read (lowering failed), or an
    /// abstract method reached as a target.
    NoBody,
    /// `Method.invoke`, `MethodHandle.invoke*`: runs whatever method it is
    /// handed.
    Reflective,
}

impl Unknown {
    /// Why, for messages ("`C.m` is ...").
    pub fn reason(self) -> &'static str {
        match self {
            Unknown::MissingClass => "not on the class path",
            Unknown::NoImplementation => "no class the program creates implements it",
            Unknown::Native => "a native method",
            Unknown::NoBody => "a method whose code could not be read",
            Unknown::Reflective => "a reflective call, which may run any method",
        }
    }
}

/// How calls to unknown code ([`Unknown`]) are summarised.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UnknownCallees {
    /// As acquiring a lock distinct from every lock of the caller and
    /// returning a value read under it (paper 001 §4–§5.1: sound, and
    /// noisy: none of the 18 unknown-code findings of the samples in
    /// `docs/stale-value-sample-2.md` was real).
    Distinct,
    /// As taking no lock: the call is an operation over its operands
    /// (unsound: a stale value returned by code the analysis cannot see is
    /// missed). The default since session 13: "unknown" is not evidence
    /// of a stale value, so it is not reported as one.
    #[default]
    Local,
}

/// Where a call to unknown code is: the call statement of a method, or
/// (`stmt: None`) the unknown method itself (a native target).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct UnknownCall {
    pub why: Unknown,
    pub at: Hop,
}

/// What callers need to know about a method.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// Locks it may acquire, in its own terms (sorted, at most [`MAX_LOCKS`]).
    pub locks: Vec<(LockKey, Hop)>,
    /// It may acquire a lock no caller can name (assumed not held).
    pub distinct: bool,
    /// Monitors it may `wait()` on, in its own terms (sorted).
    pub waits: Vec<AccessPath>,
    /// Every `return` returns `this` or a parameter (a builder's `return
    /// this`): the result is a value the caller already had.
    pub returns_arg: bool,
    /// Every `return` returns a new object made by the method (an
    /// allocation, a removed element, a copy): the caller owns it, so it is
    /// neither shared nor heap state.
    pub returns_fresh: bool,
    /// Its result may carry data read under one of its locks: it returns
    /// inside its own `synchronized` region (a synchronized getter, even
    /// one returning constants computed under the lock), or its returned
    /// value derives from a heap read made under its lock or from the
    /// result of another such call. A method that locks only for side
    /// effects (printing to `System.err`, notifying listeners) returns an
    /// unshared value, as the paper's run-time semantics has it.
    pub returns_shared: bool,
    /// Its result may derive from mutable heap state (of its receiver or
    /// arguments, for a library method): called inside a block, it reads
    /// that state under the block's lock, as if inlined (§4).
    pub returns_heap: bool,
    /// One place where it acquires a lock, for messages.
    pub witness: Option<Hop>,
    /// It is unknown code, or returns the result of a call to unknown
    /// code (which makes it `distinct` and `returns_shared`): where, for
    /// messages.
    pub unknown: Option<UnknownCall>,
}

impl Summary {
    pub fn acquires(&self) -> bool {
        self.distinct || !self.locks.is_empty()
    }

    /// A call to it may return a shared value (if its locks are not
    /// already held by the caller).
    pub fn shares_result(&self) -> bool {
        self.returns_shared && !self.returns_arg && !self.returns_fresh && self.acquires()
    }
}

/// A call statement of a method that may matter: it has targets or a
/// modelled lock effect. What the caller passes is computed only when a
/// callee's lock has to be translated ([`actuals`]), which is rare.
#[derive(Debug, Clone)]
pub struct CallSite {
    pub stmt: StmtId,
    /// The targets whose locks count (see [`considered`]): a range of
    /// [`Facts::targets`] (indices into the summaries, sorted).
    callees: (u32, u32),
    /// Every target in the call graph, thread starts excluded (a range of
    /// [`Facts::targets`]): whether the result derives from heap state is
    /// a may-property. Usually the same range as `callees`.
    all: (u32, u32),
    /// Library targets were left out of `callees` with no library method
    /// standing for them ([`considered`]): the call does not share its
    /// result, whatever the program's targets do.
    library_unshared: bool,
    /// The call's lock effect from the models layer (`lock`, `wait`...),
    /// with the lock it concerns. Modelled calls are not summarised
    /// through their callees: the model says what they do.
    pub modelled: Option<(Effect, LockKey)>,
    /// The callee cannot be analysed ([`unknown_callee`]): the call is
    /// taken to acquire a distinct lock and return a value read under it.
    /// Its targets, if any, are not looked at (`callees` is empty).
    pub unknown: Option<Unknown>,
}

/// The receiver and arguments of the call at `stmt`, as the caller names them.
pub fn actuals(body: &Body, stmt: StmtId) -> (Option<Actual>, Vec<Actual>) {
    match body.stmts.get(stmt.index()).map(|s| &s.kind) {
        Some(StmtKind::Invoke { call, .. }) => (
            call.receiver.as_ref().map(|r| Actual::of(body, r)),
            call.args.iter().map(|a| Actual::of(body, a)).collect(),
        ),
        _ => (None, Vec::new()),
    }
}

/// The facts of one method that do not depend on other methods.
#[derive(Debug, Clone)]
pub struct Facts {
    pub library: bool,
    /// What the method does itself (`returns_shared` from its own reads).
    pub own: Summary,
    pub sites: Vec<CallSite>,
    /// The call sites' targets, one arena per method (fewer allocations).
    targets: Vec<u32>,
    /// The body, for the call sites' operands.
    pub body: Option<Arc<Body>>,
    /// Indices into `sites` of the calls whose results flow into a
    /// returned value.
    pub returned_calls: Vec<usize>,
    /// Those of them made under a lock of the method.
    pub locked_calls: Vec<usize>,
    /// When every `return` returns a fresh value or the result of one of
    /// these call sites (indices into `sites`): the method returns fresh
    /// values if the calls' targets all do (a `get` returning what a
    /// helper built). `None` otherwise.
    pub fresh_calls: Option<Vec<usize>>,
}

impl Facts {
    fn range(&self, r: (u32, u32)) -> &[u32] {
        self.targets.get(r.0 as usize..r.1 as usize).unwrap_or(&[])
    }

    /// The targets of a site whose locks count.
    pub fn callees(&self, site: &CallSite) -> &[u32] {
        self.range(site.callees)
    }

    /// Every target of a site.
    pub fn all(&self, site: &CallSite) -> &[u32] {
        self.range(site.all)
    }
}

/// The lock effect of a call from the models layer.
pub fn call_effect(program: &Program, call: &Call) -> Option<Effect> {
    let e = lockstep_program::call_effect(program, &call.method)?;
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
fn view_of(program: &Program, body: &Body, v: VarId) -> Option<(LockKind, AccessPath)> {
    let (kind, call) = view_call(program, body, v, 16)?;
    let recv = call.receiver.as_ref()?;
    Some((kind, lockstep_ir::operand_path(body, recv)))
}

/// If `v` is (a copy of, through at most `bound` copies or casts) the result
/// of a read-write lock's view getter (`readLock()` / `writeLock()`): the
/// side and that call. Copy chains are acyclic; the bound guards against
/// malformed input.
pub(super) fn view_call<'b>(
    program: &Program,
    body: &'b Body,
    mut v: VarId,
    bound: usize,
) -> Option<(LockKind, &'b Call)> {
    for _ in 0..bound {
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
                return Some((kind, call));
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

/// Is `class` an exception (`lockstep_models::ownership`)?
fn is_thread_owned(program: &Program, class: lockstep_program::ClassId) -> bool {
    lockstep_models::is_thread_owned_via(&program.class(class).name, &|a, b| {
        program.is_subtype_name(a, b)
    })
}

fn is_library(program: &Program, m: MethodId) -> bool {
    !program.class(program.method(m).class).is_application
}

/// The facts of method `m`.
#[allow(clippy::too_many_arguments)]
pub fn facts(
    program: &Program,
    cg: &CallGraph,
    dispatch: &Dispatch<'_>,
    stable: &StableFields,
    value_types: &ValueTypes,
    methods: &[MethodId],
    m: MethodId,
    reached: bool,
    unknown_callees: UnknownCallees,
) -> Facts {
    let distinct_unknown = unknown_callees == UnknownCallees::Distinct;
    let library = is_library(program, m);
    let data = program.method(m);
    let mut own = Summary::default();
    let mut locks = BTreeMap::new();
    // A JDK exception's `synchronized` methods (`getCause`) lock the
    // exception, which belongs to the thread that threw or caught it.
    let thread_owned = library && !data.is_static() && is_thread_owned(program, data.class);
    let mut waits = BTreeSet::new();
    // Behind the JDK boundary (`lockstep_models::boundary`) a method is
    // summarised like a JDK native: its flag, not its body, tells what it
    // locks, and its result is a fresh JDK object.
    let summarized = program.is_summarized(m);
    let body = if summarized { None } else { program.body(m) };
    let Some(body) = body else {
        // Native (or abstract) methods: only the `synchronized` flag tells.
        if data.is_synchronized() {
            let path = if data.is_static() {
                AccessPath::ClassLiteral(program.class(data.class).name.clone())
            } else {
                AccessPath::This
            };
            let hop = Hop {
                method: m,
                stmt: None,
            };
            add_lock(
                &mut locks,
                &mut own.distinct,
                LockKey::monitor(path),
                hop,
                library,
            );
            own.witness = Some(hop);
        }
        // A synchronized native returns while holding its monitor.
        own.returns_shared = data.is_synchronized();
        // Code the analysis cannot see: assumed to take a lock of its own
        // and return data read under it (§4, §5.1). JDK natives are known:
        // they run no Java code that could lock what they return.
        let why = if data.is_native() || summarized {
            (!is_jdk_method(program, m)).then_some(Unknown::Native)
        } else {
            Some(Unknown::NoBody)
        };
        if let Some(why) = why.filter(|_| distinct_unknown) {
            own.distinct = true;
            own.returns_shared = true;
            own.returns_heap = true;
            own.unknown = Some(UnknownCall {
                why,
                at: Hop {
                    method: m,
                    stmt: None,
                },
            });
        }
        if thread_owned {
            locks.clear();
            own.witness = None;
        }
        own.locks = locks.into_iter().collect();
        return Facts {
            library,
            own,
            sites: Vec::new(),
            targets: Vec::new(),
            body: None,
            returned_calls: Vec::new(),
            locked_calls: Vec::new(),
            fresh_calls: None,
        };
    };
    for region in &body.monitors {
        // `synchronized (new Object())` guards nothing.
        if region.lock_var.is_some_and(|v| locks::is_fresh(&body, v)) {
            continue;
        }
        let hop = Hop {
            method: m,
            stmt: region.enter,
        };
        let key = LockKey::monitor(region.lock.clone());
        if add_lock(&mut locks, &mut own.distinct, key, hop, library) {
            own.witness.get_or_insert(hop);
        }
    }
    let mut sites = Vec::new();
    let mut targets: Vec<u32> = Vec::new();
    // The method's call edges, sorted by site: walked once alongside the
    // statements instead of searched per call.
    let mut edges = cg.callees(m).iter().peekable();
    let mut returns = 0usize;
    let mut returns_arg = true;
    let mut returns_fresh = true;
    // The calls whose results are returned, while every other return is
    // fresh (`None` once one is neither).
    let mut fresh_via: Option<Vec<StmtId>> = Some(Vec::new());
    for (i, stmt) in body.stmts.iter().enumerate() {
        let sid = StmtId(i as u32);
        match &stmt.kind {
            StmtKind::Invoke { call, result } => {
                let modelled = call_effect(program, call)
                    .and_then(|e| self::modelled(program, &body, call, e));
                match &modelled {
                    Some((Effect::Acquire(_), key)) => {
                        let fresh = call
                            .receiver
                            .as_ref()
                            .and_then(Operand::var)
                            .is_some_and(|v| locks::is_fresh(&body, v));
                        let hop = Hop {
                            method: m,
                            stmt: Some(sid),
                        };
                        if !fresh
                            && add_lock(&mut locks, &mut own.distinct, key.clone(), hop, library)
                        {
                            own.witness.get_or_insert(hop);
                        }
                    }
                    Some((Effect::MonitorWait, key)) => add_wait(&mut waits, &key.path, library),
                    _ => {}
                }
                while edges.next_if(|e| e.site < sid).is_some() {}
                let mut all: Vec<MethodId> = Vec::new();
                while let Some(e) = edges.next_if(|e| e.site == sid) {
                    if e.kind != EdgeKind::TaskLaunch {
                        all.push(e.callee);
                    }
                }
                all.sort();
                all.dedup();
                narrow_to_allocations(program, stable, &body, call, &mut all);
                // Whether the JDK's targets are a polymorphic set
                // (`considered`), judged before points-to drops the
                // program's impossible overrides: it changes nothing for
                // the JDK's.
                let rta_targets = all.len();
                narrow_by_points_to(program, dispatch, m, call, &mut all);
                // Only a result can carry a stale value; the JDK is
                // summarised by its receiver's locks alone (`locks::keep`).
                // In a method the call graph did not reach no call has a
                // target: its calls are not classified.
                let callee = match (&modelled, result) {
                    (None, Some(_)) if !library && reached => callee_of(program, call, &all),
                    _ => Callee::Targets,
                };
                let unknown = match callee {
                    Callee::Unknown(why) => Some(why).filter(|_| distinct_unknown),
                    Callee::Resolved(ts) => {
                        all.extend(ts);
                        None
                    }
                    Callee::Targets => None,
                };
                if all.is_empty() && modelled.is_none() && unknown.is_none() {
                    continue;
                }
                all.sort();
                all.dedup();
                let index = |c: &MethodId| methods.binary_search(c).ok().map(|i| i as u32);
                let mut push = |ms: &[MethodId]| {
                    let start = targets.len() as u32;
                    targets.extend(ms.iter().filter_map(index));
                    (start, targets.len() as u32)
                };
                let (considered, library_unshared) = match unknown {
                    Some(_) => (Vec::new(), false),
                    None => {
                        let polymorphic = rta_targets > 1 || all.len() > 1;
                        considered(program, &body, call, &all, polymorphic)
                    }
                };
                let all_range = push(&all);
                let callees = if considered == all {
                    all_range
                } else {
                    push(&considered)
                };
                sites.push(CallSite {
                    stmt: sid,
                    callees,
                    all: all_range,
                    library_unshared,
                    modelled,
                    unknown,
                });
            }
            StmtKind::Return(Some(op)) => {
                returns += 1;
                let path = lockstep_ir::operand_path(&body, op);
                returns_arg &= matches!(path, AccessPath::This | AccessPath::Param(..));
                let fresh = values::is_fresh_value(program, &body, op);
                returns_fresh &= fresh;
                if !fresh {
                    match (values::defining_call(&body, op), fresh_via.as_mut()) {
                        (Some(call), Some(list)) => list.push(call),
                        _ => fresh_via = None,
                    }
                }
            }
            _ => {}
        }
    }
    own.returns_arg = returns > 0 && returns_arg;
    // Sites are in statement order; a returned call without a site (no
    // target) is not known to be fresh.
    let fresh_calls = fresh_via.filter(|_| returns > 0).and_then(|calls| {
        calls
            .iter()
            .map(|c| sites.binary_search_by_key(c, |s| s.stmt).ok())
            .collect::<Option<Vec<usize>>>()
    });
    let juc = sites
        .iter()
        .any(|s| matches!(s.modelled, Some((Effect::Acquire(_), _))));
    // Without a returned value the slice is empty: the types and
    // reservations it stops at are not worked out (most methods).
    let slice = if returns == 0 {
        Slice::default()
    } else {
        let immune = value_types.immune_vars(program, &body);
        let reserved = reservations::reserved_reads(&body);
        returned_slice(
            program,
            stable,
            &body,
            &sites,
            &Exempt {
                immune: &immune,
                reserved: &reserved,
            },
            juc,
            library,
        )
    };
    own.returns_fresh = returns > 0 && returns_fresh;
    own.returns_shared = slice.locked_read;
    own.returns_heap = slice.heap_read && !own.returns_fresh;
    if thread_owned {
        locks.clear();
        own.witness = None;
    }
    // Whether its own locks guard what it returns is settled with the
    // callees' summaries (`Summaries::combine`).
    bound(&mut locks, &mut own.distinct);
    own.locks = locks.into_iter().collect();
    own.waits = waits.into_iter().take(MAX_WAITS).collect();
    Facts {
        library,
        own,
        sites,
        targets,
        body: Some(body),
        returned_calls: slice.calls,
        locked_calls: slice.locked_calls,
        fresh_calls,
    }
}

/// Drops, of the targets of a virtual call, the program's methods that no
/// object its receiver may hold selects (points-to,
/// `lockstep_facts::dispatch`): RTA sends a `Vector` call to every live
/// class of the program overriding the method (jgroups'
/// `UnmodifiableVector`, whose methods also lock the vector they wrap),
/// whether the receiver can be one or not. The JDK's targets stay: a
/// polymorphic call into the JDK is judged by the method its declared
/// type names ([`considered`]), not by the one class points-to may pin it
/// to (a `Collections.synchronizedMap` whose `mutex` is the map itself,
/// a channel's socket adaptor). Unchanged when points-to cannot say or
/// nothing would be left.
fn narrow_by_points_to(
    program: &Program,
    dispatch: &Dispatch<'_>,
    m: MethodId,
    call: &Call,
    all: &mut Vec<MethodId>,
) {
    if all.len() <= 1 || all.iter().all(|&t| is_library(program, t)) {
        return;
    }
    let Some(receivers) = dispatch.receivers(program, m, call) else {
        return;
    };
    let possible = |t: &MethodId| is_library(program, *t) || receivers.admits(program, *t);
    if all.iter().any(possible) {
        all.retain(possible);
    }
}

/// Keeps, of the targets of a virtual call on a value read from a field
/// whose objects are all allocated by the program (`private final List
/// items = new LinkedList()`), those the allocated classes dispatch to:
/// the call graph dispatches `items.isEmpty()` to every live `List`, a
/// synchronized one of the program included. Unchanged when nothing is
/// known or nothing would be left.
fn narrow_to_allocations(
    program: &Program,
    stable: &StableFields,
    body: &Body,
    call: &Call,
    all: &mut Vec<MethodId>,
) {
    if all.len() <= 1 || matches!(call.kind, CallKind::Static | CallKind::Special) {
        return;
    }
    let Some(classes) = call
        .receiver
        .as_ref()
        .and_then(Operand::var)
        .and_then(|v| super::fields::read_field(body, v))
        .and_then(|f| stable.allocated_classes(program, f))
    else {
        return;
    };
    let m = &call.method;
    let dispatched: BTreeSet<MethodId> = classes
        .iter()
        .filter_map(|c| program.class_by_name(c))
        .filter_map(|c| program.dispatch(c, &m.name, &m.descriptor))
        .collect();
    if all.iter().any(|t| dispatched.contains(t)) {
        all.retain(|t| dispatched.contains(t));
    }
}

/// What the values a method returns derive from.
#[derive(Default)]
struct Slice {
    /// A mutable heap read made under a lock of the method.
    locked_read: bool,
    /// A mutable heap read (library methods: of their receiver or arguments).
    heap_read: bool,
    /// Call sites (indices) whose results flow into the returned values.
    calls: Vec<usize>,
    /// Those made under a lock of the method.
    locked_calls: Vec<usize>,
}

/// The backward data slice of the values a method returns (through every
/// definition of each variable, flow-insensitively): whether it reaches a
/// heap read made under a lock of the method, and which call sites it
/// reaches. "Under a lock" is inside one of the method's regions, or
/// anywhere in a method that takes `java.util.concurrent` locks (whose held
/// ranges are not known without the flow analysis). A read of a stable
/// field counts only when a call under the lock reads through it
/// (`items.removeFirst()` with `items` final).
///
/// When the method returns `int`/`boolean` constants, the operands of its
/// branches are in the slice too, as a cheap stand-in for control
/// dependence: `return indexOf(o) >= 0` compiles to a branch on the call
/// and two constants (`Vector.contains`), and a synchronized `has(x)`
/// returns `true` or `false` from a branch on a locked read. Methods
/// returning data are not tainted by every branch of their body.
fn returned_slice(
    program: &Program,
    stable: &StableFields,
    body: &Body,
    sites: &[CallSite],
    exempt: &Exempt<'_>,
    juc: bool,
    library: bool,
) -> Slice {
    let immune = exempt.immune;
    let mut returned: Vec<VarId> = Vec::new();
    let mut branches: Vec<VarId> = Vec::new();
    let mut returns = false;
    let mut constant = false;
    for stmt in &body.stmts {
        match &stmt.kind {
            StmtKind::Return(Some(op)) => {
                returns = true;
                constant |= matches!(op, Operand::Const(ConstValue::Int(_)));
                returned.extend(op.var());
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
        return Slice::default();
    }
    // Definitions: the IR's unique definition for most variables; the
    // others (webs of several definitions) are collected here.
    let mut multi: HashMap<VarId, Vec<StmtId>> = HashMap::new();
    for (i, stmt) in body.stmts.iter().enumerate() {
        if let Some(v) = stmt.kind.def() {
            if body.unique_def.get(v.index()).copied().flatten().is_none() {
                multi.entry(v).or_default().push(StmtId(i as u32));
            }
        }
    }
    let defs = |v: &VarId| -> Vec<StmtId> {
        match body.unique_def.get(v.index()).copied().flatten() {
            Some(d) => vec![d],
            None => multi.get(v).cloned().unwrap_or_default(),
        }
    };
    // `return a >= b` leaves its two constants in a stack variable.
    constant |= returned.iter().any(|v| {
        defs(v).iter().any(|d| {
            matches!(
                body.stmts.get(d.index()).map(|s| &s.kind),
                Some(StmtKind::Assign {
                    value: Rvalue::Use(Operand::Const(ConstValue::Int(_))),
                    ..
                })
            )
        })
    });
    let mut work: Vec<(VarId, bool)> = returned.into_iter().map(|v| (v, false)).collect();
    if constant {
        work.extend(branches.into_iter().map(|v| (v, false)));
    }
    // Sites are in statement order.
    let site_of = |d: StmtId| sites.binary_search_by_key(&d, |s| s.stmt).ok();
    let locked = |d: StmtId| juc || body.held_before.get(d.index()).copied().flatten().is_some();
    // Visited (variable, flag) pairs: bit 1 without, bit 2 with the flag.
    let mut seen: Vec<u8> = vec![0; body.vars.len()];
    // A value of an immutable type (issue 14, point 7) carries no shared
    // data, and neither does what is computed from it (`getData().length()`
    // of a `String`, `Class.newInstance()`): the slice stops there.
    let mut visit = |v: VarId, flag: bool| -> bool {
        if immune.get(v.index()).copied().unwrap_or(false) {
            return false;
        }
        let bit = if flag { 2 } else { 1 };
        match seen.get_mut(v.index()) {
            Some(b) if *b & bit == 0 => {
                *b |= bit;
                true
            }
            _ => false,
        }
    };
    work.retain(|&(v, f)| visit(v, f));
    let mut calls = BTreeSet::new();
    let mut locked_calls = BTreeSet::new();
    let mut shared = false;
    let mut heap = false;
    // A library's reads count as its result's data only through its
    // receiver or arguments; its statics are caches and lookup tables.
    let rooted = |op: &Operand| {
        !library
            || op.var().is_some_and(|v| {
                matches!(
                    locks::root(&lockstep_ir::access_path(body, v)),
                    locks::Root::This | locks::Root::Param
                )
            })
    };
    // The flag: the value flows into a call made under the lock.
    while let Some((v, via_call)) = work.pop() {
        for d in defs(&v) {
            let Some(stmt) = body.stmts.get(d.index()) else {
                continue;
            };
            let mut push = |op: &Operand, flag: bool| {
                if let Some(w) = op.var() {
                    if visit(w, flag) {
                        work.push((w, flag));
                    }
                }
            };
            match &stmt.kind {
                // A reservation (`return next++`, a bit claimed in a free
                // set): the value names this thread's own update.
                _ if exempt.reserved.get(d.index()).copied().unwrap_or(false) => {}
                StmtKind::Assign { value, .. } => {
                    if value.is_heap_read() {
                        let mutable = match value {
                            Rvalue::FieldLoad { field, .. } | Rvalue::StaticLoad(field) => {
                                !stable.is_stable(program, field)
                            }
                            _ => true,
                        };
                        if locked(d) {
                            shared |= mutable || via_call;
                        }
                        heap |= mutable
                            && match value {
                                Rvalue::FieldLoad { object, .. } => rooted(object),
                                Rvalue::ArrayLoad { array, .. } => rooted(array),
                                _ => !library,
                            };
                    }
                    value.for_each_operand(|op| push(op, via_call));
                }
                // A removed element, a read, a copy: the method hands over
                // what the call gave it, whatever lock the call took.
                StmtKind::Invoke { call, .. } if values::owned_call(program, body, call) => {}
                StmtKind::Invoke { call, .. } => {
                    if let Some(i) = site_of(d) {
                        calls.insert(i);
                        if locked(d) {
                            locked_calls.insert(i);
                        }
                    }
                    let flag = via_call || locked(d);
                    call.receiver.iter().for_each(|op| push(op, flag));
                    call.args.iter().for_each(|op| push(op, flag));
                }
                StmtKind::InvokeDynamic { call, .. } => {
                    call.args.iter().for_each(|op| push(op, via_call))
                }
                _ => {}
            }
        }
    }
    Slice {
        locked_read: shared,
        heap_read: heap,
        calls: calls.into_iter().collect(),
        locked_calls: locked_calls.into_iter().collect(),
    }
}

/// Variables and statements the returned slice stops at: variables of
/// immutable types, and reserved reads (`reservations`).
struct Exempt<'a> {
    immune: &'a [bool],
    reserved: &'a [bool],
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
///
/// When library targets are left out and no library method stands for
/// them (the call names an interface, `List.isEmpty`), the second value is
/// true: the JDK's implementations are targets that share nothing, so a
/// synchronized class of the program among the targets (jgroups'
/// `UnmodifiableVector`, a `Vector` that `List.isEmpty` dispatches to for
/// every `LinkedList`) does not make the call a locked read on its own.
///
/// `polymorphic`: the call graph gave the site several targets, before
/// points-to dropped the program's overrides no receiver selects
/// ([`narrow_by_points_to`]); a `FileChannel.size()` left with the JDK's
/// one live implementation is still judged by `FileChannel.size`.
fn considered(
    program: &Program,
    body: &Body,
    call: &Call,
    all: &[MethodId],
    polymorphic: bool,
) -> (Vec<MethodId>, bool) {
    if !polymorphic || matches!(call.kind, CallKind::Static | CallKind::Special) {
        return (all.to_vec(), false);
    }
    let mut out: Vec<MethodId> = all
        .iter()
        .copied()
        .filter(|&c| !is_library(program, c))
        .collect();
    if out.len() == all.len() {
        return (out, false);
    }
    match static_target(program, body, call) {
        Some(t) if is_library(program, t) && all.binary_search(&t).is_ok() => {
            out.push(t);
            out.sort();
            (out, false)
        }
        _ => (out, true),
    }
}

fn is_jdk_method(program: &Program, m: MethodId) -> bool {
    lockstep_models::is_jdk_class(&program.class(program.method(m).class).name)
}

/// Is the class part of the JDK's API: `java.*`, `javax.*`..., and the
/// standard interfaces the JDK's modules export under other names (DOM,
/// SAX, GSS-API)?
fn is_jdk_api(class: &str) -> bool {
    const OTHER: &[&str] = &["org/w3c/dom/", "org/xml/sax/", "org/ietf/jgss/"];
    lockstep_models::is_jdk_class(class) || OTHER.iter().any(|p| class.starts_with(p))
}

/// What the analysis can know about the callee of a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Callee {
    /// Its targets in the call graph are the callees (possibly none: a JDK
    /// native, an annotation's element, a JDK interface's provider).
    Targets,
    /// A virtual or interface call the call graph dispatched nowhere,
    /// because it saw no receiver object created (`Method` and `Field`
    /// objects come from the JVM, DOM nodes from a parser found by
    /// reflection, datasets from the library's clients), to methods with
    /// code: the method the static type resolves to, or the program's
    /// implementations of an abstract one. That code is what runs, and is
    /// summarised on its own (sorted, without duplicates).
    Resolved(Vec<MethodId>),
    Unknown(Unknown),
}

/// What the callee of a call of an application method is, given its
/// call-graph targets (paper 001 §4: "if the effect of a called method is
/// unknown, e.g. when a method is native"):
///
/// - reflective calls (`Method.invoke`, `MethodHandle.invoke`,
///   `invokeExact`, `invokeWithArguments`) are unknown whatever their
///   targets: they run a method the call graph does not know;
/// - a call with targets is judged by its targets' summaries (a native
///   target outside the JDK, or one without code, is unknown there:
///   [`facts`]);
/// - without a target: the class is not on the class path or the method
///   does not resolve ([`Unknown::MissingClass`]); it resolves to a JDK
///   native (known: no JDK native runs Java code that could lock what it
///   returns, and the `synchronized` ones are summarised as such), to a
///   native elsewhere ([`Unknown::Native`]), to an element of an
///   annotation type (known: constants), to an abstract method that no
///   class the call graph saw created implements
///   ([`Unknown::NoImplementation`]), or to a method with code
///   ([`Callee::Resolved`]).
pub fn callee_of(program: &Program, call: &Call, targets: &[MethodId]) -> Callee {
    let m = &call.method;
    if lockstep_models::is_reflective_call(&m.class, &m.name) {
        return Callee::Unknown(Unknown::Reflective);
    }
    if !targets.is_empty() {
        return Callee::Targets;
    }
    let Some(t) = resolves(program, call) else {
        return Callee::Unknown(Unknown::MissingClass);
    };
    if matches!(call.kind, CallKind::Static | CallKind::Special) {
        // A static or special call that resolves has its target, unless it
        // is a native the call graph does not enter.
        let native = program.method(t).is_native() && !is_jdk_method(program, t);
        return if native {
            Callee::Unknown(Unknown::Native)
        } else {
            Callee::Targets
        };
    }
    let data = program.method(t);
    let class = program.class(data.class);
    if data.is_native() {
        return if is_jdk_method(program, t) {
            Callee::Targets
        } else {
            Callee::Unknown(Unknown::Native)
        };
    }
    if class.access_flags() & lockstep_classfile::access::ANNOTATION != 0 {
        return Callee::Targets;
    }
    if data.is_abstract() {
        // An interface of the summarised JDK (`PublicKey`, `ParameterizedType`)
        // is implemented by JDK objects the boundary makes opaque: JDK code.
        if program.is_summarized(t) {
            return Callee::Targets;
        }
        // Classes of the program implement it, though the call graph saw
        // none created (made by clients, by reflection, by deserialization):
        // their code is what runs.
        let implementations = implementations(program, data.class, &m.name, &m.descriptor);
        if !implementations.is_empty() {
            return Callee::Resolved(implementations);
        }
        // A JDK interface no class of the program implements is implemented
        // by the JDK's providers, made by its factories and service lookups
        // (DOM, XML transformers, JMX, JSSE, scripting), or by a driver
        // implementing the JDK's contract (JDBC): summarised as JDK code,
        // whose only counted locks are its receiver's, and the receiver is
        // the caller's provider object (a known limit: a driver's
        // `synchronized` methods are not seen).
        if is_jdk_api(&program.class(data.class).name) {
            return Callee::Targets;
        }
        return Callee::Unknown(Unknown::NoImplementation);
    }
    Callee::Resolved(vec![t])
}

/// The methods with code that a call of `name desc` declared abstract in
/// `declaring` dispatches to for the program's concrete subclasses
/// (sorted, without duplicates).
fn implementations(
    program: &Program,
    declaring: lockstep_program::ClassId,
    name: &str,
    desc: &str,
) -> Vec<MethodId> {
    use lockstep_classfile::access::{ABSTRACT, INTERFACE};
    let mut out: Vec<MethodId> = program
        .application_classes()
        .filter(|&c| program.class(c).access_flags() & (ABSTRACT | INTERFACE) == 0)
        .filter(|&c| c != declaring && program.is_subtype(c, declaring))
        .filter_map(|c| program.dispatch(c, name, desc))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// The method a call resolves to (JVMS §5.4.3.3–4), from the class it names.
fn resolves(program: &Program, call: &Call) -> Option<MethodId> {
    let m = &call.method;
    let class = if m.class.starts_with('[') {
        program.class_by_name("java/lang/Object")
    } else {
        program.class_by_name(&m.class)
    }?;
    if call.interface_ref {
        program.resolve_interface_method(class, &m.name, &m.descriptor)
    } else {
        program.resolve_method(class, &m.name, &m.descriptor)
    }
}

/// The methods with code that calls of application method `m` resolve to
/// without a call-graph target ([`Callee::Resolved`]).
fn resolved_targets(program: &Program, cg: &CallGraph, m: MethodId) -> Vec<MethodId> {
    let Some(body) = program.body(m) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut edges = cg.callees(m).iter().peekable();
    for (i, stmt) in body.stmts.iter().enumerate() {
        let sid = StmtId(i as u32);
        let StmtKind::Invoke {
            call,
            result: Some(_),
        } = &stmt.kind
        else {
            continue;
        };
        while edges.next_if(|e| e.site < sid).is_some() {}
        let mut any = false;
        while edges.next_if(|e| e.site == sid).is_some() {
            any = true;
        }
        if any || call_effect(program, call).is_some() {
            continue;
        }
        if let Callee::Resolved(ts) = callee_of(program, call, &[]) {
            out.extend(ts);
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
    locks: &mut BTreeMap<LockKey, Hop>,
    distinct: &mut bool,
    key: LockKey,
    hop: Hop,
    library: bool,
) -> bool {
    match keep(&key.path, library) {
        Keep::Yes => {
            locks.entry(key).or_insert(hop);
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

fn bound(locks: &mut BTreeMap<LockKey, Hop>, distinct: &mut bool) {
    if locks.len() > MAX_LOCKS {
        // Keep the first ones (a fixed order); the rest are still acquired.
        while locks.len() > MAX_LOCKS {
            locks.pop_last();
        }
        *distinct = true;
    }
}

/// The operands of the call at `stmt`, computed on first need.
fn operands_at<'o>(
    memo: &'o mut Option<(Option<Actual>, Vec<Actual>)>,
    body: &Body,
    stmt: StmtId,
) -> &'o (Option<Actual>, Vec<Actual>) {
    memo.get_or_insert_with(|| actuals(body, stmt))
}

/// A callee's waits in the terms of a call site, those a caller's summary
/// keeps ([`add_wait`]): the first [`MAX_WAITS`] in path order, sorted.
fn translated_waits(
    callee: &Summary,
    receiver: Option<&Actual>,
    args: &[Actual],
    library: bool,
    paths: &mut PathIds,
) -> Vec<u32> {
    let mut kept = Vec::new();
    for w in &callee.waits {
        if let Translated::Path(path) = translate(w, receiver, args) {
            if keep(&path, library) == Keep::Yes {
                let id = paths.intern(&path);
                keep_smallest(&mut kept, id, MAX_WAITS, |a, b| paths.order(a, b));
            }
        }
    }
    kept
}

/// A callee's locks in the terms of a call site, with where they are
/// acquired, in the callee's order; locks of objects fresh at the call are
/// left out (they protect nothing).
fn translated_locks(
    callee: &Summary,
    receiver: Option<&Actual>,
    args: &[Actual],
) -> Vec<(LockKey, Hop)> {
    callee
        .locks
        .iter()
        .filter_map(|(key, hop)| match translate(&key.path, receiver, args) {
            Translated::Path(path) => Some((
                LockKey {
                    kind: key.kind,
                    path,
                },
                *hop,
            )),
            Translated::Fresh => None,
        })
        .collect()
}

/// For each method (index): every caller, and the callers whose own
/// summary depends on more than its waits ([`Summaries::combine`] reads a
/// callee's locks, sharing, heap and freshness flags only at the call
/// sites in `returned_calls`, `locked_calls` and `fresh_calls`). Sorted,
/// without duplicates.
fn callers_of(facts: &[Facts], n: usize) -> (Vec<Vec<u32>>, Vec<Vec<u32>>) {
    let mut callers: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut result_callers: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (i, f) in facts.iter().enumerate() {
        for (idx, site) in f.sites.iter().enumerate() {
            let uses_result = f.returned_calls.binary_search(&idx).is_ok()
                || f.locked_calls.binary_search(&idx).is_ok()
                || f.fresh_calls.as_ref().is_some_and(|c| c.contains(&idx));
            for &c in f.all(site) {
                if let Some(list) = callers.get_mut(c as usize) {
                    list.push(i as u32);
                }
                if uses_result {
                    if let Some(list) = result_callers.get_mut(c as usize) {
                        list.push(i as u32);
                    }
                }
            }
        }
    }
    for list in callers.iter_mut().chain(result_callers.iter_mut()) {
        list.sort_unstable();
        list.dedup();
    }
    (callers, result_callers)
}

/// Every reachable method's summary.
pub struct Summaries {
    methods: Vec<MethodId>,
    pub facts: Vec<Facts>,
    summaries: Vec<Summary>,
    /// For each method (index), the methods whose summaries depend on it
    /// through its waits (every caller).
    callers: Vec<Vec<u32>>,
    /// For each method (index), the callers that also use what it returns
    /// (the call's result flows into their result, or is made under their
    /// lock): only they depend on the rest of its summary.
    result_callers: Vec<Vec<u32>>,
    /// How many times a summary was recomputed, for `--stats`.
    pub combines: usize,
}

impl Summaries {
    /// Facts in parallel (collected in method order), then the fixed point.
    pub fn compute(
        program: &Program,
        cg: &CallGraph,
        dispatch: &Dispatch<'_>,
        stable: &StableFields,
        value_types: &ValueTypes,
        unknown_callees: UnknownCallees,
    ) -> Summaries {
        // The reachable methods, and the methods with code that calls
        // without a call-graph target resolve to ([`Callee::Resolved`]),
        // summarised by their own code (no call of theirs has a target).
        let mut extra: Vec<MethodId> = cg
            .reachable
            .par_iter()
            .filter(|&&m| !is_library(program, m))
            .flat_map_iter(|&m| resolved_targets(program, cg, m))
            .filter(|m| !cg.is_reachable(*m))
            .collect();
        extra.sort_unstable();
        extra.dedup();
        let mut methods = cg.reachable.clone();
        methods.extend(extra);
        methods.sort_unstable();
        let facts: Vec<Facts> = methods
            .par_iter()
            .map(|&m| {
                let reached = cg.is_reachable(m);
                facts(
                    program,
                    cg,
                    dispatch,
                    stable,
                    value_types,
                    &methods,
                    m,
                    reached,
                    unknown_callees,
                )
            })
            .collect();
        let (callers, result_callers) = callers_of(&facts, methods.len());
        let mut s = Summaries {
            summaries: facts.iter().map(|f| f.own.clone()).collect(),
            methods,
            facts,
            callers,
            result_callers,
            combines: 0,
        };
        s.fixpoint();
        s
    }

    /// How many methods are summarised.
    pub fn len(&self) -> usize {
        self.methods.len()
    }

    pub fn is_empty(&self) -> bool {
        self.methods.is_empty()
    }

    fn index(&self, m: MethodId) -> Option<usize> {
        self.methods.binary_search(&m).ok()
    }

    pub fn get(&self, m: MethodId) -> Option<&Summary> {
        self.index(m).and_then(|i| self.summaries.get(i))
    }

    /// The summary of the method with index `i`.
    pub fn at(&self, i: u32) -> Option<&Summary> {
        self.summaries.get(i as usize)
    }

    /// The method with index `i`.
    pub fn method_at(&self, i: u32) -> Option<MethodId> {
        self.methods.get(i as usize).copied()
    }

    pub fn facts_of(&self, m: MethodId) -> Option<&Facts> {
        self.index(m).and_then(|i| self.facts.get(i))
    }

    /// Whether every target of a call may return locked data. One
    /// synchronized implementation among many (a single synchronized
    /// `XYDataset.getXValue` among dozens) does not make every call through
    /// the interface a locked read; a call with one target is judged by it.
    pub fn all_share(&self, facts: &Facts, site: &CallSite) -> bool {
        if site.unknown.is_some() {
            return true;
        }
        let callees = facts.callees(site);
        !site.library_unshared
            && !callees.is_empty()
            && callees
                .iter()
                .all(|&c| self.at(c).is_some_and(Summary::shares_result))
    }

    /// Whether every `return` of the method returns a fresh value or the
    /// result of a call whose targets all return fresh values (currently):
    /// a method returning what its helper built hands it over too.
    fn returns_fresh_via_calls(&self, facts: &Facts) -> bool {
        let Some(calls) = &facts.fresh_calls else {
            return false;
        };
        !calls.is_empty()
            && calls.iter().all(|&idx| {
                facts.sites.get(idx).is_some_and(|site| {
                    let targets = facts.all(site);
                    site.unknown.is_none()
                        && site.modelled.is_none()
                        && !targets.is_empty()
                        && targets
                            .iter()
                            .all(|&c| self.at(c).is_some_and(|s| s.returns_fresh))
                })
            })
    }

    /// Whether some target of a call may return heap state.
    pub fn any_heap(&self, facts: &Facts, site: &CallSite) -> bool {
        site.unknown.is_some()
            || site.modelled.is_none()
                && facts
                    .all(site)
                    .iter()
                    .any(|&c| self.at(c).is_some_and(|s| s.returns_heap))
    }

    /// The methods in post-order of the call graph (callees before their
    /// callers, apart from cycles), by an iterative depth-first search from
    /// each method in index order: a fixed order, so the result is
    /// deterministic.
    fn post_order(&self) -> Vec<u32> {
        let n = self.methods.len();
        let mut visited = vec![false; n];
        let mut order = Vec::with_capacity(n);
        // (method, next target position) frames.
        let mut stack: Vec<(u32, usize)> = Vec::new();
        for root in 0..n as u32 {
            if visited.get(root as usize).copied().unwrap_or(true) {
                continue;
            }
            if let Some(v) = visited.get_mut(root as usize) {
                *v = true;
            }
            stack.push((root, 0));
            while let Some((m, pos)) = stack.last_mut() {
                let targets = self
                    .facts
                    .get(*m as usize)
                    .map(|f| f.targets.as_slice())
                    .unwrap_or(&[]);
                match targets.get(*pos) {
                    Some(&c) => {
                        *pos += 1;
                        if let Some(v) = visited.get_mut(c as usize) {
                            if !*v {
                                *v = true;
                                stack.push((c, 0));
                            }
                        }
                    }
                    None => {
                        order.push(*m);
                        stack.pop();
                    }
                }
            }
        }
        order
    }

    /// The least fixed point: summaries only grow (bounded), so a method is
    /// recomputed only when one of its callees changed. The worklist is
    /// ordered by post-order rank, so most methods are computed after their
    /// callees and only once.
    fn fixpoint(&mut self) {
        let order = self.post_order();
        let mut rank = vec![0u32; self.methods.len()];
        for (r, &m) in order.iter().enumerate() {
            if let Some(slot) = rank.get_mut(m as usize) {
                *slot = r as u32;
            }
        }
        let mut queue: BTreeSet<u32> = (0..order.len() as u32).collect();
        // Each summary's version: a counter of changes, bumped on every
        // change, so a kept translation is reused only while its callee's
        // summary is the one it was made from.
        let mut versions: Vec<Version> = vec![0; self.methods.len()];
        let mut changes: Version = 0;
        let mut kept = Kept {
            slots: VersionedSlots::new(self.methods.len()),
            paths: PathIds::default(),
        };
        while let Some(r) = queue.pop_first() {
            let Some(&m) = order.get(r as usize) else {
                continue;
            };
            let i = m as usize;
            let Some(next) = self.combine(i, &versions, &mut kept) else {
                continue;
            };
            self.combines += 1;
            let Some(slot) = self.summaries.get_mut(i) else {
                continue;
            };
            if *slot == next {
                continue;
            }
            // Callers that do not use the result see only the waits.
            let dependents = if slot.waits != next.waits {
                &self.callers
            } else {
                &self.result_callers
            };
            *slot = next;
            changes += 1;
            if let Some(v) = versions.get_mut(i) {
                *v = changes;
            }
            if let Some(list) = dependents.get(i) {
                queue.extend(list.iter().filter_map(|&j| rank.get(j as usize).copied()));
            }
        }
    }

    /// A method's own facts joined with its callees' current summaries:
    /// the waits of every call, and the locks of the calls whose shared
    /// results it returns (the locks of other calls guard their side
    /// effects, not its result).
    fn combine(&self, i: usize, versions: &[Version], kept: &mut Kept) -> Option<Summary> {
        let Kept { slots, paths } = kept;
        let facts = self.facts.get(i)?;
        let mut out = facts.own.clone();
        if !out.returns_fresh && self.returns_fresh_via_calls(facts) {
            out.returns_fresh = true;
            out.returns_heap = false;
        }
        let mut locks: BTreeMap<LockKey, Hop> = out.locks.iter().cloned().collect();
        // The first `MAX_WAITS` waits in path order, all a summary keeps
        // (a summary's own waits are sorted and distinct already).
        let mut waits: Vec<u32> = out.waits.iter().map(|w| paths.intern(w)).collect();
        for (idx, site) in facts.sites.iter().enumerate() {
            if site.modelled.is_some() {
                continue;
            }
            let returned =
                facts.returned_calls.binary_search(&idx).is_ok() && self.all_share(facts, site);
            if let (Some(why), true) = (site.unknown, returned) {
                // Returns the result of unknown code: a distinct lock.
                out.distinct = true;
                out.returns_shared = true;
                if let Some(&method) = self.methods.get(i) {
                    out.unknown.get_or_insert(UnknownCall {
                        why,
                        at: Hop {
                            method,
                            stmt: Some(site.stmt),
                        },
                    });
                }
                continue;
            }
            // Computed on first need: most calls have nothing to translate.
            let mut operands: Option<(Option<Actual>, Vec<Actual>)> = None;
            let first = site.callees.0;
            for (k, &c) in facts.callees(site).iter().enumerate() {
                let Some(callee) = self.at(c) else {
                    continue;
                };
                let needs = !callee.waits.is_empty() || (returned && callee.shares_result());
                let Some(body) = facts.body.as_deref().filter(|_| needs) else {
                    continue;
                };
                let version = versions.get(c as usize).copied().unwrap_or(0);
                let Some(t) = slots.slot(i, first + k as u32, version) else {
                    continue;
                };
                let kept_waits = t.waits.get_or_insert_with(|| {
                    let (receiver, args) = operands_at(&mut operands, body, site.stmt);
                    translated_waits(callee, receiver.as_ref(), args, facts.library, paths)
                });
                for &w in kept_waits.iter() {
                    keep_smallest(&mut waits, w, MAX_WAITS, |a, b| paths.order(a, b));
                }
                if !returned || !callee.shares_result() {
                    continue;
                }
                // Whether the call acquires a lock that is not fresh here
                // (a fresh `StringBuffer`'s `toString()` shares nothing).
                if callee.distinct && !facts.library {
                    out.distinct = true;
                }
                let kept_locks = t.locks.get_or_insert_with(|| {
                    let (receiver, args) = operands_at(&mut operands, body, site.stmt);
                    translated_locks(callee, receiver.as_ref(), args)
                });
                let acquires = callee.distinct || !kept_locks.is_empty();
                for (key, hop) in kept_locks.iter() {
                    add_lock(
                        &mut locks,
                        &mut out.distinct,
                        key.clone(),
                        *hop,
                        facts.library,
                    );
                }
                if acquires {
                    out.returns_shared = true;
                    if out.witness.is_none() {
                        out.witness = callee.witness;
                    }
                    if out.unknown.is_none() && callee.distinct && !facts.library {
                        out.unknown = callee.unknown;
                    }
                }
            }
        }
        let any_heap = |idx: &usize| {
            facts
                .sites
                .get(*idx)
                .is_some_and(|s| self.any_heap(facts, s))
        };
        out.returns_heap |= !out.returns_fresh && facts.returned_calls.iter().any(any_heap);
        // A call under its own lock reading heap state returns locked data
        // (a private getter called inside a synchronized method).
        if !out.returns_shared && facts.locked_calls.iter().any(any_heap) {
            out.returns_shared = true;
        }
        if !out.returns_shared {
            // Its locks guard side effects only, not what it returns.
            locks.clear();
            out.distinct = false;
            out.witness = None;
            out.unknown = None;
        }
        bound(&mut locks, &mut out.distinct);
        out.locks = locks.into_iter().collect();
        out.waits = waits.iter().map(|&w| paths.path(w).clone()).collect();
        Some(out)
    }
}
