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

use lockstep_ir::{AccessPath, Body, StmtId};
use lockstep_pointsto::{ObjectId, PointsToResult, SiteKey};
use lockstep_program::{MethodId, Program};
use rustc_hash::{FxHashMap, FxHashSet};

use super::accesses::{self, AccessStmt, BodyAccesses, FieldTable, Kind, Target};
use super::annotations::class_policy;
use super::local_locks::{self, BodyLocks, LocalLock};
use super::locks::{common_lock, intersect, union, HeldLock, LockObject, LockResolver, LockSet};
use super::threads::{self, Graph, Root, RootKind};

/// Non-multi thread starts for which start/join ordering is computed
/// (each costs one traversal of the call graph).
const MAX_ORDERED_STARTS: usize = 64;

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
    /// Open program: the class shows no sign of being meant for
    /// concurrent use (no lock anywhere in it, none held at either access).
    NotConcurrentClass,
}

/// An access statement and its kind.
pub type AccessSite = (MethodId, StmtId, Kind);

/// One line of an explanation.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ExplainedPair {
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
    pub exempt: BTreeSet<(MethodId, StmtId, Kind, String)>,
}

pub struct Output {
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
}

/// Accesses per (target, object); statics have no object.
pub type Buckets = BTreeMap<(Target, Option<ObjectId>), Vec<Access>>;

/// The analysis state.
pub struct Analysis<'a> {
    pub program: &'a Program,
    pub pt: &'a PointsToResult,
    pub graph: Graph,
    pub open: bool,
    resolver: LockResolver<'a>,
    body_locks: FxHashMap<MethodId, Arc<BodyLocks>>,
    lock_sets: FxHashMap<Vec<HeldLock>, LockSet>,
    /// Classes that take a lock somewhere (open-program filter).
    locking_classes: FxHashMap<Arc<str>, bool>,
    /// Skip that filter.
    every_class: bool,
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
            locking_classes: FxHashMap::default(),
            every_class: false,
        }
    }

    /// Open programs: also report races in classes that show no sign of
    /// being meant for concurrent use (the plain harness of paper 002).
    pub fn every_class(mut self, yes: bool) -> Self {
        self.every_class = yes;
        self
    }

    fn intern(&mut self, v: Vec<HeldLock>) -> LockSet {
        if let Some(s) = self.lock_sets.get(&v) {
            return s.clone();
        }
        let s: LockSet = Arc::from(v.clone());
        self.lock_sets.insert(v, s.clone());
        s
    }

    fn locks_of(&mut self, m: MethodId, body: &Body) -> Arc<BodyLocks> {
        if let Some(l) = self.body_locks.get(&m) {
            return l.clone();
        }
        let l = Arc::new(local_locks::analyse(self.program, body));
        self.body_locks.insert(m, l.clone());
        l
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
            // Only the harness's own calls are entries: a context in which
            // application code calls the method keeps that caller's locks.
            let harness = |c: lockstep_pointsto::ContextId| {
                self.pt
                    .context(c)
                    .iter()
                    .all(|s| matches!(s, SiteKey::Entry(_)))
            };
            for &m in &self.pt.entries().methods {
                let entries: Vec<u32> = self
                    .pt
                    .contexts_of(m)
                    .into_iter()
                    .filter(|&c| harness(c))
                    .filter_map(|c| {
                        self.graph.node(lockstep_pointsto::MethodContext {
                            method: m,
                            context: c,
                        })
                    })
                    .collect();
                let entries = if entries.is_empty() {
                    nodes_of(m)
                } else {
                    entries
                };
                if !entries.is_empty() {
                    roots.push(Root {
                        kind: RootKind::Harness(m),
                        entries,
                        multi: true,
                    });
                }
            }
        } else {
            let entries: Vec<u32> = self
                .pt
                .entry_contexts()
                .into_iter()
                .filter_map(|mc| self.graph.node(mc))
                .collect();
            roots.push(Root {
                kind: RootKind::Main,
                entries,
                multi: false,
            });
            for c in self.program.application_classes() {
                let info = self.program.class(c);
                if !class_policy(&info.file.annotations).thread_safe {
                    continue;
                }
                for &m in &info.methods {
                    let d = self.program.method(m);
                    if !d.is_public() || d.is_constructor() || d.is_class_initializer() {
                        continue;
                    }
                    let entries = nodes_of(m);
                    if !entries.is_empty() {
                        roots.push(Root {
                            kind: RootKind::ThreadSafeApi(m),
                            entries,
                            multi: true,
                        });
                    }
                }
            }
        }
        for (i, t) in self.pt.thread_starts().iter().enumerate() {
            let entries: Vec<u32> = self
                .pt
                .thread_entries(t)
                .into_iter()
                .filter_map(|mc| self.graph.node(mc))
                .collect();
            if !entries.is_empty() {
                roots.push(Root {
                    kind: RootKind::Start(i),
                    entries,
                    multi: self.open || threads::periodic(t),
                });
            }
        }
        roots
    }

    /// Which thread starts may run more than once.
    fn mark_multi_starts(&self, roots: &mut [Root]) {
        if self.open {
            return;
        }
        let mut loop_sites = FxHashMap::default();
        for _ in 0..4 {
            let mut sources: Vec<(u32, u8)> = Vec::new();
            for r in roots.iter() {
                let c = if r.multi { 2 } else { 1 };
                sources.extend(r.entries.iter().map(|&e| (e, c)));
            }
            let counts = threads::run_counts(self.program, &self.graph, &sources, &mut loop_sites);
            let mut changed = false;
            for r in roots.iter_mut() {
                let RootKind::Start(i) = r.kind else { continue };
                if r.multi {
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
                if many_callers || looped {
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

    /// Locks held on entry to every node, over all paths from all roots.
    fn entry_locks(&mut self, roots: &[Root]) -> Vec<Option<LockSet>> {
        let n = self.graph.len();
        let empty = self.intern(Vec::new());
        let mut entry: Vec<Option<LockSet>> = vec![None; n];
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
            let mut last_site: Option<(StmtId, Vec<HeldLock>)> = None;
            for (site, callee) in callees {
                let held = match &last_site {
                    Some((s, h)) if *s == site => h.clone(),
                    _ => {
                        let local = self.local_held(node, site);
                        let h = union(&here, &local);
                        last_site = Some((site, h.clone()));
                        h
                    }
                };
                let slot = &entry[callee as usize];
                let new = match slot {
                    None => held,
                    Some(old) => {
                        if old.iter().all(|l| held.contains(l)) {
                            continue;
                        }
                        intersect(old, &held)
                    }
                };
                let new = self.intern(new);
                entry[callee as usize] = Some(new);
                if !queued[callee as usize] {
                    queued[callee as usize] = true;
                    queue.push_back(callee);
                }
            }
        }
        entry
    }

    /// Objects other threads can reach: everything reachable through
    /// fields from static fields, thread and task objects, objects made
    /// outside the analysed code, and the open-program harness.
    /// (`LOCKSTEP_DEBUG_ESCAPE=<text>` prints how objects whose
    /// description contains the text escape.)
    fn escaped(&self) -> Vec<bool> {
        let n = self.pt.object_count();
        let mut shared = vec![false; n];
        let mut stack: Vec<ObjectId> = Vec::new();
        let push = |o: ObjectId, shared: &mut Vec<bool>, stack: &mut Vec<ObjectId>| {
            if let Some(s) = shared.get_mut(o.0 as usize) {
                if !*s {
                    *s = true;
                    stack.push(o);
                }
            }
        };
        for (_, set) in self.pt.static_fields() {
            for o in set.iter() {
                push(o, &mut shared, &mut stack);
            }
        }
        for t in self.pt.thread_starts() {
            push(t.task, &mut shared, &mut stack);
        }
        // Instances of `@ThreadSafe` classes are meant to be shared.
        let mut thread_safe_class: FxHashMap<Arc<str>, bool> = FxHashMap::default();
        for o in self.pt.objects() {
            if let Some(info) = self.pt.object(o) {
                let annotated = *thread_safe_class
                    .entry(info.type_name.clone())
                    .or_insert_with(|| {
                        self.program.class_by_name(info.type_name).is_some_and(|c| {
                            let cl = self.program.class(c);
                            cl.is_application && class_policy(&cl.file.annotations).thread_safe
                        })
                    });
                if annotated
                    || matches!(
                        info.site,
                        SiteKey::Entry(_) | SiteKey::Vm(_) | SiteKey::Opaque(_)
                    )
                {
                    push(o, &mut shared, &mut stack);
                }
            }
        }
        let debug = std::env::var("LOCKSTEP_DEBUG_ESCAPE").ok();
        let mut why: FxHashMap<ObjectId, (ObjectId, String)> = FxHashMap::default();
        while let Some(o) = stack.pop() {
            // The JDK's merged internal objects stand for every object of
            // their type the JDK makes: following their fields would
            // publish whatever any of them ever held (every `Appendable`
            // through one normalizer buffer).
            if self
                .pt
                .object(o)
                .is_some_and(|i| matches!(i.site, SiteKey::Library(_)))
            {
                continue;
            }
            for (k, set) in self.pt.fields_of(o) {
                for x in set.iter() {
                    if debug.is_some() && !shared[x.0 as usize] {
                        why.insert(x, (o, format!("{k:?}")));
                    }
                    push(x, &mut shared, &mut stack);
                }
            }
        }
        if let Some(pat) = debug {
            for o in self.pt.objects() {
                let d = self.pt.describe_object(self.program, o);
                if shared[o.0 as usize] && d.contains(&pat) {
                    let mut cur = o;
                    eprintln!("escape of {d}:");
                    for _ in 0..12 {
                        let Some((up, f)) = why.get(&cur) else { break };
                        eprintln!(
                            "   via {f} of {}",
                            self.pt.describe_object(self.program, *up)
                        );
                        cur = *up;
                    }
                }
            }
        }
        shared
    }

    /// Does an access hold the lock its field's `@GuardedBy` names?
    fn holds_guard(
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
                Some(AccessPath::Field(Box::new(b.clone()), Arc::from(g)))
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
        })
    }

    /// Runs everything; `explain` names a field (`pkg.Cls.name`) to explain.
    pub fn run(mut self, explain: Option<&str>) -> Output {
        let mut roots = self.roots();
        self.mark_multi_starts(&mut roots);
        let entry = self.entry_locks(&roots);
        let n = self.graph.len();

        // Which roots reach each node.
        let mut reach_roots: Vec<Vec<u32>> = vec![Vec::new(); n];
        if self.open {
            let all: Vec<u32> = roots.iter().flat_map(|r| r.entries.clone()).collect();
            let parent = self.graph.bfs(&all, |_, _| false);
            for (i, p) in parent.iter().enumerate() {
                if p.is_some() {
                    reach_roots[i].push(0);
                }
            }
        } else {
            for (ri, r) in roots.iter().enumerate() {
                let parent = self.graph.bfs(&r.entries, |_, _| false);
                for (i, p) in parent.iter().enumerate() {
                    if p.is_some() {
                        reach_roots[i].push(ri as u32);
                    }
                }
            }
        }

        // Start/join ordering per (non-repeating) thread start.
        struct Ordering {
            root: u32,
            caller: u32,
            stmts: Vec<bool>,
            reached: Vec<bool>,
        }
        let mut orderings: Vec<Ordering> = Vec::new();
        if !self.open {
            for (ri, r) in roots.iter().enumerate() {
                if orderings.len() >= MAX_ORDERED_STARTS {
                    break;
                }
                let RootKind::Start(i) = r.kind else { continue };
                if r.multi {
                    continue;
                }
                let Some(t) = self.pt.thread_starts().get(i) else {
                    continue;
                };
                let Some(caller) = self.graph.node(t.caller) else {
                    continue;
                };
                let Some(body) = self.program.body(t.caller.method) else {
                    continue;
                };
                let stmts = threads::ordered_statements(self.program, self.pt, t, &body);
                let others: Vec<u32> = roots
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != ri)
                    .flat_map(|(_, r)| r.entries.clone())
                    .collect();
                let parent = self.graph.bfs(&others, |node, site| {
                    node == caller && stmts.get(site.index()).copied().unwrap_or(false)
                });
                orderings.push(Ordering {
                    root: ri as u32,
                    caller,
                    stmts,
                    reached: parent.iter().map(Option::is_some).collect(),
                });
            }
        }

        let shared = self.escaped();
        let mut fields = FieldTable::default();
        let mut stmts_cache: FxHashMap<MethodId, Arc<BodyAccesses>> = FxHashMap::default();
        let mut explanation = explain.map(|f| Explanation {
            field: f.to_string(),
            ..Explanation::default()
        });
        let mut root_sets: FxHashMap<Vec<u32>, Arc<[u32]>> = FxHashMap::default();
        let intern_ids = |v: Vec<u32>, sets: &mut FxHashMap<Vec<u32>, Arc<[u32]>>| -> Arc<[u32]> {
            if let Some(s) = sets.get(&v) {
                return s.clone();
            }
            let s: Arc<[u32]> = Arc::from(v.clone());
            sets.insert(v, s.clone());
            s
        };

        // Buckets: (target, object) → accesses, deduplicated by their facts.
        type Key = (
            MethodId,
            StmtId,
            Kind,
            LockSet,
            Arc<[u32]>,
            Arc<[u32]>,
            bool,
        );
        let mut buckets: Buckets = BTreeMap::new();
        let mut seen: FxHashSet<(Target, Option<ObjectId>, Key)> = FxHashSet::default();
        // The JDK's merged internal objects (one per type for everything
        // JDK code allocates) are not the application's memory.
        let library_object: Vec<bool> = self
            .pt
            .objects()
            .map(|o| {
                self.pt
                    .object(o)
                    .is_some_and(|i| matches!(i.site, SiteKey::Library(_)))
            })
            .collect();
        let mut thread_local: BTreeSet<(MethodId, StmtId, Kind)> = BTreeSet::new();

        for node in 0..n as u32 {
            let mc = self.graph.nodes[node as usize];
            if reach_roots[node as usize].is_empty() {
                continue;
            }
            let data = self.program.method(mc.method);
            if !self.program.is_application(data.class) {
                continue;
            }
            let Some(body) = self.program.body(mc.method) else {
                continue;
            };
            let collected = match stmts_cache.get(&mc.method) {
                Some(c) => c.clone(),
                None => {
                    let c = Arc::new(accesses::collect(
                        self.program,
                        mc.method,
                        &body,
                        &mut fields,
                    ));
                    stmts_cache.insert(mc.method, c.clone());
                    c
                }
            };
            if let Some(ex) = explanation.as_mut() {
                for (s, t, k, why) in &collected.1 {
                    if target_name(t).as_deref() == Some(&ex.field) {
                        ex.exempt
                            .insert((mc.method, *s, *k, why.describe().to_string()));
                    }
                }
            }
            if collected.0.is_empty() {
                continue;
            }
            let body_locks = self.locks_of(mc.method, &body);
            let entry_locks = entry[node as usize]
                .clone()
                .unwrap_or_else(|| Arc::from(Vec::new()));
            let roots_here = intern_ids(reach_roots[node as usize].clone(), &mut root_sets);
            for a in &collected.0 {
                // The objects touched.
                let objects: Vec<Option<ObjectId>> = match (&a.target, a.base) {
                    (Target::Static { .. }, _) => vec![None],
                    (_, Some(b)) => {
                        let set = self.pt.var_in(mc.method, mc.context, b);
                        let mut v: Vec<Option<ObjectId>> = Vec::new();
                        for o in set.iter() {
                            if !shared.get(o.0 as usize).copied().unwrap_or(false)
                                || library_object[o.0 as usize]
                            {
                                continue;
                            }
                            if matches!(a.target, Target::Container)
                                && !self.container_call_on(o, a)
                            {
                                continue;
                            }
                            v.push(Some(o));
                        }
                        v
                    }
                    _ => Vec::new(),
                };
                if objects.is_empty() {
                    thread_local.insert((mc.method, a.stmt, a.kind));
                    continue;
                }
                let local = body_locks.at(a.stmt).to_vec();
                let resolved = if local.is_empty() {
                    Vec::new()
                } else {
                    self.resolver.resolve(mc.method, mc.context, &body, &local)
                };
                let held = self.intern(union(&entry_locks, &resolved));
                let object_ids: Vec<ObjectId> = objects.iter().flatten().copied().collect();
                let guarded = match &a.guard {
                    Some(g) => self.holds_guard(a, g, &body, &local, &held, &object_ids),
                    None => false,
                };
                let ordered: Vec<u32> = orderings
                    .iter()
                    .filter(|o| {
                        if node == o.caller {
                            o.stmts.get(a.stmt.index()).copied().unwrap_or(false)
                        } else {
                            !o.reached.get(node as usize).copied().unwrap_or(true)
                        }
                    })
                    .map(|o| o.root)
                    .collect();
                let ordered = intern_ids(ordered, &mut root_sets);
                for obj in objects {
                    let key: Key = (
                        mc.method,
                        a.stmt,
                        a.kind,
                        held.clone(),
                        roots_here.clone(),
                        ordered.clone(),
                        guarded,
                    );
                    if !seen.insert((a.target.clone(), obj, key)) {
                        continue;
                    }
                    buckets
                        .entry((a.target.clone(), obj))
                        .or_default()
                        .push(Access {
                            node,
                            method: mc.method,
                            stmt: a.stmt,
                            kind: a.kind,
                            locks: held.clone(),
                            roots: roots_here.clone(),
                            ordered: ordered.clone(),
                            guarded,
                            holder: a.holder.clone(),
                        });
                }
            }
        }
        if let Some(ex) = explanation.as_mut() {
            for &(m, s, k) in &thread_local {
                let t = stmts_cache
                    .get(&m)
                    .and_then(|c| c.0.iter().find(|a| a.stmt == s).map(|a| a.target.clone()));
                if t.as_ref().and_then(target_name).as_deref() == Some(&ex.field) {
                    ex.exempt.insert((
                        m,
                        s,
                        k,
                        "the object is not shared with another thread".into(),
                    ));
                }
            }
        }

        // Pairs.
        let mut races: BTreeMap<RaceKey, Race> = BTreeMap::new();
        let mut racy: FxHashSet<(MethodId, StmtId)> = FxHashSet::default();
        let mut partners: BTreeMap<RaceKey, BTreeMap<SourceKey, Partner>> = BTreeMap::new();
        let open = self.open;
        let concurrent = |a: &Access, b: &Access| -> Option<(u32, u32)> {
            if open {
                let r = a.roots.first().copied().unwrap_or(0);
                return Some((r, b.roots.first().copied().unwrap_or(0)));
            }
            for &ra in a.roots.iter() {
                for &rb in b.roots.iter() {
                    if ra == rb && !roots[ra as usize].multi {
                        continue;
                    }
                    if ra != rb && (b.ordered.contains(&ra) || a.ordered.contains(&rb)) {
                        continue;
                    }
                    return Some((ra, rb));
                }
            }
            None
        };
        for ((target, obj), list) in &buckets {
            let explaining = explanation
                .as_ref()
                .is_some_and(|e| target_name(target).as_deref() == Some(&e.field));
            // Source keys once per access, ranked so that the pair loop
            // compares integers in source-key order (the keys hold class
            // names: comparing them per pair dominated big programs).
            let keys: Vec<SourceKey> = list.iter().map(|a| self.source_key(a)).collect();
            let rank: Vec<u32> = {
                let mut sorted: Vec<&SourceKey> = keys.iter().collect();
                sorted.sort();
                sorted.dedup();
                keys.iter()
                    .map(|k| sorted.binary_search(&k).map(|r| r as u32).unwrap_or(0))
                    .collect()
            };
            // Per racing access (by rank): (its index, its first partner's
            // index, the roots), and every partner by rank.
            let mut local: BTreeMap<u32, LocalRace> = BTreeMap::new();
            for i in 0..list.len() {
                for j in i..list.len() {
                    let (a, b) = (&list[i], &list[j]);
                    if a.kind == Kind::Read && b.kind == Kind::Read {
                        continue;
                    }
                    let verdict = if let Some(l) = common_lock(&a.locks, &b.locks) {
                        Verdict::CommonLock(self.resolver.describe(l))
                    } else if a.guarded && b.guarded {
                        Verdict::GuardedBy
                    } else if concurrent(a, b).is_none() {
                        Verdict::NotConcurrent
                    } else if self.open
                        && !self.every_class
                        && !matches!(target, Target::Static { .. })
                        && a.locks.is_empty()
                        && b.locks.is_empty()
                        && !self.meant_concurrent(target, a, b)
                    {
                        Verdict::NotConcurrentClass
                    } else {
                        Verdict::Race
                    };
                    if explaining {
                        if let Some(ex) = explanation.as_mut() {
                            let (x, y) = order_pair(self.program, a, b);
                            ex.pairs.insert(ExplainedPair {
                                first: (x.method, x.stmt, x.kind),
                                second: (y.method, y.stmt, y.kind),
                                verdict: verdict.clone(),
                            });
                        }
                    }
                    if verdict != Verdict::Race {
                        continue;
                    }
                    racy.insert((a.method, a.stmt));
                    racy.insert((b.method, b.stmt));
                    let Some(rr) = concurrent(a, b) else { continue };
                    let (fi, si, rr) = if std::ptr::eq(order_pair(self.program, a, b).0, a) {
                        (i, j, rr)
                    } else {
                        (j, i, (rr.1, rr.0))
                    };
                    // One finding per field and racing access (the write);
                    // every access it races with is listed, once per source
                    // location (a write wins over a read at one location).
                    let entry = local.entry(rank[fi]).or_insert_with(|| LocalRace {
                        first: fi,
                        second: si,
                        roots: rr,
                        partners: BTreeMap::new(),
                    });
                    let slot = entry.partners.entry(rank[si]).or_insert((si, rr));
                    if list[slot.0].kind == Kind::Read && list[si].kind == Kind::Write {
                        *slot = (si, rr);
                    }
                }
            }
            if local.is_empty() {
                continue;
            }
            let name = target_name(target).unwrap_or_default();
            for lr in local.into_values() {
                let key = (target.clone(), name.clone(), keys[lr.first].clone());
                let entry = races.entry(key.clone()).or_insert_with(|| Race {
                    target: target.clone(),
                    first: list[lr.first].clone(),
                    second: list[lr.second].clone(),
                    roots: lr.roots,
                    objects: Vec::new(),
                    guard: None,
                    others: Vec::new(),
                });
                if let Some(o) = obj {
                    if !entry.objects.contains(o) && entry.objects.len() < 8 {
                        entry.objects.push(*o);
                    }
                }
                let global = partners.entry(key).or_default();
                for (si, rr) in lr.partners.into_values() {
                    let second = &list[si];
                    let slot = global
                        .entry(keys[si].clone())
                        .or_insert_with(|| (second.clone(), rr));
                    if slot.0.kind == Kind::Read && second.kind == Kind::Write {
                        *slot = (second.clone(), rr);
                    }
                }
            }
        }
        if let Some(ex) = explanation.as_mut() {
            // Pairs of accesses of the field that never share a bucket
            // touch no common object.
            let mut sites: BTreeSet<(MethodId, StmtId, Kind)> = BTreeSet::new();
            for ((target, _), list) in &buckets {
                if target_name(target).as_deref() == Some(&ex.field) {
                    sites.extend(list.iter().map(|a| (a.method, a.stmt, a.kind)));
                }
            }
            let judged: BTreeSet<(AccessSite, AccessSite)> = ex
                .pairs
                .iter()
                .flat_map(|p| [(p.first, p.second), (p.second, p.first)])
                .collect();
            let sites: Vec<_> = sites.into_iter().collect();
            for (i, a) in sites.iter().enumerate() {
                for b in &sites[i..] {
                    if a.2 == Kind::Read && b.2 == Kind::Read {
                        continue;
                    }
                    if !judged.contains(&(*a, *b)) {
                        ex.pairs.insert(ExplainedPair {
                            first: *a,
                            second: *b,
                            verdict: Verdict::NoCommonObject,
                        });
                    }
                }
            }
        }
        for (key, race) in races.iter_mut() {
            let mut list: Vec<Partner> = partners
                .remove(key)
                .map(|m| m.into_values().collect())
                .unwrap_or_default();
            // Writes first, then source order (the map's order).
            list.sort_by_key(|(a, _)| a.kind != Kind::Write);
            if let Some((a, rr)) = list.first() {
                race.second = a.clone();
                race.roots = *rr;
            }
            race.others = list.into_iter().skip(1).map(|(a, rr)| (a, rr.1)).collect();
        }
        let mut races: Vec<Race> = races.into_values().collect();
        for r in &mut races {
            if let Target::Field { class, name } | Target::Static { class, name } = &r.target {
                if let Some(c) = self.program.class_by_name(class) {
                    r.guard = self
                        .program
                        .class(c)
                        .file
                        .fields
                        .iter()
                        .find(|f| f.name == *name)
                        .and_then(|f| super::annotations::guarded_by(&f.annotations));
                }
            }
        }
        Output {
            races,
            roots,
            explanation,
            graph: self.graph,
            buckets,
            racy,
            shared,
        }
    }
}

impl Analysis<'_> {
    /// Is a container call on object `o` an access of a non-thread-safe
    /// JDK container? Not when the object's class is thread-safe, nor when
    /// the call dispatches to application code (a user collection's own
    /// fields are analysed as fields).
    fn container_call_on(&self, o: ObjectId, a: &AccessStmt) -> bool {
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

    /// Does a class show that it is meant for concurrent use: a lock
    /// taken anywhere in it, a `volatile` or atomic field, or `@ThreadSafe`?
    fn class_uses_locks(&mut self, class: &str) -> bool {
        if let Some(&v) = self.locking_classes.get(class) {
            return v;
        }
        let v = match self.program.class_by_name(class) {
            Some(c) => {
                let program = self.program;
                concurrent_intent(program, c, &mut |m, body| {
                    self.locks_of(m, body).before.iter().any(|l| !l.is_empty())
                })
            }
            None => false,
        };
        self.locking_classes.insert(Arc::from(class), v);
        v
    }

    /// Open programs: is the memory of this pair in a class meant for
    /// concurrent use? The class declaring the field (or holding the
    /// array or container), or a class whose code makes one of the accesses.
    fn meant_concurrent(&mut self, target: &Target, a: &Access, b: &Access) -> bool {
        let mut classes: Vec<Arc<str>> = Vec::new();
        match target {
            Target::Field { class, .. } | Target::Static { class, .. } => {
                classes.push(class.clone())
            }
            _ => {
                if let Some((c, _)) = a.holder.as_ref().or(b.holder.as_ref()) {
                    classes.push(c.clone());
                }
            }
        }
        for x in [a, b] {
            classes.push(
                self.program
                    .class(self.program.method(x.method).class)
                    .name
                    .clone(),
            );
        }
        classes.iter().any(|c| self.class_uses_locks(c))
    }
}

/// Does a class show it is meant for concurrent use: `@ThreadSafe`, a
/// `volatile` or `java.util.concurrent` field, a `synchronized` method or
/// block, or a body for which `takes_juc_lock` holds?
pub(crate) fn concurrent_intent(
    program: &Program,
    class: lockstep_program::ClassId,
    takes_juc_lock: &mut dyn FnMut(MethodId, &Body) -> bool,
) -> bool {
    let info = program.class(class);
    if class_policy(&info.file.annotations).thread_safe {
        return true;
    }
    let concurrent_field = info.file.fields.iter().any(|f| {
        f.access_flags & lockstep_classfile::access::VOLATILE != 0
            || f.descriptor.starts_with("Ljava/util/concurrent/")
    });
    if concurrent_field {
        return true;
    }
    for &m in &info.methods {
        if program.method(m).is_synchronized() {
            return true;
        }
        let Some(body) = program.body(m) else {
            continue;
        };
        if !body.monitors.is_empty() || takes_juc_lock(m, &body) {
            return true;
        }
    }
    false
}

/// One finding: the field and the location of the racing write.
type RaceKey = (Target, String, SourceKey);

/// A finding's racing access within one bucket: indices into the bucket,
/// and its partners by source-key rank.
struct LocalRace {
    first: usize,
    second: usize,
    roots: (u32, u32),
    partners: BTreeMap<u32, (usize, (u32, u32))>,
}

/// An access racing with a finding's write, with the pair of roots.
type Partner = (Access, (u32, u32));

/// A source location for deduplication: class, method, line (or statement
/// when there is no line table).
type SourceKey = (Arc<str>, MethodId, u32);

impl Analysis<'_> {
    fn source_key(&self, a: &Access) -> SourceKey {
        let class = self
            .program
            .class(self.program.method(a.method).class)
            .name
            .clone();
        let line = crate::util::line_of(self.program, a.method, Some(a.stmt))
            .map(|l| l << 1)
            .unwrap_or(a.stmt.0 << 1 | 1);
        (class, a.method, line)
    }
}

/// The access a finding is reported at: the write, or of two writes the
/// one that comes first in (method, statement) order.
fn order_pair<'x>(program: &Program, a: &'x Access, b: &'x Access) -> (&'x Access, &'x Access) {
    let key = |x: &Access| {
        let class = program.class(program.method(x.method).class).name.clone();
        let line = crate::util::line_of(program, x.method, Some(x.stmt));
        (class, line, x.method, x.stmt)
    };
    match (a.kind, b.kind) {
        (Kind::Write, Kind::Read) => (a, b),
        (Kind::Read, Kind::Write) => (b, a),
        _ => {
            if key(a) <= key(b) {
                (a, b)
            } else {
                (b, a)
            }
        }
    }
}
