//! Lock-order and monitor facts: every lock acquisition of reached code
//! with the locks held just before it, every `wait`/`notify` (and
//! `Condition.await`/`signal`) of application code with the locks held
//! there, and every blocking JDK call made while holding a lock — each
//! with the thread roots reaching it and the thread starts it is ordered
//! with, so a rule can ask whether two of them may run at the same time
//! ([`crate::threads::concurrent_roots`]).
//!
//! Locks are the abstract lock objects of [`crate::locks`] (must-alias:
//! singleton objects and classes); what is held is the entry lockset of
//! the method context (an intersection over every path from a root)
//! joined with what the body itself must hold before the statement. JDK
//! code contributes its `synchronized` methods only, as the entry locksets
//! do. `tryLock` acquires nothing here: it never blocks.

use std::collections::BTreeSet;
use std::sync::Arc;

use lockstep_ir::{AccessPath, Body, Operand, StmtId, StmtKind, VarId};
use lockstep_models::{BlockingKind, LockEffect};
use lockstep_pointsto::{ObjectId, PointsToResult};
use lockstep_program::{MethodId, Program};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::analysis::RaceFacts;
use crate::field_states::{self, St, Val};
use crate::guard_flags::Flag;
use crate::guarded_reach::{Chain, GuardedReach};
use crate::local_locks::{self, BodyLocks, LocalLock};
use crate::lock_identity::Owners;
use crate::lock_summary;
use crate::locks::{union, HeldLock, LockObject, LockResolver};
use crate::param_guards::Guards;

/// Where a statement runs: its node, method and statement, the roots
/// reaching it and the thread starts it is ordered with.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Site {
    pub node: u32,
    pub method: MethodId,
    /// `None`: the entry of a `synchronized` method.
    pub stmt: Option<StmtId>,
    pub roots: Arc<[u32]>,
    pub ordered: Arc<[u32]>,
}

/// One lock acquisition in one method context.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Acquisition {
    pub site: Site,
    pub lock: HeldLock,
    /// How the code names the lock (`this`, `this.lock`, `Foo.class`).
    pub named: AccessPath,
    /// The locks held just before (sorted).
    pub held: Vec<HeldLock>,
    /// Empty when the statement itself acquires the lock; else the site is
    /// a call and this is the path to the acquisition in a callee: each
    /// method with the statement it calls on at, the last with the
    /// acquisition (`None`: entry of a `synchronized` method).
    pub via: Arc<[(MethodId, Option<StmtId>)]>,
    /// The lock is the same abstract object as a lock the body holds but
    /// named by another path, one of them a parameter: two run-time
    /// objects of one allocation site may be locked here one inside the
    /// other (`this` then `other`), in either order by two threads.
    pub distinct_alias: bool,
    /// The acquired lock, or a lock the body holds there, is named by a
    /// parameter of the method: a caller chooses which objects meet here.
    pub through_param: bool,
    /// The objects owning the acquired lock, when it is read from an
    /// owned field ([`crate::lock_identity`]): it is the lock of another
    /// acquisition of the same abstract lock only if their owners meet.
    pub owners: Option<Owners>,
    /// The locks the body itself holds (the rest of `held` is held on
    /// entry, taken by callers), each with its owners when it is read from
    /// an owned field.
    pub held_owners: Vec<(HeldLock, Option<Owners>)>,
    /// The held locks (sorted) this acquisition descends from in creation
    /// order ([`crate::age_order`]): each is owned by an object `P` the
    /// body names by `this` or a parameter, and the acquired lock is owned
    /// by an object read from a collection of `P` that only ever receives
    /// objects younger than `P`.
    pub descends_from: Vec<LockObject>,
    /// What every path from the method's entry to the site tests about
    /// its parameters for the lock to be taken there
    /// ([`crate::param_guards`]); a chain of calls into the context must
    /// pass them ([`crate::guarded_reach`]).
    pub guards: Guards,
    /// With guards: a shortest chain of calls from a thread's entry into
    /// the context that passes them without holding the lock already
    /// (each caller with its call site, the entry's first; empty: the
    /// context is an entry).
    pub entry_chain: Option<Arc<[(u32, StmtId)]>>,
}

impl Acquisition {
    /// Re-acquiring a lock already held does not block (reentrancy).
    pub fn reentrant(&self) -> bool {
        self.held.iter().any(|h| h.object == self.lock.object)
    }

    /// How the body holds lock `h`: `Some(owners)` when it takes the lock
    /// itself (owners `None`: not an owned field), `None` when only its
    /// callers do (their call sites see the owners).
    pub fn owners_of_held(&self, h: &LockObject) -> Option<Option<&Owners>> {
        self.held_owners
            .iter()
            .find(|(l, _)| l.object == *h)
            .map(|(_, o)| o.as_ref())
    }
}

/// A lock the body itself holds: the lock, how the body names it, and its
/// owners when it is read from an owned field.
struct LocalHeld {
    lock: HeldLock,
    named: AccessPath,
    owners: Option<Owners>,
}

/// The locks the body holds with their owners, for [`Acquisition::held_owners`].
fn held_owners(local: &[LocalHeld]) -> Vec<(HeldLock, Option<Owners>)> {
    local
        .iter()
        .map(|l| (l.lock.clone(), l.owners.clone()))
        .collect()
}

/// Is `lock`, named `named`, the object of a held lock the body names by
/// another path, with one of the two names a parameter of the method
/// (evidence of two run-time objects; `this` and `this.parent` are not:
/// such chains rarely loop)?
fn aliased_by_another_name(local: &[LocalHeld], lock: &HeldLock, named: &AccessPath) -> bool {
    local.iter().any(
        |LocalHeld {
             lock: h, named: p, ..
         }| {
            h.object == lock.object
                && !matches!(named, AccessPath::Unknown | AccessPath::Local(..))
                && p != named
                && (is_param(p) || is_param(named))
        },
    )
}

/// The lock the body holds under the entry path `path` (back links
/// followed, see [`crate::back_links`]) by which a callee's acquisition
/// `c` is named at the call, in the same mode.
fn reentered<'l>(
    local: &'l [LocalHeld],
    c: &lock_summary::CalleeLock,
    path: Option<&AccessPath>,
) -> Option<&'l LocalHeld> {
    let path = path?;
    local
        .iter()
        .find(|l| l.named == *path && l.lock.mode == c.lock.mode)
}

/// Is a callee's lock an owned field the acquiring method reads from its
/// own `this`?
fn own_field_of_callee(c: &lock_summary::CalleeLock) -> bool {
    !c.caller_named
        && c.owners.is_some()
        && matches!(&c.named, AccessPath::Field(b, _) if **b == AccessPath::This)
}

/// Is the path a parameter of the method (not `this`)?
fn is_param(p: &AccessPath) -> bool {
    matches!(p, AccessPath::Param(..))
}

/// Does the body hold a lock it names by a parameter?
fn held_by_param(local: &[LocalHeld]) -> bool {
    local.iter().any(|l| is_param(&l.named))
}

/// A lock every caller of a method context holds on entry, named by a
/// stable path of the body ([`crate::lock_paths::ParamLock`]).
struct EntryPath {
    path: AccessPath,
    mode: lockstep_models::LockMode,
    /// A monitor (`synchronized`), not a `java.util.concurrent` lock.
    monitor: bool,
}

/// What a monitor or condition operation does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MonitorOpKind {
    /// `Object.wait`; `timed`: with a timeout.
    Wait {
        timed: bool,
    },
    Notify,
    NotifyAll,
    /// `Condition.await*`.
    Await {
        timed: bool,
    },
    /// `Condition.signal`.
    Signal,
    SignalAll,
}

impl MonitorOpKind {
    pub fn is_wait(self) -> bool {
        matches!(
            self,
            MonitorOpKind::Wait { .. } | MonitorOpKind::Await { .. }
        )
    }

    /// `Object.wait/notify/notifyAll` (rather than a `Condition`).
    pub fn on_monitor(self) -> bool {
        matches!(
            self,
            MonitorOpKind::Wait { .. } | MonitorOpKind::Notify | MonitorOpKind::NotifyAll
        )
    }
}

/// A `wait`/`notify` or `await`/`signal` of application code in one context.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct MonitorOp {
    pub site: Site,
    pub kind: MonitorOpKind,
    /// The objects the receiver may be in this context.
    pub objects: Vec<ObjectId>,
    /// The receiver as one lock, when it denotes one object.
    pub lock: Option<HeldLock>,
    /// The body holds a monitor it names like the receiver (`synchronized
    /// (x) { x.wait(); }`, or a `synchronized` method waiting on `this`).
    pub held_by_name: bool,
    /// The locks held there (sorted).
    pub held: Vec<HeldLock>,
    /// The statement is on a CFG cycle of its method, or the method is
    /// not but every call into this context is on one of its caller's.
    pub in_loop: bool,
    /// Some lock, resolved to an object or not, may be held here on some
    /// path: by the body before the statement or by a caller on some path
    /// into the context. `false` means no lock at all can be held.
    pub maybe_locked: bool,
}

/// A blocking JDK call made while holding at least one lock.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct BlockingCall {
    pub site: Site,
    pub kind: BlockingKind,
    pub held: Vec<HeldLock>,
}

/// The lock-order and monitor facts of one check, each list sorted and
/// free of duplicates (contexts with equal facts are kept once).
#[derive(Debug, Default)]
pub struct LockOrderFacts {
    pub acquisitions: Vec<Acquisition>,
    pub monitor_ops: Vec<MonitorOp>,
    pub blocking: Vec<BlockingCall>,
    /// The parameter guards of the application bodies, for chains that
    /// respect an acquisition's [`Acquisition::guards`].
    pub guards: Arc<crate::lock_summary::MethodGuards>,
}

/// Computes the facts over every reached node of the race facts' graph.
pub fn compute(program: &Program, pt: &PointsToResult, races: &RaceFacts) -> LockOrderFacts {
    let mut resolver = LockResolver::new(program, pt);
    let summaries = lock_summary::compute(program, races, &mut resolver);
    let gates = crate::harness_gates::gate_entry_locks(program, pt, races, &mut resolver);
    let guards = summaries.method_guards();
    let mut c = Collector {
        reach: GuardedReach::new(program, &races.graph, guards.clone()),
        guarded: FxHashMap::default(),
        program,
        pt,
        races,
        resolver,
        summaries,
        body_locks: FxHashMap::default(),
        acquisitions: BTreeSet::new(),
        monitor_ops: BTreeSet::new(),
        blocking: BTreeSet::new(),
        maybe_locked: Vec::new(),
        callers: races.graph.callers(),
        gates,
        back_links: crate::back_links::BackLinks::default(),
        linked: FxHashMap::default(),
        age: crate::age_order::AgeOrder::default(),
        states: field_states::States::new(program, call_edges(&races.graph)),
        entry_vals: FxHashMap::default(),
        refuted: FxHashMap::default(),
        callee_objects: FxHashMap::default(),
        entries: root_entries(races),
    };
    c.maybe_locked = c.callers_may_lock();
    for node in 0..races.graph.len() as u32 {
        c.node(node);
    }
    LockOrderFacts {
        acquisitions: c.acquisitions.into_iter().collect(),
        monitor_ops: c.monitor_ops.into_iter().collect(),
        blocking: c.blocking.into_iter().collect(),
        guards,
    }
}

/// The orders that a flag set once inside the other order keeps apart
/// ([`crate::guard_flags`]), over the acquisitions of `order`. Only the
/// `deadlock` rule reads them, so they are a fact of their own rather than
/// part of [`compute`], which the default rules need too.
pub fn guards(
    program: &Program,
    races: &RaceFacts,
    order: &LockOrderFacts,
) -> crate::guard_flags::GuardFacts {
    let calls = OnceCalls {
        program,
        races,
        callers: races.graph.callers(),
        entries: root_entries(races),
    };
    crate::guard_flags::compute(program, &order.acquisitions, |once, index, node, s| {
        calls.once_at(once, index, (node, s), 0)
    })
}

/// Every call edge of the graph by method: (caller, call statement, callee).
fn call_edges(
    graph: &crate::threads::Graph,
) -> impl Iterator<Item = (MethodId, StmtId, MethodId)> + '_ {
    graph
        .callees
        .iter()
        .enumerate()
        .flat_map(move |(n, callees)| {
            let m = graph.nodes[n].method;
            callees
                .iter()
                .map(move |&(s, c)| (m, s, graph.nodes[c as usize].method))
        })
}

/// Callers followed up when a field's value on entry is computed.
const MAX_ENTRY_DEPTH: u32 = 3;

/// Method contexts one search for a path that takes a lock under a
/// field's value ([`Collector::refuted_by`]) may enter.
const MAX_STATE_SEARCH: usize = 2_000;

/// One search of [`Collector::refuted_by`]: the field, the lock, the
/// answers so far per (context, value on entry), and the contexts left.
struct StateSearch<'s> {
    field: &'s Flag,
    lock: &'s LockObject,
    memo: FxHashMap<(u32, Option<Val>), bool>,
    budget: usize,
}

/// Calls followed up from an acquisition to find its one-shot test.
const MAX_ONCE_DEPTH: u32 = 3;

/// The nodes that thread roots enter (called from outside the program).
fn root_entries(races: &RaceFacts) -> FxHashSet<u32> {
    races
        .roots
        .iter()
        .flat_map(|r| r.entries.iter().copied())
        .collect()
}

/// What following a one-shot test up the in-program calls reads.
struct OnceCalls<'a> {
    program: &'a Program,
    races: &'a RaceFacts,
    /// Per node: the (caller node, call site) pairs calling it.
    callers: Vec<Vec<(u32, StmtId)>>,
    /// Nodes that thread roots enter.
    entries: FxHashSet<u32>,
}

impl OnceCalls<'_> {
    /// Does statement `s` of `node` (`None`: its entry) run only past a
    /// one-shot test ([`crate::guard_flags::Once`]), its own or, when it
    /// has none, at every in-program call into the node (a few calls up)?
    /// A node a root enters from outside has no such caller.
    fn once_at(
        &self,
        once: &mut crate::guard_flags::Once,
        index: &crate::guard_flags::Index,
        (node, s): (u32, Option<StmtId>),
        depth: u32,
    ) -> bool {
        let Some(mc) = self.races.graph.nodes.get(node as usize) else {
            return false;
        };
        if s.is_some_and(|s| once.local(self.program, index, mc.method, s)) {
            return true;
        }
        if depth >= MAX_ONCE_DEPTH || self.entries.contains(&node) {
            return false;
        }
        let callers = self
            .callers
            .get(node as usize)
            .map_or(&[][..], Vec::as_slice);
        !callers.is_empty()
            && callers
                .iter()
                .all(|&(n, site)| self.once_at(once, index, (n, Some(site)), depth + 1))
    }
}

/// Does the caller hold `lock` at its call `site`: on entry (every path
/// into it), or by a lock its body takes before the call?
fn holds_at(
    program: &Program,
    races: &RaceFacts,
    resolver: &mut LockResolver<'_>,
    body_locks: &mut FxHashMap<MethodId, Arc<BodyLocks>>,
    (caller, site): (u32, StmtId),
    lock: &LockObject,
) -> bool {
    let on_entry = races
        .entry_locks
        .get(caller as usize)
        .and_then(Option::as_ref)
        .is_some_and(|held| held.iter().any(|h| h.object == *lock));
    if on_entry {
        return true;
    }
    let node = races.graph.nodes[caller as usize];
    let Some(body) = program.body(node.method) else {
        return false;
    };
    let locks = body_locks
        .entry(node.method)
        .or_insert_with(|| Arc::new(local_locks::analyse(program, &body)))
        .clone();
    let local = locks.at(site);
    !local.is_empty()
        && resolver
            .resolve(node.method, node.context, &body, local)
            .iter()
            .any(|h| h.object == *lock)
}

struct Collector<'a> {
    program: &'a Program,
    pt: &'a PointsToResult,
    races: &'a RaceFacts,
    resolver: LockResolver<'a>,
    summaries: lock_summary::Summaries,
    body_locks: FxHashMap<MethodId, Arc<BodyLocks>>,
    acquisitions: BTreeSet<Acquisition>,
    monitor_ops: BTreeSet<MonitorOp>,
    blocking: BTreeSet<BlockingCall>,
    /// Per node: some path into it may hold a lock (see [`MonitorOp::maybe_locked`]).
    maybe_locked: Vec<bool>,
    /// Per node: the (caller node, call site) pairs calling it.
    callers: Vec<Vec<(u32, StmtId)>>,
    /// Per node: gate locks the harness is taken to hold on entry, for
    /// acquisitions only ([`crate::harness_gates`]).
    gates: Vec<Vec<HeldLock>>,
    /// Nodes that thread roots enter (called from outside the program).
    entries: FxHashSet<u32>,
    back_links: crate::back_links::BackLinks,
    /// Per node: the paths of `this` whose monitors every caller holds
    /// through a back link ([`crate::back_links`]; cached).
    linked: FxHashMap<u32, Arc<[AccessPath]>>,
    /// Collections that receive only objects younger than their owner.
    age: crate::age_order::AgeOrder,
    /// Field states along witnesses ([`crate::field_states`]).
    states: field_states::States<'a>,
    /// Per node and field: the field's value on entry, met over the
    /// callers (cached).
    entry_vals: FxHashMap<(u32, Flag), Option<Val>>,
    /// Per call site, lock and field: [`Collector::refuted_by`]'s answer
    /// (cached: each callee context a call takes the lock through asks
    /// the same question, and the answer depends on nothing else).
    refuted: FxHashMap<(u32, StmtId, LockObject, Flag), bool>,
    /// Per call edge: the lock objects the callee context may take, seen
    /// from the call (cached for [`Collector::callee_locks`]).
    callee_objects: FxHashMap<(u32, StmtId, u32), Arc<[LockObject]>>,
    /// Chains into a context that respect parameter guards.
    reach: GuardedReach<'a>,
    /// Per node, guards and lock: a chain from a thread's entry that
    /// passes them without holding the lock ([`Collector::guarded_chain`];
    /// cached; `None`: no such chain).
    guarded: FxHashMap<(u32, Guards, LockObject), Option<GuardedEntry>>,
}

/// How a guarded acquisition is entered: a shortest chain (`None`: the
/// search was cut short, and a chain is taken to exist), and the roots
/// some chain comes from (`None`: every root reaching the context).
#[derive(Clone)]
struct GuardedEntry {
    chain: Option<Arc<[(u32, StmtId)]>>,
    roots: Option<Arc<[u32]>>,
}

/// One node being scanned.
struct Here<'b> {
    node: u32,
    method: MethodId,
    context: lockstep_pointsto::ContextId,
    body: &'b Body,
    entry: &'b [HeldLock],
    locks: &'b BodyLocks,
    /// The locks every caller holds on entry by stable path of the body
    /// (back links followed), with their modes.
    entry_paths: &'b [EntryPath],
}

impl Collector<'_> {
    fn site(&self, node: u32, method: MethodId, stmt: Option<StmtId>) -> Site {
        let roots = self
            .races
            .reach
            .get(node as usize)
            .cloned()
            .unwrap_or_default();
        let ordered = self.races.ordered_roots(node, stmt.unwrap_or(StmtId(0)));
        Site {
            node,
            method,
            stmt,
            roots: Arc::from(roots),
            ordered: Arc::from(ordered),
        }
    }

    fn node(&mut self, node: u32) {
        let Some(Some(entry)) = self.races.entry_locks.get(node as usize) else {
            return;
        };
        let entry = entry.clone();
        let gated = self.gated_entry(node, &entry);
        let mc = self.races.graph.nodes[node as usize];
        let data = self.program.method(mc.method);
        let Some(body) = self.program.body(mc.method) else {
            return;
        };
        if data.is_synchronized() && !self.races.owned.receiver_at_entry(node) {
            let locks =
                self.resolver
                    .resolve(mc.method, mc.context, &body, &[LocalLock::SyncMethod]);
            let named = LocalLock::SyncMethod.path(&body);
            for lock in locks {
                self.acquisitions.insert(Acquisition {
                    site: self.site(node, mc.method, None),
                    lock,
                    named: named.clone(),
                    held: gated.to_vec(),
                    via: Arc::from([]),
                    distinct_alias: false,
                    through_param: false,
                    owners: None,
                    held_owners: Vec::new(),
                    descends_from: Vec::new(),
                    guards: Arc::from([]),
                    entry_chain: None,
                });
            }
        }
        if !self.program.is_application(data.class) {
            return;
        }
        let locks = self.body_locks(mc.method, &body);
        let entry_paths = self.entry_paths(node, &body);
        let here = Here {
            node,
            method: mc.method,
            context: mc.context,
            body: &body,
            entry: &entry,
            locks: &locks,
            entry_paths: &entry_paths,
        };
        for (i, stmt) in body.stmts.iter().enumerate() {
            let s = StmtId(i as u32);
            match &stmt.kind {
                StmtKind::MonitorEnter(op) => {
                    let lock = LocalLock::Monitor {
                        var: op.var(),
                        path: lockstep_ir::operand_path(&body, op),
                    };
                    self.acquire(&here, s, lock);
                }
                StmtKind::Invoke { call, .. } => {
                    self.call(&here, s, call);
                    let named = self.named_local(&here, s);
                    self.through_calls((node, mc.method, &gated), s, &named, &entry_paths);
                }
                _ => {}
            }
        }
    }

    /// The locks the body itself holds before `s`, each resolved alone
    /// with the path the body names it by and its owners.
    fn named_local(&mut self, here: &Here<'_>, s: StmtId) -> Vec<LocalHeld> {
        let mut out = Vec::new();
        for l in here.locks.at(s) {
            let resolved = self.resolver.resolve(
                here.method,
                here.context,
                here.body,
                std::slice::from_ref(l),
            );
            if let [one] = resolved.as_slice() {
                if lock_summary::plausible(self.program, self.pt, l, one) {
                    out.push(LocalHeld {
                        lock: one.clone(),
                        named: l.path(here.body),
                        owners: self
                            .resolver
                            .owners(here.method, here.context, here.body, l),
                    });
                }
            }
        }
        out
    }

    /// What the callees of call site `s` may acquire while the body holds
    /// `local` (nothing to add when it holds none: the callers' call sites
    /// see those orders with the locks they hold).
    fn through_calls(
        &mut self,
        (node, method, entry): (u32, MethodId, &[HeldLock]),
        s: StmtId,
        local: &[LocalHeld],
        entry_paths: &[EntryPath],
    ) {
        if local.is_empty() || !lock_summary::precise_site(self.races, node, s) {
            return;
        }
        let linked = self.linked(node);
        let own: Vec<HeldLock> = local.iter().map(|l| l.lock.clone()).collect();
        let held = union(entry, &own);
        let callees: Vec<u32> = self.races.graph.callees_at(node, s).collect();
        let receiver = self.receiver_descents(method, s, local);
        for callee in callees {
            let found = self.summaries.at_call(
                self.program,
                self.races,
                &mut self.resolver,
                (node, s, callee),
            );
            for mut c in found {
                // Every caller holds this lock on entry, named by the same
                // path through a back link: a re-entry.
                if self.linked_reentry(&linked, c.caller_path.as_ref()) {
                    continue;
                }
                // The callee takes, by the path of a lock this body holds,
                // that very lock: a re-entry (see `lock_summary`).
                let path = c
                    .caller_path
                    .as_ref()
                    .map(|p| self.back_links.normalize(&mut self.resolver, p));
                // Every caller holds that lock on entry, by the same path
                // of this body: a re-entry (the objects of a context that
                // merges several owners would not show it).
                if entry_paths
                    .iter()
                    .any(|e| Some(&e.path) == path.as_ref() && e.mode == c.lock.mode)
                {
                    continue;
                }
                let reentry = reentered(local, &c, path.as_ref());
                let distinct_alias = reentry.is_none()
                    && c.caller_named
                    && aliased_by_another_name(local, &c.lock, &c.named);
                if let Some(held) = reentry {
                    c.lock = held.lock.clone();
                    c.owners = held.owners.clone();
                }
                let through_param = c.caller_named && is_param(&c.named) || held_by_param(local);
                let descends_from = if !receiver.is_empty()
                    && own_field_of_callee(&c)
                    && self.walks_down(&c.path)
                {
                    receiver.clone()
                } else {
                    Vec::new()
                };
                let Some(entered) = self.guarded_chain(node, &c.guards, &c.lock.object) else {
                    continue;
                };
                let acq = Acquisition {
                    site: self.guarded_site(self.site(node, method, Some(s)), &entered),
                    lock: c.lock,
                    named: c.named,
                    held: held.clone(),
                    via: c.path,
                    distinct_alias,
                    through_param,
                    owners: c.owners,
                    held_owners: held_owners(local),
                    descends_from,
                    guards: c.guards,
                    entry_chain: entered.chain,
                };
                // The path needs a field value its thread cannot have
                // there ([`crate::field_states`]).
                if self.state_refuted(&acq) {
                    continue;
                }
                self.acquisitions.insert(acq);
            }
        }
    }

    /// The held locks a lock owned by the receiver of call `s` descends
    /// from ([`Acquisition::descends_from`]).
    fn receiver_descents(
        &mut self,
        method: MethodId,
        s: StmtId,
        local: &[LocalHeld],
    ) -> Vec<LockObject> {
        let Some(body) = self.program.body(method) else {
            return Vec::new();
        };
        let receiver = match body.stmts.get(s.index()).map(|st| &st.kind) {
            Some(StmtKind::Invoke { call, .. }) => call.receiver.as_ref().and_then(Operand::var),
            _ => None,
        };
        match receiver {
            Some(r) => self.descents(&body, r, local),
            None => Vec::new(),
        }
    }

    /// Does every call of a callee path (all but its last step, the
    /// acquisition) go to `this` or to an element of an ordered collection
    /// of `this`? Then the acquiring method's `this` is the call's
    /// receiver or younger than it.
    fn walks_down(&mut self, path: &[(MethodId, Option<StmtId>)]) -> bool {
        let Some((_, calls)) = path.split_last() else {
            return false;
        };
        calls.iter().all(|&(m, s)| {
            let Some(body) = self.program.body(m) else {
                return false;
            };
            let receiver =
                s.and_then(|s| body.stmts.get(s.index()))
                    .and_then(|st| match &st.kind {
                        StmtKind::Invoke { call, .. } => {
                            call.receiver.as_ref().and_then(Operand::var)
                        }
                        _ => None,
                    });
            let Some(r) = receiver else {
                return false;
            };
            lockstep_ir::access_path(&body, r) == AccessPath::This
                || self.age.descends(self.program, &body, r) == Some(AccessPath::This)
        })
    }

    /// The held locks the lock in `v`, read from a field of an object,
    /// descends from: that object is an element of an ordered collection.
    fn lock_owner_descents(
        &mut self,
        body: &Body,
        v: VarId,
        local: &[LocalHeld],
    ) -> Vec<LockObject> {
        let base = match crate::util::unique_def_of(body, crate::age_order::root(body, v)) {
            Some(StmtKind::Assign {
                value: lockstep_ir::Rvalue::FieldLoad { object, .. },
                ..
            }) => object.var(),
            _ => None,
        };
        match base {
            Some(b) => self.descents(body, b, local),
            None => Vec::new(),
        }
    }

    /// The held locks owned by the object `P` when `owner` is an element
    /// of an ordered collection of `P` ([`crate::age_order`]).
    fn descents(&mut self, body: &Body, owner: VarId, local: &[LocalHeld]) -> Vec<LockObject> {
        let Some(p) = self.age.descends(self.program, body, owner) else {
            return Vec::new();
        };
        let mut out: Vec<LockObject> = local
            .iter()
            .filter(|l| l.owners.is_some())
            .filter(|l| matches!(&l.named, AccessPath::Field(b, _) if **b == p))
            .map(|l| l.lock.object.clone())
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// The locks every caller of `node` holds on its parameters
    /// ([`RaceFacts::entry_params`]), as paths of `body` with back links
    /// followed, and their modes.
    fn entry_paths(&mut self, node: u32, body: &Body) -> Vec<EntryPath> {
        let Some(Some(locks)) = self.races.entry_params.get(node as usize) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for l in locks.iter() {
            let Some(&root) = body.params.get(usize::from(l.param)) else {
                continue;
            };
            let mut path = lockstep_ir::access_path(body, root);
            for (_, name) in l.fields.iter() {
                path = AccessPath::Field(Arc::new(path), name.clone());
            }
            let path = self.back_links.normalize(&mut self.resolver, &path);
            out.push(EntryPath {
                path,
                mode: l.mode,
                monitor: l.monitor,
            });
        }
        out
    }

    /// The entry lockset of a node for its acquisitions: with the gate
    /// locks of [`crate::harness_gates`].
    fn gated_entry(&self, node: u32, entry: &[HeldLock]) -> Vec<HeldLock> {
        match self.gates.get(node as usize) {
            Some(g) if !g.is_empty() => union(entry, g),
            _ => entry.to_vec(),
        }
    }

    /// The paths of `this` whose monitors every caller of `node` holds on
    /// entry through a back link (empty when a caller holds none, for a
    /// root's entry, or for a node nothing calls).
    fn linked(&mut self, node: u32) -> Arc<[AccessPath]> {
        if let Some(v) = self.linked.get(&node) {
            return v.clone();
        }
        let mut out: Option<Vec<AccessPath>> = None;
        // A root enters the node from outside, holding nothing.
        if self.entries.contains(&node) {
            out = Some(Vec::new());
        }
        let edges = self.callers.get(node as usize).cloned().unwrap_or_default();
        for (caller, site) in edges {
            let m = self.races.graph.nodes[caller as usize].method;
            let here = match self.program.body(m) {
                Some(body) if self.program.is_application(self.program.method(m).class) => {
                    let locks = self.body_locks(m, &body);
                    self.back_links
                        .held_paths(&mut self.resolver, &body, &locks, site)
                }
                _ => Vec::new(),
            };
            out = Some(match out {
                None => here,
                Some(prev) => prev.into_iter().filter(|p| here.contains(p)).collect(),
            });
            if out.as_ref().is_some_and(Vec::is_empty) {
                break;
            }
        }
        let v: Arc<[AccessPath]> = out.unwrap_or_default().into();
        self.linked.insert(node, v.clone());
        v
    }

    /// Is `path` (a callee's lock as this body names it) one of the
    /// `linked` paths once back links are followed (`this.rsvc.vmFactory.rsvc`
    /// is `this.rsvc`)?
    fn linked_reentry(&mut self, linked: &[AccessPath], path: Option<&AccessPath>) -> bool {
        match path {
            Some(p) if !linked.is_empty() => {
                let p = self.back_links.normalize(&mut self.resolver, p);
                linked.contains(&p)
            }
            _ => false,
        }
    }

    /// The locks a body must hold before each statement (cached).
    fn body_locks(&mut self, m: MethodId, body: &Body) -> Arc<BodyLocks> {
        let program = self.program;
        self.body_locks
            .entry(m)
            .or_insert_with(|| Arc::new(local_locks::analyse(program, body)))
            .clone()
    }

    /// Per node: may some path from a root into it hold a lock? A may
    /// analysis over the call graph (a boolean per node, set once), with
    /// locks counted whether or not they resolve to one object.
    fn callers_may_lock(&mut self) -> Vec<bool> {
        let graph = &self.races.graph;
        let mut may = vec![false; graph.len()];
        let mut work: Vec<u32> = Vec::new();
        for (n, callees) in graph.callees.iter().enumerate() {
            if callees.is_empty() || !matches!(self.races.entry_locks.get(n), Some(Some(_))) {
                continue;
            }
            let m = graph.nodes[n].method;
            let data = self.program.method(m);
            let app = self.program.is_application(data.class);
            let locks = match (app, self.program.body(m)) {
                (true, Some(body)) => Some(self.body_locks(m, &body)),
                _ => None,
            };
            for &(site, c) in callees {
                let here = data.is_synchronized()
                    || locks.as_ref().is_some_and(|l| !l.at(site).is_empty());
                if here && !may[c as usize] {
                    may[c as usize] = true;
                    work.push(c);
                }
            }
        }
        while let Some(n) = work.pop() {
            for &(_, c) in &graph.callees[n as usize] {
                if !may[c as usize] {
                    may[c as usize] = true;
                    work.push(c);
                }
            }
        }
        may
    }

    /// The locks held before statement `s` (entry ∪ the body's own).
    fn held(&mut self, here: &Here<'_>, s: StmtId) -> Vec<HeldLock> {
        let local = here.locks.at(s);
        if local.is_empty() {
            return here.entry.to_vec();
        }
        let resolved = self
            .resolver
            .resolve(here.method, here.context, here.body, local);
        union(here.entry, &resolved)
    }

    /// Does every path from the call of the witness `a` to the lock need a
    /// field tested on the witness's path to hold, at a test, a value its
    /// thread cannot have there ([`crate::field_states`])? Every callee
    /// that may take the lock is searched, not only the witness's path.
    fn state_refuted(&mut self, a: &Acquisition) -> bool {
        let Some(s0) = a.site.stmt else {
            return false;
        };
        let mut fields: Vec<Flag> = Vec::new();
        for m in std::iter::once(a.site.method).chain(a.via.iter().map(|&(m, _)| m)) {
            fields.extend(self.states.tested(m).iter().cloned());
        }
        if fields.is_empty() {
            return false;
        }
        fields.sort();
        fields.dedup();
        fields.iter().any(|f| self.refuted_by(a, s0, f))
    }

    /// Is statement `s` of `method` (in context `node`) run on no path,
    /// given the values of the int-like fields it tests on entry
    /// ([`crate::field_states`])?
    fn unreached_in_state(&mut self, node: u32, method: MethodId, s: StmtId) -> bool {
        let fields = self.states.tested(method);
        fields.iter().any(|f| {
            let entry = self.entry_value(node, f, 0);
            self.states
                .before(method, entry, f)
                .is_some_and(|b| state_at(&b, s).is_none())
        })
    }

    /// [`Self::state_refuted`] for one field: no path from the call at
    /// `s0` into its callees that the field's value allows takes the lock
    /// (every callee, every context, within [`MAX_STATE_SEARCH`] contexts;
    /// past it, the lock is taken to be reached).
    fn refuted_by(&mut self, a: &Acquisition, s0: StmtId, f: &Flag) -> bool {
        let key = (a.site.node, s0, a.lock.object.clone(), f.clone());
        if let Some(&known) = self.refuted.get(&key) {
            return known;
        }
        let refuted = self.search_refutes(a, s0, f);
        self.refuted.insert(key, refuted);
        refuted
    }

    /// [`Self::refuted_by`], uncached.
    fn search_refutes(&mut self, a: &Acquisition, s0: StmtId, f: &Flag) -> bool {
        let entry = self.entry_value(a.site.node, f, 0);
        let Some(before) = self.states.before(a.site.method, entry, f) else {
            return false;
        };
        let Some(st) = state_at(&before, s0) else {
            return true;
        };
        let mut search = StateSearch {
            field: f,
            lock: &a.lock.object,
            memo: FxHashMap::default(),
            budget: MAX_STATE_SEARCH,
        };
        !self.call_may_lock(&mut search, (a.site.node, s0), st.val)
    }

    /// May a callee of the call at `(node, s)`, entered with the value
    /// `val` of the searched field, take the searched lock?
    fn call_may_lock(
        &mut self,
        search: &mut StateSearch<'_>,
        (node, s): (u32, StmtId),
        val: Option<Val>,
    ) -> bool {
        let callees: Vec<u32> = self.races.graph.callees_at(node, s).collect();
        for c in callees {
            if self.callee_locks((node, s, c), search.lock)
                && self.context_may_lock(search, (node, s), c, val)
            {
                return true;
            }
        }
        false
    }

    /// May context `c`, called at `from` and entered with `val`, take the
    /// searched lock on a path the value allows (itself or through its
    /// callees)?
    fn context_may_lock(
        &mut self,
        search: &mut StateSearch<'_>,
        from: (u32, StmtId),
        c: u32,
        val: Option<Val>,
    ) -> bool {
        if let Some(&known) = search.memo.get(&(c, val)) {
            return known;
        }
        if search.budget == 0 {
            return true;
        }
        search.budget -= 1;
        // A cycle back into a context being searched adds no new path.
        search.memo.insert((c, val), false);
        let found = self.body_may_lock(search, from, c, val);
        search.memo.insert((c, val), found);
        found
    }

    fn body_may_lock(
        &mut self,
        search: &mut StateSearch<'_>,
        from: (u32, StmtId),
        c: u32,
        val: Option<Val>,
    ) -> bool {
        let node = &self.races.graph.nodes[c as usize];
        let (m, context) = (node.method, node.context);
        let (Some(body), Some(before)) = (
            self.program.body(m),
            self.states.before(m, val, search.field),
        ) else {
            return true;
        };
        let entered = before.iter().any(|st| st.as_ref().is_some_and(St::reached));
        if entered
            && self.program.method(m).is_synchronized()
            && self.takes(
                search.lock,
                from,
                (m, context, &body),
                LocalLock::SyncMethod,
            )
        {
            return true;
        }
        for (i, (stmt, st)) in body.stmts.iter().zip(before.iter()).enumerate() {
            let Some(st) = st.as_ref().filter(|st| st.reached()) else {
                continue;
            };
            let at = StmtId(i as u32);
            if let Some(l) = lock_summary::stmt_lock(self.program, &body, at) {
                if self.takes(search.lock, from, (m, context, &body), l) {
                    return true;
                }
            }
            if matches!(stmt.kind, StmtKind::Invoke { .. })
                && self.call_may_lock(search, (c, at), st.val)
            {
                return true;
            }
        }
        false
    }

    /// May `l`, taken in `m` (context `context`), be `lock`? One of the
    /// objects it may be there; a lock of a parameter (`this` included)
    /// that resolves to nothing there is the argument of the call at
    /// `from` (unknown: it may be).
    fn takes(
        &mut self,
        lock: &LockObject,
        from: (u32, StmtId),
        (m, context, body): (MethodId, lockstep_pointsto::ContextId, &Body),
        l: LocalLock,
    ) -> bool {
        let resolved = self
            .resolver
            .resolve(m, context, body, std::slice::from_ref(&l));
        if !resolved.is_empty() {
            return resolved.iter().any(|h| h.object == *lock);
        }
        let Some(k) = lock_summary::param_of(body, &l) else {
            return false;
        };
        let (LockObject::Object(o), Some(arg)) = (lock, self.argument_var(from, k, body.is_static))
        else {
            return true;
        };
        let caller = self.races.graph.nodes[from.0 as usize];
        let pts = self.resolver.pt.var_in(caller.method, caller.context, arg);
        pts.is_empty() || pts.contains(*o)
    }

    /// The variable the call at `(node, s)` passes as parameter `k` (the
    /// receiver is 0 for an instance callee).
    fn argument_var(&self, (node, s): (u32, StmtId), k: u16, callee_static: bool) -> Option<VarId> {
        let caller = self.races.graph.nodes[node as usize].method;
        let body = self.program.body(caller)?;
        let StmtKind::Invoke { call, .. } = &body.stmts.get(s.index())?.kind else {
            return None;
        };
        let op = match (callee_static, k) {
            (false, 0) => call.receiver.as_ref()?,
            (false, k) => call.args.get(usize::from(k) - 1)?,
            (true, k) => call.args.get(usize::from(k))?,
        };
        match op {
            Operand::Var(v) => Some(*v),
            Operand::Const(_) => None,
        }
    }

    /// The value of `f` on entry to `node`, met over its callers' call
    /// sites (unknown for a root's entry, a node nothing calls, or past
    /// [`MAX_ENTRY_DEPTH`] callers up); `None`: no caller reaches the call.
    fn entry_value(&mut self, node: u32, f: &Flag, depth: u32) -> Option<Val> {
        let key = (node, f.clone());
        if let Some(v) = self.entry_vals.get(&key) {
            return *v;
        }
        let callers = self.callers.get(node as usize).cloned().unwrap_or_default();
        let v = if depth >= MAX_ENTRY_DEPTH || self.entries.contains(&node) || callers.is_empty() {
            Some(Val::Top)
        } else {
            let mut out: Option<Val> = None;
            for (cn, site) in callers {
                let cm = self.races.graph.nodes[cn as usize].method;
                let e = self.entry_value(cn, f, depth + 1);
                let v = match self.states.before(cm, e, f) {
                    None => Some(Val::Top),
                    Some(b) => state_at(&b, site).and_then(|st| st.val),
                };
                out = match (out, v) {
                    (None, v) => v,
                    (o, None) => o,
                    (Some(x), Some(y)) => Some(if x == y { x } else { Val::Top }),
                };
                if out == Some(Val::Top) {
                    break;
                }
            }
            out
        };
        self.entry_vals.insert(key, v);
        v
    }

    /// Does the callee context `c`, called at `(node, s)`, acquire `lock`?
    fn callee_locks(&mut self, (node, s, c): (u32, StmtId, u32), lock: &LockObject) -> bool {
        if let Some(objects) = self.callee_objects.get(&(node, s, c)) {
            return objects.binary_search(lock).is_ok();
        }
        let objects: Arc<[LockObject]> = self
            .summaries
            .objects_at_call(self.program, self.races, &mut self.resolver, (node, s, c))
            .into();
        let found = objects.binary_search(lock).is_ok();
        self.callee_objects.insert((node, s, c), objects);
        found
    }

    /// How threads enter `node` to take `lock` behind `guards`: a chain
    /// of calls from a thread's entry that passes the guards (no call on
    /// it passes a constant they rule out) and holds `lock` at none of its
    /// calls, and the roots such chains come from. `None` when there is
    /// no such chain (the lock is never taken there, or only re-entered);
    /// no chain and every root without guards, or when a search was cut
    /// short.
    fn guarded_chain(
        &mut self,
        node: u32,
        guards: &Guards,
        lock: &LockObject,
    ) -> Option<GuardedEntry> {
        if guards.is_empty() {
            return Some(GuardedEntry {
                chain: None,
                roots: None,
            });
        }
        let key = (node, guards.clone(), lock.clone());
        if let Some(known) = self.guarded.get(&key) {
            return known.clone();
        }
        let Collector {
            program,
            races,
            reach,
            resolver,
            body_locks,
            entries,
            ..
        } = self;
        let mut holds = |caller: u32, site: StmtId| {
            holds_at(program, races, resolver, body_locks, (caller, site), lock)
        };
        let is_entry = |n: u32| entries.contains(&n);
        // One chain that holds the lock at none of its calls, up to an
        // entry (`None`: none, and the lock is only ever re-entered here).
        let chain = match reach.chain_avoiding(is_entry, &mut holds, node, guards) {
            Chain::Found(c) => Some(Arc::from(c)),
            Chain::Unknown => None,
            Chain::None => {
                self.guarded.insert(key, None);
                return None;
            }
        };
        let found = reach.sources(is_entry, &mut holds, node, guards);
        let entered = if found.cut {
            Some(GuardedEntry { chain, roots: None })
        } else if found.nodes.is_empty() && found.free.is_empty() {
            None
        } else {
            let mut roots: Vec<u32> = (0..races.roots.len() as u32)
                .filter(|&r| {
                    races.roots[r as usize]
                        .entries
                        .iter()
                        .any(|e| found.nodes.binary_search(e).is_ok())
                })
                .collect();
            for &n in &found.free {
                roots.extend(races.reach.get(n as usize).into_iter().flatten());
            }
            roots.sort_unstable();
            roots.dedup();
            Some(GuardedEntry {
                chain,
                roots: Some(roots.into()),
            })
        };
        self.guarded.insert(key, entered.clone());
        entered
    }

    /// The site with only the roots a guarded chain comes from.
    fn guarded_site(&self, mut site: Site, entered: &GuardedEntry) -> Site {
        if let Some(roots) = &entered.roots {
            let keep = |r: &u32| roots.binary_search(r).is_ok();
            site.roots = site.roots.iter().copied().filter(keep).collect();
        }
        site
    }

    fn acquire(&mut self, here: &Here<'_>, s: StmtId, lock: LocalLock) {
        if self.races.owned.at(here.node, s) {
            // The lock object is this thread's own there: no other
            // thread can hold it, so taking it never waits.
            return;
        }
        let named = lock.path(here.body);
        let (mode, monitor) = match &lock {
            LocalLock::Juc { mode, .. } => (*mode, false),
            _ => (lockstep_models::LockMode::Exclusive, true),
        };
        let normalized = self.back_links.normalize(&mut self.resolver, &named);
        if here
            .entry_paths
            .iter()
            .any(|e| e.path == normalized && e.mode == mode && e.monitor == monitor)
        {
            // Every caller holds it on entry by this path: a re-entry.
            return;
        }
        let locks: Vec<HeldLock> = self
            .resolver
            .resolve(
                here.method,
                here.context,
                here.body,
                std::slice::from_ref(&lock),
            )
            .into_iter()
            .filter(|h| lock_summary::plausible(self.program, self.pt, &lock, h))
            .collect();
        if locks.is_empty() {
            return;
        }
        let held = self.held(here, s);
        let held = self.gated_entry(here.node, &held);
        if !held.is_empty() && self.unreached_in_state(here.node, here.method, s) {
            return;
        }
        let local = self.named_local(here, s);
        let owners = self
            .resolver
            .owners(here.method, here.context, here.body, &lock);
        let descends_from = match (&lock, &owners) {
            (LocalLock::Monitor { var: Some(v), .. }, Some(_)) => {
                self.lock_owner_descents(here.body, *v, &local)
            }
            _ => Vec::new(),
        };
        let guards = self.reach.guards_at(here.node, s);
        for held_lock in locks {
            let Some(entered) = self.guarded_chain(here.node, &guards, &held_lock.object) else {
                continue;
            };
            let distinct_alias = aliased_by_another_name(&local, &held_lock, &named);
            let through_param = is_param(&named) || held_by_param(&local);
            self.acquisitions.insert(Acquisition {
                site: self.guarded_site(self.site(here.node, here.method, Some(s)), &entered),
                lock: held_lock,
                named: named.clone(),
                held: held.clone(),
                via: Arc::from([]),
                distinct_alias,
                through_param,
                owners: owners.clone(),
                held_owners: held_owners(&local),
                descends_from: descends_from.clone(),
                guards: guards.clone(),
                entry_chain: entered.chain,
            });
        }
    }

    fn call(&mut self, here: &Here<'_>, s: StmtId, call: &lockstep_ir::Call) {
        let program = self.program;
        let m = &call.method;
        let is_subtype = |a: &str, b: &str| program.is_subtype_name(a, b);
        if let Some(kind) =
            lockstep_models::blocking_call_via(&m.class, &m.name, &m.descriptor, &is_subtype)
        {
            let held = self.held(here, s);
            if !held.is_empty() {
                self.blocking.insert(BlockingCall {
                    site: self.site(here.node, here.method, Some(s)),
                    kind,
                    held,
                });
            }
            return;
        }
        if let Some(arg) = lockstep_models::monitor_wait_argument(&m.class, &m.name, &m.descriptor)
        {
            if let Some(Operand::Var(object)) = call.args.get(arg) {
                self.monitor_op(here, s, *object, MonitorOpKind::Wait { timed: true });
            }
            return;
        }
        let Some(Operand::Var(recv)) = call.receiver.as_ref() else {
            return;
        };
        let effect = lockstep_program::call_effect(program, m);
        let timed = &*m.descriptor != "()V";
        let kind = match effect {
            Some(LockEffect::MonitorWait) => MonitorOpKind::Wait { timed },
            Some(LockEffect::MonitorNotify) if &*m.name == "notifyAll" => MonitorOpKind::NotifyAll,
            Some(LockEffect::MonitorNotify) => MonitorOpKind::Notify,
            Some(LockEffect::ConditionAwait | LockEffect::ConditionSignal)
                if self.own_condition(here, *recv) =>
            {
                return;
            }
            Some(LockEffect::ConditionAwait) => MonitorOpKind::Await {
                timed: !m.name.starts_with("await") || timed,
            },
            Some(LockEffect::ConditionSignal) if &*m.name == "signalAll" => {
                MonitorOpKind::SignalAll
            }
            Some(LockEffect::ConditionSignal) => MonitorOpKind::Signal,
            Some(LockEffect::Lock(_)) => {
                if let Some(lock) = lock_summary::juc_lock(program, here.body, call) {
                    self.acquire(here, s, lock);
                }
                return;
            }
            _ => return,
        };
        self.monitor_op(here, s, *recv, kind);
    }

    /// Is the receiver of a `Condition` call one of the program's own
    /// `Condition` implementations (every object it may be is of a non-JDK
    /// class)? Their `await` and `signal` are code the analysis reads,
    /// not the JDK's semantics: a forwarding `await` (JGroups'
    /// `Locking.down` for its `ClientCondition`) leaves the loop that
    /// re-checks the condition to the user, and the implementation waits
    /// in loops of its own.
    fn own_condition(&self, here: &Here<'_>, recv: lockstep_ir::VarId) -> bool {
        let objects = self.pt.var_in(here.method, here.context, recv);
        let mut any = false;
        for o in objects.iter() {
            match self.pt.object(o) {
                Some(info) if !lockstep_models::is_jdk_class(info.type_name) => any = true,
                _ => return false,
            }
        }
        any
    }

    /// Is statement `s` on a loop, of its method or, when the method is
    /// not, of every caller around the call into this context (a helper
    /// such as JGroups' `Promise.doWait`, called in `while (!hasResult)`)?
    /// A context that thread roots enter is called from outside the
    /// program, in no loop the analysis sees.
    fn in_loop(&mut self, here: &Here<'_>, s: StmtId) -> bool {
        if crate::threads::in_loop(here.body, s) {
            return true;
        }
        if self.entries.contains(&here.node) {
            return false;
        }
        let Some(callers) = self.callers.get(here.node as usize) else {
            return false;
        };
        !callers.is_empty()
            && callers.iter().all(|&(n, site)| {
                let m = self.races.graph.nodes[n as usize].method;
                self.program
                    .body(m)
                    .is_some_and(|b| crate::threads::in_loop(&b, site))
            })
    }

    fn monitor_op(
        &mut self,
        here: &Here<'_>,
        s: StmtId,
        recv: lockstep_ir::VarId,
        kind: MonitorOpKind,
    ) {
        let objects: Vec<ObjectId> = self
            .pt
            .var_in(here.method, here.context, recv)
            .iter()
            .collect();
        let lock = match objects.as_slice() {
            [o] => Some(HeldLock {
                object: LockObject::Object(*o),
                mode: lockstep_models::LockMode::Exclusive,
            }),
            _ => None,
        };
        let path = lockstep_ir::access_path(here.body, recv);
        let held_by_name = !matches!(path, AccessPath::Unknown)
            && here.locks.at(s).iter().any(|l| {
                matches!(l, LocalLock::SyncMethod | LocalLock::Monitor { .. })
                    && l.path(here.body) == path
            });
        let held = self.held(here, s);
        let in_loop = self.in_loop(here, s);
        let maybe_locked = !here.locks.at(s).is_empty()
            || !held.is_empty()
            || self
                .maybe_locked
                .get(here.node as usize)
                .copied()
                .unwrap_or(true);
        self.monitor_ops.insert(MonitorOp {
            site: self.site(here.node, here.method, Some(s)),
            kind,
            objects,
            lock,
            held_by_name,
            held,
            in_loop,
            maybe_locked,
        });
    }
}

/// The state before `s` when some path reaches it (`None`: none does).
fn state_at(before: &[Option<St>], s: StmtId) -> Option<St> {
    before.get(s.index()).cloned().flatten().filter(St::reached)
}
