//! The methods of application containers that keep their receiver's
//! context over the bounds on contexts (`Config::containers_per_object`).
//!
//! A program's own list or map (hsqldb's `HsqlArrayList`, `BaseHashMap`
//! and its maps and sets) keeps its elements in an array held by a field.
//! Past the per-method bound, all receivers routed to the over-budget copy
//! of `add` share it: `this` is every such list, so each element is stored
//! into every such list's array, and escape spreads through them. The
//! methods that move elements in or out of the array, or replace the array,
//! are recognised by their bodies and run in their receiver's context
//! instead, as constructors do; the copies are bounded by the abstract
//! objects of the class (the heap context bounds those).
//!
//! The test is per method, not per class: a class of the program with an
//! array of references (an expression tree's `nodes`) would otherwise get
//! per-object copies of all its methods, which on hsqldb exhausted memory.
//! Recognised, in an instance method of an application class (not a
//! constructor, exempt already):
//! - it stores one of its parameters into an element, at an index that is
//!   not a constant, of an array read from a field of `this` (`add`,
//!   `set`, `put`: `elementData[elementCount] = element`);
//! - it stores a new array (allocated here, or returned by a call such as
//!   `ArrayUtil.resizeArray`) into a reference-array field of `this`
//!   (growing: `resize`, `elementData = newArray`, whose copy of the
//!   elements must be the list's own; not `nodes = emptyArray`, which every
//!   expression node's `setAsConstantValue` does);
//! - it returns an element, at an index that is not a constant, of an
//!   array read from a field (`get`, an iterator's `next` reading its
//!   list's array);
//! - it passes one of its parameters to a recognised method on `this`
//!   (`HashMap.put` calling `BaseHashMap.addOrRemove`), up to
//!   [`FORWARD_DEPTH`] such calls deep: a merged wrapper would hand every
//!   caller's argument to every receiver's copy.
//!
//! Fixed slots (`nodes[LEFT] = e`, `return nodes[LEFT]`) are not a
//! container's and are left bounded, and so is a method making more than
//! [`MAX_FOREIGN_CALLS`] calls on objects other than `this`: a container's
//! methods call little but their own helpers and the elements' `hashCode`
//! and `equals`, while an expression node's `resolveTypes`, which also
//! stores into its `nodes`, calls across the whole program, and per-object
//! copies of such methods exhausted memory on hsqldb.

use lockstep_ir::{Body, Call, Operand, Rvalue, StmtKind, VarId};
use lockstep_program::{MethodId, Program};

/// How many calls on `this` a parameter may be forwarded through to a
/// recognised method (`put` → `addOrRemove` is one).
const FORWARD_DEPTH: u32 = 2;

/// At most this many calls on objects other than `this` (static calls not
/// counted) in a recognised method (hsqldb's `BaseHashMap.addOrUpdate`
/// makes four, `ExpressionOp.resolveTypes` dozens).
const MAX_FOREIGN_CALLS: usize = 6;

/// Does `m` keep its receiver's context over the bounds?
pub(crate) fn keeps_receiver_context(p: &Program, m: MethodId) -> bool {
    recognised(p, m, FORWARD_DEPTH)
}

fn recognised(p: &Program, m: MethodId, depth: u32) -> bool {
    let md = p.method(m);
    if md.is_static() || md.is_constructor() || !p.class(md.class).is_application {
        return false;
    }
    let Some(body) = p.body(m) else {
        return false;
    };
    let Some(&this) = body.params.first() else {
        return false;
    };
    if foreign_calls(&body, this) > MAX_FOREIGN_CALLS {
        return false;
    }
    let params = &body.params[1..];
    body.stmts.iter().any(|st| match &st.kind {
        StmtKind::ArrayStore {
            array: Operand::Var(a),
            index: Operand::Var(_),
            value: Operand::Var(v),
            ..
        } => params.contains(v) && array_field_of(&body, *a, Some(this)),
        StmtKind::FieldStore {
            object: Operand::Var(o),
            field,
            value: Operand::Var(v),
        } => *o == this && is_reference_array(&field.descriptor) && is_new_array(&body, *v),
        StmtKind::Return(Some(Operand::Var(r))) => returns_element(&body, *r),
        StmtKind::Invoke { call, .. } => {
            depth > 0 && forwards_parameter(p, m, call, this, params, depth - 1)
        }
        _ => false,
    })
}

/// How many calls of `body` have a receiver other than `this`?
fn foreign_calls(body: &Body, this: VarId) -> usize {
    body.stmts
        .iter()
        .filter(|st| match &st.kind {
            StmtKind::Invoke { call, .. } => call
                .receiver
                .as_ref()
                .is_some_and(|r| *r != Operand::Var(this)),
            _ => false,
        })
        .count()
}

/// Is the descriptor an array of references (`[Ljava/lang/Object;`, `[[I`)?
fn is_reference_array(descriptor: &str) -> bool {
    descriptor.starts_with("[L") || descriptor.starts_with("[[")
}

/// The statement kind that defines `v`, when it is defined once.
fn unique_def(body: &Body, v: VarId) -> Option<&StmtKind> {
    let def = body.unique_def.get(v.index()).copied().flatten()?;
    body.stmts.get(def.index()).map(|st| &st.kind)
}

/// Is `a` defined once, by a read of a reference-array field (of `owner`
/// when given, else of any object)?
fn array_field_of(body: &Body, a: VarId, owner: Option<VarId>) -> bool {
    matches!(
        unique_def(body, a),
        Some(StmtKind::Assign {
            value: Rvalue::FieldLoad { object: Operand::Var(o), field },
            ..
        }) if owner.is_none_or(|w| w == *o) && is_reference_array(&field.descriptor)
    )
}

/// Is `v` (through at most one cast or copy) an array allocated here or
/// the result of a call?
fn is_new_array(body: &Body, v: VarId) -> bool {
    let mut v = v;
    for _ in 0..2 {
        match unique_def(body, v) {
            Some(StmtKind::Assign {
                value: Rvalue::NewArray(..),
                ..
            })
            | Some(StmtKind::Invoke { .. }) => return true,
            Some(StmtKind::Assign {
                value: Rvalue::Cast(Operand::Var(w), _) | Rvalue::Use(Operand::Var(w)),
                ..
            }) => v = *w,
            _ => return false,
        }
    }
    false
}

/// Is `r` (through at most one cast or copy) an element, at an index that
/// is not a constant, of an array read from a field?
fn returns_element(body: &Body, r: VarId) -> bool {
    let mut v = r;
    for _ in 0..2 {
        match unique_def(body, v) {
            Some(StmtKind::Assign {
                value:
                    Rvalue::ArrayLoad {
                        array: Operand::Var(a),
                        index: Operand::Var(_),
                        ..
                    },
                ..
            }) => return array_field_of(body, *a, None),
            Some(StmtKind::Assign {
                value: Rvalue::Cast(Operand::Var(w), _) | Rvalue::Use(Operand::Var(w)),
                ..
            }) => v = *w,
            _ => return false,
        }
    }
    false
}

/// Does `call` pass one of `params` to a recognised method on `this`? The
/// callee is resolved in the caller's class or a superclass (never loading
/// a class).
fn forwards_parameter(
    p: &Program,
    caller: MethodId,
    call: &Call,
    this: VarId,
    params: &[VarId],
    depth: u32,
) -> bool {
    if call.receiver != Some(Operand::Var(this))
        || !call
            .args
            .iter()
            .any(|a| matches!(a, Operand::Var(v) if params.contains(v)))
    {
        return false;
    }
    let class = p.method(caller).class;
    let Some(&owner) = p
        .superclasses(class)
        .iter()
        .find(|&&c| *p.class(c).name == *call.method.class)
    else {
        return false;
    };
    p.resolve_method(owner, &call.method.name, &call.method.descriptor)
        .is_some_and(|callee| callee != caller && recognised(p, callee, depth))
}
