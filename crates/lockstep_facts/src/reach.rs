//! Which thread roots reach each node of the context call graph (nearest
//! first), which programs each thread start belongs to, and the
//! start/join orderings: the statements of a starting method that run
//! before `start()` or after a wait for the task's end (`join()`, a
//! future's `get()`, ...; see `happens_before`), and the nodes that only
//! those statements reach. A start in a loop runs more than once but is
//! still ordered with what its caller does before the loop and after the
//! waits, as long as the caller itself runs once. A caller that runs more
//! than once orders none of its own statements, but what its chain of
//! single callers did before first calling it still happens before every
//! start (a server that opens its databases, then hands each accepted
//! socket to a method that starts the connection's thread).

use std::collections::{BTreeSet, VecDeque};

use rustc_hash::FxHashMap;

use crate::analysis::Analysis;
use lockstep_ir::StmtId;

use crate::threads::{self, Root, RootKind};

/// Thread starts for which start/join ordering is computed
/// (each costs one traversal of the call graph).
const MAX_ORDERED_STARTS: usize = 512;
/// How many single callers above a starting method are ordered with it.
const MAX_ANCESTORS: usize = 8;

/// Start/join ordering of one thread start whose caller runs once.
pub struct Ordering {
    /// The root the start begins.
    pub root: u32,
    /// The node (method context) that starts it.
    pub caller: u32,
    /// Per statement of the caller: ordered with the thread (before its
    /// start or after its join).
    pub stmts: Vec<bool>,
    /// Per node: reached by the other roots without passing an ordered
    /// statement of the caller.
    pub reached: Vec<bool>,
    /// Helper nodes the caller waits in for the task, reached by nothing
    /// else: per statement, ordered (after the wait).
    pub helpers: Vec<(u32, Vec<bool>)>,
    /// The callers of the starting method up its chain of single call
    /// sites (each runs once and is the only caller of the next): per
    /// statement, before the call that leads to the start.
    pub ancestors: Vec<(u32, Vec<bool>)>,
    /// The start roots only this start's thread (and they) start
    /// ([`crate::start_descendants`]), sorted.
    pub descendants: Vec<u32>,
    /// When there are descendants: what of the program is ordered before
    /// the start alone (not after a wait for the task's end, which does
    /// not wait for the threads the task started).
    pub before_start: Option<BeforeStart>,
}

/// The statements ordered before a start: per statement of the caller,
/// and per node, reached by the other roots without passing one.
pub struct BeforeStart {
    pub stmts: Vec<bool>,
    pub reached: Vec<bool>,
}

impl Ordering {
    /// Is an access at `stmt` of `node` ordered with this start's thread?
    pub fn orders(&self, node: u32, stmt: StmtId) -> bool {
        if node == self.caller {
            self.stmts.get(stmt.index()).copied().unwrap_or(false)
        } else if let Some((_, after)) = self.helpers.iter().find(|(n, _)| *n == node) {
            after.get(stmt.index()).copied().unwrap_or(false)
        } else if let Some((_, before)) = self.ancestors.iter().find(|(n, _)| *n == node) {
            before.get(stmt.index()).copied().unwrap_or(false)
        } else {
            !self.reached.get(node as usize).copied().unwrap_or(true)
        }
    }

    /// Is an access at `stmt` of `node` ordered before this start (and so
    /// before the threads its thread starts)?
    fn before_start(&self, node: u32, stmt: StmtId) -> bool {
        let Some(b) = &self.before_start else {
            return false;
        };
        if node == self.caller {
            b.stmts.get(stmt.index()).copied().unwrap_or(false)
        } else if let Some((_, before)) = self.ancestors.iter().find(|(n, _)| *n == node) {
            before.get(stmt.index()).copied().unwrap_or(false)
        } else {
            !b.reached.get(node as usize).copied().unwrap_or(true)
        }
    }

    /// Adds to `out` the roots an access at `stmt` of `node` is ordered
    /// with by this start: its own root, and its descendants when the
    /// access is before the start.
    pub fn ordered_roots_into(&self, node: u32, stmt: StmtId, out: &mut Vec<u32>) {
        if self.orders(node, stmt) {
            out.push(self.root);
        }
        if !self.descendants.is_empty() && self.before_start(node, stmt) {
            out.extend(&self.descendants);
        }
    }
}

/// The roots an access at `stmt` of `node` is ordered with, sorted.
pub fn ordered_roots(orderings: &[Ordering], node: u32, stmt: StmtId) -> Vec<u32> {
    let mut out = Vec::new();
    for o in orderings {
        o.ordered_roots_into(node, stmt, &mut out);
    }
    out.sort_unstable();
    out.dedup();
    out
}

impl Analysis<'_> {
    /// The roots reaching each node. Open programs have one root in
    /// effect: every entry may run at the same time as every other. One
    /// search for all roots on the calling thread: it runs beside
    /// ownership ([`Analysis::reach_beside_ownership`]).
    pub(crate) fn reach_roots(&self, roots: &[Root]) -> Vec<Vec<u32>> {
        let mut reach: Vec<Vec<u32>> = vec![Vec::new(); self.graph.len()];
        if self.open {
            let all: Vec<u32> = roots.iter().flat_map(|r| r.entries.clone()).collect();
            let parent = self.graph.bfs(&all, |_, _| false);
            for (i, p) in parent.iter().enumerate() {
                if p.is_some() {
                    reach[i].push(0);
                }
            }
            return reach;
        }
        // Nearest root first (fewest calls from its entries), so that a
        // pair of accesses is attributed to the threads that reach them
        // most directly rather than to the first root in index order:
        // per node, the roots by (depth, index).
        let entries: Vec<&[u32]> = roots.iter().map(|r| r.entries.as_slice()).collect();
        let successors = self.graph.successors_without(&self.listener_calls);
        nearest_first(&successors, &entries, self.graph.len())
    }

    /// The nodes some root reaches (`!reach_roots(roots)[n].is_empty()`),
    /// by one search from every entry over the same edges, without the
    /// roots of each node.
    pub(crate) fn reached_nodes(&self, roots: &[Root]) -> Vec<bool> {
        let all: Vec<u32> = roots
            .iter()
            .flat_map(|r| r.entries.iter().copied())
            .collect();
        if self.open {
            let parent = self.graph.bfs(&all, |_, _| false);
            return parent.iter().map(Option::is_some).collect();
        }
        let successors = self.graph.successors_without(&self.listener_calls);
        let mut depth = vec![u32::MAX; self.graph.len()];
        successors.depths_into(&all, &mut depth, &mut Vec::new());
        depth.iter().map(|&d| d != u32::MAX).collect()
    }

    /// Each `main` is its own program: a thread start belongs to the
    /// programs whose code (following the threads it starts) reaches it,
    /// so threads of two programs never race, and shared code that two
    /// programs run once each is not a start run twice. Starts reached
    /// from a root of every program (or from none) belong to every program.
    pub(crate) fn assign_programs(&self, roots: &mut [Root]) {
        let programs: BTreeSet<u32> = roots
            .iter()
            .flat_map(|r| r.programs.iter().flatten().copied())
            .collect();
        if programs.len() < 2 {
            return;
        }
        let mut started_at: FxHashMap<u32, Vec<usize>> = FxHashMap::default();
        for (i, r) in roots.iter().enumerate() {
            if let RootKind::Start(t) = r.kind {
                let caller = self.pt.thread_starts().get(t).map(|t| t.caller);
                if let Some(n) = caller.and_then(|c| self.graph.node(c)) {
                    started_at.entry(n).or_default().push(i);
                }
            }
        }
        let sources = |program: Option<u32>| -> Vec<u32> {
            roots
                .iter()
                .filter(|r| !matches!(r.kind, RootKind::Start(_)))
                .filter(|r| match (&r.programs, program) {
                    (Some(ps), Some(p)) => ps.contains(&p),
                    (None, None) => true,
                    _ => false,
                })
                .flat_map(|r| r.entries.iter().copied())
                .collect()
        };
        let every = self.starts_reached(roots, &started_at, sources(None));
        let mut of_start: Vec<Vec<u32>> = vec![Vec::new(); roots.len()];
        for &p in &programs {
            for s in self.starts_reached(roots, &started_at, sources(Some(p))) {
                of_start[s].push(p);
            }
        }
        for (i, (r, ps)) in roots.iter_mut().zip(of_start).enumerate() {
            if matches!(r.kind, RootKind::Start(_)) && !every.contains(&i) && !ps.is_empty() {
                r.programs = Some(ps);
            }
        }
    }

    /// The start roots (indices into `roots`) that code reached from
    /// `sources` starts, following the threads it starts in turn.
    fn starts_reached(
        &self,
        roots: &[Root],
        started_at: &FxHashMap<u32, Vec<usize>>,
        sources: Vec<u32>,
    ) -> BTreeSet<usize> {
        let mut seen = vec![false; self.graph.len()];
        let mut queue = VecDeque::new();
        let mut started = BTreeSet::new();
        for n in sources {
            visit(n, &mut seen, &mut queue);
        }
        while let Some(n) = queue.pop_front() {
            for &(_, c) in &self.graph.callees[n as usize] {
                visit(c, &mut seen, &mut queue);
            }
            for &s in started_at.get(&n).map(Vec::as_slice).unwrap_or(&[]) {
                if started.insert(s) {
                    for &e in &roots[s].entries {
                        visit(e, &mut seen, &mut queue);
                    }
                }
            }
        }
        started
    }

    /// Start/join orderings of the thread starts whose starting method
    /// runs once (closed programs only: the harness of an open program
    /// orders nothing).
    pub(crate) fn orderings(&self, roots: &[Root], reach: &[Vec<u32>]) -> Vec<Ordering> {
        let mut orderings = Vec::new();
        if self.open {
            return orderings;
        }
        let counts = self.run_counts_of(roots);
        let callers = self.callers(roots);
        let starters = self.starters(roots, reach);
        let inputs = OrderInputs {
            counts: &counts,
            callers: &callers,
            starters: &starters,
            predecessors: self.predecessors(),
        };
        for (ri, r) in roots.iter().enumerate() {
            if orderings.len() >= MAX_ORDERED_STARTS {
                break;
            }
            if let Some(mut o) = self.ordering(roots, &inputs, ri, r) {
                o.descendants = crate::start_descendants::descendants(ri as u32, &starters);
                if !o.descendants.is_empty() {
                    o.before_start = self.before_start(roots, &counts, (ri, r), &o.ancestors);
                }
                orderings.push(o);
            }
        }
        orderings
    }

    /// Per root: the roots reaching the node that makes its start (empty
    /// for roots that are not starts).
    fn starters(&self, roots: &[Root], reach: &[Vec<u32>]) -> Vec<Vec<u32>> {
        roots
            .iter()
            .map(|r| {
                let RootKind::Start(i) = r.kind else {
                    return Vec::new();
                };
                self.pt
                    .thread_starts()
                    .get(i)
                    .and_then(|t| self.graph.node(t.caller))
                    .and_then(|n| reach.get(n as usize))
                    .cloned()
                    .unwrap_or_default()
            })
            .collect()
    }

    /// What is ordered before start root `r` (index `ri`) alone: the
    /// caller's statements before the launch (none when the caller runs
    /// more than once: its later runs follow the earlier starts), and the
    /// nodes the other roots reach only through them (or through the
    /// ancestors' statements before the call leading to the start). What
    /// the started thread itself runs comes after its start, so a node it
    /// reaches is never before it (its own code may run at the same time
    /// as the threads it starts).
    fn before_start(
        &self,
        roots: &[Root],
        counts: &[u8],
        (ri, r): (usize, &Root),
        ancestors: &[(u32, Vec<bool>)],
    ) -> Option<BeforeStart> {
        let RootKind::Start(i) = r.kind else {
            return None;
        };
        let t = self.pt.thread_starts().get(i)?;
        let caller = self.graph.node(t.caller)?;
        let body = self.program.body(t.caller.method)?;
        let stmts = if runs_once(counts, caller) {
            crate::happens_before::before(&body, t.site)
        } else {
            vec![false; body.stmts.len()]
        };
        let others = self.other_entries(roots, ri, r);
        let parent = self.graph.bfs(&others, |node, site| {
            (node == caller && stmts.get(site.index()).copied().unwrap_or(false))
                || ancestors
                    .iter()
                    .any(|(n, b)| *n == node && b.get(site.index()).copied().unwrap_or(false))
        });
        let own = self.graph.bfs(&r.entries, |_, _| false);
        Some(BeforeStart {
            stmts,
            reached: parent
                .iter()
                .zip(&own)
                .map(|(p, o)| p.is_some() || o.is_some())
                .collect(),
        })
    }

    /// The entries of the roots other than `ri` that share a program with it.
    fn other_entries(&self, roots: &[Root], ri: usize, r: &Root) -> Vec<u32> {
        roots
            .iter()
            .enumerate()
            .filter(|(j, o)| *j != ri && o.same_program(r))
            .flat_map(|(_, r)| r.entries.clone())
            .collect()
    }

    /// How many times each node may run (see `threads::run_counts`).
    pub(crate) fn run_counts_of(&self, roots: &[Root]) -> Vec<u8> {
        let sources: Vec<(u32, u8)> = roots
            .iter()
            .flat_map(|r| {
                let c = if r.multi { 2 } else { 1 };
                r.entries.iter().map(move |&e| (e, c))
            })
            .collect();
        threads::run_counts(&self.graph, &sources, self.looped_calls())
    }

    /// Per node: its one caller and call site, when it has exactly one
    /// incoming call edge and is no root's entry.
    fn callers(&self, roots: &[Root]) -> Vec<Option<(u32, StmtId)>> {
        let mut incoming: Vec<u8> = vec![0; self.graph.len()];
        let mut caller: Vec<Option<(u32, StmtId)>> = vec![None; self.graph.len()];
        for (a, edges) in self.graph.callees.iter().enumerate() {
            for &(site, b) in edges {
                let i = b as usize;
                incoming[i] = incoming[i].saturating_add(1);
                caller[i] = Some((a as u32, site));
            }
        }
        for e in roots.iter().flat_map(|r| r.entries.iter()) {
            if let Some(n) = incoming.get_mut(*e as usize) {
                *n = u8::MAX;
            }
        }
        caller
            .into_iter()
            .zip(incoming)
            .map(|(c, n)| c.filter(|_| n == 1))
            .collect()
    }

    /// Per node: the nodes that call it.
    fn predecessors(&self) -> Vec<Vec<u32>> {
        let mut preds: Vec<Vec<u32>> = vec![Vec::new(); self.graph.len()];
        for (a, edges) in self.graph.callees.iter().enumerate() {
            for &(_, b) in edges {
                if let Some(p) = preds.get_mut(b as usize) {
                    if p.last() != Some(&(a as u32)) {
                        p.push(a as u32);
                    }
                }
            }
        }
        preds
    }

    /// The entries of each root that is, in its programs, the only one
    /// reaching the starting node `start_node` (each entry running once,
    /// and not already among the `ancestors`), with their statements
    /// before every call that may lead to the start: a `main` that builds
    /// and configures its objects, then calls the method whose callees
    /// start the threads (`init()`, then `connect()`), whatever number of
    /// paths lead from that call to the start. A program with several
    /// `main`s gives each its own: two mains never run together.
    fn starter_entries(
        &self,
        roots: &[Root],
        inputs: &OrderInputs<'_>,
        ri: usize,
        start_node: u32,
        ancestors: &[(u32, Vec<bool>)],
    ) -> Vec<(u32, Vec<bool>)> {
        let starters = inputs.starters.get(ri).map_or(&[][..], Vec::as_slice);
        let sole = |t: u32| {
            let Some(root) = roots.get(t as usize) else {
                return false;
            };
            t as usize != ri
                && !root.multi
                && starters
                    .iter()
                    .filter(|&&o| o != t)
                    .all(|&o| roots.get(o as usize).is_some_and(|x| !x.same_program(root)))
        };
        let entries: Vec<u32> = starters
            .iter()
            .filter(|&&t| sole(t))
            .flat_map(|&t| roots[t as usize].entries.iter().copied())
            .collect();
        if entries.is_empty() {
            return Vec::new();
        }
        let leads = self.leading_to(&inputs.predecessors, start_node);
        let mut out = Vec::new();
        for entry in entries {
            if entry == start_node
                || !runs_once(inputs.counts, entry)
                || ancestors.iter().any(|(n, _)| *n == entry)
            {
                continue;
            }
            let Some(body) = self.program.body(self.graph.nodes[entry as usize].method) else {
                continue;
            };
            let sites: Vec<StmtId> = self.graph.callees[entry as usize]
                .iter()
                .filter(|&&(_, c)| leads.get(c as usize).copied().unwrap_or(false))
                .map(|&(site, _)| site)
                .collect();
            if sites.is_empty() {
                continue;
            }
            let mut before = vec![true; body.stmts.len()];
            for &site in &sites {
                let b = crate::happens_before::before(&body, site);
                for (x, y) in before.iter_mut().zip(b) {
                    *x &= y;
                }
                if let Some(x) = before.get_mut(site.index()) {
                    *x = false;
                }
            }
            out.push((entry, before));
        }
        out
    }

    /// Per node: it is `target` or may call it (through any calls).
    fn leading_to(&self, predecessors: &[Vec<u32>], target: u32) -> Vec<bool> {
        let mut leads = vec![false; self.graph.len()];
        let mut work = vec![target];
        if let Some(t) = leads.get_mut(target as usize) {
            *t = true;
        }
        while let Some(n) = work.pop() {
            for &p in predecessors.get(n as usize).map_or(&[][..], Vec::as_slice) {
                if let Some(l) = leads.get_mut(p as usize) {
                    if !*l {
                        *l = true;
                        work.push(p);
                    }
                }
            }
        }
        leads
    }

    /// The chain of single callers above the starting node `from`, each
    /// running once, with its statements before the call that leads to
    /// the start (they happen before the start, whatever path the start
    /// takes below them).
    fn ancestors(
        &self,
        counts: &[u8],
        callers: &[Option<(u32, StmtId)>],
        from: u32,
    ) -> Vec<(u32, Vec<bool>)> {
        let mut out: Vec<(u32, Vec<bool>)> = Vec::new();
        let mut node = from;
        while out.len() < MAX_ANCESTORS {
            let Some((parent, site)) = callers.get(node as usize).copied().flatten() else {
                break;
            };
            if parent == from || out.iter().any(|(n, _)| *n == parent) {
                break;
            }
            if counts.get(parent as usize).is_none_or(|&c| c >= 2) {
                break;
            }
            let Some(body) = self.program.body(self.graph.nodes[parent as usize].method) else {
                break;
            };
            out.push((parent, crate::happens_before::before(&body, site)));
            node = parent;
        }
        out
    }

    fn ordering(
        &self,
        roots: &[Root],
        inputs: &OrderInputs<'_>,
        ri: usize,
        r: &Root,
    ) -> Option<Ordering> {
        let RootKind::Start(i) = r.kind else {
            return None;
        };
        let counts = inputs.counts;
        let t = self.pt.thread_starts().get(i)?;
        let caller = self.graph.node(t.caller)?;
        let body = self.program.body(t.caller.method)?;
        let mut ancestors = self.ancestors(counts, inputs.callers, caller);
        ancestors.extend(self.starter_entries(roots, inputs, ri, caller, &ancestors));
        let ordered = if !runs_once(counts, caller) {
            // A caller that runs twice interleaves its runs with the
            // threads its earlier runs started: none of its statements is
            // ordered. What its one caller did before calling it the first
            // time still is (hsqldb's `Server.run` fills its tables, then
            // calls `handleConnection` once per accepted socket).
            if ancestors.is_empty() {
                return None;
            }
            crate::happens_before::Ordered {
                stmts: vec![false; body.stmts.len()],
                helpers: Vec::new(),
            }
        } else if threads::periodic(t) {
            // A periodic task runs again and again, each time after its
            // schedule: what the caller did before scheduling it precedes
            // every run, and no wait marks its end.
            crate::happens_before::Ordered {
                stmts: crate::happens_before::before(&body, t.site),
                helpers: Vec::new(),
            }
        } else {
            crate::happens_before::ordered_statements(self.program, self.pt, t, &body)
        };
        let stmts = ordered.stmts;
        let before_in_ancestor = |node: u32, site: StmtId| {
            ancestors
                .iter()
                .any(|(n, before)| *n == node && before.get(site.index()).copied().unwrap_or(false))
        };
        let others = self.other_entries(roots, ri, r);
        let parent = self.graph.bfs(&others, |node, site| {
            (node == caller && stmts.get(site.index()).copied().unwrap_or(false))
                || before_in_ancestor(node, site)
        });
        let helpers = if ordered.helpers.is_empty() {
            Vec::new()
        } else {
            // A helper is ordered only where nothing but the waiting call
            // reaches it.
            let sites: Vec<StmtId> = ordered.helpers.iter().map(|h| h.0).collect();
            let without = self.graph.bfs(&others, |node, site| {
                (node == caller
                    && (stmts.get(site.index()).copied().unwrap_or(false) || sites.contains(&site)))
                    || before_in_ancestor(node, site)
            });
            ordered
                .helpers
                .into_iter()
                .filter_map(|(_, mc, after)| {
                    let n = self.graph.node(mc)?;
                    without.get(n as usize)?.is_none().then_some((n, after))
                })
                .collect()
        };
        Some(Ordering {
            root: ri as u32,
            caller,
            stmts,
            reached: parent.iter().map(Option::is_some).collect(),
            helpers,
            ancestors,
            descendants: Vec::new(),
            before_start: None,
        })
    }
}

/// What the orderings of all starts share.
struct OrderInputs<'a> {
    /// Per node: how many times it may run ([`threads::run_counts`]).
    counts: &'a [u8],
    /// Per node: its one caller and call site, if it has one.
    callers: &'a [Option<(u32, StmtId)>],
    /// Per root: the roots reaching the node that starts it.
    starters: &'a [Vec<u32>],
    /// Per node: the nodes calling it.
    predecessors: Vec<Vec<u32>>,
}

/// Does `node` run at most once (by `threads::run_counts`)?
fn runs_once(counts: &[u8], node: u32) -> bool {
    counts.get(node as usize).is_some_and(|&c| c < 2)
}

/// The roots reaching each of `len` nodes, ordered by (depth, root
/// index): the breadth-first searches of all roots at once, one level at
/// a time, with a bit per root on each node (what reached it so far, and
/// what reached it at the current level). A node's list gets the roots of
/// level `d` in index order before those of level `d + 1`, so it comes
/// out in order without sorting, and an edge is followed once per level
/// for all roots rather than once per root.
fn nearest_first(
    successors: &threads::Successors,
    entries: &[&[u32]],
    len: usize,
) -> Vec<Vec<u32>> {
    let mut reach: Vec<Vec<u32>> = vec![Vec::new(); len];
    search_levels(successors, entries, len, |n, _, level| {
        if let Some(r) = reach.get_mut(n as usize) {
            push_roots(level, r);
        }
    });
    reach
}

/// The breadth-first searches of all `entries` at once, one level at a
/// time: `visit(node, depth, level)` for every node some root reaches
/// first at `depth`, with those roots in `level` (the node's row of bits).
fn search_levels(
    successors: &threads::Successors,
    entries: &[&[u32]],
    len: usize,
    mut visit: impl FnMut(u32, u32, &[u64]),
) {
    let mut depth = 0u32;
    let mut bits = RootBits::new(entries.len(), len);
    let mut active: Vec<u32> = Vec::new();
    let mut next_active: Vec<u32> = Vec::new();
    for (ri, root_entries) in entries.iter().enumerate() {
        for &e in *root_entries {
            if (e as usize) < len && !bits.seen_has(e, ri) {
                bits.enter(e, ri, &mut active);
            }
        }
    }
    // The nonzero words of the level's row of the node being expanded,
    // copied once per node (a call to itself writes the next level of
    // the same row): with a root per harness entry, a level usually holds
    // a few roots of thousands, and only their words of each callee's
    // row are touched.
    let mut from: Vec<(usize, u64)> = Vec::with_capacity(bits.words);
    // Per node: listed in `next_active` (its next level gained a root).
    let mut listed = vec![false; len];
    while !active.is_empty() {
        for &n in &active {
            visit(n, depth, bits.level(n));
        }
        depth += 1;
        for &n in &active {
            from.clear();
            from.extend(
                bits.level(n)
                    .iter()
                    .enumerate()
                    .filter(|(_, &w)| w != 0)
                    .map(|(k, &w)| (k, w)),
            );
            for &c in successors.of(n) {
                if bits.add_unseen(c, &from) {
                    if let Some(l) = listed.get_mut(c as usize) {
                        if !std::mem::replace(l, true) {
                            next_active.push(c);
                        }
                    }
                }
            }
        }
        for &c in &next_active {
            bits.see_next(c);
            if let Some(l) = listed.get_mut(c as usize) {
                *l = false;
            }
        }
        for &n in &active {
            bits.clear_level(n);
        }
        bits.advance();
        std::mem::swap(&mut active, &mut next_active);
        next_active.clear();
    }
}

/// Per node, three sets of roots as bits, side by side (`words` words
/// each): the roots seen so far, and the roots of the current and of the
/// next level, whose places swap at each level. An edge reads and writes
/// one node's row, one stretch of memory rather than three apart.
struct RootBits {
    words: usize,
    bits: Vec<u64>,
    /// Which of the places 1 and 2 holds the current level.
    current: usize,
}

impl RootBits {
    fn new(roots: usize, nodes: usize) -> RootBits {
        let words = roots.div_ceil(64);
        RootBits {
            words,
            bits: vec![0; words.saturating_mul(3).saturating_mul(nodes)],
            current: 1,
        }
    }

    /// The words of place `place` of `node`'s row.
    fn place(&self, node: u32, place: usize) -> std::ops::Range<usize> {
        let at = (node as usize * 3 + place) * self.words;
        at..at + self.words
    }

    fn level(&self, node: u32) -> &[u64] {
        self.bits.get(self.place(node, self.current)).unwrap_or(&[])
    }

    fn seen_has(&self, node: u32, ri: usize) -> bool {
        self.bits
            .get(self.place(node, 0))
            .and_then(|row| row.get(ri / 64))
            .is_some_and(|w| w & (1 << (ri % 64)) != 0)
    }

    /// Marks root `ri` as seen at `node` and in the current level, listing
    /// the node in `listed` when its level was empty.
    fn enter(&mut self, node: u32, ri: usize, listed: &mut Vec<u32>) {
        if self.level(node).iter().all(|&w| w == 0) {
            listed.push(node);
        }
        for place in [0, self.current] {
            let range = self.place(node, place);
            if let Some(w) = self.bits.get_mut(range).and_then(|r| r.get_mut(ri / 64)) {
                *w |= 1 << (ri % 64);
            }
        }
    }

    /// Adds to `node`'s next level the roots of `from` (nonzero words by
    /// index) it has not seen; did it gain a root?
    fn add_unseen(&mut self, node: u32, from: &[(usize, u64)]) -> bool {
        let Some((seen, next_row)) = self.seen_and_next(node) else {
            return false;
        };
        let mut added = false;
        for &(k, f) in from {
            let (Some(x), Some(&s)) = (next_row.get_mut(k), seen.get(k)) else {
                continue;
            };
            let new = f & !s;
            added |= new != 0;
            *x |= new;
        }
        added
    }

    /// Adds `node`'s next level to what it has seen.
    fn see_next(&mut self, node: u32) {
        let Some((seen, next_row)) = self.seen_and_next(node) else {
            return;
        };
        for (s, &x) in seen.iter_mut().zip(next_row.iter()) {
            *s |= x;
        }
    }

    /// `node`'s seen row and its next level, side by side in its row.
    fn seen_and_next(&mut self, node: u32) -> Option<(&mut [u64], &mut [u64])> {
        let w = self.words;
        let next = 3 - self.current;
        let at = node as usize * 3 * w;
        let row = self.bits.get_mut(at..at + 3 * w)?;
        let (seen, levels) = row.split_at_mut(w);
        Some((seen, &mut levels[(next - 1) * w..next * w]))
    }

    fn clear_level(&mut self, node: u32) {
        let range = self.place(node, self.current);
        if let Some(row) = self.bits.get_mut(range) {
            row.fill(0);
        }
    }

    /// The next level becomes the current one.
    fn advance(&mut self) {
        self.current = 3 - self.current;
    }
}

/// Appends the roots of a row of bits to `out`, in index order.
fn push_roots(row: &[u64], out: &mut Vec<u32>) {
    // Room for the whole level at once: grown push by push, the list of a
    // node many roots reach was copied at every doubling (the search's
    // `memmove` on hsqldb). `reserve` still doubles when a node's levels
    // come a few roots at a time.
    let count: u32 = row.iter().map(|w| w.count_ones()).sum();
    out.reserve(count as usize);
    for (k, &w) in row.iter().enumerate() {
        let mut w = w;
        while w != 0 {
            out.push((k * 64) as u32 + w.trailing_zeros());
            w &= w - 1;
        }
    }
}

/// Queues node `n` the first time it is seen.
fn visit(n: u32, seen: &mut [bool], queue: &mut VecDeque<u32>) {
    if let Some(s) = seen.get_mut(n as usize) {
        if !*s {
            *s = true;
            queue.push_back(n);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::threads::Successors;

    /// Per node, the roots by (depth, index), one search per root.
    fn one_search_per_root(succ: &Successors, entries: &[&[u32]], len: usize) -> Vec<Vec<u32>> {
        let mut by_depth: Vec<Vec<(u32, u32)>> = vec![Vec::new(); len];
        for (ri, e) in entries.iter().enumerate() {
            let mut depth = vec![u32::MAX; len];
            let mut reached = Vec::new();
            succ.depths_into(e, &mut depth, &mut reached);
            for n in reached {
                by_depth[n as usize].push((depth[n as usize], ri as u32));
            }
        }
        by_depth
            .into_iter()
            .map(|mut l| {
                l.sort_unstable();
                l.into_iter().map(|(_, r)| r).collect()
            })
            .collect()
    }

    #[test]
    fn all_roots_at_once_match_one_search_per_root() {
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move |m: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % m) as u32
        };
        for round in 0..40u64 {
            let len = 1 + next(90) as usize;
            let edges = next(4 * len as u64 + 1) as usize;
            let mut lists: Vec<Vec<u32>> = vec![Vec::new(); len];
            for _ in 0..edges {
                let a = next(len as u64) as usize;
                lists[a].push(next(len as u64));
            }
            let succ = Successors::from_lists(lists);
            // More than 64 roots in some rounds: rows of several words.
            let roots = 1 + next(if round % 4 == 0 { 150 } else { 12 }) as usize;
            let owned: Vec<Vec<u32>> = (0..roots)
                .map(|_| (0..next(3)).map(|_| next(len as u64 + 2)).collect())
                .collect();
            let entries: Vec<&[u32]> = owned.iter().map(Vec::as_slice).collect();
            let all = nearest_first(&succ, &entries, len);
            assert_eq!(
                all,
                one_search_per_root(&succ, &entries, len),
                "round {round}"
            );
        }
    }
}
