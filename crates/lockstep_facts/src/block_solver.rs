//! One forward data-flow solver over a body's blocks, shared by the
//! per-method must-analyses (ownership's owned and fresh bits, once-gates'
//! phases).
//!
//! The analysis supplies the state, its meet, the effect of a statement
//! and, when a branch tells something, the state on one normal edge
//! ([`Forward`]). The solver keeps an entry state per block and a set of
//! dirty blocks, and always takes the lowest dirty block next (the order
//! of a scan from the first block, without the scan: an ordered set, so
//! the cost does not grow with the square of the number of blocks). A
//! handler sees the meet of the states a block passes through
//! ([`HandlerSees`]); a block no path reaches keeps no state.

use std::collections::BTreeSet;

use lockstep_ir::{Body, StmtId};

/// A forward analysis over one body.
pub(crate) trait Forward {
    type State: Clone;

    /// `into` met with `from`; did `into` change?
    fn meet_into(&self, into: &mut Self::State, from: &Self::State) -> bool;

    /// The effect of statement `s` on `state`.
    fn step(&mut self, s: StmtId, state: &mut Self::State);

    /// The state on the normal edge from `block` (ending in `state`) to
    /// block `succ`, when the edge itself tells something (a branch's
    /// outcome); `None`: the state at the end of the block.
    fn edge(&mut self, _block: usize, _succ: usize, _state: &Self::State) -> Option<Self::State> {
        None
    }

    /// Sees the state at the end of each visit of a block.
    fn after_block(&mut self, _block: usize, _state: &Self::State) {}
}

/// Stores the met state `met` into `into`; did it change? (The body of
/// [`Forward::meet_into`] for states with a `meet` of their own.)
pub(crate) fn replace_if_changed<S: PartialEq>(into: &mut S, met: S) -> bool {
    let changed = met != *into;
    *into = met;
    changed
}

/// Which states of a block its exception handlers see (met together).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HandlerSees {
    /// The entry state and the state after each statement (an exception
    /// may leave after a statement's effect).
    AfterEach,
    /// The entry state and the state before each statement (an exception
    /// leaves before the throwing statement's effect).
    BeforeEach,
}

/// The entry state of every block (`None`: unreached) from `entry` at
/// block 0, or `None` when more than `max_visits` block visits did not
/// reach the fixpoint.
pub(crate) fn solve<F: Forward>(
    body: &Body,
    analysis: &mut F,
    entry: F::State,
    handler: HandlerSees,
    max_visits: usize,
) -> Option<Vec<Option<F::State>>> {
    let nb = body.blocks.len();
    let mut at_entry: Vec<Option<F::State>> = vec![None; nb];
    if nb == 0 {
        return Some(at_entry);
    }
    at_entry[0] = Some(entry);
    let mut dirty: BTreeSet<usize> = BTreeSet::from([0]);
    let mut visits = 0usize;
    while let Some(b) = dirty.pop_first() {
        visits += 1;
        if visits > max_visits {
            return None;
        }
        let Some(mut state) = at_entry[b].clone() else {
            continue;
        };
        let block = &body.blocks[b];
        // What the handlers see, kept only when the block has one.
        let handled = !block.exceptional.is_empty();
        let mut exc = handled.then(|| state.clone());
        for s in block.first.0..block.end.0 {
            if let (Some(e), HandlerSees::BeforeEach) = (exc.as_mut(), handler) {
                analysis.meet_into(e, &state);
            }
            analysis.step(StmtId(s), &mut state);
            if let (Some(e), HandlerSees::AfterEach) = (exc.as_mut(), handler) {
                analysis.meet_into(e, &state);
            }
        }
        analysis.after_block(b, &state);
        for succ in &block.succs {
            let succ = succ.index();
            match analysis.edge(b, succ, &state) {
                Some(own) => flow(analysis, &mut at_entry, &mut dirty, succ, &own),
                None => flow(analysis, &mut at_entry, &mut dirty, succ, &state),
            }
        }
        if let Some(exc) = &exc {
            for e in &block.exceptional {
                flow(analysis, &mut at_entry, &mut dirty, e.handler.index(), exc);
            }
        }
    }
    Some(at_entry)
}

/// Meets `out` into the entry state of block `succ` (outside the body:
/// ignored), marking it dirty when that changed.
fn flow<F: Forward>(
    analysis: &F,
    at_entry: &mut [Option<F::State>],
    dirty: &mut BTreeSet<usize>,
    succ: usize,
    out: &F::State,
) {
    let Some(slot) = at_entry.get_mut(succ) else {
        return;
    };
    let changed = match slot {
        None => {
            *slot = Some(out.clone());
            true
        }
        Some(old) => analysis.meet_into(old, out),
    };
    if changed {
        dirty.insert(succ);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lockstep_ir::{Block, BlockId, ExceptionEdge, Stmt, StmtKind};
    use std::sync::Arc;

    /// Blocks of `(statements, successors, handlers)` over `Nop`s.
    fn body(blocks: &[(u32, &[u32], &[u32])]) -> Body {
        let mut stmts = Vec::new();
        let mut out = Vec::new();
        let mut block_of = Vec::new();
        for (b, &(n, succs, handlers)) in blocks.iter().enumerate() {
            let first = stmts.len() as u32;
            for _ in 0..n {
                stmts.push(Stmt {
                    kind: StmtKind::Nop,
                    pc: 0,
                    line: None,
                });
                block_of.push(BlockId(b as u32));
            }
            out.push(Block {
                first: StmtId(first),
                end: StmtId(first + n),
                succs: succs.iter().map(|&s| BlockId(s)).collect(),
                exceptional: handlers
                    .iter()
                    .map(|&h| ExceptionEdge {
                        handler: BlockId(h),
                        catch: None,
                    })
                    .collect(),
                preds: Vec::new(),
            });
        }
        Body {
            class: Arc::from("T"),
            name: Arc::from("m"),
            descriptor: Arc::from("()V"),
            is_static: true,
            is_synchronized: false,
            source_file: None,
            vars: Vec::new(),
            params: Vec::new(),
            held_before: vec![None; stmts.len()],
            unique_def: Vec::new(),
            block_of,
            stmts,
            blocks: out,
            monitors: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// Per statement: run on no path so far (a statement clears its bit,
    /// paths meet by `and`).
    struct NotRun {
        visits: Vec<usize>,
    }

    impl Forward for NotRun {
        type State = Vec<bool>;

        fn meet_into(&self, into: &mut Vec<bool>, from: &Vec<bool>) -> bool {
            let before = into.clone();
            for (a, b) in into.iter_mut().zip(from) {
                *a &= *b;
            }
            *into != before
        }

        fn step(&mut self, s: StmtId, state: &mut Vec<bool>) {
            state[s.index()] = false;
        }

        fn after_block(&mut self, block: usize, _state: &Vec<bool>) {
            self.visits.push(block);
        }
    }

    fn run(b: &Body, handler: HandlerSees, max: usize) -> Option<Vec<Option<Vec<bool>>>> {
        let mut a = NotRun { visits: Vec::new() };
        solve(b, &mut a, vec![true; b.stmts.len()], handler, max)
    }

    #[test]
    fn loops_meet_and_unreached_blocks_keep_no_state() {
        // 0 -> 1 -> {1, 2}; 3 is unreached.
        let b = body(&[
            (1, &[1], &[]),
            (1, &[1, 2], &[]),
            (1, &[], &[]),
            (1, &[], &[]),
        ]);
        let at = run(&b, HandlerSees::AfterEach, 100).expect("converges");
        assert_eq!(at[0], Some(vec![true; 4]));
        // Block 1 is entered from 0 and from itself, where s1 has run.
        assert_eq!(at[1], Some(vec![false, false, true, true]));
        assert_eq!(at[2], Some(vec![false, false, true, true]));
        assert_eq!(at[3], None);
    }

    #[test]
    fn a_handler_sees_the_states_after_or_before_each_statement() {
        // Block 0 runs s0, s1 and may throw to handler 2.
        let b = body(&[(2, &[1], &[2]), (1, &[], &[]), (1, &[], &[])]);
        let after = run(&b, HandlerSees::AfterEach, 100).expect("converges");
        assert_eq!(after[2], Some(vec![false, false, true, true]));
        let before = run(&b, HandlerSees::BeforeEach, 100).expect("converges");
        assert_eq!(before[2], Some(vec![false, true, true, true]));
        assert_eq!(after[1], Some(vec![false, false, true, true]));
        assert_eq!(before[1], after[1], "normal edges see the block's end");
    }

    #[test]
    fn lowest_dirty_block_first_and_a_visit_budget() {
        // 0 -> {2, 1}; 1 -> 2: block 1 is visited before 2, which is
        // then visited once with both inputs.
        let b = body(&[(1, &[2, 1], &[]), (1, &[2], &[]), (1, &[], &[])]);
        let mut a = NotRun { visits: Vec::new() };
        solve(&b, &mut a, vec![true; 3], HandlerSees::AfterEach, 100).expect("converges");
        assert_eq!(a.visits, vec![0, 1, 2]);
        assert!(
            run(&b, HandlerSees::AfterEach, 2).is_none(),
            "3 visits needed"
        );
    }
}
