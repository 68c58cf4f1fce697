//! GoodLock-style lock-order graph of a run (Havelund; Bensalem & Havelund's
//! gate locks and thread segments): potential deadlocks the run did not hit.
//!
//! Nodes are the run's lock objects — a Java monitor and a
//! `java.util.concurrent` lock on the same object are different locks.
//! When a thread takes lock `L2` outright (a reentrant re-acquisition
//! changes nothing) while holding `L1`, the graph gets an edge `L1 → L2`
//! labelled with the thread, the other locks it holds (the *gate* locks),
//! the thread's *segment* (its start/join vector clock), and where both
//! locks were taken. A cycle is a potential deadlock when its edges come
//! from different threads, no two of them are ordered by start/join (a
//! thread started after the other was joined cannot wait for it), no two
//! of them share a gate lock (which would keep them apart), and each lock
//! is held and awaited in modes that exclude each other (two read views of
//! a read-write lock do not).
//!
//! Cycles of two to [`MAX_CYCLE`] locks are searched, each once (from its
//! smallest lock), with a bounded backtracking over edge labels; the
//! search stops after [`MAX_STEPS`] steps or [`MAX_CYCLES`] cycles and
//! says so. An order is kept once per thread, segment and gate set (the
//! first acquisition sites seen name it; a gate set that contains the
//! gates of a kept label adds nothing), at most [`MAX_LABELS`] per pair. The trace does not tell `tryLock` from `lock`, so a lock taken
//! with a successful `tryLock` adds edges as well (documented limit).

use std::collections::{BTreeMap, BTreeSet};

use lockstep_trace::{Event, LockKind, ObjId, SiteId, ThreadId};

use crate::context::{LockStep, StackId, Tid};
use crate::fast_hash::FastMap;
use crate::vc::{ForkJoin, VectorClock};

/// The longest cycle searched (number of locks).
pub const MAX_CYCLE: usize = 4;
/// Search budget: label combinations tried over the whole graph.
pub const MAX_STEPS: u64 = 2_000_000;
/// At most this many potential deadlocks are reported per run.
pub const MAX_CYCLES: usize = 100;
/// At most this many distinct labels are kept per pair of locks.
pub const MAX_LABELS: usize = 64;

/// A lock of the graph: the object and whether it is its monitor (else a
/// `java.util.concurrent` lock, any view).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Node {
    /// The lock object.
    pub obj: ObjId,
    /// Its Java monitor, rather than the `java.util.concurrent` lock it is.
    pub monitor: bool,
}

impl Node {
    fn of(obj: ObjId, kind: LockKind) -> Node {
        Node {
            obj,
            monitor: kind == LockKind::Monitor,
        }
    }
}

/// A lock a thread holds or takes, and where.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Taken {
    /// The lock object.
    pub lock: ObjId,
    /// The mode.
    pub kind: LockKind,
    /// Where it was taken.
    pub site: SiteId,
    /// The call stack then.
    pub stack: StackId,
}

impl Taken {
    /// Its node in the graph.
    pub fn node(&self) -> Node {
        Node::of(self.lock, self.kind)
    }
}

/// Do two holds of one lock exclude each other? Only two read views share.
fn excludes(a: LockKind, b: LockKind) -> bool {
    !(a == LockKind::Read && b == LockKind::Read)
}

/// One observed lock order: `thread` took `to` while holding `from`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Edge {
    /// Internal thread index.
    pub thread: Tid,
    /// The lock held.
    pub from: Taken,
    /// The lock taken.
    pub to: Taken,
    /// The other locks held then (gate locks), sorted.
    pub gates: Vec<(ObjId, LockKind)>,
    /// Index of the thread's start/join clock in [`LockOrder::segments`].
    pub segment: u32,
}

impl Edge {
    /// Do the two edges share a gate lock held in excluding modes?
    fn shares_gate(&self, other: &Edge) -> bool {
        self.gates.iter().any(|&(l, k)| {
            other
                .gates
                .iter()
                .any(|&(m, j)| m == l && Node::of(l, k) == Node::of(m, j) && excludes(k, j))
        })
    }
}

#[derive(Debug, Default)]
struct ThreadLocks {
    held: Vec<Taken>,
    segment: u32,
}

/// A potential deadlock: edges `e0: L0 → L1, e1: L1 → L2, …, L(n-1) → L0`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cycle {
    /// The edges, in cycle order.
    pub edges: Vec<Edge>,
}

/// The lock-order graph of one run and the per-thread state that builds it.
#[derive(Debug, Default)]
pub struct LockOrder {
    threads: Vec<ThreadLocks>,
    clocks: Vec<VectorClock>,
    fork_join: ForkJoin,
    /// `(thread, start/join clock)` of every segment.
    segments: Vec<(Tid, VectorClock)>,
    /// Edges per `(from, to)` pair, in order of first observation; one
    /// per thread, segment and gate set (the first sites seen name it).
    edges: FastMap<(Node, Node), Vec<Edge>>,
    /// Reused buffer for the gate set of an acquisition.
    scratch: Vec<(ObjId, LockKind)>,
    /// Labels not kept because a pair had [`MAX_LABELS`] already.
    pub dropped_labels: u64,
}

/// Counters of the graph, for `--stats`-like notes and benchmarks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GraphSize {
    /// Distinct locks with an edge.
    pub locks: usize,
    /// Distinct ordered pairs of locks.
    pub pairs: usize,
    /// Distinct labelled edges kept.
    pub edges: usize,
}

impl GraphSize {
    /// Adds the counts of another graph (several traces).
    pub fn add(&mut self, other: GraphSize) {
        self.locks += other.locks;
        self.pairs += other.pairs;
        self.edges += other.edges;
    }
}

impl LockOrder {
    /// Makes sure thread `t` has state (its first segment, clock entry 1).
    pub fn ensure(&mut self, t: Tid) {
        while self.threads.len() <= t as usize {
            let u = self.threads.len() as Tid;
            let mut c = VectorClock::default();
            c.set(u, 1);
            self.threads.push(ThreadLocks {
                held: Vec::new(),
                segment: self.segments.len() as u32,
            });
            self.segments.push((u, c.clone()));
            self.clocks.push(c);
        }
    }

    /// Takes one event of thread `t` (recorder id `thread`) after the
    /// context's `step` for it, with the thread's current call stack.
    pub fn step(&mut self, t: Tid, thread: ThreadId, e: &Event, step: LockStep, stack: StackId) {
        match step {
            LockStep::Acquired(lock, kind) => {
                let site = match *e {
                    Event::Acquire { site, .. } => site,
                    _ => 0,
                };
                self.acquired(
                    t,
                    Taken {
                        lock,
                        kind,
                        site,
                        stack,
                    },
                );
            }
            LockStep::Released(lock, kind) => {
                let held = &mut self.threads[t as usize].held;
                if let Some(i) = held.iter().rposition(|h| h.lock == lock && h.kind == kind) {
                    held.remove(i);
                }
            }
            LockStep::None => self.fork_join_step(t, thread, e),
        }
    }

    fn fork_join_step(&mut self, t: Tid, thread: ThreadId, e: &Event) {
        if !matches!(
            e,
            Event::ThreadStart { .. }
                | Event::ThreadBegin { .. }
                | Event::ThreadJoin { .. }
                | Event::ThreadEnd
        ) {
            return;
        }
        let c = &mut self.clocks[t as usize];
        let before = c.clone();
        self.fork_join.step(c, t, thread, e);
        if *c != before {
            self.threads[t as usize].segment = self.segments.len() as u32;
            self.segments.push((t, c.clone()));
        }
    }

    fn acquired(&mut self, t: Tid, to: Taken) {
        let LockOrder {
            threads,
            edges,
            scratch,
            dropped_labels,
            ..
        } = self;
        let state = &mut threads[t as usize];
        for (i, from) in state.held.iter().enumerate() {
            if from.node() == to.node() {
                // The other view of a read-write lock held by the same thread.
                continue;
            }
            scratch.clear();
            scratch.extend(
                state
                    .held
                    .iter()
                    .enumerate()
                    .filter(|&(j, _)| j != i)
                    .map(|(_, g)| (g.lock, g.kind)),
            );
            scratch.sort_unstable();
            let labels = edges.entry((from.node(), to.node())).or_default();
            // A label of the same thread and segment with fewer gates pairs
            // with everything this one would: this one adds nothing.
            let known = labels.iter().any(|e| {
                e.thread == t
                    && e.segment == state.segment
                    && e.gates.iter().all(|g| scratch.binary_search(g).is_ok())
            });
            if known {
                continue;
            }
            if labels.len() >= MAX_LABELS {
                *dropped_labels += 1;
                continue;
            }
            labels.push(Edge {
                thread: t,
                from: *from,
                to,
                gates: scratch.clone(),
                segment: state.segment,
            });
        }
        state.held.push(to);
    }

    /// The locks thread `t` holds now, outermost first.
    pub fn held(&self, t: Tid) -> &[Taken] {
        self.threads
            .get(t as usize)
            .map_or(&[], |s| s.held.as_slice())
    }

    /// Sizes of the graph.
    pub fn size(&self) -> GraphSize {
        let locks: BTreeSet<Node> = self.edges.keys().flat_map(|&(a, b)| [a, b]).collect();
        GraphSize {
            locks: locks.len(),
            pairs: self.edges.len(),
            edges: self.edges.values().map(Vec::len).sum(),
        }
    }

    /// Are the two edges ordered by thread start/join?
    fn ordered(&self, a: &Edge, b: &Edge) -> bool {
        let (ta, ca) = &self.segments[a.segment as usize];
        let (tb, cb) = &self.segments[b.segment as usize];
        ca.get(*ta) <= cb.get(*ta) || cb.get(*tb) <= ca.get(*tb)
    }

    /// Can the two edges run together in a deadlock (as neighbours or not)?
    fn compatible(&self, a: &Edge, b: &Edge) -> bool {
        a.thread != b.thread && !a.shares_gate(b) && !self.ordered(a, b)
    }

    /// The potential deadlocks, in a deterministic order, and whether the
    /// search stopped at its budget.
    pub fn cycles(&self) -> (Vec<Cycle>, bool) {
        let mut search = Search {
            graph: self,
            adjacency: BTreeMap::new(),
            found: Vec::new(),
            steps: 0,
            exhausted: false,
        };
        let mut pairs: Vec<(Node, Node)> = self.edges.keys().copied().collect();
        pairs.sort_unstable();
        for (a, b) in pairs {
            search.adjacency.entry(a).or_default().push(b);
        }
        let starts: Vec<Node> = search.adjacency.keys().copied().collect();
        for s in starts {
            if search.stop() {
                break;
            }
            let mut path = vec![s];
            search.nodes(&mut path);
        }
        (search.found, search.exhausted)
    }
}

struct Search<'a> {
    graph: &'a LockOrder,
    adjacency: BTreeMap<Node, Vec<Node>>,
    found: Vec<Cycle>,
    steps: u64,
    exhausted: bool,
}

impl Search<'_> {
    fn stop(&self) -> bool {
        self.exhausted || self.found.len() >= MAX_CYCLES
    }

    fn tick(&mut self) -> bool {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            self.exhausted = true;
        }
        !self.exhausted
    }

    /// Extends the simple path `path` (all nodes after the first are
    /// greater than it, so each cycle is met once, from its smallest lock).
    fn nodes(&mut self, path: &mut Vec<Node>) {
        let Some(&last) = path.last() else { return };
        let next = self.adjacency.get(&last).cloned().unwrap_or_default();
        for n in next {
            if self.stop() || !self.tick() {
                return;
            }
            if n == path[0] && path.len() >= 2 {
                self.labels(path);
            } else if n > path[0] && !path.contains(&n) && path.len() < MAX_CYCLE {
                path.push(n);
                self.nodes(path);
                path.pop();
            }
        }
    }

    /// Finds one choice of labels that makes the lock cycle `path` a
    /// potential deadlock, and records it.
    fn labels(&mut self, path: &[Node]) {
        let graph = self.graph;
        let pairs: Vec<&[Edge]> = (0..path.len())
            .map(|i| {
                let key = (path[i], path[(i + 1) % path.len()]);
                graph.edges.get(&key).map_or(&[][..], Vec::as_slice)
            })
            .collect();
        let mut chosen: Vec<&Edge> = Vec::with_capacity(path.len());
        if self.choose(&pairs, &mut chosen) {
            self.found.push(Cycle {
                edges: chosen.into_iter().cloned().collect(),
            });
        }
    }

    fn choose<'e>(&mut self, pairs: &[&'e [Edge]], chosen: &mut Vec<&'e Edge>) -> bool {
        let i = chosen.len();
        if i == pairs.len() {
            // Closing the cycle: the last edge's lock is held by the first.
            return excludes(chosen[i - 1].to.kind, chosen[0].from.kind);
        }
        for e in pairs[i] {
            if !self.tick() {
                return false;
            }
            let fits = chosen.iter().all(|c| self.graph.compatible(c, e))
                && chosen
                    .last()
                    .is_none_or(|p| excludes(p.to.kind, e.from.kind));
            if fits {
                chosen.push(e);
                if self.choose(pairs, chosen) {
                    return true;
                }
                chosen.pop();
            }
        }
        false
    }
}
