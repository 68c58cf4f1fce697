//! Lock identity of a witness's acquisitions, from the shared facts of
//! `lockstep_facts::lock_identity`: can the acquisition at the end of a
//! call path lock the object the witness names?
//!
//! A witness names its lock as an expression of the method holding the
//! context (`this.session`, a parameter); each acquisition is a
//! `synchronized` block or method somewhere down a call path, reached by
//! translating the callee's lock through each call. The call graph is
//! one for all contexts, so a path may pass a call whose target only
//! other callers' objects reach (a helper's `o.toString()` dispatching to
//! a synchronized `toString` of a class this caller never passes). The
//! acquisition then locks objects the witness's expression cannot hold:
//! its points-to set at the acquisition and the expression's in the
//! witness's method are disjoint, and the acquisition is not of that lock.
//! An owned lock (a field only the owner's constructor assigns, one lock
//! per owner) is also told apart by its owners: when the owners at the
//! acquisition and the objects the expression reads the field from are
//! disjoint, the locks are two objects even if they share an allocation
//! site.
//!
//! Static fields and class literals name one object wherever they are
//! read and are never told apart; an empty or unknown points-to set rules
//! nothing out.

use lockstep_facts::local_locks::LocalLock;
use lockstep_facts::lock_identity::{may_be_same, LockOwners, Owners};
use lockstep_ir::{AccessPath, MonitorRegion};
use lockstep_pointsto::{ObjectSet, PointsToResult};
use lockstep_program::{MethodId, Program};
use rustc_hash::FxHashMap;

use super::analysis::{Chain, Hop};

/// Answers [`LockIdentity::may_lock`], caching points-to sets.
pub struct LockIdentity<'a> {
    program: &'a Program,
    pt: &'a PointsToResult,
    owners: LockOwners,
    /// What an expression of a method may point to (all contexts).
    named: FxHashMap<(MethodId, AccessPath), Option<ObjectSet>>,
    /// What an acquisition locks, and its owners when the lock is owned.
    taken: FxHashMap<Hop<MethodId>, Option<Taken>>,
}

/// The objects an acquisition may lock.
struct Taken {
    objects: ObjectSet,
    /// For a lock read from an owned field `x.f`: the field's name and the
    /// points-to set of `x`.
    owned: Option<(std::sync::Arc<str>, Owners)>,
}

impl<'a> LockIdentity<'a> {
    pub fn new(program: &'a Program, pt: &'a PointsToResult) -> Self {
        LockIdentity {
            program,
            pt,
            owners: LockOwners::default(),
            named: FxHashMap::default(),
            taken: FxHashMap::default(),
        }
    }

    /// May the acquisition at the end of `chain` lock an object that
    /// `lock`, as method `m` names it, may be? False only when the facts
    /// prove the two disjoint.
    pub fn may_lock(&mut self, m: MethodId, lock: &AccessPath, chain: &Chain<MethodId>) -> bool {
        let Some(&deep) = chain.last() else {
            return true;
        };
        if chain.len() == 1 || matches!(lock, AccessPath::Static(..) | AccessPath::ClassLiteral(_))
        {
            // Taken in `m` itself under this very name, or one object anyway.
            return true;
        }
        let Some(named) = self.named(m, lock) else {
            return true;
        };
        let Some(taken) = self.taken(deep) else {
            return true;
        };
        if !taken.objects.intersects(&named) {
            return false;
        }
        let owned = taken.owned.clone();
        match (owned, lock) {
            (Some((field, owners)), AccessPath::Field(base, name)) if *name == field => {
                let Some(bases) = self.named(m, base) else {
                    return true;
                };
                let bases: Owners = bases.iter().collect();
                may_be_same(Some(&owners), Some(&bases))
            }
            _ => true,
        }
    }

    /// The non-empty points-to set of `lock` in `m` (all contexts).
    fn named(&mut self, m: MethodId, lock: &AccessPath) -> Option<ObjectSet> {
        let (program, pt) = (self.program, self.pt);
        self.named
            .entry((m, lock.clone()))
            .or_insert_with(|| {
                pt.path(program, m, None, lock)
                    .filter(|set| !set.is_empty())
            })
            .clone()
    }

    /// What the acquisition `hop` (a `synchronized` block, or a method's
    /// own `synchronized` entry) may lock, when known and not empty.
    fn taken(&mut self, hop: Hop<MethodId>) -> Option<&Taken> {
        if !self.taken.contains_key(&hop) {
            let taken = self.compute_taken(hop);
            self.taken.insert(hop, taken);
        }
        self.taken.get(&hop).and_then(Option::as_ref)
    }

    fn compute_taken(&mut self, hop: Hop<MethodId>) -> Option<Taken> {
        let body = self.program.body(hop.method)?;
        let region: &MonitorRegion = body.monitors.iter().find(|r| r.enter == hop.stmt)?;
        let var = match region.lock_var {
            Some(v) => v,
            None if !body.is_static => *body.params.first()?,
            None => return None,
        };
        let objects = self.pt.var(hop.method, var);
        if objects.is_empty() {
            return None;
        }
        let owned = match &region.lock {
            AccessPath::Field(_, field) => {
                let local = LocalLock::Monitor {
                    var: Some(var),
                    path: region.lock.clone(),
                };
                self.owners_in_every_context(hop.method, &body, &local)
                    .map(|owners| (field.clone(), owners))
            }
            _ => None,
        };
        Some(Taken { objects, owned })
    }

    /// The owners of an owned lock over every context of `m` (sorted),
    /// or `None` when the lock is not owned in some context.
    fn owners_in_every_context(
        &mut self,
        m: MethodId,
        body: &lockstep_ir::Body,
        lock: &LocalLock,
    ) -> Option<Owners> {
        let mut all = Vec::new();
        for c in self.pt.contexts_of(m) {
            let owners = self
                .owners
                .owners(self.program, self.pt, (m, c), body, lock)?;
            all.extend(owners.iter().copied());
        }
        all.sort_unstable();
        all.dedup();
        (!all.is_empty()).then(|| Owners::from(all))
    }
}
