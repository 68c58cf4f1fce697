//! Fields whose value cannot go stale: `final` fields, and fields
//! initialised lazily once (the synchronized singleton getter).
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
}

/// The fields whose values cannot go stale.
#[derive(Debug, Default)]
pub struct StableFields {
    write_once: BTreeSet<FieldKey>,
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
fn read_field(body: &Body, mut v: VarId) -> Option<&MemberRef> {
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
                let slot = out.stores.entry(key(program, field)).or_insert(true);
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
        StableFields { write_once }
    }

    /// Can a read of this field not give a stale value?
    pub fn is_stable(&self, program: &Program, field: &MemberRef) -> bool {
        is_final(program, field)
            || (!self.write_once.is_empty() && self.write_once.contains(&key(program, field)))
    }
}
