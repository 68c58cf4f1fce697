//! Lock identity of a witness's acquisitions: can the acquisition at the
//! end of a call path lock the object the witness names?
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
//!
//! Not used: the owners of `lockstep_facts::lock_identity` (a lock only
//! its owner's constructor assigns is one per owner). Merged over the
//! acquiring method's contexts, as a call path needs, they tell two locks
//! apart only where the lock objects themselves are merged (the owners'
//! constructor past the points-to context bound) and the owners are not;
//! no fixture or studied finding has that shape, and checking them as
//! well changed no finding on the six studied jars, so it is left out.
//!
//! Static fields and class literals name one object wherever they are
//! read and are never told apart; an empty or unknown points-to set rules
//! nothing out.

use lockstep_ir::{AccessPath, MonitorRegion};
use lockstep_pointsto::{ObjectSet, PointsToResult};
use lockstep_program::{MethodId, Program};
use rustc_hash::FxHashMap;

use super::analysis::{Chain, Hop};

/// Answers [`LockIdentity::may_lock`], caching points-to sets.
pub struct LockIdentity<'a> {
    program: &'a Program,
    pt: &'a PointsToResult,
    /// What an expression of a method may point to (all contexts).
    named: FxHashMap<(MethodId, AccessPath), Option<ObjectSet>>,
    /// What an acquisition may lock (all contexts; `None`: unknown or
    /// nothing).
    taken: FxHashMap<Hop<MethodId>, Option<ObjectSet>>,
}

impl<'a> LockIdentity<'a> {
    pub fn new(program: &'a Program, pt: &'a PointsToResult) -> Self {
        LockIdentity {
            program,
            pt,
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
        self.taken(deep)
            .is_none_or(|taken| taken.intersects(&named))
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
    fn taken(&mut self, hop: Hop<MethodId>) -> Option<&ObjectSet> {
        if !self.taken.contains_key(&hop) {
            let taken = self.compute_taken(hop);
            self.taken.insert(hop, taken);
        }
        self.taken.get(&hop).and_then(Option::as_ref)
    }

    fn compute_taken(&self, hop: Hop<MethodId>) -> Option<ObjectSet> {
        let body = self.program.body(hop.method)?;
        let region: &MonitorRegion = body.monitors.iter().find(|r| r.enter == hop.stmt)?;
        let var = match region.lock_var {
            Some(v) => v,
            None if !body.is_static => *body.params.first()?,
            None => return None,
        };
        let objects = self.pt.var(hop.method, var);
        (!objects.is_empty()).then_some(objects)
    }
}
