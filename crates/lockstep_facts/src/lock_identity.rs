//! Lock identity finer and coarser than the abstract object.
//!
//! An abstract lock object stands for every run-time object of its
//! allocation site (in one heap context). Two facts refine that:
//!
//! - **Owned locks (must-not-alias).** A lock allocated in a constructor
//!   and stored only into a field of the object under construction
//!   belongs to that object: one lock per owner. When every store of the
//!   field is such a store (in a constructor, on `this`, of an object
//!   the constructor allocated or a view a `java.util.concurrent` lock
//!   made of one: `lock.readLock()`), the locks `x.f` and `y.f` are one
//!   run-time object only if `x` and `y` are. An acquisition of `x.f`
//!   therefore carries the points-to set of `x` as its *owners*, and two
//!   acquisitions of one abstract lock whose owners are disjoint take two
//!   different locks (hsqldb's `DataFileCache` lock: the session's result
//!   cache and the database's data file allocate it at one site).
//! - **Re-entered locks (must-alias).** Two lock expressions of one
//!   method whose points-to sets are, in every context of the method, the
//!   same single object denote one lock (paper 002's must-alias): taking
//!   the second while holding the first is a re-entry (h2's
//!   `SessionRemote.setCurrentSchemaName` holds `this` and locks its
//!   command's `session`, which is `this`).
//!
//! Not modelled: reflection, deserialization and `Unsafe` writing a field
//! (the analysis does not see those stores).

use std::sync::Arc;

use lockstep_ir::{AccessPath, Body, Operand, Rvalue, StmtKind, VarId};
use lockstep_pointsto::{ContextId, ObjectId, PointsToResult};
use lockstep_program::{MethodId, Program};
use rustc_hash::FxHashMap;

use crate::local_locks::LocalLock;

/// The objects that may own a lock (sorted): the points-to set of the
/// object whose owned field the lock was read from.
pub type Owners = Arc<[ObjectId]>;

/// How many views deep a value may be derived from a fresh allocation
/// (`new ReentrantReadWriteLock()` → `readLock()`).
const MAX_VIEW_DEPTH: u8 = 2;

/// Per field name: every store of an instance field of that name in
/// application code (method, statement index).
type FieldStores = FxHashMap<Arc<str>, Vec<(MethodId, usize)>>;

/// Decides which fields hold owned locks (cached per field name) and the
/// owners of lock acquisitions.
#[derive(Default)]
pub struct LockOwners {
    /// Built on first use.
    stores: Option<FieldStores>,
    owned: FxHashMap<Arc<str>, bool>,
    fixed: FxHashMap<Arc<str>, bool>,
}

impl LockOwners {
    /// The owners of `lock` as method `m` names it in context `c`: the
    /// points-to set of `x` when the lock is read from an owned field
    /// `x.f` (directly, or as a view of it: `x.f.readLock()`); `None` when
    /// the lock is not an owned field or the owner set is empty.
    pub fn owners(
        &mut self,
        program: &Program,
        pt: &PointsToResult,
        (m, c): (MethodId, ContextId),
        body: &Body,
        lock: &LocalLock,
    ) -> Option<Owners> {
        let (base, field) = match lock {
            LocalLock::Monitor { var, .. } => field_read(body, (*var)?, MAX_VIEW_DEPTH)?,
            LocalLock::Juc {
                var, field: None, ..
            } => field_read(body, *var, MAX_VIEW_DEPTH)?,
            // A wrapper's lock: the field of the object `var` holds.
            LocalLock::Juc {
                var,
                field: Some(f),
                ..
            } => (*var, f.1.clone()),
            LocalLock::SyncMethod => return None,
        };
        if !self.is_owned(program, &field) {
            return None;
        }
        let set: Vec<ObjectId> = pt.var_in(m, c, base).iter().collect();
        (!set.is_empty()).then(|| Arc::from(set))
    }

    /// Is every store of an instance field named `name`, in any
    /// application class, a store of a value the storing constructor made
    /// into its own `this`? (By name: a field of the same name in another
    /// class only makes the answer more often "no".)
    fn is_owned(&mut self, program: &Program, name: &Arc<str>) -> bool {
        if let Some(&v) = self.owned.get(name) {
            return v;
        }
        let stores = self.stores.get_or_insert_with(|| field_stores(program));
        let v = match stores.get(name) {
            None => false,
            Some(list) => list.iter().all(|&(m, s)| {
                program.method(m).is_constructor()
                    && program
                        .body(m)
                        .is_some_and(|b| fresh_store_on_this(&b, s, MAX_VIEW_DEPTH))
            }),
        };
        self.owned.insert(name.clone(), v);
        v
    }

    /// Does an instance field named `name` keep its value once its object
    /// is built: is every store of a field of that name, in any
    /// application class, made by a constructor into its own `this`?
    /// (By name, as [`Self::is_owned`]; a field no application code
    /// stores — a JDK field — is not known to be fixed.) Two reads of
    /// `x.f` then give one object whenever `x` is one object.
    /// Every store of an instance field named `name` in application code
    /// (method, statement index).
    pub(crate) fn stores_of(&mut self, program: &Program, name: &str) -> Vec<(MethodId, usize)> {
        let stores = self.stores.get_or_insert_with(|| field_stores(program));
        stores.get(name).cloned().unwrap_or_default()
    }

    pub fn is_fixed(&mut self, program: &Program, name: &Arc<str>) -> bool {
        if let Some(&v) = self.fixed.get(name) {
            return v;
        }
        let stores = self.stores.get_or_insert_with(|| field_stores(program));
        let v = stores.get(name).is_some_and(|list| {
            list.iter().all(|&(m, s)| {
                program.method(m).is_constructor()
                    && program.body(m).is_some_and(|b| store_on_this(&b, s))
            })
        });
        self.fixed.insert(name.clone(), v);
        v
    }
}

/// Is statement `s` of an instance body a store into a field of `this`?
fn store_on_this(body: &Body, s: usize) -> bool {
    let Some(StmtKind::FieldStore { object, .. }) = body.stmts.get(s).map(|s| &s.kind) else {
        return false;
    };
    !body.is_static && object.var() == body.params.first().copied()
}

/// May two acquisitions with these owners take one run-time lock? Only
/// known, disjoint owners tell the locks apart.
pub fn may_be_same(a: Option<&Owners>, b: Option<&Owners>) -> bool {
    match (a, b) {
        (Some(x), Some(y)) => x.iter().any(|o| y.binary_search(o).is_ok()),
        _ => true,
    }
}

/// Do the owners all have one class, outside the JDK? (Locks owned by two
/// objects of one application class are told apart by their owners the
/// way two objects of that class are.)
pub fn owner_class(pt: &PointsToResult, owners: &Owners) -> Option<Arc<str>> {
    let mut classes = owners
        .iter()
        .map(|&o| pt.object(o).map(|i| i.type_name.clone()));
    let first = classes.next()??;
    let one = classes.all(|c| c.as_ref() == Some(&first));
    (one && !lockstep_models::is_jdk_class(&first)).then_some(first)
}

/// Do the lock expressions `a` and `b` of method `m` denote one object:
/// in every context of `m` where either points anywhere, both point to the
/// same single abstract object (and in at least one context)?
pub fn must_alias(
    program: &Program,
    pt: &PointsToResult,
    m: MethodId,
    a: &AccessPath,
    b: &AccessPath,
) -> bool {
    same_object_everywhere(
        &context_objects(program, pt, m, a),
        &context_objects(program, pt, m, b),
    )
}

/// What a lock expression of a method points to in one of the method's
/// contexts, as far as [`must_alias`] tells objects apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContextObject {
    /// The expression cannot be resolved (a path points-to cannot follow).
    Unresolved,
    /// It points nowhere in this context.
    Nothing,
    /// It points to exactly this object.
    One(ObjectId),
    /// It may be one of several objects.
    Many,
}

/// What `path` points to in each context of `m`, in the order of
/// [`PointsToResult::contexts_of`]. Two expressions of one method are
/// compared with [`same_object_everywhere`]; keeping this per expression
/// lets a caller compare one expression with many without resolving it
/// again for each.
pub fn context_objects(
    program: &Program,
    pt: &PointsToResult,
    m: MethodId,
    path: &AccessPath,
) -> Vec<ContextObject> {
    pt.contexts_of(m)
        .into_iter()
        .map(|c| context_object(program, pt, m, c, path))
        .collect()
}

/// What `path` points to in context `c` of `m`.
pub fn context_object(
    program: &Program,
    pt: &PointsToResult,
    m: MethodId,
    c: ContextId,
    path: &AccessPath,
) -> ContextObject {
    match pt.path(program, m, Some(c), path) {
        None => ContextObject::Unresolved,
        Some(set) if set.is_empty() => ContextObject::Nothing,
        Some(set) => match crate::util::single_object(&set) {
            Some(o) => ContextObject::One(o),
            None => ContextObject::Many,
        },
    }
}

/// [`same_object_everywhere`] with the second expression resolved only
/// as far as needed, context by context (`b(i)`: what it points to in the
/// `i`-th context): nothing when `a` already rules must-alias out (a
/// context where it is unresolved or may be several objects, or no
/// context with one object), and no context after the first mismatch.
pub fn same_object_everywhere_lazy(
    a: &[ContextObject],
    mut b: impl FnMut(usize) -> ContextObject,
) -> bool {
    let possible = a
        .iter()
        .all(|x| matches!(x, ContextObject::Nothing | ContextObject::One(_)))
        && a.iter().any(|x| matches!(x, ContextObject::One(_)));
    if !possible {
        return false;
    }
    a.iter().enumerate().all(|(i, x)| b(i) == *x)
}

/// Must-alias over two expressions' [`context_objects`] (of one method):
/// no context where either cannot be resolved, and in every context where
/// either points anywhere, both point to the same single object (in at
/// least one context).
pub fn same_object_everywhere(a: &[ContextObject], b: &[ContextObject]) -> bool {
    let mut seen = false;
    for (x, y) in a.iter().zip(b) {
        match (x, y) {
            (ContextObject::Nothing, ContextObject::Nothing) => {}
            (ContextObject::One(p), ContextObject::One(q)) if p == q => seen = true,
            _ => return false,
        }
    }
    seen
}

/// `v` read from a field: the base variable and the field's name; a view
/// a `java.util.concurrent` lock makes (`x.f.readLock()`) counts as the
/// field it views.
fn field_read(body: &Body, v: VarId, depth: u8) -> Option<(VarId, Arc<str>)> {
    match crate::util::unique_def_of(body, v)? {
        StmtKind::Assign {
            value: Rvalue::FieldLoad { object, field },
            ..
        } => Some((object.var()?, field.name.clone())),
        StmtKind::Assign {
            value: Rvalue::Use(Operand::Var(w)) | Rvalue::Cast(Operand::Var(w), _),
            ..
        } if depth > 0 => field_read(body, *w, depth - 1),
        StmtKind::Invoke { call, .. }
            if depth > 0
                && lockstep_models::builds_lock_parts(&call.method.class, &call.method.name) =>
        {
            field_read(body, call.receiver.as_ref()?.var()?, depth - 1)
        }
        _ => None,
    }
}

/// Every store of an instance field in application code, by field name.
fn field_stores(program: &Program) -> FieldStores {
    let mut out = FieldStores::default();
    for class in program.application_classes() {
        for &m in &program.class(class).methods {
            let Some(body) = program.body(m) else {
                continue;
            };
            for (i, s) in body.stmts.iter().enumerate() {
                if let StmtKind::FieldStore { field, .. } = &s.kind {
                    out.entry(field.name.clone()).or_default().push((m, i));
                }
            }
        }
    }
    out
}

/// Is statement `s` of a constructor body `this.f = v` with `v` made by
/// this constructor (see [`fresh`])?
fn fresh_store_on_this(body: &Body, s: usize, depth: u8) -> bool {
    let Some(StmtKind::FieldStore { value, .. }) = body.stmts.get(s).map(|s| &s.kind) else {
        return false;
    };
    store_on_this(body, s) && value.var().is_some_and(|v| fresh(body, v, depth))
}

/// Is `v` an object this invocation allocated (`new C`), or a view a
/// `java.util.concurrent` lock made of one, or of an owned-looking field
/// of `this` the same constructor fills (`this.lock.readLock()` after
/// `this.lock = new ReentrantReadWriteLock()`)?
fn fresh(body: &Body, v: VarId, depth: u8) -> bool {
    match crate::util::unique_def_of(body, v) {
        Some(StmtKind::Assign {
            value: Rvalue::New(_),
            ..
        }) => true,
        Some(StmtKind::Assign {
            value: Rvalue::Use(Operand::Var(w)) | Rvalue::Cast(Operand::Var(w), _),
            ..
        }) if depth > 0 => fresh(body, *w, depth - 1),
        Some(StmtKind::Invoke { call, .. })
            if depth > 0
                && lockstep_models::builds_lock_parts(&call.method.class, &call.method.name) =>
        {
            let Some(r) = call.receiver.as_ref().and_then(Operand::var) else {
                return false;
            };
            fresh(body, r, depth - 1) || filled_here(body, r, depth - 1)
        }
        _ => false,
    }
}

/// Is `r` read from a field of `this` that this constructor stores a
/// fresh object into (`this.lock`, stored just before)?
fn filled_here(body: &Body, r: VarId, depth: u8) -> bool {
    let Some((base, name)) = field_read(body, r, 0) else {
        return false;
    };
    if body.is_static || Some(base) != body.params.first().copied() {
        return false;
    }
    body.stmts.iter().enumerate().any(|(i, s)| {
        matches!(&s.kind, StmtKind::FieldStore { field, .. } if field.name == name)
            && fresh_store_on_this(body, i, depth)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The must-alias test as it was written over the points-to sets of
    /// each context (`None`: unresolved), the reference for
    /// [`same_object_everywhere`].
    fn naive(a: &[Option<Vec<u32>>], b: &[Option<Vec<u32>>]) -> bool {
        let mut seen = false;
        for (x, y) in a.iter().zip(b) {
            let (Some(x), Some(y)) = (x, y) else {
                return false;
            };
            if x.is_empty() && y.is_empty() {
                continue;
            }
            match (x.as_slice(), y.as_slice()) {
                ([p], [q]) if p == q => seen = true,
                _ => return false,
            }
        }
        seen
    }

    /// A seeded xorshift generator: `next(n)` is a number below `n`.
    fn xorshift(mut state: u64) -> impl FnMut(u64) -> u64 {
        move |n| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        }
    }

    fn summarise(sets: &[Option<Vec<u32>>]) -> Vec<ContextObject> {
        sets.iter()
            .map(|s| match s.as_deref() {
                None => ContextObject::Unresolved,
                Some([]) => ContextObject::Nothing,
                Some([o]) => ContextObject::One(ObjectId(*o)),
                Some(_) => ContextObject::Many,
            })
            .collect()
    }

    #[test]
    fn context_objects_decide_like_the_sets() {
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        let mut agreed_true = 0;
        for _ in 0..20_000 {
            let contexts = next(4) as usize;
            let set = |next: &mut dyn FnMut(u64) -> u64| match next(6) {
                0 => None,
                1 | 2 => Some(Vec::new()),
                3 => Some(vec![0, 1]),
                _ => Some(vec![next(2) as u32]),
            };
            let a: Vec<Option<Vec<u32>>> = (0..contexts).map(|_| set(&mut next)).collect();
            let b: Vec<Option<Vec<u32>>> = (0..contexts).map(|_| set(&mut next)).collect();
            let expected = naive(&a, &b);
            agreed_true += usize::from(expected);
            assert_eq!(
                same_object_everywhere(&summarise(&a), &summarise(&b)),
                expected,
                "{a:?} {b:?}"
            );
        }
        assert!(agreed_true > 100, "the random cases include aliases");
    }

    #[test]
    fn lazy_resolution_decides_like_the_eager_one() {
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        let object = |next: &mut dyn FnMut(u64) -> u64| match next(5) {
            0 => ContextObject::Unresolved,
            1 => ContextObject::Nothing,
            2 => ContextObject::Many,
            _ => ContextObject::One(ObjectId(next(2) as u32)),
        };
        let mut agreed_true = 0;
        for _ in 0..20_000 {
            let contexts = next(4) as usize;
            let a: Vec<ContextObject> = (0..contexts).map(|_| object(&mut next)).collect();
            let b: Vec<ContextObject> = (0..contexts).map(|_| object(&mut next)).collect();
            let expected = same_object_everywhere(&a, &b);
            agreed_true += usize::from(expected);
            let lazy = same_object_everywhere_lazy(&a, |i| b[i]);
            assert_eq!(lazy, expected, "{a:?} {b:?}");
        }
        assert!(agreed_true > 100, "the random cases include aliases");
    }
}
