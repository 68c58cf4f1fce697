//! The fast solver: a worklist over pointer nodes with difference
//! propagation, building the call graph on the fly.
//!
//! Pointers are dense ids: the slots of each reached (method, context)
//! (allocated in one block when the pair is materialized), one pointer per
//! (object, field) and per static field, one pointer of thrown objects, and
//! temporaries for models. Each pointer has its points-to set, the part of
//! it not yet propagated (`diff`), the type filter of its declared type,
//! its copy edges (optionally filtered by a cast or catch type) and its
//! *uses*: loads and stores through it, calls and thread starts on it.
//! Processing a pointer sends its `diff` along its edges (intersected with
//! the filters' object masks, see `filters`) and applies its uses to each
//! new object, which adds edges (`o.f`), reaches methods in contexts, and
//! connects arguments and results.
//!
//! Newly reached method contexts are queued and materialized in batches
//! (template, slots, facts); call edges that arrive before are kept
//! pending. Contexts beyond the configured bounds fall back to one
//! over-budget context (`SiteKey::OverBudget`), apart from the empty
//! context of the JDK code analysed without contexts.
//!
//! Rules, in the notation of the Datalog formulations this follows (Doop,
//! Smaragdakis & Bravenboer), with `c` a method context and `hc` a heap
//! context:
//!
//! ```text
//! new:    v = new T @s in (m,c)          ⇒ (s, heap(c)) ∈ pts(v,c)
//! copy:   v = w                          ⇒ pts(w,c) ⊆ pts(v,c)
//! load:   v = w.f,  o ∈ pts(w,c)         ⇒ pts(o.f) ⊆ pts(v,c)
//! store:  w.f = v,  o ∈ pts(w,c)         ⇒ pts(v,c) ⊆ pts(o.f)
//! call:   r = w.m(a), o ∈ pts(w,c), t = dispatch(type(o), m), c' = ctx(o)
//!                                        ⇒ reach (t,c'), o ∈ pts(this_t,c'),
//!                                          pts(a,c) ⊆ pts(param_t,c'), pts(ret_t,c') ⊆ pts(r,c)
//! static: r = C.m(a)                     ⇒ as above with c' = c, no receiver
//! ```
//!
//! Determinism: one thread; FIFO worklists; ids assigned in first-seen
//! order. Bodies of newly reached methods are lowered in parallel before
//! use (pure work whose results do not depend on the order).

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Instant;

use lockstep_ir::StmtId;
use lockstep_models::{HeapEffect, Operand as ModelOperand, TaskShape};
use lockstep_program::{ClassId, EdgeKind, EntryPoints, MethodId, Program};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::config::{Config, SolveMemory};
use crate::external;
use crate::facts::{self, Fact, LambdaFact, LambdaImpl, Target, Template};
use crate::filters::Filters;
use crate::hybrid::HybridSet;
use crate::ids::{CtxId, FieldId, MCtxId, ObjId, PtrId, SiteId, Slot, TypeId};
use crate::intern::Interner;
use crate::keys::SiteKey;
use crate::pts::IdSet;
use crate::raw::{PtrKind, RawResult, RawThreadStart};
use crate::result::BudgetCut;
use crate::rules::{heap_context, receiver_context, Rules};

#[path = "content.rs"]
mod content;

const NO_FILTER: u32 = u32::MAX;
/// "Not looked up yet" in [`Solver::owner_filter`].
const FILTER_UNSET: u32 = u32::MAX - 1;
/// Successor lists up to this long are searched for a duplicate edge;
/// longer ones are indexed in [`Solver::edge_sets`] (most pointers have a
/// few successors, and a scan of those is cheaper than a hash lookup).
const SCANNED_SUCCESSORS: usize = 16;
/// The `via` of ordinary call edges, whose arguments are those of their
/// call site; edges made through lambdas carry the id of their argument list.
const NO_VIA: u32 = u32::MAX;

/// Something to do with each object a pointer gets.
#[derive(Debug, Clone, Copy)]
enum Use {
    /// `dst = this.f`.
    Load(FieldId, PtrId),
    /// `this.f = src`.
    Store(FieldId, PtrId),
    /// A virtual or special call with this receiver ([`Solver::calls`]).
    Call(u32),
    /// A thread start with this task: call instance, launch index.
    Launch(u32, u16),
    /// `dst = this.f` and `this.f = src` for objects the application did
    /// not make only ([`Rules::unsafe_skips_application`]).
    LoadInternal(FieldId, PtrId),
    StoreInternal(FieldId, PtrId),
    /// The receiver of a lambda's implementation ([`Solver::lambda_recvs`]).
    LambdaRecv(u32),
    /// The receiver of a call a container model makes (`content`).
    ModelCall(u32),
    /// A container whose contents a container model copies (`content`).
    Copy(u32),
}

/// A pointer node's state that a propagation into it reads and writes,
/// kept together: in separate tables its set, difference, filter and
/// queued flag were four cache misses for each successor of a processed
/// pointer (the profile's largest stalls on hsqldb); together they share
/// one 64-byte line.
struct Node {
    pts: HybridSet,
    /// The part of `pts` not yet propagated.
    diff: IdSet,
    /// The filter of the pointer's declared type (variables), or `NO_FILTER`.
    filter: u32,
    queued: bool,
}

/// A call site of a method running in one context.
struct CallInst {
    caller: MCtxId,
    tpl: Arc<Template>,
    index: u32,
    /// The filter of the receiver types the call accepts (its declared class).
    recv_filter: u32,
    /// The call's site and its pointers, computed once: the call is
    /// connected again for every receiver object.
    site: Site,
    recv: Option<PtrId>,
    args: Arc<[Option<PtrId>]>,
    result: Option<PtrId>,
    /// The first callee method contexts this call was connected to: most
    /// calls have a few, and each receiver object connects the call again,
    /// so a hit here saves a lookup in [`Solver::edge_keys`].
    known: [MCtxId; KNOWN_CALLEES],
    known_len: u8,
}

/// How many pointers the solver processes between two looks at the clock
/// for the time budget (a look costs about as much as a small propagation).
const BUDGET_CHECK_EVERY: u64 = 1024;

/// How many buffers of processed differences the solver keeps, and the
/// largest capacity (in words) it keeps.
const SPARE_DIFFS: usize = 256;
const SPARE_DIFF_WORDS: usize = 64;

/// How many callee method contexts a call instance remembers.
const KNOWN_CALLEES: usize = 4;

/// How a virtual or special call picks its callee for a receiver.
#[derive(Clone, Copy)]
enum Callee {
    Direct(MethodId),
    /// Dispatch on the receiver's type, by signature id.
    Virtual(u32),
}

/// Where an edge starts: a call site in a method context, and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Site {
    caller: MCtxId,
    stmt: StmtId,
    kind: EdgeKind,
}

/// The callee side of a call edge waiting for its method context's template.
struct Pending {
    new_edge: bool,
    args: Vec<Option<PtrId>>,
    result: Option<PtrId>,
    this: Option<ObjId>,
}

/// How a lambda's implementation is entered once its receiver is known.
enum RecvTarget {
    Direct(MethodId),
    Virtual {
        class: ClassId,
        name: Arc<str>,
        desc: Arc<str>,
        sig: u32,
    },
}

struct LambdaRecv {
    site: Site,
    via: u32,
    target: RecvTarget,
    /// The filter of the receivers the target accepts (its class).
    recv_filter: u32,
    args: Vec<Option<PtrId>>,
    result: Option<PtrId>,
}

/// The argument pointers of a call made through a lambda, and its result pointer.
type Actuals = (Box<[Option<PtrId>]>, Option<PtrId>);

pub(crate) struct Solver<'p> {
    r: Rules<'p>,
    ctxs: Interner<Box<[SiteId]>, CtxId>,
    heap_of: FxHashMap<CtxId, CtxId>,
    objs: Interner<(SiteId, CtxId), ObjId>,
    obj_ctx: Vec<CtxId>,
    mctxs: Interner<(MethodId, CtxId), MCtxId>,
    mctx_base: Vec<PtrId>,
    mctx_tpl: Vec<Option<Arc<Template>>>,
    /// Whether a method context's template is built and its slots exist.
    materialized: Vec<bool>,
    /// Call edges into method contexts not yet materialized, replayed when they are.
    pending: FxHashMap<MCtxId, Vec<Pending>>,
    contexts_per_method: FxHashMap<MethodId, u32>,
    budget_fallbacks: u64,
    /// Of those, the calls run in a context of their calling method
    /// ([`Config::past_bound_calls_per_caller`]).
    per_caller_fallbacks: u64,
    /// The methods modelled thread starts entered ([`Self::is_task_method`]).
    task_entries: FxHashSet<MethodId>,
    /// Calls of stream pipelines by JDK code past the bounds, run in the
    /// shared over-budget copy ([`Self::past_bounds_ctx`]).
    shared_pipeline_calls: u64,
    contexts_created: u32,
    /// The part of `contexts_created` spent on JDK methods.
    library_contexts_created: u32,
    over_budget_ctx: Option<CtxId>,
    /// The time budget ([`Config::budget`]) stopped new contexts: every
    /// new one runs in the over-budget context.
    contexts_cut: bool,
    /// Calls merged into the over-budget context because of that cut.
    cut_fallbacks: u64,
    /// The time budget stopped the solve: pointers still queued then.
    stopped_with: Option<usize>,

    /// Each pointer's set, difference, filter and queued flag ([`Node`]).
    nodes: Vec<Node>,
    /// The words a propagation added (reused: no allocation per propagation).
    delta: Vec<(u32, u64)>,
    /// Buffers of processed differences, for the next pointers that get
    /// one: a difference lives from its pointer's first new object to its
    /// processing, a million times on hsqldb, each an allocation and a free.
    spare_diffs: Vec<Vec<(u32, u64)>>,
    succ: Vec<Vec<(PtrId, u32)>>,
    uses: Vec<Vec<Use>>,
    kinds: Vec<PtrKind>,
    /// The successors of each pointer with more than [`SCANNED_SUCCESSORS`]
    /// of them, as a set of its own: one table of every such edge (2.3 M
    /// on hsqldb) made each duplicate check a cache miss and its growth
    /// 30% of the solve's page faults; a pointer's own table is small,
    /// warm while the pointer gets edges, and reused by the allocator.
    edge_sets: FxHashMap<PtrId, FxHashSet<(PtrId, u32)>>,
    field_ptr: FxHashMap<(ObjId, FieldId), PtrId>,
    /// Shallow copies made by `Object.clone` ([`Self::copy_receiver`]):
    /// the copies of each original, and the originals of each copy. Each
    /// field pointer of an original flows into the same field of its
    /// copies, whichever of the two is made first.
    copies: FxHashMap<ObjId, Vec<ObjId>>,
    originals: FxHashMap<ObjId, Vec<ObjId>>,
    /// The copy site of each `clone` call and receiver type.
    copy_sites: FxHashMap<(MethodId, StmtId, TypeId), SiteId>,
    static_ptr: FxHashMap<FieldId, PtrId>,
    exc_ptr: Option<PtrId>,
    filters: Filters,
    /// For declared fields, the filter of their declaring class.
    /// By field id; `FILTER_UNSET` until asked.
    owner_filter: Vec<u32>,

    calls: Vec<CallInst>,
    lambda_recvs: Vec<LambdaRecv>,
    lambda_seen: FxHashSet<(MCtxId, StmtId, EdgeKind, ObjId, u32)>,
    /// Call instances whose outside tasks were started ([`Solver::outside_launch`]).
    outside_launched: FxHashSet<u32>,
    /// Argument lists (and result pointer) of calls made through lambdas.
    actuals: Interner<Actuals>,
    edge_keys: FxHashSet<(MCtxId, StmtId, EdgeKind, MCtxId, u32)>,
    cs_edge_set: FxHashSet<(MCtxId, StmtId, EdgeKind, MCtxId)>,
    cs_edges: Vec<(MCtxId, StmtId, EdgeKind, MCtxId)>,
    thread_starts: Vec<RawThreadStart>,

    worklist: VecDeque<PtrId>,
    reach_queue: VecDeque<MCtxId>,
    initialized: FxHashSet<ClassId>,
    class_inits: Vec<MethodId>,
    iterations: u64,
    /// The container models' state ([`Config::container_models`]).
    content: content::Content,
}

impl<'p> Solver<'p> {
    pub(crate) fn new(p: &'p Program, cfg: Config) -> Solver<'p> {
        let mut ctxs = Interner::default();
        ctxs.intern(Box::<[SiteId]>::from([]));
        Solver {
            r: Rules::new(p, cfg),
            ctxs,
            heap_of: FxHashMap::default(),
            objs: Interner::default(),
            obj_ctx: Vec::new(),
            mctxs: Interner::default(),
            mctx_base: Vec::new(),
            mctx_tpl: Vec::new(),
            materialized: Vec::new(),
            pending: FxHashMap::default(),
            contexts_per_method: FxHashMap::default(),
            budget_fallbacks: 0,
            per_caller_fallbacks: 0,
            task_entries: FxHashSet::default(),
            shared_pipeline_calls: 0,
            contexts_created: 0,
            library_contexts_created: 0,
            over_budget_ctx: None,
            contexts_cut: false,
            cut_fallbacks: 0,
            stopped_with: None,
            nodes: Vec::new(),
            delta: Vec::new(),
            spare_diffs: Vec::new(),
            succ: Vec::new(),
            uses: Vec::new(),
            kinds: Vec::new(),
            edge_sets: FxHashMap::default(),
            field_ptr: FxHashMap::default(),
            copies: FxHashMap::default(),
            originals: FxHashMap::default(),
            copy_sites: FxHashMap::default(),
            static_ptr: FxHashMap::default(),
            exc_ptr: None,
            filters: Filters::new(),
            owner_filter: Vec::new(),
            calls: Vec::new(),
            lambda_recvs: Vec::new(),
            lambda_seen: FxHashSet::default(),
            outside_launched: FxHashSet::default(),
            actuals: Interner::default(),
            edge_keys: FxHashSet::default(),
            cs_edge_set: FxHashSet::default(),
            cs_edges: Vec::new(),
            thread_starts: Vec::new(),
            worklist: VecDeque::new(),
            reach_queue: VecDeque::new(),
            initialized: FxHashSet::default(),
            class_inits: Vec::new(),
            iterations: 0,
            content: content::Content::default(),
        }
    }

    pub(crate) fn solve(mut self, entries: &EntryPoints) -> RawResult {
        let start = Instant::now();
        self.seed_vm_statics();
        for &m in &entries.methods {
            self.seed_entry(m);
        }
        loop {
            if !self.reach_queue.is_empty() {
                // One layer of newly reached method contexts at a time, their
                // bodies lowered in parallel first.
                let batch: Vec<MCtxId> = self.reach_queue.drain(..).collect();
                self.prefetch(&batch);
                for mc in batch {
                    self.materialize(mc);
                    self.instantiate(mc);
                }
                continue;
            }
            if self.worklist.is_empty() {
                break;
            }
            if self.iterations % BUDGET_CHECK_EVERY == 0 && self.budget_stops() {
                self.stopped_with = Some(self.worklist.len());
                break;
            }
            let Some(p) = self.worklist.pop_front() else {
                break;
            };
            self.nodes[p.index()].queued = false;
            self.process(p);
        }
        let millis = start.elapsed().as_millis();
        self.finish(entries, millis)
    }

    /// Applies the budget ([`Config::budget`]), if any: past its first
    /// instant or memory mark no new context is made; past its second,
    /// the solve should stop (the answer). Method contexts reached before
    /// the stop are still materialized (the caller only stops between
    /// batches), so every method context of the result has its facts.
    fn budget_stops(&mut self) -> bool {
        let Some(b) = self.r.cfg.budget else {
            return false;
        };
        let now = Instant::now();
        let resident = b.memory.and_then(|m| m.probe.read());
        let past = |at: Option<Instant>| at.is_some_and(|at| now >= at);
        let above = |mark: fn(&SolveMemory) -> u64| {
            b.memory.zip(resident).is_some_and(|(m, r)| r >= mark(&m))
        };
        if past(b.contexts) || above(|m| m.contexts_at) {
            self.contexts_cut = true;
        }
        past(b.stop) || above(|m| m.stop_at)
    }

    // ------------------------------------------------------------------
    // Ids

    fn ctx(&mut self, sites: Vec<SiteId>) -> CtxId {
        self.ctxs.intern(sites.into_boxed_slice()).0
    }

    fn heap_ctx(&mut self, c: CtxId) -> CtxId {
        if self.r.h == 0 || c == CtxId::EMPTY {
            return CtxId::EMPTY;
        }
        if let Some(&h) = self.heap_of.get(&c) {
            return h;
        }
        let v = heap_context(self.r.h, self.ctxs.key(c));
        let h = self.ctx(v);
        self.heap_of.insert(c, h);
        h
    }

    /// The heap context of what `method` allocates running in `c`: an
    /// application method's per-caller copy past the bounds
    /// ([`Config::past_bound_calls_per_caller`]) allocates as the shared
    /// over-budget copy did, so its copies multiply no objects (each
    /// object would bring its fields and its own receiver contexts).
    fn alloc_heap_ctx(&mut self, method: MethodId, c: CtxId) -> CtxId {
        if self.r.cfg.past_bound_calls_per_caller
            && self.is_over_budget_caller_ctx(c)
            && !self.r.is_jdk_method(method)
        {
            let ob = self.over_budget_ctx();
            return self.heap_ctx(ob);
        }
        self.heap_ctx(c)
    }

    fn obj(&mut self, site: SiteId, hctx: CtxId) -> ObjId {
        let (o, new) = self.objs.intern((site, hctx));
        if new {
            self.obj_ctx.push(CtxId::UNSET);
            let ty = self.r.site_type(site);
            self.filters.add_object(&mut self.r, o.0, ty);
        }
        o
    }

    fn obj_ty(&self, o: ObjId) -> TypeId {
        let (site, _) = *self.objs.key(o);
        self.r.site_type(site)
    }

    /// The context of a method called on `o` (before the callee's own policy).
    fn recv_ctx(&mut self, o: ObjId) -> CtxId {
        let c = self.obj_ctx[o.index()];
        if c != CtxId::UNSET {
            return c;
        }
        let (site, h) = *self.objs.key(o);
        let v = receiver_context(self.r.k, &site, self.ctxs.key(h));
        let c = self.ctx(v);
        self.obj_ctx[o.index()] = c;
        c
    }

    /// The context `callee` runs in when called on `o`.
    fn callee_ctx(&mut self, callee: MethodId, o: ObjId) -> CtxId {
        let (site, h) = *self.objs.key(o);
        if self
            .r
            .receiver_gets_context(callee, site, h == CtxId::EMPTY)
        {
            self.recv_ctx(o)
        } else {
            CtxId::EMPTY
        }
    }

    fn new_ptr(&mut self, kind: PtrKind) -> PtrId {
        self.new_typed_ptr(kind, NO_FILTER)
    }

    fn new_typed_ptr(&mut self, kind: PtrKind, filter: u32) -> PtrId {
        let id = PtrId(self.nodes.len() as u32);
        self.nodes.push(Node {
            pts: HybridSet::new(),
            diff: IdSet::new(),
            filter,
            queued: false,
        });
        self.succ.push(Vec::new());
        self.uses.push(Vec::new());
        self.kinds.push(kind);
        id
    }

    /// The method context `(m, c)`, created (and queued for its facts) on
    /// first sight; over a bound, the over-budget context instead.
    fn mctx(&mut self, m: MethodId, c: CtxId) -> MCtxId {
        self.mctx_bounded(m, c, true, None)
    }

    /// [`Self::mctx`], with `bounded: false` for a context the bounds do not
    /// apply to (besides the methods [`Rules::exempt_from_bounds`] names),
    /// for a call made by `caller` (`None`: not a call), which decides
    /// the context past the bounds ([`Self::past_bound_call_ctx`]).
    fn mctx_bounded(
        &mut self,
        m: MethodId,
        c: CtxId,
        bounded: bool,
        caller: Option<MCtxId>,
    ) -> MCtxId {
        if let Some(mc) = self.mctxs.get(&(m, c)) {
            return mc;
        }
        let mut c = c;
        if self.contexts_cut && c != CtxId::EMPTY && Some(c) != self.over_budget_ctx {
            // Past the time budget's first instant even the contexts outside
            // the bounds (callbacks per calling method, lock parts) merge.
            self.cut_fallbacks += 1;
            c = self.over_budget_ctx();
            if let Some(mc) = self.mctxs.get(&(m, c)) {
                return mc;
            }
        } else if bounded
            && c != CtxId::EMPTY
            && Some(c) != self.over_budget_ctx
            && !self.r.exempt_from_bounds(m)
            && self.over_budget(m)
        {
            self.budget_fallbacks += 1;
            c = self.past_bound_call_ctx(caller);
            if let Some(mc) = self.mctxs.get(&(m, c)) {
                return mc;
            }
        }
        let (mc, _) = self.mctxs.intern((m, c));
        self.mctx_base.push(PtrId::UNSET);
        self.mctx_tpl.push(None);
        self.materialized.push(false);
        self.reach_queue.push_back(mc);
        mc
    }

    /// The method context `(m, c)` of a JDK method a container model
    /// stands for: a call graph node without template, slots or facts,
    /// never queued for them.
    fn modelled_mctx(&mut self, m: MethodId, c: CtxId) -> MCtxId {
        if let Some(mc) = self.mctxs.get(&(m, c)) {
            return mc;
        }
        let (mc, _) = self.mctxs.intern((m, c));
        self.mctx_base.push(PtrId::UNSET);
        self.mctx_tpl.push(None);
        self.materialized.push(true);
        mc
    }

    /// The context a call by `caller` runs in past the bounds: with
    /// [`Config::past_bound_calls_per_caller`], a context of the calling
    /// method when that is an application thread task's method
    /// ([`Self::is_task_method`]; any application method with
    /// [`Config::past_bound_calls_all`]), outside the bounds: one per
    /// calling method at most, per callee; otherwise the one over-budget
    /// context. The copy's own calls past the bounds take the shared
    /// context again: keeping the task's context through them copied each
    /// task's whole over-budget subgraph (3.7× the facts on hsqldb).
    fn past_bound_call_ctx(&mut self, caller: Option<MCtxId>) -> CtxId {
        let Some(mc) = caller else {
            return self.over_budget_ctx();
        };
        let x = self.mctxs.key(mc).0;
        if !self.r.cfg.past_bound_calls_per_caller || self.r.is_jdk_method(x) {
            return self.over_budget_ctx();
        }
        if self.r.cfg.past_bound_calls_all || self.is_task_method(x) {
            self.per_caller_fallbacks += 1;
            return self.over_budget_caller_ctx(x);
        }
        self.over_budget_ctx()
    }

    /// Is `m` the body of a thread task: a method a modelled thread start
    /// entered, or an application `run()`/`call()` (tasks run by the
    /// program's own timers and pools, like hsqldb's `HsqlTimer`, are
    /// entered through an ordinary call)?
    fn is_task_method(&mut self, m: MethodId) -> bool {
        if self.task_entries.contains(&m) {
            return true;
        }
        let md = self.r.p.method(m);
        let (name, desc) = (&*md.name, &*md.descriptor);
        !md.is_static()
            && lockstep_models::threads::RUNNABLE
                .candidates
                .iter()
                .chain(lockstep_models::threads::CALLABLE.candidates)
                .any(|&(n, d)| n == name && d == desc)
    }

    /// The context calls over the bounds run in (`SiteKey::OverBudget`), or
    /// the empty one without contexts.
    fn over_budget_ctx(&mut self) -> CtxId {
        if let Some(c) = self.over_budget_ctx {
            return c;
        }
        let c = if self.r.k == 0 {
            CtxId::EMPTY
        } else {
            let site = self.r.t.named_site(self.r.p, SiteKey::OverBudget);
            self.ctx(vec![site])
        };
        self.over_budget_ctx = Some(c);
        c
    }

    /// Would a new non-empty context for `m` exceed a bound? Counts it if
    /// not. JDK methods also count against their share
    /// ([`Config::max_library_contexts`]), so that the JDK containers
    /// reached first cannot spend the bound application code needs.
    fn over_budget(&mut self, m: MethodId) -> bool {
        let cfg = self.r.cfg;
        if cfg
            .max_contexts
            .is_some_and(|max| self.contexts_created >= max)
        {
            return true;
        }
        let library = cfg.max_library_contexts.is_some() && self.r.spends_library_share(m);
        if library
            && cfg
                .max_library_contexts
                .is_some_and(|max| self.library_contexts_created >= max)
        {
            return true;
        }
        if let Some(max) = cfg.max_contexts_per_method {
            let n = self.contexts_per_method.entry(m).or_insert(0);
            if *n >= max {
                return true;
            }
            *n += 1;
        }
        self.contexts_created += 1;
        if library {
            self.library_contexts_created += 1;
        }
        false
    }

    /// Builds the template of a method context and its slot pointers (once),
    /// then replays the call edges that arrived before.
    fn materialize(&mut self, mc: MCtxId) {
        if self.materialized[mc.index()] {
            return;
        }
        self.materialized[mc.index()] = true;
        let m = self.mctxs.key(mc).0;
        let tpl = self.r.template(m);
        let base = PtrId(self.nodes.len() as u32);
        if let Some(t) = &tpl {
            for slot in 0..t.slots {
                let filter = match t.slot_types.get(slot as usize).copied().flatten() {
                    Some(ty) => self.type_filter(ty),
                    None => NO_FILTER,
                };
                self.new_typed_ptr(PtrKind::Var(mc, slot), filter);
            }
        }
        self.mctx_base[mc.index()] = base;
        self.mctx_tpl[mc.index()] = tpl;
        if let Some(list) = self.pending.remove(&mc) {
            for p in list {
                self.connect_callee(mc, p);
            }
        }
    }

    fn slot_ptr(&self, mc: MCtxId, s: Slot) -> PtrId {
        self.mctx_base[mc.index()] + s
    }

    fn field_ptr(&mut self, o: ObjId, f: FieldId) -> PtrId {
        if let Some(&p) = self.field_ptr.get(&(o, f)) {
            return p;
        }
        let ty = self.obj_ty(o);
        let site = self.objs.key(o).0;
        let filter = if self.r.t.holds_nothing(site, f) {
            self.filters.nothing(&mut self.r)
        } else {
            match self.r.field_type(f, Some(ty)) {
                Some(t) => self.type_filter(t),
                None => NO_FILTER,
            }
        };
        let p = self.new_typed_ptr(PtrKind::Field(o, f), filter);
        self.field_ptr.insert((o, f), p);
        if let Some(site) = self.r.external_field_site(f, Some(ty)) {
            let eo = self.obj(site, CtxId::EMPTY);
            self.add_obj(p, eo);
        }
        if !self.copies.is_empty() {
            self.link_copied_field(o, f, p);
        }
        p
    }

    /// Connects the new pointer `p` of field `f` of `o` with the same field
    /// of `o`'s copies (`p` flows into theirs) and of its originals (theirs
    /// flow into `p`).
    fn link_copied_field(&mut self, o: ObjId, f: FieldId, p: PtrId) {
        let copies = self.copies.get(&o).cloned().unwrap_or_default();
        for n in copies {
            let q = self.field_ptr(n, f);
            self.add_edge(p, q, NO_FILTER);
        }
        let originals = self.originals.get(&o).cloned().unwrap_or_default();
        for x in originals {
            let q = self.field_ptr(x, f);
            self.add_edge(q, p, NO_FILTER);
        }
    }

    /// `Object.clone` called from `site` on `o` (`HeapEffect::CopiesReceiver`):
    /// the result is a copy of `o`, one object per call site and type with
    /// the caller's heap context, whose fields get what `o`'s hold. Only
    /// the fields `o` has a pointer for so far are linked here; the others
    /// are when made ([`Self::link_copied_field`]).
    fn copy_receiver(&mut self, site: Site, o: ObjId, result: PtrId) {
        let (method, ctx) = *self.mctxs.key(site.caller);
        let ty = self.obj_ty(o);
        let cs = match self.copy_sites.get(&(method, site.stmt, ty)) {
            Some(&cs) => cs,
            None => {
                let cs = self.r.t.copy_site(self.r.p, method, site.stmt, ty);
                self.copy_sites.insert((method, site.stmt, ty), cs);
                cs
            }
        };
        let h = self.alloc_heap_ctx(method, ctx);
        let n = self.obj(cs, h);
        self.add_obj(result, n);
        let known = self.copies.entry(o).or_default();
        if known.contains(&n) {
            return;
        }
        known.push(n);
        self.originals.entry(n).or_default().push(o);
        for &f in self.r.anywhere_fields(ty).iter() {
            if let Some(&p) = self.field_ptr.get(&(o, f)) {
                let q = self.field_ptr(n, f);
                self.add_edge(p, q, NO_FILTER);
            }
        }
    }

    fn static_ptr(&mut self, f: FieldId) -> PtrId {
        if let Some(&p) = self.static_ptr.get(&f) {
            return p;
        }
        let filter = match self.r.field_type(f, None) {
            Some(t) => self.type_filter(t),
            None => NO_FILTER,
        };
        let p = self.new_typed_ptr(PtrKind::Static(f), filter);
        self.static_ptr.insert(f, p);
        if let Some(site) = self.r.external_field_site(f, None) {
            let eo = self.obj(site, CtxId::EMPTY);
            self.add_obj(p, eo);
        }
        p
    }

    /// The one pointer holding every thrown object.
    fn exc_ptr(&mut self) -> PtrId {
        if let Some(p) = self.exc_ptr {
            return p;
        }
        let p = self.new_ptr(PtrKind::Exc);
        self.exc_ptr = Some(p);
        p
    }

    // ------------------------------------------------------------------
    // Propagation

    fn enqueue(&mut self, p: PtrId) {
        let node = &mut self.nodes[p.index()];
        if !node.queued {
            node.queued = true;
            self.worklist.push_back(p);
        }
    }

    /// Adds `set` to `dst`, keeping only what the edge's filter and the
    /// pointer's declared type allow, and queues what is new.
    fn propagate(&mut self, set: impl Iterator<Item = (u32, u64)>, dst: PtrId, filter: u32) {
        let node = &mut self.nodes[dst.index()];
        let own = node.filter;
        let masks = &self.filters.masks;
        let m1 = (filter != NO_FILTER).then(|| &masks[filter as usize]);
        let m2 = (own != NO_FILTER).then(|| &masks[own as usize]);
        let delta = &mut self.delta;
        if node.pts.union_masked_into(set, m1, m2, delta) {
            if node.diff.is_empty() {
                let mut words = self.spare_diffs.pop().unwrap_or_default();
                words.extend_from_slice(delta);
                node.diff = IdSet::from_words(words);
            } else {
                node.diff.merge(delta);
            }
            self.enqueue(dst);
        }
    }

    fn add_obj(&mut self, dst: PtrId, o: ObjId) {
        let node = &mut self.nodes[dst.index()];
        let own = node.filter;
        if own != NO_FILTER && !self.filters.masks[own as usize].contains(o.0) {
            return;
        }
        if node.pts.insert(o.0) {
            node.diff.insert(o.0);
            self.enqueue(dst);
        }
    }

    /// `pts(src) ⊆ pts(dst)` (filtered), from now on.
    fn add_edge(&mut self, src: PtrId, dst: PtrId, filter: u32) {
        if src == dst || !self.record_edge(src, dst, filter) {
            return;
        }
        if !self.nodes[src.index()].pts.is_empty() {
            // Take the set out so `propagate` can borrow `self` mutably; `dst != src`.
            let set = std::mem::take(&mut self.nodes[src.index()].pts);
            self.propagate(set.words(), dst, filter);
            self.nodes[src.index()].pts = set;
        }
    }

    /// Adds the edge to `src`'s successors; `false` if it was there.
    fn record_edge(&mut self, src: PtrId, dst: PtrId, filter: u32) -> bool {
        let succ = &mut self.succ[src.index()];
        if succ.len() < SCANNED_SUCCESSORS {
            if succ.contains(&(dst, filter)) {
                return false;
            }
            succ.push((dst, filter));
            if succ.len() == SCANNED_SUCCESSORS {
                // From now on the pointer's table answers.
                self.edge_sets.insert(src, succ.iter().copied().collect());
            }
            return true;
        }
        let known = self.edge_sets.entry(src).or_default();
        if !known.insert((dst, filter)) {
            return false;
        }
        succ.push((dst, filter));
        true
    }

    fn add_use(&mut self, p: PtrId, u: Use) {
        self.uses[p.index()].push(u);
        if !self.nodes[p.index()].pts.is_empty() {
            let objs: Vec<ObjId> = self.nodes[p.index()].pts.iter().map(ObjId).collect();
            for o in objs {
                self.apply(u, o);
            }
        }
    }

    fn process(&mut self, p: PtrId) {
        self.iterations += 1;
        let d = std::mem::take(&mut self.nodes[p.index()].diff);
        if d.is_empty() {
            return;
        }
        let n = self.succ[p.index()].len();
        for i in 0..n {
            let (q, f) = self.succ[p.index()][i];
            self.propagate(d.words().iter().copied(), q, f);
        }
        let nu = self.uses[p.index()].len();
        for i in 0..nu {
            let u = self.uses[p.index()][i];
            for o in d.iter() {
                self.apply(u, ObjId(o));
            }
        }
        self.recycle(d);
    }

    /// Keeps a processed difference's buffer for reuse, unless enough are
    /// kept or it is large (a large buffer kept would hold memory a small
    /// difference does not need).
    fn recycle(&mut self, d: IdSet) {
        let mut words = d.into_words();
        if self.spare_diffs.len() < SPARE_DIFFS && words.capacity() <= SPARE_DIFF_WORDS {
            words.clear();
            self.spare_diffs.push(words);
        }
    }

    /// Does object `o` have field `f` (declared fields only on instances of
    /// their class)?
    fn has_field(&mut self, o: ObjId, f: FieldId) -> bool {
        let filter = match self.owner_filter.get(f.index()) {
            Some(&x) if x != FILTER_UNSET => x,
            _ => {
                let x = match self.r.field_owner(f) {
                    Some(c) => {
                        let ty = self.r.class_type(c);
                        self.type_filter(ty)
                    }
                    None => NO_FILTER,
                };
                if self.owner_filter.len() <= f.index() {
                    self.owner_filter.resize(f.index() + 1, FILTER_UNSET);
                }
                self.owner_filter[f.index()] = x;
                x
            }
        };
        filter == NO_FILTER || self.filters.masks[filter as usize].contains(o.0)
    }

    fn apply(&mut self, u: Use, o: ObjId) {
        match u {
            Use::LoadInternal(f, dst) => {
                if !self.r.site_in_application(self.objs.key(o).0) {
                    self.apply(Use::Load(f, dst), o);
                }
            }
            Use::StoreInternal(f, src) => {
                if !self.r.site_in_application(self.objs.key(o).0) {
                    self.apply(Use::Store(f, src), o);
                }
            }
            Use::Load(f, _) | Use::Store(f, _) if !self.has_field(o, f) => {}
            Use::Load(f, dst) => {
                self.each_field_ptr(o, f, |s, fp| s.add_edge(fp, dst, NO_FILTER));
            }
            Use::Store(f, src) => {
                self.each_field_ptr(o, f, |s, fp| s.add_edge(src, fp, NO_FILTER));
            }
            Use::Call(ci) => self.call_on(ci, o),
            Use::Launch(ci, li) => self.launch_on(ci, li, o),
            Use::LambdaRecv(lr) => self.lambda_recv_on(lr, o),
            Use::ModelCall(id) => self.model_call_on(id, o),
            Use::Copy(id) => self.copy_on(id, o),
        }
    }

    /// Calls `each` with the pointer of field `f` of `o`, or, for the
    /// "anywhere" field, with the pointer of every field of `o`'s type.
    fn each_field_ptr(&mut self, o: ObjId, f: FieldId, mut each: impl FnMut(&mut Self, PtrId)) {
        if f == self.r.t.anywhere() {
            let ty = self.obj_ty(o);
            for &g in self.r.anywhere_fields(ty).iter() {
                let fp = self.field_ptr(o, g);
                each(self, fp);
            }
        } else {
            let fp = self.field_ptr(o, f);
            each(self, fp);
        }
    }

    // ------------------------------------------------------------------
    // Reaching methods

    fn prefetch(&mut self, batch: &[MCtxId]) {
        let mut todo: Vec<MethodId> = batch
            .iter()
            .map(|&mc| self.mctxs.key(mc).0)
            .filter(|m| !self.r.has_template(*m))
            .collect();
        todo.sort_unstable();
        todo.dedup();
        if todo.len() >= 8 {
            self.r.p.prefetch_bodies(&todo);
        }
    }

    fn initialize(&mut self, c: ClassId) {
        if self.initialized.contains(&c) {
            return;
        }
        let p = self.r.p;
        for &k in p.superclasses(c) {
            if !self.initialized.insert(k) {
                continue;
            }
            if let Some(ci) = p.class(k).declared_method("<clinit>", "()V") {
                self.class_inits.push(ci);
                self.mctx(ci, CtxId::EMPTY);
            }
        }
    }

    fn seed_vm_statics(&mut self) {
        for f in lockstep_models::vm_static_fields() {
            let field = self.r.t.field(crate::keys::FieldKey::Field {
                class: Arc::from(f.class),
                name: Arc::from(f.name),
            });
            let site = self
                .r
                .t
                .named_site(self.r.p, SiteKey::Vm(Arc::from(f.value_class)));
            let o = self.obj(site, CtxId::EMPTY);
            let sp = self.static_ptr(field);
            self.add_obj(sp, o);
        }
    }

    /// The object from outside of a key (the harness's receiver object
    /// of a type, an external object of a declaration); arrays hold the
    /// object of their component type from the same place.
    fn outside_obj(&mut self, key: SiteKey) -> ObjId {
        let element = external::element_key(&key);
        let site = self.r.t.named_site(self.r.p, key);
        let o = self.obj(site, CtxId::EMPTY);
        if let Some(inner) = element {
            let e = self.r.t.element();
            if !self.field_ptr.contains_key(&(o, e)) {
                let fp = self.field_ptr(o, e);
                let io = self.outside_obj(inner);
                self.add_obj(fp, io);
            }
        }
        o
    }

    /// The harness's receiver `o` of `class` holds the lock objects the
    /// class's constructors store into `this`
    /// ([`crate::rules::Rules::constructor_locks`]).
    fn give_constructor_locks(&mut self, o: ObjId, class: ClassId) {
        for &(ctor, f, site) in self.r.constructor_locks(class).iter() {
            let ctx = self.callee_ctx(ctor, o);
            let h = self.heap_ctx(ctx);
            let lock = self.obj(site, h);
            let fp = self.field_ptr(o, f);
            self.add_obj(fp, lock);
        }
    }

    fn seed_entry(&mut self, m: MethodId) {
        let p = self.r.p;
        let Some(md) = p.try_method(m) else {
            return;
        };
        self.initialize(md.class);
        let params: Vec<Option<Arc<str>>> =
            lockstep_classfile::descriptor::param_types(&md.descriptor)
                .unwrap_or_default()
                .into_iter()
                .map(facts::ref_type_name)
                .collect();
        let this = if md.is_static() {
            None
        } else {
            let name = p.class(md.class).name.clone();
            let o = self.outside_obj(SiteKey::Entry(name));
            self.give_constructor_locks(o, md.class);
            Some(o)
        };
        let ctx = match (this, self.r.static_entry_context(m)) {
            (Some(o), _) => self.callee_ctx(m, o),
            (None, Some(site)) => self.ctx(vec![site]),
            (None, None) => CtxId::EMPTY,
        };
        let mc = self.mctx(m, ctx);
        self.materialize(mc);
        let Some(tpl) = self.mctx_tpl[mc.index()].clone() else {
            return;
        };
        if let (Some(o), Some(s)) = (this, tpl.this_slot) {
            let ptr = self.slot_ptr(mc, s);
            self.add_obj(ptr, o);
        }
        for (i, ty) in params.into_iter().enumerate() {
            if let (Some(ty), Some(Some(s))) = (ty, tpl.params.get(i)) {
                let o = self.outside_obj(external::parameter_key(p, m, i, ty));
                let ptr = self.slot_ptr(mc, *s);
                self.add_obj(ptr, o);
            }
        }
    }

    fn filter_id(&mut self, types: &Arc<[TypeId]>) -> u32 {
        self.filters.filter(&mut self.r, types)
    }

    fn type_filter(&mut self, ty: TypeId) -> u32 {
        self.filters.single(&mut self.r, ty)
    }

    /// Adds the facts of a newly reached method context.
    fn instantiate(&mut self, mc: MCtxId) {
        let Some(tpl) = self.mctx_tpl[mc.index()].clone() else {
            return;
        };
        let ctx = self.mctxs.key(mc).1;
        let base = self.mctx_base[mc.index()];
        let exceptions = self.r.cfg.exceptions;
        for fact in &tpl.facts {
            match fact {
                Fact::New { dst, site } => {
                    let h = self.alloc_heap_ctx(tpl.method, ctx);
                    let o = self.obj(*site, h);
                    self.add_obj(base + dst, o);
                }
                Fact::Const { dst, site } => {
                    let o = self.obj(*site, CtxId::EMPTY);
                    self.add_obj(base + dst, o);
                }
                Fact::Copy { dst, src } => self.add_edge(base + src, base + dst, NO_FILTER),
                Fact::Filter { dst, src, types } => {
                    let f = self.filter_id(types);
                    self.add_edge(base + src, base + dst, f);
                }
                Fact::Load {
                    dst,
                    base: b,
                    field,
                } => self.add_use(base + b, Use::Load(*field, base + dst)),
                Fact::Store {
                    base: b,
                    field,
                    src,
                } => self.add_use(base + b, Use::Store(*field, base + src)),
                Fact::StaticLoad { dst, field } => {
                    let sp = self.static_ptr(*field);
                    self.add_edge(sp, base + dst, NO_FILTER);
                }
                Fact::StaticStore { field, src } => {
                    let sp = self.static_ptr(*field);
                    self.add_edge(base + src, sp, NO_FILTER);
                }
                Fact::Init(c) => self.initialize(*c),
                Fact::Call(i) => self.instantiate_call(mc, &tpl, *i),
                Fact::Lambda(i) => {
                    let Some(lf) = tpl.lambdas.get(*i as usize).cloned() else {
                        continue;
                    };
                    let h = self.alloc_heap_ctx(tpl.method, ctx);
                    let l = self.obj(lf.obj_site, h);
                    if let Some(d) = lf.dst {
                        self.add_obj(base + d, l);
                    }
                    for (i, cap) in lf.captures.iter().enumerate() {
                        if let Some(c) = cap {
                            let key = crate::keys::FieldKey::Capture(i as u16);
                            let f = self.r.t.field(key);
                            let fp = self.field_ptr(l, f);
                            self.add_edge(base + c, fp, NO_FILTER);
                        }
                    }
                }
                Fact::Throw { src } => {
                    if exceptions {
                        let e = self.exc_ptr();
                        self.add_edge(base + src, e, NO_FILTER);
                    }
                }
                Fact::Catch { dst, types } => {
                    if exceptions {
                        let e = self.exc_ptr();
                        let f = match types {
                            Some(t) => self.filter_id(t),
                            None => NO_FILTER,
                        };
                        self.add_edge(e, base + dst, f);
                    }
                }
            }
        }
    }

    fn instantiate_call(&mut self, mc: MCtxId, tpl: &Arc<Template>, index: u32) {
        let Some(c) = tpl.calls.get(index as usize) else {
            return;
        };
        let ci = self.calls.len() as u32;
        let recv_class = match &c.target {
            Target::Direct(t) if c.kind != EdgeKind::Static => Some(self.r.p.method(*t).class),
            Target::Virtual { class, .. } => Some(*class),
            _ => None,
        };
        let recv_filter = match recv_class {
            Some(class) => {
                let ty = self.r.class_type(class);
                self.type_filter(ty)
            }
            None => NO_FILTER,
        };
        let site = Site {
            caller: mc,
            stmt: c.stmt,
            kind: c.kind,
        };
        let args: Arc<[Option<PtrId>]> = c
            .args
            .iter()
            .map(|a| a.map(|s| self.slot_ptr(mc, s)))
            .collect();
        let result = c.result.map(|s| self.slot_ptr(mc, s));
        let recv = c.recv.map(|s| self.slot_ptr(mc, s));
        self.calls.push(CallInst {
            caller: mc,
            tpl: tpl.clone(),
            index,
            recv_filter,
            site,
            recv,
            args: args.clone(),
            result,
            known: [MCtxId(0); KNOWN_CALLEES],
            known_len: 0,
        });
        match &c.target {
            Target::Direct(t) if c.kind == EdgeKind::Static => {
                let ctx = if self.r.static_gets_context(*t) {
                    self.mctxs.key(mc).1
                } else {
                    CtxId::EMPTY
                };
                self.connect(site, *t, ctx, None, None, &args, result, NO_VIA);
            }
            Target::Direct(_) | Target::Virtual { .. } => {
                if let Some(r) = recv {
                    self.add_use(r, Use::Call(ci));
                }
            }
            Target::Unresolved => {
                if let (Some(r), Some(ty)) = (result, &c.ret_type) {
                    self.opaque_into(r, ty.clone());
                }
            }
        }
        for (li, l) in c.launches.iter().enumerate() {
            if l.outside {
                // Started by `call_on`, once an outside receiver shows up.
                continue;
            }
            let task = self.slot_ptr(mc, l.task);
            match l.shape {
                TaskShape::Functional | TaskShape::Thread => {
                    self.add_use(task, Use::Launch(ci, li as u16))
                }
                TaskShape::Array => {
                    let t = self.new_ptr(PtrKind::Temp);
                    let e = self.r.t.element();
                    self.add_use(task, Use::Load(e, t));
                    self.add_use(t, Use::Launch(ci, li as u16));
                }
                // The elements of a modelled container (`invokeAll` of an
                // `ArrayList` of tasks) are its synthetic `elements` field.
                // Without the models, or for a collection the models do
                // not know (`List.of`, `Arrays.asList`: JDK bytecode
                // over arrays), the tasks are not tracked.
                TaskShape::Collection if self.r.cfg.container_models => {
                    let t = self.new_ptr(PtrKind::Temp);
                    let e = self.content_field("elements");
                    self.add_use(task, Use::Load(e, t));
                    self.add_use(t, Use::Launch(ci, li as u16));
                }
                TaskShape::Collection => {}
            }
        }
    }

    fn opaque_into(&mut self, dst: PtrId, ty: Arc<str>) {
        let site = self.r.t.named_site(self.r.p, SiteKey::Opaque(ty));
        let o = self.obj(site, CtxId::EMPTY);
        self.add_obj(dst, o);
    }

    // ------------------------------------------------------------------
    // Calls

    /// A virtual or special call site gets receiver object `o`.
    fn call_on(&mut self, ci: u32, o: ObjId) {
        let inst = &self.calls[ci as usize];
        // The receiver must be an instance of the call's declared class.
        if inst.recv_filter != NO_FILTER
            && !self.filters.masks[inst.recv_filter as usize].contains(o.0)
        {
            return;
        }
        let how = match &inst.tpl.calls[inst.index as usize].target {
            Target::Direct(t) => Callee::Direct(*t),
            Target::Virtual { sig, .. } => Callee::Virtual(*sig),
            Target::Unresolved => return,
        };
        let models = self.r.cfg.container_models;
        let callee = match how {
            Callee::Direct(t) => t,
            Callee::Virtual(sig) => {
                let ty = self.obj_ty(o);
                if let Some(lf) = self.r.lambda_of_type(ty).cloned() {
                    self.call_on_lambda(ci, o, &lf);
                    return;
                }
                if models {
                    if let Some(kind) = self.cursor_kind(o) {
                        self.call_on_cursor(ci, o, kind);
                        return;
                    }
                }
                match self.r.dispatch(ty, sig) {
                    Some(t) => t,
                    None => {
                        self.outside_launch(ci, o);
                        return;
                    }
                }
            }
        };
        let site = self.calls[ci as usize].site;
        if models {
            let inst = &self.calls[ci as usize];
            let (args, result) = (inst.args.clone(), inst.result);
            if self.model_call(site, o, callee, &args, result) {
                return;
            }
        }
        let ctx = self.callee_ctx(callee, o);
        let (ctx, bounded) = self.call_context(site, callee, ctx, Some(o));
        let mc = self.mctx_bounded(callee, ctx, bounded, Some(site.caller));
        let new_edge = self.call_edge_is_new(ci, mc);
        let inst = &self.calls[ci as usize];
        let (recv, result) = (inst.recv, inst.result);
        // The arguments matter to a new edge only.
        if new_edge {
            let args = inst.args.clone();
            self.connect_edge(site, callee, mc, true, Some(o), recv, &args, result);
        } else {
            self.connect_edge(site, callee, mc, false, Some(o), recv, &[], result);
        }
    }

    /// Is the edge from call instance `ci` (its own arguments) to `mc`
    /// new? Answered by the call's remembered callees when they hold
    /// `mc`, else by [`Solver::edge_keys`], which stays the authority.
    fn call_edge_is_new(&mut self, ci: u32, mc: MCtxId) -> bool {
        let inst = &self.calls[ci as usize];
        let len = usize::from(inst.known_len);
        if inst.known[..len].contains(&mc) {
            return false;
        }
        let site = inst.site;
        let new_edge = self
            .edge_keys
            .insert((site.caller, site.stmt, site.kind, mc, NO_VIA));
        let inst = &mut self.calls[ci as usize];
        if len < KNOWN_CALLEES {
            inst.known[len] = mc;
            inst.known_len += 1;
        }
        new_edge
    }

    /// A virtual call site gets lambda object `l` as its receiver.
    fn call_on_lambda(&mut self, ci: u32, l: ObjId, lf: &LambdaFact) {
        let inst = &self.calls[ci as usize];
        let Target::Virtual { name, desc, .. } = &inst.tpl.calls[inst.index as usize].target else {
            return;
        };
        let (name, desc) = (name.clone(), desc.clone());
        let (site, recv, args, result) = (inst.site, inst.recv, inst.args.to_vec(), inst.result);
        self.lambda_invoke(site, l, lf, &name, &desc, recv, args, result);
    }

    /// A virtual call site gets a container model's cursor `c` as its receiver.
    fn call_on_cursor(&mut self, ci: u32, c: ObjId, kind: lockstep_models::CursorKind) {
        let inst = &self.calls[ci as usize];
        let Target::Virtual {
            class, name, desc, ..
        } = &inst.tpl.calls[inst.index as usize].target
        else {
            return;
        };
        let (class, name, desc) = (*class, name.clone(), desc.clone());
        let (site, args, result) = (inst.site, inst.args.clone(), inst.result);
        self.cursor_edge(site, class, &name, &desc);
        self.cursor_call(site, c, kind, &name, &args, result);
    }

    /// Call instance `ci` selects no method on receiver `o`: when `o`
    /// comes from outside the analysed code, whoever implements the
    /// method may run the tasks the call hands over on a thread of its
    /// own ([`lockstep_models::OUTSIDE_TASK`]), once per call instance.
    fn outside_launch(&mut self, ci: u32, o: ObjId) {
        let site = self.objs.key(o).0;
        if !self.r.is_outside_site(site) || !self.outside_launched.insert(ci) {
            return;
        }
        let inst = &self.calls[ci as usize];
        let (mc, tpl, index) = (inst.caller, inst.tpl.clone(), inst.index as usize);
        for (li, l) in tpl.calls[index].launches.iter().enumerate() {
            if l.outside {
                let task = self.slot_ptr(mc, l.task);
                self.add_use(task, Use::Launch(ci, li as u16));
            }
        }
    }

    /// A modelled thread start gets task object `o`.
    fn launch_on(&mut self, ci: u32, li: u16, o: ObjId) {
        let (launch, interface, caller, stmt) = {
            let inst = &self.calls[ci as usize];
            let c = &inst.tpl.calls[inst.index as usize];
            let Some(l) = c.launches.get(usize::from(li)) else {
                return;
            };
            (l.launch, l.interface, inst.caller, c.stmt)
        };
        let ty = self.obj_ty(o);
        if let Some(i) = interface {
            if !self.r.receiver_ok(ty, i) {
                return;
            }
        }
        let site = Site {
            caller,
            stmt,
            kind: EdgeKind::TaskLaunch,
        };
        let mut started = false;
        if let Some(lf) = self.r.lambda_of_type(ty).cloned() {
            for (n, d) in launch.entry.candidates {
                if lf.shape.implements(n, d) {
                    let (n, d) = (Arc::from(*n), Arc::from(*d));
                    self.lambda_invoke(site, o, &lf, &n, &d, None, Vec::new(), None);
                    started = true;
                    break;
                }
            }
        } else {
            for (n, d) in launch.entry.candidates {
                let (n, d): (Arc<str>, Arc<str>) = (Arc::from(*n), Arc::from(*d));
                let sig = self.r.t.sig(&n, &d);
                if let Some(t) = self.r.dispatch(ty, sig) {
                    let ctx = self.callee_ctx(t, o);
                    self.connect(site, t, ctx, Some(o), None, &[], None, NO_VIA);
                    started = true;
                    break;
                }
            }
        }
        if started {
            self.thread_starts.push(RawThreadStart {
                caller,
                stmt,
                launch,
                task: o,
            });
        }
    }

    /// A call of `name desc` on lambda object `l`.
    #[allow(clippy::too_many_arguments)]
    fn lambda_invoke(
        &mut self,
        site: Site,
        l: ObjId,
        lf: &LambdaFact,
        name: &Arc<str>,
        desc: &Arc<str>,
        recv: Option<PtrId>,
        args: Vec<Option<PtrId>>,
        result: Option<PtrId>,
    ) {
        let via = self.via(&args, result);
        if !lf.shape.implements(name, desc) {
            if let Some(t) = self.r.lambda_other(lf, name, desc) {
                let ctx = self.callee_ctx(t, l);
                self.connect(site, t, ctx, Some(l), recv, &args, result, via);
            }
            return;
        }
        if !self
            .lambda_seen
            .insert((site.caller, site.stmt, site.kind, l, via))
        {
            return;
        }
        // Captured values first, then the call's arguments.
        let mut actuals: Vec<Option<PtrId>> = Vec::with_capacity(lf.captures.len() + args.len());
        for i in 0..lf.captures.len() {
            let f = self.r.t.field(crate::keys::FieldKey::Capture(i as u16));
            actuals.push(Some(self.field_ptr(l, f)));
        }
        actuals.extend(args);
        match &lf.imp {
            LambdaImpl::Static(t) => {
                // The lambda object stands in for a receiver in the context.
                let ctx = self.callee_ctx(*t, l);
                let via = self.via(&actuals, result);
                self.connect(site, *t, ctx, None, None, &actuals, result, via);
            }
            LambdaImpl::Special(_) | LambdaImpl::Virtual { .. } => {
                let Some(Some(receiver)) = actuals.first().copied() else {
                    return;
                };
                let target = match &lf.imp {
                    LambdaImpl::Special(t) => RecvTarget::Direct(*t),
                    LambdaImpl::Virtual {
                        class,
                        name,
                        desc,
                        sig,
                    } => RecvTarget::Virtual {
                        class: *class,
                        name: name.clone(),
                        desc: desc.clone(),
                        sig: *sig,
                    },
                    _ => return,
                };
                let rest: Vec<Option<PtrId>> =
                    actuals.get(1..).map(<[_]>::to_vec).unwrap_or_default();
                let via = self.via(&rest, result);
                let class = match &target {
                    RecvTarget::Direct(t) => self.r.p.method(*t).class,
                    RecvTarget::Virtual { class, .. } => *class,
                };
                let class_type = self.r.class_type(class);
                let recv_filter = self.type_filter(class_type);
                let id = self.lambda_recvs.len() as u32;
                self.lambda_recvs.push(LambdaRecv {
                    site,
                    via,
                    target,
                    recv_filter,
                    args: rest,
                    result,
                });
                self.add_use(receiver, Use::LambdaRecv(id));
            }
            LambdaImpl::Constructor { init } => {
                let Some(ctor_site) = lf.ctor_site else {
                    return;
                };
                let (_, h) = *self.objs.key(l);
                let n = self.obj(ctor_site, h);
                if let Some(r) = result {
                    self.add_obj(r, n);
                }
                let ctx = self.callee_ctx(*init, n);
                let via = self.via(&actuals, None);
                self.connect(site, *init, ctx, Some(n), None, &actuals, None, via);
            }
            LambdaImpl::Unresolved => {}
        }
    }

    /// The id of an argument list of a call made through a lambda.
    fn via(&mut self, args: &[Option<PtrId>], result: Option<PtrId>) -> u32 {
        self.actuals.intern((Box::from(args), result)).0
    }

    /// The receiver of a lambda's instance implementation gets object `r`.
    fn lambda_recv_on(&mut self, id: u32, r: ObjId) {
        let lr = &self.lambda_recvs[id as usize];
        // The receiver must be an instance of the target's class (the
        // filter's mask: a subtype test per object cost a hash lookup).
        if !self.filters.masks[lr.recv_filter as usize].contains(r.0) {
            return;
        }
        let ty = self.obj_ty(r);
        let (site, via, args, result) = (lr.site, lr.via, lr.args.clone(), lr.result);
        match &lr.target {
            RecvTarget::Direct(t) => {
                let t = *t;
                if self.r.cfg.container_models && self.model_call(site, r, t, &args, result) {
                    return;
                }
                let ctx = self.callee_ctx(t, r);
                self.connect(site, t, ctx, Some(r), None, &args, result, via);
            }
            RecvTarget::Virtual {
                class,
                name,
                desc,
                sig,
            } => {
                let (class, name, desc, sig) = (*class, name.clone(), desc.clone(), *sig);
                let models = self.r.cfg.container_models;
                if let Some(lf) = self.r.lambda_of_type(ty).cloned() {
                    self.lambda_invoke(site, r, &lf, &name, &desc, None, args, result);
                } else if let Some(kind) = self.cursor_kind(r).filter(|_| models) {
                    // A method reference on a container model's cursor.
                    self.cursor_edge(site, class, &name, &desc);
                    self.cursor_call(site, r, kind, &name, &args, result);
                } else if let Some(t) = self.r.dispatch(ty, sig) {
                    // A method reference on a modelled container (`list::add`).
                    if models && self.model_call(site, r, t, &args, result) {
                        return;
                    }
                    let ctx = self.callee_ctx(t, r);
                    self.connect(site, t, ctx, Some(r), None, &args, result, via);
                }
            }
        }
    }

    /// A call edge from `site` to `callee` in context `ctx`: parameters,
    /// result and models once per edge; `this` per receiver.
    #[allow(clippy::too_many_arguments)]
    fn connect(
        &mut self,
        site: Site,
        callee: MethodId,
        ctx: CtxId,
        this: Option<ObjId>,
        recv: Option<PtrId>,
        args: &[Option<PtrId>],
        result: Option<PtrId>,
        via: u32,
    ) {
        if site.kind == EdgeKind::TaskLaunch {
            self.task_entries.insert(callee);
        }
        let (ctx, bounded) = self.call_context(site, callee, ctx, this);
        let mc = self.mctx_bounded(callee, ctx, bounded, Some(site.caller));
        let new_edge = self
            .edge_keys
            .insert((site.caller, site.stmt, site.kind, mc, via));
        self.connect_edge(site, callee, mc, new_edge, this, recv, args, result);
    }

    /// [`Self::connect`] once the callee's method context is known, and
    /// whether the edge (with its argument list) is new.
    #[allow(clippy::too_many_arguments)]
    fn connect_edge(
        &mut self,
        site: Site,
        callee: MethodId,
        mc: MCtxId,
        new_edge: bool,
        this: Option<ObjId>,
        recv: Option<PtrId>,
        args: &[Option<PtrId>],
        result: Option<PtrId>,
    ) {
        if new_edge {
            if self
                .cs_edge_set
                .insert((site.caller, site.stmt, site.kind, mc))
            {
                self.cs_edges.push((site.caller, site.stmt, site.kind, mc));
            }
            let effects = self.r.effects(callee);
            let (caller_method, caller_ctx) = *self.mctxs.key(site.caller);
            let internal = self
                .r
                .unsafe_skips_application(caller_method, caller_ctx == CtxId::EMPTY);
            for e in effects.iter() {
                self.effect(*e, callee, recv, args, result, internal);
            }
        }
        // A builder's `append` returns the object it was called on (not
        // every builder its shared context's `this` holds); `clone` a copy
        // of it.
        if let (Some(o), Some(res)) = (this, result) {
            if self.r.returns_receiver(callee) {
                self.add_obj(res, o);
            } else if self.r.copies_receiver(callee) {
                self.copy_receiver(site, o, res);
            }
        }
        if !new_edge && this.is_none() {
            return;
        }
        let p = Pending {
            new_edge,
            args: if new_edge { args.to_vec() } else { Vec::new() },
            result,
            this,
        };
        if self.materialized[mc.index()] {
            self.connect_callee(mc, p);
        } else {
            self.pending.entry(mc).or_default().push(p);
        }
    }

    /// The context `callee` runs in, called from `site` on `this` where its
    /// receiver would give it `ctx`, and whether the bounds on contexts
    /// apply to it. A JDK method that runs in its caller's context does,
    /// except when that context is the over-budget one, shared by every
    /// call over the bounds: then it runs in a context of its calling
    /// method ([`Self::over_budget_caller_ctx`]), or with
    /// [`Config::callbacks_per_receiver`] (off by default: its cost) in the
    /// receiver's context when the receiver belongs to the application,
    /// outside the bounds either way. Not from the JDK's empty context: its
    /// callers are JDK code without contexts anyway, and measured on
    /// jgroups, per receiver there cost as much (BENCHMARKS.md, "Callbacks
    /// per receiver").
    fn call_context(
        &mut self,
        site: Site,
        callee: MethodId,
        ctx: CtxId,
        this: Option<ObjId>,
    ) -> (CtxId, bool) {
        if !self.r.runs_in_caller_context(callee) {
            return (ctx, true);
        }
        let (caller, caller_ctx) = *self.mctxs.key(site.caller);
        // An application method's per-caller copy past the bounds
        // (`Config::past_bound_calls_per_caller`) calls its callbacks as
        // the shared copy did: one copy per calling method, this one, so
        // that two methods one caller called past the bounds do not share
        // theirs.
        let shared = caller_ctx != CtxId::EMPTY
            && (Some(caller_ctx) == self.over_budget_ctx
                || (self.r.cfg.past_bound_calls_per_caller
                    && !self.r.is_jdk_method(caller)
                    && self.is_over_budget_caller_ctx(caller_ctx)));
        if !shared {
            return self.caller_context_within_bounds(callee, caller, caller_ctx);
        }
        match this {
            Some(o) if self.r.cfg.callbacks_per_receiver && self.belongs_to_application(o) => {
                (self.recv_ctx(o), false)
            }
            _ => self.past_bounds_ctx(caller, callee),
        }
    }

    /// The caller's context `caller_ctx` for a JDK callback `callee`, when
    /// it exists already or the bounds allow a new one (counted here, so
    /// the result is unbounded); over the bounds, the callback's context of
    /// the calling method ([`Self::over_budget_caller_ctx`]) rather than
    /// the one shared over-budget context: `append(Object)` has far more
    /// calling contexts than the per-method bound, and past it every
    /// caller's argument met every other's.
    fn caller_context_within_bounds(
        &mut self,
        callee: MethodId,
        caller: MethodId,
        caller_ctx: CtxId,
    ) -> (CtxId, bool) {
        if caller_ctx == CtxId::EMPTY
            || self.mctxs.get(&(callee, caller_ctx)).is_some()
            || self.r.exempt_from_bounds(callee)
        {
            return (caller_ctx, true);
        }
        // A callback's own callbacks (`String.valueOf` in `append(Object)`)
        // stay in its per-caller copy.
        if self.is_over_budget_caller_ctx(caller_ctx) {
            return (caller_ctx, false);
        }
        if self.over_budget(callee) {
            self.budget_fallbacks += 1;
            self.past_bounds_ctx(caller, callee)
        } else {
            (caller_ctx, false)
        }
    }

    /// Where the JDK callback `callee` called by `caller` past the bounds
    /// (or from the over-budget context) runs: a copy per calling method
    /// ([`Self::over_budget_caller_ctx`]), except for a member of a listed
    /// package or class (stream pipelines, `lockstep_models::
    /// runs_in_caller_context_as_member`) called by JDK code, which runs in
    /// the one over-budget context. A pipeline's copy is the whole stream
    /// library (350–520 method contexts per calling method), and JDK
    /// callers past the bounds are many when the JDK is the input: on
    /// `java.base`, 282 JDK methods (`Spliterator.forEachRemaining`,
    /// `CountedCompleter.exec`, ...) made 28,984 method contexts of
    /// `java.util.stream`, 228 M of 445 M facts and 93% of the points-to
    /// time (BENCHMARKS.md, "java.base points-to"). Application callers
    /// keep their copies, and JDK callers keep theirs of the callbacks
    /// listed by name (`append(Object)`, `String.valueOf`, ...), which the
    /// copies were made for.
    fn past_bounds_ctx(&mut self, caller: MethodId, callee: MethodId) -> (CtxId, bool) {
        if self.r.is_jdk_method(caller) && self.r.is_caller_context_member(callee) {
            self.shared_pipeline_calls += 1;
            (self.over_budget_ctx(), false)
        } else {
            (self.over_budget_caller_ctx(caller), false)
        }
    }

    /// The context of the JDK callbacks that the over-budget copy of
    /// `caller` calls (`SiteKey::OverBudgetCaller`): one per calling
    /// method, outside the bounds (there are at most as many as call sites
    /// of callbacks). In the one shared over-budget copy, the parameter of
    /// `StringBuilder.append(Object)` held every object any over-budget
    /// method appended, and `String.valueOf` rendered each of them for
    /// every caller (issue 14, cause 1: an `Address` printed by
    /// `Owner.toString` reached `UnmodifiableVector.toString` on jgroups).
    fn is_over_budget_caller_ctx(&self, c: CtxId) -> bool {
        match &**self.ctxs.key(c) {
            [site] => matches!(self.r.t.sites.key(*site), SiteKey::OverBudgetCaller(_)),
            _ => false,
        }
    }

    fn over_budget_caller_ctx(&mut self, caller: MethodId) -> CtxId {
        let site = self
            .r
            .t
            .named_site(self.r.p, SiteKey::OverBudgetCaller(caller));
        self.ctx(vec![site])
    }

    /// Was `o` allocated by application code, or in a method running in a
    /// context (or is it a harness object)?
    fn belongs_to_application(&mut self, o: ObjId) -> bool {
        let (site, h) = *self.objs.key(o);
        h != CtxId::EMPTY || self.r.site_in_application(site)
    }

    /// The callee's side of a call edge: needs its template and slots.
    fn connect_callee(&mut self, mc: MCtxId, p: Pending) {
        let base = self.mctx_base[mc.index()];
        if p.new_edge {
            self.connect_parameters(mc, &p);
        }
        // Binding `this` needs only the slot, not a share of the template:
        // another receiver on a known edge is the common case.
        let this_slot = self.mctx_tpl[mc.index()].as_ref().and_then(|t| t.this_slot);
        if let (Some(o), Some(s)) = (p.this, this_slot) {
            self.add_obj(base + s, o);
        }
    }

    /// Arguments into parameters and the result back, once per new edge;
    /// a callee without a template (native, abstract) returns an opaque
    /// object unless a model defines its result.
    fn connect_parameters(&mut self, mc: MCtxId, p: &Pending) {
        let base = self.mctx_base[mc.index()];
        let callee = self.mctxs.key(mc).0;
        match self.mctx_tpl[mc.index()].clone() {
            Some(t) => {
                for (a, q) in p.args.iter().zip(&t.params) {
                    if let (Some(a), Some(q)) = (a, q) {
                        self.add_edge(*a, base + q, NO_FILTER);
                    }
                }
                if let (Some(r), Some(ret)) = (p.result, t.ret) {
                    if !self.r.returns_receiver(callee) {
                        self.add_edge(base + ret, r, NO_FILTER);
                    }
                }
            }
            None => {
                let defines_result = self.r.returns_receiver(callee)
                    || self.r.effects(callee).iter().any(|e| {
                        matches!(
                            e,
                            HeapEffect::ReturnsReceiver
                                | HeapEffect::CopiesReceiver
                                | HeapEffect::ReturnsVmObject { .. }
                                | HeapEffect::LoadsAnywhere { .. }
                                | HeapEffect::LoadsField { .. }
                        )
                    });
                if !defines_result {
                    if let (Some(r), Some(ty)) = (p.result, self.r.return_type(callee)) {
                        self.opaque_into(r, ty);
                    }
                }
            }
        }
    }

    /// One modelled effect of a call; `internal`: its untracked-offset
    /// accesses reach only objects the JDK made.
    fn effect(
        &mut self,
        e: HeapEffect,
        callee: MethodId,
        recv: Option<PtrId>,
        args: &[Option<PtrId>],
        result: Option<PtrId>,
        internal: bool,
    ) {
        let operand = |op: ModelOperand| match op {
            ModelOperand::Receiver => recv,
            ModelOperand::Arg(i) => args.get(usize::from(i)).copied().flatten(),
            ModelOperand::Result => result,
        };
        let model_field = |s: &mut Self, name: &str| {
            let class = s.r.p.class(s.r.p.method(callee).class).name.clone();
            s.r.t.field(crate::keys::FieldKey::Field {
                class,
                name: Arc::from(name),
            })
        };
        match e {
            HeapEffect::ReturnsReceiver => {
                if let (Some(r), Some(res)) = (recv, result) {
                    self.add_edge(r, res, NO_FILTER);
                }
            }
            // Per receiver object, in `connect_edge`.
            HeapEffect::CopiesReceiver => {}
            HeapEffect::CopiesElements { from, to } => {
                if let (Some(a), Some(b)) = (operand(from), operand(to)) {
                    let t = self.new_ptr(PtrKind::Temp);
                    let el = self.r.t.element();
                    self.add_use(a, Use::Load(el, t));
                    self.add_use(b, Use::Store(el, t));
                }
            }
            HeapEffect::ReturnsVmObject { class } => {
                if let Some(res) = result {
                    let site = self.r.t.named_site(self.r.p, SiteKey::Vm(Arc::from(class)));
                    let o = self.obj(site, CtxId::EMPTY);
                    self.add_obj(res, o);
                }
            }
            HeapEffect::StoresAnywhere { object, value } => {
                if let (Some(o), Some(v)) = (operand(object), operand(value)) {
                    let f = self.r.t.anywhere();
                    let u = if internal {
                        Use::StoreInternal(f, v)
                    } else {
                        Use::Store(f, v)
                    };
                    self.add_use(o, u);
                }
            }
            HeapEffect::LoadsAnywhere { object } => {
                if let (Some(o), Some(res)) = (operand(object), result) {
                    let f = self.r.t.anywhere();
                    let u = if internal {
                        Use::LoadInternal(f, res)
                    } else {
                        Use::Load(f, res)
                    };
                    self.add_use(o, u);
                }
            }
            HeapEffect::StoresField {
                object,
                field,
                value,
            } => {
                if let (Some(o), Some(v)) = (operand(object), operand(value)) {
                    let f = model_field(self, field);
                    self.add_use(o, Use::Store(f, v));
                }
            }
            HeapEffect::LoadsField { object, field } => {
                if let (Some(o), Some(res)) = (operand(object), result) {
                    let f = model_field(self, field);
                    self.add_use(o, Use::Load(f, res));
                }
            }
        }
    }

    // ------------------------------------------------------------------

    fn finish(self, entries: &EntryPoints, millis: u128) -> RawResult {
        let Solver {
            r,
            ctxs,
            objs,
            mctxs,
            mctx_base,
            mctx_tpl,
            nodes,
            kinds,
            field_ptr,
            static_ptr,
            exc_ptr,
            cs_edges,
            thread_starts,
            class_inits,
            iterations,
            budget_fallbacks,
            per_caller_fallbacks,
            shared_pipeline_calls,
            contexts_cut,
            cut_fallbacks,
            stopped_with,
            succ,
            content,
            ..
        } = self;
        let budget_cut = (contexts_cut || stopped_with.is_some()).then_some(BudgetCut {
            contexts_merged: contexts_cut.then_some(cut_fallbacks),
            unpropagated: stopped_with,
        });
        let var_slots: FxHashMap<MethodId, Arc<[Slot]>> = mctx_tpl
            .iter()
            .flatten()
            .map(|t| (t.method, t.var_slot.clone()))
            .collect();
        let templates_built = r.templates_built;
        let (sites, site_types, fields) = r.t.into_result_tables(r.p);
        RawResult {
            entries: entries.clone(),
            sites,
            site_types,
            fields,
            contexts: ctxs.into_keys(),
            objects: objs.into_keys(),
            method_contexts: mctxs.into_keys(),
            mctx_base,
            var_slots,
            pts: nodes.into_iter().map(|n| n.pts.into_idset()).collect(),
            kinds,
            field_ptr,
            static_ptr,
            exc_ptr,
            cs_edges,
            thread_starts,
            class_inits,
            iterations,
            budget_fallbacks,
            per_caller_fallbacks,
            shared_pipeline_calls,
            modelled_calls: content.modelled_calls,
            model_callbacks: content.callbacks(),
            budget_cut,
            copy_edges: succ.iter().map(Vec::len).sum(),
            templates_built,
            millis,
        }
    }
}
