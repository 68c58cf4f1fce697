//! Fields that hold the read or the write side of one read-write lock
//! (`Lock readLock = lock.readLock(); Lock writeLock = lock.writeLock();`,
//! hsqldb's `SchemaManager`, `DataSpaceManagerBlocks`, `LongKeyHashMap`).
//!
//! A method holding the write side excludes every other reader and writer
//! of the lock until it releases it. A callee that takes the read side of
//! the same lock inside that hold therefore protects nothing more: the
//! value it returns cannot change before the write side is released, and
//! a use after the callee returns is no stale use. Paths name locks by
//! field (`this.readLock`, `this.writeLock`), so the analysis must know
//! that the two fields are views of one lock; this module finds them.
//!
//! A field is a view when every store of a field of that name in the
//! application is, in a constructor, `this.f = this.g.readLock()` (or
//! `writeLock()`, the side then given by the models layer), always of the
//! same side of the same field name `g`, and every store of a field named
//! `g` is in a constructor: each object's views are then made once, from
//! the lock its constructor stored. Fields are matched by name because
//! lock paths carry names only; a name stored any other way anywhere in
//! the application is not a view (fewer covered locks, never more).

use std::collections::BTreeMap;
use std::sync::Arc;

use lockstep_ir::{AccessPath, Body, Rvalue, StmtKind, VarId};
use lockstep_program::Program;

use super::locks::{LockKey, LockKind};
use super::summary::view_call;

/// How a store of a field name was seen.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Store {
    /// `this.f = this.g.<side>Lock()` in a constructor.
    View(LockKind, Arc<str>),
    /// Any other store.
    Other,
}

/// Field names that hold one side of a read-write lock held in another
/// field: `readLock` → (read, `lock`).
#[derive(Debug, Default)]
pub struct LockViews {
    views: BTreeMap<Arc<str>, (LockKind, Arc<str>)>,
}

impl LockViews {
    pub fn compute(program: &Program) -> LockViews {
        let mut stores: BTreeMap<Arc<str>, Store> = BTreeMap::new();
        // Field names stored outside constructors.
        let mut reassigned: BTreeMap<Arc<str>, ()> = BTreeMap::new();
        for class in program.application_classes() {
            for &m in &program.class(class).methods {
                let Some(body) = program.body(m) else {
                    continue;
                };
                let constructor = program.method(m).is_constructor();
                for stmt in &body.stmts {
                    let (field, store) = match &stmt.kind {
                        StmtKind::FieldStore {
                            object,
                            field,
                            value,
                        } => {
                            let on_this =
                                !body.is_static && object.var() == body.params.first().copied();
                            let view = match (constructor && on_this, value.var()) {
                                (true, Some(v)) => view_made(program, &body, v),
                                _ => None,
                            };
                            if !constructor {
                                reassigned.insert(field.name.clone(), ());
                            }
                            let store = match view {
                                Some((kind, g)) => Store::View(kind, g),
                                None => Store::Other,
                            };
                            (field.name.clone(), store)
                        }
                        StmtKind::StaticStore { field, .. } => {
                            reassigned.insert(field.name.clone(), ());
                            (field.name.clone(), Store::Other)
                        }
                        _ => continue,
                    };
                    let merged = match stores.get(&field) {
                        None => store,
                        Some(seen) if *seen == store => store,
                        Some(_) => Store::Other,
                    };
                    stores.insert(field, merged);
                }
            }
        }
        let views = stores
            .into_iter()
            .filter_map(|(f, s)| match s {
                Store::View(kind, g) if !reassigned.contains_key(&g) => Some((f, (kind, g))),
                _ => None,
            })
            .collect();
        LockViews { views }
    }

    /// Does holding `held` exclude every other thread from the data that
    /// `wanted` protects? The same lock does (re-entry); so does the write
    /// side of a read-write lock for its read side, whether named through
    /// the lock (`rwl.writeLock().lock()` makes a write key on `rwl`) or
    /// through view fields of one object (`this.writeLock`, `this.readLock`).
    pub fn covers(&self, held: &LockKey, wanted: &LockKey) -> bool {
        if !held.comparable() || !wanted.comparable() {
            return false;
        }
        if held == wanted {
            return true;
        }
        if held.kind == LockKind::Write && wanted.kind == LockKind::Read && held.path == wanted.path
        {
            return true;
        }
        let (AccessPath::Field(hb, hf), AccessPath::Field(wb, wf)) = (&held.path, &wanted.path)
        else {
            return false;
        };
        match (self.views.get(hf), self.views.get(wf)) {
            (Some((LockKind::Write, hg)), Some((LockKind::Read, wg))) => hg == wg && hb == wb,
            _ => false,
        }
    }

    pub fn len(&self) -> usize {
        self.views.len()
    }

    pub fn is_empty(&self) -> bool {
        self.views.is_empty()
    }
}

/// If `v` is (a copy of) `this.g.readLock()` or `this.g.writeLock()`: the
/// side and `g`.
fn view_made(program: &Program, body: &Body, v: VarId) -> Option<(LockKind, Arc<str>)> {
    let def = |v: VarId| {
        body.unique_def
            .get(v.index())
            .copied()
            .flatten()
            .and_then(|s| body.stmts.get(s.index()))
            .map(|s| &s.kind)
    };
    let (kind, call) = view_call(program, body, v, 8)?;
    let r = call.receiver.as_ref()?.var()?;
    let Some(StmtKind::Assign {
        value: Rvalue::FieldLoad { object, field },
        ..
    }) = def(r)
    else {
        return None;
    };
    let this = body.params.first().copied();
    (object.var() == this).then(|| (kind, field.name.clone()))
}
