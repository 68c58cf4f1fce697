//! `jsr`/`ret` subroutines (class files before Java 6): which instructions
//! and which exception handlers belong to each subroutine.
//!
//! [`crate::flat`] uses this to inline a copy of a subroutine at every
//! call site. A subroutine's members are the instructions reachable from
//! its entry without returning (`ret`), without entering a nested
//! subroutine (a `jsr` continues at its return point), plus the handlers of
//! exception-table entries whose whole range lies inside the subroutine
//! (a `try` inside a `finally`). An entry whose range straddles the
//! subroutine and its caller belongs to the caller: an exception there
//! abandons the subroutine.
//!
//! It does not track which return address a `ret` uses: javac (≤ 1.4),
//! jikes and ecj always return from the innermost subroutine, which is what
//! the inlining assumes.

use lockstep_classfile::{Code, Insn};

/// Index of the instruction at byte offset `pc`.
pub(crate) fn insn_at(code: &Code, pc: u32) -> Option<u32> {
    code.insns
        .binary_search_by_key(&pc, |(p, _)| *p)
        .ok()
        .and_then(|i| u32::try_from(i).ok())
}

/// First instruction index whose pc is `>= pc`.
pub(crate) fn first_insn_from(code: &Code, pc: u32) -> usize {
    code.insns.partition_point(|(p, _)| *p < pc)
}

/// One subroutine: its entry instruction and its members.
pub(crate) struct Sub {
    pub entry: u32,
    /// Membership bit per instruction index.
    pub members: Vec<bool>,
    /// Membership bit per exception-table entry.
    pub handlers: Vec<bool>,
}

impl Sub {
    pub(crate) fn contains(&self, insn: u32) -> bool {
        self.members.get(insn as usize).copied().unwrap_or(false)
    }
    pub(crate) fn owns_handler(&self, entry: usize) -> bool {
        self.handlers.get(entry).copied().unwrap_or(false)
    }
}

/// Normal successors of instruction `i` *within* a subroutine.
fn sub_succs(code: &Code, i: u32, out: &mut Vec<u32>) {
    out.clear();
    let Some((_, insn)) = code.insns.get(i as usize) else {
        return;
    };
    let next = i
        .checked_add(1)
        .filter(|n| (*n as usize) < code.insns.len());
    let tgt = |pc: u32, out: &mut Vec<u32>| {
        if let Some(t) = insn_at(code, pc) {
            out.push(t)
        }
    };
    match insn {
        Insn::If(_, t) => {
            tgt(*t, out);
            out.extend(next);
        }
        Insn::Goto(t) => tgt(*t, out),
        Insn::TableSwitch {
            default, targets, ..
        } => {
            tgt(*default, out);
            targets.iter().for_each(|t| tgt(*t, out));
        }
        Insn::LookupSwitch { default, pairs } => {
            tgt(*default, out);
            pairs.iter().for_each(|(_, t)| tgt(*t, out));
        }
        Insn::Ret(_) | Insn::Return(_) | Insn::AThrow => {}
        // A nested call returns to the next instruction.
        _ => out.extend(next),
    }
}

/// Computes every subroutine (one per distinct `jsr` target) of `code`.
pub(crate) fn subroutines(code: &Code) -> Vec<Sub> {
    let mut entries: Vec<u32> = code
        .insns
        .iter()
        .filter_map(|(_, i)| match i {
            Insn::Jsr(t) => insn_at(code, *t),
            _ => None,
        })
        .collect();
    entries.sort_unstable();
    entries.dedup();
    let n = code.insns.len();
    let table = &code.exception_table;
    let mut succs = Vec::new();
    entries
        .into_iter()
        .map(|entry| {
            let mut members = vec![false; n];
            let mut handlers = vec![false; table.len()];
            let mut work = vec![entry];
            loop {
                while let Some(i) = work.pop() {
                    match members.get_mut(i as usize) {
                        Some(m) if !*m => *m = true,
                        _ => continue,
                    }
                    sub_succs(code, i, &mut succs);
                    work.extend_from_slice(&succs);
                }
                // Handlers whose whole (non-empty) range is inside the subroutine.
                let mut added = false;
                for (e, h) in table.iter().enumerate() {
                    if handlers.get(e).copied().unwrap_or(true) {
                        continue;
                    }
                    let from = first_insn_from(code, h.start_pc);
                    let to = first_insn_from(code, h.end_pc);
                    let inside =
                        from < to && (from..to).all(|i| members.get(i).copied().unwrap_or(false));
                    if inside {
                        if let Some(slot) = handlers.get_mut(e) {
                            *slot = true;
                        }
                        if let Some(hi) = insn_at(code, h.handler_pc) {
                            work.push(hi);
                        }
                        added = true;
                    }
                }
                if !added {
                    break;
                }
            }
            Sub {
                entry,
                members,
                handlers,
            }
        })
        .collect()
}
