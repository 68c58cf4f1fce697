//! Conflict serializability of the observed run (Velodrome, Flanagan,
//! Freund and Yi 2008; beyond paper 003): a graph whose nodes are
//! transaction instances (unary ones included), with an edge for program
//! order, for a release and the next acquire of the same lock, and for
//! conflicting accesses in trace order (a write before a later access, a
//! read before a later write). A cycle means the run itself was not
//! equivalent to any serial one: an atomicity violation that happened, not
//! a potential one. Start/join and hand-off edges are not added (fewer
//! edges can only hide a cycle, never make one up).

use crate::atomic_log::{AtomicLog, LogKind};
use crate::fast_hash::{FastMap, FastSet};
use crate::race::VarId;
use crate::transactions::Txn;

/// Nodes visited at most per cycle search.
const MAX_SEARCH: usize = 100_000;

/// A cycle of transactions; each edge with the two events that made it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cycle {
    /// The transaction that closed the cycle (a real one).
    pub txn: usize,
    /// The edges `(from, to, from event, to event)`, starting at `txn`.
    pub edges: Vec<(usize, usize, u32, u32)>,
}

#[derive(Debug, Default)]
struct Graph {
    /// Out-edges per node, with the witnessing events.
    out: FastMap<u32, Vec<(u32, u32, u32)>>,
    edges: FastSet<(u32, u32)>,
}

impl Graph {
    /// Adds `from → to` (witnessed by events `a` then `b`); the path back
    /// from `to` to `from` when the edge closes a cycle.
    fn add(&mut self, from: u32, to: u32, a: u32, b: u32) -> Option<Vec<(u32, u32, u32, u32)>> {
        if from == to || from == u32::MAX || to == u32::MAX || !self.edges.insert((from, to)) {
            return None;
        }
        self.out.entry(from).or_default().push((to, a, b));
        let mut path = self.path(to, from)?;
        path.insert(0, (from, to, a, b));
        Some(path)
    }

    /// A path `start →* goal` (breadth-first, bounded).
    fn path(&self, start: u32, goal: u32) -> Option<Vec<(u32, u32, u32, u32)>> {
        let mut came: FastMap<u32, (u32, u32, u32)> = FastMap::default();
        let mut queue = std::collections::VecDeque::from([start]);
        let mut visited = 0usize;
        while let Some(n) = queue.pop_front() {
            visited += 1;
            if visited > MAX_SEARCH {
                return None;
            }
            for &(m, a, b) in self.out.get(&n).into_iter().flatten() {
                if m == start || came.contains_key(&m) {
                    continue;
                }
                came.insert(m, (n, a, b));
                if m == goal {
                    let mut path = Vec::new();
                    let mut at = m;
                    while at != start {
                        let (prev, a, b) = came[&at];
                        path.push((prev, at, a, b));
                        at = prev;
                    }
                    path.reverse();
                    return Some(path);
                }
                queue.push_back(m);
            }
        }
        None
    }
}

/// Per variable: the last write and the reads since (node, event).
#[derive(Debug, Default)]
struct Shadow {
    write: Option<(u32, u32)>,
    reads: Vec<(u32, u32)>,
}

/// Builds the graph over the log in trace order; one cycle per method.
pub fn check(txns: &[Txn], of_event: &[u32], log: &AtomicLog) -> Vec<Cycle> {
    let mut g = Graph::default();
    let mut last_node: FastMap<u32, (u32, u32)> = FastMap::default();
    let mut released: FastMap<u64, (u32, u32)> = FastMap::default();
    let mut vars: FastMap<VarId, Shadow> = FastMap::default();
    let mut found = Vec::new();
    let mut reported: FastSet<u32> = FastSet::default();
    for (i, e) in log.events.iter().enumerate() {
        let node = of_event.get(i).copied().unwrap_or(u32::MAX);
        if node == u32::MAX {
            continue;
        }
        let i = i as u32;
        let mut new_edges: Vec<(u32, u32)> = Vec::new();
        if let Some(&(prev, at)) = last_node.get(&e.thread) {
            if prev != node {
                new_edges.push((prev, at));
            }
        }
        last_node.insert(e.thread, (node, i));
        match e.kind {
            LogKind::Acquire(lock) => new_edges.extend(released.get(&lock).copied()),
            LogKind::Release(lock) => {
                released.insert(lock, (node, i));
            }
            LogKind::Access { var, write, .. } => {
                let s = vars.entry(var).or_default();
                new_edges.extend(s.write);
                if write {
                    new_edges.append(&mut s.reads);
                    s.write = Some((node, i));
                } else if !s.reads.iter().any(|r| r.0 == node) {
                    s.reads.push((node, i));
                }
            }
            LogKind::Enter(_) | LogKind::Exit(_) => {}
        }
        for (from, at) in new_edges {
            let Some(path) = g.add(from, node, at, i) else {
                continue;
            };
            let Some(closing) = path
                .iter()
                .map(|p| p.1)
                .find(|&n| txns.get(n as usize).is_some_and(|t| t.method.is_some()))
            else {
                continue;
            };
            let method = txns[closing as usize].method.unwrap_or(u32::MAX);
            if reported.insert(method) {
                let start = path.iter().position(|p| p.0 == closing).unwrap_or(0);
                let mut edges: Vec<(usize, usize, u32, u32)> = path
                    .iter()
                    .map(|&(f, t, a, b)| (f as usize, t as usize, a, b))
                    .collect();
                edges.rotate_left(start);
                found.push(Cycle {
                    txn: closing as usize,
                    edges,
                });
            }
        }
    }
    found
}
