//! Lock summaries: the locks each method context may acquire, itself or
//! through the calls it makes (transitively, bounded), so a lock order
//! taken on only some paths into a method is still seen at the call site
//! that holds the first lock (the bottom-up scheme of Infer's starvation
//! analysis, over lockstep's context call graph).
//!
//! A summary entry is a lock as the callee sees it: one abstract lock
//! object when the callee's context resolves it to one (must-alias, as in
//! [`crate::locks`]), or a parameter of the callee (`this` of a
//! `synchronized` method, `synchronized (p)`) whose object is decided at
//! each call site from the caller's argument — so a helper locking its
//! parameter, called with different objects from different places, yields
//! a different lock at each place. Every entry remembers where it came
//! from (the acquisition, or the call and the callee's entry), which gives
//! the call path of the acquisition for messages.
//!
//! An entry also keeps, when it can, the lock as an *entry path* of the
//! body: `this` or a parameter the body never reassigns, then fields that
//! keep their value once their object is built (every store of them is a
//! constructor's store into its own `this`). Across a call the path's
//! root becomes the caller's argument, so a caller holding `this.ht` that
//! calls a method whose callee locks `this.ht` of the same object sees
//! the path of a lock it holds: a re-entry, whatever abstract objects the
//! two contexts resolve the field to (log4j's `Hierarchy.resetConfiguration`
//! → `shutdown` → `getCurrentLoggers` → `ht.size()`).
//!
//! An entry also keeps the tests every path to its acquisition made of
//! the body's parameters ([`crate::param_guards`]): a call that passes a
//! constant one of them rules out does not pass the entry up (jcifs's
//! `logoff` sends with no response, and `send` returns before the status
//! check that takes the DFS cache's lock), and a test of a parameter the
//! caller passes along becomes a test of the caller's own. One lock under
//! one path may have several entries that need different tests.
//!
//! Bounds: at most [`MAX_ENTRIES`] locks per context (first found first;
//! the propagation order is deterministic), locks passed up at most
//! [`MAX_DEPTH`] calls, and only across call sites with at most
//! [`MAX_TARGETS`] target methods. JDK code contributes its `synchronized` methods only
//! (not its blocks or `java.util.concurrent` locks) and passes on nothing
//! its callees acquire (see [`Translator::application`]).

use std::collections::VecDeque;
use std::sync::Arc;

use lockstep_ir::{AccessPath, Body, Operand, StmtId, StmtKind};
use lockstep_models::LockMode;
use lockstep_pointsto::PointsToResult;
use lockstep_program::{MethodId, Program};
use rustc_hash::FxHashMap;

use crate::analysis::RaceFacts;
use crate::back_links::BackLinks;
use crate::local_locks::{self, LocalLock};
use crate::lock_identity::Owners;
use crate::locks::{HeldLock, LockObject, LockResolver};
use crate::param_guards::{self, BodyGuards, Guards};

/// Locks kept per method context (bounds time and memory on large programs).
pub const MAX_ENTRIES: usize = 32;

/// Calls a lock is passed up through: deeper chains go through ever
/// more dispatch guesses of the call graph and name orders no run takes.
pub const MAX_DEPTH: u8 = 6;

/// Calls followed when a witness path is rebuilt.
pub const MAX_PATH: usize = MAX_DEPTH as usize + 1;

/// Summaries cross a call site only when it dispatches to at most this
/// many methods: a call whose receiver may be nearly anything (`future.
/// cancel()` on a value of a JDK map) reaches implementations the program
/// never runs there, and what those lock would make false orders.
pub const MAX_TARGETS: usize = 2;

/// Does the call site `site` of `node` dispatch to few enough methods?
pub fn precise_site(races: &RaceFacts, node: u32, site: StmtId) -> bool {
    let graph = &races.graph;
    if graph.callees.get(node as usize).is_none() {
        return false;
    }
    let mut methods: Vec<MethodId> = graph
        .callees_at(node, site)
        .map(|c| graph.nodes[c as usize].method)
        .collect();
    methods.sort_unstable();
    methods.dedup();
    methods.len() <= MAX_TARGETS
}

/// A lock as a method context sees it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SymLock {
    /// One abstract lock object (or a class).
    Fixed(HeldLock),
    /// The monitor of parameter `n` of the body (`0` is `this` of an
    /// instance method), when the context alone does not resolve it.
    Param(u16),
}

/// Where a summary entry comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Origin {
    /// Acquired by the body itself (`None`: the `synchronized` method's entry).
    Here(Option<StmtId>),
    /// Acquired by the callee at a call site of the body; `key` indexes
    /// the callee's entries.
    Call { stmt: StmtId, callee: u32, key: u32 },
}

/// One lock a context may acquire.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    lock: SymLock,
    /// The parameter of the body the lock was named by, if any (kept for
    /// [`SymLock::Fixed`] too, so a caller can say which of its values it is).
    param: Option<u16>,
    /// How the acquiring body names the lock.
    named: AccessPath,
    origin: Origin,
    /// Calls between this context and the acquisition.
    depth: u8,
    /// The objects owning a [`SymLock::Fixed`] lock, as the acquiring
    /// context sees them ([`crate::lock_identity`]).
    owners: Option<Owners>,
    /// The lock as an entry path of the body (see the module docs).
    path: Option<AccessPath>,
    /// What every path from the body's entry to the acquisition tests
    /// about the body's parameters ([`crate::param_guards`]): a caller
    /// passing a constant one of them rules out never takes the lock
    /// this way.
    guards: Guards,
}

/// A lock a callee may acquire, seen from one call site of a caller.
#[derive(Debug, Clone)]
pub struct CalleeLock {
    pub lock: HeldLock,
    /// How the caller names it (the argument's path) when the callee took
    /// it through a parameter; else how the acquiring body names it.
    pub named: AccessPath,
    /// The name is the caller's own (the lock came through a parameter).
    pub caller_named: bool,
    /// The calls from the call site to the acquisition: each method with
    /// the statement where it calls on, the last with the acquisition
    /// (`None`: entry of a `synchronized` method).
    pub path: Arc<[(MethodId, Option<StmtId>)]>,
    /// The method context of each step of `path`.
    pub nodes: Arc<[u32]>,
    /// The objects owning the lock, when it is an owned field
    /// ([`crate::lock_identity`]).
    pub owners: Option<Owners>,
    /// The lock as an entry path of the caller (`this.ht`): one object
    /// for the whole run of the caller's body, so a lock the caller holds
    /// under the same path is this very lock.
    pub caller_path: Option<AccessPath>,
    /// What the caller's body must have tested about its parameters for
    /// the callee to take the lock ([`crate::param_guards`]).
    pub guards: Guards,
}

/// A call path: each method with the statement it calls on at, the last
/// with the acquisition.
type CallPath = Arc<[(MethodId, Option<StmtId>)]>;

/// The summaries of every reached method context.
pub struct Summaries {
    entries: Vec<Vec<Entry>>,
    index: Vec<FxHashMap<EntryKey, u32>>,
    guards: Arc<MethodGuards>,
}

/// Entries of one lock under one path that need the same parameter tests.
type EntryKey = (SymLock, Option<AccessPath>, Guards);

/// The parameter guards of the bodies of application methods.
pub type MethodGuards = FxHashMap<MethodId, Arc<BodyGuards>>;

/// The guards of each reached application method's body.
fn method_guards(program: &Program, races: &RaceFacts) -> MethodGuards {
    let mut out = MethodGuards::default();
    for node in &races.graph.nodes {
        let m = node.method;
        if out.contains_key(&m) || !program.is_application(program.method(m).class) {
            continue;
        }
        if let Some(body) = program.body(m) {
            out.insert(m, Arc::new(param_guards::analyse(&body)));
        }
    }
    out
}

/// The guards before statement `s` of `m` (none for a body not analysed).
pub(crate) fn guards_at(guards: &MethodGuards, m: MethodId, s: StmtId) -> Guards {
    guards.get(&m).map_or_else(|| Arc::from([]), |g| g.at(s))
}

/// What statement `s` of an application body acquires, if anything: a
/// `synchronized` block or a blocking `java.util.concurrent` lock call
/// (`tryLock` never blocks and acquires nothing here).
pub fn stmt_lock(program: &Program, body: &Body, s: StmtId) -> Option<LocalLock> {
    let stmt = body.stmts.get(s.index())?;
    match &stmt.kind {
        StmtKind::MonitorEnter(op) => Some(LocalLock::Monitor {
            var: op.var(),
            path: lockstep_ir::operand_path(body, op),
        }),
        StmtKind::Invoke { call, .. } => juc_lock(program, body, call),
        _ => None,
    }
}

/// The lock a `java.util.concurrent` `lock()`-like call acquires.
pub fn juc_lock(program: &Program, body: &Body, call: &lockstep_ir::Call) -> Option<LocalLock> {
    let Some(Operand::Var(recv)) = call.receiver.as_ref() else {
        return None;
    };
    let effect = lockstep_program::call_effect(program, &call.method);
    let Some(lockstep_models::LockEffect::Lock(mode)) = effect else {
        return None;
    };
    local_locks::juc_effect(program, call)?;
    let (path, view) = local_locks::lock_name(program, body, *recv);
    Some(LocalLock::Juc {
        var: *recv,
        path,
        mode: view.unwrap_or(mode),
        field: None,
    })
}

/// Can `held`, resolved from `lock`, be that lock? A `java.util.concurrent`
/// lock must resolve to a lock object (or the synchronizer both views of a
/// read-write lock share); an imprecise points-to set can make `this.lock`
/// a single object of some unrelated class, which is no lock at all.
pub fn plausible(
    program: &Program,
    pt: &PointsToResult,
    lock: &LocalLock,
    held: &HeldLock,
) -> bool {
    let (LocalLock::Juc { .. }, LockObject::Object(o)) = (lock, &held.object) else {
        return true;
    };
    let Some(info) = pt.object(*o) else {
        return false;
    };
    lockstep_models::locks::LOCK_OBJECT_TYPES
        .iter()
        .any(|t| program.is_subtype_name(info.type_name, t))
}

/// The position in `body.params` of the variable a lock is named by.
pub(crate) fn param_of(body: &Body, lock: &LocalLock) -> Option<u16> {
    let var = match lock {
        LocalLock::SyncMethod if !body.is_static => return Some(0),
        LocalLock::Monitor { var: Some(v), .. } => *v,
        _ => return None,
    };
    let pos = body.params.iter().position(|p| *p == var)?;
    u16::try_from(pos).ok()
}

/// Does `path` name one object for the whole run of `body` from its
/// entry: `this` or a parameter no statement reassigns, then fields that
/// keep their value once their object is built (every store of the name
/// is a constructor's on its own `this`, or the field is `final`)?
pub(crate) fn entry_path(resolver: &mut LockResolver<'_>, body: &Body, path: &AccessPath) -> bool {
    match path {
        AccessPath::This => !body.is_static && param_kept(body, 0),
        AccessPath::Param(i, _) => param_kept(body, usize::from(*i) + usize::from(!body.is_static)),
        // A `final` field (by the declared type of its base) keeps its
        // value too, whatever other classes do with fields of that name.
        AccessPath::Field(base, name) => {
            let own_final = crate::back_links::final_field_at(resolver.program, body, base, name);
            (own_final || resolver.fixed_field(name)) && entry_path(resolver, body, base)
        }
        // javac's `this$0` is final.
        AccessPath::OuterThis(base, _) => entry_path(resolver, body, base),
        _ => false,
    }
}

/// Is `body.params[pos]` never reassigned?
fn param_kept(body: &Body, pos: usize) -> bool {
    body.params
        .get(pos)
        .is_some_and(|v| body.stmts.iter().all(|s| s.kind.def() != Some(*v)))
}

/// The position in `body.params` of the root of an entry path.
fn root_param(body: &Body, path: &AccessPath) -> Option<u16> {
    match path {
        AccessPath::This => Some(0),
        AccessPath::Param(i, _) => i.checked_add(u16::from(!body.is_static)),
        AccessPath::Field(base, _) | AccessPath::OuterThis(base, _) => root_param(body, base),
        _ => None,
    }
}

/// `path` with its root (`this` or a parameter) replaced by `root`.
fn rebase(path: &AccessPath, root: &AccessPath) -> AccessPath {
    match path {
        AccessPath::Field(base, name) => {
            AccessPath::Field(Arc::new(rebase(base, root)), name.clone())
        }
        AccessPath::OuterThis(base, class) => {
            AccessPath::OuterThis(Arc::new(rebase(base, root)), class.clone())
        }
        _ => root.clone(),
    }
}

/// The operand a call passes as parameter `pos` of a callee body (the
/// receiver first for instance methods); `None` when the call does not
/// match the callee's shape.
pub(crate) fn argument<'c>(
    call: &'c lockstep_ir::Call,
    callee: &Body,
    pos: u16,
) -> Option<&'c Operand> {
    let pos = usize::from(pos);
    match (&call.receiver, callee.is_static) {
        (Some(r), false) if pos == 0 => Some(r),
        (Some(_), false) => call.args.get(pos - 1),
        (None, true) => call.args.get(pos),
        _ => None,
    }
}

/// Computes the summaries over the race facts' context call graph.
pub fn compute(program: &Program, races: &RaceFacts, resolver: &mut LockResolver<'_>) -> Summaries {
    let n = races.graph.len();
    let guards = Arc::new(method_guards(program, races));
    let mut b = Builder {
        tr: Translator {
            program,
            races,
            resolver,
            guards: guards.clone(),
        },
        sums: Summaries {
            entries: vec![Vec::new(); n],
            index: vec![FxHashMap::default(); n],
            guards,
        },
        back_links: BackLinks::default(),
        held: FxHashMap::default(),
        body_locks: FxHashMap::default(),
    };
    for node in 0..n as u32 {
        b.local(node);
    }
    b.propagate();
    b.sums
}

/// Moves entries from a callee to a caller across one call site.
struct Translator<'a, 'r, 'p> {
    program: &'a Program,
    races: &'a RaceFacts,
    resolver: &'r mut LockResolver<'p>,
    guards: Arc<MethodGuards>,
}

/// Locks a body holds at a call site: the entry path it names each by,
/// that path with back links followed, and the mode.
type HeldPaths = Arc<[(AccessPath, AccessPath, LockMode)]>;

struct Builder<'a, 'r, 'p> {
    tr: Translator<'a, 'r, 'p>,
    sums: Summaries,
    back_links: BackLinks,
    /// Per call site of an application body: the locks the body holds
    /// there by entry path, back links followed (cached; see
    /// [`Builder::reenters`]).
    held: FxHashMap<(MethodId, StmtId), HeldPaths>,
    body_locks: FxHashMap<MethodId, Arc<local_locks::BodyLocks>>,
}

impl Translator<'_, '_, '_> {
    fn reached(&self, node: u32) -> bool {
        matches!(self.races.entry_locks.get(node as usize), Some(Some(_)))
    }

    /// Summaries are passed up through application code only: JDK code
    /// dispatches `equals`, `hashCode` and callbacks to nearly every class,
    /// and passing what those take through it would tie unrelated locks.
    fn application(&self, node: u32) -> bool {
        let m = self.races.graph.nodes[node as usize].method;
        self.program.is_application(self.program.method(m).class)
    }

    /// The callee's entry `e` (number `key`) as an entry of the caller at
    /// `site`, and whether its name is now the caller's own.
    fn translate(
        &mut self,
        caller: u32,
        site: StmtId,
        callee: u32,
        key: u32,
        e: &Entry,
    ) -> Option<(Entry, bool)> {
        if matches!(e.origin, Origin::Here(None))
            && e.param == Some(0)
            && self.races.owned.at(caller, site)
        {
            // The callee is `synchronized` and the caller enters it on a
            // receiver it still owns there ([`crate::ownership`]): no
            // other thread can hold that monitor when it is taken, so
            // this call waits for nothing there, whatever the callee's
            // other callers pass (c3p0's `BasicResourcePool` constructor
            // calls `recheckResizePool()` on itself before anyone else
            // can see it; checkouts call it on published pools).
            return None;
        }
        let guards = self.guards_across(caller, site, callee, e)?;
        let origin = Origin::Call {
            stmt: site,
            callee,
            key,
        };
        let seen = self.seen_from(caller, site, callee, e);
        let path = self.path_at(caller, site, callee, e);
        // A lock the callee resolved keeps the owners it saw; a parameter
        // becomes the caller's argument object itself, which no field owns.
        let (lock, param, named, caller_named, owners) = match (&e.lock, seen) {
            (SymLock::Fixed(l), Some((_, param, named))) => (
                SymLock::Fixed(l.clone()),
                param,
                named,
                true,
                e.owners.clone(),
            ),
            (SymLock::Fixed(l), None) => (
                SymLock::Fixed(l.clone()),
                None,
                e.named.clone(),
                false,
                e.owners.clone(),
            ),
            (SymLock::Param(_), Some((Some(l), param, named))) => {
                (SymLock::Fixed(l), param, named, true, None)
            }
            (SymLock::Param(_), Some((None, Some(p), named))) => {
                (SymLock::Param(p), Some(p), named, true, None)
            }
            (SymLock::Param(_), _) => return None,
        };
        let entry = Entry {
            lock,
            param,
            named,
            origin,
            depth: e.depth.saturating_add(1),
            owners,
            path,
            guards,
        };
        Some((entry, caller_named))
    }

    /// The guards of the callee's entry `e` as the caller's at `site`
    /// (with the caller's own tests before the call), or `None` when the
    /// call passes a constant they rule out, or they contradict.
    fn guards_across(&self, caller: u32, site: StmtId, callee: u32, e: &Entry) -> Option<Guards> {
        let graph = &self.races.graph;
        let cm = graph.nodes[caller as usize].method;
        let local = guards_at(&self.guards, cm, site);
        if e.guards.is_empty() {
            return Some(local);
        }
        let body = self.program.body(cm)?;
        let callee_body = self.program.body(graph.nodes[callee as usize].method)?;
        let StmtKind::Invoke { call, .. } = &body.stmts.get(site.index())?.kind else {
            return None;
        };
        let carried = param_guards::across_call(
            &body,
            |p| argument(call, &callee_body, p).cloned(),
            &e.guards,
        )?;
        param_guards::join(&local, &carried)
    }

    /// The entry path of `e` (the callee's) as the caller names it at
    /// `site`: the callee's root replaced by the caller's argument, when
    /// that is an entry path of the caller too.
    fn path_at(&mut self, caller: u32, site: StmtId, callee: u32, e: &Entry) -> Option<AccessPath> {
        let path = e.path.as_ref()?;
        let (body, arg) = self.argument_at((caller, site, callee), |b| root_param(b, path))?;
        let out = rebase(path, &lockstep_ir::operand_path(&body, &arg));
        entry_path(self.resolver, &body, &out).then_some(out)
    }

    /// The caller's body and the operand it passes at `site` as the
    /// callee's parameter `pos_in(callee body)`.
    fn argument_at(
        &self,
        (caller, site, callee): (u32, StmtId, u32),
        pos_in: impl FnOnce(&Body) -> Option<u16>,
    ) -> Option<(Arc<Body>, Operand)> {
        let graph = &self.races.graph;
        let (cm, ce) = (graph.nodes[caller as usize], graph.nodes[callee as usize]);
        let body = self.program.body(cm.method)?;
        let callee_body = self.program.body(ce.method)?;
        let StmtKind::Invoke { call, .. } = &body.stmts.get(site.index())?.kind else {
            return None;
        };
        let arg = argument(call, &callee_body, pos_in(&callee_body)?)?.clone();
        Some((body, arg))
    }

    /// For an entry named by a callee parameter: the caller's argument as
    /// a lock (when it denotes one object), the caller's parameter it is
    /// (if any) and the caller's name for it.
    fn seen_from(
        &mut self,
        caller: u32,
        site: StmtId,
        callee: u32,
        e: &Entry,
    ) -> Option<(Option<HeldLock>, Option<u16>, AccessPath)> {
        let pos = e.param?;
        let (body, arg) = self.argument_at((caller, site, callee), |_| Some(pos))?;
        let var = arg.var()?;
        let cm = self.races.graph.nodes[caller as usize];
        let monitor = LocalLock::Monitor {
            var: Some(var),
            path: lockstep_ir::access_path(&body, var),
        };
        let resolved =
            self.resolver
                .resolve(cm.method, cm.context, &body, std::slice::from_ref(&monitor));
        let one = match resolved.as_slice() {
            [l] => Some(l.clone()),
            _ => None,
        };
        Some((one, param_of(&body, &monitor), monitor.path(&body)))
    }
}

impl Builder<'_, '_, '_> {
    /// The locks the context's body takes itself.
    fn local(&mut self, node: u32) {
        if !self.tr.reached(node) {
            return;
        }
        let program = self.tr.program;
        let mc = self.tr.races.graph.nodes[node as usize];
        let data = program.method(mc.method);
        let Some(body) = program.body(mc.method) else {
            return;
        };
        // A lock object this thread owns there (made by it, not yet
        // published: [`crate::ownership`]) is one no other thread can
        // hold, so taking it never waits and orders nothing.
        let owned = &self.tr.races.owned;
        let mut found: Vec<(LocalLock, Option<StmtId>)> = Vec::new();
        if data.is_synchronized() && !owned.receiver_at_entry(node) {
            found.push((LocalLock::SyncMethod, None));
        }
        if program.is_application(data.class) {
            for i in 0..body.stmts.len() {
                let s = StmtId(i as u32);
                if owned.at(node, s) {
                    continue;
                }
                if let Some(l) = stmt_lock(program, &body, s) {
                    found.push((l, Some(s)));
                }
            }
        }
        for (lock, at) in found {
            let resolved =
                self.tr
                    .resolver
                    .resolve(mc.method, mc.context, &body, std::slice::from_ref(&lock));
            let pt = self.tr.resolver.pt;
            let resolved: Vec<HeldLock> = resolved
                .into_iter()
                .filter(|h| plausible(program, pt, &lock, h))
                .collect();
            let param = param_of(&body, &lock);
            let path = Some(lock.path(&body)).filter(|p| entry_path(self.tr.resolver, &body, p));
            let (sym, owners) = match (resolved.as_slice(), param) {
                ([one], _) => (
                    SymLock::Fixed(one.clone()),
                    self.tr.resolver.owners(mc.method, mc.context, &body, &lock),
                ),
                (_, Some(p)) => (SymLock::Param(p), None),
                _ => continue,
            };
            let guards = at.map_or_else(
                || Arc::from([]),
                |s| guards_at(&self.tr.guards, mc.method, s),
            );
            let entry = Entry {
                lock: sym,
                param,
                named: lock.path(&body),
                origin: Origin::Here(at),
                depth: 0,
                owners,
                path,
                guards,
            };
            self.insert(node, entry);
        }
    }

    /// Adds an entry unless the lock is there already (under the same
    /// path, needing no more parameter tests) or the summary is full.
    fn insert(&mut self, node: u32, entry: Entry) -> bool {
        let (entries, index) = (
            &mut self.sums.entries[node as usize],
            &mut self.sums.index[node as usize],
        );
        let key = (entry.lock.clone(), entry.path.clone(), entry.guards.clone());
        if entries.len() >= MAX_ENTRIES || index.contains_key(&key) {
            return false;
        }
        let weaker_known = entries.iter().any(|x| {
            x.lock == entry.lock
                && x.path == entry.path
                && x.guards.iter().all(|g| entry.guards.contains(g))
        });
        if weaker_known {
            return false;
        }
        index.insert(key, entries.len() as u32);
        entries.push(entry);
        true
    }

    /// Passes every callee's entries up to its callers until nothing
    /// changes; each entry crosses each call edge once.
    fn propagate(&mut self) {
        let graph = &self.tr.races.graph;
        let callers = graph.callers();
        let mut done = vec![0usize; graph.len()];
        let mut queued = vec![false; graph.len()];
        let mut work: VecDeque<u32> = VecDeque::new();
        for node in 0..graph.len() as u32 {
            if !self.sums.entries[node as usize].is_empty() {
                queued[node as usize] = true;
                work.push_back(node);
            }
        }
        while let Some(callee) = work.pop_front() {
            queued[callee as usize] = false;
            let from = done[callee as usize];
            let fresh: Vec<Entry> = self.sums.entries[callee as usize][from..].to_vec();
            done[callee as usize] = from + fresh.len();
            for &(caller, site) in &callers[callee as usize] {
                if !self.tr.reached(caller)
                    || !self.tr.application(caller)
                    || !precise_site(self.tr.races, caller, site)
                {
                    continue;
                }
                let mut grew = false;
                for (i, e) in fresh.iter().enumerate() {
                    if e.depth >= MAX_DEPTH {
                        continue;
                    }
                    let key = (from + i) as u32;
                    if let Some((t, _)) = self.tr.translate(caller, site, callee, key, e) {
                        if !self.reenters(caller, site, &t) {
                            grew |= self.insert(caller, t);
                        }
                    }
                }
                if grew && !queued[caller as usize] {
                    queued[caller as usize] = true;
                    work.push_back(caller);
                }
            }
        }
    }
}

impl Builder<'_, '_, '_> {
    /// Does the caller, at `site`, already hold the lock of entry `e` (a
    /// callee's, translated) by the entry path `e` names it by, once back
    /// links are followed? Then the callee re-enters a lock the caller
    /// took itself, which the caller's summary has as its own entry: the
    /// entry adds nothing, and kept, it would carry on up the callers
    /// under a path that may be lost further up (Velocity's `init` holds
    /// `this` and its factory calls back `this.vmFactory.rsvc`, which is
    /// `this`; one call further the path runs through a field of an
    /// interface and is no entry path any more).
    fn reenters(&mut self, caller: u32, site: StmtId, e: &Entry) -> bool {
        let Some(path) = &e.path else {
            return false;
        };
        let mode = match &e.lock {
            SymLock::Fixed(h) => h.mode,
            SymLock::Param(_) => LockMode::Exclusive,
        };
        let method = self.tr.races.graph.nodes[caller as usize].method;
        let held = self.held_at(method, site);
        if held.is_empty() {
            return false;
        }
        let path = self.back_links.normalize(self.tr.resolver, path);
        let Some((own, _, _)) = held.iter().find(|(_, p, m)| *p == path && *m == mode) else {
            return false;
        };
        // Only when the caller's summary has that lock as its own entry
        // under the same path: else (its context did not resolve the lock
        // to one object) the callee's entry is the only trace of it.
        self.sums.entries[caller as usize]
            .iter()
            .any(|x| matches!(x.origin, Origin::Here(_)) && x.path.as_ref() == Some(own))
    }

    /// The locks `method`'s body holds before `site`, named by entry
    /// paths (as written and with back links followed), with their modes
    /// (cached).
    fn held_at(&mut self, method: MethodId, site: StmtId) -> HeldPaths {
        if let Some(v) = self.held.get(&(method, site)) {
            return v.clone();
        }
        let program = self.tr.program;
        let mut out = Vec::new();
        if let Some(body) = program.body(method) {
            let locks = self
                .body_locks
                .entry(method)
                .or_insert_with(|| Arc::new(local_locks::analyse(program, &body)))
                .clone();
            for l in locks.at(site) {
                let path = l.path(&body);
                if !entry_path(self.tr.resolver, &body, &path) {
                    continue;
                }
                let mode = match l {
                    LocalLock::Juc { mode, .. } => *mode,
                    _ => LockMode::Exclusive,
                };
                let normal = self.back_links.normalize(self.tr.resolver, &path);
                out.push((path, normal, mode));
            }
        }
        let v: HeldPaths = out.into();
        self.held.insert((method, site), v.clone());
        v
    }
}

impl Summaries {
    /// The parameter guards of the application bodies the summaries used.
    pub fn method_guards(&self) -> Arc<MethodGuards> {
        self.guards.clone()
    }

    /// The locks the callee context may acquire, seen from the caller's
    /// call site `site`, resolved to lock objects (entries that stay
    /// parameters of the caller are left out: they are not one object here).
    pub fn at_call(
        &self,
        program: &Program,
        races: &RaceFacts,
        resolver: &mut LockResolver<'_>,
        (caller, site, callee): (u32, StmtId, u32),
    ) -> Vec<CalleeLock> {
        self.fixed_at_call(program, races, resolver, (caller, site, callee))
            .into_iter()
            .map(|(key, lock, t, caller_named)| {
                let (path, nodes) = self.path(races, callee, key);
                CalleeLock {
                    lock,
                    named: t.named,
                    caller_named,
                    path,
                    nodes,
                    owners: t.owners,
                    caller_path: t.path,
                    guards: t.guards,
                }
            })
            .collect()
    }

    /// The lock objects of [`Self::at_call`] alone, without their paths,
    /// names or owners (sorted, no duplicates): what a search for one lock
    /// needs at each call it passes.
    pub fn objects_at_call(
        &self,
        program: &Program,
        races: &RaceFacts,
        resolver: &mut LockResolver<'_>,
        edge: (u32, StmtId, u32),
    ) -> Vec<LockObject> {
        let mut out: Vec<LockObject> = self
            .fixed_at_call(program, races, resolver, edge)
            .into_iter()
            .map(|(_, lock, _, _)| lock.object)
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The callee's entries translated to the call site that name one
    /// lock object there: each entry's key, lock, translation and whether
    /// the caller names it.
    fn fixed_at_call(
        &self,
        program: &Program,
        races: &RaceFacts,
        resolver: &mut LockResolver<'_>,
        (caller, site, callee): (u32, StmtId, u32),
    ) -> Vec<(u32, HeldLock, Entry, bool)> {
        let Some(entries) = self.entries.get(callee as usize) else {
            return Vec::new();
        };
        let mut tr = Translator {
            program,
            races,
            resolver,
            guards: self.guards.clone(),
        };
        entries
            .iter()
            .enumerate()
            .filter_map(|(key, e)| {
                let (t, caller_named) = tr.translate(caller, site, callee, key as u32, e)?;
                match &t.lock {
                    SymLock::Fixed(lock) => Some((key as u32, lock.clone(), t, caller_named)),
                    _ => None,
                }
            })
            .collect()
    }

    /// The call path of entry `key` of `node`: each method and the
    /// statement it calls on at, ending at the acquisition; and the method
    /// context of each step.
    fn path(&self, races: &RaceFacts, node: u32, key: u32) -> (CallPath, Arc<[u32]>) {
        let mut out = Vec::new();
        let mut nodes = Vec::new();
        let (mut node, mut key) = (node, key);
        while out.len() < MAX_PATH {
            let Some(e) = self
                .entries
                .get(node as usize)
                .and_then(|v| v.get(key as usize))
            else {
                break;
            };
            let method = races.graph.nodes[node as usize].method;
            nodes.push(node);
            match e.origin {
                Origin::Here(at) => {
                    out.push((method, at));
                    break;
                }
                Origin::Call {
                    stmt,
                    callee,
                    key: k,
                } => {
                    out.push((method, Some(stmt)));
                    node = callee;
                    key = k;
                }
            }
        }
        (Arc::from(out), Arc::from(nodes))
    }
}
