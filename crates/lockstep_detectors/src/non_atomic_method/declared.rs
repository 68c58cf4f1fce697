//! Race-free types declared from outside (`lockstep check --types`, the
//! output of type discovery from runs): each is checked against the same
//! facts the guard inference reads — every access of application code to
//! a shared object of the field's class. A type every such access
//! satisfies is *accepted* and replaces the inferred guard (so the
//! atomicity inference uses it in code the runs never executed); one an
//! access violates is *refuted*, named with that access, and not trusted;
//! one with no such access (a JDK field, a field the analysis sees only in
//! unshared objects) is *not checked* and not used.

use std::sync::Arc;

use lockstep_facts::accesses::{Kind, Target};
use lockstep_facts::{Access, Buckets};
use lockstep_models::LockMode;
use lockstep_pointsto::{ObjectId, PointsToResult};
use lockstep_program::Program;

use super::guards::{relative, static_holders, Guard, GuardLock, Guards};

/// A declared owner of a field (what type discovery found).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeclaredOwner {
    /// Not written once the object is shared.
    ReadOnly,
    /// The lock held at every access of a shared object.
    GuardedBy(GuardLock),
    /// The lock held at every write of a shared object.
    WriteGuardedBy(GuardLock),
}

/// One field's declared type; `class` in internal form (`pkg/Foo`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeclaredType {
    pub class: Arc<str>,
    pub field: Arc<str>,
    pub owner: DeclaredOwner,
}

impl DeclaredType {
    fn describe(&self) -> String {
        match &self.owner {
            DeclaredOwner::ReadOnly => "readonly".into(),
            DeclaredOwner::GuardedBy(l) => format!("guarded_by {}", l.describe()),
            DeclaredOwner::WriteGuardedBy(l) => format!("write_guarded_by {}", l.describe()),
        }
    }

    fn as_guard(&self) -> Guard {
        match &self.owner {
            DeclaredOwner::ReadOnly => Guard::ReadOnly,
            DeclaredOwner::GuardedBy(l) => Guard::GuardedBy(l.clone()),
            DeclaredOwner::WriteGuardedBy(l) => Guard::WriteGuardedBy(l.clone()),
        }
    }
}

/// Does `access` (of a field of `object`) satisfy `owner`?
fn satisfies(
    pt: &PointsToResult,
    statics: &rustc_hash::FxHashMap<ObjectId, (Arc<str>, Arc<str>)>,
    object: Option<ObjectId>,
    access: &Access,
    owner: &DeclaredOwner,
) -> bool {
    let write = access.kind == Kind::Write;
    let lock = match owner {
        DeclaredOwner::ReadOnly => return !write,
        DeclaredOwner::GuardedBy(l) => l,
        DeclaredOwner::WriteGuardedBy(_) if !write => return true,
        DeclaredOwner::WriteGuardedBy(l) => l,
    };
    access
        .locks
        .iter()
        // A read lock does not guard a write.
        .filter(|h| !(write && h.mode == LockMode::Read))
        .any(|h| relative(pt, statics, object, h).contains(lock))
}

/// Checks every declared type; accepted ones replace the inferred guard
/// (an `@GuardedBy` in the bytecode still wins). Gives one line per type.
pub fn check(
    program: &Program,
    pt: &PointsToResult,
    buckets: &Buckets,
    declared: &[DeclaredType],
    guards: &mut Guards,
) -> Vec<String> {
    let statics = static_holders(pt);
    let mut lines = Vec::new();
    for d in declared {
        let name = format!("{}.{}", crate::util::dotted(&d.class), d.field);
        let mut checked = 0usize;
        let mut refuting = None;
        for ((target, obj), list) in buckets {
            let (Target::Field { class, name: f } | Target::Static { class, name: f }) = target
            else {
                continue;
            };
            if **class != *d.class || **f != *d.field {
                continue;
            }
            for a in list {
                checked += 1;
                if refuting.is_none() && !satisfies(pt, &statics, *obj, a, &d.owner) {
                    refuting = Some(a);
                }
            }
        }
        let key = (d.class.clone(), d.field.clone());
        let annotated = matches!(
            guards.fields.get(&key),
            Some(Guard::GuardedBy(GuardLock::Annotated(_)))
        );
        let line = match refuting {
            Some(a) => format!(
                "types: {name}: {} REFUTED: the {} in {} ({}) {}",
                d.describe(),
                a.kind.as_str(),
                crate::util::short_method(program, a.method),
                crate::util::position(program, a.method, Some(a.stmt)),
                match &d.owner {
                    DeclaredOwner::ReadOnly => "writes it on a shared object".to_string(),
                    DeclaredOwner::GuardedBy(l) | DeclaredOwner::WriteGuardedBy(l) =>
                        format!("does not hold {}", l.describe()),
                }
            ),
            // Nothing to check against: reported, not used.
            None if checked == 0 => format!(
                "types: {name}: {} not checked: the analysed code has no access of a shared object of it",
                d.describe()
            ),
            None => {
                if !annotated {
                    guards.fields.insert(key, d.as_guard());
                }
                let held = match d.owner {
                    DeclaredOwner::ReadOnly => "none writes",
                    _ => "all hold it",
                };
                format!(
                    "types: {name}: {} accepted ({checked} accesses of shared objects, {held})",
                    d.describe()
                )
            }
        };
        lines.push(line);
    }
    lines
}
