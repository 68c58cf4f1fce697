//! The race analysis proper: thread roots and what they reach, the locks
//! held on entry to every method context, the shared objects, the
//! accesses of application code per context, and the racing pairs
//! (paper 002 Alg. 4, per field and abstract object).
//!
//! Two accesses race when they touch the same field (or the elements of,
//! or the contents of) a common abstract object, at least one writes, some
//! pair of roots reaching them may run at the same time (two different
//! roots, or one that runs more than once, and not ordered by start/join),
//! and no lock both hold excludes the other.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use lockstep_ir::{AccessPath, Body, StmtId};
use lockstep_pointsto::{ObjectId, PointsToResult, SiteKey};
use lockstep_program::{MethodId, Program};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::accesses::{AccessStmt, FieldTable, Kind, Target};
use crate::annotations::class_policy;
use crate::buckets::Reached;
use crate::local_locks::{self, BodyLocks, LocalLock};
use crate::lock_paths::{self, ParamLock, SiteLocks, StableFields};
use crate::locks::{union, HeldLock, LockObject, LockResolver, LockSet};
use crate::pairs::Pairs;
use crate::threads::{self, Graph, Root, RootKind};

/// One access as the pair search sees it (contexts with equal facts merged).
#[derive(Debug, Clone)]
pub struct Access {
    pub node: u32,
    pub method: MethodId,
    pub stmt: StmtId,
    pub kind: Kind,
    pub locks: LockSet,
    pub roots: Arc<[u32]>,
    /// Thread starts this access is ordered with (before start / after join).
    pub ordered: Arc<[u32]>,
    /// Holds the lock its field's `@GuardedBy` names.
    pub guarded: bool,
    pub holder: Option<(Arc<str>, Arc<str>)>,
    /// Past the once-gate of this method (on the receiver's own fields,
    /// or anything for a static gate): see [`crate::once_gate`].
    pub once: Option<MethodId>,
    /// The side of a queue hand-off of the bucket's object this access
    /// is on ([`crate::queue_handoff`]).
    pub handed: Option<crate::queue_handoff::Handed>,
}

/// A racing pair.
#[derive(Debug, Clone)]
pub struct Race {
    pub target: Target,
    /// The write (or the first of two writes).
    pub first: Access,
    /// The access it races with (a write if there is one).
    pub second: Access,
    pub roots: (u32, u32),
    pub objects: Vec<ObjectId>,
    /// The field is annotated `@GuardedBy`.
    pub guard: Option<String>,
    /// Further accesses that race with `first`, with their roots.
    pub others: Vec<(Access, u32)>,
}

/// Why a pair of accesses to one field does not race (for `--explain`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verdict {
    Race,
    CommonLock(String),
    GuardedBy,
    NotConcurrent,
    NoCommonObject,
    /// Concurrent only through an assumed outside caller (the harness),
    /// and nothing shows the memory or either method is meant for
    /// concurrent use (see [`crate::intent`]).
    NoIntent,
    /// Both run past the same once-gate: at most one thread gets there
    /// (per receiver object for an instance flag).
    OnceGate,
    /// One runs before a queue put of the object, the other through the
    /// value a take of it returned ([`crate::queue_handoff`]).
    HandedOver,
}

/// An access statement and its kind.
pub type AccessSite = (MethodId, StmtId, Kind);

/// What memory of the explained field an access touches: the field
/// itself, or the elements of an array / the contents of a JDK container
/// the field holds (a finding on "the contents of `Cls.f`" is explained by
/// `--explain pkg.Cls.f` too).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Memory {
    Field,
    Elements,
    Contents,
}

/// One line of an explanation.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ExplainedPair {
    pub memory: Memory,
    pub first: (MethodId, StmtId, Kind),
    pub second: (MethodId, StmtId, Kind),
    pub verdict: Verdict,
}

/// Everything lockstep decided about one field.
#[derive(Debug, Clone, Default)]
pub struct Explanation {
    pub field: String,
    pub pairs: BTreeSet<ExplainedPair>,
    /// Accesses dropped before pairing, with the reason.
    pub exempt: BTreeSet<(Memory, MethodId, StmtId, Kind, String)>,
    /// How each object the field's accesses touch escapes its thread.
    pub escapes: BTreeSet<String>,
}

impl Explanation {
    /// Which memory of the explained field an access of `target` touches,
    /// given the field its object was read from (`holder`); `None` when
    /// the access is not about the field.
    pub fn memory(&self, target: &Target, holder: Option<&(Arc<str>, Arc<str>)>) -> Option<Memory> {
        let held_here = || {
            holder.is_some_and(|(class, name)| {
                is_field_name(&self.field, &crate::util::dotted(class), name)
            })
        };
        match target {
            Target::Field { .. } | Target::Static { .. } => {
                (target_name(target).as_deref() == Some(&self.field)).then_some(Memory::Field)
            }
            Target::Element => held_here().then_some(Memory::Elements),
            Target::Container => held_here().then_some(Memory::Contents),
        }
    }

    /// Does some access of `list` touch the explained field's memory?
    pub fn covers(&self, target: &Target, list: &[Access]) -> bool {
        match target {
            Target::Field { .. } | Target::Static { .. } => self.memory(target, None).is_some(),
            Target::Element | Target::Container => list
                .iter()
                .any(|a| self.memory(target, a.holder.as_ref()).is_some()),
        }
    }
}

/// `full == "{class}.{name}"`, without building the string.
fn is_field_name(full: &str, class: &str, name: &str) -> bool {
    full.len() == class.len() + 1 + name.len()
        && full.starts_with(class)
        && full[class.len()..].starts_with('.')
        && full.ends_with(name)
}

pub struct RaceFacts {
    pub races: Vec<Race>,
    pub roots: Vec<Root>,
    pub explanation: Option<Explanation>,
    /// The call graph the roots index into.
    pub graph: Graph,
    /// Every access other threads can see, by what and which object it
    /// touches (the facts the atomicity analysis infers guards from).
    pub buckets: Buckets,
    /// The access statements that are part of at least one race.
    pub racy: FxHashSet<(MethodId, StmtId)>,
    /// Per abstract object: can another thread reach it?
    pub shared: Vec<bool>,
    /// Locks held on entry to each node of `graph` (`None`: not reached).
    pub entry_locks: Vec<Option<LockSet>>,
    /// The roots (indices into `roots`) reaching each node of `graph`.
    pub reach: Vec<Vec<u32>>,
    /// Start/join orderings of the thread starts that run once.
    pub orderings: Vec<crate::reach::Ordering>,
    /// Time each step took (threads, entry locks, reach, escape,
    /// ownership, accesses, pairs), in the order they ran.
    pub timings: Vec<(&'static str, Duration)>,
    /// Access statements in a pair that only an assumed outside caller
    /// makes concurrent and that shows no concurrent intent
    /// ([`Verdict::NoIntent`]), and how many of them race with nothing.
    pub no_intent: (usize, usize),
    /// The statements (and entries) of each node whose object the running
    /// thread still owns ([`crate::ownership`]): the lock-order facts drop
    /// acquisitions of such objects, which no other thread can hold.
    pub(crate) owned: crate::ownership::Owned,
    /// Per node: the locks every caller holds on its parameters by stable
    /// path ([`lock_paths::ParamLock`]; `None`: not reached), which hold
    /// whatever objects the node's context merges.
    pub(crate) entry_params: Vec<Option<Arc<[ParamLock]>>>,
}

impl RaceFacts {
    /// The roots whose thread a statement of `node` is ordered with
    /// (it runs before the thread's start or after its join).
    pub fn ordered_roots(&self, node: u32, stmt: StmtId) -> Vec<u32> {
        crate::reach::ordered_roots(&self.orderings, node, stmt)
    }
}

/// Accesses per (target, object); statics have no object.
pub type Buckets = BTreeMap<(Target, Option<ObjectId>), Vec<Access>>;

/// Programs (mains) up to which thread starts are counted per program.
const MAX_COUNTED_PROGRAMS: usize = 8;

/// The analysis state.
pub struct Analysis<'a> {
    pub program: &'a Program,
    pub pt: &'a PointsToResult,
    pub graph: Graph,
    pub open: bool,
    pub(crate) resolver: LockResolver<'a>,
    body_locks: FxHashMap<MethodId, Arc<BodyLocks>>,
    lock_sets: FxHashMap<Vec<HeldLock>, LockSet>,
    /// Concurrent intent of the memory and methods of harness-only pairs.
    pub(crate) intent: crate::intent::Intent,
    /// Report harness-only pairs without intent too (`--open-every-class`).
    pub(crate) every_class: bool,
    /// Objects each instance of a repeated thread start has to itself.
    pub(crate) per_instance: crate::instances::PerInstance,
    /// Access statements (per node) whose object the thread still owns.
    pub(crate) owned: crate::ownership::Owned,
    /// Fields that do not change after construction (lock paths).
    stable: StableFields,
    /// Per access statement: the locks it holds on the object it accesses.
    of_accessed: FxHashMap<(MethodId, StmtId), Vec<HeldLock>>,
    /// Locks every caller holds on a node's parameters (`None`: not reached).
    entry_params: Vec<Option<Arc<[ParamLock]>>>,
    /// Per call site: its arguments and locks by stable path.
    site_locks: FxHashMap<(MethodId, StmtId), Option<Arc<SiteLocks>>>,
    /// Fields for the lock paths of call sites.
    path_fields: FieldTable,
    /// Methods whose rest runs once per receiver after a flag-under-lock gate.
    pub(crate) gates: crate::once_gate::Gates,
    /// Calls from JDK code into GUI listener methods, sorted `(caller,
    /// callee)` nodes: the event thread makes them, not the thread that
    /// reaches the JDK code ([`crate::event_thread::listener_roots`]).
    pub(crate) listener_calls: Vec<(u32, u32)>,
    /// Which two roots make a pair of root sets concurrent, per sets.
    pub(crate) concurrency: crate::threads::ConcurrencyMemo,
    /// Objects handed from one thread to another through a queue.
    pub(crate) queue_handoffs: crate::queue_handoff::QueueHandoffs,
    /// Which calls of the graph are made in a loop (made on first use).
    looped_calls: std::sync::OnceLock<crate::threads::LoopedCalls>,
}

/// `pkg.Cls.name` for a target.
pub fn target_name(t: &Target) -> Option<String> {
    match t {
        Target::Field { class, name } | Target::Static { class, name } => {
            Some(format!("{}.{}", crate::util::dotted(class), name))
        }
        _ => None,
    }
}

impl<'a> Analysis<'a> {
    pub fn new(program: &'a Program, pt: &'a PointsToResult, open: bool) -> Analysis<'a> {
        Analysis {
            program,
            pt,
            graph: Graph::new(pt),
            open,
            resolver: LockResolver::new(program, pt),
            body_locks: FxHashMap::default(),
            lock_sets: FxHashMap::default(),
            intent: Default::default(),
            every_class: false,
            per_instance: Default::default(),
            owned: Default::default(),
            stable: StableFields::default(),
            of_accessed: FxHashMap::default(),
            entry_params: Vec::new(),
            concurrency: Default::default(),
            site_locks: FxHashMap::default(),
            path_fields: FieldTable::default(),
            gates: Default::default(),
            listener_calls: Vec::new(),
            queue_handoffs: Default::default(),
            looped_calls: std::sync::OnceLock::new(),
        }
    }

    /// Which calls of the context call graph are made in a loop, for the
    /// run counts ([`threads::run_counts`]): looked up once per analysis,
    /// not once per count.
    pub(crate) fn looped_calls(&self) -> &crate::threads::LoopedCalls {
        self.looped_calls
            .get_or_init(|| threads::looped_calls(self.program, &self.graph))
    }

    /// Also report pairs that only an assumed outside caller makes
    /// concurrent when nothing shows concurrent intent (the plain harness
    /// of paper 002; see [`crate::intent`]).
    pub fn every_class(mut self, yes: bool) -> Self {
        self.every_class = yes;
        self
    }

    pub(crate) fn intern(&mut self, v: Vec<HeldLock>) -> LockSet {
        if let Some(s) = self.lock_sets.get(&v) {
            return s.clone();
        }
        let s: LockSet = Arc::from(v.clone());
        self.lock_sets.insert(v, s.clone());
        s
    }

    pub(crate) fn locks_of(&mut self, m: MethodId, body: &Body) -> Arc<BodyLocks> {
        if let Some(l) = self.body_locks.get(&m) {
            return l.clone();
        }
        let l = Arc::new(local_locks::analyse(self.program, body));
        self.body_locks.insert(m, l.clone());
        l
    }

    /// The locks an access holds on the object it accesses, named relative
    /// to it (the same in every context; see [`crate::lock_paths`]).
    pub(crate) fn of_accessed_locks(
        &mut self,
        node: u32,
        body: &Body,
        a: &AccessStmt,
        local: &[LocalLock],
        fields: &mut FieldTable,
    ) -> Vec<HeldLock> {
        let Some(base) = a.base else {
            return Vec::new();
        };
        let m = self.graph.nodes[node as usize].method;
        let mut out = match self.of_accessed.get(&(m, a.stmt)) {
            Some(v) => v.clone(),
            None => {
                let v = lock_paths::of_accessed(
                    self.program,
                    body,
                    fields,
                    &mut self.stable,
                    base,
                    local,
                    a.stmt,
                );
                self.of_accessed.insert((m, a.stmt), v.clone());
                v
            }
        };
        if let Some(Some(entry)) = self.entry_params.get(node as usize) {
            let entry = entry.clone();
            out.extend(lock_paths::of_accessed_on_entry(
                self.program,
                body,
                fields,
                &mut self.stable,
                base,
                &entry,
            ));
        }
        out
    }

    /// The call at `site` of method `m` with its arguments and locks by
    /// stable path (cached; `None` when the site is not a call or the
    /// method has no body).
    fn site_locks_of(&mut self, node: u32, site: StmtId) -> Option<Arc<SiteLocks>> {
        let m = self.graph.nodes[node as usize].method;
        if let Some(v) = self.site_locks.get(&(m, site)) {
            return v.clone();
        }
        let v = self.program.body(m).and_then(|body| {
            let app = self.program.is_application(self.program.method(m).class);
            let locals = if app {
                self.locks_of(m, &body).at(site).to_vec()
            } else {
                Vec::new()
            };
            lock_paths::site_locks(
                self.program,
                &body,
                &mut self.path_fields,
                &mut self.stable,
                site,
                &locals,
            )
            .map(Arc::new)
        });
        self.site_locks.insert((m, site), v.clone());
        v
    }

    /// The locks every caller holds on each node's parameters, by stable
    /// path: the must-intersection of [`Self::entry_locks`] for locks
    /// named relative to the callee's parameters, which hold whatever
    /// their points-to sets (a private helper called under
    /// `synchronized (this)`, a static helper called under
    /// `synchronized (x)` with `x`).
    fn entry_param_locks(&mut self, roots: &[Root]) -> Vec<Option<Arc<[ParamLock]>>> {
        self.over_callers(
            roots,
            |this, node, site, callee, here| {
                let caller = this.graph.nodes[node as usize].method;
                this.callee_entry(node, caller, site, callee, here)
            },
            |_, v| Arc::from(v),
        )
    }

    /// The locks `callee` holds on its parameters when `node` calls it at `site`.
    fn callee_entry(
        &mut self,
        node: u32,
        caller: MethodId,
        site: StmtId,
        callee: u32,
        here: &[ParamLock],
    ) -> Vec<ParamLock> {
        let app = self
            .program
            .is_application(self.program.method(caller).class);
        if here.is_empty() && (!app || self.locks_of_site_empty(caller, site)) {
            return Vec::new();
        }
        let Some(info) = self.site_locks_of(node, site) else {
            return Vec::new();
        };
        let Some(body) = self.program.body(caller) else {
            return Vec::new();
        };
        let target = self
            .program
            .method(self.graph.nodes[callee as usize].method);
        lock_paths::callee_param_locks(&body, &info, here, &target.name, &target.descriptor)
    }

    /// Does the body of `m` hold no lock of its own at `site`?
    fn locks_of_site_empty(&mut self, m: MethodId, site: StmtId) -> bool {
        let Some(body) = self.program.body(m) else {
            return true;
        };
        self.locks_of(m, &body).at(site).is_empty()
    }

    /// The locks a node's own code holds at `site`.
    fn local_held(&mut self, node: u32, site: StmtId) -> Vec<HeldLock> {
        let mc = self.graph.nodes[node as usize];
        let data = self.program.method(mc.method);
        let Some(body) = self.program.body(mc.method) else {
            return Vec::new();
        };
        let app = self.program.is_application(data.class);
        if !app {
            if data.is_synchronized() {
                return self.resolver.resolve(
                    mc.method,
                    mc.context,
                    &body,
                    &[LocalLock::SyncMethod],
                );
            }
            return Vec::new();
        }
        let locks = self.locks_of(mc.method, &body);
        let at = locks.at(site);
        if at.is_empty() {
            return Vec::new();
        }
        self.resolver.resolve(mc.method, mc.context, &body, at)
    }

    /// The thread roots.
    fn roots(&self) -> Vec<Root> {
        let mut roots = Vec::new();
        let nodes_of = |m: MethodId| -> Vec<u32> {
            self.pt
                .contexts_of(m)
                .into_iter()
                .filter_map(|c| {
                    self.graph.node(lockstep_pointsto::MethodContext {
                        method: m,
                        context: c,
                    })
                })
                .collect()
        };
        if self.open {
            roots.extend(self.harness_roots());
        } else {
            roots.extend(threads::main_roots(self.program, self.pt, &self.graph));
            // What no main reaches runs under the library harness.
            roots.extend(self.harness_roots());
            for c in self.program.application_classes() {
                let info = self.program.class(c);
                if !class_policy(&info.file.annotations).thread_safe {
                    continue;
                }
                for &m in &info.methods {
                    let d = self.program.method(m);
                    if d.is_private() || d.is_constructor() || d.is_class_initializer() {
                        continue;
                    }
                    let entries = nodes_of(m);
                    if !entries.is_empty() {
                        roots.push(Root {
                            kind: RootKind::ThreadSafeApi(m),
                            entries,
                            multi: true,
                            programs: None,
                            alternative: None,
                            serial: None,
                        });
                    }
                }
            }
        }
        let alternatives = threads::alternatives(self.pt.thread_starts());
        for (i, t) in self.pt.thread_starts().iter().enumerate() {
            let entries: Vec<u32> = threads::task_entries(self.program, self.pt, t)
                .into_iter()
                .filter_map(|mc| self.graph.node(mc))
                .collect();
            let entries = crate::thread_targets::narrow_to_targets(
                self.program,
                self.pt,
                &self.graph,
                t,
                entries,
            );
            if !entries.is_empty() {
                let entry_methods: Vec<MethodId> = entries
                    .iter()
                    .filter_map(|&n| self.graph.nodes.get(n as usize).map(|mc| mc.method))
                    .collect();
                roots.push(Root {
                    kind: RootKind::Start(i),
                    multi: self.open || threads::overlaps_itself(t),
                    programs: None,
                    alternative: alternatives.get(i).copied().flatten(),
                    serial: threads::serial_thread(self.program, self.pt, t, &entry_methods),
                    entries,
                });
            }
        }
        roots
    }

    /// One root per entry of the library harness, at the contexts the
    /// harness itself calls it in (a context in which application code
    /// calls the method keeps that caller's locks); at every context of
    /// the method when the harness's own is gone. Either way only where
    /// an outside call can run the method on the context's receivers: not
    /// on objects whose class overrides it
    /// ([`crate::dispatch::harness_may_enter`]).
    ///
    /// An instance method's harness context is named by the harness's
    /// receivers (`Entry` sites). A static method runs in its caller's
    /// context, so a harness object's context there means an application
    /// caller ran on that object (c3p0's constructors pass `this` to the
    /// static `C3P0Registry.reregister`): the harness's own call of a
    /// static method is its class's `Main` context only, with outside
    /// arguments.
    fn harness_roots(&self) -> Vec<Root> {
        let harness_context = |m: MethodId, c: lockstep_pointsto::ContextId| {
            let sites = self.pt.context(c);
            let data = self.program.method(m);
            if data.is_static() {
                let class = &self.program.class(data.class).name;
                return sites
                    .iter()
                    .all(|s| matches!(s, SiteKey::Main(t) if t == class));
            }
            sites
                .iter()
                .all(|s| matches!(s, SiteKey::Entry(_) | SiteKey::Main(_)))
        };
        let node = |m: MethodId, c: lockstep_pointsto::ContextId| {
            self.graph.node(lockstep_pointsto::MethodContext {
                method: m,
                context: c,
            })
        };
        let mut roots = Vec::new();
        for &m in &self.pt.entries().harness {
            let mut contexts = self.pt.contexts_of(m);
            contexts.retain(|&c| crate::dispatch::harness_may_enter(self.program, self.pt, m, c));
            let mut entries: Vec<u32> = contexts
                .iter()
                .filter(|&&c| harness_context(m, c))
                .filter_map(|&c| node(m, c))
                .collect();
            if entries.is_empty() {
                entries = contexts.iter().filter_map(|&c| node(m, c)).collect();
            }
            if !entries.is_empty() {
                roots.push(Root {
                    kind: RootKind::Harness(m),
                    entries,
                    multi: true,
                    programs: None,
                    alternative: None,
                    // An open program's entries share one root: none is serial.
                    serial: (!self.open)
                        .then(|| crate::event_thread::harness_serial(self.program, m))
                        .flatten(),
                });
            }
        }
        roots
    }

    /// Which thread starts may run more than once, counted within each
    /// program (shared code two mains reach runs once per program) when
    /// there are at most [`MAX_COUNTED_PROGRAMS`]; beyond, over all roots
    /// at once (more starts run more than once: more pairs, none lost).
    fn mark_multi_starts(&self, roots: &mut [Root]) {
        if self.open {
            return;
        }
        let mut programs: Vec<Option<u32>> = roots
            .iter()
            .flat_map(|r| r.programs.iter().flatten().copied())
            .map(Some)
            .collect();
        programs.sort_unstable();
        programs.dedup();
        let per_program = programs.len() <= MAX_COUNTED_PROGRAMS;
        if !per_program {
            programs.clear();
        }
        // `None` last: over all roots, the starts of every program (or,
        // past the limit, every start).
        programs.push(None);
        let mut loop_sites = FxHashMap::default();
        for program in programs {
            let updated = |r: &Root| match program {
                Some(_) => r.programs.is_some() && r.in_program(program),
                None => !per_program || r.programs.is_none(),
            };
            self.mark_multi_starts_of(roots, program, &updated, &mut loop_sites);
        }
    }

    /// [`Self::mark_multi_starts`] counted over the roots of one program
    /// (`None`: over all roots), for the starts `updated` selects.
    fn mark_multi_starts_of(
        &self,
        roots: &mut [Root],
        program: Option<u32>,
        updated: &dyn Fn(&Root) -> bool,
        loop_sites: &mut FxHashMap<(MethodId, StmtId), bool>,
    ) {
        let counted = |r: &Root| r.in_program(program);
        for _ in 0..4 {
            let mut sources: Vec<(u32, u8)> = Vec::new();
            for r in roots.iter().filter(|r| counted(r)) {
                let c = if r.multi { 2 } else { 1 };
                sources.extend(r.entries.iter().map(|&e| (e, c)));
            }
            let counts = threads::run_counts(&self.graph, &sources, self.looped_calls());
            let mut changed = false;
            for r in roots.iter_mut() {
                let RootKind::Start(i) = r.kind else { continue };
                if r.multi || !updated(r) {
                    continue;
                }
                let Some(t) = self.pt.thread_starts().get(i) else {
                    continue;
                };
                let caller = self.graph.node(t.caller);
                let many_callers = caller.is_some_and(|n| counts[n as usize] >= 2);
                let looped = *loop_sites
                    .entry((t.caller.method, t.site))
                    .or_insert_with(|| {
                        self.program
                            .body(t.caller.method)
                            .is_some_and(|b| threads::in_loop(&b, t.site))
                    });
                if many_callers || looped || self.task_has_copies(t, &counts, loop_sites) {
                    r.multi = true;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        // Two starts of the same task object at one site are one root;
        // the same task started from two sites are two roots (they race).
    }

    /// Does the one abstract task of a launch of many tasks (`invokeAll`
    /// of a collection or array) stand for several run-time tasks, which
    /// run beside each other: made in a loop, or by a method that runs
    /// more than once? (A thread started in a loop is a start in a loop;
    /// the tasks of a collection are made before their one launch.)
    fn task_has_copies(
        &self,
        t: &lockstep_pointsto::ThreadStart,
        counts: &[u8],
        loop_sites: &mut FxHashMap<(MethodId, StmtId), bool>,
    ) -> bool {
        use lockstep_models::TaskShape;
        if !matches!(t.launch.shape, TaskShape::Collection | TaskShape::Array) {
            return false;
        }
        let Some((method, stmt)) = self.pt.object(t.task).and_then(|i| i.site.location()) else {
            // Objects of no one site (merged, external): many.
            return true;
        };
        let looped = *loop_sites.entry((method, stmt)).or_insert_with(|| {
            self.program
                .body(method)
                .is_some_and(|b| threads::in_loop(&b, stmt))
        });
        let many_runs = self.pt.contexts_of(method).into_iter().any(|context| {
            self.graph
                .node(lockstep_pointsto::MethodContext { method, context })
                .is_some_and(|n| counts.get(n as usize).is_some_and(|&c| c >= 2))
        });
        looped || many_runs
    }

    /// Locks held on entry to every node, over all paths from all roots.
    fn entry_locks(&mut self, roots: &[Root]) -> Vec<Option<LockSet>> {
        // The locks a caller holds at a site are the same for every callee there.
        let mut last_site: Option<(u32, StmtId, Vec<HeldLock>)> = None;
        self.over_callers(
            roots,
            |this, node, site, _callee, here| match &last_site {
                Some((n, s, h)) if *n == node && *s == site => h.clone(),
                _ => {
                    let local = this.local_held(node, site);
                    let h = union(here, &local);
                    last_site = Some((node, site, h.clone()));
                    h
                }
            },
            |this, v| this.intern(v),
        )
    }

    /// A must-intersection over the context call graph: every root entry
    /// starts with nothing, a callee gets the intersection over its
    /// incoming edges of what `passes` says the caller passes on (given
    /// what the caller has on entry); `make` builds the shared sets.
    fn over_callers<T, P, M>(
        &mut self,
        roots: &[Root],
        mut passes: P,
        mut make: M,
    ) -> Vec<Option<Arc<[T]>>>
    where
        T: Clone + PartialEq,
        P: FnMut(&mut Self, u32, StmtId, u32, &Arc<[T]>) -> Vec<T>,
        M: FnMut(&mut Self, Vec<T>) -> Arc<[T]>,
    {
        let n = self.graph.len();
        let empty = make(self, Vec::new());
        let mut entry: Vec<Option<Arc<[T]>>> = vec![None; n];
        let mut queue = std::collections::VecDeque::new();
        let mut queued = vec![false; n];
        for r in roots {
            for &e in &r.entries {
                entry[e as usize] = Some(empty.clone());
                if !queued[e as usize] {
                    queued[e as usize] = true;
                    queue.push_back(e);
                }
            }
        }
        while let Some(node) = queue.pop_front() {
            queued[node as usize] = false;
            let Some(here) = entry[node as usize].clone() else {
                continue;
            };
            let callees = self.graph.callees[node as usize].clone();
            for (site, callee) in callees {
                let held = passes(self, node, site, callee, &here);
                let new = match &entry[callee as usize] {
                    None => held,
                    Some(old) => {
                        if old.iter().all(|l| held.contains(l)) {
                            continue;
                        }
                        old.iter().filter(|l| held.contains(l)).cloned().collect()
                    }
                };
                entry[callee as usize] = Some(make(self, new));
                if !queued[callee as usize] {
                    queued[callee as usize] = true;
                    queue.push_back(callee);
                }
            }
        }
        entry
    }

    /// Does an access hold the lock its field's `@GuardedBy` names?
    pub(crate) fn holds_guard(
        &self,
        a: &AccessStmt,
        guard: &str,
        body: &Body,
        local: &[LocalLock],
        held: &[HeldLock],
        objects: &[ObjectId],
    ) -> bool {
        let guard = guard.trim_start_matches("this.");
        // Syntactic match against the locks this method takes.
        let base = a.base_path.clone();
        let wanted: Option<AccessPath> = match (guard, &base) {
            ("this" | "itself", Some(b)) => Some(b.clone()),
            (g, Some(b)) if !g.contains('.') && !g.contains('(') => {
                Some(AccessPath::Field(Arc::new(b.clone()), Arc::from(g)))
            }
            _ => None,
        };
        let local_match = local.iter().any(|l| {
            let p = l.path(body);
            if wanted.as_ref() == Some(&p) {
                return true;
            }
            match &p {
                AccessPath::Static(c, n) => {
                    let simple = lockstep_ir::simple_class_name(c);
                    guard == &**n
                        || guard == format!("{simple}.{n}")
                        || guard == format!("{}.{n}", crate::util::dotted(c))
                }
                AccessPath::ClassLiteral(c) => {
                    let simple = lockstep_ir::simple_class_name(c);
                    guard == format!("{simple}.class")
                        || guard == format!("{}.class", crate::util::dotted(c))
                }
                _ => false,
            }
        });
        if local_match {
            return true;
        }
        // Locks held by callers: compare objects.
        let lock_objects: Vec<ObjectId> = if guard == "this" || guard == "itself" {
            objects.to_vec()
        } else if !guard.contains('.') {
            let mut v = Vec::new();
            if let Target::Field { class, .. } = &a.target {
                for &o in objects {
                    v.extend(self.pt.field(o, class, guard).iter());
                }
            }
            v
        } else {
            Vec::new()
        };
        held.iter().any(|h| match &h.object {
            LockObject::Object(o) => lock_objects.contains(o),
            LockObject::Class(c) => {
                let simple = lockstep_ir::simple_class_name(c);
                guard == format!("{simple}.class")
            }
            LockObject::OfAccessed { fields, .. } => match &fields[..] {
                [] => guard == "this" || guard == "itself",
                [(_, name)] => guard == &**name,
                _ => false,
            },
            LockObject::OfOwner { .. } => false,
        })
    }
}

impl Analysis<'_> {
    /// The thread roots, each assigned to its program and marked when it
    /// may run more than once (timed as the step "threads").
    fn thread_roots(&mut self, clock: &mut StepClock) -> Vec<Root> {
        let mut roots = self.roots();
        self.assign_programs(&mut roots);
        self.mark_multi_starts(&mut roots);
        if !self.open {
            let (listeners, calls) = crate::event_thread::listener_roots(self.program, &self.graph);
            roots.extend(listeners);
            self.listener_calls = calls;
        }
        clock.lap("threads");
        roots
    }

    /// What each root reaches, after the assumed caller's GUI entries and
    /// the JDK's listener calls are moved onto the event dispatch thread
    /// (which changes both the roots and what they reach), with escape
    /// and ownership. Ownership needs only which nodes some root
    /// reaches, not by which roots, and neither it nor escape reads what
    /// the event thread changes (its twins enter what their roots enter),
    /// so the roots' search runs beside them (with one thread, after them):
    /// the two are the costliest steps before the pairs. The search loads
    /// no class, so it runs second in the loading window and the classes
    /// get the same ids whatever the number of threads. The clock gets one lap each:
    /// "reach" (the search and the event thread), "escape", "ownership"
    /// (their own durations, which overlap when run side by side).
    fn reach_beside_ownership(
        &self,
        roots: &mut Vec<Root>,
        clock: &mut StepClock,
    ) -> (
        Vec<Vec<u32>>,
        crate::escape::Escape,
        crate::ownership::Owned,
    ) {
        enum Half {
            Owner(
                crate::escape::Escape,
                crate::ownership::Owned,
                Duration,
                Duration,
            ),
            Search(Vec<Vec<u32>>, Duration),
        }
        let reached = self.reached_nodes(roots);
        let given: &[Root] = roots;
        let halves = self.program.map_in_order(&[true, false], |&owner| {
            let started = Instant::now();
            if owner {
                let escape = self.escaped();
                let escape_time = started.elapsed();
                let owned = self.ownership(given, &reached, &escape.seeds());
                Half::Owner(escape, owned, escape_time, started.elapsed() - escape_time)
            } else {
                Half::Search(self.reach_roots(given), started.elapsed())
            }
        });
        let (mut reach, mut escape, mut owned) = (None, None, None);
        let mut times = [Duration::ZERO; 3];
        for half in halves {
            match half {
                Half::Owner(e, o, te, to) => {
                    (escape, owned) = (Some(e), Some(o));
                    (times[1], times[2]) = (te, to);
                }
                Half::Search(r, t) => {
                    reach = Some(r);
                    times[0] = t;
                }
            }
        }
        let mut reach = reach.unwrap_or_default();
        let started = Instant::now();
        crate::event_thread::harness_on_event_thread(self.program, &self.graph, roots, &mut reach);
        debug_assert!(
            reach
                .iter()
                .map(|r| !r.is_empty())
                .eq(reached.iter().copied()),
            "ownership ran on other nodes than the roots reach"
        );
        clock.lap_as("reach", times[0] + started.elapsed());
        clock.lap_as("escape", times[1]);
        clock.lap_as("ownership", times[2]);
        let escape = escape.unwrap_or_else(|| self.escaped());
        let owned = owned.unwrap_or_default();
        (reach, escape, owned)
    }

    /// The steps the lock rules read (`deadlock`, `wait-notify`,
    /// `blocking-under-lock`): thread roots, the context call graph, entry
    /// locks, start orderings and ownership (locks on owned objects never
    /// wait). Access buckets and racing pairs are left empty.
    pub fn run_locks_only(mut self) -> RaceFacts {
        let mut clock = StepClock::start();
        let mut roots = self.thread_roots(&mut clock);
        let entry = self.entry_locks(&roots);
        let entry_params = self.entry_param_locks(&roots);
        clock.lap("entry locks");
        let (reach, _, owned) = self.reach_beside_ownership(&mut roots, &mut clock);
        let orderings = self.orderings(&roots, &reach);
        clock.lap("ordering");
        RaceFacts {
            races: Vec::new(),
            roots,
            explanation: None,
            graph: self.graph,
            buckets: Buckets::new(),
            racy: Default::default(),
            shared: Default::default(),
            entry_locks: entry,
            reach,
            orderings,
            timings: clock.laps,
            no_intent: (0, 0),
            owned,
            entry_params,
        }
    }

    /// Runs every step; `explain` names a field (`pkg.Cls.name`) whose
    /// pairs and exempt accesses are recorded with their verdicts.
    pub fn run(mut self, explain: Option<&str>) -> RaceFacts {
        let mut clock = StepClock::start();
        let mut roots = self.thread_roots(&mut clock);
        let entry = self.entry_locks(&roots);
        self.entry_params = self.entry_param_locks(&roots);
        clock.lap("entry locks");
        let (reach, escape, owned) = self.reach_beside_ownership(&mut roots, &mut clock);
        self.owned = owned;
        let orderings = self.orderings(&roots, &reach);
        self.queue_handoffs = self.queue_handoffs(&roots, &reach);
        let mut per_instance = self.per_instance(&roots, &escape.shared);
        self.confine_to_instances(&roots, &reach, &mut per_instance);
        self.per_instance = per_instance;
        clock.lap("ordering");
        let reached: Vec<bool> = reach.iter().map(|r| !r.is_empty()).collect();
        self.gates = self.once_gates(&reached, &roots);
        clock.lap("once-gates");
        let mut explanation = explain.map(|f| Explanation {
            field: f.to_string(),
            ..Explanation::default()
        });
        let reached = Reached {
            entry: &entry,
            roots: &reach,
            orderings: &orderings,
            shared: &escape.shared,
        };
        let buckets = self.buckets(reached, explanation.as_mut());
        if let Some(ex) = explanation.as_mut() {
            for ((target, o), list) in &buckets {
                if let Some(o) = o {
                    if ex.covers(target, list) {
                        ex.escapes.insert(escape.chain(self.program, self.pt, *o));
                    }
                }
            }
        }
        clock.lap("accesses/buckets");
        let shared = escape.shared;
        let Pairs { races, racy } = self.pairs(&buckets, &roots, explanation.as_mut());
        clock.lap("pairs");
        let set_aside = &self.intent.set_aside;
        let no_intent = (
            set_aside.len(),
            set_aside.iter().filter(|s| !racy.contains(s)).count(),
        );
        let owned = std::mem::take(&mut self.owned);
        let entry_params = std::mem::take(&mut self.entry_params);
        RaceFacts {
            races,
            roots,
            explanation,
            graph: self.graph,
            buckets,
            racy,
            shared,
            entry_locks: entry,
            reach,
            orderings,
            timings: clock.laps,
            no_intent,
            owned,
            entry_params,
        }
    }
}

/// Time per step of [`Analysis::run`], for `--stats` (measured, not
/// printed: the caller decides what to show).
struct StepClock {
    last: Instant,
    laps: Vec<(&'static str, Duration)>,
}

impl StepClock {
    fn start() -> StepClock {
        StepClock {
            last: Instant::now(),
            laps: Vec::new(),
        }
    }

    /// Records step `name` as taking `took` (steps run side by side time
    /// themselves) and starts the next step now.
    fn lap_as(&mut self, name: &'static str, took: Duration) {
        self.laps.push((name, took));
        self.last = Instant::now();
    }

    /// Ends the step `name` (started at the previous lap, or at the start).
    fn lap(&mut self, name: &'static str) {
        let now = Instant::now();
        self.laps.push((name, now.duration_since(self.last)));
        self.last = now;
    }
}

impl Analysis<'_> {
    /// The once-gates of the reached application methods.
    fn once_gates(&self, reached: &[bool], roots: &[Root]) -> crate::once_gate::Gates {
        let is_reached = |x: usize| reached.get(x).copied().unwrap_or(false);
        let mut methods: Vec<MethodId> = (0..self.graph.len())
            .filter(|&x| is_reached(x))
            .map(|x| self.graph.nodes[x].method)
            .filter(|&m| self.program.is_application(self.program.method(m).class))
            .collect();
        methods.sort_unstable();
        methods.dedup();
        let mut gates = crate::once_gate::find(self.program, &methods);
        if gates.is_empty() {
            return gates;
        }
        let entered: FxHashSet<MethodId> = roots
            .iter()
            .flat_map(|r| r.entries.iter())
            .map(|&n| self.graph.nodes[n as usize].method)
            .collect();
        let calls: Vec<(MethodId, StmtId, MethodId)> = (0..self.graph.len())
            .filter(|&x| is_reached(x))
            .flat_map(|x| {
                let caller = self.graph.nodes[x].method;
                self.graph.callees[x]
                    .iter()
                    .map(move |&(s, c)| (caller, s, self.graph.nodes[c as usize].method))
            })
            .collect();
        gates.extend_to_callees(self.program, &calls, &entered);
        gates
    }

    /// Is a container call on object `o` an access of a non-thread-safe
    /// JDK container? Not when the object's class is thread-safe, nor when
    /// the call dispatches to application code (a user collection's own
    /// fields are analysed as fields).
    pub(crate) fn container_call_on(&self, o: ObjectId, a: &AccessStmt) -> bool {
        let Some(info) = self.pt.object(o) else {
            return false;
        };
        let ty: &str = info.type_name;
        let is_subtype = |x: &str, y: &str| self.program.is_subtype_name(x, y);
        if lockstep_models::is_thread_safe_via(ty, &is_subtype) {
            return false;
        }
        if lockstep_models::is_jdk_class(ty) || ty.starts_with('[') {
            return true;
        }
        let (Some(c), Some((name, desc))) = (self.program.class_by_name(ty), a.callee.as_ref())
        else {
            return true;
        };
        match self.program.dispatch(c, name, desc) {
            Some(m) => !self.program.is_application(self.program.method(m).class),
            None => true,
        }
    }
}

/// Does a class show it is meant for concurrent use: `@ThreadSafe`, a
/// `volatile` or `java.util.concurrent` field, a `synchronized` method or
/// block, or a body for which `takes_juc_lock` holds?
pub fn concurrent_intent(
    program: &Program,
    class: lockstep_program::ClassId,
    takes_juc_lock: &mut dyn FnMut(MethodId, &Body) -> bool,
) -> bool {
    class_policy(&program.class(class).file.annotations).thread_safe
        || lockstep_program::shows_concurrent_use(program, class, takes_juc_lock)
}
