//! Threads: the context call graph the points-to analysis built, the
//! thread roots (the main thread, every modelled thread start with the
//! task object it runs, or the open-program harness), which method
//! contexts each root reaches, which roots may run more than once, and
//! which code of a parent thread is ordered with a child by `start()` and
//! `join()`.
//!
//! Thread-start edges are not calls: the task runs in its own root. A
//! root may run more than once when its start is in a loop, is periodic,
//! or its starting code may itself run more than once (it is called from
//! two places, from a loop, or from a root that runs more than once); such
//! a root races with itself.

use lockstep_ir::{Body, StmtId, StmtKind, VarId};
use lockstep_models::Repeat;
use lockstep_pointsto::{MethodContext, ObjectId, PointsToResult, SiteKey, ThreadStart};
use lockstep_program::{EdgeKind, MethodId, Program};
use rustc_hash::FxHashMap;
use std::sync::Arc;

/// The context call graph without thread-start edges, over dense indices.
pub struct Graph {
    pub nodes: Vec<MethodContext>,
    index: FxHashMap<MethodContext, u32>,
    /// Per node: (site, callee node), sorted.
    pub callees: Vec<Vec<(StmtId, u32)>>,
}

impl Graph {
    /// Per node: the nodes calling it, each with its call site, in the
    /// order of the callers' nodes and call sites.
    pub fn callers(&self) -> Vec<Vec<(u32, StmtId)>> {
        let mut out: Vec<Vec<(u32, StmtId)>> = vec![Vec::new(); self.len()];
        for (n, callees) in self.callees.iter().enumerate() {
            for &(site, c) in callees {
                if let Some(list) = out.get_mut(c as usize) {
                    list.push((n as u32, site));
                }
            }
        }
        out
    }

    pub fn new(pt: &PointsToResult) -> Graph {
        let nodes = pt.method_contexts();
        let index: FxHashMap<MethodContext, u32> = nodes
            .iter()
            .enumerate()
            .map(|(i, mc)| (*mc, i as u32))
            .collect();
        let mut callees: Vec<Vec<(StmtId, u32)>> = vec![Vec::new(); nodes.len()];
        for e in pt.context_call_edges() {
            if e.kind == EdgeKind::TaskLaunch {
                continue;
            }
            if let (Some(&a), Some(&b)) = (index.get(&e.caller), index.get(&e.callee)) {
                callees[a as usize].push((e.site, b));
            }
        }
        for v in &mut callees {
            v.sort_unstable();
            v.dedup();
        }
        Graph {
            nodes,
            index,
            callees,
        }
    }

    pub fn node(&self, mc: MethodContext) -> Option<u32> {
        self.index.get(&mc).copied()
    }

    /// The callee nodes of the call at `site` of `node`, in order (a
    /// binary search in the node's sorted edges, not a scan of them all).
    pub fn callees_at(&self, node: u32, site: StmtId) -> impl Iterator<Item = u32> + '_ {
        let edges = self
            .callees
            .get(node as usize)
            .map_or(&[][..], Vec::as_slice);
        let lo = edges.partition_point(|&(s, _)| s < site);
        edges[lo..]
            .iter()
            .take_while(move |&&(s, _)| s == site)
            .map(|&(_, c)| c)
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Breadth-first from `sources` (in order), skipping the call sites
    /// `cut` says to skip; returns each reached node's parent edge
    /// (`u32::MAX` for sources) as `(parent, site)`.
    pub fn bfs(
        &self,
        sources: &[u32],
        cut: impl Fn(u32, StmtId) -> bool,
    ) -> Vec<Option<(u32, StmtId)>> {
        let mut parent: Vec<Option<(u32, StmtId)>> = vec![None; self.nodes.len()];
        let mut queue = std::collections::VecDeque::new();
        for &s in sources {
            if parent[s as usize].is_none() {
                parent[s as usize] = Some((u32::MAX, StmtId(0)));
                queue.push_back(s);
            }
        }
        while let Some(n) = queue.pop_front() {
            for &(site, c) in &self.callees[n as usize] {
                if cut(n, site) {
                    continue;
                }
                if parent[c as usize].is_none() {
                    parent[c as usize] = Some((n, site));
                    queue.push_back(c);
                }
            }
        }
        parent
    }
}

impl Graph {
    /// Breadth-first from `sources`: each node's distance in calls from
    /// the nearest source (`u32::MAX`: not reached).
    pub fn depths(&self, sources: &[u32]) -> Vec<u32> {
        let mut depth = vec![u32::MAX; self.nodes.len()];
        self.depths_into(sources, &mut depth, &mut Vec::new());
        depth
    }

    /// [`Self::depths`] into `depth` (all `u32::MAX` on entry, one slot
    /// per node), listing the reached nodes in `reached` in the order
    /// they are reached. Packs the graph first: for many searches, pack
    /// it once with [`Self::successors`].
    pub fn depths_into(&self, sources: &[u32], depth: &mut [u32], reached: &mut Vec<u32>) {
        self.successors().depths_into(sources, depth, reached);
    }

    /// Each node's distinct callees, packed (what searches that ignore
    /// call sites follow).
    pub fn successors(&self) -> Successors {
        self.successors_without(&[])
    }

    /// [`Self::successors`] without the edges `cut` lists (sorted
    /// `(caller, callee)` pairs).
    pub fn successors_without(&self, cut: &[(u32, u32)]) -> Successors {
        let mut offsets = Vec::with_capacity(self.nodes.len() + 1);
        let mut targets = Vec::new();
        offsets.push(0);
        for (n, list) in self.callees.iter().enumerate() {
            let start = targets.len();
            let kept = |c: u32| cut.is_empty() || cut.binary_search(&(n as u32, c)).is_err();
            targets.extend(list.iter().map(|&(_, c)| c).filter(|&c| kept(c)));
            targets[start..].sort_unstable();
            let mut unique = start;
            for i in start..targets.len() {
                if unique == start || targets[unique - 1] != targets[i] {
                    targets[unique] = targets[i];
                    unique += 1;
                }
            }
            targets.truncate(unique);
            offsets.push(targets.len());
        }
        Successors { offsets, targets }
    }
}

/// The call graph's distinct callees per node, packed in one array
/// (node `n`'s are `targets[offsets[n]..offsets[n + 1]]`).
pub struct Successors {
    offsets: Vec<usize>,
    targets: Vec<u32>,
}

impl Successors {
    /// Packs per-node callee lists (for tests of the searches).
    #[cfg(test)]
    pub(crate) fn from_lists(lists: Vec<Vec<u32>>) -> Successors {
        let mut offsets = vec![0];
        let mut targets = Vec::new();
        for mut l in lists {
            l.sort_unstable();
            l.dedup();
            targets.extend(l);
            offsets.push(targets.len());
        }
        Successors { offsets, targets }
    }

    pub(crate) fn of(&self, n: u32) -> &[u32] {
        let n = n as usize;
        match (self.offsets.get(n), self.offsets.get(n + 1)) {
            (Some(&a), Some(&b)) => self.targets.get(a..b).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// [`Graph::depths_into`] over the packed graph: a caller that resets
    /// just the slots listed in `reached` runs one search per root in
    /// time proportional to what the root reaches.
    pub fn depths_into(&self, sources: &[u32], depth: &mut [u32], reached: &mut Vec<u32>) {
        let first = reached.len();
        for &s in sources {
            if let Some(d) = depth.get_mut(s as usize) {
                if *d == u32::MAX {
                    *d = 0;
                    reached.push(s);
                }
            }
        }
        let mut next_index = first;
        while let Some(&n) = reached.get(next_index) {
            next_index += 1;
            let next = depth[n as usize].saturating_add(1);
            for &c in self.of(n) {
                if let Some(d) = depth.get_mut(c as usize) {
                    if *d == u32::MAX {
                        *d = next;
                        reached.push(c);
                    }
                }
            }
        }
    }
}

/// What a root is.
#[derive(Debug, Clone)]
pub enum RootKind {
    /// The program's `main` methods.
    Main,
    /// An entry method of the open-program harness.
    Harness(MethodId),
    /// A public method of a class annotated `@ThreadSafe`.
    ThreadSafeApi(MethodId),
    /// A modelled thread start (index into `PointsToResult::thread_starts`).
    Start(usize),
}

/// A thread root.
#[derive(Debug, Clone)]
pub struct Root {
    pub kind: RootKind,
    pub entries: Vec<u32>,
    /// May run more than once (races with itself).
    pub multi: bool,
    /// The programs the root belongs to, sorted: each is the index of a
    /// `main` among the main roots (its main thread, or a thread started
    /// from code that main reaches, in one or several programs); `None`
    /// for roots of every program (the harness, `@ThreadSafe` APIs,
    /// threads of a single-main program). Roots that share no program
    /// never run at the same time.
    pub programs: Option<Vec<u32>>,
    /// Start roots of one launching call that starts exactly one task
    /// (`t.start()`, `execute(r)`) share a value: when the call runs once,
    /// only one of its tasks is started, so they never run together.
    pub alternative: Option<u32>,
    /// The one thread the root's tasks run on, one after another, when
    /// known: roots with the same value never run at the same time, nor
    /// does such a root with itself.
    pub serial: Option<SerialThread>,
}

/// A thread that runs its tasks one after another.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SerialThread {
    /// The AWT/Swing event dispatch thread.
    EventDispatch,
    /// A single-threaded executor or timer: the abstract object, and the
    /// field the launching call read it from (`None`: not read from a
    /// field). Two fields may hold two executors made at one allocation
    /// site, so only launches through one field share the thread.
    Executor {
        object: ObjectId,
        field: Option<(Arc<str>, Arc<str>)>,
    },
    /// The thread kept in a field of `owner` and started again only when
    /// it has ended ([`crate::one_alive`]).
    OneAlive {
        owner: ObjectId,
        field: crate::lock_paths::FieldName,
    },
}

impl Root {
    /// Can this root and `other` belong to one run of one program?
    pub fn same_program(&self, other: &Root) -> bool {
        match (&self.programs, &other.programs) {
            (Some(a), Some(b)) => a.iter().any(|p| b.binary_search(p).is_ok()),
            _ => true,
        }
    }

    /// Does the root belong to `program` (`None`: to every program)?
    pub fn in_program(&self, program: Option<u32>) -> bool {
        match (&self.programs, program) {
            (Some(a), Some(p)) => a.binary_search(&p).is_ok(),
            _ => true,
        }
    }

    /// Are this root and `other` two tasks of which one call, run once,
    /// starts only one?
    fn alternative_to(&self, other: &Root) -> bool {
        self.alternative.is_some()
            && self.alternative == other.alternative
            && !self.multi
            && !other.multi
    }
}

/// Per thread start: its group of alternatives (see
/// [`Root::alternative`]), the index of the group's first start; `None`
/// for launches of a collection or array of tasks.
pub fn alternatives(starts: &[ThreadStart]) -> Vec<Option<u32>> {
    let mut first: FxHashMap<(MethodContext, StmtId, *const lockstep_models::TaskLaunch), u32> =
        FxHashMap::default();
    starts
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let one_task = matches!(
                t.launch.shape,
                lockstep_models::TaskShape::Functional | lockstep_models::TaskShape::Thread
            );
            let key = (t.caller, t.site, t.launch as *const _);
            one_task.then(|| *first.entry(key).or_insert(i as u32))
        })
        .collect()
}

const MAIN_DESC: &str = "([Ljava/lang/String;)V";

/// The main thread of each program: one root per `main` method among the
/// entry points (each `main` is its own program), in entry order; entry
/// methods that are not `main`s share one root of every program.
pub fn main_roots(program: &Program, pt: &PointsToResult, graph: &Graph) -> Vec<Root> {
    let mut roots: Vec<Root> = Vec::new();
    let mut others: Vec<u32> = Vec::new();
    let mut current: Option<MethodId> = None;
    // `entry_contexts` is sorted by method, so each main's contexts are adjacent.
    for mc in pt.entry_contexts() {
        let Some(node) = graph.node(mc) else { continue };
        let data = program.method(mc.method);
        if !(data.is_static() && &*data.name == "main" && &*data.descriptor == MAIN_DESC) {
            others.push(node);
            continue;
        }
        if current != Some(mc.method) {
            current = Some(mc.method);
            roots.push(Root {
                kind: RootKind::Main,
                entries: Vec::new(),
                multi: false,
                programs: Some(vec![roots.len() as u32]),
                alternative: None,
                serial: None,
            });
        }
        if let Some(r) = roots.last_mut() {
            r.entries.push(node);
        }
    }
    if !others.is_empty() {
        roots.push(Root {
            kind: RootKind::Main,
            entries: others,
            multi: false,
            programs: None,
            alternative: None,
            serial: None,
        });
    }
    roots
}

/// Statements of `body` on a CFG cycle (a loop runs them more than once).
pub fn in_loop(body: &Body, s: StmtId) -> bool {
    let Some(&b) = body.block_of.get(s.index()) else {
        return false;
    };
    // Can `b` reach itself through normal or exceptional edges?
    let n = body.blocks.len();
    let mut seen = vec![false; n];
    let mut stack: Vec<usize> = Vec::new();
    let succs = |x: usize| crate::util::successors(body, x);
    stack.extend(succs(b.index()));
    while let Some(x) = stack.pop() {
        if x == b.index() {
            return true;
        }
        if x >= n || seen[x] {
            continue;
        }
        seen[x] = true;
        stack.extend(succs(x));
    }
    false
}

/// How many times each node may run per run of the program: 0 (not
/// reached), 1, or 2 meaning "more than once". Sources start at their
/// given count; a call from a loop or a second call site makes "more".
///
/// The least solution of `count[b] = min(2, source[b] + Σ over calls
/// a → b of (0 if count[a] = 0, else 2 if the call is in a loop, else
/// count[a]))`, by a worklist: a node whose count grew sends the growth of
/// its contribution to its callees. Counts only grow and are capped at 2,
/// so each node is sent at most twice and each call followed at most
/// twice (the rounds over every call this replaced took one round per
/// level of calls).
/// `looped` says which calls of `graph` are made in a loop
/// ([`looped_calls`], made once per graph).
pub fn run_counts(graph: &Graph, sources: &[(u32, u8)], looped: &LoopedCalls) -> Vec<u8> {
    let n = graph.len();
    let mut base = vec![0u8; n];
    for &(s, c) in sources {
        if let Some(b) = base.get_mut(s as usize) {
            *b = (*b).max(c);
        }
    }
    let mut count = base.clone();
    // Per node: the count its callees have been sent, and the sum of what
    // its callers sent (uncapped).
    let mut sent = vec![0u8; n];
    let mut received = vec![0u32; n];
    let mut work: Vec<u32> = (0..n as u32).filter(|&x| base[x as usize] > 0).collect();
    let contribution = |c: u8, looped: bool| -> u32 {
        match (c, looped) {
            (0, _) => 0,
            (_, true) => 2,
            (c, false) => u32::from(c),
        }
    };
    while let Some(a) = work.pop() {
        let a = a as usize;
        let (now, before) = (count[a], sent[a]);
        if now == before {
            continue;
        }
        sent[a] = now;
        let Some(edges) = graph.callees.get(a) else {
            continue;
        };
        let calls = looped.of(a);
        for (k, &(_, b)) in edges.iter().enumerate() {
            let l = calls.get(k).copied().unwrap_or(false);
            let grew = contribution(now, l) - contribution(before, l);
            let b = b as usize;
            let Some(r) = received.get_mut(b) else {
                continue;
            };
            *r += grew;
            let c = (u32::from(base[b]) + *r).min(2) as u8;
            if c > count[b] {
                count[b] = c;
                work.push(b as u32);
            }
        }
    }
    count
}

/// Whether each call of the graph is made in a loop, by node and call.
#[derive(Debug)]
pub struct LoopedCalls {
    /// Per node, where its calls start in `looped`.
    first: Vec<usize>,
    looped: Vec<bool>,
}

impl LoopedCalls {
    /// The calls of node `a`, in its callee order.
    fn of(&self, a: usize) -> &[bool] {
        let start = self.first.get(a).copied().unwrap_or(0);
        let end = self.first.get(a + 1).copied().unwrap_or(self.looped.len());
        self.looped.get(start..end).unwrap_or(&[])
    }
}

/// [`LoopedCalls`] of `graph`: each call site's code looked at once,
/// whatever the number of contexts its method has.
pub fn looped_calls(program: &Program, graph: &Graph) -> LoopedCalls {
    let mut loop_sites: FxHashMap<(MethodId, StmtId), bool> = FxHashMap::default();
    let mut first = Vec::with_capacity(graph.len() + 1);
    let mut looped = Vec::new();
    for (a, edges) in graph.callees.iter().enumerate() {
        first.push(looped.len());
        let Some(node) = graph.nodes.get(a) else {
            looped.extend(edges.iter().map(|_| false));
            continue;
        };
        let m = node.method;
        for &(site, _) in edges {
            let l = *loop_sites
                .entry((m, site))
                .or_insert_with(|| program.body(m).is_some_and(|body| in_loop(&body, site)));
            looped.push(l);
        }
    }
    first.push(looped.len());
    LoopedCalls { first, looped }
}

/// The method contexts a thread start runs for its own task object.
///
/// Points-to records the launch edges per start site, not per task: a
/// site reached by several tasks (`t.start()` on a field holding many
/// threads, an executor's `execute(r)`) has the entries of all of them.
/// A root runs only its task's entries: an instance entry whose receiver
/// may be the task, or for a lambda task the lambda's implementation
/// method. Sorted like the launch edges.
pub fn task_entries(program: &Program, pt: &PointsToResult, t: &ThreadStart) -> Vec<MethodContext> {
    let all = pt.thread_entries(t);
    let lambda = lambda_implementation(program, pt, t.task);
    let own: Vec<MethodContext> = all
        .iter()
        .copied()
        .filter(|mc| runs_task(program, pt, *mc, t.task, lambda.as_ref()))
        .collect();
    // A task none of the entries can be matched to (a constructor
    // reference) keeps them all rather than losing its thread.
    if own.is_empty() {
        all
    } else {
        own
    }
}

/// Does method context `mc` run task object `task` (its lambda
/// implementation, or a method with the task as its receiver)?
pub fn runs_task_object(
    program: &Program,
    pt: &PointsToResult,
    mc: MethodContext,
    task: ObjectId,
) -> bool {
    let lambda = lambda_implementation(program, pt, task);
    runs_task(program, pt, mc, task, lambda.as_ref())
}

/// Does launch entry `mc` run task object `task`?
fn runs_task(
    program: &Program,
    pt: &PointsToResult,
    mc: MethodContext,
    task: ObjectId,
    lambda: Option<&(std::sync::Arc<str>, std::sync::Arc<str>)>,
) -> bool {
    let data = program.method(mc.method);
    if let Some((name, desc)) = lambda {
        // The implementation (a static `lambda$…`, or the method a method
        // reference names, dispatched on its receiver) keeps its name.
        return data.name == *name && data.descriptor == *desc;
    }
    // The launch passes the task as the entry's receiver (`this`).
    !data.is_static() && pt.var_in(mc.method, mc.context, VarId(0)).contains(task)
}

/// The name and descriptor of a lambda object's implementation method
/// (`None` for objects that are not lambdas).
fn lambda_implementation(
    program: &Program,
    pt: &PointsToResult,
    o: ObjectId,
) -> Option<(std::sync::Arc<str>, std::sync::Arc<str>)> {
    let info = pt.object(o)?;
    let SiteKey::Lambda { method, stmt } = info.site else {
        return None;
    };
    let body = program.body(*method)?;
    let StmtKind::InvokeDynamic { call, .. } = &body.stmts.get(stmt.index())?.kind else {
        return None;
    };
    let shape = lockstep_program::decode_lambda(call)?;
    let member = shape.implementation.member;
    Some((member.name, member.descriptor))
}

/// The one thread a start's task runs on beside the other tasks of its
/// executor or timer, when that is single-threaded (see
/// [`lockstep_models::threads::serial`]).
///
/// `entries`: the methods the started thread enters.
pub fn serial_thread(
    program: &Program,
    pt: &PointsToResult,
    t: &ThreadStart,
    entries: &[MethodId],
) -> Option<SerialThread> {
    use lockstep_models::threads::Serial;
    if let Some((owner, field)) = crate::one_alive::one_alive_thread(program, pt, t, entries) {
        return Some(SerialThread::OneAlive { owner, field });
    }
    match lockstep_models::threads::serial(t.launch) {
        Serial::Never => None,
        Serial::EventDispatchThread => Some(SerialThread::EventDispatch),
        Serial::ReceiverIfSingleThreaded => {
            let body = program.body(t.caller.method)?;
            let StmtKind::Invoke { call, .. } = &body.stmts.get(t.site.index())?.kind else {
                return None;
            };
            let receiver = call.receiver.as_ref()?.var()?;
            let object = crate::util::single_object(&pt.var_in(
                t.caller.method,
                t.caller.context,
                receiver,
            ))?;
            single_threaded(program, pt, object).then(|| SerialThread::Executor {
                object,
                field: defining_field(&body, receiver),
            })
        }
    }
}

/// Is abstract object `o` an executor or timer with one thread: of a
/// class that always is, or a pool allocated with a constant pool size
/// of one?
fn single_threaded(program: &Program, pt: &PointsToResult, o: ObjectId) -> bool {
    let Some(info) = pt.object(o) else {
        return false;
    };
    let is_subtype = |a: &str, b: &str| program.is_subtype_name(a, b);
    if lockstep_models::threads::is_single_thread_class(info.type_name, &is_subtype) {
        return true;
    }
    let Some(&(_, arg)) = lockstep_models::threads::ONE_THREAD_POOL_ARGUMENT
        .iter()
        .find(|(class, _)| **class == **info.type_name)
    else {
        return false;
    };
    let SiteKey::Alloc { method, stmt, .. } = info.site else {
        return false;
    };
    program
        .body(*method)
        .is_some_and(|body| constructed_with_one(&body, *stmt, arg))
}

/// Does the object `new` at `alloc` get its constructor's argument `arg`
/// as the constant 1?
fn constructed_with_one(body: &Body, alloc: StmtId, arg: usize) -> bool {
    let Some(StmtKind::Assign { dst, .. }) = body.stmts.get(alloc.index()).map(|s| &s.kind) else {
        return false;
    };
    body.stmts.iter().any(|s| match &s.kind {
        StmtKind::Invoke { call, .. } => {
            &*call.method.name == "<init>"
                && call.receiver.as_ref().and_then(|r| r.var()) == Some(*dst)
                && matches!(
                    call.args.get(arg),
                    Some(lockstep_ir::Operand::Const(lockstep_ir::ConstValue::Int(1)))
                )
        }
        _ => false,
    })
}

/// The field `v` is read from, when its only definition in `body` is a
/// field read: (class, field name).
fn defining_field(body: &Body, v: VarId) -> Option<(Arc<str>, Arc<str>)> {
    let StmtKind::Assign { value, .. } = crate::util::unique_def_of(body, v)? else {
        return None;
    };
    match value {
        lockstep_ir::Rvalue::FieldLoad { field, .. } | lockstep_ir::Rvalue::StaticLoad(field) => {
            Some((field.class.clone(), field.name.clone()))
        }
        _ => None,
    }
}

/// Whether a thread start repeats by itself (periodic schedules).
pub fn periodic(start: &ThreadStart) -> bool {
    start.launch.repeat == Repeat::Periodic
}

/// Whether one launch alone may run its task twice at the same time. The
/// JDK's periodic schedules do not: a `ScheduledExecutorService` starts a
/// periodic task's next run only after the previous one ended, and a
/// `Timer` runs all its tasks one after another on its one thread. A task
/// handed to an outside scheduler (`lockstep_models::OUTSIDE_TASK`) may.
pub fn overlaps_itself(start: &ThreadStart) -> bool {
    periodic(start) && start.launch.kind == lockstep_models::LaunchKind::Outside
}

/// A pair of roots under which two statements may run at the same time,
/// each given by the roots reaching it (nearest first) and the thread
/// starts it is ordered with (before start / after join): two roots of
/// one program not ordered by start/join, or one that runs more than
/// once. In open programs every entry may run beside every other, except
/// two that run on one serial thread (the harness's entries into GUI code
/// and the tasks handed to the event dispatch thread).
pub fn concurrent_roots(
    open: bool,
    roots: &[Root],
    a: (&[u32], &[u32]),
    b: (&[u32], &[u32]),
) -> Option<(u32, u32)> {
    let ((a_roots, a_ordered), (b_roots, b_ordered)) = (a, b);
    let one_serial_thread =
        |ra: u32, rb: u32| match (roots.get(ra as usize), roots.get(rb as usize)) {
            (Some(x), Some(y)) => x.serial.is_some() && x.serial == y.serial,
            _ => false,
        };
    if open && (a_roots.is_empty() || b_roots.is_empty()) {
        let r = a_roots.first().copied().unwrap_or(0);
        return Some((r, b_roots.first().copied().unwrap_or(0)));
    }
    if a_roots.is_empty() || b_roots.is_empty() {
        return None;
    }
    let concurrent = |ra: u32, rb: u32| {
        if one_serial_thread(ra, rb) {
            return false;
        }
        if open {
            return true;
        }
        let (Some(x), Some(y)) = (roots.get(ra as usize), roots.get(rb as usize)) else {
            return false;
        };
        if ra == rb {
            return x.multi;
        }
        x.same_program(y)
            && !x.alternative_to(y)
            && !b_ordered.contains(&ra)
            && !a_ordered.contains(&rb)
    };
    // The root lists are ordered nearest first: the pair whose ranks sum
    // least names the threads most directly responsible for the accesses.
    let (la, lb) = (a_roots.len(), b_roots.len());
    for sum in 0..(la + lb).saturating_sub(1) {
        for i in sum.saturating_sub(lb - 1)..=sum.min(la - 1) {
            let (ra, rb) = (a_roots[i], b_roots[sum - i]);
            if concurrent(ra, rb) {
                return Some((ra, rb));
            }
        }
    }
    None
}

/// [`concurrent_roots`] remembered per combination of interned root and
/// ordering sets: the pair search asks the same question for every bucket
/// whose accesses share those sets, and on harness-heavy inputs (a JDK
/// module, closed) each question walks thousands of roots squared.
/// Keyed by the sets' addresses, which is sound while the sets live: the
/// memo keeps a handle on each set it keyed, so no address is reused.
/// One memo serves one root table: [`Self::reset`] starts over, and while
/// the table in use is another (a repeated start's objects make a copy
/// whose roots do not run twice), [`Self::suspend`] turns the memo off.
#[derive(Debug, Default)]
pub struct ConcurrencyMemo {
    answers: FxHashMap<MemoKey, Option<(u32, u32)>>,
    kept: FxHashMap<usize, Arc<[u32]>>,
    suspended: bool,
}

/// Open mode, and the addresses of the two root sets and the two ordering
/// sets a question is about.
type MemoKey = (bool, [usize; 4]);

/// A root set and the thread starts its access is ordered with.
pub type RootsAndOrdering<'x> = (&'x Arc<[u32]>, &'x Arc<[u32]>);

impl ConcurrencyMemo {
    /// Forgets every answer: the next questions are about another table.
    pub fn reset(&mut self) {
        self.answers.clear();
        self.kept.clear();
        self.suspended = false;
    }

    /// Whether the questions until the next call are about another table
    /// than the memo's (answered without the memo) or about its own.
    pub fn suspend(&mut self, other_table: bool) {
        self.suspended = other_table;
    }

    /// [`concurrent_roots`] of `a` and `b` over `roots`, computed once per
    /// combination of sets.
    pub fn concurrent(
        &mut self,
        open: bool,
        roots: &[Root],
        a: RootsAndOrdering<'_>,
        b: RootsAndOrdering<'_>,
    ) -> Option<(u32, u32)> {
        // Without the memo: a question about an empty root set is answered
        // at once (the intent rule asks it of every access the harness
        // alone reaches), and while suspended the memo is another table's.
        if self.suspended || a.0.is_empty() || b.0.is_empty() {
            return concurrent_roots(open, roots, (a.0, a.1), (b.0, b.1));
        }
        let sets = [a.0, a.1, b.0, b.1];
        let key = (open, sets.map(|s| s.as_ptr() as usize));
        if let Some(&answer) = self.answers.get(&key) {
            return answer;
        }
        let answer = concurrent_roots(open, roots, (a.0, a.1), (b.0, b.1));
        for s in sets {
            self.kept
                .entry(s.as_ptr() as usize)
                .or_insert_with(|| s.clone());
        }
        self.answers.insert(key, answer);
        answer
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lockstep_pointsto::ContextId;

    /// A graph of `n` nodes with the given call edges (site = edge index).
    fn graph(n: u32, edges: &[(u32, u32)]) -> Graph {
        let nodes: Vec<MethodContext> = (0..n)
            .map(|i| MethodContext {
                method: MethodId(i),
                context: ContextId(0),
            })
            .collect();
        let mut callees = vec![Vec::new(); n as usize];
        for (i, &(a, b)) in edges.iter().enumerate() {
            callees[a as usize].push((StmtId(i as u32), b));
        }
        let index = nodes
            .iter()
            .enumerate()
            .map(|(i, mc)| (*mc, i as u32))
            .collect();
        Graph {
            nodes,
            index,
            callees,
        }
    }

    /// One reused buffer, reset where each search reached, gives every
    /// search the distances a fresh one does; `reached` lists exactly the
    /// nodes with a distance, nearest first.
    #[test]
    fn depths_into_a_reused_buffer_match_fresh_searches() {
        // 0 -> 1 -> 2 -> 3, 0 -> 3, 4 -> 2, 5 alone, a cycle 3 -> 1.
        let g = graph(6, &[(0, 1), (1, 2), (2, 3), (0, 3), (4, 2), (3, 1)]);
        let mut depth = vec![u32::MAX; g.len()];
        let mut reached = Vec::new();
        for sources in [vec![0], vec![4], vec![5], vec![2, 4], vec![]] {
            g.depths_into(&sources, &mut depth, &mut reached);
            let fresh = g.depths(&sources);
            assert_eq!(depth, fresh, "from {sources:?}");
            let mut listed = reached.clone();
            listed.sort_unstable();
            let with_depth: Vec<u32> = (0..g.len() as u32)
                .filter(|&i| fresh[i as usize] != u32::MAX)
                .collect();
            assert_eq!(listed, with_depth, "from {sources:?}");
            assert!(reached
                .windows(2)
                .all(|w| depth[w[0] as usize] <= depth[w[1] as usize]));
            for &i in &reached {
                depth[i as usize] = u32::MAX;
            }
            reached.clear();
        }
        assert_eq!(g.depths(&[0]), vec![0, 1, 2, 1, u32::MAX, u32::MAX]);
    }

    fn root(kind: RootKind, multi: bool, program: Option<u32>, alternative: Option<u32>) -> Root {
        Root {
            kind,
            entries: Vec::new(),
            multi,
            programs: program.map(|p| vec![p]),
            alternative,
            serial: None,
        }
    }

    /// Roots of two programs never pair; a root of every program pairs
    /// with both.
    #[test]
    fn programs_keep_apart() {
        let roots = [
            root(RootKind::Main, false, Some(0), None),
            root(RootKind::Main, false, Some(1), None),
            root(RootKind::Start(0), false, Some(0), None),
            root(RootKind::Start(1), false, Some(1), None),
            root(RootKind::Start(2), false, None, None),
        ];
        let none: &[u32] = &[];
        assert_eq!(
            concurrent_roots(false, &roots, (&[2], none), (&[3], none)),
            None
        );
        assert_eq!(
            concurrent_roots(false, &roots, (&[0], none), (&[3], none)),
            None
        );
        assert_eq!(
            concurrent_roots(false, &roots, (&[0], none), (&[2], none)),
            Some((0, 2))
        );
        assert_eq!(
            concurrent_roots(false, &roots, (&[3], none), (&[4], none)),
            Some((3, 4))
        );
        // A thread shared code starts in both programs pairs with each.
        let mut shared = root(RootKind::Start(3), false, None, None);
        shared.programs = Some(vec![0, 1]);
        let roots = [roots[0].clone(), roots[1].clone(), shared];
        assert_eq!(
            concurrent_roots(false, &roots, (&[1], none), (&[2], none)),
            Some((1, 2))
        );
        assert_eq!(
            concurrent_roots(false, &roots, (&[2], none), (&[2], none)),
            None
        );
    }

    /// The memo answers as `concurrent_roots` does, once per combination
    /// of sets; suspended, it answers for the table it is given (a copy
    /// whose repeated start runs once) without remembering.
    #[test]
    fn memo_answers_as_the_search() {
        let mut roots = vec![
            root(RootKind::Main, false, Some(0), None),
            root(RootKind::Start(0), true, Some(0), None),
        ];
        let none: Arc<[u32]> = Arc::from(Vec::new());
        let (main, task): (Arc<[u32]>, Arc<[u32]>) = (Arc::from(vec![0]), Arc::from(vec![1]));
        let after_join: Arc<[u32]> = Arc::from(vec![1]);
        let mut memo = ConcurrencyMemo::default();
        let cases = [
            ((&main, &none), (&task, &none)),
            ((&task, &none), (&task, &none)),
            ((&main, &after_join), (&task, &none)),
        ];
        for _round in 0..2 {
            for (a, b) in cases {
                let expected = concurrent_roots(false, &roots, (a.0, a.1), (b.0, b.1));
                assert_eq!(memo.concurrent(false, &roots, a, b), expected);
            }
        }
        assert_eq!(memo.answers.len(), cases.len());
        assert_eq!(
            memo.concurrent(false, &roots, (&task, &none), (&task, &none)),
            Some((1, 1))
        );
        // The copy of the table in which the task's start runs once.
        roots[1].multi = false;
        memo.suspend(true);
        assert_eq!(
            memo.concurrent(false, &roots, (&task, &none), (&task, &none)),
            None
        );
        memo.suspend(false);
        assert_eq!(memo.answers.len(), cases.len());
        memo.reset();
        assert!(memo.answers.is_empty() && memo.kept.is_empty());
    }

    /// Two tasks of one single-task launch that runs once never run
    /// together; once the launch may run more than once they do.
    #[test]
    fn alternatives_of_one_launch() {
        let mut roots = vec![
            root(RootKind::Start(0), false, None, Some(0)),
            root(RootKind::Start(1), false, None, Some(0)),
        ];
        let none: &[u32] = &[];
        assert_eq!(
            concurrent_roots(false, &roots, (&[0], none), (&[1], none)),
            None
        );
        roots[1].multi = true;
        roots[0].multi = true;
        assert_eq!(
            concurrent_roots(false, &roots, (&[0], none), (&[1], none)),
            Some((0, 1))
        );
    }

    /// The run counts by rounds over every call until nothing changes
    /// (the naive form of the equations `run_counts` solves).
    fn counts_by_rounds(g: &Graph, sources: &[(u32, u8)], looped: &LoopedCalls) -> Vec<u8> {
        let n = g.len();
        let mut base = vec![0u8; n];
        for &(s, c) in sources {
            base[s as usize] = base[s as usize].max(c);
        }
        let mut count = base.clone();
        loop {
            let mut next = base.clone();
            for (a, edges) in g.callees.iter().enumerate() {
                for (k, &(_, b)) in edges.iter().enumerate() {
                    let add = match (count[a], looped.of(a)[k]) {
                        (0, _) => 0,
                        (_, true) => 2,
                        (c, false) => c,
                    };
                    next[b as usize] = (next[b as usize] + add).min(2);
                }
            }
            if next == count {
                return count;
            }
            count = next;
        }
    }

    /// Every call of `g` in a loop when `pick(edge index)` says so.
    fn looped_by(g: &Graph, pick: impl Fn(usize) -> bool) -> LoopedCalls {
        let mut first = Vec::new();
        let mut looped = Vec::new();
        for edges in &g.callees {
            first.push(looped.len());
            for &(site, _) in edges {
                looped.push(pick(site.index()));
            }
        }
        first.push(looped.len());
        LoopedCalls { first, looped }
    }

    #[test]
    fn run_counts_agree_with_rounds() {
        let mut x = 0x9e37_79b9_u64;
        let mut next = move |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % m) as u32
        };
        for (n, e) in [(5, 6), (20, 30), (60, 150), (200, 300)] {
            for _ in 0..20 {
                let edges: Vec<(u32, u32)> = (0..e).map(|_| (next(n), next(n))).collect();
                let g = graph(n as u32, &edges);
                let looped = looped_by(&g, |i| i % 7 == 3);
                let sources = [(next(n), 1), (next(n), 1 + next(2) as u8)];
                assert_eq!(
                    run_counts(&g, &sources, &looped),
                    counts_by_rounds(&g, &sources, &looped)
                );
            }
        }
    }

    /// A call in a loop at the top of a chain deeper than the 64 rounds
    /// the counts once stopped at: every method down the chain runs more
    /// than once.
    #[test]
    fn a_loop_above_a_deep_chain_reaches_its_end() {
        let edges: Vec<(u32, u32)> = (0..200).map(|i| (i, i + 1)).collect();
        let g = graph(201, &edges);
        let looped = looped_by(&g, |i| i == 0);
        let counts = run_counts(&g, &[(0, 1)], &looped);
        assert_eq!(counts[0], 1);
        assert!(counts[1..].iter().all(|&c| c == 2), "{counts:?}");
        let once = looped_by(&g, |_| false);
        assert!(run_counts(&g, &[(0, 1)], &once).iter().all(|&c| c == 1));
    }

    /// Of several concurrent pairs, the one nearest in both lists wins;
    /// a root that runs once does not pair with itself.
    #[test]
    fn nearest_pair_first() {
        let roots = [
            root(RootKind::Main, false, Some(0), None),
            root(RootKind::Start(0), false, None, None),
            root(RootKind::Start(1), false, None, None),
        ];
        let none: &[u32] = &[];
        // `a` is nearest to root 2, `b` to root 1: (2, 1) beats (0, 1).
        assert_eq!(
            concurrent_roots(false, &roots, (&[2, 0], none), (&[1, 0], none)),
            Some((2, 1))
        );
        // Only root 1 reaches both and it runs once.
        assert_eq!(
            concurrent_roots(false, &roots, (&[1], none), (&[1], none)),
            None
        );
        // Ordered by start/join: `b` runs before root 2 starts.
        assert_eq!(
            concurrent_roots(false, &roots, (&[2], none), (&[0], &[2])),
            None
        );
    }
}
