//! The locks one method body *must* hold before each of its statements,
//! as the body names them: `synchronized` regions (from the IR's monitor
//! regions) and `java.util.concurrent.locks` acquisitions followed
//! flow-sensitively (`lock()`/`unlock()`, `tryLock()` on its true branch,
//! read and write views of a `ReadWriteLock`).
//!
//! A must-analysis: at a merge only the locks held on every incoming path
//! survive, an `unlock()` whose lock cannot be matched releases every
//! `java.util.concurrent` lock of the body (fewer locks held means more
//! races reported, never fewer), and a handler starts with what the whole
//! protected block holds throughout. Which *objects* the locks are is
//! decided per calling context by [`super::locks`].

use std::sync::Arc;

use lockstep_ir::{access_path, AccessPath, Body, Cond, ConstValue, Operand, StmtKind, VarId};
use lockstep_models::{LockEffect, LockMode};
use lockstep_program::Program;

/// A field by declaring class and name.
pub use lockstep_program::lock_calls::FieldName;

/// A lock a statement runs under, as the method names it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LocalLock {
    /// A `synchronized` method on `this` (instance) or its class (static).
    SyncMethod,
    /// A `synchronized (x)` block: the variable holding `x` and its path.
    Monitor {
        var: Option<VarId>,
        path: AccessPath,
    },
    /// A `java.util.concurrent` lock acquired through `var` (the receiver
    /// of `lock()`), named `path`, in `mode`; when taken by a lock
    /// wrapper (`lockstep_program::lock_calls`), the lock is the object's
    /// `field`, not the object `var` holds.
    Juc {
        var: VarId,
        path: AccessPath,
        mode: LockMode,
        field: Option<FieldName>,
    },
}

impl LocalLock {
    /// The lock as an access path of `body`: `this` or the class literal
    /// for a `synchronized` method, else the path the body names it by.
    pub fn path(&self, body: &Body) -> AccessPath {
        match self {
            LocalLock::SyncMethod if body.is_static => AccessPath::ClassLiteral(body.class.clone()),
            LocalLock::SyncMethod => AccessPath::This,
            LocalLock::Monitor { path, .. } | LocalLock::Juc { path, .. } => path.clone(),
        }
    }

    /// How the source names the lock (`this`, `lock`, `Outer.LOCK`).
    pub fn display(&self, body: &Body) -> String {
        let short = |p: &AccessPath| {
            let s = p.to_string();
            match s.strip_prefix("this.") {
                Some(rest) if !rest.is_empty() => rest.to_string(),
                _ => s,
            }
        };
        match self {
            LocalLock::SyncMethod if body.is_static => {
                format!("{}.class", lockstep_ir::simple_class_name(&body.class))
            }
            LocalLock::SyncMethod => "this".to_string(),
            LocalLock::Monitor { path, .. } => short(path),
            LocalLock::Juc { path, mode, .. } => match mode {
                LockMode::Read => format!("{} (read)", short(path)),
                LockMode::Write => format!("{} (write)", short(path)),
                _ => short(path),
            },
        }
    }
}

/// A `java.util.concurrent` lock held: its path, the variable it is
/// reached from, its mode and the wrapper's field of that variable.
pub type JucLock = (AccessPath, VarId, LockMode, Option<FieldName>);

/// The `java.util.concurrent` locks held before each statement.
pub type JucState = Vec<JucLock>;

/// The locks held before every statement of a body.
#[derive(Debug, Default)]
pub struct BodyLocks {
    /// Indexed by statement; shared slices for runs of equal sets.
    pub before: Vec<Arc<[LocalLock]>>,
}

impl BodyLocks {
    pub fn at(&self, s: lockstep_ir::StmtId) -> &[LocalLock] {
        self.before.get(s.index()).map(|v| &v[..]).unwrap_or(&[])
    }
}

/// What a call does to `java.util.concurrent` locks, resolved through the models.
pub fn juc_effect(program: &Program, call: &lockstep_ir::Call) -> Option<LockEffect> {
    lockstep_program::juc_effect(program, call)
}

/// The path naming a lock operand: a view of a read-write lock
/// (`rw.readLock()`) is named by the read-write lock's path with the
/// view's mode, so `rw.readLock().lock()` and `rw.readLock().unlock()`
/// match although each calls `readLock()` anew.
pub fn lock_name(program: &Program, body: &Body, v: VarId) -> (AccessPath, Option<LockMode>) {
    if let Some(Some(def)) = body.unique_def.get(v.index()) {
        if let Some(StmtKind::Invoke { call, .. }) = body.stmts.get(def.index()).map(|s| &s.kind) {
            let view = match juc_effect(program, call) {
                Some(LockEffect::ReadView) => Some(LockMode::Read),
                Some(LockEffect::WriteView) => Some(LockMode::Write),
                _ => None,
            };
            if let (Some(mode), Some(Operand::Var(r))) = (view, call.receiver.as_ref()) {
                return (access_path(body, *r), Some(mode));
            }
        }
    }
    (access_path(body, v), None)
}

/// The path naming the lock of a lock call, the mode of the view it is
/// taken through, and the wrapper's field: a JDK call's lock is named by
/// [`lock_name`], a wrapper's by the field of its receiver
/// (`lobManager.writeLock` for `lobManager.lock()`).
pub fn call_lock_name(
    program: &Program,
    body: &Body,
    lc: &lockstep_program::LockCall,
) -> (AccessPath, Option<LockMode>, Option<FieldName>) {
    match &lc.field {
        None => {
            let (path, view) = lock_name(program, body, lc.base);
            (path, view, None)
        }
        Some(f) => {
            let base = access_path(body, lc.base);
            let path = match base {
                AccessPath::Unknown => AccessPath::Unknown,
                b => AccessPath::Field(Arc::new(b), f.1.clone()),
            };
            (path, None, Some(f.clone()))
        }
    }
}

/// A pending `tryLock()`: the variable holding its result, and the lock it takes if true.
type Pending = Vec<(VarId, JucLock)>;

#[derive(Clone, PartialEq)]
struct State {
    held: JucState,
    pending: Pending,
}

fn meet(a: &State, b: &State) -> State {
    State {
        held: a.held.iter().filter_map(|x| held_on_both(x, b)).collect(),
        pending: a
            .pending
            .iter()
            .filter(|x| b.pending.contains(x))
            .cloned()
            .collect(),
    }
}

/// `x` (held on one path) if the other path holds it too. A lock a
/// wrapper took is one lock whatever variable its receiver was read
/// into: two wrapper calls on `this._locker` in a loop name the same
/// lock through two loads, so the paths meet by name, field and mode
/// (the lower variable stands for both; either holds `this._locker`).
fn held_on_both(x: &JucLock, other: &State) -> Option<JucLock> {
    if other.held.contains(x) {
        return Some(x.clone());
    }
    // Only a wrapper's lock (with its field) meets by name.
    x.3.as_ref()?;
    let same = other
        .held
        .iter()
        .find(|h| h.0 == x.0 && h.2 == x.2 && h.3 == x.3)?;
    Some(if same.1 < x.1 {
        same.clone()
    } else {
        x.clone()
    })
}

/// Applies one statement; returns the state after it.
fn transfer(program: &Program, body: &Body, kind: &StmtKind, st: &mut State) {
    match kind {
        StmtKind::Invoke { result, call } => {
            let Some(lc) = lockstep_program::lock_call(program, body, call) else {
                if let Some(r) = result {
                    st.pending.retain(|p| p.0 != *r);
                }
                return;
            };
            let effect = lc.effect;
            let (path, view, field) = call_lock_name(program, body, &lc);
            let recv = &lc.base;
            match effect {
                LockEffect::Lock(mode) => {
                    let mode = view.unwrap_or(mode);
                    if !st.held.iter().any(|h| h.0 == path && h.2 == mode) {
                        st.held.push((path, *recv, mode, field));
                        st.held.sort();
                    }
                }
                LockEffect::Unlock(_) => {
                    if matches!(path, AccessPath::Unknown) {
                        st.held.clear();
                    } else if st.held.iter().any(|h| h.0 == path) {
                        st.held.retain(|h| h.0 != path);
                    } else if matches!(path, AccessPath::Local(..)) {
                        // A lock we cannot name was released: it may be any.
                        st.held.clear();
                    }
                }
                LockEffect::LockedIfTrue(mode) => {
                    if let Some(r) = result {
                        st.pending.retain(|p| p.0 != *r);
                        st.pending
                            .push((*r, (path, *recv, view.unwrap_or(mode), field)));
                    }
                }
                _ => {}
            }
        }
        StmtKind::Assign { dst, value } => {
            // Copies of a pending `tryLock` result stay pending.
            let copied = match value {
                lockstep_ir::Rvalue::Use(Operand::Var(src)) => st
                    .pending
                    .iter()
                    .find(|p| p.0 == *src)
                    .map(|p| (*dst, p.1.clone())),
                _ => None,
            };
            st.pending.retain(|p| p.0 != *dst);
            if let Some(c) = copied {
                st.pending.push(c);
            }
        }
        _ => {}
    }
}

/// For an `If` testing a pending `tryLock` result against 0: which of the
/// two successors (fall-through, target) has the lock.
fn try_lock_branch(kind: &StmtKind, st: &State) -> Option<(usize, JucLock)> {
    let StmtKind::If { cond, lhs, rhs, .. } = kind else {
        return None;
    };
    let (var, other) = match (lhs, rhs) {
        (Operand::Var(v), o) | (o, Operand::Var(v)) => (*v, o),
        _ => return None,
    };
    if !matches!(other, Operand::Const(ConstValue::Int(0))) {
        return None;
    }
    let p = st.pending.iter().find(|p| p.0 == var)?;
    // `if (r == 0) goto target`: the fall-through has the lock.
    let locked_succ = match cond {
        Cond::Eq => 0,
        Cond::Ne => 1,
        _ => return None,
    };
    Some((locked_succ, p.1.clone()))
}

/// Must-held locks before each statement of `body`.
pub fn analyse(program: &Program, body: &Body) -> BodyLocks {
    let n_blocks = body.blocks.len();
    let mut block_in: Vec<Option<State>> = vec![None; n_blocks];
    let has_juc = body.stmts.iter().any(|s| match &s.kind {
        StmtKind::Invoke { call, .. } => lockstep_program::lock_call(program, body, call).is_some(),
        _ => false,
    });
    let mut juc_before: Vec<JucState> = vec![Vec::new(); body.stmts.len()];
    if has_juc && n_blocks > 0 {
        block_in[0] = Some(State {
            held: Vec::new(),
            pending: Vec::new(),
        });
        let mut work: Vec<usize> = vec![0];
        let mut queued = vec![false; n_blocks];
        queued[0] = true;
        let mut steps = 0usize;
        let limit = 64 * (n_blocks + 8);
        while let Some(b) = work.pop() {
            queued[b] = false;
            steps += 1;
            if steps > limit {
                break;
            }
            let Some(mut st) = block_in[b].clone() else {
                continue;
            };
            let block = &body.blocks[b];
            let entry = st.clone();
            let mut last_kind = None;
            for s in block.stmt_ids() {
                let Some(stmt) = body.stmts.get(s.index()) else {
                    continue;
                };
                if let Some(slot) = juc_before.get_mut(s.index()) {
                    *slot = st.held.clone();
                }
                if !stmt.kind.is_terminator() {
                    transfer(program, body, &stmt.kind, &mut st);
                }
                last_kind = Some(&stmt.kind);
            }
            let branch = last_kind.and_then(|k| try_lock_branch(k, &st));
            let mut outs: Vec<(usize, State)> = Vec::new();
            for (i, succ) in block.succs.iter().enumerate() {
                let mut out = st.clone();
                if let Some((locked, lock)) = &branch {
                    if *locked == i && !out.held.contains(lock) {
                        out.held.push(lock.clone());
                        out.held.sort();
                    }
                }
                outs.push((succ.index(), out));
            }
            let handler_state = meet(&entry, &st);
            for e in &block.exceptional {
                outs.push((e.handler.index(), handler_state.clone()));
            }
            for (succ, out) in outs {
                let Some(slot) = block_in.get_mut(succ) else {
                    continue;
                };
                let new = match slot {
                    None => out,
                    Some(old) => meet(old, &out),
                };
                if slot.as_ref() != Some(&new) {
                    *slot = Some(new);
                    if !queued[succ] {
                        queued[succ] = true;
                        work.push(succ);
                    }
                }
            }
        }
    }
    let mut before: Vec<Arc<[LocalLock]>> = Vec::with_capacity(body.stmts.len());
    let mut last: Option<Arc<[LocalLock]>> = None;
    for (i, juc) in juc_before.iter().enumerate() {
        let mut locks: Vec<LocalLock> = Vec::new();
        for r in body.regions_held_before(lockstep_ir::StmtId(i as u32)) {
            let Some(region) = body.monitors.get(r.index()) else {
                continue;
            };
            locks.push(match region.kind {
                lockstep_ir::MonitorKind::SynchronizedMethod => LocalLock::SyncMethod,
                lockstep_ir::MonitorKind::Block => LocalLock::Monitor {
                    var: region.lock_var,
                    path: region.lock.clone(),
                },
            });
        }
        for (path, var, mode, field) in juc {
            locks.push(LocalLock::Juc {
                var: *var,
                path: path.clone(),
                mode: *mode,
                field: field.clone(),
            });
        }
        let arc = match &last {
            Some(prev) if **prev == locks[..] => prev.clone(),
            _ => Arc::from(locks),
        };
        last = Some(arc.clone());
        before.push(arc);
    }
    BodyLocks { before }
}
