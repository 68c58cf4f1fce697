//! The JDK boundary in the program model (`lockstep_models::boundary`):
//! which reached methods are summarised instead of analysed, and which
//! statements of a summarised body still count.
//!
//! A summarised method keeps its call edges in and its *callbacks* out:
//! the calls its body makes on one of its parameters (`this` included).
//! Nothing else of its body counts: no allocation makes a class live, no
//! other call is resolved, no static initializer is triggered, and its
//! result is an object of its declared return type that nobody allocated
//! (the points-to analysis's opaque object; RTA makes that class live).
//! Every call graph (RTA, CHA, points-to) applies this one rule, so the
//! consumers of either graph see the same edges out of such a method.

use lockstep_ir::{Body, Call, Operand, StmtId, StmtKind};

use crate::program::{ClassId, MethodId, Program};

impl Program {
    /// Is `m` a library method of a class the JDK boundary summarises? An
    /// application class is never summarised, whatever its name (java.base
    /// analysed as the application).
    pub fn is_summarized(&self, m: MethodId) -> bool {
        let Some(md) = self.try_method(m) else {
            return false;
        };
        !self.is_application(md.class)
            && lockstep_models::is_summarized_class(&self.class(md.class).name)
    }

    /// The class of the object a summarised method returns: its declared
    /// return type when that is a concrete class that loads, else the JDK
    /// implementation the boundary names for that abstract type
    /// (`lockstep_models::summarized_result_implementation`).
    pub fn summarized_result_class(&self, m: MethodId) -> Option<ClassId> {
        let md = self.try_method(m)?;
        let ret = lockstep_classfile::descriptor::return_type(&md.descriptor)?;
        let name = ret.strip_prefix('L')?.strip_suffix(';')?;
        let declared = self.class_by_name(name)?;
        if self.class(declared).is_concrete() {
            return Some(declared);
        }
        self.summarized_implementation(name)
    }

    /// The loaded, concrete JDK class the boundary names as what its
    /// summarised methods return for the abstract type `declared`.
    pub fn summarized_implementation(&self, declared: &str) -> Option<ClassId> {
        let name = lockstep_models::summarized_result_implementation(declared)?;
        self.class_by_name(name)
            .filter(|&c| self.class(c).is_concrete())
    }
}

/// The callbacks of a summarised body: its calls whose receiver is one of
/// its parameters (`this` included), with their statement ids, in order.
pub fn callback_calls(body: &Body) -> impl Iterator<Item = (StmtId, &Call)> + '_ {
    body.stmts.iter().enumerate().filter_map(|(i, stmt)| {
        let StmtKind::Invoke { call, .. } = &stmt.kind else {
            return None;
        };
        let on_parameter = matches!(
            call.receiver,
            Some(Operand::Var(v)) if body.params.contains(&v)
        );
        on_parameter.then_some((StmtId(i as u32), call))
    })
}
