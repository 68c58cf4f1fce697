//! Thread roots: the methods that start running in a new thread, where they
//! are started, and whether one start site may start many of them.
//!
//! Every launch-model call in reachable non-JDK code that surely runs its
//! task in another thread (`Async::Always`) is resolved with `tasks`,
//! this time following parameters and fields one to three hops (to every
//! call site of the method; to every store into the field in reachable
//! non-JDK code). A task found that way gives a root whose entry is the
//! task class's entry method (`run()`, `call()`, `compute()`, ...) or the
//! lambda's implementation method, with javac's bridge methods looked
//! through. A task that stays opaque falls back, as RTA would, to every
//! live non-JDK subtype of its static type and every non-JDK lambda of a
//! matching interface; for thread-shaped operands also to the `Runnable`s
//! of every `new Thread(r)` in reachable non-JDK code. Roots record how they
//! were found ([`Precision`]).
//!
//! `may_start_many` is an approximation, with the reason given:
//! - the start statement lies on a CFG cycle of its method (`cfg`);
//! - the launch repeats (`scheduleAtFixedRate`, `Timer.schedule` with a period);
//! - the enclosing method may itself run many times: it is an entry point
//!   of an open program, is recursive, is called from two or more call
//!   sites or from a call site on a loop, or is called from a method that
//!   may run many times (transitively; thread entries included, through
//!   their launch edges).
//!   Only callers outside the JDK count: calls from JDK code are plumbing
//!   the launch models summarise, and RTA connects every live `Runnable` to
//!   every `Runnable.run()` call inside the JDK. A `<clinit>` runs once.
//!
//! The main thread is not a root here (entry points are known from the
//! call graph); thread starts inside the JDK are not modelled.

use std::sync::Arc;

use lockstep_ir::{Body, MemberRef, Operand, Rvalue, StmtId, StmtKind};
use lockstep_models::{
    is_jdk_class, Async, LaunchKind, Operand as ModelOperand, Repeat, TaskLaunch, TaskShape,
};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::callgraph::{CallGraph, EdgeKind};
use crate::cfg::blocks_in_loops;
use crate::lambda::ref_kind;
use crate::program::{ClassId, MethodId, Program};
use crate::tasks::{FlowOracle, Resolver, SourceKind, TaskSource};

/// The object a thread root runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TaskRef {
    /// An instance of this class.
    Class(ClassId),
    /// The lambda object of the `invokedynamic` at this site.
    Lambda(MethodId, StmtId),
}

/// How a root's task was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Precision {
    /// Allocation or lambda in the starting method itself.
    Local,
    /// Through parameters or fields.
    Flow,
    /// Every live subtype of the operand's static type.
    Fallback,
}

/// A method that starts running in a new thread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadRoot {
    /// What runs: `run()`, `call()`, a lambda body, ...
    pub entry: MethodId,
    /// The launching call: method and statement.
    pub start_site: (MethodId, StmtId),
    /// Source line of the launching call.
    pub line: Option<u32>,
    pub launch: &'static TaskLaunch,
    pub task: TaskRef,
    pub precision: Precision,
    pub may_start_many: bool,
    pub reason_many: Option<String>,
}

impl ThreadRoot {
    pub fn kind(&self) -> LaunchKind {
        self.launch.kind
    }
}

/// Every thread root of the reachable program, sorted by entry, then start site.
pub fn thread_roots(program: &Program, cg: &CallGraph) -> Vec<ThreadRoot> {
    let flow = Flow::build(program, cg);
    let resolver = Resolver {
        p: program,
        flow: Some(&flow),
        max_hops: 3,
    };
    let mut loops = Loops::default();
    let many = Many::compute(program, cg, &mut loops);
    let mut roots: Vec<ThreadRoot> = Vec::new();
    let mut seen = FxHashSet::default();
    for ts in &cg.task_starts {
        if ts.launch.asynchronous != Async::Always {
            continue;
        }
        let Some(body) = program.body(ts.caller) else {
            continue;
        };
        let Some(stmt) = body.stmts.get(ts.site.index()) else {
            continue;
        };
        let StmtKind::Invoke { call, .. } = &stmt.kind else {
            continue;
        };
        let operand = match ts.launch.task {
            ModelOperand::Receiver => call.receiver.clone(),
            ModelOperand::Arg(i) => call.args.get(i as usize).cloned(),
            ModelOperand::Result => None,
        };
        let Some(operand) = operand else {
            continue;
        };
        let sources =
            resolver.sources(ts.caller, &body, &operand, ts.launch.shape, ts.launch.entry);
        let mut found: Vec<(MethodId, TaskRef, Precision)> = Vec::new();
        for src in sources {
            targets_of(
                program,
                cg,
                &resolver,
                &flow,
                src,
                ts.launch.shape,
                &mut found,
            );
        }
        let (many_flag, reason) = start_many(
            program, cg, ts.caller, ts.site, ts.launch, &body, &many, &mut loops,
        );
        for (entry, task, precision) in found {
            let entry = unbridge(program, entry);
            if !seen.insert((entry, ts.caller, ts.site, task)) {
                continue;
            }
            roots.push(ThreadRoot {
                entry,
                start_site: (ts.caller, ts.site),
                line: stmt.line,
                launch: ts.launch,
                task,
                precision,
                may_start_many: many_flag,
                reason_many: reason.clone(),
            });
        }
    }
    roots.sort_by_key(|r| (r.entry, r.start_site, r.task));
    roots
}

/// Entry methods for one task source.
fn targets_of(
    p: &Program,
    cg: &CallGraph,
    resolver: &Resolver,
    flow: &Flow,
    src: TaskSource,
    shape: TaskShape,
    out: &mut Vec<(MethodId, TaskRef, Precision)>,
) {
    let precision = if src.via_flow {
        Precision::Flow
    } else {
        Precision::Local
    };
    match src.kind {
        SourceKind::Class(c) => {
            if let Some(e) = entry_on_class(p, c, src) {
                out.push((e, TaskRef::Class(c), precision));
            }
        }
        SourceKind::Lambda(m, s) => {
            for e in lambda_entries(p, cg, m, s) {
                out.push((e, TaskRef::Lambda(m, s), precision));
            }
        }
        SourceKind::Unknown(None) => {}
        SourceKind::Unknown(Some(ty)) => {
            for &c in &cg.instantiated {
                if is_jdk_class(&p.class(c).name) || !p.is_subtype(c, ty) {
                    continue;
                }
                if let Some(e) = entry_on_class(p, c, src) {
                    // A Thread subclass that does not override run() runs
                    // its constructor's Runnable, found below.
                    if shape == TaskShape::Thread
                        && &*p.class(p.method(e).class).name == "java/lang/Thread"
                    {
                        continue;
                    }
                    out.push((e, TaskRef::Class(c), Precision::Fallback));
                }
            }
            for l in &cg.lambda_sites {
                let site_class = p.method(l.site.0).class;
                if is_jdk_class(&p.class(site_class).name) {
                    continue;
                }
                let Some(iface) = p.class_by_name(&l.shape.interface) else {
                    continue;
                };
                if !p.is_subtype(iface, ty)
                    || !src
                        .entry
                        .candidates
                        .iter()
                        .any(|(n, d)| l.shape.implements(n, d))
                {
                    continue;
                }
                for e in lambda_entries(p, cg, l.site.0, l.site.1) {
                    out.push((e, TaskRef::Lambda(l.site.0, l.site.1), Precision::Fallback));
                }
            }
            if shape == TaskShape::Thread {
                for &(am, astmt, cls) in &flow.thread_allocs {
                    if !p.is_subtype(cls, ty) {
                        continue;
                    }
                    let Some(body) = p.body(am) else { continue };
                    for s in resolver.thread_alloc_sources(am, &body, astmt, cls) {
                        if matches!(s.kind, SourceKind::Unknown(_)) {
                            // Do not widen twice; the subtypes above cover it.
                            continue;
                        }
                        let mut inner = Vec::new();
                        targets_of(p, cg, resolver, flow, s, TaskShape::Functional, &mut inner);
                        out.extend(
                            inner
                                .into_iter()
                                .map(|(e, t, _)| (e, t, Precision::Fallback)),
                        );
                    }
                }
            }
        }
    }
}

fn entry_on_class(p: &Program, c: ClassId, src: TaskSource) -> Option<MethodId> {
    src.entry
        .candidates
        .iter()
        .find_map(|(n, d)| p.dispatch(c, n, d))
}

/// The methods a lambda's functional method runs.
fn lambda_entries(p: &Program, cg: &CallGraph, m: MethodId, s: StmtId) -> Vec<MethodId> {
    let Some(l) = cg.lambda_site(m, s) else {
        return Vec::new();
    };
    let h = &l.shape.implementation;
    if matches!(
        h.kind,
        ref_kind::INVOKE_VIRTUAL | ref_kind::INVOKE_INTERFACE
    ) {
        // A method reference such as `this::work`: whatever the reference's
        // own virtual call reaches.
        if let Some(hc) = p.class_by_name(&h.member.class) {
            let mut v: Vec<MethodId> = cg
                .instantiated
                .iter()
                .filter(|&&c| p.is_subtype(c, hc))
                .filter_map(|&c| p.dispatch(c, &h.member.name, &h.member.descriptor))
                .collect();
            v.sort_unstable();
            v.dedup();
            if !v.is_empty() {
                return v;
            }
        }
    }
    l.implementation.into_iter().collect()
}

/// javac's bridge methods (`Object call()` forwarding to `Integer call()`)
/// are looked through to the method they call.
fn unbridge(p: &Program, m: MethodId) -> MethodId {
    let md = p.method(m);
    if !md.is_bridge() {
        return m;
    }
    let Some(body) = p.body(m) else {
        return m;
    };
    let mut target = None;
    for s in &body.stmts {
        if let StmtKind::Invoke { call, .. } = &s.kind {
            if call.method.name == md.name {
                if target.is_some() {
                    return m;
                }
                target = Some(call.method.clone());
            }
        }
    }
    let Some(t) = target else { return m };
    p.class_by_name(&t.class)
        .and_then(|c| {
            p.dispatch(md.class, &t.name, &t.descriptor)
                .or_else(|| p.resolve_method(c, &t.name, &t.descriptor))
        })
        .unwrap_or(m)
}

#[allow(clippy::too_many_arguments)]
fn start_many(
    p: &Program,
    cg: &CallGraph,
    caller: MethodId,
    site: StmtId,
    launch: &TaskLaunch,
    body: &Body,
    many: &Many,
    loops: &mut Loops,
) -> (bool, Option<String>) {
    if launch.repeat == Repeat::Periodic {
        return (
            true,
            Some(format!("the task is run periodically ({})", launch.name)),
        );
    }
    if loops.site_in_loop(p, caller, site) {
        let line = line_text(body, site);
        return (
            true,
            Some(format!(
                "the start site is inside a loop in {}{line}",
                p.short_method_name(caller)
            )),
        );
    }
    match many.reason(p, cg, caller) {
        Some(r) => (true, Some(r)),
        None => (false, None),
    }
}

fn line_text(body: &Body, site: StmtId) -> String {
    body.stmts
        .get(site.index())
        .and_then(|s| s.line)
        .map(|l| format!(" (line {l})"))
        .unwrap_or_default()
}

/// A body and, per block, whether it lies on a cycle.
type BodyLoops = (Arc<Body>, Vec<bool>);

/// Per-method "which blocks are on a cycle", computed once.
#[derive(Default)]
struct Loops {
    cache: FxHashMap<MethodId, Option<BodyLoops>>,
}

impl Loops {
    fn site_in_loop(&mut self, p: &Program, m: MethodId, site: StmtId) -> bool {
        let entry = self.cache.entry(m).or_insert_with(|| {
            let body = p.body(m)?;
            let in_loop = blocks_in_loops(&body);
            Some((body, in_loop))
        });
        let Some((body, in_loop)) = entry else {
            return false;
        };
        body.block_of
            .get(site.index())
            .and_then(|b| in_loop.get(b.index()))
            .copied()
            .unwrap_or(false)
    }
}

/// Which non-JDK methods may run more than once, and why.
struct Many {
    /// Method → (base reason, method it was inherited from).
    reasons: FxHashMap<MethodId, (String, Option<MethodId>)>,
}

/// The reachable methods of application (non-JDK) classes, in order.
fn app_methods(p: &Program, cg: &CallGraph) -> Vec<MethodId> {
    cg.reachable
        .iter()
        .copied()
        .filter(|&m| !is_jdk_class(&p.class(p.method(m).class).name))
        .collect()
}

impl Many {
    fn compute(p: &Program, cg: &CallGraph, loops: &mut Loops) -> Many {
        let app = app_methods(p, cg);
        let in_app: FxHashSet<MethodId> = app.iter().copied().collect();
        let periodic: FxHashSet<(MethodId, StmtId)> = cg
            .task_starts
            .iter()
            .filter(|t| t.launch.repeat == Repeat::Periodic)
            .map(|t| (t.caller, t.site))
            .collect();
        let mut reasons: FxHashMap<MethodId, (String, Option<MethodId>)> = FxHashMap::default();
        let open = cg.entries.mode.is_open();
        for &m in &cg.entries.methods {
            if open && !p.method(m).is_class_initializer() {
                reasons.insert(
                    m,
                    (
                        format!(
                            "{} is an entry point of an open program and may be called repeatedly",
                            p.short_method_name(m)
                        ),
                        None,
                    ),
                );
            }
        }
        for m in recursive(cg, &app, &in_app) {
            reasons
                .entry(m)
                .or_insert_with(|| (format!("{} is recursive", p.short_method_name(m)), None));
        }
        for &m in &app {
            if reasons.contains_key(&m) || p.method(m).is_class_initializer() {
                continue;
            }
            let incoming: Vec<(MethodId, StmtId)> = {
                let mut v: Vec<(MethodId, StmtId)> = cg
                    .callers(m)
                    .filter(|e| in_app.contains(&e.caller))
                    .map(|e| (e.caller, e.site))
                    .collect();
                v.dedup();
                v
            };
            let name = p.short_method_name(m);
            if incoming.len() >= 2 {
                reasons.insert(
                    m,
                    (
                        format!("{name} is called from {} call sites", incoming.len()),
                        None,
                    ),
                );
                continue;
            }
            for &(c, s) in &incoming {
                if periodic.contains(&(c, s)) {
                    reasons.insert(m, (format!("{name} is run periodically"), None));
                    break;
                }
                if loops.site_in_loop(p, c, s) {
                    let line = p.body(c).map(|b| line_text(&b, s)).unwrap_or_default();
                    reasons.insert(
                        m,
                        (
                            format!(
                                "{name} is called inside a loop in {}{line}",
                                p.short_method_name(c)
                            ),
                            None,
                        ),
                    );
                    break;
                }
            }
        }
        // Propagate to callees, breadth first from the base methods in id
        // order, so every method gets its nearest reason deterministically.
        let mut work: Vec<MethodId> = reasons.keys().copied().collect();
        work.sort_unstable();
        let mut head = 0;
        while let Some(&m) = work.get(head) {
            head += 1;
            // Launch edges propagate like calls: a task started from a
            // method that runs many times may start many times.
            for e in cg.callees(m) {
                let callee = e.callee;
                if !in_app.contains(&callee)
                    || reasons.contains_key(&callee)
                    || p.method(callee).is_class_initializer()
                {
                    continue;
                }
                reasons.insert(callee, (String::new(), Some(m)));
                work.push(callee);
            }
        }
        Many { reasons }
    }

    /// The reason `m` may run many times, with the chain of callers it came through.
    fn reason(&self, p: &Program, _cg: &CallGraph, m: MethodId) -> Option<String> {
        let (_, from) = self.reasons.get(&m)?;
        let mut chain = vec![m];
        let mut cur = *from;
        let mut base = None;
        if from.is_none() {
            base = self.reasons.get(&m).map(|r| r.0.clone());
        }
        while let Some(c) = cur {
            if chain.contains(&c) || chain.len() > 64 {
                break;
            }
            chain.push(c);
            match self.reasons.get(&c) {
                Some((b, next)) => {
                    if next.is_none() {
                        base = Some(b.clone());
                    }
                    cur = *next;
                }
                None => break,
            }
        }
        let base = base.unwrap_or_default();
        if chain.len() == 1 {
            return Some(format!("the enclosing method may run many times: {base}"));
        }
        let names: Vec<String> = chain
            .iter()
            .rev()
            .map(|&c| p.short_method_name(c))
            .collect();
        let shown = if names.len() > 5 {
            format!("{} → … → {}", names[0], names[names.len() - 1])
        } else {
            names.join(" → ")
        };
        Some(format!(
            "the enclosing method may run many times: {base} (call chain {shown})"
        ))
    }
}

/// Methods on a call-graph cycle among `app` methods (Tarjan, iterative).
fn recursive(cg: &CallGraph, app: &[MethodId], in_app: &FxHashSet<MethodId>) -> Vec<MethodId> {
    let index_of: FxHashMap<MethodId, usize> =
        app.iter().enumerate().map(|(i, &m)| (m, i)).collect();
    let succs: Vec<Vec<usize>> = app
        .iter()
        .map(|&m| {
            let mut v: Vec<usize> = cg
                .callees(m)
                .iter()
                .filter(|e| in_app.contains(&e.callee))
                .filter_map(|e| index_of.get(&e.callee).copied())
                .collect();
            v.dedup();
            v
        })
        .collect();
    let mut out: Vec<MethodId> = crate::cfg::nodes_on_cycles(&succs)
        .into_iter()
        .zip(app)
        .filter_map(|(on, &m)| on.then_some(m))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// One store into a field: method, body, class named by the field
/// reference, whether static, stored value.
type Store = (MethodId, Arc<Body>, Arc<str>, bool, Operand);
/// Stores by (field name, descriptor).
type StoreIndex = FxHashMap<(Arc<str>, Arc<str>), Vec<Store>>;

/// Stores into fields and thread allocations in reachable non-JDK code,
/// and call-site arguments, for the resolver's hops.
struct Flow<'a> {
    p: &'a Program,
    cg: &'a CallGraph,
    /// (field name, descriptor) → (method, body, field class, is static, stored value).
    stores: StoreIndex,
    /// `new C` with `C <: Thread`: (method, statement, class).
    thread_allocs: Vec<(MethodId, StmtId, ClassId)>,
}

impl<'a> Flow<'a> {
    fn build(p: &'a Program, cg: &'a CallGraph) -> Flow<'a> {
        let mut stores: StoreIndex = FxHashMap::default();
        let mut thread_allocs = Vec::new();
        let thread = p.class_by_name("java/lang/Thread");
        let app = app_methods(p, cg);
        p.prefetch_bodies(&app);
        for m in app {
            let Some(body) = p.body(m) else { continue };
            for (i, s) in body.stmts.iter().enumerate() {
                match &s.kind {
                    StmtKind::FieldStore { field, value, .. } => {
                        push_store(&mut stores, m, &body, field, false, value)
                    }
                    StmtKind::StaticStore { field, value } => {
                        push_store(&mut stores, m, &body, field, true, value)
                    }
                    StmtKind::Assign {
                        value: Rvalue::New(c),
                        ..
                    } => {
                        if let (Some(t), Some(cls)) = (thread, p.class_by_name(c)) {
                            if p.is_subtype(cls, t) {
                                thread_allocs.push((m, StmtId(i as u32), cls));
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        Flow {
            p,
            cg,
            stores,
            thread_allocs,
        }
    }
}

fn push_store(
    stores: &mut StoreIndex,
    m: MethodId,
    body: &Arc<Body>,
    field: &MemberRef,
    is_static: bool,
    value: &Operand,
) {
    stores
        .entry((field.name.clone(), field.descriptor.clone()))
        .or_default()
        .push((
            m,
            body.clone(),
            field.class.clone(),
            is_static,
            value.clone(),
        ));
}

impl FlowOracle for Flow<'_> {
    fn param_args(&self, m: MethodId, param: u16) -> Option<Vec<(MethodId, Arc<Body>, Operand)>> {
        if self.cg.entries.methods.binary_search(&m).is_ok() {
            return None;
        }
        let mut out = Vec::new();
        for e in self.cg.callers(m) {
            if e.kind == EdgeKind::TaskLaunch
                || is_jdk_class(&self.p.class(self.p.method(e.caller).class).name)
            {
                return None;
            }
            let body = self.p.body(e.caller)?;
            let arg = match &body.stmts.get(e.site.index())?.kind {
                StmtKind::Invoke { call, .. } => call.args.get(param as usize)?.clone(),
                _ => return None,
            };
            out.push((e.caller, body.clone(), arg));
        }
        (!out.is_empty()).then_some(out)
    }

    fn field_stores(
        &self,
        field: &MemberRef,
        is_static: bool,
    ) -> Option<Vec<(MethodId, Arc<Body>, Operand)>> {
        let all = self
            .stores
            .get(&(field.name.clone(), field.descriptor.clone()))?;
        let v: Vec<_> = all
            .iter()
            .filter(|(_, _, class, st, _)| {
                *st == is_static
                    && (self.p.is_subtype_name(class, &field.class)
                        || self.p.is_subtype_name(&field.class, class))
            })
            .map(|(m, b, _, _, v)| (*m, b.clone(), v.clone()))
            .collect();
        Some(v)
    }
}
