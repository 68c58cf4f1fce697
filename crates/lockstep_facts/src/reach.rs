//! Which thread roots reach each node of the context call graph, and the
//! start/join orderings: the statements of a starting method that run
//! before `start()` or after a wait for the task's end (`join()`, a
//! future's `get()`, ...; see `happens_before`), and the nodes that only
//! those statements reach. A start in a loop runs more than once but is
//! still ordered with what its caller does before the loop and after the
//! waits, as long as the caller itself runs once.

use crate::analysis::Analysis;
use lockstep_ir::StmtId;
use rustc_hash::FxHashMap;

use crate::threads::{self, Root, RootKind};

/// Thread starts for which start/join ordering is computed
/// (each costs one traversal of the call graph).
const MAX_ORDERED_STARTS: usize = 64;

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
}

impl Ordering {
    /// Is an access at `stmt` of `node` ordered with this start's thread?
    pub fn orders(&self, node: u32, stmt: StmtId) -> bool {
        if node == self.caller {
            self.stmts.get(stmt.index()).copied().unwrap_or(false)
        } else if let Some((_, after)) = self.helpers.iter().find(|(n, _)| *n == node) {
            after.get(stmt.index()).copied().unwrap_or(false)
        } else {
            !self.reached.get(node as usize).copied().unwrap_or(true)
        }
    }
}

impl Analysis<'_> {
    /// The roots reaching each node. Open programs have one root in
    /// effect: every entry may run at the same time as every other.
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
        for (ri, r) in roots.iter().enumerate() {
            let parent = self.graph.bfs(&r.entries, |_, _| false);
            for (i, p) in parent.iter().enumerate() {
                if p.is_some() {
                    reach[i].push(ri as u32);
                }
            }
        }
        reach
    }

    /// Start/join orderings of the thread starts whose starting method
    /// runs once (closed programs only: the harness of an open program
    /// orders nothing).
    pub(crate) fn orderings(&self, roots: &[Root]) -> Vec<Ordering> {
        let mut orderings = Vec::new();
        if self.open {
            return orderings;
        }
        let counts = self.run_counts_of(roots);
        for (ri, r) in roots.iter().enumerate() {
            if orderings.len() >= MAX_ORDERED_STARTS {
                break;
            }
            if let Some(o) = self.ordering(roots, &counts, ri, r) {
                orderings.push(o);
            }
        }
        orderings
    }

    /// How many times each node may run (see `threads::run_counts`).
    fn run_counts_of(&self, roots: &[Root]) -> Vec<u8> {
        let sources: Vec<(u32, u8)> = roots
            .iter()
            .flat_map(|r| {
                let c = if r.multi { 2 } else { 1 };
                r.entries.iter().map(move |&e| (e, c))
            })
            .collect();
        threads::run_counts(
            self.program,
            &self.graph,
            &sources,
            &mut FxHashMap::default(),
        )
    }

    fn ordering(&self, roots: &[Root], counts: &[u8], ri: usize, r: &Root) -> Option<Ordering> {
        let RootKind::Start(i) = r.kind else {
            return None;
        };
        let t = self.pt.thread_starts().get(i)?;
        let caller = self.graph.node(t.caller)?;
        // A periodic task, or a caller that runs twice, interleaves its
        // runs with the caller's statements: nothing is ordered.
        if threads::periodic(t) || counts.get(caller as usize).is_none_or(|&c| c >= 2) {
            return None;
        }
        let body = self.program.body(t.caller.method)?;
        let ordered = crate::happens_before::ordered_statements(self.program, self.pt, t, &body);
        let stmts = ordered.stmts;
        let others: Vec<u32> = roots
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != ri)
            .flat_map(|(_, r)| r.entries.clone())
            .collect();
        let parent = self.graph.bfs(&others, |node, site| {
            node == caller && stmts.get(site.index()).copied().unwrap_or(false)
        });
        let helpers = if ordered.helpers.is_empty() {
            Vec::new()
        } else {
            // A helper is ordered only where nothing but the waiting call
            // reaches it.
            let sites: Vec<StmtId> = ordered.helpers.iter().map(|h| h.0).collect();
            let without = self.graph.bfs(&others, |node, site| {
                node == caller
                    && (stmts.get(site.index()).copied().unwrap_or(false) || sites.contains(&site))
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
        })
    }
}
