//! Parameter guards: what every path from a method's entry to a statement
//! has tested about the method's parameters (`p == null`, `p != null`,
//! a `boolean` or `int` parameter `== 0` or `!= 0`).
//!
//! A call that passes a constant the test rules out never reaches the
//! statement through that call. Lock summaries and lock orders use this
//! to drop call paths that the program never runs: jcifs's
//! `SmbSession.logoff` calls `transport.send(request, null)`, and `send`
//! returns early on a `null` response before it checks the response
//! status (the only way on to `Dfs.insert`); Tomcat's
//! `DeltaManager.handleSESSION_EXPIRED` calls
//! `session.expire(notify, false)`, and `expire` asks the manager for the
//! session's last changes only under `if (notifyCluster && …)`.
//!
//! Only a parameter the body never reassigns is tracked (its value is the
//! caller's argument all through the body), and only tests of it (or of a
//! variable defined once as a copy of it) against `null` or `0`. A guard
//! is a *must* fact: the meet of two paths keeps only what both tested.

use std::sync::Arc;

use lockstep_ir::{Body, ConstValue, Operand, Rvalue, StmtId, StmtKind, VarId};

use crate::block_solver::{self, Forward, HandlerSees};

/// What a test tells about a parameter's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Guard {
    Null,
    NonNull,
    Zero,
    NonZero,
}

impl Guard {
    /// The guard of the other outcome of the same test.
    fn negated(self) -> Guard {
        match self {
            Guard::Null => Guard::NonNull,
            Guard::NonNull => Guard::Null,
            Guard::Zero => Guard::NonZero,
            Guard::NonZero => Guard::Zero,
        }
    }

    /// Does the constant `c` pass this guard? `None`: the guard says
    /// nothing about such a constant.
    pub fn admits(self, c: &ConstValue) -> Option<bool> {
        match (self, c) {
            (Guard::Null, ConstValue::Null) | (Guard::Zero, ConstValue::Int(0)) => Some(true),
            (Guard::NonNull, ConstValue::Null) | (Guard::NonZero, ConstValue::Int(0)) => {
                Some(false)
            }
            (Guard::Zero, ConstValue::Int(_)) => Some(false),
            (Guard::NonZero, ConstValue::Int(_)) => Some(true),
            // A string or class literal is never `null`.
            (Guard::Null, ConstValue::String(_) | ConstValue::Class(_)) => Some(false),
            (Guard::NonNull, ConstValue::String(_) | ConstValue::Class(_)) => Some(true),
            _ => None,
        }
    }
}

/// Guards on parameters (position in `body.params`: `0` is `this` of an
/// instance method), sorted, at most one per parameter.
pub type Guards = Arc<[(u16, Guard)]>;

/// The guards in force before each statement of a body.
#[derive(Debug, Default)]
pub struct BodyGuards {
    /// Per block: the guards on entry (empty for unreached blocks too).
    at_block: Vec<Guards>,
    block_of: Vec<u32>,
}

impl BodyGuards {
    /// The guards before statement `s` (none when unknown).
    pub fn at(&self, s: StmtId) -> Guards {
        self.block_of
            .get(s.index())
            .and_then(|&b| self.at_block.get(b as usize))
            .cloned()
            .unwrap_or_else(|| Arc::from([]))
    }
}

/// The parameter a variable stands for: the parameter itself, or a
/// variable defined once as a copy of it; only parameters the body never
/// reassigns.
fn param_of_var(body: &Body, v: VarId) -> Option<u16> {
    let v = match body.unique_def.get(v.index()).copied().flatten() {
        Some(def) => match &body.stmts.get(def.index())?.kind {
            StmtKind::Assign {
                value: Rvalue::Use(Operand::Var(src)),
                ..
            } => *src,
            _ => return None,
        },
        None => v,
    };
    let pos = body.params.iter().position(|p| *p == v)?;
    let kept = body.stmts.iter().all(|s| s.kind.def() != Some(v));
    kept.then(|| u16::try_from(pos).ok()).flatten()
}

/// The constant an argument is: a literal, or a variable defined once by
/// one.
pub fn constant_of<'b>(body: &'b Body, op: &'b Operand) -> Option<&'b ConstValue> {
    match op {
        Operand::Const(c) => Some(c),
        Operand::Var(v) => {
            let def = body.unique_def.get(v.index()).copied().flatten()?;
            match &body.stmts.get(def.index())?.kind {
                StmtKind::Assign {
                    value: Rvalue::Use(Operand::Const(c)),
                    ..
                } => Some(c),
                _ => None,
            }
        }
    }
}

/// The parameter of `body` an argument operand is, if any.
pub fn param_operand(body: &Body, op: &Operand) -> Option<u16> {
    param_of_var(body, op.var()?)
}

/// The guard the taken edge of an `if` at the end of `block` gives, as
/// (parameter, guard when taken).
fn test_of(body: &Body, block: usize) -> Option<(u16, Guard, usize)> {
    let b = body.blocks.get(block)?;
    if b.succs.len() != 2 || b.first.0 >= b.end.0 {
        return None;
    }
    let last = body.stmts.get(b.end.0 as usize - 1)?;
    let StmtKind::If {
        cond,
        lhs: Operand::Var(v),
        rhs: Operand::Const(c),
        target,
    } = &last.kind
    else {
        return None;
    };
    let on_equal = match c {
        ConstValue::Null => Guard::Null,
        ConstValue::Int(0) => Guard::Zero,
        _ => return None,
    };
    let when_taken = match cond {
        lockstep_ir::Cond::Eq => on_equal,
        lockstep_ir::Cond::Ne => on_equal.negated(),
        _ => return None,
    };
    Some((param_of_var(body, *v)?, when_taken, target.index()))
}

struct GuardFlow<'b> {
    body: &'b Body,
}

impl Forward for GuardFlow<'_> {
    type State = Guards;

    fn meet_into(&self, into: &mut Guards, from: &Guards) -> bool {
        let met: Vec<(u16, Guard)> = into.iter().filter(|g| from.contains(g)).copied().collect();
        if met.len() == into.len() {
            return false;
        }
        *into = met.into();
        true
    }

    fn step(&mut self, _s: StmtId, _state: &mut Guards) {}

    fn edge(&mut self, block: usize, succ: usize, state: &Guards) -> Option<Guards> {
        let (p, when_taken, target) = test_of(self.body, block)?;
        let g = if succ == target {
            when_taken
        } else {
            when_taken.negated()
        };
        if state.iter().any(|&(q, _)| q == p) {
            return None;
        }
        let mut out: Vec<(u16, Guard)> = state.to_vec();
        out.push((p, g));
        out.sort_unstable();
        Some(out.into())
    }
}

/// The guards of every statement of `body`.
pub fn analyse(body: &Body) -> BodyGuards {
    let nb = body.blocks.len();
    let mut flow = GuardFlow { body };
    let at_entry = block_solver::solve(
        body,
        &mut flow,
        Arc::from([]),
        HandlerSees::BeforeEach,
        nb.saturating_mul(16).max(64),
    );
    let at_block = match at_entry {
        Some(v) => v
            .into_iter()
            .map(|g| g.unwrap_or_else(|| Arc::from([])))
            .collect(),
        None => vec![Arc::from([]); nb],
    };
    BodyGuards {
        at_block,
        block_of: body.block_of.iter().map(|b| b.0).collect(),
    }
}

/// What a call does to guards of the callee: `None` when an argument is
/// a constant some guard rules out (the call never reaches the guarded
/// statement); else the guards that carry over to the caller's own
/// parameters (an argument that is one of them).
pub fn across_call(
    caller: &Body,
    args: impl Fn(u16) -> Option<Operand>,
    callee_guards: &[(u16, Guard)],
) -> Option<Vec<(u16, Guard)>> {
    let mut out = Vec::new();
    for &(p, g) in callee_guards {
        let Some(arg) = args(p) else {
            continue;
        };
        if let Some(c) = constant_of(caller, &arg) {
            if g.admits(c) == Some(false) {
                return None;
            }
            continue;
        }
        if let Some(q) = param_operand(caller, &arg) {
            out.push((q, g));
        }
    }
    Some(out)
}

/// `a` and `b` together, or `None` when they contradict (one parameter
/// both `null` and not).
pub fn join(a: &[(u16, Guard)], b: &[(u16, Guard)]) -> Option<Guards> {
    let mut out: Vec<(u16, Guard)> = a.iter().chain(b).copied().collect();
    out.sort_unstable();
    out.dedup();
    if out.windows(2).any(|w| w[0].0 == w[1].0) {
        return None;
    }
    Some(out.into())
}
