//! Local splitting: one variable per def-use web instead of one per slot.
//!
//! The stack simulation names locals by slot, so a slot reused for two
//! unrelated values (javac reuses slots across scopes) would be one
//! variable of two types. Here every slot variable and every `Stack(d)`
//! variable is split into webs: definitions that reach a common use are
//! one web. Reaching definitions are not computed as sets; instead a
//! liveness pass (bitsets per block) tells at which block entries a
//! variable is live, and a union-find joins each use with the definitions
//! flowing to it through those live block entries (normal edges carry the
//! state at the end of a block; exceptional edges the state before each of
//! its statements). A parameter's slot starts with the parameter as its
//! initial definition, so the web holding the incoming value keeps origin
//! `This`/`Param`.
//!
//! The pass also renumbers every variable: parameters first, then in order
//! of first appearance. It does not type or name variables (see
//! [`crate::types`]).

use crate::error::LowerError;
use crate::flat::NONE;
use crate::ir::{Block, Stmt, VarId, VarOrigin};
use crate::stack::Pre;

/// Reusable storage for [`Splitter::split`].
#[derive(Default)]
pub(crate) struct Splitter {
    dense: Vec<u32>,
    words: usize,
    gen: Vec<u64>,
    kill: Vec<u64>,
    live: Vec<u64>,
    tmp: Vec<u64>,
    entry_base: Vec<u32>,
    entry_vars: Vec<u32>,
    uf: Vec<u32>,
    def_node: Vec<u32>,
    use_nodes: Vec<u32>,
    cur_node: Vec<u32>,
    cur_stamp: Vec<u32>,
    final_of_root: Vec<u32>,
    final_of_temp: Vec<u32>,
    param_of_dense: Vec<u32>,
    /// The unsplit variable of each dense index.
    dense_pre: Vec<u32>,
    /// Parameter and definition nodes come first; entry nodes follow.
    def_node_count: u32,
    has_def: Vec<bool>,
}

/// `local = param` to insert at method entry: the parameter's slot is
/// reassigned within the web of its incoming value.
#[derive(Clone, Copy, Debug)]
pub(crate) struct EntryCopy {
    pub param: VarId,
    pub local: VarId,
    pub slot: u16,
}

fn find(uf: &mut [u32], mut x: u32) -> u32 {
    // Path halving.
    loop {
        let p = uf.get(x as usize).copied().unwrap_or(x);
        if p == x {
            return x;
        }
        let gp = uf.get(p as usize).copied().unwrap_or(p);
        if let Some(s) = uf.get_mut(x as usize) {
            *s = gp;
        }
        x = gp;
    }
}

/// The dense index of a splittable variable, or `NONE`.
fn dense_of(dense: &[u32], v: VarId) -> u32 {
    dense.get(v.index()).copied().unwrap_or(NONE)
}

fn union(uf: &mut [u32], a: u32, b: u32) {
    let (ra, rb) = (find(uf, a), find(uf, b));
    if ra != rb {
        // Keep the smaller id as root: deterministic and cheap.
        let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
        if let Some(s) = uf.get_mut(hi as usize) {
            *s = lo;
        }
    }
}

impl Splitter {
    fn bit(set: &[u64], v: u32) -> bool {
        set.get((v / 64) as usize)
            .is_some_and(|w| w & (1u64 << (v % 64)) != 0)
    }

    fn entry_node(&self, b: usize, v: u32) -> u32 {
        let s = self.entry_base.get(b).copied().unwrap_or(0) as usize;
        let e = self.entry_base.get(b + 1).copied().unwrap_or(0) as usize;
        match self.entry_vars.get(s..e).map(|vs| vs.binary_search(&v)) {
            Some(Ok(i)) => (s + i) as u32 + self.entry_offset(),
            _ => NONE,
        }
    }

    /// Entry nodes come after the parameter and definition nodes.
    fn entry_offset(&self) -> u32 {
        self.def_node_count
    }

    /// Splits the slot and stack variables of `stmts` into webs and renumbers
    /// every variable. `params` are the slots of `this` and the declared
    /// parameters, in order, with their origins. Returns the origin of each final variable and the
    /// parameter copies to insert at entry.
    pub(crate) fn split(
        &mut self,
        stmts: &mut [Stmt],
        blocks: &[Block],
        pre: &[Pre],
        max_locals: u16,
        params: &[(u16, VarOrigin)],
    ) -> Result<(Vec<VarOrigin>, Vec<EntryCopy>), LowerError> {
        self.number_dense(stmts, pre, max_locals, params);
        let ns = self.dense_pre.len() as u32;
        let nb = blocks.len();
        self.words = (ns as usize).div_ceil(64).max(1);
        let total = nb * self.words;
        for v in [&mut self.gen, &mut self.kill, &mut self.live] {
            v.clear();
            v.resize(total, 0);
        }
        self.local_use_def(stmts, blocks, params.len());
        self.liveness(blocks);
        let n_nodes = self.entry_nodes(nb);
        self.join_params(pre, params, ns, nb)?;
        self.join_webs(stmts, blocks, ns)?;
        self.renumber(stmts, pre, params, n_nodes)
    }

    /// Dense numbering of the splittable variables. Normally slots keep
    /// their numbers (stack depths follow); when `max_locals` is large (a
    /// hostile class may say 65535) only the variables that occur are
    /// numbered, parameters first, so bitsets stay sized by the code.
    fn number_dense(
        &mut self,
        stmts: &[Stmt],
        pre: &[Pre],
        max_locals: u16,
        params: &[(u16, VarOrigin)],
    ) {
        self.dense.clear();
        self.dense.resize(pre.len(), NONE);
        self.dense_pre.clear();
        if max_locals <= 256 {
            let nl = u32::from(max_locals);
            for (v, p) in pre.iter().enumerate() {
                let d = match p {
                    Pre::Slot(n) => u32::from(*n),
                    Pre::Stack(d) => nl + u32::from(*d),
                    Pre::Temp => continue,
                };
                if let Some(x) = self.dense.get_mut(v) {
                    *x = d;
                }
                if self.dense_pre.len() <= d as usize {
                    self.dense_pre.resize(d as usize + 1, NONE);
                }
                if let Some(x) = self.dense_pre.get_mut(d as usize) {
                    *x = v as u32;
                }
            }
        } else {
            for (slot, _) in params {
                if let Some(d) = self.dense.get_mut(*slot as usize) {
                    *d = self.dense_pre.len() as u32;
                    self.dense_pre.push(u32::from(*slot));
                }
            }
            for stmt in stmts.iter() {
                let (dense, dense_pre) = (&mut self.dense, &mut self.dense_pre);
                let mut see = |v: VarId| {
                    if matches!(pre.get(v.index()), Some(Pre::Slot(_) | Pre::Stack(_))) {
                        if let Some(d) = dense.get_mut(v.index()) {
                            if *d == NONE {
                                *d = dense_pre.len() as u32;
                                dense_pre.push(v.0);
                            }
                        }
                    }
                };
                stmt.kind.for_each_use(&mut see);
                if let Some(v) = stmt.kind.def() {
                    see(v);
                }
            }
        }
    }

    /// Local use/def bitsets per block, and a node per definition (after
    /// the `n_params` parameter nodes).
    fn local_use_def(&mut self, stmts: &[Stmt], blocks: &[Block], n_params: usize) {
        self.def_node.clear();
        self.def_node.resize(stmts.len(), NONE);
        let mut next_node = n_params as u32;
        for (b, block) in blocks.iter().enumerate() {
            let r = b * self.words;
            for s in block.first.index()..block.end.index() {
                let Some(stmt) = stmts.get(s) else { continue };
                let (gen, kill) = (&mut self.gen, &self.kill);
                stmt.kind.for_each_use(|v| {
                    let d = dense_of(&self.dense, v);
                    if d != NONE && !Self::bit(kill.get(r..r + self.words).unwrap_or(&[]), d) {
                        if let Some(w) = gen.get_mut(r + (d / 64) as usize) {
                            *w |= 1u64 << (d % 64);
                        }
                    }
                });
                if let Some(v) = stmt.kind.def() {
                    let d = dense_of(&self.dense, v);
                    if d != NONE {
                        if let Some(w) = self.kill.get_mut(r + (d / 64) as usize) {
                            *w |= 1u64 << (d % 64);
                        }
                        if let Some(n) = self.def_node.get_mut(s) {
                            *n = next_node;
                        }
                        next_node += 1;
                    }
                }
            }
        }
        self.def_node_count = next_node;
    }

    /// Liveness to a fixpoint, walking blocks backwards. A handler's
    /// live-ins are live before every statement of a covered block.
    fn liveness(&mut self, blocks: &[Block]) {
        self.tmp.clear();
        self.tmp.resize(self.words, 0);
        let mut changed = true;
        while changed {
            changed = false;
            for (b, block) in blocks.iter().enumerate().rev() {
                let w = self.words;
                self.tmp.iter_mut().for_each(|x| *x = 0);
                for s in &block.succs {
                    let r = s.index() * w;
                    for (t, l) in self
                        .tmp
                        .iter_mut()
                        .zip(self.live.get(r..r + w).unwrap_or(&[]))
                    {
                        *t |= *l;
                    }
                }
                let r = b * w;
                for i in 0..w {
                    let out = self.tmp.get(i).copied().unwrap_or(0);
                    let g = self.gen.get(r + i).copied().unwrap_or(0);
                    let k = self.kill.get(r + i).copied().unwrap_or(0);
                    let mut v = g | (out & !k);
                    for e in &block.exceptional {
                        v |= self
                            .live
                            .get(e.handler.index() * w + i)
                            .copied()
                            .unwrap_or(0);
                    }
                    if let Some(l) = self.live.get_mut(r + i) {
                        if *l != v {
                            *l = v;
                            changed = true;
                        }
                    }
                }
            }
        }
    }

    /// Entry nodes: one per (block, live-in variable). Returns the number of
    /// nodes, definitions and entries together.
    fn entry_nodes(&mut self, nb: usize) -> usize {
        self.entry_base.clear();
        self.entry_vars.clear();
        for b in 0..nb {
            self.entry_base.push(self.entry_vars.len() as u32);
            let r = b * self.words;
            for i in 0..self.words {
                let mut w = self.live.get(r + i).copied().unwrap_or(0);
                while w != 0 {
                    let bit = w.trailing_zeros();
                    w &= w - 1;
                    self.entry_vars.push(i as u32 * 64 + bit);
                }
            }
        }
        self.entry_base.push(self.entry_vars.len() as u32);
        let n_nodes = self.def_node_count as usize + self.entry_vars.len();
        self.uf.clear();
        self.uf.extend(0..n_nodes as u32);
        n_nodes
    }

    /// Parameters feed the entry block; any other variable live there is
    /// read before it is written.
    fn join_params(
        &mut self,
        pre: &[Pre],
        params: &[(u16, VarOrigin)],
        ns: u32,
        nb: usize,
    ) -> Result<(), LowerError> {
        self.param_of_dense.clear();
        self.param_of_dense.resize(ns as usize, NONE);
        for (i, (slot, _)) in params.iter().enumerate() {
            let d = self.dense.get(*slot as usize).copied().unwrap_or(NONE);
            if let Some(p) = self.param_of_dense.get_mut(d as usize) {
                *p = i as u32;
            }
        }
        if nb > 0 {
            let s = self.entry_base.first().copied().unwrap_or(0) as usize;
            let e = self.entry_base.get(1).copied().unwrap_or(0) as usize;
            for k in s..e {
                let v = self.entry_vars.get(k).copied().unwrap_or(0);
                let p = self.param_of_dense.get(v as usize).copied().unwrap_or(NONE);
                if p == NONE {
                    let what = self
                        .dense_pre
                        .get(v as usize)
                        .and_then(|x| pre.get(*x as usize));
                    return Err(LowerError::new(match what {
                        Some(Pre::Stack(d)) => {
                            format!("stack value at depth {d} is read before it is written")
                        }
                        Some(Pre::Slot(n)) => {
                            format!("local slot {n} is read before it is written")
                        }
                        _ => "a variable is read before it is written".to_string(),
                    }));
                }
                let en = k as u32 + self.entry_offset();
                union(&mut self.uf, en, p);
            }
        }
        Ok(())
    }

    /// Walks each block forwards: uses to the current definition, edges to
    /// entry nodes.
    fn join_webs(&mut self, stmts: &[Stmt], blocks: &[Block], ns: u32) -> Result<(), LowerError> {
        self.cur_node.clear();
        self.cur_node.resize(ns as usize, NONE);
        self.cur_stamp.clear();
        self.cur_stamp.resize(ns as usize, 0);
        self.use_nodes.clear();
        for (b, block) in blocks.iter().enumerate() {
            let stamp = b as u32 + 1;
            let s = self.entry_base.get(b).copied().unwrap_or(0) as usize;
            let e = self.entry_base.get(b + 1).copied().unwrap_or(0) as usize;
            for k in s..e {
                let v = self.entry_vars.get(k).copied().unwrap_or(0) as usize;
                if let (Some(n), Some(st)) = (self.cur_node.get_mut(v), self.cur_stamp.get_mut(v)) {
                    *n = k as u32 + self.def_node_count;
                    *st = stamp;
                }
            }
            // Handler live-ins come from this block's entry...
            for ex in &block.exceptional {
                let h = ex.handler.index();
                let hs = self.entry_base.get(h).copied().unwrap_or(0) as usize;
                let he = self.entry_base.get(h + 1).copied().unwrap_or(0) as usize;
                for k in hs..he {
                    let v = self.entry_vars.get(k).copied().unwrap_or(0);
                    let mine = self.entry_node(b, v);
                    if mine != NONE {
                        union(&mut self.uf, k as u32 + self.def_node_count, mine);
                    }
                }
            }
            let last = block.end.index().saturating_sub(1);
            for si in block.first.index()..block.end.index() {
                let Some(stmt) = stmts.get(si) else { continue };
                let mut missing = None;
                stmt.kind.for_each_use(|v| {
                    let d = dense_of(&self.dense, v);
                    if d == NONE {
                        return;
                    }
                    let ok = self.cur_stamp.get(d as usize) == Some(&stamp);
                    let n = if ok {
                        self.cur_node.get(d as usize).copied().unwrap_or(NONE)
                    } else {
                        NONE
                    };
                    if n == NONE {
                        missing = Some(d);
                    }
                    self.use_nodes.push(n);
                });
                if let Some(d) = missing {
                    return Err(LowerError::at(
                        stmt.pc,
                        format!("variable {d} read before it is written"),
                    ));
                }
                if let Some(v) = stmt.kind.def() {
                    let d = dense_of(&self.dense, v);
                    if d != NONE {
                        let dn = self.def_node.get(si).copied().unwrap_or(NONE);
                        if let (Some(n), Some(st)) = (
                            self.cur_node.get_mut(d as usize),
                            self.cur_stamp.get_mut(d as usize),
                        ) {
                            *n = dn;
                            *st = stamp;
                        }
                        // ...and from every definition before the block's last statement.
                        if si != last {
                            for ex in &block.exceptional {
                                let hn = self.entry_node(ex.handler.index(), d);
                                if hn != NONE {
                                    union(&mut self.uf, hn, dn);
                                }
                            }
                        }
                    }
                }
            }
            for succ in &block.succs {
                let sb = succ.index();
                let ss = self.entry_base.get(sb).copied().unwrap_or(0) as usize;
                let se = self.entry_base.get(sb + 1).copied().unwrap_or(0) as usize;
                for k in ss..se {
                    let v = self.entry_vars.get(k).copied().unwrap_or(0) as usize;
                    let ok = self.cur_stamp.get(v) == Some(&stamp);
                    let n = if ok {
                        self.cur_node.get(v).copied().unwrap_or(NONE)
                    } else {
                        NONE
                    };
                    if n == NONE {
                        return Err(LowerError::new(format!(
                            "variable {v} live into block {sb} but undefined"
                        )));
                    }
                    union(&mut self.uf, k as u32 + self.def_node_count, n);
                }
            }
        }
        Ok(())
    }

    /// Final numbering: parameters, then first appearance; rewrites every
    /// variable of `stmts` and returns the origins and the entry copies.
    fn renumber(
        &mut self,
        stmts: &mut [Stmt],
        pre: &[Pre],
        params: &[(u16, VarOrigin)],
        n_nodes: usize,
    ) -> Result<(Vec<VarOrigin>, Vec<EntryCopy>), LowerError> {
        let mut vars: Vec<VarOrigin> = Vec::with_capacity(params.len() + stmts.len());
        self.final_of_root.clear();
        self.final_of_root.resize(n_nodes, NONE);
        for (_, origin) in params {
            vars.push(*origin);
        }
        // A parameter whose web is also assigned keeps the incoming value in
        // the parameter variable (which has no definition) and gets a local
        // for the web, initialised by a copy at entry.
        self.has_def.clear();
        self.has_def.resize(n_nodes, false);
        for s in 0..self.def_node.len() {
            let dn = self.def_node.get(s).copied().unwrap_or(NONE);
            if dn != NONE {
                let r = find(&mut self.uf, dn);
                if let Some(h) = self.has_def.get_mut(r as usize) {
                    *h = true;
                }
            }
        }
        let mut entry_copies = Vec::new();
        for (i, (slot, _)) in params.iter().enumerate() {
            let r = find(&mut self.uf, i as u32);
            let f = if self.has_def.get(r as usize).copied().unwrap_or(false) {
                let id = vars.len() as u32;
                vars.push(VarOrigin::Local(*slot));
                entry_copies.push(EntryCopy {
                    param: VarId(i as u32),
                    local: VarId(id),
                    slot: *slot,
                });
                id
            } else {
                i as u32
            };
            if let Some(x) = self.final_of_root.get_mut(r as usize) {
                *x = f;
            }
        }
        self.final_of_temp.clear();
        self.final_of_temp.resize(pre.len(), NONE);
        let mut use_cursor = 0usize;
        for (si, stmt) in stmts.iter_mut().enumerate() {
            let mut fail = false;
            stmt.kind.for_each_use_mut(|v| {
                let old = *v;
                let d = dense_of(&self.dense, old);
                let f = if d != NONE {
                    let node = self.use_nodes.get(use_cursor).copied().unwrap_or(NONE);
                    use_cursor += 1;
                    if node == NONE {
                        fail = true;
                        return;
                    }
                    let r = find(&mut self.uf, node);
                    final_for(&mut self.final_of_root, &mut vars, r as usize, old, pre)
                } else {
                    final_for(&mut self.final_of_temp, &mut vars, old.index(), old, pre)
                };
                *v = VarId(f);
            });
            if fail {
                return Err(LowerError::at(
                    stmt.pc,
                    "variable read before it is written",
                ));
            }
            if let Some(v) = stmt.kind.def_mut() {
                let old = *v;
                let d = dense_of(&self.dense, old);
                let f = if d != NONE {
                    let node = self.def_node.get(si).copied().unwrap_or(NONE);
                    let r = find(&mut self.uf, node);
                    final_for(&mut self.final_of_root, &mut vars, r as usize, old, pre)
                } else {
                    final_for(&mut self.final_of_temp, &mut vars, old.index(), old, pre)
                };
                *v = VarId(f);
            }
        }
        Ok((vars, entry_copies))
    }
}

/// The final id for a web root (or temp), allocated on first sight.
fn final_for(
    table: &mut [u32],
    vars: &mut Vec<VarOrigin>,
    key: usize,
    old: VarId,
    pre: &[Pre],
) -> u32 {
    if let Some(&f) = table.get(key) {
        if f != NONE {
            return f;
        }
    }
    let id = vars.len() as u32;
    let origin = match pre.get(old.index()) {
        Some(Pre::Slot(n)) => VarOrigin::Local(*n),
        Some(Pre::Stack(d)) => VarOrigin::Stack(*d),
        _ => VarOrigin::Temp,
    };
    vars.push(origin);
    if let Some(t) = table.get_mut(key) {
        *t = id;
    }
    id
}
