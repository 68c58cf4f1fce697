//! Locks named relative to the accessed object, RacerD-style: an access
//! `x.f` made while holding the monitor (or a `java.util.concurrent`
//! lock) of `x` itself, or of `x.g.h` where `g` and `h` cannot change
//! after construction, holds *the lock of the object it accesses*. Two
//! accesses of one run-time object that both hold that lock exclude each
//! other, whatever the points-to sets of `x` are: this complements the
//! must-alias of [`super::locks`], which needs a singleton points-to set
//! and loses the lock when contexts merge several objects (a
//! `synchronized` method whose `this` is many objects in one context).
//!
//! A path is *stable* when each step reads a field that is `final` (this
//! includes javac's `this$0`), or private and written only by the
//! constructors of its class on `this` (effectively final), from a root
//! that names one value: `this` or a parameter the body never reassigns,
//! or a local with a single definition. A lock through a field that is
//! written after construction (`lock = new Object()` in a method) is not
//! stable: it may be another object at the access than at the acquisition.
//!
//! The other way round, an access of `x.q` (or deeper) holding the lock
//! of `x` (or of `x.lock`) holds *the lock of the accessed object's
//! owner* when each step down from `x` is an owned part: a field only its
//! class's constructors set, on `this`, to an object they allocate. Then
//! the accessed object has one owner, and two accesses of it that hold its
//! owner's lock hold one run-time lock.

use std::sync::Arc;

use lockstep_classfile::access;
use lockstep_ir::{Body, MonitorId, Operand, Rvalue, StmtId, StmtKind, VarId};
use lockstep_models::{LockEffect, LockMode};
use lockstep_program::{ClassId, Program};
use rustc_hash::FxHashMap;

use crate::accesses::FieldTable;
use crate::initialization::nest_of;
use crate::local_locks::{juc_effect, LocalLock};
use crate::locks::{HeldLock, LockObject};

/// A field by declaring class and name.
pub type FieldName = (Arc<str>, Arc<str>);

/// A value named by a root variable and a chain of stable fields.
#[derive(Debug, Clone, PartialEq, Eq)]
struct StablePath {
    root: VarId,
    fields: Vec<FieldName>,
}

/// How deep a path is followed (javac's chains are short).
const MAX_STEPS: usize = 8;

/// Decides which fields are stable (cached per field).
#[derive(Default)]
pub struct StableFields {
    cache: FxHashMap<FieldName, bool>,
    /// [`StableFields::is_owned_part`], per field.
    owned: FxHashMap<FieldName, bool>,
}

impl StableFields {
    /// Is the field `final`, or private and written only by constructors
    /// of its declaring class on `this`?
    pub fn is_stable(&mut self, program: &Program, declaring: &Arc<str>, name: &Arc<str>) -> bool {
        let key = (declaring.clone(), name.clone());
        if let Some(&v) = self.cache.get(&key) {
            return v;
        }
        let v = field_is_stable(program, declaring, name);
        self.cache.insert(key, v);
        v
    }

    /// Is the field an *owned part*: stable, and every store of it (all
    /// in constructors of its class, on `this`) of an object that
    /// constructor allocated? Then a run-time object is the part of at
    /// most one owner, so the owner is known from the part.
    pub fn is_owned_part(&mut self, program: &Program, field: &FieldName) -> bool {
        if let Some(&v) = self.owned.get(field) {
            return v;
        }
        let v = self.is_stable(program, &field.0, &field.1)
            && nest_of(program, &field.0)
                .into_iter()
                .all(|c| writes_only_in_constructors(program, c, &field.0, &field.1, true));
        self.owned.insert(field.clone(), v);
        v
    }
}

/// See [`StableFields::is_stable`].
fn field_is_stable(program: &Program, declaring: &str, name: &str) -> bool {
    let Some(class) = program.class_by_name(declaring) else {
        return false;
    };
    let Some(field) = program
        .class(class)
        .file
        .fields
        .iter()
        .find(|f| &*f.name == name && f.access_flags & access::STATIC == 0)
    else {
        return false;
    };
    if field.access_flags & access::FINAL != 0 {
        return true;
    }
    if field.access_flags & access::PRIVATE == 0 {
        return false;
    }
    nest_of(program, declaring)
        .into_iter()
        .all(|c| writes_only_in_constructors(program, c, declaring, name, false))
}

/// Does every store of `declaring.name` in `class` sit in a constructor
/// of `declaring` and store into `this` (with `fresh`: an object or array
/// that constructor allocated, through copies and casts)?
fn writes_only_in_constructors(
    program: &Program,
    class: ClassId,
    declaring: &str,
    name: &str,
    fresh: bool,
) -> bool {
    let info = program.class(class);
    for &m in &info.methods {
        let Some(body) = program.body(m) else {
            continue;
        };
        let in_own_constructor = program.method(m).is_constructor() && &*info.name == declaring;
        for s in &body.stmts {
            let StmtKind::FieldStore {
                object,
                field,
                value,
            } = &s.kind
            else {
                continue;
            };
            // A subclass may name the field through itself; a field of
            // the same name elsewhere is another field.
            if &*field.name != name || !names_field(program, &field.class, declaring) {
                continue;
            }
            let on_this = !body.is_static && object.var() == body.params.first().copied();
            let allocated = !fresh
                || value
                    .var()
                    .is_some_and(|v| crate::initialization::allocated(&body, v));
            if !(in_own_constructor && on_this && allocated) {
                return false;
            }
        }
    }
    true
}

/// Can a field reference through `class` resolve to a field declared by
/// `declaring`? (Its class is `declaring` or a subclass of it.)
fn names_field(program: &Program, class: &str, declaring: &str) -> bool {
    class == declaring || program.is_subtype_name(class, declaring)
}

/// Is `v` a root that names one value over the whole body: a parameter
/// (or `this`) no statement reassigns, or a variable with one definition?
fn stable_root(body: &Body, v: VarId) -> bool {
    if body.params.contains(&v) {
        return body.stmts.iter().all(|s| s.kind.def() != Some(v));
    }
    matches!(body.unique_def.get(v.index()), Some(Some(_)))
}

/// The stable path of `v`: copies and casts are followed, a stable field
/// load extends the path, a read or write view of a read-write lock
/// (`rw.readLock()`) is named by the read-write lock; anything else is a
/// root when it names one value.
fn stable_path(
    program: &Program,
    body: &Body,
    fields: &mut FieldTable,
    stable: &mut StableFields,
    v: VarId,
) -> Option<StablePath> {
    let mut steps: Vec<FieldName> = Vec::new();
    let mut cur = v;
    for _ in 0..MAX_STEPS {
        let def = crate::util::unique_def_of(body, cur);
        let next = match def {
            Some(StmtKind::Assign {
                value: Rvalue::Use(Operand::Var(src)) | Rvalue::Cast(Operand::Var(src), _),
                ..
            }) => Some(*src),
            Some(StmtKind::Assign {
                value:
                    Rvalue::FieldLoad {
                        object: Operand::Var(obj),
                        field,
                    },
                ..
            }) => {
                let facts = fields.facts(program, field)?;
                if !stable.is_stable(program, &facts.declaring, &field.name) {
                    break;
                }
                steps.push((facts.declaring, field.name.clone()));
                Some(*obj)
            }
            Some(StmtKind::Invoke { call, .. }) => {
                let view = matches!(
                    juc_effect(program, call),
                    Some(LockEffect::ReadView | LockEffect::WriteView)
                );
                match call.receiver.as_ref() {
                    Some(Operand::Var(r)) if view => Some(*r),
                    _ => None,
                }
            }
            _ => None,
        };
        match next {
            Some(n) if n != cur => cur = n,
            _ => break,
        }
    }
    if !stable_root(body, cur) {
        return None;
    }
    steps.reverse();
    Some(StablePath {
        root: cur,
        fields: steps,
    })
}

/// The stable path of a body's lock: its variable's, then the wrapper's
/// field when a lock wrapper took it (that field must be stable too).
fn lock_path(
    program: &Program,
    body: &Body,
    fields: &mut FieldTable,
    stable: &mut StableFields,
    l: &LocalLock,
) -> Option<StablePath> {
    let v = lock_var(body, l)?;
    let mut path = stable_path(program, body, fields, stable, v)?;
    if let LocalLock::Juc { field: Some(f), .. } = l {
        if !stable.is_stable(program, &f.0, &f.1) {
            return None;
        }
        path.fields.push(f.clone());
    }
    Some(path)
}

/// The variable a body's lock is taken through (`this` for a
/// `synchronized` instance method; none for static ones).
fn lock_var(body: &Body, l: &LocalLock) -> Option<VarId> {
    match l {
        LocalLock::SyncMethod if body.is_static => None,
        LocalLock::SyncMethod => body.params.first().copied(),
        LocalLock::Monitor { var, .. } => *var,
        LocalLock::Juc { var, .. } => Some(*var),
    }
}

/// The mode a body's lock is held in (a held stamp lock counts as
/// exclusive, as in [`super::locks`]).
fn lock_mode(l: &LocalLock) -> LockMode {
    match l {
        LocalLock::Juc { mode, .. } if *mode != LockMode::Stamp => *mode,
        _ => LockMode::Exclusive,
    }
}

/// The locks of `locals` that are locks of the object `base` holds at
/// statement `at`, named relative to it ([`LockObject::OfAccessed`]).
pub fn of_accessed(
    program: &Program,
    body: &Body,
    fields: &mut FieldTable,
    stable: &mut StableFields,
    base: VarId,
    locals: &[LocalLock],
    at: StmtId,
) -> Vec<HeldLock> {
    if locals.is_empty() {
        return Vec::new();
    }
    let Some(accessed) = stable_path(program, body, fields, stable, base) else {
        return own_monitor_in_block(body, base, at).into_iter().collect();
    };
    let held = path_locks(program, body, fields, stable, locals);
    relative_to(program, stable, &accessed, held)
}

/// The monitor of the object `v` holds, when `at` lies in a `synchronized
/// (v)` block and no statement of that block assigns `v`: a variable
/// with several definitions (a loop walking a chain, `for (c = this; c !=
/// null; c = c.parent) synchronized (c) { c.f … }`) still names, inside
/// the block, the one object whose monitor the block entered.
fn own_monitor_in_block(body: &Body, v: VarId, at: StmtId) -> Option<HeldLock> {
    let region = body.regions_held_before(at).into_iter().find(|r| {
        body.monitors.get(r.index()).is_some_and(|m| {
            m.kind == lockstep_ir::MonitorKind::Block && m.enter.is_some() && m.lock_var == Some(v)
        })
    })?;
    let assigned_inside = body.stmts.iter().enumerate().any(|(i, s)| {
        s.kind.def() == Some(v) && u32::try_from(i).is_ok_and(|i| held_in(body, StmtId(i), region))
    });
    (!assigned_inside).then(|| HeldLock {
        object: LockObject::OfAccessed {
            fields: Arc::from(Vec::new()),
            monitor: true,
        },
        mode: LockMode::Exclusive,
    })
}

/// Is the monitor of `region` held before statement `s` (the region or one
/// nested in it is held there)?
fn held_in(body: &Body, s: StmtId, region: MonitorId) -> bool {
    let mut r = body.held_before.get(s.index()).copied().flatten();
    for _ in 0..=body.monitors.len() {
        match r {
            Some(id) if id == region => return true,
            Some(id) => r = body.monitors.get(id.index()).and_then(|m| m.parent),
            None => return false,
        }
    }
    false
}

/// The locks of `held` named relative to the object at `accessed`: the
/// lock of that object or of one its stable fields hold
/// ([`LockObject::OfAccessed`]), or the lock of its owner or of one the
/// owner's stable fields hold, when the steps from the owner down to the
/// accessed object are owned parts ([`LockObject::OfOwner`]: an access
/// of `this.queue`'s contents in a `synchronized` method of `this`, whose
/// constructor made the queue).
fn relative_to(
    program: &Program,
    stable: &mut StableFields,
    accessed: &StablePath,
    held: Vec<PathLock>,
) -> Vec<HeldLock> {
    let mut out: Vec<HeldLock> = Vec::new();
    for h in held.into_iter().filter(|h| h.path.root == accessed.root) {
        let shared = h
            .path
            .fields
            .iter()
            .zip(&accessed.fields)
            .take_while(|(a, b)| a == b)
            .count();
        let (up, down) = (&accessed.fields[shared..], &h.path.fields[shared..]);
        let object = if up.is_empty() {
            LockObject::OfAccessed {
                fields: Arc::from(down),
                monitor: h.monitor,
            }
        } else if up.iter().all(|f| stable.is_owned_part(program, f)) {
            LockObject::OfOwner {
                up: Arc::from(up),
                down: Arc::from(down),
                monitor: h.monitor,
            }
        } else {
            continue;
        };
        out.push(HeldLock {
            object,
            mode: h.mode,
        });
    }
    out.sort();
    out.dedup();
    out
}

/// A lock every caller of a method context holds on an object the method
/// names through a parameter: the parameter (index into `Body::params`,
/// `this` first), then stable fields; the lock's kind and mode.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ParamLock {
    pub param: u16,
    pub fields: Arc<[FieldName]>,
    pub monitor: bool,
    pub mode: LockMode,
}

/// A lock the body holds, by its stable path.
#[derive(Debug, Clone)]
struct PathLock {
    path: StablePath,
    monitor: bool,
    mode: LockMode,
}

/// What a call site passes on: the stable path of each argument (the
/// receiver first), the locks the body itself holds there by stable path,
/// and the method it calls.
#[derive(Debug, Clone)]
pub struct SiteLocks {
    args: Vec<Option<StablePath>>,
    held: Vec<PathLock>,
    name: Arc<str>,
    descriptor: Arc<str>,
}

/// The stable paths of the locks `locals`.
fn path_locks(
    program: &Program,
    body: &Body,
    fields: &mut FieldTable,
    stable: &mut StableFields,
    locals: &[LocalLock],
) -> Vec<PathLock> {
    let mut out = Vec::new();
    for l in locals {
        if let Some(path) = lock_path(program, body, fields, stable, l) {
            out.push(PathLock {
                path,
                monitor: !matches!(l, LocalLock::Juc { .. }),
                mode: lock_mode(l),
            });
        }
    }
    out
}

/// The call at `site` with its arguments' stable paths and the locks
/// held there (`locals`); `None` when the statement is not a call.
pub fn site_locks(
    program: &Program,
    body: &Body,
    fields: &mut FieldTable,
    stable: &mut StableFields,
    site: StmtId,
    locals: &[LocalLock],
) -> Option<SiteLocks> {
    let StmtKind::Invoke { call, .. } = &body.stmts.get(site.index())?.kind else {
        return None;
    };
    let args = call
        .receiver
        .iter()
        .chain(&call.args)
        .map(|op| {
            op.var()
                .and_then(|v| stable_path(program, body, fields, stable, v))
        })
        .collect();
    Some(SiteLocks {
        args,
        held: path_locks(program, body, fields, stable, locals),
        name: call.method.name.clone(),
        descriptor: call.method.descriptor.clone(),
    })
}

/// The caller's entry locks on its parameters as stable paths of its body.
fn entry_path_locks(body: &Body, entry: &[ParamLock]) -> Vec<PathLock> {
    entry
        .iter()
        .filter_map(|p| {
            let root = *body.params.get(usize::from(p.param))?;
            stable_root(body, root).then(|| PathLock {
                path: StablePath {
                    root,
                    fields: p.fields.to_vec(),
                },
                monitor: p.monitor,
                mode: p.mode,
            })
        })
        .collect()
}

/// The locks a callee (`name`, `descriptor`) holds on its parameters when
/// called at `site` by a body holding `site.held` and, on entry, `entry`.
/// A callee reached otherwise (a thread start, a callback through the
/// JDK) gets none.
pub fn callee_param_locks(
    caller: &Body,
    site: &SiteLocks,
    entry: &[ParamLock],
    name: &str,
    descriptor: &str,
) -> Vec<ParamLock> {
    if *site.name != *name || *site.descriptor != *descriptor {
        return Vec::new();
    }
    let held: Vec<PathLock> = site
        .held
        .iter()
        .cloned()
        .chain(entry_path_locks(caller, entry))
        .collect();
    let mut out = Vec::new();
    for (j, arg) in site.args.iter().enumerate() {
        let (Some(arg), Ok(param)) = (arg, u16::try_from(j)) else {
            continue;
        };
        for h in &held {
            if h.path.root == arg.root && h.path.fields.starts_with(&arg.fields) {
                out.push(ParamLock {
                    param,
                    fields: Arc::from(&h.path.fields[arg.fields.len()..]),
                    monitor: h.monitor,
                    mode: h.mode,
                });
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The entry locks `entry` of a method that are locks of the object
/// `base` holds, named relative to it.
pub fn of_accessed_on_entry(
    program: &Program,
    body: &Body,
    fields: &mut FieldTable,
    stable: &mut StableFields,
    base: VarId,
    entry: &[ParamLock],
) -> Vec<HeldLock> {
    if entry.is_empty() {
        return Vec::new();
    }
    let Some(accessed) = stable_path(program, body, fields, stable, base) else {
        return Vec::new();
    };
    relative_to(program, stable, &accessed, entry_path_locks(body, entry))
}
