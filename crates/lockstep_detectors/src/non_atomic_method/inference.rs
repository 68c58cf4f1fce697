//! The least consistent atomicity assignment (paper 004 §5, Fig. 10) and
//! the lock contexts every method is called in (§8's "non-atomic at some
//! call site").
//!
//! Every method starts at `const`; a worklist re-evaluates a method only
//! when the atomicity of one of its callees changed. The transfer
//! functions are monotone and the atomicities range over a finite set
//! (bounded lock variables per method), so the iteration reaches the
//! least fixed point; a per-method update cap guards against a
//! non-monotone corner (it then settles at the worst value seen).
//!
//! Then, top-down from the entry methods (called with no lock held), the
//! held sets each method is reached with: at a call site, the callee's
//! lock variables are instantiated with the receiver and arguments and
//! evaluated against the caller's held set and the locks it takes itself.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use lockstep_ir::StmtId;
use lockstep_program::MethodId;
use rustc_hash::FxHashMap;

use super::atomicity::Atomicity;
use super::transfer::{callee_mask, evaluate, EventKind, Skeleton, Summary};

/// Most re-evaluations of one method before it is forced to its worst value.
const MAX_UPDATES: u32 = 24;

/// How a method is reached with a held set: from an entry, or at a call site.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Reached {
    Entry,
    /// Caller (skeleton index), call statement, caller's mask.
    Call(usize, StmtId, usize),
}

pub struct Inference {
    pub skeletons: Vec<Skeleton>,
    pub index: FxHashMap<MethodId, usize>,
    pub summaries: Vec<Arc<Summary>>,
    /// Per skeleton: the skeletons calling it.
    pub callers: Vec<Vec<usize>>,
    /// Per skeleton: its callees.
    pub callees: Vec<Vec<usize>>,
    /// Method evaluations until the fixed point.
    pub evaluations: usize,
    /// Per skeleton: each held-set mask it is reached with, and the first way.
    pub reach: Vec<BTreeMap<usize, Reached>>,
}

impl Inference {
    /// Runs the fixed point over `skeletons` (sorted by method).
    pub fn solve(mut skeletons: Vec<Skeleton>) -> Inference {
        skeletons.sort_by_key(|s| s.method);
        let index: FxHashMap<MethodId, usize> = skeletons
            .iter()
            .enumerate()
            .map(|(i, s)| (s.method, i))
            .collect();
        let n = skeletons.len();
        let mut callers: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut callees: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (i, sk) in skeletons.iter().enumerate() {
            for e in &sk.events {
                if let EventKind::Call(site) = &e.kind {
                    for c in &site.callees {
                        if let Some(&j) = index.get(c) {
                            callees[i].push(j);
                            callers[j].push(i);
                        }
                    }
                }
            }
        }
        for v in callers.iter_mut().chain(callees.iter_mut()) {
            v.sort_unstable();
            v.dedup();
        }
        let bottom = Arc::new(Summary::constant());
        let mut summaries: Vec<Arc<Summary>> = (0..n).map(|_| bottom.clone()).collect();
        let mut updates = vec![0u32; n];
        let mut queue: VecDeque<usize> = (0..n).collect();
        let mut queued = vec![true; n];
        let mut evaluations = 0usize;
        while let Some(i) = queue.pop_front() {
            queued[i] = false;
            evaluations += 1;
            let lookup = |m: MethodId| index.get(&m).map(|&j| summaries[j].clone());
            let mut new = evaluate(&skeletons[i], &lookup);
            if new.atom == summaries[i].atom && new.witnesses == summaries[i].witnesses {
                continue;
            }
            updates[i] += 1;
            if updates[i] > MAX_UPDATES {
                if updates[i] > MAX_UPDATES + 1 {
                    continue;
                }
                new.atom = Atomicity::basic(new.atom.worst().join(summaries[i].atom.worst()));
            }
            let atom_changed = new.atom != summaries[i].atom;
            summaries[i] = Arc::new(new);
            if atom_changed {
                for &c in &callers[i] {
                    if !queued[c] {
                        queued[c] = true;
                        queue.push_back(c);
                    }
                }
            }
        }
        Inference {
            skeletons,
            index,
            summaries,
            callers,
            callees,
            evaluations,
            reach: vec![BTreeMap::new(); n],
        }
    }

    /// The held sets every method is reached with from `entries`.
    pub fn propagate(&mut self, entries: &[usize]) {
        let n = self.skeletons.len();
        let mut reach: Vec<BTreeMap<usize, Reached>> = vec![BTreeMap::new(); n];
        let mut work: VecDeque<(usize, usize)> = VecDeque::new();
        for &e in entries {
            if e < n && !reach[e].contains_key(&0) {
                reach[e].insert(0, Reached::Entry);
                work.push_back((e, 0));
            }
        }
        while let Some((i, mask)) = work.pop_front() {
            let sk = &self.skeletons[i];
            let summary = &self.summaries[i];
            let held = |v: &super::transfer::LockVar| {
                summary
                    .vars
                    .iter()
                    .position(|x| x == v)
                    .is_some_and(|p| mask & (1 << p) != 0)
            };
            for e in &sk.events {
                let EventKind::Call(site) = &e.kind else {
                    continue;
                };
                for c in &site.callees {
                    let Some(&j) = self.index.get(c) else {
                        continue;
                    };
                    let m = callee_mask(&self.summaries[j], site, &held);
                    if let std::collections::btree_map::Entry::Vacant(slot) = reach[j].entry(m) {
                        slot.insert(Reached::Call(i, e.stmt, mask));
                        work.push_back((j, m));
                    }
                }
            }
        }
        self.reach = reach;
    }

    /// How many methods the inference covers (the bound of their indices).
    pub fn methods(&self) -> usize {
        self.skeletons.len()
    }

    /// Does a depth-first search over the methods `from` calls
    /// transitively, giving up after discovering `limit` methods, meet a
    /// method `target` accepts? A search for one target meets the same
    /// methods in the same order until it meets that target, so one search
    /// for a set of targets answers for each of them (it meets the set
    /// exactly when the search for one of them would meet it), and it
    /// stops at the first one met.
    pub fn meets_callee(
        &self,
        from: usize,
        limit: usize,
        target: impl FnMut(usize) -> bool,
    ) -> bool {
        walk_callees(&self.callees, from, limit, target)
    }
}

/// Depth-first over the callees of `from`, calling `stop` on every
/// callee edge's target as it is met; true as soon as `stop` is,
/// false when the walk ends or has discovered more than `limit`
/// methods.
fn walk_callees(
    callees: &[Vec<usize>],
    from: usize,
    limit: usize,
    mut stop: impl FnMut(usize) -> bool,
) -> bool {
    let mut seen = vec![false; callees.len()];
    let mut stack = vec![from];
    let mut visited = 0;
    while let Some(x) = stack.pop() {
        for &y in &callees[x] {
            if stop(y) {
                return true;
            }
            if !seen[y] {
                seen[y] = true;
                visited += 1;
                if visited > limit {
                    return false;
                }
                stack.push(y);
            }
        }
    }
    false
}

/// The methods the walk from `from` meets before it gives up.
#[cfg(test)]
fn callees_within(callees: &[Vec<usize>], from: usize, limit: usize) -> Vec<bool> {
    let mut met = vec![false; callees.len()];
    walk_callees(callees, from, limit, |y| {
        met[y] = true;
        false
    });
    met
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small pseudo-random call graph (xorshift: no dependency, same
    /// graph every run).
    fn graph(n: usize, edges: usize, seed: u64) -> Vec<Vec<usize>> {
        let mut x = seed;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as usize
        };
        let mut g = vec![Vec::new(); n];
        for _ in 0..edges {
            let (a, b) = (next() % n, next() % n);
            g[a].push(b);
        }
        for v in &mut g {
            v.sort_unstable();
            v.dedup();
        }
        g
    }

    #[test]
    fn one_walk_answers_what_a_walk_per_target_answers() {
        for (n, edges, seed) in [(12, 20, 1), (40, 90, 7), (60, 300, 13), (200, 500, 99)] {
            let g = graph(n, edges, seed);
            // Limits below, at and above the graph's size: the cut-off
            // must give the same answers too.
            for limit in [0, 1, 3, 10, n] {
                for from in 0..n {
                    let met = callees_within(&g, from, limit);
                    for (to, &m) in met.iter().enumerate() {
                        let one = walk_callees(&g, from, limit, |y| y == to);
                        assert_eq!(m, one, "n={n} seed={seed} limit={limit} {from}->{to}");
                    }
                }
            }
        }
    }

    #[test]
    fn one_walk_for_a_set_answers_whether_it_meets_any_of_them() {
        for (n, edges, seed) in [(40, 90, 7), (60, 300, 13), (200, 500, 99)] {
            let g = graph(n, edges, seed);
            for limit in [0, 3, 10, n] {
                for from in 0..n {
                    let met = callees_within(&g, from, limit);
                    // Sets of every third, fifth and seventh method, offset by `from`.
                    for step in [3, 5, 7] {
                        let in_set = |m: usize| (m + from).is_multiple_of(step);
                        let any = (0..n).any(|m| in_set(m) && met[m]);
                        let one = walk_callees(&g, from, limit, in_set);
                        assert_eq!(
                            any, one,
                            "n={n} seed={seed} limit={limit} from={from} step={step}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn the_walk_gives_up_after_the_limit() {
        // A chain 0 -> 1 -> ... -> 9: 9 is the ninth method discovered.
        let g: Vec<Vec<usize>> = (0..10)
            .map(|i| if i < 9 { vec![i + 1] } else { vec![] })
            .collect();
        assert!(callees_within(&g, 0, 9)[9]);
        assert!(
            callees_within(&g, 0, 8)[9],
            "met as the ninth, when the walk gives up"
        );
        assert!(!callees_within(&g, 0, 7)[9]);
    }
}
