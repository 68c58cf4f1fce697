//! The racing pairs (paper 002 Alg. 4, per field and abstract object):
//! within each bucket, two accesses race when at least one writes, no
//! lock both hold excludes the other, they do not both hold the
//! `@GuardedBy` lock, some pair of roots reaching them may run at the
//! same time, and when only an assumed outside caller makes them
//! concurrent, the memory or a method shows concurrent intent
//! ([`crate::intent`]). Racing pairs are grouped per racing access (the write,
//! or the first of two writes), with every partner once per source line.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use lockstep_ir::StmtId;
use lockstep_pointsto::ObjectId;
use lockstep_program::{ClassId, MethodId, Program};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::accesses::{Kind, Target};
use crate::analysis::{
    target_name, Access, AccessSite, Analysis, Buckets, ExplainedPair, Explanation, Memory, Race,
    Verdict,
};
use crate::locks::common_lock;
use crate::queue_handoff::{handed_over, Handed};
use crate::threads::Root;

/// One finding: the field and the location of the racing write.
type RaceKey = (Target, String, SourceKey);

/// A racing access's first pair: its index, its partner's, the roots.
type RaceHead = (usize, usize, (u32, u32));

/// The pair search of one bucket.
struct PairSearch<'x, 'b> {
    list: &'b [Access],
    /// Per access: its rank in reporting order ([`order_ranks`]).
    order: &'x [u32],
    /// Per access: the id of its source location in the target
    /// ([`TargetPartners`]).
    loc: &'x [u32],
    /// Per access: its fact class.
    class: &'x [u32],
    /// Per pair of fact classes: the verdict and, for a race, the pair
    /// of roots under which it runs concurrently.
    verdicts: PairTable<ClassVerdict>,
    /// Accesses in at least one racing pair.
    racy: Vec<bool>,
    /// The target's partners, and this bucket's racing accesses.
    target: &'x mut TargetPartners<'b>,
}

impl PairSearch<'_, '_> {
    /// Folds the race of access `fi` (reported at) with `si`: one finding
    /// per field and racing access (the write); every access it races
    /// with is listed, once per source location (the first pair found,
    /// or the first with a write, over the target's buckets in order).
    fn add_race(&mut self, fi: usize, si: usize, rr: (u32, u32)) {
        let (lf, ls) = (self.loc[fi], self.loc[si]);
        let t = &mut *self.target;
        if let Some(head) = t.heads.get_mut(lf as usize) {
            if head.is_none() {
                *head = Some((fi, si, rr));
                t.headed.push(lf);
            }
        }
        let second = &self.list[si];
        let slot = t.partners.get_or_insert_with(lf, ls, || (second, rr));
        if slot.0.kind == Kind::Read && second.kind == Kind::Write {
            *slot = (second, rr);
        }
    }
}

/// The racing partners of the findings of one target, gathered over its
/// buckets (buckets come sorted by target, so a finding's partners are
/// complete when its target's last bucket is done): per (racing location,
/// partner location) the first partner found, or the first that writes.
/// Locations are ids in the order first seen; a bucket's pairs go
/// straight into the table, with no per-bucket partner list to sort and
/// merge into the findings (hsqldb: 14.7 M partner additions for 0.73 M
/// partners).
#[derive(Default)]
struct TargetPartners<'b> {
    /// Per (method, line): the location's id.
    ids: FxHashMap<(MethodId, u32), u32>,
    /// Per id: the location's source key.
    keys: Vec<SourceKey>,
    partners: PartnerTable<(&'b Access, (u32, u32))>,
    /// Per location id: the current bucket's first racing pair reported
    /// there.
    heads: Vec<Option<RaceHead>>,
    /// The ids with a head, in the order found (emptied per bucket).
    headed: Vec<u32>,
}

impl<'b> TargetPartners<'b> {
    /// The id of each of `locations` (new ids for new locations, whose
    /// source key `key` gives), with the heads sized for them.
    fn locate(
        &mut self,
        locations: impl Iterator<Item = (MethodId, u32)>,
        key: impl Fn((MethodId, u32)) -> SourceKey,
    ) -> Vec<u32> {
        let ids: Vec<u32> = locations
            .map(|at| {
                let next = self.keys.len() as u32;
                *self.ids.entry(at).or_insert_with(|| {
                    self.keys.push(key(at));
                    next
                })
            })
            .collect();
        self.heads.resize(self.keys.len(), None);
        ids
    }

    /// The bucket's heads by location id, emptied for the next bucket.
    fn take_heads(&mut self) -> Vec<(u32, RaceHead)> {
        let heads = &mut self.heads;
        self.headed
            .drain(..)
            .filter_map(|l| Some((l, heads.get_mut(l as usize)?.take()?)))
            .collect()
    }

    /// Hands each finding of the target (`target`, named `name`) its
    /// partners, and empties the table for the next target.
    fn flush(
        &mut self,
        (target, name): (&Target, &str),
        into: &mut BTreeMap<RaceKey, Vec<(SourceKey, Partner)>>,
    ) {
        let taken = std::mem::take(self);
        let values = taken.partners.into_sorted();
        for run in values.chunk_by(|x, y| (x.0).0 == (y.0).0) {
            let Some(&((first, _), _)) = run.first() else {
                continue;
            };
            let Some(key) = taken.keys.get(first as usize) else {
                continue;
            };
            let list = into
                .entry((target.clone(), name.to_string(), key.clone()))
                .or_default();
            for &((_, partner), (access, rr)) in run {
                if let Some(at) = taken.keys.get(partner as usize) {
                    list.push((at.clone(), (access.clone(), rr)));
                }
            }
        }
    }
}

/// Values per pair of small integers (fact classes) of one bucket: a
/// dense index when the integers are few enough, else a map (the pair
/// loop looks one up per pair of accesses).
struct PairTable<V> {
    width: usize,
    /// Per (a, b): an index into `values` (`u32::MAX`: none yet).
    dense: Vec<u32>,
    sparse: FxHashMap<(u32, u32), u32>,
    values: Vec<Keyed<V>>,
}

/// A value of a [`PairTable`] or [`PartnerTable`] with its pair.
type Keyed<V> = ((u32, u32), V);

/// Integers up to which a [`PairTable`] is dense (4 Mi slots).
const MAX_DENSE_WIDTH: usize = 2048;

impl<V> PairTable<V> {
    /// A table for pairs of integers below `width`.
    #[cfg(test)]
    fn new(width: usize) -> PairTable<V> {
        PairTable::with_slots(width, Vec::new())
    }

    /// A table for pairs of integers below `width` on the dense slots of
    /// an earlier table ([`Self::into_slots`]: every slot empty), so that
    /// the buckets of a program fill and fault in the slots once, not
    /// once per bucket.
    fn with_slots(width: usize, mut slots: Vec<u32>) -> PairTable<V> {
        let dense = if width <= MAX_DENSE_WIDTH {
            if slots.len() < width * width {
                slots.resize(width * width, u32::MAX);
            }
            slots
        } else {
            Vec::new()
        };
        PairTable {
            width,
            dense,
            sparse: FxHashMap::default(),
            values: Vec::new(),
        }
    }

    /// The value of `(a, b)`, made by `make` the first time.
    fn get_or_insert_with(&mut self, a: u32, b: u32, make: impl FnOnce() -> V) -> &mut V {
        let fits = (a as usize) < self.width && (b as usize) < self.width;
        let dense_at =
            (fits && !self.dense.is_empty()).then(|| a as usize * self.width + b as usize);
        let known = match dense_at {
            Some(k) => self.dense.get(k).copied().filter(|&v| v != u32::MAX),
            None => self.sparse.get(&(a, b)).copied(),
        };
        let index = match known {
            Some(v) => v as usize,
            None => {
                let v = self.values.len();
                self.values.push(((a, b), make()));
                match dense_at {
                    Some(k) => {
                        if let Some(x) = self.dense.get_mut(k) {
                            *x = v as u32;
                        }
                    }
                    None => {
                        self.sparse.insert((a, b), v as u32);
                    }
                }
                v
            }
        };
        &mut self.values[index].1
    }

    /// The dense slots, every one emptied (only the values' slots were
    /// used), for [`Self::with_slots`].
    fn into_slots(mut self) -> Vec<u32> {
        let width = self.width;
        if !self.dense.is_empty() {
            for &((a, b), _) in &self.values {
                if (a as usize) < width && (b as usize) < width {
                    if let Some(x) = self.dense.get_mut(a as usize * width + b as usize) {
                        *x = u32::MAX;
                    }
                }
            }
        }
        self.dense
    }

    /// Every value, by pair.
    #[cfg(test)]
    fn into_sorted(self) -> Vec<Keyed<V>> {
        let mut values = self.values;
        values.sort_unstable_by_key(|(k, _)| *k);
        values
    }
}

/// Slots of a [`PartnerTable`]'s rows, at most (64 MiB); past them, new
/// pairs go to its map.
const MAX_ROW_SLOTS: usize = 16 << 20;

/// Values per pair of location ids of one target, whose number grows as
/// its buckets are searched: a row of slots per first id, grown to the
/// largest second id it meets (the pairs of a target are dense: the
/// accesses of its big buckets race with each other), and a map once the
/// rows hold [`MAX_ROW_SLOTS`] slots.
struct PartnerTable<V> {
    /// Per first id: indices into `values` by second id (`u32::MAX`:
    /// none yet).
    rows: Vec<Vec<u32>>,
    /// Slots in `rows`.
    slots: usize,
    /// Slots the rows may hold ([`MAX_ROW_SLOTS`]; small in tests).
    budget: usize,
    /// Pairs outside the rows. Once one is here the rows stop growing, so
    /// a pair is in its row exactly when the row is long enough.
    sparse: FxHashMap<(u32, u32), u32>,
    values: Vec<Keyed<V>>,
}

impl<V> Default for PartnerTable<V> {
    fn default() -> Self {
        PartnerTable {
            rows: Vec::new(),
            slots: 0,
            budget: MAX_ROW_SLOTS,
            sparse: FxHashMap::default(),
            values: Vec::new(),
        }
    }
}

impl<V> PartnerTable<V> {
    /// The value of `(a, b)`, made by `make` the first time.
    fn get_or_insert_with(&mut self, a: u32, b: u32, make: impl FnOnce() -> V) -> &mut V {
        let (ai, bi) = (a as usize, b as usize);
        let in_row = self.rows.get(ai).is_some_and(|row| bi < row.len()) || self.grow(ai, bi);
        let slot = if in_row {
            self.rows.get_mut(ai).and_then(|row| row.get_mut(bi))
        } else {
            None
        };
        let known = match &slot {
            Some(x) => Some(**x).filter(|&v| v != u32::MAX),
            None => self.sparse.get(&(a, b)).copied(),
        };
        let index = match known {
            Some(v) => v as usize,
            None => {
                let v = self.values.len();
                match slot {
                    Some(x) => *x = v as u32,
                    None => {
                        self.sparse.insert((a, b), v as u32);
                    }
                }
                self.values.push(((a, b), make()));
                v
            }
        };
        &mut self.values[index].1
    }

    /// Grows row `a` to hold `b` (doubling), unless the rows are full or a
    /// pair went to the map already; whether it holds `b` now.
    fn grow(&mut self, a: usize, b: usize) -> bool {
        if !self.sparse.is_empty() {
            return false;
        }
        let old = self.rows.get(a).map_or(0, Vec::len);
        let new = (b + 1).max(2 * old).max(16);
        if self.slots + (new - old) > self.budget {
            return false;
        }
        if self.rows.len() <= a {
            self.rows.resize_with(a + 1, Vec::new);
        }
        if let Some(row) = self.rows.get_mut(a) {
            row.resize(new, u32::MAX);
            self.slots += new - old;
            return true;
        }
        false
    }

    /// Every value, by pair.
    fn into_sorted(self) -> Vec<Keyed<V>> {
        let mut values = self.values;
        values.sort_unstable_by_key(|(k, _)| *k);
        values
    }
}

/// An access racing with a finding's write, with the pair of roots.
type Partner = (Access, (u32, u32));

/// A source location for deduplication: class, method, line (or statement
/// when there is no line table).
type SourceKey = (Arc<str>, MethodId, u32);

/// The pair search's results.
pub(crate) struct Pairs {
    pub races: Vec<Race>,
    pub racy: FxHashSet<(MethodId, StmtId)>,
}

/// Accumulated across buckets.
#[derive(Default)]
struct Found<'b> {
    races: BTreeMap<RaceKey, Race>,
    racy: FxHashSet<(MethodId, StmtId)>,
    /// Per finding, its partners with their source keys (one per
    /// location), handed over when its target is done.
    partners: BTreeMap<RaceKey, Vec<(SourceKey, Partner)>>,
    /// The partners of the current target's findings.
    target: TargetPartners<'b>,
    /// The dense slots of the verdict tables, empty between buckets,
    /// reused by the next ([`PairTable::with_slots`]).
    slots: Vec<u32>,
}

/// A pair of fact classes' verdict, with the concurrent roots of a race.
type ClassVerdict = (Verdict, Option<(u32, u32)>);

/// What decides a bucket's pairs besides its target: per access its
/// node, statement, kind, guard, holder and the identities of its
/// interned lock, root and ordering sets, and the roots that run once on
/// the bucket's object. Buckets of one target with equal shapes (one
/// field of many objects, touched by the same statements) find the same
/// races; only the object differs.
#[derive(PartialEq, Eq, Hash)]
struct BucketShape {
    own: Option<Vec<u32>>,
    accesses: Vec<AccessShape>,
}

/// One access of a [`BucketShape`] (the sets by address: equal addresses
/// are equal sets, and every set lives as long as the buckets).
type AccessShape = (
    u32,
    MethodId,
    StmtId,
    Kind,
    bool,
    Option<(Arc<str>, Arc<str>)>,
    [usize; 3],
    Option<Handed>,
);

/// The addresses of an access's interned lock, root and ordering sets
/// (equal addresses are equal sets).
fn set_addresses(a: &Access) -> [usize; 3] {
    [
        a.locks.as_ptr() as usize,
        a.roots.as_ptr() as usize,
        a.ordered.as_ptr() as usize,
    ]
}

impl BucketShape {
    fn of(own: Option<&[u32]>, list: &[Access]) -> BucketShape {
        BucketShape {
            own: own.map(<[u32]>::to_vec),
            accesses: list
                .iter()
                .map(|a| {
                    (
                        a.node,
                        a.method,
                        a.stmt,
                        a.kind,
                        a.guarded,
                        a.holder.clone(),
                        set_addresses(a),
                        a.handed,
                    )
                })
                .collect(),
        }
    }
}

impl Analysis<'_> {
    /// Every racing pair of every bucket.
    pub(crate) fn pairs(
        &mut self,
        buckets: &Buckets,
        roots: &[Root],
        mut explanation: Option<&mut Explanation>,
    ) -> Pairs {
        let mut found = Found::default();
        self.concurrency.reset();
        self.intent.locked = crate::intent::LockedMemory::of(buckets, &self.intent.owned_locked);
        // A repeated start does not race with itself on an object each of
        // its threads has to itself.
        let per_instance = std::mem::take(&mut self.per_instance);
        // The findings each bucket shape of the current target led to
        // (buckets come sorted by target).
        // Keyed also by whether the object is locked somewhere: the intent
        // rule judges an array or container by its object.
        let mut seen_shapes: FxHashMap<(BucketShape, bool), Vec<RaceKey>> = FxHashMap::default();
        let mut shapes_of: Option<&Target> = None;
        for ((target, obj), list) in buckets {
            if shapes_of != Some(target) {
                if let Some(done) = shapes_of {
                    flush_target(&mut found, done);
                }
                seen_shapes.clear();
                shapes_of = Some(target);
            }
            let explaining = explanation.as_ref().is_some_and(|e| e.covers(target, list));
            let shape = (
                BucketShape::of(per_instance.own(*obj), list),
                self.intent.locked.object_locked(target, *obj),
            );
            if !explaining {
                if let Some(keys) = seen_shapes.get(&shape) {
                    add_object(&mut found, keys, obj);
                    continue;
                }
            }
            let roots = per_instance.roots_for(roots, *obj);
            self.concurrency
                .suspend(matches!(roots, std::borrow::Cow::Owned(_)));
            let ex = if explaining {
                explanation.as_deref_mut()
            } else {
                None
            };
            let keys = self.bucket_pairs(&mut found, &roots, (target, obj), list, ex);
            seen_shapes.insert(shape, keys);
        }
        if let Some(done) = shapes_of {
            flush_target(&mut found, done);
        }
        self.per_instance = per_instance;
        if let Some(ex) = explanation {
            explain_unpaired(ex, buckets);
        }
        let mut races = finish(found.races, found.partners);
        self.attach_guards(&mut races);
        Pairs {
            races,
            racy: found.racy,
        }
    }

    /// The pairs of one bucket.
    fn bucket_pairs<'b>(
        &mut self,
        found: &mut Found<'b>,
        roots: &[Root],
        (target, obj): (&Target, &Option<ObjectId>),
        list: &'b [Access],
        mut explanation: Option<&mut Explanation>,
    ) -> Vec<RaceKey> {
        // Source locations once per access, as ids of the target, so that
        // the pair loop looks partners up by integers (the keys hold class
        // names: comparing them per pair dominated big programs).
        let loc = found
            .target
            .locate(list.iter().map(|a| self.location(a)), |at| {
                self.source_key_at(at)
            });
        // Which access of a pair is reported first, as an integer per access.
        let order = order_ranks(self.program, list);
        // Accesses with equal facts get equal verdicts: judge each pair
        // of fact classes once.
        let method_locks: Vec<bool> = list
            .iter()
            .map(|a| self.method_takes_lock(a.method))
            .collect();
        let class = self.fact_classes(list, &method_locks);
        let mut search = PairSearch {
            list,
            order: &order,
            loc: &loc,
            class: &class,
            verdicts: PairTable::with_slots(width(&class), std::mem::take(&mut found.slots)),
            racy: vec![false; list.len()],
            target: &mut found.target,
        };
        // Every pair (i, j), i <= j, but two reads, in (i, j) order: a
        // read is paired with the writes after it only.
        let writes: Vec<usize> = (0..list.len())
            .filter(|&j| list[j].kind == Kind::Write)
            .collect();
        for i in 0..list.len() {
            if list[i].kind == Kind::Write {
                for j in i..list.len() {
                    self.judge_pair(
                        &mut search,
                        (target, *obj, roots),
                        (i, j),
                        explanation.as_deref_mut(),
                    );
                }
            } else {
                for &j in &writes[writes.partition_point(|&w| w < i)..] {
                    self.judge_pair(
                        &mut search,
                        (target, *obj, roots),
                        (i, j),
                        explanation.as_deref_mut(),
                    );
                }
            }
        }
        let racy = std::mem::take(&mut search.racy);
        found.slots = search.verdicts.into_slots();
        found.racy.extend(
            list.iter()
                .zip(racy)
                .filter(|(_, r)| *r)
                .map(|(a, _)| (a.method, a.stmt)),
        );
        let heads = found.target.take_heads();
        self.record_races(found, (target, obj), list, heads)
    }

    /// Judges the pair of accesses `i` and `j` (`i <= j`) of a bucket and
    /// folds a race into the bucket's findings.
    fn judge_pair(
        &mut self,
        search: &mut PairSearch<'_, '_>,
        (target, obj, roots): (&Target, Option<ObjectId>, &[Root]),
        (i, j): (usize, usize),
        explanation: Option<&mut Explanation>,
    ) {
        let (a, b) = (&search.list[i], &search.list[j]);
        let (ca, cb) = (search.class[i], search.class[j]);
        let (verdict, concurrent_pair) = &*search.verdicts.get_or_insert_with(ca, cb, || {
            let v = self.verdict((target, obj), roots, a, b);
            let rr = match v {
                Verdict::Race => self.shown_roots(roots, a, b),
                _ => None,
            };
            (v, rr)
        });
        let a_first = first_of(a, b, search.order[i], search.order[j]);
        let memory = explanation.as_ref().and_then(|ex| {
            ex.memory(target, a.holder.as_ref())
                .or_else(|| ex.memory(target, b.holder.as_ref()))
        });
        if let (Some(ex), Some(memory)) = (explanation, memory) {
            let (x, y) = if a_first { (a, b) } else { (b, a) };
            ex.pairs.insert(ExplainedPair {
                memory,
                first: (x.method, x.stmt, x.kind),
                second: (y.method, y.stmt, y.kind),
                verdict: verdict.clone(),
            });
        }
        if *verdict == Verdict::NoIntent {
            self.intent.set_aside.insert((a.method, a.stmt));
            self.intent.set_aside.insert((b.method, b.stmt));
        }
        if *verdict != Verdict::Race {
            return;
        }
        search.racy[i] = true;
        search.racy[j] = true;
        let Some(rr) = *concurrent_pair else {
            return;
        };
        let (fi, si, rr) = if a_first {
            (i, j, rr)
        } else {
            (j, i, (rr.1, rr.0))
        };
        search.add_race(fi, si, rr);
    }

    /// The fact class of each access of a bucket: accesses in one class
    /// have the same verdict with any other access (kind, locks, guard,
    /// roots, start/join orderings, and for the intent rule of
    /// harness-only pairs the holder, the class of the accessing method
    /// and whether that method takes a lock, `method_locks`).
    fn fact_classes(&self, list: &[Access], method_locks: &[bool]) -> Vec<u32> {
        // The lock, root and ordering sets by address: they are interned
        // (equal sets are one allocation), and root sets of the library
        // harness hold thousands of roots, too many to hash per access.
        type Facts<'x> = (
            Kind,
            [usize; 3],
            bool,
            Option<&'x (Arc<str>, Arc<str>)>,
            ClassId,
            bool,
            Option<MethodId>,
            Option<Handed>,
        );
        let mut ids: FxHashMap<Facts<'_>, u32> = FxHashMap::default();
        list.iter()
            .zip(method_locks)
            .map(|(a, &locks)| {
                let facts: Facts<'_> = (
                    a.kind,
                    set_addresses(a),
                    a.guarded,
                    a.holder.as_ref(),
                    self.program.method(a.method).class,
                    locks,
                    a.once,
                    a.handed,
                );
                let next = ids.len() as u32;
                *ids.entry(facts).or_insert(next)
            })
            .collect()
    }

    /// Folds one bucket's racing accesses (`heads`: by location id, the
    /// first racing pair reported there) into the findings so far; returns
    /// the findings it added to. Their partners are in the target's table.
    fn record_races(
        &self,
        found: &mut Found<'_>,
        (target, obj): (&Target, &Option<ObjectId>),
        list: &[Access],
        heads: Vec<(u32, RaceHead)>,
    ) -> Vec<RaceKey> {
        let name = target_name(target).unwrap_or_default();
        let mut touched = Vec::with_capacity(heads.len());
        for (at, (first, second, roots)) in heads {
            let Some(source) = found.target.keys.get(at as usize) else {
                continue;
            };
            let key = (target.clone(), name.clone(), source.clone());
            let entry = found.races.entry(key.clone()).or_insert_with(|| Race {
                target: target.clone(),
                first: list[first].clone(),
                second: list[second].clone(),
                roots,
                objects: Vec::new(),
                guard: None,
                others: Vec::new(),
            });
            if let Some(o) = obj {
                if !entry.objects.contains(o) && entry.objects.len() < 8 {
                    entry.objects.push(*o);
                }
            }
            touched.push(key);
        }
        touched
    }

    /// Whether two accesses of one bucket (not both reads) race, and if
    /// not, why.
    fn verdict(
        &mut self,
        (target, obj): (&Target, Option<ObjectId>),
        roots: &[Root],
        a: &Access,
        b: &Access,
    ) -> Verdict {
        if let Some(l) = common_lock(&a.locks, &b.locks) {
            Verdict::CommonLock(self.resolver.describe(l))
        } else if a.guarded && b.guarded {
            Verdict::GuardedBy
        } else if a.once.is_some() && a.once == b.once {
            Verdict::OnceGate
        } else if handed_over(a.handed, b.handed) {
            Verdict::HandedOver
        } else if self
            .concurrency
            .concurrent(
                self.open,
                roots,
                (&a.roots, &a.ordered),
                (&b.roots, &b.ordered),
            )
            .is_none()
        {
            Verdict::NotConcurrent
        } else if self.no_intent((target, obj), roots, a, b) {
            Verdict::NoIntent
        } else {
            Verdict::Race
        }
    }

    /// Records each race's `@GuardedBy` annotation.
    fn attach_guards(&self, races: &mut [Race]) {
        for r in races {
            if let Target::Field { class, name } | Target::Static { class, name } = &r.target {
                if let Some(c) = self.program.class_by_name(class) {
                    r.guard = self
                        .program
                        .class(c)
                        .file
                        .fields
                        .iter()
                        .find(|f| f.name == *name)
                        .and_then(|f| crate::annotations::guarded_by(&f.annotations));
                }
            }
        }
    }

    /// An access's source location: its method and line (or statement
    /// when there is no line table), the key without the class.
    fn location(&self, a: &Access) -> (MethodId, u32) {
        let line = crate::util::line_of(self.program, a.method, Some(a.stmt))
            .map(|l| l << 1)
            .unwrap_or(a.stmt.0 << 1 | 1);
        (a.method, line)
    }

    /// The source key of a location ([`Self::location`]).
    fn source_key_at(&self, (method, line): (MethodId, u32)) -> SourceKey {
        let class = self
            .program
            .class(self.program.method(method).class)
            .name
            .clone();
        (class, method, line)
    }
}

/// One more than the largest of `ids` (0 for none).
fn width(ids: &[u32]) -> usize {
    ids.iter().max().map_or(0, |&m| m as usize + 1)
}

/// Hands the findings of `target` (whose buckets are done) their partners.
fn flush_target(found: &mut Found<'_>, target: &Target) {
    let name = target_name(target).unwrap_or_default();
    found.target.flush((target, &name), &mut found.partners);
}

/// A bucket whose shape an earlier bucket of its target had: its object
/// joins the findings that bucket led to (the rest is the same).
fn add_object(found: &mut Found<'_>, keys: &[RaceKey], obj: &Option<ObjectId>) {
    let Some(o) = obj else { return };
    for key in keys {
        if let Some(race) = found.races.get_mut(key) {
            if !race.objects.contains(o) && race.objects.len() < 8 {
                race.objects.push(*o);
            }
        }
    }
}

/// Each race's partner list: writes first, then source order; the first
/// becomes the race's `second`.
fn finish(
    races: BTreeMap<RaceKey, Race>,
    mut partners: BTreeMap<RaceKey, Vec<(SourceKey, Partner)>>,
) -> Vec<Race> {
    let mut out = Vec::with_capacity(races.len());
    for (key, mut race) in races {
        let mut by_source: Vec<(SourceKey, Partner)> = partners.remove(&key).unwrap_or_default();
        by_source.sort_unstable_by(|x, y| x.0.cmp(&y.0));
        let mut list: Vec<Partner> = by_source.into_iter().map(|(_, p)| p).collect();
        list.sort_by_key(|(a, _)| a.kind != Kind::Write);
        if let Some((a, rr)) = list.first() {
            race.second = a.clone();
            race.roots = *rr;
        }
        race.others = list.into_iter().skip(1).map(|(a, rr)| (a, rr.1)).collect();
        out.push(race);
    }
    out
}

/// `--explain`: pairs of accesses of the field that never share a bucket
/// touch no common object.
fn explain_unpaired(ex: &mut Explanation, buckets: &Buckets) {
    let mut sites: BTreeSet<(Memory, AccessSite)> = BTreeSet::new();
    for ((target, _), list) in buckets {
        for a in list {
            if let Some(memory) = ex.memory(target, a.holder.as_ref()) {
                sites.insert((memory, (a.method, a.stmt, a.kind)));
            }
        }
    }
    let judged: BTreeSet<(AccessSite, AccessSite)> = ex
        .pairs
        .iter()
        .flat_map(|p| [(p.first, p.second), (p.second, p.first)])
        .collect();
    let sites: Vec<_> = sites.into_iter().collect();
    for (i, (memory, a)) in sites.iter().enumerate() {
        for (other, b) in &sites[i..] {
            if memory != other || (a.2 == Kind::Read && b.2 == Kind::Read) {
                continue;
            }
            if !judged.contains(&(*a, *b)) {
                ex.pairs.insert(ExplainedPair {
                    memory: *memory,
                    first: *a,
                    second: *b,
                    verdict: Verdict::NoCommonObject,
                });
            }
        }
    }
}

/// Each access's position in the order that decides which access of a
/// pair a finding is reported at: (class, line, method, statement),
/// ranked once per bucket.
fn order_ranks(program: &Program, list: &[Access]) -> Vec<u32> {
    type OrderKey = (Arc<str>, Option<u32>, MethodId, StmtId);
    let keys: Vec<OrderKey> = list
        .iter()
        .map(|x| {
            let class = program.class(program.method(x.method).class).name.clone();
            let line = crate::util::line_of(program, x.method, Some(x.stmt));
            (class, line, x.method, x.stmt)
        })
        .collect();
    let mut sorted: Vec<&OrderKey> = keys.iter().collect();
    sorted.sort();
    sorted.dedup();
    keys.iter()
        .map(|k| sorted.binary_search(&k).map(|r| r as u32).unwrap_or(0))
        .collect()
}

/// Is `a` the access a finding about the pair is reported at: the write,
/// or of two accesses of one kind the one that comes first in
/// (class, line, method, statement) order (`oa`, `ob`: their ranks)?
fn first_of(a: &Access, b: &Access, oa: u32, ob: u32) -> bool {
    match (a.kind, b.kind) {
        (Kind::Write, Kind::Read) => true,
        (Kind::Read, Kind::Write) => false,
        _ => oa <= ob,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fills a table with the pairs of `ops` (the value: the first op
    /// index that made it) and returns its sorted contents.
    fn fill(width: usize, ops: &[(u32, u32)]) -> Vec<((u32, u32), usize)> {
        let mut t = PairTable::new(width);
        for (k, &(a, b)) in ops.iter().enumerate() {
            let v = *t.get_or_insert_with(a, b, || k);
            assert!(v <= k);
        }
        t.into_sorted()
    }

    #[test]
    fn dense_and_sparse_pair_tables_agree() {
        let ops = [(3, 1), (0, 0), (3, 1), (1, 3), (2, 2), (0, 0), (3, 3)];
        let dense = fill(4, &ops);
        let sparse = fill(MAX_DENSE_WIDTH + 1, &ops);
        assert_eq!(dense, sparse);
        assert_eq!(
            dense,
            vec![
                ((0, 0), 1),
                ((1, 3), 3),
                ((2, 2), 4),
                ((3, 1), 0),
                ((3, 3), 6)
            ]
        );
    }

    #[test]
    fn values_come_sorted_by_pair() {
        // Pseudo-random pairs, many repeated, some firsts never used.
        let mut x: u32 = 7;
        let ops: Vec<(u32, u32)> = (0..500)
            .map(|_| {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                ((x >> 8) % 37 * 2, (x >> 20) % 41)
            })
            .collect();
        let mut want = ops.clone();
        want.sort_unstable();
        want.dedup();
        for width in [80, MAX_DENSE_WIDTH + 1] {
            let got: Vec<(u32, u32)> = fill(width, &ops).into_iter().map(|(k, _)| k).collect();
            assert_eq!(got, want);
        }
    }

    #[test]
    fn reused_slots_start_empty() {
        let mut first = PairTable::new(8);
        for (k, &(a, b)) in [(1, 2), (7, 7), (0, 3)].iter().enumerate() {
            first.get_or_insert_with(a, b, || k);
        }
        let slots = first.into_slots();
        assert!(slots.iter().all(|&x| x == u32::MAX));
        // A narrower table on the same slots sees none of the old pairs.
        let mut second = PairTable::with_slots(4, slots);
        assert_eq!(*second.get_or_insert_with(1, 2, || 10), 10);
        assert_eq!(*second.get_or_insert_with(1, 2, || 11), 10);
        let slots = second.into_slots();
        assert!(slots.iter().all(|&x| x == u32::MAX));
    }

    /// Fills a partner table with budget `budget` from `ops` (the value:
    /// the first op index that made it, and the last op that reached it)
    /// and checks it against a map.
    fn check_partner_table(budget: usize, ops: &[(u32, u32)]) {
        let mut table = PartnerTable {
            budget,
            ..PartnerTable::default()
        };
        let mut naive: BTreeMap<(u32, u32), (usize, usize)> = BTreeMap::new();
        for (k, &(a, b)) in ops.iter().enumerate() {
            let v = table.get_or_insert_with(a, b, || (k, k));
            v.1 = k;
            let w = naive.entry((a, b)).or_insert((k, k));
            w.1 = k;
            assert_eq!(*v, *w, "op {k} ({a}, {b}), budget {budget}");
        }
        assert!(table.slots <= budget);
        let got = table.into_sorted();
        let want: Vec<((u32, u32), (usize, usize))> = naive.into_iter().collect();
        assert_eq!(got, want, "budget {budget}");
    }

    #[test]
    fn partner_tables_agree_with_a_map() {
        let mut x: u32 = 5;
        let mut next = || {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            x >> 8
        };
        for round in 0..60 {
            // Ids grow as buckets are searched: later ops reach further.
            let width = 1 + next() % 300;
            let ops: Vec<(u32, u32)> = (0..next() % 3000)
                .map(|k| {
                    let reach = 1 + width * (k + 1) / 3000;
                    (next() % reach, next() % reach)
                })
                .collect();
            // No room (all in the map), some room (rows, then the map
            // once full), and room for everything.
            for budget in [0, 16 + (round as usize * 97) % 4000, MAX_ROW_SLOTS] {
                check_partner_table(budget, &ops);
            }
        }
    }

    #[test]
    fn pairs_beyond_the_width_do_not_alias() {
        // (0, 5) would land on (1, 1) in a dense table of width 4.
        assert_eq!(fill(4, &[(1, 1), (0, 5)]), vec![((0, 5), 1), ((1, 1), 0)]);
    }
}
