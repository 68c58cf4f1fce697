//! Call graphs: class hierarchy analysis (CHA) and rapid type analysis
//! (RTA, Bacon & Sweeney 1996), over application *and* reached library code.
//!
//! Both run one worklist from the entry points. A reachable method's body
//! is scanned once: static and special calls get their resolved target;
//! each virtual/interface call joins a *group* keyed by (static receiver
//! type, name, descriptor) whose targets are the dispatches of every
//! "live" subtype of the receiver type. Live types grow monotonically;
//! when one appears, every group keyed by one of its super types gets its
//! dispatch, so the result is the least fixpoint whatever the processing
//! order. For RTA the live types are the classes allocated (`new`) in
//! reachable methods and the lambda objects of reachable lambda sites (see
//! `lambda`); for CHA they are every concrete application class plus every
//! concrete class *named* by reachable code (allocated, called, or whose
//! fields are accessed). Textbook CHA would take every subtype on the class
//! path, but library classes are loaded lazily and the JDK alone has tens of
//! thousands; "named by reachable code" keeps CHA a superset of RTA (RTA's
//! live classes are allocated, hence named, in methods that CHA also
//! reaches) without loading the world.
//!
//! Lambda objects: a SAM call on a live lambda goes straight to the
//! implementation method (static, special, constructor), or, for a method
//! reference with virtual dispatch (`this::work`, `String::length`), to
//! whatever that reference's own virtual call dispatches to. No edge starts
//! at the `invokedynamic` site itself; the sites are listed in
//! [`CallGraph::lambda_sites`].
//!
//! Class initialisation: `<clinit>` of a class (and its superclasses) is
//! reachable once the class is allocated, one of its static fields is
//! accessed, or one of its static methods is called, and for the classes of
//! the entry points. These are listed in [`CallGraph::class_inits`] without
//! edges: a static initializer runs once, whichever site triggers it.
//!
//! Thread starts: a call matching a `lockstep_models` launch model in code
//! outside the JDK (`t.start()`, `executor.submit(task)`, ...) gets an extra
//! [`EdgeKind::TaskLaunch`] edge to the task's entry method (`run()`,
//! `call()`, the lambda body), found with the intra-procedural part of
//! `tasks` (allocation or lambda in the same method), else by dispatching the
//! entry method on every live subtype of the task's static type. The JDK's
//! own thread plumbing (worker threads, `Thread.start0`) is thereby
//! summarised, and thread starts *inside* the JDK are not modelled.
//!
//! The JDK boundary (`crate::boundary`, `lockstep_models::boundary`): a
//! method of a summarised JDK class keeps its incoming edges, but of its
//! body only the calls on its parameters (its callbacks) are scanned, and
//! its declared return class becomes live. An application call on a
//! concrete library class makes that class live too: such objects come
//! from code behind the boundary, library factories or the harness.
//!
//! Not modelled: reflection, `MethodHandle` invocation, JNI callbacks,
//! serialization, dynamic proxies, class loading, and objects the JVM
//! creates by itself beyond a fixed list (`lockstep_models::JVM_ALLOCATED`: strings, class
//! objects, the main thread, `System.out/err/in`) that is live from the start.

use std::sync::Arc;
use std::time::Instant;

use lockstep_ir::{Body, CallKind, Operand, Rvalue, StmtId, StmtKind};
use lockstep_models::{is_jdk_class, Async, Operand as ModelOperand, TaskLaunch};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::boundary::callback_calls;
use crate::entry::EntryPoints;
use crate::lambda::{decode_lambda, ref_kind, LambdaShape};
use crate::program::{ClassId, MethodId, Program};
use crate::tasks::{Resolver, SourceKind};

/// Which algorithm built a call graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Algorithm {
    Cha,
    Rta,
}

/// How a call edge arises.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EdgeKind {
    Static,
    Special,
    Virtual,
    Interface,
    /// A modelled thread start to the task's entry method (no real call).
    TaskLaunch,
}

/// One call edge. `site` is a statement of the caller's body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CallEdge {
    pub caller: MethodId,
    pub site: StmtId,
    pub callee: MethodId,
    pub kind: EdgeKind,
}

/// A reachable `LambdaMetafactory` site.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LambdaSite {
    /// The method and statement of the `invokedynamic`.
    pub site: (MethodId, StmtId),
    pub line: Option<u32>,
    pub shape: LambdaShape,
    /// The implementation method, resolved from the handle (for
    /// virtual/interface handles the resolved declaration, not the dispatch).
    pub implementation: Option<MethodId>,
}

/// A call in non-JDK code that matches a launch model (whatever the task turns out to be).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskStartSite {
    pub caller: MethodId,
    pub site: StmtId,
    pub launch: &'static TaskLaunch,
}

/// Counters for `--stats`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallGraphStats {
    pub algorithm: Algorithm,
    pub entries: usize,
    pub reachable: usize,
    pub edges: usize,
    pub live_classes: usize,
    pub lambda_sites: usize,
    pub task_start_sites: usize,
    pub unresolved_calls: usize,
    pub millis: u128,
}

/// A call graph over the reachable part of a program.
#[derive(Debug, Clone)]
pub struct CallGraph {
    pub algorithm: Algorithm,
    pub entries: EntryPoints,
    /// Sorted by (caller, site, callee, kind), unique.
    pub edges: Vec<CallEdge>,
    /// Sorted, unique; includes entries and class initializers.
    pub reachable: Vec<MethodId>,
    /// `<clinit>`s made reachable by class initialisation, sorted.
    pub class_inits: Vec<MethodId>,
    /// Live classes: allocated (RTA) or named (CHA) by reachable code, sorted.
    pub instantiated: Vec<ClassId>,
    /// Reachable lambda sites, sorted by site.
    pub lambda_sites: Vec<LambdaSite>,
    /// Launch-model calls in reachable non-JDK code, sorted by site.
    pub task_starts: Vec<TaskStartSite>,
    /// Call sites whose class or method could not be resolved.
    pub unresolved_calls: usize,
    pub millis: u128,
    /// The edges grouped by callee.
    by_callee: CalleeIndex,
}

impl CallGraph {
    /// Edges leaving `m`, sorted by site.
    pub fn callees(&self, m: MethodId) -> &[CallEdge] {
        edges_from(&self.edges, m)
    }

    /// Edges leaving one call site.
    pub fn callees_at(&self, m: MethodId, site: StmtId) -> &[CallEdge] {
        edges_at(&self.edges, m, site)
    }

    /// Edges entering `m`, sorted by (caller, site).
    pub fn callers(&self, m: MethodId) -> impl Iterator<Item = &CallEdge> + '_ {
        self.by_callee.callers(&self.edges, m)
    }

    pub fn is_reachable(&self, m: MethodId) -> bool {
        self.reachable.binary_search(&m).is_ok()
    }

    pub fn is_instantiated(&self, c: ClassId) -> bool {
        self.instantiated.binary_search(&c).is_ok()
    }

    /// The lambda site at `(m, site)`, if reachable.
    pub fn lambda_site(&self, m: MethodId, site: StmtId) -> Option<&LambdaSite> {
        self.lambda_sites
            .binary_search_by(|l| l.site.cmp(&(m, site)))
            .ok()
            .and_then(|i| self.lambda_sites.get(i))
    }

    pub fn stats(&self) -> CallGraphStats {
        CallGraphStats {
            algorithm: self.algorithm,
            entries: self.entries.methods.len(),
            reachable: self.reachable.len(),
            edges: self.edges.len(),
            live_classes: self.instantiated.len(),
            lambda_sites: self.lambda_sites.len(),
            task_start_sites: self.task_starts.len(),
            unresolved_calls: self.unresolved_calls,
            millis: self.millis,
        }
    }
}

/// The IR's class type of a call's receiver variable, when it has one.
fn receiver_type(body: &Body, call: &lockstep_ir::Call) -> Option<Arc<str>> {
    let v = call.receiver.as_ref()?.var()?;
    match &body.vars.get(v.index())?.ty {
        lockstep_ir::Type::Ref(Some(t)) if !t.starts_with('[') => Some(t.clone()),
        _ => None,
    }
}

/// Edges leaving `m` in call edges sorted by (caller, site, callee, kind).
pub fn edges_from(edges: &[CallEdge], m: MethodId) -> &[CallEdge] {
    let lo = edges.partition_point(|e| e.caller < m);
    let hi = edges.partition_point(|e| e.caller <= m);
    &edges[lo..hi]
}

/// Edges leaving call site `site` of `m` in call edges sorted by (caller,
/// site, callee, kind).
pub fn edges_at(edges: &[CallEdge], m: MethodId, site: StmtId) -> &[CallEdge] {
    let lo = edges.partition_point(|e| (e.caller, e.site) < (m, site));
    let hi = edges.partition_point(|e| (e.caller, e.site) <= (m, site));
    &edges[lo..hi]
}

/// Call edges grouped by callee: what answers "who calls `m`" for a list of
/// edges sorted by (caller, site, callee, kind), as both RTA's and the
/// points-to call graph keep them.
#[derive(Debug, Clone, Default)]
pub struct CalleeIndex {
    /// Edge indices grouped by callee, each group in (caller, site) order.
    order: Vec<u32>,
}

impl CalleeIndex {
    /// Indexes `edges` (sorted by caller, site, callee, kind).
    pub fn new(edges: &[CallEdge]) -> CalleeIndex {
        CalleeIndex {
            order: index_by_callee(edges),
        }
    }

    /// The edges of `edges` (the list this index was built from) entering
    /// `m`, sorted by (caller, site).
    pub fn callers<'a>(
        &'a self,
        edges: &'a [CallEdge],
        m: MethodId,
    ) -> impl Iterator<Item = &'a CallEdge> + 'a {
        let key = |i: &u32| edges[*i as usize].callee;
        let lo = self.order.partition_point(|i| key(i) < m);
        let hi = self.order.partition_point(|i| key(i) <= m);
        self.order[lo..hi].iter().map(move |&i| &edges[i as usize])
    }
}

/// Edge indices grouped by callee, each group in (caller, site) order: a
/// counting sort over the dense method ids, linear where a comparison sort
/// of a million edges is not.
fn index_by_callee(edges: &[CallEdge]) -> Vec<u32> {
    let n = edges
        .iter()
        .map(|e| e.callee.index() + 1)
        .max()
        .unwrap_or(0);
    let mut start = vec![0u32; n + 1];
    for e in edges {
        start[e.callee.index() + 1] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut out = vec![0u32; edges.len()];
    for (i, e) in edges.iter().enumerate() {
        let slot = &mut start[e.callee.index()];
        out[*slot as usize] = i as u32;
        *slot += 1;
    }
    out
}

/// Class hierarchy analysis from `entries`.
pub fn cha(program: &Program, entries: &EntryPoints) -> CallGraph {
    Engine::new(program, Algorithm::Cha).run(entries)
}

/// Rapid type analysis from `entries`.
pub fn rta(program: &Program, entries: &EntryPoints) -> CallGraph {
    Engine::new(program, Algorithm::Rta).run(entries)
}

// ---------------------------------------------------------------------------

type Sym = u32;
type GroupId = usize;

/// A live type: a class, or the synthetic class of one lambda site.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Inst {
    Class(ClassId),
    Lambda(usize),
}

#[derive(Debug)]
struct Group {
    name: Arc<str>,
    desc: Arc<str>,
    sites: Vec<(MethodId, StmtId, EdgeKind)>,
    targets: Vec<MethodId>,
    target_set: FxHashSet<MethodId>,
    /// Groups that receive every target of this one (virtual method references).
    forwards: Vec<GroupId>,
}

#[derive(Debug, Clone, Copy)]
enum Impl {
    Direct(Option<MethodId>),
    Virtual(GroupId),
}

struct LambdaRec {
    site: (MethodId, StmtId),
    line: Option<u32>,
    shape: LambdaShape,
    interface: Option<ClassId>,
    implementation: Option<MethodId>,
    imp: Impl,
}

struct Engine<'p> {
    p: &'p Program,
    algo: Algorithm,
    reachable: FxHashSet<MethodId>,
    queue: Vec<MethodId>,
    /// May hold duplicates (a site reached through two groups); sorted and
    /// deduplicated at the end, which is cheaper than hashing every edge.
    edges: Vec<CallEdge>,
    live: FxHashSet<Inst>,
    live_classes: Vec<ClassId>,
    live_subtypes: FxHashMap<ClassId, Vec<Inst>>,
    groups: Vec<Group>,
    group_index: FxHashMap<(ClassId, Sym, Sym), GroupId>,
    groups_by_type: FxHashMap<ClassId, Vec<GroupId>>,
    syms: FxHashMap<Arc<str>, Sym>,
    dispatch_cache: FxHashMap<(ClassId, Sym, Sym), Option<MethodId>>,
    lambdas: Vec<LambdaRec>,
    lambda_index: FxHashMap<(MethodId, StmtId), usize>,
    initialized: FxHashSet<ClassId>,
    class_inits: Vec<MethodId>,
    task_starts: Vec<TaskStartSite>,
    unresolved: usize,
    object: Option<ClassId>,
}

impl<'p> Engine<'p> {
    fn new(p: &'p Program, algo: Algorithm) -> Engine<'p> {
        Engine {
            p,
            algo,
            reachable: FxHashSet::default(),
            queue: Vec::new(),
            edges: Vec::new(),
            live: FxHashSet::default(),
            live_classes: Vec::new(),
            live_subtypes: FxHashMap::default(),
            groups: Vec::new(),
            group_index: FxHashMap::default(),
            groups_by_type: FxHashMap::default(),
            syms: FxHashMap::default(),
            dispatch_cache: FxHashMap::default(),
            lambdas: Vec::new(),
            lambda_index: FxHashMap::default(),
            initialized: FxHashSet::default(),
            class_inits: Vec::new(),
            task_starts: Vec::new(),
            unresolved: 0,
            object: p.class_by_name("java/lang/Object"),
        }
    }

    fn run(mut self, entries: &EntryPoints) -> CallGraph {
        let start = Instant::now();
        for name in lockstep_models::JVM_ALLOCATED {
            if let Some(c) = self.p.class_by_name(name) {
                self.instantiate(Inst::Class(c));
            }
        }
        if self.algo == Algorithm::Cha {
            for c in self.p.application_classes() {
                self.name_class(c);
            }
        }
        for &m in &entries.methods {
            let Some(md) = self.p.try_method(m) else {
                continue;
            };
            let class = md.class;
            self.reach(m);
            self.initialize(class);
            // An instance entry (open programs) runs on some object of its class.
            if !md.is_static() && self.p.class(class).is_concrete() {
                self.instantiate(Inst::Class(class));
            }
        }
        while !self.queue.is_empty() {
            let batch = std::mem::take(&mut self.queue);
            if batch.len() >= 16 {
                // Lower the whole frontier in parallel; processing stays
                // sequential and in discovery order, so results (and the
                // order library classes get loaded in) are deterministic.
                self.p.prefetch_bodies(&batch);
            }
            for m in batch {
                self.process(m);
            }
        }
        self.finish(entries.clone(), start)
    }

    fn finish(self, entries: EntryPoints, start: Instant) -> CallGraph {
        let mut edges = self.edges;
        edges.sort_unstable();
        edges.dedup();
        let by_callee = CalleeIndex::new(&edges);
        let mut reachable: Vec<MethodId> = self.reachable.into_iter().collect();
        reachable.sort_unstable();
        let mut class_inits = self.class_inits;
        class_inits.sort_unstable();
        let mut instantiated = self.live_classes;
        instantiated.sort_unstable();
        let mut lambda_sites: Vec<LambdaSite> = self
            .lambdas
            .into_iter()
            .map(|l| LambdaSite {
                site: l.site,
                line: l.line,
                shape: l.shape,
                implementation: l.implementation,
            })
            .collect();
        lambda_sites.sort_by_key(|l| l.site);
        let mut task_starts = self.task_starts;
        // Stable: models of one call keep table order.
        task_starts.sort_by_key(|t| (t.caller, t.site));
        CallGraph {
            algorithm: self.algo,
            entries,
            edges,
            reachable,
            class_inits,
            instantiated,
            lambda_sites,
            task_starts,
            unresolved_calls: self.unresolved,
            millis: start.elapsed().as_millis(),
            by_callee,
        }
    }

    fn sym(&mut self, s: &Arc<str>) -> Sym {
        let next = self.syms.len() as Sym;
        *self.syms.entry(s.clone()).or_insert(next)
    }

    fn reach(&mut self, m: MethodId) {
        if self.reachable.insert(m) {
            self.queue.push(m);
        }
    }

    fn add_edge(&mut self, caller: MethodId, site: StmtId, callee: MethodId, kind: EdgeKind) {
        self.edges.push(CallEdge {
            caller,
            site,
            callee,
            kind,
        });
        self.reach(callee);
    }

    /// Runs the static initializers of `c` and its superclasses (once).
    fn initialize(&mut self, c: ClassId) {
        if self.initialized.contains(&c) {
            return;
        }
        for &k in self.p.superclasses(c) {
            if !self.initialized.insert(k) {
                continue;
            }
            if let Some(ci) = self.p.class(k).declared_method("<clinit>", "()V") {
                self.class_inits.push(ci);
                self.reach(ci);
            }
        }
    }

    /// CHA: a class named by reachable code is live if it is concrete.
    fn name_class(&mut self, c: ClassId) {
        if self.algo == Algorithm::Cha && self.p.class(c).is_concrete() {
            self.instantiate(Inst::Class(c));
        }
    }

    fn inst_supertypes(&self, inst: Inst) -> Vec<ClassId> {
        match inst {
            Inst::Class(c) => self.p.supertypes(c).to_vec(),
            Inst::Lambda(l) => {
                let rec = &self.lambdas[l];
                let mut v: Vec<ClassId> = Vec::new();
                let markers = rec
                    .shape
                    .markers
                    .iter()
                    .filter_map(|m| self.p.class_by_name(m));
                for i in rec.interface.into_iter().chain(markers) {
                    v.extend_from_slice(self.p.supertypes(i));
                }
                v.extend(self.object);
                v.sort_unstable();
                v.dedup();
                v
            }
        }
    }

    fn instantiate(&mut self, inst: Inst) {
        if !self.live.insert(inst) {
            return;
        }
        if let Inst::Class(c) = inst {
            self.live_classes.push(c);
        }
        for s in self.inst_supertypes(inst) {
            self.live_subtypes.entry(s).or_default().push(inst);
            let groups = self.groups_by_type.get(&s).cloned().unwrap_or_default();
            for g in groups {
                self.dispatch_into(g, inst);
            }
        }
    }

    fn group(&mut self, ty: ClassId, name: &Arc<str>, desc: &Arc<str>) -> GroupId {
        let key = (ty, self.sym(name), self.sym(desc));
        if let Some(&g) = self.group_index.get(&key) {
            return g;
        }
        let g = self.new_group(name, desc);
        self.group_index.insert(key, g);
        self.groups_by_type.entry(ty).or_default().push(g);
        let live = self.live_subtypes.get(&ty).cloned().unwrap_or_default();
        for inst in live {
            self.dispatch_into(g, inst);
        }
        g
    }

    fn new_group(&mut self, name: &Arc<str>, desc: &Arc<str>) -> GroupId {
        self.groups.push(Group {
            name: name.clone(),
            desc: desc.clone(),
            sites: Vec::new(),
            targets: Vec::new(),
            target_set: FxHashSet::default(),
            forwards: Vec::new(),
        });
        self.groups.len() - 1
    }

    fn add_site(&mut self, g: GroupId, caller: MethodId, site: StmtId, kind: EdgeKind) {
        self.groups[g].sites.push((caller, site, kind));
        // `add_edge` never touches groups, so index instead of cloning.
        for k in 0..self.groups[g].targets.len() {
            let t = self.groups[g].targets[k];
            self.add_edge(caller, site, t, kind);
        }
    }

    fn add_target(&mut self, g: GroupId, m: MethodId) {
        let mut work = vec![(g, m)];
        while let Some((g, m)) = work.pop() {
            if !self.groups[g].target_set.insert(m) {
                continue;
            }
            self.groups[g].targets.push(m);
            for k in 0..self.groups[g].sites.len() {
                let (caller, site, kind) = self.groups[g].sites[k];
                self.add_edge(caller, site, m, kind);
            }
            for &f in &self.groups[g].forwards {
                work.push((f, m));
            }
        }
    }

    fn dispatch_class(&mut self, c: ClassId, name: &Arc<str>, desc: &Arc<str>) -> Option<MethodId> {
        let key = (c, self.sym(name), self.sym(desc));
        if let Some(r) = self.dispatch_cache.get(&key) {
            return *r;
        }
        let r = self.p.dispatch(c, name, desc);
        self.dispatch_cache.insert(key, r);
        r
    }

    fn dispatch_into(&mut self, g: GroupId, inst: Inst) {
        let (name, desc) = (self.groups[g].name.clone(), self.groups[g].desc.clone());
        match inst {
            Inst::Class(c) => {
                if let Some(m) = self.dispatch_class(c, &name, &desc) {
                    self.add_target(g, m);
                }
            }
            Inst::Lambda(l) => {
                if self.lambdas[l].shape.implements(&name, &desc) {
                    match self.lambdas[l].imp {
                        Impl::Direct(Some(m)) => self.add_target(g, m),
                        Impl::Direct(None) => {}
                        Impl::Virtual(h) => {
                            if !self.groups[h].forwards.contains(&g) {
                                self.groups[h].forwards.push(g);
                                for t in self.groups[h].targets.clone() {
                                    self.add_target(g, t);
                                }
                            }
                        }
                    }
                } else {
                    // Default methods of the interface (`andThen`), or Object's.
                    let target = match self.lambdas[l].interface {
                        Some(i) => self.p.resolve_interface_method(i, &name, &desc),
                        None => self.object.and_then(|o| self.p.dispatch(o, &name, &desc)),
                    };
                    if let Some(t) = target.filter(|&t| !self.p.method(t).is_abstract()) {
                        self.add_target(g, t);
                    }
                }
            }
        }
    }

    /// The lambda record of an `invokedynamic` site, created (and made live) on first sight.
    fn lambda(&mut self, m: MethodId, site: StmtId, body: &Body) -> Option<usize> {
        if let Some(&l) = self.lambda_index.get(&(m, site)) {
            return Some(l);
        }
        let stmt = body.stmts.get(site.index())?;
        let StmtKind::InvokeDynamic { call, .. } = &stmt.kind else {
            return None;
        };
        let shape = decode_lambda(call)?;
        let h = &shape.implementation;
        let hclass = self.p.class_by_name(&h.member.class);
        let (imp, implementation) = match (h.kind, hclass) {
            (ref_kind::INVOKE_VIRTUAL | ref_kind::INVOKE_INTERFACE, Some(hc)) => {
                let resolved = if h.is_interface || h.kind == ref_kind::INVOKE_INTERFACE {
                    self.p
                        .resolve_interface_method(hc, &h.member.name, &h.member.descriptor)
                } else {
                    self.p
                        .resolve_method(hc, &h.member.name, &h.member.descriptor)
                };
                let (name, desc) = (h.member.name.clone(), h.member.descriptor.clone());
                (Impl::Virtual(self.group(hc, &name, &desc)), resolved)
            }
            (_, Some(hc)) => {
                let r = if h.is_interface {
                    self.p
                        .resolve_interface_method(hc, &h.member.name, &h.member.descriptor)
                } else {
                    self.p
                        .resolve_method(hc, &h.member.name, &h.member.descriptor)
                };
                (Impl::Direct(r), r)
            }
            (_, None) => {
                self.unresolved += 1;
                (Impl::Direct(None), None)
            }
        };
        if let Some(hc) = hclass {
            match h.kind {
                ref_kind::INVOKE_STATIC => self.initialize(hc),
                ref_kind::NEW_INVOKE_SPECIAL => {
                    // `Foo::new`: invoking the lambda allocates a Foo.
                    self.initialize(hc);
                    self.instantiate(Inst::Class(hc));
                }
                _ => {}
            }
        }
        let interface = self.p.class_by_name(&shape.interface);
        let l = self.lambdas.len();
        self.lambdas.push(LambdaRec {
            site: (m, site),
            line: stmt.line,
            shape,
            interface,
            implementation,
            imp,
        });
        self.lambda_index.insert((m, site), l);
        self.instantiate(Inst::Lambda(l));
        Some(l)
    }

    fn process(&mut self, m: MethodId) {
        let Some(body) = self.p.body(m) else {
            return;
        };
        if self.p.is_summarized(m) {
            self.process_summarized(m, &body);
            return;
        }
        let in_jdk = is_jdk_class(&self.p.class(self.p.method(m).class).name);
        for (i, stmt) in body.stmts.iter().enumerate() {
            let site = StmtId(i as u32);
            match &stmt.kind {
                StmtKind::Assign { value, .. } => match value {
                    Rvalue::New(c) => {
                        if let Some(cls) = self.p.class_by_name(c) {
                            self.initialize(cls);
                            self.instantiate(Inst::Class(cls));
                        }
                    }
                    Rvalue::StaticLoad(f) => self.static_field(f),
                    Rvalue::FieldLoad { field, .. } => self.named(&field.class),
                    _ => {}
                },
                StmtKind::StaticStore { field, .. } => self.static_field(field),
                StmtKind::FieldStore { field, .. } => self.named(&field.class),
                StmtKind::Invoke { call, .. } => {
                    self.call(m, site, call, receiver_type(&body, call).as_deref());
                    if !in_jdk {
                        self.launches(m, site, call, &body);
                    }
                }
                StmtKind::InvokeDynamic { .. } => {
                    self.lambda(m, site, &body);
                }
                _ => {}
            }
        }
    }

    /// A method behind the JDK boundary (`crate::boundary`): only its
    /// callbacks are calls, and its result is an object of its declared
    /// class that no reachable code allocates.
    fn process_summarized(&mut self, m: MethodId, body: &Body) {
        for (site, call) in callback_calls(body) {
            self.call(m, site, call, receiver_type(body, call).as_deref());
        }
        if let Some(c) = self.p.summarized_result_class(m) {
            self.instantiate(Inst::Class(c));
        }
    }

    fn named(&mut self, class: &str) {
        if self.algo == Algorithm::Cha {
            if let Some(c) = self.p.class_by_name(class) {
                self.name_class(c);
            }
        }
    }

    fn static_field(&mut self, f: &lockstep_ir::MemberRef) {
        if let Some(c) = self.p.class_by_name(&f.class) {
            let declaring = self.p.resolve_field(c, &f.name, &f.descriptor).unwrap_or(c);
            self.initialize(declaring);
        }
    }

    /// `receiver_type`: the IR's type of the receiver variable, when known.
    /// javac names the method's declaring class at the call (`Object.hashCode`
    /// for `limits.hashCode()`), so dispatching from the receiver's own type
    /// when it is a subtype keeps the call from reaching every live class.
    fn call(
        &mut self,
        m: MethodId,
        site: StmtId,
        call: &lockstep_ir::Call,
        receiver_type: Option<&str>,
    ) {
        let member = &call.method;
        let class = if member.class.starts_with('[') {
            // Methods on arrays (`clone`, Object's) dispatch as on Object.
            self.object
        } else {
            self.p.class_by_name(&member.class)
        };
        let Some(cls) = class else {
            self.unresolved += 1;
            return;
        };
        self.name_class(cls);
        let resolve = |p: &Program| {
            if call.interface_ref {
                p.resolve_interface_method(cls, &member.name, &member.descriptor)
            } else {
                p.resolve_method(cls, &member.name, &member.descriptor)
            }
        };
        match call.kind {
            CallKind::Static | CallKind::Special => {
                let kind = if call.kind == CallKind::Static {
                    EdgeKind::Static
                } else {
                    EdgeKind::Special
                };
                match resolve(self.p) {
                    Some(t) => {
                        if kind == EdgeKind::Static {
                            self.initialize(self.p.method(t).class);
                        }
                        self.add_edge(m, site, t, kind);
                    }
                    None => self.unresolved += 1,
                }
            }
            CallKind::Virtual | CallKind::Interface => {
                let kind = if call.kind == CallKind::Virtual {
                    EdgeKind::Virtual
                } else {
                    EdgeKind::Interface
                };
                let name = &*self.p.class(cls).name;
                if matches!(
                    name,
                    "java/lang/invoke/MethodHandle" | "java/lang/invoke/VarHandle"
                ) {
                    // Signature-polymorphic: resolves by name to the native method.
                    if let Some(t) = resolve(self.p) {
                        self.add_edge(m, site, t, kind);
                    }
                    return;
                }
                let ty = receiver_type
                    .and_then(|t| self.p.class_by_name(t))
                    .filter(|&t| t != cls && self.p.is_subtype(t, cls))
                    .unwrap_or(cls);
                if self.p.is_application(self.p.method(m).class) {
                    self.library_receiver(ty);
                }
                let g = self.group(ty, &member.name, &member.descriptor);
                self.add_site(g, m, site, kind);
            }
        }
    }

    /// Application code calling a method on a concrete library class holds
    /// such an object, even when no reachable code allocates it: library
    /// code behind the JDK boundary, a library factory or the open-program
    /// harness made it (a harness object's `Vector` field). The class is
    /// live, as the points-to analysis's opaque and harness objects are.
    fn library_receiver(&mut self, ty: ClassId) {
        if !self.p.is_application(ty) && self.p.class(ty).is_concrete() {
            self.instantiate(Inst::Class(ty));
        }
    }

    /// Thread-start models at a call in non-JDK code.
    fn launches(&mut self, m: MethodId, site: StmtId, call: &lockstep_ir::Call, body: &Body) {
        let p = self.p;
        let member = &call.method;
        let models = lockstep_models::thread_starts_via(
            &member.class,
            &member.name,
            &member.descriptor,
            &|a, b| p.is_subtype_name(a, b),
        );
        for launch in models {
            self.task_starts.push(TaskStartSite {
                caller: m,
                site,
                launch,
            });
            if launch.asynchronous != Async::Always {
                // The JDK runs these through ordinary calls we already follow.
                continue;
            }
            let operand = match launch.task {
                ModelOperand::Receiver => call.receiver.clone(),
                ModelOperand::Arg(i) => call.args.get(i as usize).cloned(),
                ModelOperand::Result => None,
            };
            let Some(operand @ Operand::Var(_)) = operand else {
                continue;
            };
            let resolver = Resolver {
                p,
                flow: None,
                max_hops: 0,
            };
            for src in resolver.sources(m, body, &operand, launch.shape, launch.entry) {
                match src.kind {
                    SourceKind::Class(c) => {
                        for (n, d) in src.entry.candidates {
                            let (n, d): (Arc<str>, Arc<str>) = (Arc::from(*n), Arc::from(*d));
                            if let Some(t) = self.dispatch_class(c, &n, &d) {
                                self.add_edge(m, site, t, EdgeKind::TaskLaunch);
                                break;
                            }
                        }
                    }
                    SourceKind::Lambda(lm, ls) => {
                        let Some(l) = self.lambda(lm, ls, body) else {
                            continue;
                        };
                        for (n, d) in src.entry.candidates {
                            let g = self.new_group(&Arc::from(*n), &Arc::from(*d));
                            self.add_site(g, m, site, EdgeKind::TaskLaunch);
                            self.dispatch_into(g, Inst::Lambda(l));
                        }
                    }
                    SourceKind::Unknown(Some(ty)) => {
                        for (n, d) in src.entry.candidates {
                            let g = self.group(ty, &Arc::from(*n), &Arc::from(*d));
                            self.add_site(g, m, site, EdgeKind::TaskLaunch);
                        }
                    }
                    SourceKind::Unknown(None) => self.unresolved += 1,
                }
            }
        }
    }
}
