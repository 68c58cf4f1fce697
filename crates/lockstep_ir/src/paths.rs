//! Access paths: a value described the way the source names it (`this`,
//! `lock`, `this.lock`, `Outer.LOCK`, `pts[i]`, `Foo.class`, `Outer.this`).
//!
//! A path is found by following a variable's unique definition through
//! copies and casts down to a parameter, a field or static read, an array
//! element, or a constant; anything else (several definitions, a call
//! result, an allocation) is the variable itself (`AccessPath::Local`).
//! Paths are syntactic: they say nothing about aliasing, and two equal
//! paths read at different times may denote different objects (a field can
//! be reassigned in between). That judgement belongs to the analyses.

use std::fmt;
use std::sync::Arc;

use crate::desc::simple_class_name;
use crate::ir::{AccessPath, Body, ConstValue, MemberRef, Operand, Rvalue, StmtKind, VarId};

/// Paths deeper than this are cut to [`AccessPath::Unknown`].
const MAX_DEPTH: u32 = 8;

/// The access path of variable `v` in `body`.
pub fn access_path(body: &Body, v: VarId) -> AccessPath {
    var_path(body, v, 0)
}

/// The access path of an operand: a variable's path, an int constant, or a class literal.
pub fn operand_path(body: &Body, op: &Operand) -> AccessPath {
    op_path(body, op, 0)
}

fn op_path(body: &Body, op: &Operand, depth: u32) -> AccessPath {
    match op {
        Operand::Var(v) => var_path(body, *v, depth),
        Operand::Const(ConstValue::Int(i)) => AccessPath::IntConst(*i),
        Operand::Const(ConstValue::Class(c)) => AccessPath::ClassLiteral(c.clone()),
        Operand::Const(_) => AccessPath::Unknown,
    }
}

/// Is this javac's synthetic outer-instance field (`this$0`, `this$1`...)?
/// Returns the outer class it holds.
fn outer_this_class(f: &MemberRef) -> Option<&str> {
    let digits = f.name.strip_prefix("this$")?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    f.descriptor.strip_prefix('L')?.strip_suffix(';')
}

fn var_path(body: &Body, v: VarId, depth: u32) -> AccessPath {
    if depth > MAX_DEPTH {
        return AccessPath::Unknown;
    }
    let name = || body.vars.get(v.index()).and_then(|i| i.name.clone());
    if let Some(pos) = body.params.iter().position(|p| *p == v) {
        if !body.is_static && pos == 0 {
            return AccessPath::This;
        }
        let index = pos - usize::from(!body.is_static);
        return AccessPath::Param(u16::try_from(index).unwrap_or(u16::MAX), name());
    }
    let def = body
        .unique_def
        .get(v.index())
        .copied()
        .flatten()
        .and_then(|s| body.stmts.get(s.index()));
    let Some(StmtKind::Assign { value, .. }) = def.map(|s| &s.kind) else {
        return AccessPath::Local(v, name());
    };
    let d = depth + 1;
    match value {
        Rvalue::Use(op) | Rvalue::Cast(op, _) => match op_path(body, op, d) {
            // `Object o = new Object()` copies an unnamed temporary into `o`:
            // the source calls the value `o`.
            AccessPath::Local(_, None) if name().is_some() => AccessPath::Local(v, name()),
            p => p,
        },
        Rvalue::FieldLoad { object, field } => {
            let base = op_path(body, object, d);
            match outer_this_class(field) {
                Some(outer) => AccessPath::OuterThis(Arc::new(base), outer.into()),
                None => AccessPath::Field(Arc::new(base), field.name.clone()),
            }
        }
        Rvalue::StaticLoad(f) => AccessPath::Static(f.class.clone(), f.name.clone()),
        Rvalue::ArrayLoad { array, index, .. } => AccessPath::Element(
            Arc::new(op_path(body, array, d)),
            Arc::new(op_path(body, index, d)),
        ),
        _ => AccessPath::Local(v, name()),
    }
}

impl Body {
    /// The access path of variable `v`; see [`access_path`].
    pub fn access_path(&self, v: VarId) -> AccessPath {
        access_path(self, v)
    }

    /// The access path of an operand; see [`operand_path`].
    pub fn operand_path(&self, op: &Operand) -> AccessPath {
        operand_path(self, op)
    }
}

impl fmt::Display for AccessPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AccessPath::This => f.write_str("this"),
            AccessPath::Param(_, Some(n)) => f.write_str(n),
            AccessPath::Param(i, None) => write!(f, "p{i}"),
            AccessPath::Local(_, Some(n)) => f.write_str(n),
            AccessPath::Local(v, None) => write!(f, "{v}"),
            AccessPath::Static(c, n) => write!(f, "{}.{n}", simple_class_name(c)),
            AccessPath::Field(base, n) => write!(f, "{base}.{n}"),
            AccessPath::Element(a, i) => write!(f, "{a}[{i}]"),
            AccessPath::ClassLiteral(c) => write!(f, "{}.class", simple_class_name(c)),
            AccessPath::IntConst(i) => write!(f, "{i}"),
            AccessPath::OuterThis(base, c) => match **base {
                AccessPath::This | AccessPath::OuterThis(..) => {
                    write!(f, "{}.this", simple_class_name(c))
                }
                _ => write!(f, "{base}.<{}.this>", simple_class_name(c)),
            },
            AccessPath::Unknown => f.write_str("?"),
        }
    }
}
