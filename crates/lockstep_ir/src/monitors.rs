//! Monitor structure: which `monitorexit` releases which `monitorenter`,
//! and which monitors are held before each statement.
//!
//! A forward dataflow over the CFG carries the stack of held regions. The
//! stack is represented by its innermost region alone: a region is created
//! once, at its `monitorenter`, with the region held there as its parent,
//! so the parent chain *is* the rest of the stack. A `monitorexit` releases
//! the innermost region when its operand is the enter's lock — the same
//! variable after following copies (javac's `aload_1; dup; astore_2;
//! monitorenter … aload_2; monitorexit`), the same constant, or the same
//! access path. Exceptional edges carry the state before each statement of
//! their block. Where paths with different states meet, the first state
//! (blocks are visited in increasing order from the entry) wins and a note
//! "unstructured locking at pc N" is recorded; lowering never fails for it.
//!
//! The module does not judge whether a lock is the *same object* at enter
//! and exit beyond that syntactic matching, and knows nothing about
//! `java.util.concurrent` locks (calls, not monitors).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::ir::{
    AccessPath, Body, ConstValue, MonitorId, MonitorKind, MonitorRegion, Operand, Rvalue, StmtKind,
    VarId,
};
use crate::paths::operand_path;

/// What an operand is after following copies: a root variable or a constant.
#[derive(Clone, PartialEq)]
enum Canon {
    Var(VarId),
    Const(ConstValue),
}

fn canon(body: &Body, op: &Operand) -> Canon {
    let mut v = match op {
        Operand::Var(v) => *v,
        Operand::Const(c) => return Canon::Const(c.clone()),
    };
    for _ in 0..16 {
        let def = body
            .unique_def
            .get(v.index())
            .copied()
            .flatten()
            .and_then(|s| body.stmts.get(s.index()));
        match def.map(|s| &s.kind) {
            Some(StmtKind::Assign {
                value: Rvalue::Use(Operand::Var(x)),
                ..
            }) => v = *x,
            Some(StmtKind::Assign {
                value: Rvalue::Use(Operand::Const(c)),
                ..
            }) => return Canon::Const(c.clone()),
            _ => break,
        }
    }
    Canon::Var(v)
}

struct Region {
    region: MonitorRegion,
    canon: Option<Canon>,
}

fn matches(body: &Body, r: &Region, op: &Operand) -> bool {
    if r.region.kind != MonitorKind::Block {
        return false;
    }
    if r.canon.as_ref() == Some(&canon(body, op)) {
        return true;
    }
    let p = operand_path(body, op);
    !matches!(p, AccessPath::Unknown) && p == r.region.lock
}

/// Fills `body.monitors` and `body.held_before`, adding notes for oddities.
pub(crate) fn compute(body: &mut Body) {
    // Most methods hold no monitor at all.
    let has_monitor_stmt = body
        .stmts
        .iter()
        .any(|s| matches!(s.kind, StmtKind::MonitorEnter(_) | StmtKind::MonitorExit(_)));
    if !has_monitor_stmt && !body.is_synchronized {
        body.monitors.clear();
        body.held_before = vec![None; body.stmts.len()];
        return;
    }
    let mut regions: Vec<Region> = Vec::new();
    if body.is_synchronized {
        regions.push(method_region(body));
    }
    let init: Option<u32> = if body.is_synchronized { Some(0) } else { None };
    let nb = body.blocks.len();
    let mut entry: Vec<Option<Option<u32>>> = vec![None; nb];
    let mut processed = vec![false; nb];
    let mut noted = vec![false; nb];
    let mut held: Vec<Option<u32>> = vec![None; body.stmts.len()];
    let mut notes: Vec<String> = Vec::new();
    let mut heap = BinaryHeap::new();
    if nb > 0 {
        if let Some(e) = entry.get_mut(0) {
            *e = Some(init);
        }
        heap.push(Reverse(0usize));
    }
    let mut seen_states: Vec<Option<u32>> = Vec::new();
    while let Some(Reverse(b)) = heap.pop() {
        if processed.get(b).copied().unwrap_or(true) {
            continue;
        }
        if let Some(p) = processed.get_mut(b) {
            *p = true;
        }
        let Some(block) = body.blocks.get(b) else {
            continue;
        };
        let mut state = entry.get(b).copied().flatten().unwrap_or(init);
        seen_states.clear();
        // Even an empty block passes its entry state to its handlers, so
        // that every block of the CFG gets a state.
        seen_states.push(state);
        for s in block.stmt_ids() {
            let Some(stmt) = body.stmts.get(s.index()) else {
                continue;
            };
            if let Some(h) = held.get_mut(s.index()) {
                *h = state;
            }
            if !seen_states.contains(&state) {
                seen_states.push(state);
            }
            match &stmt.kind {
                StmtKind::MonitorEnter(op) => {
                    let id = regions.len() as u32;
                    regions.push(Region {
                        region: MonitorRegion {
                            kind: MonitorKind::Block,
                            lock: operand_path(body, op),
                            lock_var: op.var(),
                            enter: Some(s),
                            exits: Vec::new(),
                            parent: state.map(MonitorId),
                        },
                        canon: Some(canon(body, op)),
                    });
                    state = Some(id);
                }
                StmtKind::MonitorExit(op) => {
                    let released = release(body, &regions, op, state, stmt.pc, &mut notes);
                    if let Some(r) = released.and_then(|r| regions.get_mut(r as usize)) {
                        r.region.exits.push(s);
                        state = r.region.parent.map(|m| m.0);
                    }
                }
                _ => {}
            }
        }
        let flow = |to: usize,
                    st: Option<u32>,
                    entry: &mut Vec<Option<Option<u32>>>,
                    noted: &mut Vec<bool>,
                    notes: &mut Vec<String>,
                    heap: &mut BinaryHeap<Reverse<usize>>| {
            match entry.get(to).copied() {
                Some(None) => {
                    if let Some(e) = entry.get_mut(to) {
                        *e = Some(st);
                    }
                    heap.push(Reverse(to));
                }
                Some(Some(old)) if old != st && !noted.get(to).copied().unwrap_or(true) => {
                    if let Some(n) = noted.get_mut(to) {
                        *n = true;
                    }
                    // The pc where the states meet: the target's first statement, else the branch.
                    let pc = body
                        .blocks
                        .get(to)
                        .filter(|bl| bl.first < bl.end)
                        .and_then(|bl| body.stmts.get(bl.first.index()))
                        .or_else(|| {
                            block
                                .end
                                .index()
                                .checked_sub(1)
                                .and_then(|i| body.stmts.get(i))
                        })
                        .map_or(0, |s| s.pc);
                    notes.push(format!("unstructured locking at pc {pc}"));
                }
                _ => {}
            }
        };
        for e in &block.exceptional {
            for &st in &seen_states {
                flow(
                    e.handler.index(),
                    st,
                    &mut entry,
                    &mut noted,
                    &mut notes,
                    &mut heap,
                );
            }
        }
        for s in &block.succs {
            flow(
                s.index(),
                state,
                &mut entry,
                &mut noted,
                &mut notes,
                &mut heap,
            );
        }
    }

    number_regions(body, regions, held);
    body.notes.extend(notes);
}

/// The region of a synchronized method: its monitor is `this` or the class.
fn method_region(body: &Body) -> Region {
    let lock = if body.is_static {
        AccessPath::ClassLiteral(body.class.clone())
    } else {
        AccessPath::This
    };
    Region {
        region: MonitorRegion {
            kind: MonitorKind::SynchronizedMethod,
            lock,
            lock_var: None,
            enter: None,
            exits: Vec::new(),
            parent: None,
        },
        canon: None,
    }
}

/// The region a `monitorexit` of `op` at `pc` releases when `state` is
/// held: the innermost region, else an outer one naming the same lock
/// (unstructured), else the innermost block region; notes the oddities.
fn release(
    body: &Body,
    regions: &[Region],
    op: &Operand,
    state: Option<u32>,
    pc: u32,
    notes: &mut Vec<String>,
) -> Option<u32> {
    let top = state;
    // The innermost region, else an outer one (unstructured).
    let mut cur = state;
    let mut found = None;
    while let Some(r) = cur {
        let Some(reg) = regions.get(r as usize) else {
            break;
        };
        if matches(body, reg, op) {
            found = Some(r);
            break;
        }
        cur = reg.region.parent.map(|m| m.0);
    }
    match (found, top) {
        (Some(r), Some(t)) if r == t => Some(r),
        (Some(r), _) => {
            notes.push(format!(
                "unstructured locking at pc {pc}: monitorexit releases an outer monitor"
            ));
            Some(r)
        }
        (None, Some(t))
            if regions
                .get(t as usize)
                .is_some_and(|r| r.region.kind == MonitorKind::Block) =>
        {
            notes.push(format!(
                "monitorexit at pc {pc} does not name the innermost lock; assumed to release it"
            ));
            Some(t)
        }
        _ => {
            notes.push(format!(
                "monitorexit at pc {pc} without a matching monitorenter"
            ));
            None
        }
    }
}

/// Numbers block regions by their enter statement (the method region stays
/// 0) and stores the regions and the monitor held before each statement.
fn number_regions(body: &mut Body, regions: Vec<Region>, held: Vec<Option<u32>>) {
    let first_block = usize::from(body.is_synchronized);
    let mut order: Vec<usize> = (first_block..regions.len()).collect();
    order.sort_by_key(|&r| {
        regions
            .get(r)
            .and_then(|x| x.region.enter)
            .map_or(u32::MAX, |s| s.0)
    });
    let mut remap = vec![0u32; regions.len()];
    for (new, &old) in order.iter().enumerate() {
        if let Some(m) = remap.get_mut(old) {
            *m = (new + first_block) as u32;
        }
    }
    let mut out: Vec<Option<MonitorRegion>> = vec![None; regions.len()];
    for (old, r) in regions.into_iter().enumerate() {
        let mut reg = r.region;
        reg.parent = reg
            .parent
            .map(|p| MonitorId(remap.get(p.index()).copied().unwrap_or(p.0)));
        reg.exits.sort();
        reg.exits.dedup();
        let new = remap.get(old).copied().unwrap_or(0) as usize;
        if let Some(slot) = out.get_mut(new) {
            *slot = Some(reg);
        }
    }
    body.monitors = out.into_iter().flatten().collect();
    body.held_before = held
        .into_iter()
        .map(|h| h.map(|r| MonitorId(remap.get(r as usize).copied().unwrap_or(r))))
        .collect();
}
