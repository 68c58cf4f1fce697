//! Threads of one start site that each get their own objects.
//!
//! A start in a loop (or in code that runs more than once) makes a root
//! that runs more than once, and such a root races with itself. It races
//! with itself only on objects that more than one of its instances can
//! reach: an elevator simulation that starts one thread per lift, each
//! with its own `Lift`, has no race between two lift threads on a `Lift`.
//!
//! An object is private to the instances of a root (each instance reaches
//! its own) when it is made afresh for each start and only the thread's
//! own objects, or objects no other thread reaches, hold it:
//! - the task object, allocated by the starting method so that the start
//!   cannot run twice without the allocation running in between, and held
//!   by no object another thread reaches;
//! - an object allocated the same way in the starting method, or by the
//!   constructor of an object already private (its heap context is that
//!   object's allocation), all of whose holders are private or escape no
//!   thread.
//!
//! Known limit: a local that keeps one object across iterations
//! (`if (x == null) x = new X();` inside the loop) is taken as fresh.

use std::borrow::Cow;
use std::sync::Arc;

use lockstep_ir::{Body, StmtId};
use lockstep_pointsto::{ObjectId, PointsToResult, SiteKey, ThreadStart};
use lockstep_program::MethodId;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::analysis::Analysis;
use crate::threads::{periodic, Root, RootKind};

/// Per abstract object: the roots whose instances each reach their own.
#[derive(Debug, Clone, Default)]
pub struct PerInstance(FxHashMap<ObjectId, Vec<u32>>);

impl PerInstance {
    /// The roots whose instances each have their own `object`.
    pub(crate) fn own(&self, object: Option<ObjectId>) -> Option<&[u32]> {
        object.and_then(|o| self.0.get(&o)).map(Vec::as_slice)
    }

    /// `roots`, with the roots whose instances each have their own
    /// `object` marked as running once (they cannot race with themselves
    /// on it).
    pub(crate) fn roots_for<'r>(
        &self,
        roots: &'r [Root],
        object: Option<ObjectId>,
    ) -> Cow<'r, [Root]> {
        let Some(own) = object.and_then(|o| self.0.get(&o)) else {
            return Cow::Borrowed(roots);
        };
        let mut copy = roots.to_vec();
        for &r in own {
            if let Some(root) = copy.get_mut(r as usize) {
                root.multi = false;
            }
        }
        Cow::Owned(copy)
    }
}

impl PerInstance {
    /// Records that each instance of root `root` has its own `object`.
    pub(crate) fn add(&mut self, object: ObjectId, root: u32) {
        let roots = self.0.entry(object).or_default();
        if !roots.contains(&root) {
            roots.push(root);
            roots.sort_unstable();
        }
    }
}

/// A start that runs more than once (not periodically) and makes its
/// task afresh for each start, with the statement that repeats: the
/// launch, or for a launch of many tasks (`invokeAll` of a collection)
/// the task's allocation, whose copies are the instances (the tasks of
/// a collection are made before their one launch); and the body of the
/// method it is in.
pub(crate) struct RepeatedStart<'p> {
    /// Its root (index into the roots).
    pub root: u32,
    pub start: &'p ThreadStart,
    /// The method and statement each instance runs again.
    pub at: (MethodId, StmtId),
    pub body: Arc<Body>,
}

impl RepeatedStart<'_> {
    /// Is `o` allocated by the repeating method so that every instance
    /// runs with a new one (allocated on every path from one run of the
    /// repeating statement to the next)?
    pub(crate) fn fresh(&self, pt: &PointsToResult, o: ObjectId) -> bool {
        pt.object(o)
            .and_then(|i| i.site.location())
            .is_some_and(|(m, a)| m == self.at.0 && fresh_per_start(&self.body, self.at.1, a))
    }
}

/// The statement whose runs make the instances of start `t`: its task's
/// allocation for a launch of many tasks, else the launch.
fn repeat_point(pt: &PointsToResult, t: &ThreadStart) -> Option<(MethodId, StmtId)> {
    use lockstep_models::TaskShape;
    match t.launch.shape {
        TaskShape::Collection | TaskShape::Array => pt.object(t.task)?.site.location(),
        _ => Some((t.caller.method, t.site)),
    }
}

impl Analysis<'_> {
    /// The objects private to each instance of every start that runs more
    /// than once (closed programs; periodic tasks reuse their object).
    pub(crate) fn per_instance(&self, roots: &[Root], shared: &[bool]) -> PerInstance {
        let mut out = PerInstance::default();
        let mut holders: Option<FxHashMap<ObjectId, Vec<ObjectId>>> = None;
        for s in self.repeated_starts(roots) {
            let holders = holders.get_or_insert_with(|| self.holders());
            let fresh = |o: ObjectId| s.fresh(self.pt, o);
            for o in self.private_objects(s.start.task, &fresh, holders, shared) {
                out.add(o, s.root);
            }
        }
        out
    }

    /// The starts that run more than once, not periodically, whose task
    /// each start makes afresh and no other start runs (closed programs).
    pub(crate) fn repeated_starts<'p>(&'p self, roots: &[Root]) -> Vec<RepeatedStart<'p>> {
        let mut out = Vec::new();
        if self.open {
            return out;
        }
        for (r, root) in roots.iter().enumerate() {
            let RootKind::Start(i) = root.kind else {
                continue;
            };
            let Some(t) = self.pt.thread_starts().get(i) else {
                continue;
            };
            if !root.multi || periodic(t) {
                continue;
            }
            let Some(at) = repeat_point(self.pt, t) else {
                continue;
            };
            let Some(body) = self.program.body(at.0) else {
                continue;
            };
            let s = RepeatedStart {
                root: r as u32,
                start: t,
                at,
                body,
            };
            if s.fresh(self.pt, t.task) && !self.task_of_other_start(t.task, i) {
                out.push(s);
            }
        }
        out
    }

    /// Is `task` also the task of another start (then its instances are
    /// reached by two roots)?
    fn task_of_other_start(&self, task: ObjectId, start: usize) -> bool {
        self.pt
            .thread_starts()
            .iter()
            .enumerate()
            .any(|(j, s)| j != start && s.task == task)
    }

    /// Every object's holders: the objects with a field that may point to
    /// it, through the fields escape follows.
    fn holders(&self) -> FxHashMap<ObjectId, Vec<ObjectId>> {
        let mut map: FxHashMap<ObjectId, Vec<ObjectId>> = FxHashMap::default();
        for o in self.pt.objects() {
            for (_, set) in self.followed_fields(o) {
                for x in set.iter() {
                    map.entry(x).or_default().push(o);
                }
            }
        }
        map
    }

    /// The task and the objects reachable from it that each instance
    /// makes afresh and only private or unshared objects hold.
    fn private_objects(
        &self,
        task: ObjectId,
        fresh: &dyn Fn(ObjectId) -> bool,
        holders: &FxHashMap<ObjectId, Vec<ObjectId>>,
        shared: &[bool],
    ) -> Vec<ObjectId> {
        let mut private: FxHashSet<ObjectId> = FxHashSet::default();
        private.insert(task);
        let mut candidates: Vec<ObjectId> = Vec::new();
        let mut stack = vec![task];
        while let Some(o) = stack.pop() {
            for (_, set) in self.pt.fields_of(o) {
                for x in set.iter() {
                    if x != task
                        && !candidates.contains(&x)
                        && (fresh(x) || self.made_by_constructor_of(x, o))
                    {
                        candidates.push(x);
                        stack.push(x);
                    }
                }
            }
        }
        private.extend(candidates.iter().copied());
        // Drop candidates held by an object another instance may reach,
        // until nothing changes.
        loop {
            let before = private.len();
            let keep: Vec<ObjectId> = private
                .iter()
                .copied()
                .filter(|&o| {
                    holders.get(&o).is_none_or(|hs| {
                        hs.iter()
                            .all(|h| private.contains(h) || !shared_at(shared, *h))
                    })
                })
                .collect();
            private = keep.into_iter().collect();
            if private.len() == before {
                break;
            }
        }
        // A task another thread can reach makes nothing private.
        if !private.contains(&task) {
            return Vec::new();
        }
        let mut v: Vec<ObjectId> = private.into_iter().collect();
        v.sort_unstable();
        v
    }

    /// Was `x` allocated by a constructor running on `owner` (its heap
    /// context is `owner`'s allocation site)?
    pub(crate) fn made_by_constructor_of(&self, x: ObjectId, owner: ObjectId) -> bool {
        let (Some(xi), Some(oi)) = (self.pt.object(x), self.pt.object(owner)) else {
            return false;
        };
        let in_constructor = xi
            .site
            .location()
            .is_some_and(|(m, _)| self.program.method(m).is_constructor());
        let ctx = self.pt.context(xi.heap_context);
        in_constructor && matches!(oi.site, SiteKey::Alloc { .. }) && ctx.first() == Some(&oi.site)
    }
}

fn shared_at(shared: &[bool], o: ObjectId) -> bool {
    shared.get(o.0 as usize).copied().unwrap_or(true)
}

/// Does every path from the start `s` back to itself run the allocation
/// `a` (so each start runs with a new object)? Also true when `s` is on
/// no cycle.
fn fresh_per_start(body: &Body, s: StmtId, a: StmtId) -> bool {
    let (Some(&sb), Some(&ab)) = (body.block_of.get(s.index()), body.block_of.get(a.index()))
    else {
        return false;
    };
    let succs = |x: usize| crate::util::successors(body, x);
    // The allocation after the start in its own block comes first.
    if sb == ab && a.0 > s.0 {
        return true;
    }
    let mut seen = vec![false; body.blocks.len()];
    let mut stack = succs(sb.index());
    while let Some(x) = stack.pop() {
        if x >= seen.len() || seen[x] {
            continue;
        }
        seen[x] = true;
        // Entering the allocation's block runs the allocation (when it is
        // the start's block, the allocation comes first there).
        if x == ab.index() {
            continue;
        }
        if x == sb.index() {
            return false;
        }
        stack.extend(succs(x));
    }
    true
}
