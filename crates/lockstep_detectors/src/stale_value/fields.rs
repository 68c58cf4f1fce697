//! Fields whose value cannot go stale: `final` fields, and fields
//! initialised lazily once (the synchronized singleton getter). Also, for
//! `private` and `final` fields, the classes of the objects they can hold
//! when every store is an allocation (`new LinkedList()`), so that a call
//! on a value read from one dispatches to those classes' methods only.
//!
//! A value read from such a field under a lock is still the field's value
//! after the lock is released, so using it is no stale use (paper 001 §5.1:
//! false positives come from assuming more sharing than there is). What a
//! call reads *through* such a value is another matter; the flow analysis
//! handles that.
//!
//! Write-once lazy fields are recognised syntactically, over the
//! application: every store to the field is in one method, stores a fresh
//! object (`new`), and that method compares the field with `null`
//! (`if (instance == null) instance = new Foo(); return instance;`). Stores
//! of `null` in constructors and static initialisers (`= null`
//! initialisers) do not count. Once such a field is non-null it never
//! changes again, so the reference returned is the one every thread sees.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use rayon::prelude::*;

use lockstep_classfile::access;
use lockstep_ir::{Body, ConstValue, MemberRef, Operand, Rvalue, StmtKind, VarId};
use lockstep_program::{MethodId, Program};

use super::locks::is_fresh;

/// A field by declaring class (internal name) and name.
type FieldKey = (Arc<str>, Arc<str>);

/// What one method does to fields, for the write-once test.
#[derive(Default)]
struct MethodStores {
    /// Fields stored here, and whether every store was of a fresh object.
    stores: BTreeMap<FieldKey, bool>,
    /// Fields compared with `null` here.
    null_checked: BTreeSet<FieldKey>,
    /// Fields stored here, and the classes allocated into them (`None`
    /// once a store is not of an object allocated here).
    allocated: BTreeMap<FieldKey, Option<BTreeSet<Arc<str>>>>,
}

/// The fields whose values cannot go stale.
#[derive(Debug, Default)]
pub struct StableFields {
    write_once: BTreeSet<FieldKey>,
    /// `private` or `final` fields whose every store (`null` aside) is of
    /// an object allocated by the storing method: the classes allocated.
    allocated: BTreeMap<FieldKey, BTreeSet<Arc<str>>>,
}

/// The class declaring a referenced field (the referenced class when it
/// cannot be resolved).
fn declaring(program: &Program, field: &MemberRef) -> Arc<str> {
    program
        .class_by_name(&field.class)
        .and_then(|c| program.resolve_field(c, &field.name, &field.descriptor))
        .map(|c| program.class(c).name.clone())
        .unwrap_or_else(|| field.class.clone())
}

fn key(program: &Program, field: &MemberRef) -> FieldKey {
    (declaring(program, field), field.name.clone())
}

/// Is the field `final`? Unknown fields are not.
pub fn is_final(program: &Program, field: &MemberRef) -> bool {
    let Some(class) = program.class_by_name(&field.class) else {
        return false;
    };
    let Some(decl) = program.resolve_field(class, &field.name, &field.descriptor) else {
        return false;
    };
    program
        .class(decl)
        .file
        .fields
        .iter()
        .find(|f| f.name == field.name && f.descriptor == field.descriptor)
        .is_some_and(|f| f.access_flags & access::FINAL != 0)
}

/// The field a variable was read from, if it is (a copy of) a field read.
pub fn read_field(body: &Body, mut v: VarId) -> Option<&MemberRef> {
    // Copy chains are acyclic; the bound guards against malformed input.
    for _ in 0..16 {
        let s = body.unique_def.get(v.index()).copied().flatten()?;
        match &body.stmts.get(s.index())?.kind {
            StmtKind::Assign {
                value: Rvalue::FieldLoad { field, .. } | Rvalue::StaticLoad(field),
                ..
            } => return Some(field),
            StmtKind::Assign {
                value: Rvalue::Use(Operand::Var(w)) | Rvalue::Cast(Operand::Var(w), _),
                ..
            } => v = *w,
            _ => return None,
        }
    }
    None
}

fn scan(program: &Program, m: MethodId) -> MethodStores {
    let mut out = MethodStores::default();
    let Some(body) = program.body(m) else {
        return out;
    };
    let data = program.method(m);
    let initialiser = data.is_constructor() || data.is_class_initializer();
    for stmt in &body.stmts {
        match &stmt.kind {
            StmtKind::FieldStore { field, value, .. } | StmtKind::StaticStore { field, value } => {
                if initialiser && matches!(value, Operand::Const(ConstValue::Null)) {
                    continue;
                }
                let fresh = value.var().is_some_and(|v| is_fresh(&body, v));
                let k = key(program, field);
                if !matches!(value, Operand::Const(ConstValue::Null)) {
                    let class = value.var().and_then(|v| allocated_class(&body, v));
                    let slot = out
                        .allocated
                        .entry(k.clone())
                        .or_insert_with(|| Some(BTreeSet::new()));
                    match (slot.as_mut(), class) {
                        (Some(set), Some(c)) => {
                            set.insert(c);
                        }
                        _ => *slot = None,
                    }
                }
                let slot = out.stores.entry(k).or_insert(true);
                *slot &= fresh;
            }
            StmtKind::If { lhs, rhs, .. } => {
                let other = match (lhs, rhs) {
                    (Operand::Const(ConstValue::Null), o)
                    | (o, Operand::Const(ConstValue::Null)) => o,
                    _ => continue,
                };
                if let Some(f) = other.var().and_then(|v| read_field(&body, v)) {
                    out.null_checked.insert(key(program, f));
                }
            }
            _ => {}
        }
    }
    out
}

impl StableFields {
    /// Scans every method of the application (in parallel, merged in
    /// method order).
    pub fn compute(program: &Program) -> StableFields {
        let methods: Vec<MethodId> = program
            .application_classes()
            .flat_map(|c| program.class(c).methods.iter().copied())
            .collect();
        let scans: Vec<MethodStores> = methods.par_iter().map(|&m| scan(program, m)).collect();
        // For each stored field: its only writer, or `None` once a second
        // method (or a non-fresh store) disqualifies it.
        let mut writer: BTreeMap<FieldKey, Option<usize>> = BTreeMap::new();
        for (i, s) in scans.iter().enumerate() {
            for (k, &fresh) in &s.stores {
                let w = writer.entry(k.clone()).or_insert(Some(i));
                if !fresh || *w != Some(i) {
                    *w = None;
                }
            }
        }
        let write_once = writer
            .into_iter()
            .filter_map(|(k, w)| {
                let i = w?;
                scans
                    .get(i)
                    .is_some_and(|s| s.null_checked.contains(&k))
                    .then_some(k)
            })
            .collect();
        let allocated = merge_allocations(program, &scans);
        StableFields {
            write_once,
            allocated,
        }
    }

    /// The classes of the objects a read of `field` can give, when known
    /// (every store allocates: see [`StableFields::allocated`]).
    pub fn allocated_classes(
        &self,
        program: &Program,
        field: &MemberRef,
    ) -> Option<&BTreeSet<Arc<str>>> {
        if self.allocated.is_empty() {
            return None;
        }
        self.allocated.get(&key(program, field))
    }

    /// Can a read of this field not give a stale value?
    pub fn is_stable(&self, program: &Program, field: &MemberRef) -> bool {
        is_final(program, field)
            || (!self.write_once.is_empty() && self.write_once.contains(&key(program, field)))
    }
}

/// The class `v` was allocated with, through copies and casts.
fn allocated_class(body: &Body, mut v: VarId) -> Option<Arc<str>> {
    for _ in 0..16 {
        let s = body.unique_def.get(v.index()).copied().flatten()?;
        match &body.stmts.get(s.index())?.kind {
            StmtKind::Assign {
                value: Rvalue::New(class),
                ..
            } => return Some(class.clone()),
            StmtKind::Assign {
                value: Rvalue::Use(Operand::Var(w)) | Rvalue::Cast(Operand::Var(w), _),
                ..
            } => v = *w,
            _ => return None,
        }
    }
    None
}

/// Is the field `private` or `final`: written only by its class (or its
/// constructors), never by a client of an open program?
fn is_private_or_final(program: &Program, (class, name): &FieldKey) -> bool {
    program
        .class_by_name(class)
        .and_then(|c| {
            program
                .class(c)
                .file
                .fields
                .iter()
                .find(|f| f.name == *name)
                .map(|f| f.access_flags & (access::FINAL | access::PRIVATE) != 0)
        })
        .unwrap_or(false)
}

/// The allocated classes of every `private` or `final` field of the
/// application whose every store, in any method, allocates.
fn merge_allocations(
    program: &Program,
    scans: &[MethodStores],
) -> BTreeMap<FieldKey, BTreeSet<Arc<str>>> {
    let mut merged: BTreeMap<FieldKey, Option<BTreeSet<Arc<str>>>> = BTreeMap::new();
    for s in scans {
        for (k, classes) in &s.allocated {
            let slot = merged
                .entry(k.clone())
                .or_insert_with(|| Some(BTreeSet::new()));
            match (slot.as_mut(), classes) {
                (Some(set), Some(cs)) => set.extend(cs.iter().cloned()),
                _ => *slot = None,
            }
        }
    }
    merged
        .into_iter()
        .filter_map(|(k, v)| Some((k, v?)))
        .filter(|(k, v)| !v.is_empty() && is_private_or_final(program, k))
        .collect()
}
