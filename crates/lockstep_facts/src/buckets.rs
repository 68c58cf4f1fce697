//! The accesses other threads can see, per context, bucketed by what they
//! touch: `(target, abstract object)` → accesses, each with the locks it
//! holds, the roots that reach it, the thread starts it is ordered with
//! and whether it holds its field's `@GuardedBy` lock. Accesses of one
//! statement with equal facts in several contexts are kept once.

use std::collections::BTreeSet;
use std::sync::Arc;

use lockstep_ir::{Body, StmtId};
use lockstep_pointsto::{MethodContext, ObjectId, SiteKey};
use lockstep_program::MethodId;
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::hash_map::Entry;

use crate::accesses::{self, AccessStmt, BodyAccesses, FieldTable, Kind, Target};
use crate::analysis::{Access, Analysis, Buckets, Explanation};
use crate::locks::{union, LockSet};
use crate::queue_handoff::Handed;
use crate::reach::Ordering;

/// What the bucketing needs from the earlier steps.
pub(crate) struct Reached<'x> {
    /// Locks held on entry to each node (`None`: not reached).
    pub entry: &'x [Option<LockSet>],
    /// The roots reaching each node.
    pub roots: &'x [Vec<u32>],
    pub orderings: &'x [Ordering],
    /// Per abstract object: does it escape its thread?
    pub shared: &'x [bool],
}

/// An access's facts, for deduplication across contexts, with its lock,
/// root and ordering sets by address: every set is interned (equal sets
/// share one allocation, alive as long as the bucketing), so a key hashes
/// in constant time whatever the sets' sizes (a harness root set holds
/// thousands of roots). The node, when the access is on a side of a queue
/// hand-off: its sides are per object and per context.
type Key = (MethodId, StmtId, Kind, [usize; 3], bool, Option<u32>);

/// A bucket while bucketing: its target by interned index.
type BucketId = (u32, Option<ObjectId>);

/// Interns access targets (hashing a target hashes its names: once per
/// access statement, not once per object it touches).
#[derive(Default)]
struct Targets {
    ids: FxHashMap<Target, u32>,
    list: Vec<Target>,
}

impl Targets {
    fn intern(&mut self, t: &Target) -> u32 {
        if let Some(&id) = self.ids.get(t) {
            return id;
        }
        let id = self.list.len() as u32;
        self.ids.insert(t.clone(), id);
        self.list.push(t.clone());
        id
    }
}

/// Interns sets of root indices.
#[derive(Default)]
struct RootSets(FxHashMap<Vec<u32>, Arc<[u32]>>);

impl RootSets {
    fn intern(&mut self, v: &[u32]) -> Arc<[u32]> {
        if let Some(s) = self.0.get(v) {
            return s.clone();
        }
        let s: Arc<[u32]> = Arc::from(v);
        self.0.insert(v.to_vec(), s.clone());
        s
    }
}

/// The bucketing's working state.
struct Bucketing<'x> {
    reached: Reached<'x>,
    fields: FieldTable,
    bodies: FxHashMap<MethodId, Arc<BodyAccesses>>,
    root_sets: RootSets,
    targets: Targets,
    /// The buckets in the order first touched (sorted at the end).
    buckets: FxHashMap<BucketId, Vec<Access>>,
    /// Per access's facts: the buckets it is in already.
    seen: FxHashMap<Key, SeenIn>,
    /// The JDK's merged internal objects (one per type for everything JDK
    /// code allocates) are not the application's memory.
    library_object: Vec<bool>,
    thread_local: BTreeSet<(MethodId, StmtId, Kind)>,
    /// Accesses whose object the running thread owns in some context.
    owned: BTreeSet<(MethodId, StmtId, Kind)>,
}

impl Analysis<'_> {
    /// Every access of application code reached from a root, bucketed.
    pub(crate) fn buckets(
        &mut self,
        reached: Reached<'_>,
        mut explanation: Option<&mut Explanation>,
    ) -> Buckets {
        let library_object: Vec<bool> = self
            .pt
            .objects()
            .map(|o| {
                self.pt
                    .object(o)
                    .is_some_and(|i| matches!(i.site, SiteKey::Library(_)))
            })
            .collect();
        let mut b = Bucketing {
            reached,
            fields: FieldTable::default(),
            bodies: FxHashMap::default(),
            root_sets: RootSets::default(),
            targets: Targets::default(),
            buckets: FxHashMap::default(),
            seen: FxHashMap::default(),
            library_object,
            thread_local: BTreeSet::new(),
            owned: BTreeSet::new(),
        };
        self.intent.owned_locked.clear();
        for node in 0..self.graph.len() as u32 {
            self.bucket_node(&mut b, node, explanation.as_deref_mut());
        }
        if let Some(ex) = explanation {
            explain_thread_local(ex, &b);
        }
        let targets = &b.targets.list;
        std::mem::take(&mut b.buckets)
            .into_iter()
            .map(|((t, obj), list)| ((targets[t as usize].clone(), obj), list))
            .collect()
    }

    /// The accesses of one node (an application method in one context).
    fn bucket_node(
        &mut self,
        b: &mut Bucketing<'_>,
        node: u32,
        explanation: Option<&mut Explanation>,
    ) {
        let mc = self.graph.nodes[node as usize];
        if b.reached.roots[node as usize].is_empty() {
            return;
        }
        let data = self.program.method(mc.method);
        if !self.program.is_application(data.class) {
            return;
        }
        let Some(body) = self.program.body(mc.method) else {
            return;
        };
        let collected = match b.bodies.get(&mc.method) {
            Some(c) => c.clone(),
            None => {
                let c = Arc::new(accesses::collect(
                    self.program,
                    mc.method,
                    &body,
                    &mut b.fields,
                ));
                b.bodies.insert(mc.method, c.clone());
                c
            }
        };
        if let Some(ex) = explanation {
            for (s, t, k, why) in &collected.1 {
                if let Some(memory) = ex.memory(t, None) {
                    ex.exempt
                        .insert((memory, mc.method, *s, *k, why.describe().to_string()));
                }
            }
        }
        if collected.0.is_empty() {
            return;
        }
        let entry_locks = b.reached.entry[node as usize]
            .clone()
            .unwrap_or_else(|| Arc::from(Vec::new()));
        let roots_here = b.root_sets.intern(&b.reached.roots[node as usize]);
        let here = Here {
            node,
            mc,
            body: &body,
            entry_locks: &entry_locks,
            roots: &roots_here,
        };
        for a in &collected.0 {
            self.bucket_access(b, &here, a);
        }
    }

    /// One access statement: the shared objects it touches and its facts.
    fn bucket_access(&mut self, b: &mut Bucketing<'_>, here: &Here<'_>, a: &AccessStmt) {
        let mc = here.mc;
        let objects = self.touched_objects(b, mc, a);
        if objects.is_empty() {
            b.thread_local.insert((mc.method, a.stmt, a.kind));
            return;
        }
        let body_locks = self.locks_of(mc.method, here.body);
        if self.owned.at(here.node, a.stmt) {
            b.owned.insert((mc.method, a.stmt, a.kind));
            // Locking an object the thread still owns races with nothing,
            // but still shows that the memory is meant to be locked
            // ([`crate::intent`]).
            if !here.entry_locks.is_empty() || !body_locks.at(a.stmt).is_empty() {
                self.intent
                    .owned_locked
                    .push((a.target.clone(), a.holder.clone()));
            }
            return;
        }
        let local = body_locks.at(a.stmt).to_vec();
        let mut resolved = if local.is_empty() {
            Vec::new()
        } else {
            self.resolver
                .resolve(mc.method, mc.context, here.body, &local)
        };
        resolved.extend(self.of_accessed_locks(here.node, here.body, a, &local, &mut b.fields));
        let held = self.intern(union(here.entry_locks, &resolved));
        let object_ids: Vec<ObjectId> = objects.iter().flatten().copied().collect();
        let guarded = match &a.guard {
            Some(g) => self.holds_guard(a, g, here.body, &local, &held, &object_ids),
            None => false,
        };
        let ordered = crate::reach::ordered_roots(b.reached.orderings, here.node, a.stmt);
        let ordered = b.root_sets.intern(&ordered);
        let once = self.once_gate_of(here.body, mc.method, a);
        let target = b.targets.intern(&a.target);
        let sets = [
            held.as_ptr() as usize,
            here.roots.as_ptr() as usize,
            ordered.as_ptr() as usize,
        ];
        let handed = self.handed_sides(here, a, &objects);
        let key: Key = (
            mc.method,
            a.stmt,
            a.kind,
            sets,
            guarded,
            handed.is_some().then_some(here.node),
        );
        for obj in b.unseen(key, target, objects) {
            b.buckets.entry((target, obj)).or_default().push(Access {
                node: here.node,
                method: mc.method,
                stmt: a.stmt,
                kind: a.kind,
                locks: held.clone(),
                roots: here.roots.clone(),
                ordered: ordered.clone(),
                guarded,
                holder: a.holder.clone(),
                once,
                handed: handed.as_ref().and_then(|h| side_of(h, obj)),
            });
        }
    }

    /// Per object `a` touches, the side of its queue hand-off `a` is on
    /// (`None` when it is on no side for any object).
    fn handed_sides(
        &self,
        here: &Here<'_>,
        a: &AccessStmt,
        objects: &[Option<ObjectId>],
    ) -> Option<Vec<(ObjectId, Handed)>> {
        if self.queue_handoffs.is_empty() {
            return None;
        }
        let sides: Vec<(ObjectId, Handed)> = objects
            .iter()
            .flatten()
            .filter_map(|&o| {
                self.handed_side(here.node, here.body, a.stmt, a.base, o)
                    .map(|h| (o, h))
            })
            .collect();
        (!sides.is_empty()).then_some(sides)
    }

    /// The once-gate `a` runs past, when it protects what `a` touches:
    /// a static gate anything, an instance gate the receiver's fields.
    fn once_gate_of(&self, body: &Body, m: MethodId, a: &AccessStmt) -> Option<MethodId> {
        let (id, gate) = self.gates.gate_of(m, a.stmt)?;
        let on_receiver = a
            .base
            .is_some_and(|v| crate::once_gate::is_receiver(body, v))
            && !matches!(a.target, Target::Static { .. });
        (gate.flag.is_static || on_receiver).then_some(id)
    }

    /// The escaped objects an access touches (`None` for a static field);
    /// empty when it touches only thread-local objects.
    fn touched_objects(
        &self,
        b: &Bucketing<'_>,
        mc: MethodContext,
        a: &AccessStmt,
    ) -> Vec<Option<ObjectId>> {
        match (&a.target, a.base) {
            (Target::Static { .. }, _) => vec![None],
            (_, Some(base)) => {
                let set = self.pt.var_in(mc.method, mc.context, base);
                let mut v: Vec<Option<ObjectId>> = Vec::new();
                for o in set.iter() {
                    if !b.reached.shared.get(o.0 as usize).copied().unwrap_or(false)
                        || b.library_object[o.0 as usize]
                    {
                        continue;
                    }
                    if matches!(a.target, Target::Container) && !self.container_call_on(o, a) {
                        continue;
                    }
                    v.push(Some(o));
                }
                v
            }
            _ => Vec::new(),
        }
    }
}

/// The side of `obj`'s hand-off in `sides` ([`Analysis::handed_sides`]).
fn side_of(sides: &[(ObjectId, Handed)], obj: Option<ObjectId>) -> Option<Handed> {
    let obj = obj?;
    sides.iter().find(|(o, _)| *o == obj).map(|(_, h)| *h)
}

impl Bucketing<'_> {
    /// The objects of `objects` (distinct: one points-to set) whose
    /// bucket of `target` holds no access with these facts yet; they are
    /// noted as holding one now.
    fn unseen(
        &mut self,
        key: Key,
        target: u32,
        objects: Vec<Option<ObjectId>>,
    ) -> Vec<Option<ObjectId>> {
        match self.seen.entry(key) {
            Entry::Vacant(v) => {
                v.insert(SeenIn::Few(objects.iter().map(|&o| (target, o)).collect()));
                objects
            }
            Entry::Occupied(mut known) => objects
                .into_iter()
                .filter(|&o| known.get_mut().insert((target, o)))
                .collect(),
        }
    }
}

/// The buckets one access's facts are in already. The same facts recur
/// only when a statement runs in several contexts with equal lock, root
/// and ordering sets, so most keys see one statement's objects once: a
/// list, which becomes a set when the key recurs with many objects (one
/// set of (key, bucket) pairs for every access was the largest part of
/// the bucketing).
#[derive(Debug)]
enum SeenIn {
    Few(Vec<BucketId>),
    Many(FxHashSet<BucketId>),
}

impl Default for SeenIn {
    fn default() -> SeenIn {
        SeenIn::Few(Vec::new())
    }
}

/// Buckets a [`SeenIn`] searches as a list before it becomes a set.
const FEW_BUCKETS: usize = 16;

impl SeenIn {
    /// Adds `bucket`; was it new?
    fn insert(&mut self, bucket: BucketId) -> bool {
        match self {
            SeenIn::Few(list) if list.len() <= FEW_BUCKETS => {
                if list.contains(&bucket) {
                    return false;
                }
                list.push(bucket);
                true
            }
            SeenIn::Few(list) => {
                let mut set: FxHashSet<BucketId> = list.drain(..).collect();
                let new = set.insert(bucket);
                *self = SeenIn::Many(set);
                new
            }
            SeenIn::Many(set) => set.insert(bucket),
        }
    }
}

/// The node being bucketed.
struct Here<'x> {
    node: u32,
    mc: MethodContext,
    body: &'x Body,
    entry_locks: &'x LockSet,
    roots: &'x Arc<[u32]>,
}

/// `--explain`: the accesses of the field that touch only thread-local objects.
fn explain_thread_local(ex: &mut Explanation, b: &Bucketing<'_>) {
    let local = b
        .thread_local
        .iter()
        .map(|x| (x, "the object is not shared with another thread"));
    let owned = b.owned.iter().map(|x| {
        (
            x,
            "the running thread owns the object (made it, not yet published)",
        )
    });
    for (&(m, s, k), why) in local.chain(owned) {
        let memory = b.bodies.get(&m).and_then(|c| {
            c.0.iter()
                .find(|a| a.stmt == s)
                .and_then(|a| ex.memory(&a.target, a.holder.as_ref()))
        });
        if let Some(memory) = memory {
            ex.exempt.insert((memory, m, s, k, why.into()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seen_buckets_are_new_once_across_the_list_to_set_switch() {
        let mut seen = SeenIn::default();
        let buckets: Vec<BucketId> = (0..3 * FEW_BUCKETS as u32)
            .map(|i| (i, (i % 2 == 0).then_some(ObjectId(i % 5))))
            .collect();
        for &b in &buckets {
            assert!(seen.insert(b), "first time: {b:?}");
            assert!(!seen.insert(b), "second time: {b:?}");
        }
        assert!(matches!(seen, SeenIn::Many(_)));
        assert!(buckets.iter().all(|&b| !seen.insert(b)));
        assert!(seen.insert((u32::MAX, None)));
    }
}
