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

use lockstep_ir::{Body, StmtId};
use lockstep_models::Repeat;
use lockstep_pointsto::{MethodContext, PointsToResult, ThreadStart};
use lockstep_program::{EdgeKind, MethodId, Program};
use rustc_hash::FxHashMap;

/// The context call graph without thread-start edges, over dense indices.
pub struct Graph {
    pub nodes: Vec<MethodContext>,
    index: FxHashMap<MethodContext, u32>,
    /// Per node: (site, callee node), sorted.
    pub callees: Vec<Vec<(StmtId, u32)>>,
}

impl Graph {
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
pub fn run_counts(
    program: &Program,
    graph: &Graph,
    sources: &[(u32, u8)],
    loop_sites: &mut FxHashMap<(MethodId, StmtId), bool>,
) -> Vec<u8> {
    let n = graph.len();
    let mut count = vec![0u8; n];
    // Incoming contributions are recomputed from scratch each round until
    // nothing changes; counts only grow and are capped at 2.
    for &(s, c) in sources {
        count[s as usize] = count[s as usize].max(c);
    }
    let base = count.clone();
    for _round in 0..64 {
        let mut next = base.clone();
        let mut incoming = vec![0u8; n];
        for (a, edges) in graph.callees.iter().enumerate() {
            if count[a] == 0 {
                continue;
            }
            let m = graph.nodes[a].method;
            for &(site, b) in edges {
                let looped = *loop_sites
                    .entry((m, site))
                    .or_insert_with(|| program.body(m).is_some_and(|body| in_loop(&body, site)));
                let add = if looped { 2 } else { count[a] };
                incoming[b as usize] = incoming[b as usize].saturating_add(add).min(2);
            }
        }
        for i in 0..n {
            next[i] = next[i].saturating_add(incoming[i]).min(2);
        }
        if next == count {
            break;
        }
        count = next;
    }
    count
}

/// Whether a thread start repeats by itself (periodic schedules).
pub fn periodic(start: &ThreadStart) -> bool {
    start.launch.repeat == Repeat::Periodic
}

/// A pair of roots under which two statements may run at the same time,
/// each given by the roots reaching it and the thread starts it is
/// ordered with (before start / after join): two roots not ordered by
/// start/join, or one that runs more than once. In open programs every
/// entry may run beside every other.
pub fn concurrent_roots(
    open: bool,
    roots: &[Root],
    a: (&[u32], &[u32]),
    b: (&[u32], &[u32]),
) -> Option<(u32, u32)> {
    let ((a_roots, a_ordered), (b_roots, b_ordered)) = (a, b);
    if open {
        let r = a_roots.first().copied().unwrap_or(0);
        return Some((r, b_roots.first().copied().unwrap_or(0)));
    }
    for &ra in a_roots {
        for &rb in b_roots {
            if ra == rb && !roots.get(ra as usize).is_some_and(|r| r.multi) {
                continue;
            }
            if ra != rb && (b_ordered.contains(&ra) || a_ordered.contains(&rb)) {
                continue;
            }
            return Some((ra, rb));
        }
    }
    None
}
