//! Variable types and source names.
//!
//! Every definition gives a type: most instructions state it (descriptors
//! of fields and methods, `new`, `checkcast`, arithmetic kinds, constants);
//! copies and reference array loads take it from their operand, so types
//! are propagated to a fixpoint. Definitions of one variable are joined:
//! `null` meets a class as the class, two different classes give
//! `Ref(None)` (or the `LocalVariableTable`'s declared type when there is
//! one). Primitive conflicts cannot occur in verifiable code; if they do,
//! the first type wins and a note is recorded.
//!
//! Names come from the `LocalVariableTable` entries covering a web's
//! definitions (and a parameter's entry at pc 0), when they agree.
//! This module knows nothing of class hierarchies: no subtyping, no
//! common-superclass computation.

use std::sync::Arc;

use lockstep_classfile::Code;

use crate::desc::{element_type, Interner};
use crate::flat::NONE;
use crate::ir::{ConstValue, Operand, Rvalue, Stmt, StmtKind, Type, VarOrigin};
use crate::stack::{lvt_at, Aux};

pub(crate) fn const_type(c: &ConstValue, interner: &mut Interner) -> Type {
    match c {
        ConstValue::Null => Type::Null,
        ConstValue::Int(_) => Type::Int,
        ConstValue::Long(_) => Type::Long,
        ConstValue::Float(_) => Type::Float,
        ConstValue::Double(_) => Type::Double,
        ConstValue::String(_) => Type::Ref(Some(interner.get("java/lang/String"))),
        ConstValue::Class(_) => Type::Ref(Some(interner.get("java/lang/Class"))),
        ConstValue::MethodType(_) => Type::Ref(Some(interner.get("java/lang/invoke/MethodType"))),
        ConstValue::MethodHandle(_) => {
            Type::Ref(Some(interner.get("java/lang/invoke/MethodHandle")))
        }
        ConstValue::Dynamic { descriptor, .. } => interner.type_of(descriptor),
    }
}

/// Join of two types; the flag reports a conflict (primitive mismatch).
fn join(a: &Type, b: &Type) -> (Type, bool) {
    match (a, b) {
        _ if a == b => (a.clone(), false),
        (Type::Null, Type::Ref(_)) => (b.clone(), false),
        (Type::Ref(_), Type::Null) => (a.clone(), false),
        (Type::Ref(_), Type::Ref(_)) => (Type::Ref(None), false),
        _ => (a.clone(), true),
    }
}

fn is_ref_like(t: &Type) -> bool {
    matches!(t, Type::Ref(_) | Type::Null)
}

/// Where a name/type from the `LocalVariableTable` stands for a variable.
#[derive(Clone, Copy, PartialEq)]
enum Lvt {
    Unseen,
    One(u32),
    Ambiguous,
}

/// Infers `types[v]` and `names[v]` for every variable. `types` holds the
/// parameters' types on entry (others `None`); `origins` the variables' origins.
#[allow(clippy::too_many_arguments)]
pub(crate) fn infer(
    stmts: &[Stmt],
    aux: &mut [Aux],
    code: &Code,
    origins: &[VarOrigin],
    param_slots: &[u16],
    types: &mut [Option<Type>],
    names: &mut [Option<Arc<str>>],
    interner: &mut Interner,
    notes: &mut Vec<String>,
) {
    let mut conflict_pc = None;
    // Stated types first (each definition once), then the inferred ones
    // (copies, reference array loads) to a fixpoint.
    let mut pending: Vec<usize> = Vec::new();
    for (s, stmt) in stmts.iter().enumerate() {
        let Some(v) = stmt.kind.def() else { continue };
        let Some(t) = aux.get_mut(s).and_then(|a| a.ty.take()) else {
            pending.push(s);
            continue;
        };
        if let Some(slot) = types.get_mut(v.index()) {
            *slot = Some(match slot.take() {
                None => t,
                Some(old) => {
                    let (j, conflict) = join(&old, &t);
                    if conflict && conflict_pc.is_none() {
                        conflict_pc = Some(stmt.pc);
                    }
                    j
                }
            });
        }
    }
    let mut changed = true;
    let mut rounds = 0;
    while changed && rounds < 64 {
        changed = false;
        rounds += 1;
        for &s in &pending {
            let Some(stmt) = stmts.get(s) else { continue };
            let Some(v) = stmt.kind.def() else { continue };
            let t = {
                match &stmt.kind {
                    StmtKind::Assign { value, .. } => match value {
                        Rvalue::Use(Operand::Var(x)) => types.get(x.index()).cloned().flatten(),
                        Rvalue::Use(Operand::Const(c)) => Some(const_type(c, interner)),
                        Rvalue::ArrayLoad { array, .. } => match array {
                            Operand::Var(a) => match types.get(a.index()) {
                                Some(Some(Type::Ref(Some(d)))) => {
                                    Some(element_type(d, interner).unwrap_or(Type::Ref(None)))
                                }
                                Some(Some(_)) => Some(Type::Ref(None)),
                                _ => None,
                            },
                            Operand::Const(_) => Some(Type::Ref(None)),
                        },
                        Rvalue::Binary(_, Operand::Var(x), _) | Rvalue::Neg(Operand::Var(x)) => {
                            types.get(x.index()).cloned().flatten()
                        }
                        Rvalue::Binary(_, Operand::Const(c), _)
                        | Rvalue::Neg(Operand::Const(c)) => Some(const_type(c, interner)),
                        _ => None,
                    },
                    _ => None,
                }
            };
            let Some(t) = t else { continue };
            let Some(slot) = types.get_mut(v.index()) else {
                continue;
            };
            let new = match slot {
                None => t,
                Some(old) => {
                    let (j, conflict) = join(old, &t);
                    if conflict && conflict_pc.is_none() {
                        conflict_pc = Some(stmt.pc);
                    }
                    j
                }
            };
            if slot.as_ref() != Some(&new) {
                *slot = Some(new);
                changed = true;
            }
        }
    }
    if let Some(pc) = conflict_pc {
        notes.push(format!(
            "conflicting primitive types for one variable at pc {pc}"
        ));
    }

    // Names (and declared types) from the LocalVariableTable.
    if code.local_variables.is_empty() {
        return;
    }
    let mut lvt = vec![Lvt::Unseen; types.len()];
    let mut see = |v: usize, e: u32| {
        if e == NONE {
            return;
        }
        if let Some(slot) = lvt.get_mut(v) {
            *slot = match *slot {
                Lvt::Unseen => Lvt::One(e),
                Lvt::One(o) => {
                    let same = code.local_variables.get(o as usize).map(|l| &l.name)
                        == code.local_variables.get(e as usize).map(|l| &l.name);
                    if same {
                        Lvt::One(o)
                    } else {
                        Lvt::Ambiguous
                    }
                }
                Lvt::Ambiguous => Lvt::Ambiguous,
            };
        }
    };
    for (i, slot) in param_slots.iter().enumerate() {
        see(i, lvt_at(code, *slot, 0));
    }
    for (s, stmt) in stmts.iter().enumerate() {
        if let (Some(v), Some(a)) = (stmt.kind.def(), aux.get(s)) {
            if matches!(
                origins.get(v.index()),
                Some(VarOrigin::Local(_) | VarOrigin::This | VarOrigin::Param(_))
            ) {
                see(v.index(), a.lvt);
            }
        }
    }
    for (v, l) in lvt.iter().enumerate() {
        let Lvt::One(e) = l else { continue };
        let Some(entry) = code.local_variables.get(*e as usize) else {
            continue;
        };
        if let Some(n) = names.get_mut(v) {
            *n = Some(entry.name.clone());
        }
        // A declared reference type refines `null` and joins of different classes.
        if let Some(t) = types.get_mut(v) {
            let declared = interner.type_of(&entry.descriptor);
            let vague = matches!(t, None | Some(Type::Null) | Some(Type::Ref(None)));
            if vague && (is_ref_like(&declared) || t.is_none()) {
                *t = Some(declared);
            }
        }
    }
}
