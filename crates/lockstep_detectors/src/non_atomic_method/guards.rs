//! Race-free types, inferred per field (paper 004 §2.2 and §4, statically
//! instead of by run-time type discovery): which lock every access other
//! threads can see holds, expressed relative to the accessed object.
//!
//! The facts come from the `data-race` analysis: every access of
//! application code to a shared object, per abstract object, with the
//! locks held (the caller's included, per calling context). A field is
//! - `readonly` when it is final, or no thread writes it once the object is
//!   shared (constructors and not-yet-published objects excepted);
//! - `thisThread` when no access touches a shared object;
//! - `guarded_by L` when, for every shared object, every access holds `L`,
//!   where `L` is the object itself (`self`), the object held in one of its
//!   fields (`this.lock`, `Outer.this`), a static field or a class literal;
//! - `write_guarded_by L` when only every write does;
//! - `race-free` (lockstep's addition) when no lock guards it but the race
//!   analysis proves no two accesses conflict (one thread, start/join);
//! - racy otherwise.
//!
//! `@GuardedBy` on the field wins over inference; `volatile` fields are
//! their own kind (each access is one atomic step, never a mover).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use lockstep_models::LockMode;
use lockstep_pointsto::{FieldKey, ObjectId, PointsToResult};
use lockstep_program::Program;
use rustc_hash::FxHashMap;

use lockstep_facts::accesses::{Kind, Target};
use lockstep_facts::annotations::guarded_by;
use lockstep_facts::locks::{HeldLock, LockObject};
use lockstep_facts::{Access, Buckets};
use lockstep_ir::StmtId;
use lockstep_program::MethodId;
use rustc_hash::FxHashSet;

/// A lock named relative to the object whose field it guards.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum GuardLock {
    /// The object's own monitor (the paper's `self`).
    Itself,
    /// The object held in the named instance field of the guarded object.
    Field(Arc<str>),
    /// The object held in a static field (class, name).
    Static(Arc<str>, Arc<str>),
    /// A class object.
    Class(Arc<str>),
    /// An `@GuardedBy` expression, as written.
    Annotated(String),
}

impl GuardLock {
    pub fn describe(&self) -> String {
        match self {
            GuardLock::Itself => "self".into(),
            GuardLock::Field(f) if f.starts_with("this$") => {
                "the enclosing instance (Outer.this)".into()
            }
            GuardLock::Field(f) => format!("this.{f}"),
            GuardLock::Static(c, n) => format!("{}.{n}", lockstep_ir::simple_class_name(c)),
            GuardLock::Class(c) => format!("{}.class", lockstep_ir::simple_class_name(c)),
            GuardLock::Annotated(s) => format!("@GuardedBy(\"{s}\")"),
        }
    }
}

/// The race-free type of a field.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Guard {
    ReadOnly,
    ThisThread,
    /// Only accessed through a unique reference: on objects their creator
    /// has not handed out yet (PRFJ's `unique`).
    Unique,
    GuardedBy(GuardLock),
    WriteGuardedBy(GuardLock),
    RaceFree,
    Volatile,
    Racy,
}

impl Guard {
    /// As `describe`, naming an enclosing instance by its class when the
    /// guarded field's class is an inner class (`Account.this`).
    pub fn describe_in(&self, class: &str) -> String {
        let outer = class
            .rsplit_once('$')
            .map(|(o, _)| lockstep_ir::simple_class_name(o).to_string());
        match (self, outer) {
            (Guard::GuardedBy(GuardLock::Field(f)), Some(o)) if f.starts_with("this$") => {
                format!("guarded_by {o}.this")
            }
            (Guard::WriteGuardedBy(GuardLock::Field(f)), Some(o)) if f.starts_with("this$") => {
                format!("write_guarded_by {o}.this")
            }
            _ => self.describe(),
        }
    }

    pub fn describe(&self) -> String {
        match self {
            Guard::ReadOnly => "readonly".into(),
            Guard::ThisThread => "thisThread".into(),
            Guard::Unique => "unique".into(),
            Guard::GuardedBy(l) => format!("guarded_by {}", l.describe()),
            Guard::WriteGuardedBy(l) => format!("write_guarded_by {}", l.describe()),
            Guard::RaceFree => {
                "race-free (no lock; no conflicting accesses run concurrently)".into()
            }
            Guard::Volatile => "volatile".into(),
            Guard::Racy => "none (racy)".into(),
        }
    }
}

/// A field by declaring class and name.
pub type FieldName = (Arc<str>, Arc<str>);

/// The accesses of one abstract object (none for statics).
type ObjectAccesses<'a> = (Option<ObjectId>, &'a Vec<Access>);

/// The inferred guards, per field (declaring class, name).
#[derive(Debug, Default)]
pub struct Guards {
    pub fields: BTreeMap<(Arc<str>, Arc<str>), Guard>,
    /// The access statements that are part of a race (for fields, arrays
    /// and JDK collections alike).
    pub racy_stmts: FxHashSet<(MethodId, StmtId)>,
}

impl Guards {
    pub fn of(&self, class: &Arc<str>, name: &Arc<str>) -> Option<&Guard> {
        self.fields.get(&(class.clone(), name.clone()))
    }
}

/// Which static fields hold exactly one object, by object.
pub(crate) fn static_holders(pt: &PointsToResult) -> FxHashMap<ObjectId, (Arc<str>, Arc<str>)> {
    let mut out = FxHashMap::default();
    for (key, set) in pt.static_fields() {
        if let (FieldKey::Field { class, name }, 1) = (key, set.len()) {
            if let Some(o) = set.iter().next() {
                out.entry(o).or_insert((class.clone(), name.clone()));
            }
        }
    }
    out
}

/// The ways `lock` can be named relative to `object` (none for statics'
/// `object`).
pub(crate) fn relative(
    pt: &PointsToResult,
    statics: &FxHashMap<ObjectId, (Arc<str>, Arc<str>)>,
    object: Option<ObjectId>,
    lock: &HeldLock,
) -> Vec<GuardLock> {
    let mut out = Vec::new();
    match &lock.object {
        LockObject::Class(c) => out.push(GuardLock::Class(c.clone())),
        LockObject::Object(x) => {
            if let Some(o) = object {
                if *x == o {
                    out.push(GuardLock::Itself);
                }
                for (key, set) in pt.fields_of(o) {
                    if let FieldKey::Field { name, .. } = key {
                        if set.len() == 1 && set.contains(*x) {
                            out.push(GuardLock::Field(name.clone()));
                        }
                    }
                }
            }
            if let Some((c, n)) = statics.get(x) {
                out.push(GuardLock::Static(c.clone(), n.clone()));
            }
        }
        LockObject::OfAccessed { fields, .. } => match &fields[..] {
            [] => out.push(GuardLock::Itself),
            [(_, name)] => out.push(GuardLock::Field(name.clone())),
            _ => {}
        },
        LockObject::OfOwner { .. } => {}
    }
    out
}

/// The guard candidates every access of `list` satisfies.
fn common(
    pt: &PointsToResult,
    statics: &FxHashMap<ObjectId, (Arc<str>, Arc<str>)>,
    object: Option<ObjectId>,
    list: &[&Access],
) -> BTreeSet<GuardLock> {
    let mut acc: Option<BTreeSet<GuardLock>> = None;
    for a in list {
        let mut here = BTreeSet::new();
        for l in a.locks.iter() {
            // A read lock does not guard a write.
            if a.kind == Kind::Write && l.mode == LockMode::Read {
                continue;
            }
            here.extend(relative(pt, statics, object, l));
        }
        acc = Some(match acc {
            None => here,
            Some(prev) => prev.intersection(&here).cloned().collect(),
        });
        if acc.as_ref().is_some_and(|s| s.is_empty()) {
            break;
        }
    }
    acc.unwrap_or_default()
}

/// Infers the guard of every field that has an access in `buckets`, and
/// of the annotated, final and volatile fields of application classes.
pub fn infer(
    program: &Program,
    pt: &PointsToResult,
    buckets: &Buckets,
    racy: &FxHashSet<(MethodId, StmtId)>,
) -> Guards {
    let statics = static_holders(pt);
    let mut guards = Guards {
        racy_stmts: racy.clone(),
        ..Guards::default()
    };
    // Declared facts first: annotations, final, volatile.
    for c in program.application_classes() {
        let info = program.class(c);
        for f in &info.file.fields {
            let key = (info.name.clone(), Arc::from(f.name.as_ref()));
            let guard = if let Some(g) = guarded_by(&f.annotations) {
                Guard::GuardedBy(GuardLock::Annotated(g))
            } else if f.access_flags & lockstep_classfile::access::FINAL != 0 {
                Guard::ReadOnly
            } else if f.access_flags & lockstep_classfile::access::VOLATILE != 0 {
                Guard::Volatile
            } else {
                // Until shown otherwise: no shared access.
                Guard::ThisThread
            };
            guards.fields.insert(key, guard);
        }
    }
    // Per field: its buckets.
    let mut per_field: BTreeMap<FieldName, Vec<ObjectAccesses>> = BTreeMap::new();
    for ((target, obj), list) in buckets {
        match target {
            Target::Field { class, name } | Target::Static { class, name } => {
                per_field
                    .entry((class.clone(), name.clone()))
                    .or_default()
                    .push((*obj, list));
            }
            Target::Element | Target::Container => {}
        }
    }
    for (key, objs) in per_field {
        if let Some(existing) = guards.fields.get(&key) {
            if !matches!(existing, Guard::ThisThread) {
                continue; // declared
            }
        }
        let any_write = objs
            .iter()
            .any(|(_, l)| l.iter().any(|a| a.kind == Kind::Write));
        if !any_write {
            guards.fields.insert(key, Guard::ReadOnly);
            continue;
        }
        let mut all: Option<BTreeSet<GuardLock>> = None;
        let mut writes: Option<BTreeSet<GuardLock>> = None;
        for (obj, list) in &objs {
            let every: Vec<&Access> = list.iter().collect();
            let w: Vec<&Access> = list.iter().filter(|a| a.kind == Kind::Write).collect();
            let c = common(pt, &statics, *obj, &every);
            all = Some(match all {
                None => c,
                Some(prev) => prev.intersection(&c).cloned().collect(),
            });
            if !w.is_empty() {
                let cw = common(pt, &statics, *obj, &w);
                writes = Some(match writes {
                    None => cw,
                    Some(prev) => prev.intersection(&cw).cloned().collect(),
                });
            }
        }
        let racy_field = objs
            .iter()
            .any(|(_, l)| l.iter().any(|a| racy.contains(&(a.method, a.stmt))));
        let guard = if let Some(l) = all.and_then(|s| s.into_iter().next()) {
            Guard::GuardedBy(l)
        } else if !racy_field {
            Guard::RaceFree
        } else if let Some(l) = writes.and_then(|s| s.into_iter().next()) {
            Guard::WriteGuardedBy(l)
        } else {
            Guard::Racy
        };
        guards.fields.insert(key, guard);
    }
    guards
}
