//! Call chains that respect parameter guards: from a thread's entry down
//! to a statement that only runs when the method's parameters pass some
//! tests ([`crate::param_guards`]), a chain none of whose calls passes a
//! constant those tests rule out.
//!
//! The search goes up from the statement's context through its callers,
//! carrying the guards: a call passing a constant that fails a guard is
//! no way in; a call passing its own caller's parameter moves the guard
//! onto that parameter; any other argument says nothing, and the guard
//! is dropped. A caller left with no guard is *free*: every chain into it
//! is a way in (the roots reaching it, [`crate::analysis::RaceFacts::reach`]),
//! and the search for every source goes no higher there (the search for
//! one chain does, to a source). (A caller's own tests before its
//! call are not added on the way up: they would keep nearly every search
//! going to the roots.) Tomcat's `DeltaSession.expire(notify, notifyCluster)` asks
//! for the session's changes only when `notifyCluster` is `true`, so the
//! chain through `DeltaManager.handleSESSION_EXPIRED`, which passes
//! `false`, is not a way to that call, while `expire(boolean)`, which
//! passes `true`, is.

use std::collections::VecDeque;
use std::sync::Arc;

use lockstep_ir::{StmtId, StmtKind};
use lockstep_program::Program;
use rustc_hash::FxHashSet;

use crate::lock_summary::{guards_at, MethodGuards};
use crate::param_guards::{self, Guards};
use crate::threads::Graph;

/// Caller states searched before the search gives up (and takes a way
/// in to exist).
const MAX_STATES: usize = 4096;

/// The answer of a guarded search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Chain {
    /// The calls from a source or a free caller to the node: each caller
    /// node with its call site, the first one first (empty: the node is a
    /// source).
    Found(Vec<(u32, StmtId)>),
    /// Every chain from the sources passes a constant a guard rules out.
    None,
    /// The search was cut short: a chain is taken to exist.
    Unknown,
}

/// Every source a guarded search reaches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sources {
    /// The sources (sorted, no duplicates).
    pub nodes: Vec<u32>,
    /// The free callers (sorted, no duplicates): every root reaching them
    /// is a way in.
    pub free: Vec<u32>,
    /// A shortest chain from one of them, as in [`Chain::Found`].
    pub shortest: Option<Vec<(u32, StmtId)>>,
    /// The search was cut short: other sources may reach the node too.
    pub cut: bool,
}

impl Sources {
    /// The shortest chain found, as a [`Chain`].
    fn into_chain(self) -> Chain {
        match (self.shortest, self.cut) {
            (Some(c), _) => Chain::Found(c),
            (None, true) => Chain::Unknown,
            (None, false) => Chain::None,
        }
    }
}

/// What a search looks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Every source and free caller (the roots a lock is taken from).
    Every,
    /// One chain to a source.
    FirstChain,
    /// One chain to a source along which each caller's own tests before
    /// its call hold too (a path to show).
    ShownChain,
}

/// Guarded searches over one context call graph.
pub struct GuardedReach<'a> {
    program: &'a Program,
    graph: &'a Graph,
    guards: Arc<MethodGuards>,
    callers: Vec<Vec<(u32, StmtId)>>,
}

impl<'a> GuardedReach<'a> {
    pub fn new(program: &'a Program, graph: &'a Graph, guards: Arc<MethodGuards>) -> Self {
        GuardedReach {
            program,
            graph,
            guards,
            callers: graph.callers(),
        }
    }

    /// The guards of statement `s` of `node`'s method.
    pub fn guards_at(&self, node: u32, s: StmtId) -> Guards {
        guards_at(&self.guards, self.graph.nodes[node as usize].method, s)
    }

    /// A shortest chain of calls from a node `source` accepts down to
    /// `node`, entered with `guards` on its parameters, along which each
    /// caller's own tests before its call hold too (a witness path to
    /// show: every call on it can be made).
    pub fn chain(&self, source: impl Fn(u32) -> bool, node: u32, guards: &Guards) -> Chain {
        self.search(&source, |_, _| false, node, guards, Mode::ShownChain)
            .into_chain()
    }

    /// Can every call of `hops` (each caller with its call site, the
    /// first first, the last calling `node`) be made, with `guards` on
    /// `node`'s parameters and each caller's own tests before its call?
    pub fn passes(&self, hops: &[(u32, StmtId)], node: u32, guards: &Guards) -> bool {
        let mut callee = node;
        let mut g = guards.clone();
        for &(caller, site) in hops.iter().rev() {
            match self.across(caller, site, callee, &g, true) {
                Some(up) => g = up,
                None => return false,
            }
            callee = caller;
        }
        true
    }

    /// [`Self::chain`] through no call `(caller, site)` that `avoid`
    /// refuses (a caller holding, at the call, the lock the statement
    /// takes: there the statement re-enters it).
    pub fn chain_avoiding(
        &self,
        source: impl Fn(u32) -> bool,
        avoid: impl FnMut(u32, StmtId) -> bool,
        node: u32,
        guards: &Guards,
    ) -> Chain {
        self.search(&source, avoid, node, guards, Mode::FirstChain)
            .into_chain()
    }

    /// Every source from which a chain into `node` passes `guards`
    /// without a call `avoid` refuses ([`Self::chain_avoiding`]).
    pub fn sources(
        &self,
        source: impl Fn(u32) -> bool,
        avoid: impl FnMut(u32, StmtId) -> bool,
        node: u32,
        guards: &Guards,
    ) -> Sources {
        self.search(&source, avoid, node, guards, Mode::Every)
    }

    /// The breadth-first search up the callers.
    fn search(
        &self,
        source: &impl Fn(u32) -> bool,
        mut avoid: impl FnMut(u32, StmtId) -> bool,
        node: u32,
        guards: &Guards,
        mode: Mode,
    ) -> Sources {
        let first = mode != Mode::Every;
        let with_local = mode == Mode::ShownChain;
        let mut out = Sources {
            nodes: Vec::new(),
            free: Vec::new(),
            shortest: None,
            cut: false,
        };
        if source(node) {
            out.nodes.push(node);
            out.shortest = Some(Vec::new());
            if first {
                return out;
            }
        }
        // States: (node, guards, the state it was reached from, the call).
        let mut states: Vec<(u32, Guards, usize, StmtId)> =
            vec![(node, guards.clone(), 0, StmtId(0))];
        let mut seen: FxHashSet<(u32, Guards)> = FxHashSet::default();
        seen.insert((node, guards.clone()));
        let mut queue: VecDeque<usize> = VecDeque::from([0]);
        while let Some(i) = queue.pop_front() {
            let (callee, g) = (states[i].0, states[i].1.clone());
            for &(caller, site) in self.callers.get(callee as usize).into_iter().flatten() {
                let Some(up) = self.across(caller, site, callee, &g, with_local) else {
                    continue;
                };
                if avoid(caller, site) {
                    continue;
                }
                if !seen.insert((caller, up.clone())) {
                    continue;
                }
                if states.len() >= MAX_STATES {
                    out.cut = true;
                    break;
                }
                states.push((caller, up, i, site));
                let j = states.len() - 1;
                // Only the search for every source stops at free callers;
                // a search for one chain goes on to a source, so that its
                // chain avoids what `avoid` refuses all the way.
                let free = !first && states[j].1.is_empty();
                if source(caller) || free {
                    if free {
                        out.free.push(caller);
                    } else {
                        out.nodes.push(caller);
                    }
                    if out.shortest.is_none() {
                        out.shortest = Some(unwind(&states, j));
                    }
                    if first {
                        return out;
                    }
                    if free {
                        continue;
                    }
                }
                queue.push_back(j);
            }
            if out.cut {
                break;
            }
        }
        out.nodes.sort_unstable();
        out.nodes.dedup();
        out.free.sort_unstable();
        out.free.dedup();
        out
    }

    /// The guards `g` of `callee` as its caller's at `site` (with the
    /// caller's own tests before the call when `with_local` is set), or
    /// `None` when the call passes a constant they rule out.
    fn across(
        &self,
        caller: u32,
        site: StmtId,
        callee: u32,
        g: &Guards,
        with_local: bool,
    ) -> Option<Guards> {
        let cm = self.graph.nodes[caller as usize].method;
        let local = if with_local {
            guards_at(&self.guards, cm, site)
        } else {
            Arc::from([])
        };
        if g.is_empty() {
            return Some(local);
        }
        let body = self.program.body(cm)?;
        let callee_body = self
            .program
            .body(self.graph.nodes[callee as usize].method)?;
        let StmtKind::Invoke { call, .. } = &body.stmts.get(site.index())?.kind else {
            return Some(local);
        };
        let carried = param_guards::across_call(
            &body,
            |p| crate::lock_summary::argument(call, &callee_body, p).cloned(),
            g,
        )?;
        param_guards::join(&local, &carried)
    }
}

/// The calls from the source (state `j`) down to the searched node
/// (state 0), source first: each state calls the one it was reached from.
fn unwind(states: &[(u32, Guards, usize, StmtId)], mut j: usize) -> Vec<(u32, StmtId)> {
    let mut out = Vec::new();
    while j != 0 {
        let (caller, _, from, site) = &states[j];
        out.push((*caller, *site));
        j = *from;
    }
    out
}
