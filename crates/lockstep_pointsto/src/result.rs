//! What the analysis found, and the queries consumers ask: points-to sets
//! of variables (per context or merged), of static fields and of object
//! fields; aliasing of variables and access paths; the call graph the
//! analysis built (projected onto methods, and per context); reachable
//! method contexts; where each abstract object comes from; thread starts;
//! statistics.
//!
//! Ids ([`ObjectId`], [`ContextId`]) are dense and deterministic for a
//! given program, entry points and configuration. [`Canonical`] renames
//! everything into structural keys so two results can be compared
//! whatever ids they use.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use lockstep_ir::{AccessPath, StmtId, VarId};
use lockstep_models::TaskLaunch;
use lockstep_program::{
    edges_at, edges_from, CallEdge, CalleeIndex, EdgeKind, EntryPoints, MethodId, Program,
};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::config::Config;
use crate::ids::{CtxId, FieldId, MCtxId, ObjId, PtrId, SiteId, Slot, NO_SLOT};
use crate::intern::Interner;
use crate::keys::{FieldKey, SiteKey};
use crate::pts::IdSet;
use crate::raw::{PtrKind, RawResult};

/// An abstract object: an allocation site (or special object) with a heap context.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ObjectId(pub u32);

/// A context: a sequence of allocation sites (empty when insensitive).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ContextId(pub u32);

impl ContextId {
    /// The empty context (context-insensitive methods, static entry points).
    pub const EMPTY: ContextId = ContextId(0);
}

/// A method running in a context.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MethodContext {
    pub method: MethodId,
    pub context: ContextId,
}

/// A set of abstract objects.
///
/// A set the result hands out shares the result's storage (a query
/// allocates nothing); it is copied the first time it is changed.
#[derive(Debug, Clone, Default)]
pub struct ObjectSet(Repr);

#[derive(Debug, Clone)]
enum Repr {
    Owned(IdSet),
    Shared(Arc<IdSet>),
}

impl Default for Repr {
    fn default() -> Repr {
        Repr::Owned(IdSet::new())
    }
}

impl PartialEq for ObjectSet {
    fn eq(&self, other: &ObjectSet) -> bool {
        self.set() == other.set()
    }
}

impl Eq for ObjectSet {}

impl ObjectSet {
    pub fn new() -> ObjectSet {
        ObjectSet::default()
    }
    fn shared(set: &Arc<IdSet>) -> ObjectSet {
        ObjectSet(Repr::Shared(set.clone()))
    }
    fn set(&self) -> &IdSet {
        match &self.0 {
            Repr::Owned(s) => s,
            Repr::Shared(s) => s,
        }
    }
    /// The set to change, copied out of the result's storage first.
    fn set_mut(&mut self) -> &mut IdSet {
        if let Repr::Shared(s) = &self.0 {
            self.0 = Repr::Owned(IdSet::clone(s));
        }
        match &mut self.0 {
            Repr::Owned(s) => s,
            Repr::Shared(s) => Arc::make_mut(s),
        }
    }
    /// `self ∪= other`, sharing `other` when `self` is empty.
    fn union_with_set(&mut self, other: &Arc<IdSet>) {
        if other.is_empty() {
            return;
        }
        if self.is_empty() {
            *self = ObjectSet::shared(other);
        } else {
            self.set_mut().union_with(other);
        }
    }
    pub fn len(&self) -> usize {
        self.set().len()
    }
    pub fn is_empty(&self) -> bool {
        self.set().is_empty()
    }
    pub fn contains(&self, o: ObjectId) -> bool {
        self.set().contains(o.0)
    }
    /// In increasing id order.
    pub fn iter(&self) -> impl Iterator<Item = ObjectId> + '_ {
        self.set().iter().map(ObjectId)
    }
    pub fn intersects(&self, other: &ObjectSet) -> bool {
        self.set().intersects(other.set())
    }
    pub fn union_with(&mut self, other: &ObjectSet) {
        if other.is_empty() {
            return;
        }
        if self.is_empty() {
            *self = other.clone();
        } else {
            self.set_mut().union_with(other.set());
        }
    }
    pub fn insert(&mut self, o: ObjectId) -> bool {
        if self.contains(o) {
            return false;
        }
        self.set_mut().insert(o.0)
    }
}

impl FromIterator<ObjectId> for ObjectSet {
    fn from_iter<I: IntoIterator<Item = ObjectId>>(iter: I) -> ObjectSet {
        ObjectSet(Repr::Owned(iter.into_iter().map(|o| o.0).collect()))
    }
}

/// Heap bytes of the distinct sets among `sets`.
fn distinct_bytes(sets: &[Arc<IdSet>]) -> usize {
    let mut seen: FxHashSet<*const IdSet> = FxHashSet::default();
    sets.iter()
        .filter(|s| seen.insert(Arc::as_ptr(s)))
        .map(|s| s.heap_bytes() + std::mem::size_of::<IdSet>())
        .sum()
}

/// Stores the points-to sets of the result once per distinct set: many
/// pointers hold equal sets (a value copied along a chain of variables,
/// the fields of the objects of one site), and every pointer refers to
/// its set's one copy, trimmed to its length.
fn share_equal_sets(sets: Vec<IdSet>) -> Vec<Arc<IdSet>> {
    let mut distinct: FxHashSet<Arc<IdSet>> = FxHashSet::default();
    sets.into_iter()
        .map(|mut s| {
            if let Some(a) = distinct.get(&s) {
                return a.clone();
            }
            s.shrink_to_fit();
            let a = Arc::new(s);
            distinct.insert(a.clone());
            a
        })
        .collect()
}

/// An abstract object's description.
#[derive(Debug, Clone, Copy)]
pub struct ObjectInfo<'a> {
    pub site: &'a SiteKey,
    pub heap_context: ContextId,
    /// Internal class name or array descriptor (`lambda@...` for lambda objects).
    pub type_name: &'a Arc<str>,
}

/// Where an object was allocated, for messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllocInfo {
    pub type_name: Arc<str>,
    /// The allocating method (allocations, lambdas, constructor references).
    pub method: Option<MethodId>,
    pub stmt: Option<StmtId>,
    pub line: Option<u32>,
}

/// A call edge between method contexts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ContextCallEdge {
    pub caller: MethodContext,
    pub site: StmtId,
    pub callee: MethodContext,
    pub kind: EdgeKind,
}

/// A modelled thread start that reached a task object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThreadStart {
    /// The method context of the launching call.
    pub caller: MethodContext,
    pub site: StmtId,
    pub launch: &'static TaskLaunch,
    /// The task: the thread, `Runnable`, `Callable`, lambda... object.
    pub task: ObjectId,
}

/// The call graph the analysis built, projected onto methods. Its edges
/// are a subset of RTA's for the same entry points (the same edge kinds,
/// lambdas and launch models).
#[derive(Debug, Clone, Default)]
pub struct PtaCallGraph {
    /// Sorted by (caller, site, callee, kind), unique.
    pub edges: Vec<CallEdge>,
    /// Sorted, unique; includes entries and class initializers.
    pub reachable: Vec<MethodId>,
    /// `<clinit>`s reached by class initialisation, sorted.
    pub class_inits: Vec<MethodId>,
    by_callee: CalleeIndex,
}

impl PtaCallGraph {
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
}

/// Size and cost of a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stats {
    /// [`Config::describe`].
    pub config: String,
    pub reachable_methods: usize,
    pub method_contexts: usize,
    pub contexts: usize,
    pub objects: usize,
    pub sites: usize,
    pub pointers: usize,
    /// Sum of the sizes of all points-to sets.
    pub points_to_facts: u64,
    /// The part of those in variables, object fields, static fields and exception pointers.
    pub var_facts: u64,
    pub field_facts: u64,
    pub static_facts: u64,
    pub exception_facts: u64,
    pub copy_edges: usize,
    /// Call edges projected onto methods.
    pub call_edges: usize,
    pub context_call_edges: usize,
    /// Pointers taken off the worklist.
    pub iterations: u64,
    /// Method contexts merged into the empty one by the per-method bound.
    pub budget_fallbacks: u64,
    /// Of those, application calls run in a context of their calling
    /// method ([`Config::past_bound_calls_per_caller`]).
    pub per_caller_fallbacks: u64,
    /// Calls of stream pipelines (JDK callbacks by package) that JDK code
    /// made past the bounds, run in the one over-budget copy rather than
    /// a copy per calling method.
    pub shared_pipeline_calls: u64,
    /// Container calls (per call site, context and receiver object) whose
    /// effect the container models gave ([`Config::container_models`]).
    pub modelled_calls: u64,
    /// Distinct calls the container models made back into the program
    /// (per call site, context, callback, receiver and argument pointers;
    /// [`Config::gather_callback_contents`]).
    pub model_callbacks: usize,
    /// What the time budget ([`Config::budget`]) cut, if anything.
    pub budget_cut: Option<BudgetCut>,
    /// Method bodies turned into constraints.
    pub methods_translated: usize,
    /// Heap bytes held by the result's points-to sets, each distinct set
    /// counted once (a lower bound on the analysis' memory).
    pub set_bytes: usize,
    pub millis: u128,
}

/// What a time budget ([`Config::budget`]) cut from one solve.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BudgetCut {
    /// New contexts stopped: how many calls then ran in the over-budget
    /// context instead of a context of their own.
    pub contexts_merged: Option<u64>,
    /// The solve stopped short of its fixed point: how many pointers still
    /// had objects to pass on (calls, loads and stores not yet followed).
    pub unpropagated: Option<usize>,
}

impl BudgetCut {
    /// In words, for the report's account of budget cuts.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(n) = self.contexts_merged {
            parts.push(format!(
                "no new contexts after its share of the budget ({n} calls merged into one context)"
            ));
        }
        if let Some(n) = self.unpropagated {
            parts.push(format!(
                "stopped before its fixed point ({n} pointers not propagated: calls, objects and findings may be missing)"
            ));
        }
        format!("points-to {}", parts.join("; "))
    }
}

/// The result of [`crate::PointsTo::solve`].
#[derive(Debug)]
pub struct PointsToResult {
    config: Config,
    entries: EntryPoints,
    sites: Vec<SiteKey>,
    site_types: Vec<Arc<str>>,
    fields: Interner<FieldKey, FieldId>,
    contexts: Vec<Box<[SiteId]>>,
    objects: Vec<(SiteId, CtxId)>,
    method_contexts: Vec<(MethodId, CtxId)>,
    mctx_base: Vec<PtrId>,
    /// Method contexts of each method, by context id.
    by_method: FxHashMap<MethodId, Vec<MCtxId>>,
    var_slots: FxHashMap<MethodId, Arc<[Slot]>>,
    /// By pointer; equal sets share one copy ([`share_equal_sets`]).
    pts: Vec<Arc<IdSet>>,
    kinds: Vec<PtrKind>,
    /// Field pointers of each object, sorted by field id.
    obj_fields: Vec<Vec<(FieldId, PtrId)>>,
    static_ptr: FxHashMap<FieldId, PtrId>,
    exc_ptr: Option<PtrId>,
    call_graph: PtaCallGraph,
    cs_edges: Vec<ContextCallEdge>,
    /// Indices of `cs_edges` sorted by (callee, caller, site).
    cs_by_callee: Vec<u32>,
    thread_starts: Vec<ThreadStart>,
    stats: Stats,
}

impl PointsToResult {
    pub(crate) fn new(raw: RawResult, config: Config) -> PointsToResult {
        let mut by_method: FxHashMap<MethodId, Vec<MCtxId>> = FxHashMap::default();
        for (i, (m, _)) in raw.method_contexts.iter().enumerate() {
            by_method.entry(*m).or_default().push(MCtxId(i as u32));
        }
        for v in by_method.values_mut() {
            v.sort_by_key(|&mc| raw.method_contexts[mc.index()].1);
        }
        let mut obj_fields: Vec<Vec<(FieldId, PtrId)>> = vec![Vec::new(); raw.objects.len()];
        for (&(o, f), &p) in &raw.field_ptr {
            if let Some(v) = obj_fields.get_mut(o.index()) {
                v.push((f, p));
            }
        }
        for v in &mut obj_fields {
            v.sort_unstable();
        }
        let mc = |i: MCtxId| {
            let (m, c) = raw.method_contexts[i.index()];
            MethodContext {
                method: m,
                context: ContextId(c.0),
            }
        };
        let mut cs_edges: Vec<ContextCallEdge> = raw
            .cs_edges
            .iter()
            .map(|&(caller, site, kind, callee)| ContextCallEdge {
                caller: mc(caller),
                site,
                callee: mc(callee),
                kind,
            })
            .collect();
        cs_edges.sort_unstable();
        cs_edges.dedup();
        let mut edges: Vec<CallEdge> = cs_edges
            .iter()
            .map(|e| CallEdge {
                caller: e.caller.method,
                site: e.site,
                callee: e.callee.method,
                kind: e.kind,
            })
            .collect();
        edges.sort_unstable();
        edges.dedup();
        let by_callee = CalleeIndex::new(&edges);
        let mut cs_by_callee: Vec<u32> = (0..cs_edges.len() as u32).collect();
        cs_by_callee.sort_by_key(|&i| {
            let e = &cs_edges[i as usize];
            (e.callee, e.caller, e.site, e.kind)
        });
        let mut reachable: Vec<MethodId> = by_method.keys().copied().collect();
        reachable.sort_unstable();
        let mut class_inits = raw.class_inits.clone();
        class_inits.sort_unstable();
        class_inits.dedup();
        let mut thread_starts: Vec<ThreadStart> = raw
            .thread_starts
            .iter()
            .map(|t| ThreadStart {
                caller: mc(t.caller),
                site: t.stmt,
                launch: t.launch,
                task: ObjectId(t.task.0),
            })
            .collect();
        thread_starts.sort_by_key(|t| (t.caller, t.site, t.task));
        thread_starts.dedup_by_key(|t| (t.caller, t.site, t.task));
        let mut by_kind = [0u64; 5];
        for (set, kind) in raw.pts.iter().zip(&raw.kinds) {
            let i = match kind {
                PtrKind::Var(..) => 0,
                PtrKind::Field(..) => 1,
                PtrKind::Static(_) => 2,
                PtrKind::Exc => 3,
                PtrKind::Temp => 4,
            };
            by_kind[i] += set.len() as u64;
        }
        let stats = Stats {
            config: config.describe(),
            reachable_methods: reachable.len(),
            method_contexts: raw.method_contexts.len(),
            contexts: raw.contexts.len(),
            objects: raw.objects.len(),
            sites: raw.sites.len(),
            pointers: raw.pts.len(),
            points_to_facts: raw.pts.iter().map(|s| s.len() as u64).sum(),
            var_facts: by_kind[0],
            field_facts: by_kind[1],
            static_facts: by_kind[2],
            exception_facts: by_kind[3],
            copy_edges: raw.copy_edges,
            call_edges: edges.len(),
            context_call_edges: cs_edges.len(),
            iterations: raw.iterations,
            budget_fallbacks: raw.budget_fallbacks,
            per_caller_fallbacks: raw.per_caller_fallbacks,
            shared_pipeline_calls: raw.shared_pipeline_calls,
            modelled_calls: raw.modelled_calls,
            model_callbacks: raw.model_callbacks,
            budget_cut: raw.budget_cut,
            methods_translated: raw.templates_built,
            set_bytes: 0,
            millis: raw.millis,
        };
        let pts = share_equal_sets(raw.pts);
        let stats = Stats {
            set_bytes: distinct_bytes(&pts),
            ..stats
        };
        PointsToResult {
            config,
            entries: raw.entries,
            sites: raw.sites,
            site_types: raw.site_types,
            fields: raw.fields,
            contexts: raw.contexts,
            objects: raw.objects,
            method_contexts: raw.method_contexts,
            mctx_base: raw.mctx_base,
            by_method,
            var_slots: raw.var_slots,
            pts,
            kinds: raw.kinds,
            obj_fields,
            static_ptr: raw.static_ptr,
            exc_ptr: raw.exc_ptr,
            call_graph: PtaCallGraph {
                edges,
                reachable,
                class_inits,
                by_callee,
            },
            cs_edges,
            cs_by_callee,
            thread_starts,
            stats,
        }
    }

    /// (method, context) of each method context, by id.
    pub(crate) fn method_context_keys(&self) -> &[(MethodId, CtxId)] {
        &self.method_contexts
    }

    /// Each pointer's kind and the size of its set.
    pub(crate) fn pointer_sizes(&self) -> impl Iterator<Item = (&PtrKind, u64)> + '_ {
        self.kinds
            .iter()
            .zip(&self.pts)
            .map(|(k, s)| (k, s.len() as u64))
    }

    /// The site of a solver object id.
    pub(crate) fn object_site(&self, o: ObjId) -> Option<&SiteKey> {
        let &(site, _) = self.objects.get(o.index())?;
        self.sites.get(site.index())
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    pub fn entries(&self) -> &EntryPoints {
        &self.entries
    }

    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    pub fn call_graph(&self) -> &PtaCallGraph {
        &self.call_graph
    }

    /// Call edges between method contexts, sorted.
    pub fn context_call_edges(&self) -> &[ContextCallEdge] {
        &self.cs_edges
    }

    /// Call edges leaving method context `mc`, sorted by site.
    pub fn context_callees(&self, mc: MethodContext) -> &[ContextCallEdge] {
        let lo = self.cs_edges.partition_point(|e| e.caller < mc);
        let hi = self.cs_edges.partition_point(|e| e.caller <= mc);
        &self.cs_edges[lo..hi]
    }

    /// Call edges entering method context `mc`, in (caller, site) order.
    pub fn context_callers(
        &self,
        mc: MethodContext,
    ) -> impl Iterator<Item = &ContextCallEdge> + '_ {
        let edges = &self.cs_edges;
        let lo = self
            .cs_by_callee
            .partition_point(|&i| edges[i as usize].callee < mc);
        let hi = self
            .cs_by_callee
            .partition_point(|&i| edges[i as usize].callee <= mc);
        self.cs_by_callee[lo..hi]
            .iter()
            .map(move |&i| &edges[i as usize])
    }

    /// The method contexts the mains run in (the main thread's roots;
    /// in open programs, where every entry is the harness's, those of
    /// every entry), sorted.
    pub fn entry_contexts(&self) -> Vec<MethodContext> {
        let open = self.entries.mode.is_open();
        let mut v: Vec<MethodContext> = self
            .entries
            .methods
            .iter()
            .filter(|&&m| open || !self.entries.is_harness(m))
            .flat_map(|&m| {
                self.contexts_of(m).into_iter().map(move |c| MethodContext {
                    method: m,
                    context: c,
                })
            })
            .collect();
        v.sort_unstable();
        v
    }

    /// Modelled thread starts with each task object they reached, sorted by site.
    pub fn thread_starts(&self) -> &[ThreadStart] {
        &self.thread_starts
    }

    /// The method contexts a thread start runs (its launch edges).
    pub fn thread_entries(&self, t: &ThreadStart) -> Vec<MethodContext> {
        let lo = self
            .cs_edges
            .partition_point(|e| (e.caller, e.site) < (t.caller, t.site));
        self.cs_edges[lo..]
            .iter()
            .take_while(|e| (e.caller, e.site) == (t.caller, t.site))
            .filter(|e| e.kind == EdgeKind::TaskLaunch)
            .map(|e| e.callee)
            .collect()
    }

    /// Every reachable method context, in (method, context) order.
    pub fn method_contexts(&self) -> Vec<MethodContext> {
        let mut v: Vec<MethodContext> = self
            .method_contexts
            .iter()
            .map(|&(m, c)| MethodContext {
                method: m,
                context: ContextId(c.0),
            })
            .collect();
        v.sort_unstable();
        v
    }

    /// The contexts `m` was reached in, in id order.
    pub fn contexts_of(&self, m: MethodId) -> Vec<ContextId> {
        self.by_method
            .get(&m)
            .map(|v| {
                v.iter()
                    .map(|&mc| ContextId(self.method_contexts[mc.index()].1 .0))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The sites a context is made of (receiver's site first).
    pub fn context(&self, c: ContextId) -> Vec<&SiteKey> {
        self.contexts
            .get(c.0 as usize)
            .map(|v| v.iter().map(|&s| &self.sites[s.index()]).collect())
            .unwrap_or_default()
    }

    pub fn object_count(&self) -> usize {
        self.objects.len()
    }

    /// Every abstract object, in id order.
    pub fn objects(&self) -> impl Iterator<Item = ObjectId> {
        (0..self.objects.len() as u32).map(ObjectId)
    }

    /// An object's site, heap context and type; `None` for a foreign id.
    pub fn object(&self, o: ObjectId) -> Option<ObjectInfo<'_>> {
        let &(site, h) = self.objects.get(o.0 as usize)?;
        Some(ObjectInfo {
            site: &self.sites[site.index()],
            heap_context: ContextId(h.0),
            type_name: &self.site_types[site.index()],
        })
    }

    /// Where an object was allocated: type, method, statement and line.
    pub fn alloc_info(&self, p: &Program, o: ObjectId) -> Option<AllocInfo> {
        let info = self.object(o)?;
        let loc = info.site.location();
        let line = loc.and_then(|(m, s)| {
            p.body(m)
                .and_then(|b| b.stmts.get(s.index()).and_then(|st| st.line))
        });
        Some(AllocInfo {
            type_name: info.type_name.clone(),
            method: loc.map(|l| l.0),
            stmt: loc.map(|l| l.1),
            line,
        })
    }

    /// `new Foo @ Main.run:12 [in ctx …]` for messages.
    pub fn describe_object(&self, p: &Program, o: ObjectId) -> String {
        let Some(info) = self.object(o) else {
            return format!("<object {}>", o.0);
        };
        // Context-only sites (`main`'s own context, the over-budget one)
        // say nothing about which object it is.
        let mut ctx = self.context(info.heap_context);
        ctx.retain(|s| !s.is_context_only());
        if ctx.is_empty() {
            info.site.display(p)
        } else {
            let c: Vec<String> = ctx.iter().map(|s| s.display(p)).collect();
            format!("{} [heap context {}]", info.site.display(p), c.join(", "))
        }
    }

    fn set_of(&self, ptr: Option<PtrId>) -> ObjectSet {
        ptr.and_then(|p| self.pts.get(p.index()))
            .map(ObjectSet::shared)
            .unwrap_or_default()
    }

    fn var_ptr(&self, mc: MCtxId, m: MethodId, v: VarId) -> Option<PtrId> {
        let slot = *self.var_slots.get(&m)?.get(v.index())?;
        // Modelled method contexts have no slots.
        let base = *self.mctx_base.get(mc.index())?;
        (slot != NO_SLOT && base != PtrId::UNSET).then(|| base + slot)
    }

    /// What variable `v` of `m` may point to in any context.
    pub fn var(&self, m: MethodId, v: VarId) -> ObjectSet {
        let mut out = ObjectSet::new();
        for &mc in self.by_method.get(&m).map(Vec::as_slice).unwrap_or(&[]) {
            if let Some(p) = self.var_ptr(mc, m, v) {
                if let Some(s) = self.pts.get(p.index()) {
                    out.union_with_set(s);
                }
            }
        }
        out
    }

    /// What variable `v` of `m` may point to in context `c`.
    pub fn var_in(&self, m: MethodId, c: ContextId, v: VarId) -> ObjectSet {
        let mcs = self.by_method.get(&m).map(Vec::as_slice).unwrap_or(&[]);
        let found = mcs
            .iter()
            .find(|&&mc| self.method_contexts[mc.index()].1 == CtxId(c.0));
        self.set_of(found.and_then(|&mc| self.var_ptr(mc, m, v)))
    }

    fn field_id(&self, key: &FieldKey) -> Option<FieldId> {
        self.fields.get(key)
    }

    /// A static field, named by any class that inherits it (resolved
    /// through the superclass chain as the JVM does for field references).
    pub fn static_field(&self, p: &Program, class: &str, name: &str) -> ObjectSet {
        let Some(c) = p.class_by_name(class) else {
            return ObjectSet::new();
        };
        // The class and its superclasses first, then interfaces (constants).
        for &k in p.superclasses(c).iter().chain(p.supertypes(c)) {
            let key = FieldKey::Field {
                class: p.class(k).name.clone(),
                name: Arc::from(name),
            };
            if let Some(ptr) = self.field_id(&key).and_then(|f| self.static_ptr.get(&f)) {
                return self.set_of(Some(*ptr));
            }
        }
        ObjectSet::new()
    }

    /// Every static field with a non-empty points-to set, sorted by key.
    pub fn static_fields(&self) -> Vec<(&FieldKey, ObjectSet)> {
        let mut v: Vec<(&FieldKey, ObjectSet)> = self
            .static_ptr
            .iter()
            .map(|(&f, &p)| (self.fields.key(f), self.set_of(Some(p))))
            .filter(|(_, s)| !s.is_empty())
            .collect();
        v.sort_by(|a, b| a.0.cmp(b.0));
        v
    }

    fn obj_field_ptr(&self, o: ObjectId, f: FieldId) -> Option<PtrId> {
        let v = self.obj_fields.get(o.0 as usize)?;
        v.binary_search_by_key(&f, |x| x.0).ok().map(|i| v[i].1)
    }

    /// Field `class.name` (the declaring class) of object `o`.
    pub fn field(&self, o: ObjectId, class: &str, name: &str) -> ObjectSet {
        let key = FieldKey::Field {
            class: Arc::from(class),
            name: Arc::from(name),
        };
        self.set_of(self.field_id(&key).and_then(|f| self.obj_field_ptr(o, f)))
    }

    /// The elements of array object `o`.
    pub fn elements(&self, o: ObjectId) -> ObjectSet {
        self.set_of(
            self.field_id(&FieldKey::Element)
                .and_then(|f| self.obj_field_ptr(o, f)),
        )
    }

    /// Every field of `o` with what it may hold, in field-id order.
    pub fn fields_of(&self, o: ObjectId) -> Vec<(&FieldKey, ObjectSet)> {
        self.obj_fields
            .get(o.0 as usize)
            .map(|v| {
                v.iter()
                    .map(|&(f, p)| (self.fields.key(f), self.set_of(Some(p))))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Every object thrown anywhere (when exceptions are tracked).
    pub fn thrown(&self) -> ObjectSet {
        self.set_of(self.exc_ptr)
    }

    /// The fields of the objects in `base` whose name satisfies `named`.
    fn fields_named(&self, base: &ObjectSet, named: impl Fn(&FieldKey) -> bool) -> ObjectSet {
        let mut out = ObjectSet::new();
        for o in base.iter() {
            for &(f, p) in self
                .obj_fields
                .get(o.0 as usize)
                .map(Vec::as_slice)
                .unwrap_or(&[])
            {
                if named(self.fields.key(f)) {
                    if let Some(s) = self.pts.get(p.index()) {
                        out.union_with_set(s);
                    }
                }
            }
        }
        out
    }

    /// What an access path of `m` (as `lockstep_ir::access_path` builds
    /// them) may point to, in context `ctx` or merged over all contexts.
    /// `None` when the path cannot be evaluated (`Unknown`, an int).
    pub fn path(
        &self,
        p: &Program,
        m: MethodId,
        ctx: Option<ContextId>,
        path: &AccessPath,
    ) -> Option<ObjectSet> {
        let body = p.body(m)?;
        let var = |v: VarId| match ctx {
            Some(c) => self.var_in(m, c, v),
            None => self.var(m, v),
        };
        Some(match path {
            AccessPath::This => {
                if body.is_static {
                    return None;
                }
                var(*body.params.first()?)
            }
            AccessPath::Param(i, _) => {
                let offset = usize::from(!body.is_static);
                var(*body.params.get(usize::from(*i) + offset)?)
            }
            AccessPath::Local(v, _) => var(*v),
            AccessPath::Static(class, name) => self.static_field(p, class, name),
            AccessPath::Field(base, name) => {
                let b = self.path(p, m, ctx, base)?;
                self.fields_named(
                    &b,
                    |k| matches!(k, FieldKey::Field { name: n, .. } if n == name),
                )
            }
            AccessPath::Element(base, _) => {
                let b = self.path(p, m, ctx, base)?;
                self.fields_named(&b, |k| *k == FieldKey::Element)
            }
            AccessPath::OuterThis(base, _) => {
                // javac's synthetic `this$N` field.
                let b = self.path(p, m, ctx, base)?;
                self.fields_named(
                    &b,
                    |k| matches!(k, FieldKey::Field { name, .. } if name.starts_with("this$")),
                )
            }
            AccessPath::ClassLiteral(c) => {
                let key = SiteKey::ClassLiteral(c.clone());
                self.objects
                    .iter()
                    .enumerate()
                    .filter(|(_, (s, _))| self.sites[s.index()] == key)
                    .map(|(i, _)| ObjectId(i as u32))
                    .collect()
            }
            AccessPath::IntConst(_) | AccessPath::Unknown => return None,
        })
    }

    /// May variable `v1` of `m1` and `v2` of `m2` point to a common object?
    pub fn may_alias_vars(&self, m1: MethodId, v1: VarId, m2: MethodId, v2: VarId) -> bool {
        self.var(m1, v1).intersects(&self.var(m2, v2))
    }

    /// May two access paths denote a common object? Paths that cannot be
    /// evaluated may alias anything.
    pub fn may_alias_paths(
        &self,
        p: &Program,
        a: (MethodId, &AccessPath),
        b: (MethodId, &AccessPath),
    ) -> bool {
        match (self.path(p, a.0, None, a.1), self.path(p, b.0, None, b.1)) {
            (Some(x), Some(y)) => x.intersects(&y),
            _ => true,
        }
    }

    fn canon_ctx(&self, c: CtxId) -> Vec<SiteKey> {
        self.contexts
            .get(c.index())
            .map(|v| v.iter().map(|&s| self.sites[s.index()].clone()).collect())
            .unwrap_or_default()
    }

    fn canon_obj(&self, o: ObjId) -> CanonObj {
        let (s, h) = self.objects[o.index()];
        (self.sites[s.index()].clone(), self.canon_ctx(h))
    }

    /// The whole result in structural keys, for comparing solvers.
    #[doc(hidden)]
    pub fn canonical(&self) -> Canonical {
        let mut out = Canonical::default();
        for &(m, c) in &self.method_contexts {
            out.reachable.insert((m, self.canon_ctx(c)));
        }
        for e in &self.cs_edges {
            out.edges.insert((
                e.caller.method,
                self.canon_ctx(CtxId(e.caller.context.0)),
                e.site,
                e.kind,
                e.callee.method,
                self.canon_ctx(CtxId(e.callee.context.0)),
            ));
        }
        for (i, set) in self.pts.iter().enumerate() {
            if set.is_empty() {
                continue;
            }
            let key = match self.kinds[i] {
                PtrKind::Var(mc, slot) => {
                    let (m, c) = self.method_contexts[mc.index()];
                    CanonPtr::Var(m, self.canon_ctx(c), slot)
                }
                PtrKind::Field(o, f) => {
                    CanonPtr::Field(self.canon_obj(o), self.fields.key(f).clone())
                }
                PtrKind::Static(f) => CanonPtr::Static(self.fields.key(f).clone()),
                PtrKind::Exc => CanonPtr::Exc,
                PtrKind::Temp => continue,
            };
            let objs = set.iter().map(|o| self.canon_obj(ObjId(o))).collect();
            out.pts.insert(key, objs);
        }
        out
    }

    /// What every variable of every method context may point to, in
    /// structural keys (method, context, variable): unlike
    /// [`Self::canonical`], independent of how variables share slots.
    pub fn canonical_vars(&self) -> BTreeMap<(MethodId, Vec<SiteKey>, u32), BTreeSet<CanonObj>> {
        let mut out = BTreeMap::new();
        for (i, &(m, c)) in self.method_contexts.iter().enumerate() {
            let Some(slots) = self.var_slots.get(&m) else {
                continue;
            };
            let ctx = self.canon_ctx(c);
            for v in 0..slots.len() {
                let set = self.set_of(self.var_ptr(MCtxId(i as u32), m, VarId(v as u32)));
                if !set.is_empty() {
                    let objs = set.iter().map(|o| self.canon_obj(ObjId(o.0))).collect();
                    out.insert((m, ctx.clone(), v as u32), objs);
                }
            }
        }
        out
    }
}

/// An object in structural keys: site and heap context.
pub type CanonObj = (SiteKey, Vec<SiteKey>);

/// A pointer in structural keys.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CanonPtr {
    /// Slot of a method template in a context.
    Var(MethodId, Vec<SiteKey>, u32),
    Field(CanonObj, FieldKey),
    Static(FieldKey),
    /// The pointer of thrown objects.
    Exc,
}

/// A call edge in structural keys: (caller, caller context, site, kind,
/// callee, callee context).
pub type CanonEdge = (
    MethodId,
    Vec<SiteKey>,
    StmtId,
    EdgeKind,
    MethodId,
    Vec<SiteKey>,
);

/// A result in structural keys (see [`PointsToResult::canonical`] and
/// [`crate::reference::solve`]).
#[doc(hidden)]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Canonical {
    pub reachable: BTreeSet<(MethodId, Vec<SiteKey>)>,
    /// (caller, caller context, site, kind, callee, callee context).
    pub edges: BTreeSet<CanonEdge>,
    /// Non-empty points-to sets only.
    pub pts: BTreeMap<CanonPtr, BTreeSet<CanonObj>>,
}
