//! The flow graph of *virtual instructions*: every reachable instruction,
//! once per `jsr` calling context, with its successors and exception
//! handlers resolved.
//!
//! Without subroutines a virtual instruction is just a reachable
//! instruction, in bytecode order (unreachable code is dropped here). With
//! subroutines, each `jsr` site gets its own copy of the subroutine body
//! (recursively for nested subroutines), so `ret` becomes a plain jump back
//! to the instruction after *that* `jsr`. Copies are laid out after the
//! main body, one context after another, each in bytecode order, so a
//! fall-through stays a fall-through. When the copies would exceed ten
//! times the method size (or subroutines recurse), inlining is abandoned:
//! `jsr` becomes a jump that pushes a return address and `ret` a jump to
//! every return point (the conservative `StmtKind::Ret`).
//!
//! This module knows control flow only; it does not simulate the stack.

use std::collections::HashMap;

use lockstep_classfile::{Code, Insn};

use crate::error::LowerError;
use crate::jsr::{first_insn_from, insn_at, subroutines, Sub};

pub(crate) const NONE: u32 = u32::MAX;

/// One virtual instruction.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Node {
    /// Index into `Code::insns`.
    pub insn: u32,
    pub pc: u32,
    /// Fall-through successor, or [`NONE`].
    pub next: u32,
    /// Branch targets: `targets[t_start..t_end]`. For switches the default
    /// comes first, then the cases in instruction order.
    pub t_start: u32,
    pub t_end: u32,
    /// Covering handlers in table order (cut after a catch-all): `handlers[h_start..h_end]`.
    pub h_start: u32,
    pub h_end: u32,
}

/// A subroutine calling context.
#[derive(Clone, Copy)]
struct Ctx {
    parent: u32,
    /// Index into `subs`.
    sub: u32,
    /// Instruction index the subroutine returns to.
    ret_insn: u32,
}

enum Failure {
    Error(LowerError),
    /// Inlining abandoned for this reason; retry without it.
    Fallback(String),
}

impl From<LowerError> for Failure {
    fn from(e: LowerError) -> Failure {
        Failure::Error(e)
    }
}

/// The virtual-instruction graph of one method, with reusable storage.
#[derive(Default)]
pub(crate) struct Flat {
    pub nodes: Vec<Node>,
    pub targets: Vec<u32>,
    /// `(handler node, exception-table entry index)`.
    pub handlers: Vec<(u32, u32)>,
    /// Were subroutines inlined? (`false` also when there are none.)
    pub inlined: bool,
    /// Were there `jsr`s that could not be inlined?
    pub jsr_fallback: bool,
    // Scratch, kept across methods.
    cover_start: Vec<u32>,
    cover: Vec<u32>,
    closed: Vec<bool>,
    ctxs: Vec<Ctx>,
    ctx_children: HashMap<(u32, u32), u32>,
    dense: Vec<u32>,
    sparse: HashMap<(u32, u32), u32>,
    prov: Vec<(u32, u32)>,
    work: Vec<u32>,
    order: Vec<u32>,
    remap: Vec<u32>,
    raw_nodes: Vec<Node>,
    raw_targets: Vec<u32>,
    raw_handlers: Vec<(u32, u32)>,
    return_points: Vec<u32>,
    pending: Vec<u64>,
    /// Instruction index of each exception-table entry's handler.
    handler_insn: Vec<u32>,
    reach: Vec<bool>,
    ranges: Vec<(u32, u32, u32)>,
}

/// What one walk over a method's instructions works on.
#[derive(Clone, Copy)]
struct Walk<'a> {
    code: &'a Code,
    subs: &'a [Sub],
    /// Inline subroutines (one context per `jsr` chain) rather than keep `jsr`/`ret`.
    inline: bool,
    /// The most nodes the walk may create.
    budget: usize,
}

impl Flat {
    pub(crate) fn node_targets(&self, n: &Node) -> &[u32] {
        self.targets
            .get(n.t_start as usize..n.t_end as usize)
            .unwrap_or(&[])
    }

    pub(crate) fn node_handlers(&self, n: &Node) -> &[(u32, u32)] {
        self.handlers
            .get(n.h_start as usize..n.h_end as usize)
            .unwrap_or(&[])
    }

    /// Builds the graph for `code`; `notes` receives a note when inlining is abandoned.
    pub(crate) fn build(&mut self, code: &Code, notes: &mut Vec<String>) -> Result<(), LowerError> {
        if code.insns.is_empty() {
            return Err(LowerError::new("method has no instructions"));
        }
        if u32::try_from(code.insns.len()).is_err() {
            return Err(LowerError::new("too many instructions"));
        }
        self.coverage(code)?;
        let has_jsr = code.insns.iter().any(|(_, i)| matches!(i, Insn::Jsr(_)));
        let subs = if has_jsr {
            subroutines(code)
        } else {
            Vec::new()
        };
        self.jsr_fallback = false;
        let has_ret = code.insns.iter().any(|(_, i)| matches!(i, Insn::Ret(_)));
        if !has_jsr && !has_ret {
            self.inlined = false;
            return self.run_plain(code);
        }
        if has_jsr {
            match self.run(code, &subs, true) {
                Ok(()) => {
                    self.inlined = true;
                    return Ok(());
                }
                Err(Failure::Error(e)) => return Err(e),
                Err(Failure::Fallback(why)) => {
                    notes.push(format!(
                        "jsr subroutines not inlined ({why}); ret jumps to every return point"
                    ));
                    self.jsr_fallback = true;
                }
            }
        }
        self.inlined = false;
        match self.run(code, &subs, false) {
            Ok(()) => Ok(()),
            Err(Failure::Error(e)) => Err(e),
            Err(Failure::Fallback(why)) => Err(LowerError::new(why)),
        }
    }

    /// For each instruction, the exception-table entries covering it, in
    /// table order, cut after the first catch-all (nothing after it can be
    /// reached from there).
    fn coverage(&mut self, code: &Code) -> Result<(), LowerError> {
        let n = code.insns.len();
        self.cover_start.clear();
        self.cover_start.resize(n + 1, 0);
        self.closed.clear();
        self.closed.resize(n, false);
        let table = &code.exception_table;
        self.handler_insn.clear();
        for h in table {
            match insn_at(code, h.handler_pc) {
                Some(i) => self.handler_insn.push(i),
                None => {
                    return Err(LowerError::at(
                        h.handler_pc,
                        "exception handler does not start at an instruction",
                    ))
                }
            }
        }
        // Count, then fill (a counting sort keeps one flat array).
        for h in table {
            let (from, to) = (
                first_insn_from(code, h.start_pc),
                first_insn_from(code, h.end_pc),
            );
            for i in from..to.min(n) {
                if let (Some(c), Some(closed)) =
                    (self.cover_start.get_mut(i + 1), self.closed.get_mut(i))
                {
                    if !*closed {
                        *c += 1;
                        *closed = h.catch_type.is_none();
                    }
                }
            }
        }
        for i in 0..n {
            let prev = self.cover_start.get(i).copied().unwrap_or(0);
            if let Some(c) = self.cover_start.get_mut(i + 1) {
                *c += prev;
            }
        }
        let total = self.cover_start.get(n).copied().unwrap_or(0) as usize;
        self.cover.clear();
        self.cover.resize(total, 0);
        self.closed.iter_mut().for_each(|c| *c = false);
        // Reuse `dense` as fill cursors.
        self.dense.clear();
        self.dense
            .extend_from_slice(self.cover_start.get(..n).unwrap_or(&[]));
        for (e, h) in table.iter().enumerate() {
            let (from, to) = (
                first_insn_from(code, h.start_pc),
                first_insn_from(code, h.end_pc),
            );
            for i in from..to.min(n) {
                if let (Some(cur), Some(closed)) = (self.dense.get_mut(i), self.closed.get_mut(i)) {
                    if !*closed {
                        if let Some(slot) = self.cover.get_mut(*cur as usize) {
                            *slot = e as u32;
                        }
                        *cur += 1;
                        *closed = h.catch_type.is_none();
                    }
                }
            }
        }
        Ok(())
    }

    fn covering(&self, insn: u32) -> &[u32] {
        let s = self.cover_start.get(insn as usize).copied().unwrap_or(0) as usize;
        let e = self
            .cover_start
            .get(insn as usize + 1)
            .copied()
            .unwrap_or(0) as usize;
        self.cover.get(s..e).unwrap_or(&[])
    }

    fn node_id(&mut self, ctx: u32, insn: u32, budget: usize) -> Result<u32, Failure> {
        let existing = if ctx == 0 {
            self.dense.get(insn as usize).copied().unwrap_or(NONE)
        } else {
            self.sparse.get(&(ctx, insn)).copied().unwrap_or(NONE)
        };
        if existing != NONE {
            return Ok(existing);
        }
        if self.prov.len() >= budget {
            return Err(Failure::Fallback(format!(
                "copies would exceed {budget} instructions"
            )));
        }
        let id = self.prov.len() as u32;
        self.prov.push((ctx, insn));
        if ctx == 0 {
            if let Some(d) = self.dense.get_mut(insn as usize) {
                *d = id;
            }
        } else {
            self.sparse.insert((ctx, insn), id);
        }
        self.work.push(id);
        Ok(id)
    }

    /// The context in which instruction `insn`, reached from context `ctx`, runs:
    /// leaving a subroutine's members without `ret` abandons it.
    fn resolve(&self, subs: &[Sub], mut ctx: u32, insn: u32) -> u32 {
        while ctx != 0 {
            let Some(c) = self.ctxs.get(ctx as usize) else {
                return 0;
            };
            match subs.get(c.sub as usize) {
                Some(s) if s.contains(insn) => return ctx,
                _ => ctx = c.parent,
            }
        }
        0
    }

    fn handler_ctx(&self, subs: &[Sub], mut ctx: u32, entry: u32) -> u32 {
        while ctx != 0 {
            let Some(c) = self.ctxs.get(ctx as usize) else {
                return 0;
            };
            match subs.get(c.sub as usize) {
                Some(s) if s.owns_handler(entry as usize) => return ctx,
                _ => ctx = c.parent,
            }
        }
        0
    }

    fn run(&mut self, code: &Code, subs: &[Sub], inline: bool) -> Result<(), Failure> {
        let budget = code.insns.len().saturating_mul(10).saturating_add(64);
        self.reset(code, inline);
        self.node_id(0, 0, budget)?;
        self.explore(Walk {
            code,
            subs,
            inline,
            budget,
        })?;
        self.lay_out();
        Ok(())
    }

    /// Empties the tables of the previous method; without inlining, notes
    /// the return point of every `jsr`.
    fn reset(&mut self, code: &Code, inline: bool) {
        self.dense.clear();
        self.dense.resize(code.insns.len(), NONE);
        self.sparse.clear();
        self.prov.clear();
        self.work.clear();
        self.ctxs.clear();
        self.ctxs.push(Ctx {
            parent: 0,
            sub: u32::MAX,
            ret_insn: NONE,
        });
        self.ctx_children.clear();
        self.raw_nodes.clear();
        self.raw_targets.clear();
        self.raw_handlers.clear();
        self.return_points.clear();
        if !inline {
            for (i, (_, insn)) in code.insns.iter().enumerate() {
                if matches!(insn, Insn::Jsr(_)) {
                    self.return_points.push(i as u32 + 1);
                }
            }
        }
    }

    /// Visits the nodes in discovery order, recording each one's
    /// successors and handlers (`raw_nodes[id]` is filled when popped).
    fn explore(&mut self, w: Walk<'_>) -> Result<(), Failure> {
        let mut cursor = 0usize;
        let mut pending = std::mem::take(&mut self.pending);
        while cursor < self.work.len() {
            let id = self.work.get(cursor).copied().unwrap_or(0);
            cursor += 1;
            let Some(&(ctx, i)) = self.prov.get(id as usize) else {
                continue;
            };
            let Some((pc, _)) = w.code.insns.get(i as usize) else {
                continue;
            };
            let pc = *pc;
            pending.clear();
            let next = self.successors(w, ctx, i, &mut pending)?;
            self.record(w, (id, ctx, i, pc), &pending, next)?;
        }
        self.pending = pending;
        Ok(())
    }

    /// The jump targets of instruction `i` in context `ctx` into `pending`
    /// (packed), and its fall-through successor if it has one.
    fn successors(
        &mut self,
        w: Walk<'_>,
        ctx: u32,
        i: u32,
        pending: &mut Vec<u64>,
    ) -> Result<Option<(u32, u32)>, Failure> {
        let n = w.code.insns.len();
        let Some((pc, insn)) = w.code.insns.get(i as usize) else {
            return Ok(None);
        };
        let pc = *pc;
        let target = |this: &Self, t: u32| -> Result<(u32, u32), LowerError> {
            let ti = insn_at(w.code, t).ok_or_else(|| {
                LowerError::at(pc, format!("branch to pc {t}, which is not an instruction"))
            })?;
            Ok((this.resolve(w.subs, ctx, ti), ti))
        };
        let fall = |this: &Self| -> Result<(u32, u32), LowerError> {
            let ni = i + 1;
            if ni as usize >= n {
                return Err(LowerError::at(
                    pc,
                    "execution falls off the end of the code",
                ));
            }
            Ok((this.resolve(w.subs, ctx, ni), ni))
        };
        let mut next = None;
        match insn {
            Insn::If(_, t) => {
                pending.push(pack(target(self, *t)?));
                next = Some(fall(self)?);
            }
            Insn::Goto(t) => pending.push(pack(target(self, *t)?)),
            Insn::TableSwitch {
                default, targets, ..
            } => {
                pending.push(pack(target(self, *default)?));
                for t in targets {
                    pending.push(pack(target(self, *t)?));
                }
            }
            Insn::LookupSwitch { default, pairs } => {
                pending.push(pack(target(self, *default)?));
                for (_, t) in pairs {
                    pending.push(pack(target(self, *t)?));
                }
            }
            Insn::Return(_) | Insn::AThrow => {}
            Insn::Jsr(t) => {
                let ti = insn_at(w.code, *t).ok_or_else(|| {
                    LowerError::at(pc, format!("jsr to pc {t}, which is not an instruction"))
                })?;
                if w.inline {
                    let child = self.child_ctx(w.subs, ctx, i, ti)?;
                    pending.push(pack((child, ti)));
                } else {
                    pending.push(pack((0, ti)));
                }
            }
            Insn::Ret(_) => self.ret_successors(w, ctx, i, pc, pending)?,
            _ => next = Some(fall(self)?),
        }
        Ok(next)
    }

    /// Where a `ret` returns to: with inlining, after the `jsr` of its
    /// context; without, after every `jsr` of the subroutines containing
    /// it (else after every `jsr`).
    fn ret_successors(
        &mut self,
        w: Walk<'_>,
        ctx: u32,
        i: u32,
        pc: u32,
        pending: &mut Vec<u64>,
    ) -> Result<(), Failure> {
        let n = w.code.insns.len();
        if w.inline {
            if ctx == 0 {
                return Err(Failure::Error(LowerError::at(
                    pc,
                    "ret outside of a subroutine",
                )));
            }
            let c = self
                .ctxs
                .get(ctx as usize)
                .copied()
                .ok_or_else(|| LowerError::at(pc, "bad context"))?;
            if c.ret_insn as usize >= n {
                return Err(Failure::Error(LowerError::at(
                    pc,
                    "subroutine returns past the end of the code",
                )));
            }
            let rc = self.resolve(w.subs, c.parent, c.ret_insn);
            pending.push(pack((rc, c.ret_insn)));
        } else {
            // Return points of the subroutines containing this ret, else all.
            let mut any = false;
            for (j, (_, ji)) in w.code.insns.iter().enumerate() {
                if let Insn::Jsr(t) = ji {
                    let owner =
                        insn_at(w.code, *t).and_then(|e| w.subs.iter().find(|s| s.entry == e));
                    if owner.is_some_and(|s| s.contains(i)) && j + 1 < n {
                        pending.push(pack((0, j as u32 + 1)));
                        any = true;
                    }
                }
            }
            if !any {
                for k in 0..self.return_points.len() {
                    let rp = self.return_points.get(k).copied().unwrap_or(NONE);
                    if (rp as usize) < n {
                        pending.push(pack((0, rp)));
                    }
                }
            }
            if pending.is_empty() {
                return Err(Failure::Error(LowerError::at(pc, "ret without any jsr")));
            }
            pending.sort_unstable();
            pending.dedup();
        }
        Ok(())
    }

    /// Records node `id` (instruction `i` at `pc` in context `ctx`) with
    /// its targets, fall-through and handlers, creating their nodes.
    fn record(
        &mut self,
        w: Walk<'_>,
        (id, ctx, i, pc): (u32, u32, u32, u32),
        pending: &[u64],
        next: Option<(u32, u32)>,
    ) -> Result<(), Failure> {
        let t_start = self.raw_targets.len() as u32;
        for k in 0..pending.len() {
            let (c, ti) = unpack(pending.get(k).copied().unwrap_or(0));
            let tid = self.node_id(c, ti, w.budget)?;
            self.raw_targets.push(tid);
        }
        let t_end = self.raw_targets.len() as u32;
        let next_id = match next {
            Some((c, ni)) => self.node_id(c, ni, w.budget)?,
            None => NONE,
        };
        let h_start = self.raw_handlers.len() as u32;
        let cover_len = self.covering(i).len();
        for k in 0..cover_len {
            let e = self.covering(i).get(k).copied().unwrap_or(0);
            let Some(&hi) = self.handler_insn.get(e as usize) else {
                continue;
            };
            let hc = if w.inline {
                self.handler_ctx(w.subs, ctx, e)
            } else {
                0
            };
            let hid = self.node_id(hc, hi, w.budget)?;
            self.raw_handlers.push((hid, e));
        }
        let h_end = self.raw_handlers.len() as u32;
        let node = Node {
            insn: i,
            pc,
            next: next_id,
            t_start,
            t_end,
            h_start,
            h_end,
        };
        if self.raw_nodes.len() <= id as usize {
            self.raw_nodes.resize(id as usize + 1, node);
        }
        if let Some(slot) = self.raw_nodes.get_mut(id as usize) {
            *slot = node;
        }
        Ok(())
    }

    /// Lays the nodes out by (context, instruction) and renumbers them,
    /// their targets and their handlers.
    fn lay_out(&mut self) {
        self.order.clear();
        if self.ctxs.len() == 1 {
            // One context: instruction order, no sort needed.
            self.order
                .extend(self.dense.iter().copied().filter(|&id| id != NONE));
        } else {
            self.order.extend(0..self.prov.len() as u32);
            let prov = &self.prov;
            self.order
                .sort_unstable_by_key(|&id| prov.get(id as usize).copied().unwrap_or((NONE, NONE)));
        }
        self.remap.clear();
        self.remap.resize(self.prov.len(), NONE);
        for (new, &old) in self.order.iter().enumerate() {
            if let Some(r) = self.remap.get_mut(old as usize) {
                *r = new as u32;
            }
        }
        let remap = |x: u32, remap: &[u32]| {
            if x == NONE {
                NONE
            } else {
                remap.get(x as usize).copied().unwrap_or(NONE)
            }
        };
        self.nodes.clear();
        self.targets.clear();
        self.handlers.clear();
        for k in 0..self.order.len() {
            let old = self.order.get(k).copied().unwrap_or(0);
            let Some(raw) = self.raw_nodes.get(old as usize).copied() else {
                continue;
            };
            let t_start = self.targets.len() as u32;
            for t in raw.t_start..raw.t_end {
                let x = self.raw_targets.get(t as usize).copied().unwrap_or(NONE);
                self.targets.push(remap(x, &self.remap));
            }
            let h_start = self.handlers.len() as u32;
            for h in raw.h_start..raw.h_end {
                let (x, e) = self
                    .raw_handlers
                    .get(h as usize)
                    .copied()
                    .unwrap_or((NONE, 0));
                self.handlers.push((remap(x, &self.remap), e));
            }
            self.nodes.push(Node {
                next: remap(raw.next, &self.remap),
                t_start,
                t_end: self.targets.len() as u32,
                h_start,
                h_end: self.handlers.len() as u32,
                ..raw
            });
        }
    }

    /// [`Self::run`] for code without subroutines (nearly all code): one
    /// context, so nodes are the reachable instructions in order and no
    /// sort or map is needed.
    fn run_plain(&mut self, code: &Code) -> Result<(), LowerError> {
        let n = code.insns.len();
        self.reach.clear();
        self.reach.resize(n, false);
        self.ranges.clear();
        self.ranges.resize(n, (0, 0, NONE));
        self.raw_targets.clear();
        self.work.clear();
        self.work.push(0);
        while let Some(i) = self.work.pop() {
            match self.reach.get_mut(i as usize) {
                Some(r) if !*r => *r = true,
                _ => continue,
            }
            let Some((pc, insn)) = code.insns.get(i as usize) else {
                continue;
            };
            let pc = *pc;
            let start = self.raw_targets.len() as u32;
            let push = |this: &mut Self, t: u32| -> Result<(), LowerError> {
                let ti = insn_at(code, t).ok_or_else(|| {
                    LowerError::at(pc, format!("branch to pc {t}, which is not an instruction"))
                })?;
                this.raw_targets.push(ti);
                this.work.push(ti);
                Ok(())
            };
            let mut falls = false;
            match insn {
                Insn::If(_, t) => {
                    push(self, *t)?;
                    falls = true;
                }
                Insn::Goto(t) => push(self, *t)?,
                Insn::TableSwitch {
                    default, targets, ..
                } => {
                    push(self, *default)?;
                    for t in targets {
                        push(self, *t)?;
                    }
                }
                Insn::LookupSwitch { default, pairs } => {
                    push(self, *default)?;
                    for (_, t) in pairs {
                        push(self, *t)?;
                    }
                }
                Insn::Return(_) | Insn::AThrow => {}
                _ => falls = true,
            }
            let next = if falls {
                if i as usize + 1 >= n {
                    return Err(LowerError::at(
                        pc,
                        "execution falls off the end of the code",
                    ));
                }
                self.work.push(i + 1);
                i + 1
            } else {
                NONE
            };
            for k in 0..self.covering(i).len() {
                let e = self.covering(i).get(k).copied().unwrap_or(0);
                if let Some(&hi) = self.handler_insn.get(e as usize) {
                    self.work.push(hi);
                }
            }
            if let Some(r) = self.ranges.get_mut(i as usize) {
                *r = (start, self.raw_targets.len() as u32, next);
            }
        }
        // Node ids: ranks of the reachable instructions.
        self.dense.clear();
        let mut rank = 0u32;
        for &r in &self.reach {
            self.dense.push(if r { rank } else { NONE });
            rank += u32::from(r);
        }
        let node_of = |dense: &[u32], i: u32| dense.get(i as usize).copied().unwrap_or(NONE);
        self.nodes.clear();
        self.targets.clear();
        self.handlers.clear();
        for (i, (pc, _)) in code.insns.iter().enumerate() {
            if !self.reach.get(i).copied().unwrap_or(false) {
                continue;
            }
            let (ts, te, next) = self.ranges.get(i).copied().unwrap_or((0, 0, NONE));
            let t_start = self.targets.len() as u32;
            for t in ts..te {
                let ti = self.raw_targets.get(t as usize).copied().unwrap_or(NONE);
                self.targets.push(node_of(&self.dense, ti));
            }
            let h_start = self.handlers.len() as u32;
            for k in 0..self.covering(i as u32).len() {
                let e = self.covering(i as u32).get(k).copied().unwrap_or(0);
                let hi = self.handler_insn.get(e as usize).copied().unwrap_or(NONE);
                self.handlers.push((node_of(&self.dense, hi), e));
            }
            self.nodes.push(Node {
                insn: i as u32,
                pc: *pc,
                next: if next == NONE {
                    NONE
                } else {
                    node_of(&self.dense, next)
                },
                t_start,
                t_end: self.targets.len() as u32,
                h_start,
                h_end: self.handlers.len() as u32,
            });
        }
        Ok(())
    }

    fn child_ctx(
        &mut self,
        subs: &[Sub],
        ctx: u32,
        jsr_insn: u32,
        entry: u32,
    ) -> Result<u32, Failure> {
        if let Some(&c) = self.ctx_children.get(&(ctx, jsr_insn)) {
            return Ok(c);
        }
        let sub =
            subs.iter()
                .position(|s| s.entry == entry)
                .ok_or_else(|| Failure::Fallback("unknown subroutine".into()))? as u32;
        // A subroutine calling itself (directly or not) cannot be inlined.
        let mut c = ctx;
        while c != 0 {
            let Some(x) = self.ctxs.get(c as usize) else {
                break;
            };
            if x.sub == sub {
                return Err(Failure::Fallback("recursive subroutine".into()));
            }
            c = x.parent;
        }
        let id = self.ctxs.len() as u32;
        self.ctxs.push(Ctx {
            parent: ctx,
            sub,
            ret_insn: jsr_insn + 1,
        });
        self.ctx_children.insert((ctx, jsr_insn), id);
        Ok(id)
    }
}

fn pack((ctx, insn): (u32, u32)) -> u64 {
    (u64::from(ctx) << 32) | u64::from(insn)
}

fn unpack(x: u64) -> (u32, u32) {
    ((x >> 32) as u32, x as u32)
}
