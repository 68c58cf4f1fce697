//! The lowering driver: bytecode of one method → [`Body`].
//!
//! Passes, in order: virtual-instruction graph with subroutines inlined
//! ([`crate::flat`]), basic blocks ([`crate::cfg`]), stack simulation into
//! statements over slot variables ([`crate::stack`]), layout of the
//! statements in block order, local splitting and renumbering
//! ([`crate::split`]), types and names ([`crate::types`]), unique
//! definitions, and monitor regions ([`crate::monitors`]).
//!
//! A [`Lowerer`] keeps the passes' scratch storage between methods, so
//! lowering a whole class path allocates little beyond the bodies
//! themselves. It knows one method at a time: nothing about other methods
//! or classes is looked up.

use std::sync::Arc;

use lockstep_classfile::{access, descriptor, ClassFile, Code, MethodInfo};

use crate::cfg::Cfg;
use crate::desc::Interner;
use crate::error::LowerError;
use crate::flat::Flat;
use crate::ir::*;
use crate::split::Splitter;
use crate::stack::{Aux, Cx, Gen};

/// A parameter's first local slot and its origin (`this` or its index).
type ParamSlot = (u16, VarOrigin);

/// Lowers methods, reusing scratch storage across calls.
#[derive(Default)]
pub struct Lowerer {
    flat: Flat,
    cfg: Cfg,
    gen: Gen,
    split: Splitter,
    interner: Interner,
}

impl Lowerer {
    pub fn new() -> Lowerer {
        Lowerer::default()
    }

    /// Lowers every method with code: `(index into class.methods, result)`.
    pub fn lower_class(&mut self, class: &ClassFile) -> Vec<(usize, Result<Body, LowerError>)> {
        let out = class
            .methods
            .iter()
            .enumerate()
            .filter(|(_, m)| m.code.is_some())
            .map(|(i, m)| (i, self.lower_method(class, m)))
            .collect();
        out
    }

    /// Lowers one method; fails for methods without code and for code no verifier would accept.
    pub fn lower_method(
        &mut self,
        class: &ClassFile,
        method: &MethodInfo,
    ) -> Result<Body, LowerError> {
        let Some(code) = method.code.as_ref() else {
            return Err(LowerError::new("method has no code (abstract or native)"));
        };
        self.interner.maybe_clear();
        let is_static = method.access_flags & access::STATIC != 0;
        let is_synchronized = method.access_flags & access::SYNCHRONIZED != 0;
        let mut notes = Vec::new();

        let (param_slots, param_types) = self.params(class, method, code.max_locals)?;
        self.flat.build(code, &mut notes)?;
        self.cfg.build(code, &class.constant_pool, &self.flat)?;
        let cx = Cx {
            class,
            code,
            flat: &self.flat,
            cfg: &self.cfg,
        };
        self.gen.run(&cx, &mut self.interner)?;

        let gen = &mut self.gen;
        let (mut stmts, mut aux) = take_in_block_order(gen);
        let mut blocks = take_blocks(gen);
        let (svars, copies) =
            self.split
                .split(&mut stmts, &blocks, &gen.pre, gen.max_locals, &param_slots)?;
        if !copies.is_empty() {
            insert_entry_copies(code, &copies, &mut stmts, &mut aux, &mut blocks);
        }

        let vars = self.typed_vars(
            code,
            &stmts,
            &mut aux,
            svars,
            param_types,
            &param_slots,
            &mut notes,
        );
        aux.clear();
        self.gen.aux = aux;
        let unique_def = unique_definitions(&stmts, vars.len());
        let block_of = block_index(&blocks);
        let params = (0..param_slots.len() as u32).map(VarId).collect();
        let mut body = Body {
            class: class.this_class.clone(),
            name: method.name.clone(),
            descriptor: method.descriptor.clone(),
            is_static,
            is_synchronized,
            source_file: class.source_file.clone(),
            vars,
            params,
            stmts,
            blocks,
            monitors: Vec::new(),
            held_before: Vec::new(),
            unique_def,
            block_of,
            notes,
        };
        crate::monitors::compute(&mut body);
        Ok(body)
    }

    /// The slots, origins and declared types of `this` and the parameters.
    fn params(
        &mut self,
        class: &ClassFile,
        method: &MethodInfo,
        max_locals: u16,
    ) -> Result<(Vec<ParamSlot>, Vec<Type>), LowerError> {
        let is_static = method.access_flags & access::STATIC != 0;
        let Some((params, _)) = descriptor::method_sig(&method.descriptor) else {
            return Err(LowerError::new(format!(
                "malformed method descriptor {}",
                method.descriptor
            )));
        };
        let mut param_slots: Vec<(u16, VarOrigin)> = Vec::new();
        let mut param_types: Vec<Type> = Vec::new();
        let mut slot: u32 = 0;
        if !is_static {
            param_slots.push((0, VarOrigin::This));
            param_types.push(Type::Ref(Some(self.interner.get(&class.this_class))));
            slot = 1;
        }
        for (i, p) in params.enumerate() {
            let (Ok(s), Ok(i)) = (u16::try_from(slot), u16::try_from(i)) else {
                return Err(LowerError::new("too many parameters"));
            };
            param_slots.push((s, VarOrigin::Param(i)));
            param_types.push(self.interner.type_of(p));
            slot += if descriptor::is_wide(p) { 2 } else { 1 };
        }
        if slot > u32::from(max_locals) {
            return Err(LowerError::new(format!(
                "parameters need {slot} local slots but max_locals is {}",
                max_locals
            )));
        }

        Ok((param_slots, param_types))
    }

    /// Types and names of the split variables (`origins`), parameters
    /// typed by the descriptor.
    #[allow(clippy::too_many_arguments)]
    fn typed_vars(
        &mut self,
        code: &Code,
        stmts: &[Stmt],
        aux: &mut [Aux],
        origins: Vec<VarOrigin>,
        param_types: Vec<Type>,
        param_slots: &[(u16, VarOrigin)],
        notes: &mut Vec<String>,
    ) -> Vec<VarInfo> {
        let mut types: Vec<Option<Type>> = vec![None; origins.len()];
        for (t, pt) in types.iter_mut().zip(param_types) {
            *t = Some(pt);
        }
        let mut names: Vec<Option<Arc<str>>> = vec![None; origins.len()];
        let slots: Vec<u16> = param_slots.iter().map(|(s, _)| *s).collect();
        crate::types::infer(
            stmts,
            aux,
            code,
            &origins,
            &slots,
            &mut types,
            &mut names,
            &mut self.interner,
            notes,
        );
        let mut untyped = false;
        let vars: Vec<VarInfo> = origins
            .iter()
            .zip(types)
            .zip(names)
            .map(|((origin, ty), name)| {
                untyped |= ty.is_none();
                VarInfo {
                    ty: ty.unwrap_or(Type::Ref(None)),
                    origin: *origin,
                    name,
                }
            })
            .collect();
        if untyped {
            notes.push("some variables have no typed definition; typed as references".into());
        }

        vars
    }
}

/// The statements (and their scratch data) of the simulation, laid out in
/// block order (usually they already are, and are taken as they are).
fn take_in_block_order(gen: &mut Gen) -> (Vec<Stmt>, Vec<Aux>) {
    let mut in_order = true;
    let mut next = 0u32;
    for gb in &gen.blocks {
        in_order &= gb.start == next;
        next = gb.end;
    }
    in_order &= next as usize == gen.stmts.len();
    if in_order {
        // The statements become the body's (sized up front by the
        // simulation; shrinking is in place); `aux` is scratch and goes back.
        let mut stmts = std::mem::take(&mut gen.stmts);
        stmts.shrink_to_fit();
        (stmts, std::mem::take(&mut gen.aux))
    } else {
        let mut stmts: Vec<Stmt> = Vec::with_capacity(gen.stmts.len());
        let mut aux: Vec<Aux> = Vec::with_capacity(gen.stmts.len());
        for gb in &gen.blocks {
            for i in gb.start..gb.end {
                if let Some(s) = gen.stmts.get_mut(i as usize) {
                    stmts.push(std::mem::replace(
                        s,
                        Stmt {
                            kind: StmtKind::Nop,
                            pc: 0,
                            line: None,
                        },
                    ));
                }
                if let Some(a) = gen.aux.get_mut(i as usize) {
                    aux.push(Aux {
                        ty: a.ty.take(),
                        lvt: a.lvt,
                    });
                }
            }
        }
        (stmts, aux)
    }
}

/// The blocks over the laid-out statements, with their predecessors.
fn take_blocks(gen: &mut Gen) -> Vec<Block> {
    let mut blocks: Vec<Block> = Vec::with_capacity(gen.blocks.len());
    let mut first = 0u32;
    for gb in gen.blocks.iter_mut() {
        let end = first + (gb.end - gb.start);
        blocks.push(Block {
            first: StmtId(first),
            end: StmtId(end),
            succs: std::mem::take(&mut gb.succs),
            exceptional: std::mem::take(&mut gb.exceptional),
            preds: Vec::new(),
        });
        first = end;
    }
    for b in 0..blocks.len() {
        let n_succ = blocks
            .get(b)
            .map_or(0, |bl| bl.succs.len() + bl.exceptional.len());
        for k in 0..n_succ {
            let t = match blocks.get(b) {
                Some(bl) => match bl.succs.get(k) {
                    Some(t) => *t,
                    None => bl
                        .exceptional
                        .get(k - bl.succs.len())
                        .map_or(BlockId(u32::MAX), |e| e.handler),
                },
                None => continue,
            };
            if let Some(tb) = blocks.get_mut(t.index()) {
                tb.preds.push(BlockId(b as u32));
            }
        }
    }
    for b in &mut blocks {
        b.preds.sort_unstable();
        b.preds.dedup();
    }
    blocks
}

/// The defining statement of each variable with exactly one definition.
fn unique_definitions(stmts: &[Stmt], n_vars: usize) -> Vec<Option<StmtId>> {
    let mut def_count = vec![0u32; n_vars];
    let mut unique_def: Vec<Option<StmtId>> = vec![None; n_vars];
    for (i, s) in stmts.iter().enumerate() {
        if let Some(v) = s.kind.def() {
            if let (Some(c), Some(u)) =
                (def_count.get_mut(v.index()), unique_def.get_mut(v.index()))
            {
                *c += 1;
                *u = if *c == 1 {
                    Some(StmtId(i as u32))
                } else {
                    None
                };
            }
        }
    }
    unique_def
}

/// The block of each statement.
fn block_index(blocks: &[Block]) -> Vec<BlockId> {
    let mut block_of = Vec::with_capacity(blocks.last().map_or(0, |b| b.end.index()));
    for (b, bl) in blocks.iter().enumerate() {
        for _ in bl.first.0..bl.end.0 {
            block_of.push(BlockId(b as u32));
        }
    }
    block_of
}

/// Inserts `local = param` copies at method entry: in block 0, or in a new
/// entry block when block 0 is covered by a handler (the handler must not
/// see the local before its copy on one path and after it on another).
fn insert_entry_copies(
    code: &lockstep_classfile::Code,
    copies: &[crate::split::EntryCopy],
    stmts: &mut Vec<Stmt>,
    aux: &mut Vec<Aux>,
    blocks: &mut Vec<Block>,
) {
    let k = copies.len() as u32;
    let new_block = blocks.first().is_some_and(|b| !b.exceptional.is_empty());
    let line = crate::stack::line_at(code, 0);
    let new_stmts = copies.iter().map(|c| Stmt {
        kind: StmtKind::Assign {
            dst: c.local,
            value: Rvalue::Use(Operand::Var(c.param)),
        },
        pc: 0,
        line,
    });
    stmts.splice(0..0, new_stmts);
    aux.splice(
        0..0,
        copies.iter().map(|c| Aux {
            ty: None,
            lvt: crate::stack::lvt_at(code, c.slot, 0),
        }),
    );
    for (i, b) in blocks.iter_mut().enumerate() {
        if i > 0 || new_block {
            b.first.0 += k;
        }
        b.end.0 += k;
    }
    if new_block {
        let shift = |b: &mut BlockId| b.0 += 1;
        for s in stmts.iter_mut() {
            match &mut s.kind {
                StmtKind::If { target, .. } => shift(target),
                StmtKind::Goto(t) => shift(t),
                StmtKind::Switch { cases, default, .. } => {
                    shift(default);
                    cases.iter_mut().for_each(|(_, t)| shift(t));
                }
                StmtKind::Ret { targets, .. } => targets.iter_mut().for_each(shift),
                _ => {}
            }
        }
        for b in blocks.iter_mut() {
            b.succs.iter_mut().for_each(shift);
            b.preds.iter_mut().for_each(shift);
            b.exceptional.iter_mut().for_each(|e| shift(&mut e.handler));
        }
        if let Some(old_entry) = blocks.first_mut() {
            old_entry.preds.insert(0, BlockId(0));
        }
        let entry = Block {
            first: StmtId(0),
            end: StmtId(k),
            succs: vec![BlockId(1)],
            exceptional: Vec::new(),
            preds: Vec::new(),
        };
        blocks.insert(0, entry);
    }
}

thread_local! {
    /// Scratch storage for the free functions, one per thread.
    static LOWERER: std::cell::RefCell<Lowerer> = std::cell::RefCell::new(Lowerer::new());
}

fn with_lowerer<T>(f: impl FnOnce(&mut Lowerer) -> T) -> T {
    LOWERER.with(|l| match l.try_borrow_mut() {
        Ok(mut l) => f(&mut l),
        // Not reachable (lowering calls back into nothing), but never panic.
        Err(_) => f(&mut Lowerer::new()),
    })
}

/// Lowers one method (see [`Lowerer::lower_method`]); reuses a per-thread [`Lowerer`].
pub fn lower_method(class: &ClassFile, method: &MethodInfo) -> Result<Body, LowerError> {
    with_lowerer(|l| l.lower_method(class, method))
}

/// Lowers every method with code of `class`: `(index into class.methods, result)`.
pub fn lower_class(class: &ClassFile) -> Vec<(usize, Result<Body, LowerError>)> {
    with_lowerer(|l| l.lower_class(class))
}
