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
        let var = match lock {
            LocalLock::Monitor { var, .. } => (*var)?,
            LocalLock::Juc { var, .. } => *var,
            LocalLock::SyncMethod => return None,
        };
        let (base, field) = field_read(body, var, MAX_VIEW_DEPTH)?;
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
    let mut seen = false;
    for c in pt.contexts_of(m) {
        let x = pt.path(program, m, Some(c), a);
        let y = pt.path(program, m, Some(c), b);
        let (Some(x), Some(y)) = (x, y) else {
            return false;
        };
        if x.is_empty() && y.is_empty() {
            continue;
        }
        match (
            crate::util::single_object(&x),
            crate::util::single_object(&y),
        ) {
            (Some(p), Some(q)) if p == q => seen = true,
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
