//! Operand-stack simulation: turns the instructions of each basic block
//! into three-address statements over *per-slot* variables.
//!
//! Each block is simulated once with a symbolic stack. Loads of locals and
//! constants only push operands; every other value-producing instruction
//! emits one statement into a fresh temporary, and heap accesses and calls
//! are one statement each. Before a store (or `iinc`) to slot *n*, stack
//! entries still naming slot *n* are copied to a temporary, so `x++`
//! patterns read the old value. Values left on the stack at the end of a
//! block are copied into the canonical `Stack(depth)` variables, which the
//! successor starts from (a parallel move: sources that would be
//! overwritten are saved first). Two peephole rules keep the output close
//! to source: a store right after the statement producing its value
//! retargets that statement (`x = a.f` instead of `t = a.f; x = t`), and a
//! popped call result becomes `result: None`.
//!
//! It deliberately does not split locals (one variable per slot here; see
//! [`crate::split`]), infer types beyond what an instruction states (see
//! [`crate::types`]), or know about monitors.

use std::sync::Arc;

use lockstep_classfile::descriptor;
use lockstep_classfile::{
    ArrayKind, ClassFile, Code, Constant, ConstantPool, ConvertTo, IfKind, Insn, InvokeKind, Kind,
};

use crate::cfg::{Caught, Cfg, PKind};
use crate::desc::{self, Interner};
use crate::error::LowerError;
use crate::flat::{Flat, Node, NONE};
use crate::ir::*;

/// What a variable of the unsplit code stands for.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Pre {
    Slot(u16),
    Stack(u16),
    Temp,
}

#[derive(Clone, PartialEq, Debug)]
enum SVal {
    Op(Operand),
    /// A `jsr` return address while subroutines are inlined: it never becomes a variable.
    Ret,
}

#[derive(Clone, Debug)]
struct Entry {
    v: SVal,
    wide: bool,
}

impl Entry {
    fn words(&self) -> u32 {
        if self.wide {
            2
        } else {
            1
        }
    }
    fn is_var(&self, v: VarId) -> bool {
        matches!(&self.v, SVal::Op(Operand::Var(x)) if *x == v)
    }
}

const SHAPE_CAT1: u8 = 1;
const SHAPE_CAT2: u8 = 2;
const SHAPE_RET: u8 = 3;

/// Side information per generated statement.
#[derive(Clone, Debug)]
pub(crate) struct Aux {
    /// Type of the defined value when the instruction states it (copies: `None`, inferred later).
    pub ty: Option<Type>,
    /// `LocalVariableTable` entry covering a local's definition, or `NONE`.
    pub lvt: u32,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct GenBlock {
    pub start: u32,
    pub end: u32,
    pub succs: Vec<BlockId>,
    pub exceptional: Vec<ExceptionEdge>,
}

/// Everything read-only the simulation needs.
pub(crate) struct Cx<'a> {
    pub class: &'a ClassFile,
    pub code: &'a Code,
    pub flat: &'a Flat,
    pub cfg: &'a Cfg,
}

#[derive(Default)]
pub(crate) struct Gen {
    pub pre: Vec<Pre>,
    pub stmts: Vec<Stmt>,
    pub aux: Vec<Aux>,
    pub blocks: Vec<GenBlock>,
    pub max_locals: u16,
    stack_var: Vec<u32>,
    stack: Vec<Entry>,
    shape_arena: Vec<u8>,
    shapes: Vec<(u32, u32)>,
    shape_buf: Vec<u8>,
    done: Vec<bool>,
    /// Blocks whose entry stack is known, waiting to be simulated.
    ready: Vec<bool>,
    /// Lowest block id that may be ready.
    cursor: u32,
    block_start: u32,
    /// `(trampoline block, target)` to emit once the current block is closed.
    pending_trampoline: Option<(u32, u32)>,
    pc: u32,
    line: Option<u32>,
    line_cache: LineCache,
}

/// The line-table entry found last: instructions come in increasing pc
/// order within a block, so the next lookup usually hits it.
#[derive(Default, Clone, Copy)]
struct LineCache {
    /// `pc` range `from..to` mapped to `line`.
    from: u32,
    to: u32,
    line: Option<u32>,
}

fn kind_type(k: Kind) -> Type {
    match k {
        Kind::Int => Type::Int,
        Kind::Long => Type::Long,
        Kind::Float => Type::Float,
        Kind::Double => Type::Double,
        Kind::Ref => Type::Ref(None),
    }
}

fn array_desc(k: ArrayKind) -> &'static str {
    match k {
        ArrayKind::Int => "[I",
        ArrayKind::Long => "[J",
        ArrayKind::Float => "[F",
        ArrayKind::Double => "[D",
        ArrayKind::Ref => "[Ljava/lang/Object;",
        ArrayKind::Byte => "[B",
        ArrayKind::Char => "[C",
        ArrayKind::Short => "[S",
        ArrayKind::Boolean => "[Z",
    }
}

/// The line of `pc`: the last `LineNumberTable` entry starting at or before it.
pub(crate) fn line_at(code: &Code, pc: u32) -> Option<u32> {
    let i = code.line_numbers.partition_point(|l| l.start_pc <= pc);
    i.checked_sub(1)
        .and_then(|i| code.line_numbers.get(i))
        .map(|l| l.line)
}

/// The `LocalVariableTable` entry for `slot` covering `pc`, or `NONE`.
pub(crate) fn lvt_at(code: &Code, slot: u16, pc: u32) -> u32 {
    code.local_variables
        .iter()
        .position(|l| {
            l.index == slot
                && l.start_pc <= pc
                && u64::from(pc) < u64::from(l.start_pc) + u64::from(l.length)
        })
        .map_or(NONE, |i| i as u32)
}

fn resolve_handle(
    cp: &ConstantPool,
    kind: u8,
    reference: u16,
    pc: u32,
) -> Result<MethodHandle, LowerError> {
    let (member, is_interface) = match cp.get(reference) {
        Some(Constant::FieldRef(m)) | Some(Constant::MethodRef(m)) => (m.clone(), false),
        Some(Constant::InterfaceMethodRef(m)) => (m.clone(), true),
        _ => {
            return Err(LowerError::at(
                pc,
                format!("method handle refers to #{reference}, not a member"),
            ))
        }
    };
    Ok(MethodHandle {
        kind,
        member,
        is_interface,
    })
}

/// A loadable constant (for `ldc` and bootstrap arguments) and whether it takes two stack words.
pub(crate) fn loadable(
    cp: &ConstantPool,
    idx: u16,
    pc: u32,
) -> Result<(ConstValue, bool), LowerError> {
    Ok(match cp.get(idx) {
        Some(Constant::Integer(v)) => (ConstValue::Int(*v), false),
        Some(Constant::Float(v)) => (ConstValue::Float(*v), false),
        Some(Constant::Long(v)) => (ConstValue::Long(*v), true),
        Some(Constant::Double(v)) => (ConstValue::Double(*v), true),
        Some(Constant::String(s)) => (ConstValue::String(s.clone()), false),
        Some(Constant::Class(c)) => (ConstValue::Class(c.clone()), false),
        Some(Constant::MethodType(d)) => (ConstValue::MethodType(d.clone()), false),
        Some(Constant::MethodHandle { kind, reference }) => (
            ConstValue::MethodHandle(resolve_handle(cp, *kind, *reference, pc)?),
            false,
        ),
        Some(Constant::Dynamic {
            name, descriptor, ..
        }) => (
            ConstValue::Dynamic {
                name: name.clone(),
                descriptor: descriptor.clone(),
            },
            descriptor::is_wide(descriptor),
        ),
        _ => {
            return Err(LowerError::at(
                pc,
                format!("constant #{idx} is not loadable"),
            ))
        }
    })
}

impl Gen {
    fn set_pc(&mut self, code: &Code, pc: u32) {
        self.pc = pc;
        let c = self.line_cache;
        if c.from <= pc && pc < c.to {
            self.line = c.line;
            return;
        }
        let i = code.line_numbers.partition_point(|l| l.start_pc <= pc);
        let entry = i.checked_sub(1).and_then(|i| code.line_numbers.get(i));
        let from = entry.map_or(0, |l| l.start_pc);
        let to = code.line_numbers.get(i).map_or(u32::MAX, |l| l.start_pc);
        self.line = entry.map(|l| l.line);
        self.line_cache = LineCache {
            from,
            to,
            line: self.line,
        };
    }

    fn err<T>(&self, msg: impl Into<String>) -> Result<T, LowerError> {
        Err(LowerError::at(self.pc, msg))
    }

    fn temp(&mut self) -> VarId {
        let v = VarId(self.pre.len() as u32);
        self.pre.push(Pre::Temp);
        v
    }

    fn stack_var(&mut self, depth: usize) -> Result<VarId, LowerError> {
        let d = u16::try_from(depth).or_else(|_| self.err("operand stack too deep"))?;
        if self.stack_var.len() <= depth {
            self.stack_var.resize(depth + 1, NONE);
        }
        let slot = self.stack_var.get(depth).copied().unwrap_or(NONE);
        if slot != NONE {
            return Ok(VarId(slot));
        }
        let v = VarId(self.pre.len() as u32);
        self.pre.push(Pre::Stack(d));
        if let Some(s) = self.stack_var.get_mut(depth) {
            *s = v.0;
        }
        Ok(v)
    }

    fn emit(&mut self, kind: StmtKind, ty: Option<Type>) {
        self.stmts.push(Stmt {
            kind,
            pc: self.pc,
            line: self.line,
        });
        self.aux.push(Aux { ty, lvt: NONE });
    }

    /// `dst = value` into a fresh temporary, pushed on the stack.
    /// Emit a call statement; a non-`void` result goes to a fresh temporary
    /// pushed on the stack.
    fn emit_call(
        &mut self,
        ret: &str,
        interner: &mut Interner,
        make: impl FnOnce(Option<VarId>) -> StmtKind,
    ) {
        if ret == "V" {
            self.emit(make(None), None);
        } else {
            let t = self.temp();
            let ty = interner.type_of(ret);
            self.emit(make(Some(t)), Some(ty));
            self.push_op(Operand::Var(t), descriptor::is_wide(ret));
        }
    }

    fn push_assign(&mut self, value: Rvalue, ty: Option<Type>, wide: bool) {
        let t = self.temp();
        self.emit(StmtKind::Assign { dst: t, value }, ty);
        self.stack.push(Entry {
            v: SVal::Op(Operand::Var(t)),
            wide,
        });
    }

    fn push_op(&mut self, op: Operand, wide: bool) {
        self.stack.push(Entry {
            v: SVal::Op(op),
            wide,
        });
    }

    fn pop(&mut self) -> Result<Entry, LowerError> {
        match self.stack.pop() {
            Some(e) => Ok(e),
            None => self.err("stack underflow (pop with empty stack)"),
        }
    }

    fn pop_op(&mut self) -> Result<Operand, LowerError> {
        match self.pop()?.v {
            SVal::Op(o) => Ok(o),
            SVal::Ret => self.err("a return address used as a value"),
        }
    }

    fn slot(&self, n: u16, wide: bool) -> Result<VarId, LowerError> {
        let last = u32::from(n) + u32::from(wide);
        if last >= u32::from(self.max_locals) {
            return self.err(format!(
                "local slot {n} out of range (max_locals {})",
                self.max_locals
            ));
        }
        Ok(VarId(u32::from(n)))
    }

    /// Copies stack entries naming variable `v` into a temporary, before `v` is overwritten.
    fn materialise(&mut self, v: VarId) {
        if !self.stack.iter().any(|e| e.is_var(v)) {
            return;
        }
        self.copy_out_of(v);
    }

    /// Copies `v` into a fresh temporary and makes every stack entry naming
    /// `v` name the temporary instead; returns the temporary.
    fn copy_out_of(&mut self, v: VarId) -> VarId {
        let t = self.temp();
        self.emit(
            StmtKind::Assign {
                dst: t,
                value: Rvalue::Use(Operand::Var(v)),
            },
            None,
        );
        for e in &mut self.stack {
            if e.is_var(v) {
                e.v = SVal::Op(Operand::Var(t));
            }
        }
        t
    }

    /// Is `t` a temporary defined by the last statement of the current block and
    /// named by no stack entry? Then that statement can be retargeted or its result dropped.
    fn last_defines_free_temp(&self, t: VarId) -> bool {
        let n = self.stmts.len();
        if n as u32 <= self.block_start || self.pre.get(t.index()) != Some(&Pre::Temp) {
            return false;
        }
        let defines = self.stmts.last().and_then(|s| s.kind.def()) == Some(t);
        defines && !self.stack.iter().any(|e| e.is_var(t))
    }

    fn store(
        &mut self,
        cx: &Cx<'_>,
        node: &Node,
        n: u16,
        value: Entry,
        wide: bool,
    ) -> Result<(), LowerError> {
        let dst = self.slot(n, wide)?;
        let op = match value.v {
            SVal::Ret => return Ok(()), // inlined subroutine: the address is not needed
            SVal::Op(op) => op,
        };
        if op == Operand::Var(dst) {
            return Ok(()); // `iload 1; istore 1`
        }
        let next_pc = cx
            .code
            .insns
            .get(node.insn as usize + 1)
            .map_or(cx.code.code_length, |(p, _)| *p);
        let lvt = lvt_at(cx.code, n, next_pc);
        if let Operand::Var(t) = op {
            if self.last_defines_free_temp(t) {
                // Retarget the producing statement; entries naming the old value of
                // the slot must be saved *before* it.
                if let (Some(mut last), Some(mut aux)) = (self.stmts.pop(), self.aux.pop()) {
                    self.materialise(dst);
                    if let Some(d) = last.kind.def_mut() {
                        *d = dst;
                    }
                    aux.lvt = lvt;
                    self.stmts.push(last);
                    self.aux.push(aux);
                    return Ok(());
                }
            }
        }
        self.materialise(dst);
        self.emit(
            StmtKind::Assign {
                dst,
                value: Rvalue::Use(op),
            },
            None,
        );
        if let Some(a) = self.aux.last_mut() {
            a.lvt = lvt;
        }
        Ok(())
    }

    /// `pop` of a value: a call whose result nobody reads gets `result: None`.
    fn discard(&mut self, e: Entry) {
        if let SVal::Op(Operand::Var(t)) = e.v {
            if self.last_defines_free_temp(t) {
                if let Some(last) = self.stmts.last_mut() {
                    match &mut last.kind {
                        StmtKind::Invoke { result, .. }
                        | StmtKind::InvokeDynamic { result, .. } => *result = None,
                        _ => {}
                    }
                }
            }
        }
    }

    /// The `dup` family: copies the top `n` words and inserts them below the next `skip` words.
    fn dup(&mut self, n: u32, skip: u32) -> Result<(), LowerError> {
        let len = self.stack.len();
        let mut k = 0;
        let mut w = 0;
        while w < n {
            let Some(e) = len.checked_sub(k + 1).and_then(|i| self.stack.get(i)) else {
                return self.err("stack underflow in dup");
            };
            w += e.words();
            k += 1;
        }
        let mut j = 0;
        let mut ws = 0;
        while ws < skip {
            let Some(e) = len.checked_sub(k + j + 1).and_then(|i| self.stack.get(i)) else {
                return self.err("stack underflow in dup");
            };
            ws += e.words();
            j += 1;
        }
        if w != n || ws != skip {
            return self.err("dup splits a long or double value");
        }
        let at = len - k - j;
        // At most two entries (two words); copy them before inserting shifts the stack.
        let copies = [
            self.stack.get(len - k).cloned(),
            if k == 2 {
                self.stack.get(len - 1).cloned()
            } else {
                None
            },
        ];
        for (i, e) in copies.into_iter().flatten().enumerate() {
            self.stack.insert(at + i, e);
        }
        Ok(())
    }

    fn shape_of(&self, b: u32) -> Option<&[u8]> {
        let (s, l) = self.shapes.get(b as usize).copied()?;
        if l == NONE {
            return None;
        }
        self.shape_arena.get(s as usize..(s + l) as usize)
    }

    /// Records (or checks) the stack shape at the entry of successor `succ`.
    fn flow_to(&mut self, cx: &Cx<'_>, succ: u32) -> Result<(), LowerError> {
        if cx
            .cfg
            .caught
            .get(succ as usize)
            .is_some_and(|c| *c != Caught::NotAHandler)
        {
            return self.err("an exception handler is also reached by normal control flow");
        }
        self.shape_buf.clear();
        for e in &self.stack {
            self.shape_buf.push(match (&e.v, e.wide) {
                (SVal::Ret, _) => SHAPE_RET,
                (_, true) => SHAPE_CAT2,
                (_, false) => SHAPE_CAT1,
            });
        }
        match self.shape_of(succ) {
            Some(s) if s == self.shape_buf.as_slice() => {}
            Some(s) => {
                let msg = format!(
                    "inconsistent operand stacks at a merge (heights {} and {}, or different value sizes)",
                    s.len(),
                    self.shape_buf.len()
                );
                return self.err(msg);
            }
            None => {
                let start = self.shape_arena.len() as u32;
                self.shape_arena.extend_from_slice(&self.shape_buf);
                if let Some(slot) = self.shapes.get_mut(succ as usize) {
                    *slot = (start, self.shape_buf.len() as u32);
                }
            }
        }
        self.mark_ready(succ);
        Ok(())
    }

    /// Copies the remaining stack into the `Stack(depth)` variables before a
    /// block ends; `extra` are the terminator's operands, which must still
    /// read the values from before the copies.
    fn materialise_out(&mut self, extra: &mut [Operand]) -> Result<(), LowerError> {
        let height = self.stack.len();
        for d in 0..height {
            if matches!(self.stack.get(d).map(|e| &e.v), Some(SVal::Ret) | None) {
                continue;
            }
            let sv = self.stack_var(d)?;
            if self.stack.get(d).is_some_and(|e| e.is_var(sv)) {
                continue;
            }
            let referenced =
                self.stack.iter().any(|e| e.is_var(sv)) || extra.contains(&Operand::Var(sv));
            if referenced {
                let t = self.copy_out_of(sv);
                for o in extra.iter_mut() {
                    if *o == Operand::Var(sv) {
                        *o = Operand::Var(t);
                    }
                }
            }
        }
        for d in 0..height {
            let Some(e) = self.stack.get(d) else { continue };
            let SVal::Op(op) = e.v.clone() else { continue };
            let sv = self.stack_var(d)?;
            if op != Operand::Var(sv) {
                self.emit(
                    StmtKind::Assign {
                        dst: sv,
                        value: Rvalue::Use(op),
                    },
                    None,
                );
                // The entry now lives in its stack variable: copying out again is a no-op.
                if let Some(e) = self.stack.get_mut(d) {
                    e.v = SVal::Op(Operand::Var(sv));
                }
            }
        }
        Ok(())
    }

    /// Simulates the whole method; statements end up in `self.stmts` in processing order.
    pub(crate) fn run(&mut self, cx: &Cx<'_>, interner: &mut Interner) -> Result<(), LowerError> {
        let nb = cx.cfg.blocks.len();
        self.max_locals = cx.code.max_locals;
        self.pre.clear();
        self.pre.extend((0..self.max_locals).map(Pre::Slot));
        self.stack_var.clear();
        self.stmts.clear();
        self.aux.clear();
        // Most methods need fewer statements than instructions: one allocation, no growth.
        let estimate = cx.code.insns.len() * 3 / 4 + 8;
        self.stmts.reserve(estimate);
        self.aux.reserve(estimate);
        self.line_cache = LineCache::default();
        self.blocks.clear();
        self.blocks.resize(nb, GenBlock::default());
        self.shape_arena.clear();
        self.shapes.clear();
        self.shapes.resize(nb, (0, NONE));
        if let Some(s) = self.shapes.get_mut(0) {
            *s = (0, 0);
        }
        self.done.clear();
        self.done.resize(nb, false);
        self.pending_trampoline = None;
        self.ready.clear();
        self.ready.resize(nb, false);
        self.cursor = 0;
        self.mark_ready(0);
        // Blocks are simulated in layout order as far as possible (a block
        // waits until a predecessor has fixed its entry stack), so that the
        // statements usually come out already in layout order.
        while (self.cursor as usize) < nb {
            let b = self.cursor;
            let is_ready = self.ready.get(b as usize).copied().unwrap_or(false);
            let is_done = self.done.get(b as usize).copied().unwrap_or(true);
            if !is_ready || is_done {
                self.cursor += 1;
                continue;
            }
            if let Some(d) = self.done.get_mut(b as usize) {
                *d = true;
            }
            let Some(pb) = cx.cfg.blocks.get(b as usize).copied() else {
                continue;
            };
            match pb.kind {
                PKind::Pad => {
                    let start = self.stmts.len() as u32;
                    self.stack.clear();
                    self.flow_to(cx, b + 1)?;
                    if let Some(gb) = self.blocks.get_mut(b as usize) {
                        *gb = GenBlock {
                            start,
                            end: start,
                            succs: vec![BlockId(b + 1)],
                            exceptional: Vec::new(),
                        };
                    }
                }
                PKind::Trampoline => {} // generated with the block before it
                PKind::Code => self.code_block(cx, interner, b)?,
            }
        }
        Ok(())
    }

    fn code_block(
        &mut self,
        cx: &Cx<'_>,
        interner: &mut Interner,
        b: u32,
    ) -> Result<(), LowerError> {
        let Some(pb) = cx.cfg.blocks.get(b as usize).copied() else {
            return Ok(());
        };
        let start = self.stmts.len() as u32;
        self.block_start = start;
        self.stack.clear();
        let first = cx.flat.nodes.get(pb.first as usize).copied();
        if let Some(n) = &first {
            self.set_pc(cx.code, n.pc);
        }
        match cx.cfg.caught.get(b as usize) {
            Some(Caught::NotAHandler) | None => {
                let mut shape = std::mem::take(&mut self.shape_buf);
                shape.clear();
                shape.extend_from_slice(self.shape_of(b).unwrap_or(&[]));
                for (d, k) in shape.iter().enumerate() {
                    if *k == SHAPE_RET {
                        self.stack.push(Entry {
                            v: SVal::Ret,
                            wide: false,
                        });
                    } else {
                        let v = self.stack_var(d)?;
                        self.push_op(Operand::Var(v), *k == SHAPE_CAT2);
                    }
                }
                self.shape_buf = shape;
            }
            Some(c) => {
                let ty = match c {
                    Caught::Class(c) => Type::Ref(Some(c.clone())),
                    Caught::Mixed => Type::Ref(None),
                    _ => Type::Ref(Some(interner.get("java/lang/Throwable"))),
                };
                self.push_assign(Rvalue::CaughtException, Some(ty), false);
            }
        }
        let mut succs = Vec::new();
        for k in pb.first..pb.end {
            let Some(node) = cx.flat.nodes.get(k as usize).copied() else {
                continue;
            };
            self.set_pc(cx.code, node.pc);
            let transferred = self.insn(cx, interner, b, &node, &mut succs)?;
            if !transferred && k + 1 == pb.end {
                // Falls through to the block of `next` (via a trampoline when not laid out next).
                let succ = cx.cfg.block_of(node.next);
                if succ == NONE {
                    return self.err("execution falls off the end of the code");
                }
                self.materialise_out(&mut [])?;
                self.flow_to(cx, succ)?;
                if succ != b + 1 {
                    self.pending_trampoline = Some((b + 1, succ));
                }
                succs.push(BlockId(b + 1));
            }
        }
        let mut exceptional = Vec::new();
        if let Some(n) = &first {
            for &(h, e) in cx.flat.node_handlers(n) {
                let hb = cx.cfg.block_of(h);
                let catch = cx.cfg.entry_catch.get(e as usize).cloned().flatten();
                exceptional.push(ExceptionEdge {
                    handler: BlockId(hb),
                    catch,
                });
                self.mark_ready(hb);
            }
        }
        let end = self.stmts.len() as u32;
        if let Some(gb) = self.blocks.get_mut(b as usize) {
            *gb = GenBlock {
                start,
                end,
                succs,
                exceptional,
            };
        }
        if let Some((tb, target)) = self.pending_trampoline.take() {
            self.trampoline(tb, target);
        }
        Ok(())
    }

    /// A `tableswitch`/`lookupswitch` with its case keys in target order
    /// (the node's targets are the default first, then one per key).
    fn switch(
        &mut self,
        cx: &Cx<'_>,
        node: &Node,
        keys: Vec<i32>,
        succs: &mut Vec<BlockId>,
    ) -> Result<bool, LowerError> {
        let key = self.pop_op()?;
        let mut ops = [key];
        self.materialise_out(&mut ops)?;
        let default = self.target_block(cx, node, 0)?;
        self.flow_to(cx, default)?;
        succs.push(BlockId(default));
        let mut cases = Vec::with_capacity(keys.len());
        for (i, k) in keys.into_iter().enumerate() {
            let t = self.target_block(cx, node, i + 1)?;
            cases.push((k, BlockId(t)));
            self.flow_to(cx, t)?;
            if !succs.contains(&BlockId(t)) {
                succs.push(BlockId(t));
            }
        }
        let [key] = ops;
        self.emit(
            StmtKind::Switch {
                key,
                cases,
                default: BlockId(default),
            },
            None,
        );
        Ok(true)
    }

    fn target_block(&self, cx: &Cx<'_>, node: &Node, i: usize) -> Result<u32, LowerError> {
        let t = cx.flat.node_targets(node).get(i).copied().unwrap_or(NONE);
        let b = cx.cfg.block_of(t);
        if b == NONE {
            return self.err("branch target missing");
        }
        Ok(b)
    }

    fn field(&self, cp: &ConstantPool, idx: u16) -> Result<MemberRef, LowerError> {
        match cp.field_ref(idx) {
            Some(f) => Ok(f.clone()),
            None => self.err(format!("constant #{idx} is not a field reference")),
        }
    }

    fn class_name(&self, cp: &ConstantPool, idx: u16) -> Result<Arc<str>, LowerError> {
        match cp.class_name(idx) {
            Some(c) => Ok(c.clone()),
            None => self.err(format!("constant #{idx} is not a class")),
        }
    }

    /// Lowers one instruction; returns whether it ended the block with its own control transfer.
    fn insn(
        &mut self,
        cx: &Cx<'_>,
        interner: &mut Interner,
        b: u32,
        node: &Node,
        succs: &mut Vec<BlockId>,
    ) -> Result<bool, LowerError> {
        let Some((_, insn)) = cx.code.insns.get(node.insn as usize) else {
            return self.err("instruction missing");
        };
        // By opcode family; `Ok(true)` when control does not fall through.
        match insn {
            Insn::Nop
            | Insn::AConstNull
            | Insn::IConst(..)
            | Insn::LConst(..)
            | Insn::FConst(..)
            | Insn::DConst(..)
            | Insn::Ldc(..)
            | Insn::Load(..)
            | Insn::Store(..) => self.constants_and_locals(cx, node, insn).map(|()| false),
            Insn::Pop
            | Insn::Pop2
            | Insn::Dup
            | Insn::DupX1
            | Insn::DupX2
            | Insn::Dup2
            | Insn::Dup2X1
            | Insn::Dup2X2
            | Insn::Swap => self.stack_shuffle(insn).map(|()| false),
            Insn::Arith(..)
            | Insn::Neg(..)
            | Insn::IInc(..)
            | Insn::Convert(..)
            | Insn::Compare(..) => self.arithmetic(cx, insn).map(|()| false),
            Insn::If(..)
            | Insn::Goto(..)
            | Insn::Jsr(..)
            | Insn::Ret(..)
            | Insn::TableSwitch { .. }
            | Insn::LookupSwitch { .. }
            | Insn::Return(..)
            | Insn::AThrow => self.control(cx, b, node, insn, succs),
            Insn::GetStatic(..) | Insn::PutStatic(..) | Insn::GetField(..) | Insn::PutField(..) => {
                self.field_access(cx, interner, insn).map(|()| false)
            }
            Insn::Invoke(..) | Insn::InvokeDynamic(..) => {
                self.invoke(cx, interner, insn).map(|()| false)
            }
            Insn::ArrayLoad(..)
            | Insn::ArrayStore(..)
            | Insn::NewArray(..)
            | Insn::ANewArray(..)
            | Insn::MultiANewArray(..)
            | Insn::ArrayLength => self.arrays(cx, interner, insn).map(|()| false),
            Insn::New(..)
            | Insn::CheckCast(..)
            | Insn::InstanceOf(..)
            | Insn::MonitorEnter
            | Insn::MonitorExit => self.objects(cx, insn).map(|()| false),
        }
    }

    /// Constants, local variable loads and stores.
    fn constants_and_locals(
        &mut self,
        cx: &Cx<'_>,
        node: &Node,
        insn: &Insn,
    ) -> Result<(), LowerError> {
        let cp = &cx.class.constant_pool;
        match insn {
            Insn::Nop => {}
            Insn::AConstNull => self.push_op(Operand::Const(ConstValue::Null), false),
            Insn::IConst(v) => self.push_op(Operand::Const(ConstValue::Int(*v)), false),
            Insn::LConst(v) => self.push_op(Operand::Const(ConstValue::Long(*v)), true),
            Insn::FConst(v) => self.push_op(Operand::Const(ConstValue::Float(*v)), false),
            Insn::DConst(v) => self.push_op(Operand::Const(ConstValue::Double(*v)), true),
            Insn::Ldc(idx) => {
                let (c, wide) = loadable(cp, *idx, self.pc)?;
                self.push_op(Operand::Const(c), wide);
            }
            Insn::Load(k, n) => {
                let v = self.slot(*n, k.is_wide())?;
                self.push_op(Operand::Var(v), k.is_wide());
            }
            Insn::Store(k, n) => {
                let e = self.pop()?;
                self.store(cx, node, *n, e, k.is_wide())?;
            }
            other => return self.err(format!("{other:?} lowered as constants and locals")),
        }
        Ok(())
    }

    /// Pops, dups and swaps: moves on the operand stack only.
    fn stack_shuffle(&mut self, insn: &Insn) -> Result<(), LowerError> {
        match insn {
            Insn::Pop => {
                let e = self.pop()?;
                if e.wide {
                    return self.err("pop of a long or double value");
                }
                self.discard(e);
            }
            Insn::Pop2 => {
                let e = self.pop()?;
                if !e.wide {
                    let e2 = self.pop()?;
                    if e2.wide {
                        return self.err("pop2 splits a long or double value");
                    }
                    self.discard(e2);
                }
                self.discard(e);
            }
            Insn::Dup => self.dup(1, 0)?,
            Insn::DupX1 => self.dup(1, 1)?,
            Insn::DupX2 => self.dup(1, 2)?,
            Insn::Dup2 => self.dup(2, 0)?,
            Insn::Dup2X1 => self.dup(2, 1)?,
            Insn::Dup2X2 => self.dup(2, 2)?,
            Insn::Swap => {
                let a = self.pop()?;
                let b2 = self.pop()?;
                if a.wide || b2.wide {
                    return self.err("swap of a long or double value");
                }
                self.stack.push(a);
                self.stack.push(b2);
            }
            other => return self.err(format!("{other:?} lowered as stack shuffle")),
        }
        Ok(())
    }

    /// Arithmetic, `iinc`, conversions and comparisons.
    fn arithmetic(&mut self, cx: &Cx<'_>, insn: &Insn) -> Result<(), LowerError> {
        match insn {
            Insn::Arith(k, op) => {
                let rhs = self.pop_op()?;
                let lhs = self.pop_op()?;
                self.push_assign(
                    Rvalue::Binary(*op, lhs, rhs),
                    Some(kind_type(*k)),
                    k.is_wide(),
                );
            }
            Insn::Neg(k) => {
                let a = self.pop_op()?;
                self.push_assign(Rvalue::Neg(a), Some(kind_type(*k)), k.is_wide());
            }
            Insn::IInc(n, c) => {
                let v = self.slot(*n, false)?;
                self.materialise(v);
                let value = Rvalue::Binary(
                    ArithOp::Add,
                    Operand::Var(v),
                    Operand::Const(ConstValue::Int(*c)),
                );
                self.emit(StmtKind::Assign { dst: v, value }, Some(Type::Int));
                if let Some(a) = self.aux.last_mut() {
                    a.lvt = lvt_at(cx.code, *n, self.pc);
                }
            }
            Insn::Convert(_, to) => {
                let a = self.pop_op()?;
                let (ty, wide) = match to {
                    ConvertTo::Long => (Type::Long, true),
                    ConvertTo::Double => (Type::Double, true),
                    ConvertTo::Float => (Type::Float, false),
                    _ => (Type::Int, false),
                };
                self.push_assign(Rvalue::Convert(*to, a), Some(ty), wide);
            }
            Insn::Compare(op) => {
                let rhs = self.pop_op()?;
                let lhs = self.pop_op()?;
                self.push_assign(Rvalue::Compare(*op, lhs, rhs), Some(Type::Int), false);
            }
            other => return self.err(format!("{other:?} lowered as arithmetic")),
        }
        Ok(())
    }

    /// Branches, switches, subroutines, returns and throws: the instructions
    /// that end a block. `Ok(true)`: control does not fall through.
    fn control(
        &mut self,
        cx: &Cx<'_>,
        b: u32,
        node: &Node,
        insn: &Insn,
        succs: &mut Vec<BlockId>,
    ) -> Result<bool, LowerError> {
        match insn {
            Insn::If(kind, _) => {
                let (cond, lhs, rhs) = match kind {
                    IfKind::IntZero(c) => (*c, self.pop_op()?, Operand::Const(ConstValue::Int(0))),
                    IfKind::Null(c) => (*c, self.pop_op()?, Operand::Const(ConstValue::Null)),
                    IfKind::IntCmp(c) | IfKind::RefCmp(c) => {
                        let rhs = self.pop_op()?;
                        (*c, self.pop_op()?, rhs)
                    }
                };
                let mut ops = [lhs, rhs];
                self.materialise_out(&mut ops)?;
                let target = self.target_block(cx, node, 0)?;
                let fall = cx.cfg.block_of(node.next);
                if fall == NONE {
                    return self.err("conditional branch without fall-through");
                }
                // Not laid out next: through the trampoline after this block.
                self.flow_to(cx, target)?;
                self.flow_to(cx, fall)?;
                let [lhs, rhs] = ops;
                self.emit(
                    StmtKind::If {
                        cond,
                        lhs,
                        rhs,
                        target: BlockId(target),
                    },
                    None,
                );
                succs.push(BlockId(b + 1));
                if target != b + 1 {
                    succs.push(BlockId(target));
                }
                if fall != b + 1 {
                    // The trampoline after this block, emitted once this block is closed.
                    self.pending_trampoline = Some((b + 1, fall));
                }
                Ok(true)
            }
            Insn::Goto(_) => {
                self.materialise_out(&mut [])?;
                let t = self.target_block(cx, node, 0)?;
                self.flow_to(cx, t)?;
                self.emit(StmtKind::Goto(BlockId(t)), None);
                succs.push(BlockId(t));
                Ok(true)
            }
            Insn::Jsr(_) => {
                if cx.flat.inlined {
                    self.stack.push(Entry {
                        v: SVal::Ret,
                        wide: false,
                    });
                } else {
                    let ret_pc = cx
                        .code
                        .insns
                        .get(node.insn as usize + 1)
                        .map_or(NONE, |(p, _)| *p);
                    let value = Rvalue::Use(Operand::Const(ConstValue::Int(ret_pc as i32)));
                    self.push_assign(value, Some(Type::ReturnAddress), false);
                }
                self.materialise_out(&mut [])?;
                let t = self.target_block(cx, node, 0)?;
                self.flow_to(cx, t)?;
                self.emit(StmtKind::Goto(BlockId(t)), None);
                succs.push(BlockId(t));
                Ok(true)
            }
            Insn::Ret(n) => {
                self.materialise_out(&mut [])?;
                if cx.flat.inlined {
                    let t = self.target_block(cx, node, 0)?;
                    self.flow_to(cx, t)?;
                    self.emit(StmtKind::Goto(BlockId(t)), None);
                    succs.push(BlockId(t));
                } else {
                    let address = self.slot(*n, false)?;
                    let mut targets = Vec::new();
                    for i in 0..cx.flat.node_targets(node).len() {
                        let t = self.target_block(cx, node, i)?;
                        self.flow_to(cx, t)?;
                        if !targets.contains(&BlockId(t)) {
                            targets.push(BlockId(t));
                        }
                    }
                    succs.extend_from_slice(&targets);
                    self.emit(StmtKind::Ret { address, targets }, None);
                }
                Ok(true)
            }
            Insn::TableSwitch { low, targets, .. } => {
                let mut keys = Vec::with_capacity(targets.len());
                for i in 0..targets.len() {
                    let Ok(k) = i32::try_from(i64::from(*low) + i as i64) else {
                        return self.err("tableswitch key overflow");
                    };
                    keys.push(k);
                }
                self.switch(cx, node, keys, succs)
            }
            Insn::LookupSwitch { pairs, .. } => {
                let keys = pairs.iter().map(|(k, _)| *k).collect();
                self.switch(cx, node, keys, succs)
            }
            Insn::Return(k) => {
                let v = match k {
                    Some(_) => Some(self.pop_op()?),
                    None => None,
                };
                self.emit(StmtKind::Return(v), None);
                Ok(true)
            }
            Insn::AThrow => {
                let v = self.pop_op()?;
                self.emit(StmtKind::Throw(v), None);
                Ok(true)
            }
            other => self.err(format!("{other:?} is not a control instruction")),
        }
    }

    /// Static and instance field loads and stores.
    fn field_access(
        &mut self,
        cx: &Cx<'_>,
        interner: &mut Interner,
        insn: &Insn,
    ) -> Result<(), LowerError> {
        let cp = &cx.class.constant_pool;
        match insn {
            Insn::GetStatic(idx) => {
                let f = self.field(cp, *idx)?;
                let ty = interner.type_of(&f.descriptor);
                let wide = descriptor::is_wide(&f.descriptor);
                self.push_assign(Rvalue::StaticLoad(f), Some(ty), wide);
            }
            Insn::PutStatic(idx) => {
                let field = self.field(cp, *idx)?;
                let value = self.pop_op()?;
                self.emit(StmtKind::StaticStore { field, value }, None);
            }
            Insn::GetField(idx) => {
                let field = self.field(cp, *idx)?;
                let object = self.pop_op()?;
                let ty = interner.type_of(&field.descriptor);
                let wide = descriptor::is_wide(&field.descriptor);
                self.push_assign(Rvalue::FieldLoad { object, field }, Some(ty), wide);
            }
            Insn::PutField(idx) => {
                let field = self.field(cp, *idx)?;
                let value = self.pop_op()?;
                let object = self.pop_op()?;
                self.emit(
                    StmtKind::FieldStore {
                        object,
                        field,
                        value,
                    },
                    None,
                );
            }
            other => return self.err(format!("{other:?} lowered as field access")),
        }
        Ok(())
    }

    /// Method calls and `invokedynamic`.
    fn invoke(
        &mut self,
        cx: &Cx<'_>,
        interner: &mut Interner,
        insn: &Insn,
    ) -> Result<(), LowerError> {
        let cp = &cx.class.constant_pool;
        match insn {
            Insn::Invoke(kind, idx) => {
                let Some((m, interface_ref)) = cp.method_ref(*idx) else {
                    return self.err(format!("constant #{idx} is not a method reference"));
                };
                let Some((n, ret)) = descriptor::param_count(&m.descriptor) else {
                    return self.err(format!("malformed method descriptor {}", m.descriptor));
                };
                let mut args = Vec::with_capacity(n);
                for _ in 0..n {
                    args.push(self.pop_op()?);
                }
                args.reverse();
                let (ck, receiver) = match kind {
                    InvokeKind::Static => (CallKind::Static, None),
                    InvokeKind::Virtual => (CallKind::Virtual, Some(self.pop_op()?)),
                    InvokeKind::Special => (CallKind::Special, Some(self.pop_op()?)),
                    InvokeKind::Interface => (CallKind::Interface, Some(self.pop_op()?)),
                };
                let call = Call {
                    kind: ck,
                    method: m.clone(),
                    interface_ref,
                    receiver,
                    args,
                };
                self.emit_call(ret, interner, |result| StmtKind::Invoke { result, call });
            }
            Insn::InvokeDynamic(idx) => {
                let Some(Constant::InvokeDynamic {
                    bootstrap_index,
                    name,
                    descriptor,
                }) = cp.get(*idx)
                else {
                    return self.err(format!("constant #{idx} is not an invokedynamic constant"));
                };
                let Some(bsm) = cx.class.bootstrap_methods.get(*bootstrap_index as usize) else {
                    return self.err(format!("bootstrap method {bootstrap_index} missing"));
                };
                let bootstrap = match cp.get(bsm.method_ref) {
                    Some(Constant::MethodHandle { kind, reference }) => {
                        resolve_handle(cp, *kind, *reference, self.pc)?
                    }
                    _ => return self.err("bootstrap method is not a method handle"),
                };
                let mut bootstrap_args = Vec::with_capacity(bsm.arguments.len());
                for a in &bsm.arguments {
                    bootstrap_args.push(loadable(cp, *a, self.pc)?.0);
                }
                let Some((n, ret)) = descriptor::param_count(descriptor) else {
                    return self.err(format!("malformed method descriptor {descriptor}"));
                };
                let mut args = Vec::with_capacity(n);
                for _ in 0..n {
                    args.push(self.pop_op()?);
                }
                args.reverse();
                let call = DynamicCall {
                    bootstrap,
                    bootstrap_args,
                    name: name.clone(),
                    descriptor: descriptor.clone(),
                    args,
                };
                self.emit_call(ret, interner, |result| StmtKind::InvokeDynamic {
                    result,
                    call,
                });
            }
            other => return self.err(format!("{other:?} lowered as invoke")),
        }
        Ok(())
    }

    /// Array element loads and stores, allocation and length.
    fn arrays(
        &mut self,
        cx: &Cx<'_>,
        interner: &mut Interner,
        insn: &Insn,
    ) -> Result<(), LowerError> {
        let cp = &cx.class.constant_pool;
        match insn {
            Insn::ArrayLoad(k) => {
                let index = self.pop_op()?;
                let array = self.pop_op()?;
                let (ty, wide) = match k {
                    ArrayKind::Long => (Some(Type::Long), true),
                    ArrayKind::Double => (Some(Type::Double), true),
                    ArrayKind::Float => (Some(Type::Float), false),
                    ArrayKind::Ref => (None, false),
                    _ => (Some(Type::Int), false),
                };
                self.push_assign(
                    Rvalue::ArrayLoad {
                        array,
                        index,
                        kind: *k,
                    },
                    ty,
                    wide,
                );
            }
            Insn::ArrayStore(k) => {
                let value = self.pop_op()?;
                let index = self.pop_op()?;
                let array = self.pop_op()?;
                self.emit(
                    StmtKind::ArrayStore {
                        array,
                        index,
                        value,
                        kind: *k,
                    },
                    None,
                );
            }
            Insn::NewArray(k) => {
                let count = self.pop_op()?;
                let d = interner.get(array_desc(*k));
                self.push_assign(
                    Rvalue::NewArray(d.clone(), vec![count]),
                    Some(Type::Ref(Some(d))),
                    false,
                );
            }
            Insn::ANewArray(idx) => {
                let c = self.class_name(cp, *idx)?;
                let count = self.pop_op()?;
                let d = interner.get(&desc::array_of_class(&c));
                self.push_assign(
                    Rvalue::NewArray(d.clone(), vec![count]),
                    Some(Type::Ref(Some(d))),
                    false,
                );
            }
            Insn::MultiANewArray(idx, dims) => {
                let c = self.class_name(cp, *idx)?;
                let mut counts = Vec::with_capacity(*dims as usize);
                for _ in 0..*dims {
                    counts.push(self.pop_op()?);
                }
                counts.reverse();
                self.push_assign(
                    Rvalue::NewArray(c.clone(), counts),
                    Some(Type::Ref(Some(c))),
                    false,
                );
            }
            Insn::ArrayLength => {
                let a = self.pop_op()?;
                self.push_assign(Rvalue::ArrayLength(a), Some(Type::Int), false);
            }
            other => return self.err(format!("{other:?} lowered as arrays")),
        }
        Ok(())
    }

    /// Object allocation, type tests and monitors.
    fn objects(&mut self, cx: &Cx<'_>, insn: &Insn) -> Result<(), LowerError> {
        let cp = &cx.class.constant_pool;
        match insn {
            Insn::New(idx) => {
                let c = self.class_name(cp, *idx)?;
                let ty = Type::Ref(Some(c.clone()));
                self.push_assign(Rvalue::New(c), Some(ty), false);
            }
            Insn::CheckCast(idx) => {
                let c = self.class_name(cp, *idx)?;
                let a = self.pop_op()?;
                self.push_assign(Rvalue::Cast(a, c.clone()), Some(Type::Ref(Some(c))), false);
            }
            Insn::InstanceOf(idx) => {
                let c = self.class_name(cp, *idx)?;
                let a = self.pop_op()?;
                self.push_assign(Rvalue::InstanceOf(a, c), Some(Type::Int), false);
            }
            // A monitor instruction ends its block; the stack is copied out
            // *before* it so that it stays the block's last statement (the
            // lock state must be the same before all others).
            Insn::MonitorEnter => {
                let mut ops = [self.pop_op()?];
                self.materialise_out(&mut ops)?;
                let [a] = ops;
                self.emit(StmtKind::MonitorEnter(a), None);
            }
            Insn::MonitorExit => {
                let mut ops = [self.pop_op()?];
                self.materialise_out(&mut ops)?;
                let [a] = ops;
                self.emit(StmtKind::MonitorExit(a), None);
            }
            other => return self.err(format!("{other:?} lowered as objects")),
        }
        Ok(())
    }

    fn mark_ready(&mut self, b: u32) {
        if let Some(r) = self.ready.get_mut(b as usize) {
            *r = true;
        }
        if !self.done.get(b as usize).copied().unwrap_or(true) {
            self.cursor = self.cursor.min(b);
        }
    }

    fn trampoline(&mut self, tb: u32, target: u32) {
        let start = self.stmts.len() as u32;
        self.emit(StmtKind::Goto(BlockId(target)), None);
        if let Some(gb) = self.blocks.get_mut(tb as usize) {
            *gb = GenBlock {
                start,
                end: start + 1,
                succs: vec![BlockId(target)],
                exceptional: Vec::new(),
            };
        }
        if let Some(d) = self.done.get_mut(tb as usize) {
            *d = true;
        }
    }
}
