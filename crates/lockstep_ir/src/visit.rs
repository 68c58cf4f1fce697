//! Generic access to what a statement defines and uses.
//!
//! Every pass (splitting, validation, typing, analyses in other crates)
//! needs "the variable this statement assigns" and "every variable it
//! reads"; keeping the enumeration in one place means a new statement form
//! cannot be forgotten by one pass and not another. This module knows the
//! shape of statements only, not what they mean.

use crate::ir::{Operand, Rvalue, StmtKind, VarId};

impl Rvalue {
    /// Calls `f` on every operand, in source order.
    pub fn for_each_operand(&self, mut f: impl FnMut(&Operand)) {
        match self {
            Rvalue::Use(a) | Rvalue::Neg(a) | Rvalue::Convert(_, a) | Rvalue::ArrayLength(a) => {
                f(a)
            }
            Rvalue::InstanceOf(a, _) | Rvalue::Cast(a, _) => f(a),
            Rvalue::Binary(_, a, b) | Rvalue::Compare(_, a, b) => {
                f(a);
                f(b);
            }
            Rvalue::NewArray(_, dims) => dims.iter().for_each(f),
            Rvalue::FieldLoad { object, .. } => f(object),
            Rvalue::ArrayLoad { array, index, .. } => {
                f(array);
                f(index);
            }
            Rvalue::New(_) | Rvalue::StaticLoad(_) | Rvalue::CaughtException => {}
        }
    }

    /// Calls `f` on every operand, mutably, in source order.
    pub fn for_each_operand_mut(&mut self, mut f: impl FnMut(&mut Operand)) {
        match self {
            Rvalue::Use(a) | Rvalue::Neg(a) | Rvalue::Convert(_, a) | Rvalue::ArrayLength(a) => {
                f(a)
            }
            Rvalue::InstanceOf(a, _) | Rvalue::Cast(a, _) => f(a),
            Rvalue::Binary(_, a, b) | Rvalue::Compare(_, a, b) => {
                f(a);
                f(b);
            }
            Rvalue::NewArray(_, dims) => dims.iter_mut().for_each(f),
            Rvalue::FieldLoad { object, .. } => f(object),
            Rvalue::ArrayLoad { array, index, .. } => {
                f(array);
                f(index);
            }
            Rvalue::New(_) | Rvalue::StaticLoad(_) | Rvalue::CaughtException => {}
        }
    }

    /// Does evaluating this read the heap (field, static or array element)?
    pub fn is_heap_read(&self) -> bool {
        matches!(
            self,
            Rvalue::FieldLoad { .. } | Rvalue::StaticLoad(_) | Rvalue::ArrayLoad { .. }
        )
    }
}

impl StmtKind {
    /// The variable this statement assigns, if any.
    pub fn def(&self) -> Option<VarId> {
        match self {
            StmtKind::Assign { dst, .. } => Some(*dst),
            StmtKind::Invoke { result, .. } | StmtKind::InvokeDynamic { result, .. } => *result,
            _ => None,
        }
    }

    /// The variable this statement assigns, mutably.
    pub fn def_mut(&mut self) -> Option<&mut VarId> {
        match self {
            StmtKind::Assign { dst, .. } => Some(dst),
            StmtKind::Invoke { result, .. } | StmtKind::InvokeDynamic { result, .. } => {
                result.as_mut()
            }
            _ => None,
        }
    }

    /// Calls `f` on every operand (not on the `Ret` address, which is a bare variable).
    pub fn for_each_operand(&self, mut f: impl FnMut(&Operand)) {
        match self {
            StmtKind::Assign { value, .. } => value.for_each_operand(f),
            StmtKind::FieldStore { object, value, .. } => {
                f(object);
                f(value);
            }
            StmtKind::StaticStore { value, .. } => f(value),
            StmtKind::ArrayStore {
                array,
                index,
                value,
                ..
            } => {
                f(array);
                f(index);
                f(value);
            }
            StmtKind::Invoke { call, .. } => {
                if let Some(r) = &call.receiver {
                    f(r);
                }
                call.args.iter().for_each(f);
            }
            StmtKind::InvokeDynamic { call, .. } => call.args.iter().for_each(f),
            StmtKind::MonitorEnter(a) | StmtKind::MonitorExit(a) | StmtKind::Throw(a) => f(a),
            StmtKind::If { lhs, rhs, .. } => {
                f(lhs);
                f(rhs);
            }
            StmtKind::Switch { key, .. } => f(key),
            StmtKind::Return(a) => {
                if let Some(a) = a {
                    f(a);
                }
            }
            StmtKind::Goto(_) | StmtKind::Ret { .. } | StmtKind::Nop => {}
        }
    }

    /// Calls `f` on every operand, mutably.
    pub fn for_each_operand_mut(&mut self, mut f: impl FnMut(&mut Operand)) {
        match self {
            StmtKind::Assign { value, .. } => value.for_each_operand_mut(f),
            StmtKind::FieldStore { object, value, .. } => {
                f(object);
                f(value);
            }
            StmtKind::StaticStore { value, .. } => f(value),
            StmtKind::ArrayStore {
                array,
                index,
                value,
                ..
            } => {
                f(array);
                f(index);
                f(value);
            }
            StmtKind::Invoke { call, .. } => {
                if let Some(r) = &mut call.receiver {
                    f(r);
                }
                call.args.iter_mut().for_each(f);
            }
            StmtKind::InvokeDynamic { call, .. } => call.args.iter_mut().for_each(f),
            StmtKind::MonitorEnter(a) | StmtKind::MonitorExit(a) | StmtKind::Throw(a) => f(a),
            StmtKind::If { lhs, rhs, .. } => {
                f(lhs);
                f(rhs);
            }
            StmtKind::Switch { key, .. } => f(key),
            StmtKind::Return(a) => {
                if let Some(a) = a {
                    f(a);
                }
            }
            StmtKind::Goto(_) | StmtKind::Ret { .. } | StmtKind::Nop => {}
        }
    }

    /// Calls `f` on every variable read: variable operands and the `Ret` address.
    pub fn for_each_use(&self, mut f: impl FnMut(VarId)) {
        if let StmtKind::Ret { address, .. } = self {
            f(*address);
            return;
        }
        self.for_each_operand(|o| {
            if let Operand::Var(v) = o {
                f(*v)
            }
        });
    }

    /// Calls `f` on every variable read, mutably.
    pub fn for_each_use_mut(&mut self, mut f: impl FnMut(&mut VarId)) {
        if let StmtKind::Ret { address, .. } = self {
            f(address);
            return;
        }
        self.for_each_operand_mut(|o| {
            if let Operand::Var(v) = o {
                f(v)
            }
        });
    }

    /// The normal control-flow targets named by this statement (not the
    /// fall-through), in order of appearance, possibly repeated.
    pub fn for_each_target(&self, mut f: impl FnMut(crate::ir::BlockId)) {
        match self {
            StmtKind::If { target, .. } => f(*target),
            StmtKind::Goto(t) => f(*t),
            StmtKind::Switch { cases, default, .. } => {
                f(*default);
                cases.iter().for_each(|(_, t)| f(*t));
            }
            StmtKind::Ret { targets, .. } => targets.iter().for_each(|t| f(*t)),
            _ => {}
        }
    }

    /// Does this statement access the heap (field, static, array element) or call?
    pub fn is_heap_access_or_call(&self) -> bool {
        match self {
            StmtKind::Assign { value, .. } => value.is_heap_read(),
            StmtKind::FieldStore { .. }
            | StmtKind::StaticStore { .. }
            | StmtKind::ArrayStore { .. }
            | StmtKind::Invoke { .. }
            | StmtKind::InvokeDynamic { .. } => true,
            _ => false,
        }
    }
}
