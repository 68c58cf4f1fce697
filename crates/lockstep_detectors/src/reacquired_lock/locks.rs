//! Locking expressions of paper 000 §4.1 (`v | this | LE.f | LE[c]`, plus
//! static fields and class literals) on top of the IR's access paths, with
//! the size bound, `DEPENDS` and `TRANSLATELOCK`.
//!
//! A lock is an [`AccessPath`]; [`AccessPath::Unknown`] plays the paper's
//! `*`: a lock distinct from every other lock, itself included, which may be
//! a context but never a witness.

use std::sync::Arc;

use lockstep_ir::{AccessPath, VarId};

/// Locking expressions longer than this many components become `*`.
pub const MAX_LOCK_SIZE: usize = 4;

/// The lock of `*`.
pub const STAR: AccessPath = AccessPath::Unknown;

/// Number of components of a locking expression (`this.a.b` has 3).
pub fn size(path: &AccessPath) -> usize {
    match path {
        AccessPath::Field(base, _) | AccessPath::OuterThis(base, _) => 1 + size(base),
        AccessPath::Element(base, index) => 1 + size(base) + size(index),
        _ => 1,
    }
}

/// Whether `path` may serve as a locking expression, and if so, `path`
/// itself; otherwise `*`. Constants are only allowed as array indices.
pub fn bounded(path: AccessPath) -> AccessPath {
    if !is_lock_expression(&path) || size(&path) > MAX_LOCK_SIZE {
        STAR
    } else {
        path
    }
}

fn is_lock_expression(path: &AccessPath) -> bool {
    match path {
        AccessPath::This
        | AccessPath::Param(..)
        | AccessPath::Local(..)
        | AccessPath::Static(..)
        | AccessPath::ClassLiteral(_) => true,
        AccessPath::Field(base, _) | AccessPath::OuterThis(base, _) => is_lock_expression(base),
        AccessPath::Element(base, index) => is_lock_expression(base) && is_index_expression(index),
        AccessPath::IntConst(_) | AccessPath::Unknown => false,
    }
}

fn is_index_expression(path: &AccessPath) -> bool {
    matches!(path, AccessPath::IntConst(_)) || is_lock_expression(path)
}

/// What an assignment changes, for `DEPENDS` (Fig. 7).
#[derive(Debug, Clone, Copy)]
pub enum Assigned<'a> {
    /// A local variable (a def-use web of the IR).
    Var(VarId),
    /// Parameter `n`, reassigned in the body.
    Param(u16),
    /// An instance field of any object (`o.f = …`; aliasing is unknown, so every `.f` depends on it).
    Field(&'a str),
    /// A static field.
    Static(&'a str, &'a str),
    /// An element of any array.
    ArrayElement,
}

/// `DEPENDS(e, x)`: is `path` built from what `assigned` changes?
pub fn depends(path: &AccessPath, assigned: Assigned<'_>) -> bool {
    match (path, assigned) {
        (AccessPath::Local(v, _), Assigned::Var(x)) => *v == x,
        (AccessPath::Param(p, _), Assigned::Param(x)) => *p == x,
        (AccessPath::Static(c, f), Assigned::Static(ac, af)) => &**c == ac && &**f == af,
        (AccessPath::Field(base, f), _) => {
            matches!(assigned, Assigned::Field(name) if &**f == name) || depends(base, assigned)
        }
        // `Outer.this` is the synthetic field `this$N`, assigned only in constructors.
        (AccessPath::OuterThis(base, _), _) => depends(base, assigned),
        (AccessPath::Element(base, index), _) => {
            matches!(assigned, Assigned::ArrayElement)
                || depends(base, assigned)
                || depends(index, assigned)
        }
        _ => false,
    }
}

/// `TRANSLATELOCK_st(x)` (Fig. 7): a lock of the callee, expressed in the
/// caller at a call site whose receiver is `receiver` and whose arguments are
/// `args` (both already as the caller's access paths). Anything that cannot
/// be expressed in the caller becomes `*`.
pub fn translate(
    lock: &AccessPath,
    receiver: Option<&AccessPath>,
    args: &[AccessPath],
) -> AccessPath {
    match translate_part(lock, receiver, args) {
        // An integer constant passed where the callee locks a parameter is
        // not a lock; as an array index (`a.slots[1]`) it is kept.
        AccessPath::IntConst(_) if !matches!(lock, AccessPath::IntConst(_)) => STAR,
        t => bounded_or_index(t),
    }
}

fn translate_part(
    lock: &AccessPath,
    receiver: Option<&AccessPath>,
    args: &[AccessPath],
) -> AccessPath {
    match lock {
        AccessPath::This => receiver.cloned().unwrap_or(STAR),
        AccessPath::Param(i, _) => args.get(*i as usize).cloned().unwrap_or(STAR),
        AccessPath::Field(base, f) => match translate_part(base, receiver, args) {
            AccessPath::Unknown | AccessPath::IntConst(_) => STAR,
            b => AccessPath::Field(Arc::new(b), f.clone()),
        },
        AccessPath::OuterThis(base, outer) => match translate_part(base, receiver, args) {
            AccessPath::Unknown | AccessPath::IntConst(_) => STAR,
            b => AccessPath::OuterThis(Arc::new(b), outer.clone()),
        },
        AccessPath::Element(base, index) => {
            match (
                translate_part(base, receiver, args),
                translate_part(index, receiver, args),
            ) {
                (AccessPath::Unknown | AccessPath::IntConst(_), _) | (_, AccessPath::Unknown) => {
                    STAR
                }
                (b, i) => AccessPath::Element(Arc::new(b), Arc::new(i)),
            }
        }
        AccessPath::IntConst(_) | AccessPath::Static(..) | AccessPath::ClassLiteral(_) => {
            lock.clone()
        }
        AccessPath::Local(..) | AccessPath::Unknown => STAR,
    }
}

fn bounded_or_index(path: AccessPath) -> AccessPath {
    if matches!(path, AccessPath::IntConst(_)) {
        path
    } else {
        bounded(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn field(base: AccessPath, f: &str) -> AccessPath {
        AccessPath::Field(Arc::new(base), Arc::from(f))
    }

    #[test]
    fn depends_follows_fields_and_indices() {
        let i = VarId(7);
        let pts_i = AccessPath::Element(
            Arc::new(field(AccessPath::This, "pts")),
            Arc::new(AccessPath::Local(i, None)),
        );
        assert!(depends(&pts_i, Assigned::Var(i)));
        assert!(!depends(&pts_i, Assigned::Var(VarId(8))));
        assert!(depends(&pts_i, Assigned::Field("pts")));
        assert!(depends(&pts_i, Assigned::ArrayElement));
        assert!(!depends(
            &field(AccessPath::This, "a"),
            Assigned::Field("b")
        ));
    }

    #[test]
    fn translate_maps_this_and_params() {
        let recv = field(AccessPath::This, "point");
        assert_eq!(translate(&AccessPath::This, Some(&recv), &[]), recv);
        let arg = AccessPath::Param(0, None);
        assert_eq!(
            translate(
                &AccessPath::Param(0, None),
                None,
                std::slice::from_ref(&arg)
            ),
            arg
        );
        assert_eq!(
            translate(&AccessPath::Local(VarId(1), None), Some(&recv), &[]),
            STAR
        );
        // this.a.b.c translated through this.point exceeds the bound.
        let deep = field(field(field(AccessPath::This, "a"), "b"), "c");
        assert_eq!(translate(&deep, Some(&recv), &[]), STAR);
    }

    #[test]
    fn constants_are_not_locks() {
        assert_eq!(bounded(AccessPath::IntConst(3)), STAR);
        let elem = AccessPath::Element(
            Arc::new(AccessPath::This),
            Arc::new(AccessPath::IntConst(0)),
        );
        assert_eq!(bounded(elem.clone()), elem);
    }
}
