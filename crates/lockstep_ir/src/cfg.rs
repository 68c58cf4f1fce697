//! Basic blocks over the virtual-instruction graph ([`crate::flat`]).
//!
//! Leaders: the first instruction, branch targets, instructions after a
//! branch or terminator, handler starts, every change of the covering
//! handler list (and the start and end pcs of every exception-table entry),
//! and the instruction after each `monitorenter`/`monitorexit` — so that the
//! lock state, and the handlers, are the same before every statement of a
//! block but the last. Two kinds of synthetic blocks are added: an empty
//! entry block when the bytecode branches back to its first instruction
//! (block 0 must have no predecessors), and a one-`goto` trampoline after a
//! block whose fall-through is not laid out next (only with inlined
//! subroutines).
//!
//! This module only partitions; statements are produced by [`crate::stack`].

use std::sync::Arc;

use lockstep_classfile::{Code, ConstantPool, Insn};

use crate::error::LowerError;
use crate::flat::{Flat, NONE};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PKind {
    /// Virtual instructions `first..end`.
    Code,
    /// The empty entry block; falls through to block 1.
    Pad,
    /// A `goto` to the fall-through of the previous block.
    Trampoline,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct PBlock {
    pub kind: PKind,
    pub first: u32,
    pub end: u32,
}

/// What a handler block catches: the join of the catch types of the
/// exception-table entries leading to it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Caught {
    NotAHandler,
    Class(Arc<str>),
    /// Several different classes (multi-catch): the type is left to the
    /// `LocalVariableTable`, else an unknown reference.
    Mixed,
    /// A catch-all (`finally`, `synchronized`): the type is `Throwable`.
    Any,
}

#[derive(Default)]
pub(crate) struct Cfg {
    pub blocks: Vec<PBlock>,
    pub block_of_node: Vec<u32>,
    pub caught: Vec<Caught>,
    /// Resolved catch type of each exception-table entry (`None`: catch-all).
    pub entry_catch: Vec<Option<Arc<str>>>,
    leader: Vec<bool>,
    boundaries: Vec<u32>,
}

impl Cfg {
    pub(crate) fn build(
        &mut self,
        code: &Code,
        cp: &ConstantPool,
        flat: &Flat,
    ) -> Result<(), LowerError> {
        let n = flat.nodes.len();
        self.entry_catch.clear();
        for h in &code.exception_table {
            match h.catch_type {
                None => self.entry_catch.push(None),
                Some(i) => match cp.class_name(i) {
                    Some(c) => self.entry_catch.push(Some(c.clone())),
                    None => {
                        return Err(LowerError::at(
                            h.handler_pc,
                            format!("catch type #{i} is not a class constant"),
                        ))
                    }
                },
            }
        }
        self.boundaries.clear();
        for h in &code.exception_table {
            self.boundaries.push(h.start_pc);
            self.boundaries.push(h.end_pc);
        }
        self.boundaries.sort_unstable();
        self.boundaries.dedup();

        self.leader.clear();
        self.leader.resize(n + 1, false);
        let mut entry_has_preds = false;
        let set = |leader: &mut Vec<bool>, i: u32| {
            if let Some(l) = leader.get_mut(i as usize) {
                *l = true;
            }
        };
        set(&mut self.leader, 0);
        for (k, node) in flat.nodes.iter().enumerate() {
            let ts = flat.node_targets(node);
            for &t in ts {
                set(&mut self.leader, t);
                entry_has_preds |= t == 0;
            }
            entry_has_preds |= node.next == 0;
            for &(h, _) in flat.node_handlers(node) {
                set(&mut self.leader, h);
                if h == 0 {
                    return Err(LowerError::at(
                        node.pc,
                        "the method entry is also an exception handler",
                    ));
                }
            }
            let insn = code.insns.get(node.insn as usize).map(|(_, i)| i);
            let ends = !ts.is_empty()
                || node.next == NONE
                || matches!(insn, Some(Insn::MonitorEnter | Insn::MonitorExit));
            if ends || node.next != k as u32 + 1 {
                set(&mut self.leader, k as u32 + 1);
            }
            if k > 0 {
                if let Some(prev) = flat.nodes.get(k - 1) {
                    if flat.node_handlers(prev) != flat.node_handlers(node) {
                        set(&mut self.leader, k as u32);
                    }
                }
            }
            if self.boundaries.binary_search(&node.pc).is_ok() {
                set(&mut self.leader, k as u32);
            }
        }

        self.blocks.clear();
        self.block_of_node.clear();
        self.block_of_node.resize(n, NONE);
        if entry_has_preds {
            self.blocks.push(PBlock {
                kind: PKind::Pad,
                first: 0,
                end: 0,
            });
        }
        let mut start = 0usize;
        for k in 1..=n {
            if self.leader.get(k).copied().unwrap_or(true) {
                let id = self.blocks.len() as u32;
                for b in self.block_of_node.get_mut(start..k).into_iter().flatten() {
                    *b = id;
                }
                self.blocks.push(PBlock {
                    kind: PKind::Code,
                    first: start as u32,
                    end: k as u32,
                });
                // A fall-through (of a conditional branch or a plain instruction)
                // to a block not laid out next goes through a trampoline, so
                // no `goto` follows a statement inside its block.
                if let Some(last) = flat.nodes.get(k - 1) {
                    if last.next != NONE && last.next != k as u32 {
                        self.blocks.push(PBlock {
                            kind: PKind::Trampoline,
                            first: 0,
                            end: 0,
                        });
                    }
                }
                start = k;
            }
        }

        // What each handler block catches.
        self.caught.clear();
        self.caught.resize(self.blocks.len(), Caught::NotAHandler);
        for node in &flat.nodes {
            for &(h, e) in flat.node_handlers(node) {
                let b = self.block_of_node.get(h as usize).copied().unwrap_or(NONE);
                let c = self.entry_catch.get(e as usize).cloned().flatten();
                if let Some(slot) = self.caught.get_mut(b as usize) {
                    *slot = match (&*slot, c) {
                        (_, None) | (Caught::Any, _) => Caught::Any,
                        (Caught::NotAHandler, Some(c)) => Caught::Class(c),
                        (Caught::Class(a), Some(c)) if **a == *c => Caught::Class(c),
                        _ => Caught::Mixed,
                    };
                }
            }
        }
        Ok(())
    }

    pub(crate) fn block_of(&self, node: u32) -> u32 {
        self.block_of_node
            .get(node as usize)
            .copied()
            .unwrap_or(NONE)
    }
}
