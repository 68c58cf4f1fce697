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
use std::collections::hash_map::Entry;

use crate::accesses::{Kind, Target};
use crate::analysis::{
    target_name, Access, AccessSite, Analysis, Buckets, ExplainedPair, Explanation, Race, Verdict,
};
use crate::locks::common_lock;
use crate::threads::Root;

/// One finding: the field and the location of the racing write.
type RaceKey = (Target, String, SourceKey);

/// A finding's racing access within one bucket: indices into the bucket,
/// and its partners by source-key rank.
struct LocalRace {
    first: usize,
    second: usize,
    roots: (u32, u32),
    /// Its partners, in rank order: a range of [`LocalRaces::partners`].
    partners: std::ops::Range<usize>,
}

/// A bucket's racing accesses in source-key rank order, with every
/// partner (its index and the roots) in one list, grouped by racing access.
struct LocalRaces {
    races: Vec<LocalRace>,
    partners: Vec<Partnered>,
}

/// A partner in a bucket: its index and the pair of roots.
type Partnered = (usize, (u32, u32));

/// A racing access's first pair: its index, its partner's, the roots.
type RaceHead = (usize, usize, (u32, u32));

/// The pair search of one bucket.
struct PairSearch<'x> {
    list: &'x [Access],
    /// Per access: its rank in reporting order ([`order_ranks`]).
    order: &'x [u32],
    /// Per access: the rank of its source key.
    rank: &'x [u32],
    /// Per access: its fact class.
    class: &'x [u32],
    /// Per pair of fact classes: the verdict and, for a race, the pair
    /// of roots under which it runs concurrently.
    verdicts: PairTable<ClassVerdict>,
    /// Accesses in at least one racing pair.
    racy: Vec<bool>,
    /// Per source-key rank of a racing access: its first racing pair
    /// (its index, its partner's, the roots).
    heads: Vec<Option<RaceHead>>,
    /// Per (racing access, partner) source-key ranks: the partner's index
    /// and the roots (a write wins over a read at one location).
    partners: PairTable<(usize, (u32, u32))>,
}

impl PairSearch<'_> {
    /// Folds the race of access `fi` (reported at) with `si`: one finding
    /// per field and racing access (the write); every access it races
    /// with is listed, once per source location (the first pair found,
    /// or the first with a write).
    fn add_race(&mut self, fi: usize, si: usize, rr: (u32, u32)) {
        let (rf, rs) = (self.rank[fi], self.rank[si]);
        if let Some(head) = self.heads.get_mut(rf as usize) {
            head.get_or_insert((fi, si, rr));
        }
        let slot = self.partners.get_or_insert_with(rf, rs, || (si, rr));
        if self.list[slot.0].kind == Kind::Read && self.list[si].kind == Kind::Write {
            *slot = (si, rr);
        }
    }

    /// The racing accesses by rank, each with its partners by rank
    /// ([`split_by_first`]), and the partner table's dense slots for the
    /// next bucket.
    fn local_races(&mut self) -> (LocalRaces, Vec<u32>) {
        let partners = std::mem::replace(&mut self.partners, PairTable::new(0));
        let (sorted, slots) = partners.into_sorted_and_slots();
        (split_by_first(&self.heads, sorted), slots)
    }
}

/// Splits partners sorted by (racing rank, partner rank) among the racing
/// accesses by rank (`heads`: per rank, its first racing pair): one walk
/// over the ranks, no lookup per partner. Partners of a rank without a
/// head are dropped.
fn split_by_first(heads: &[Option<RaceHead>], sorted: Vec<Keyed<Partnered>>) -> LocalRaces {
    let mut races = Vec::new();
    let mut at = 0;
    for (r, head) in heads.iter().enumerate() {
        // Ranks below `r` without a head left partners before `at`.
        while sorted
            .get(at)
            .is_some_and(|((rf, _), _)| (*rf as usize) < r)
        {
            at += 1;
        }
        let start = at;
        while sorted.get(at).is_some_and(|((rf, _), _)| *rf as usize == r) {
            at += 1;
        }
        if let Some(&(first, second, roots)) = head.as_ref() {
            races.push(LocalRace {
                first,
                second,
                roots,
                partners: start..at,
            });
        }
    }
    let partners = sorted.into_iter().map(|(_, p)| p).collect();
    LocalRaces { races, partners }
}

/// Values per pair of small integers (fact classes, source-key ranks) of
/// one bucket: a dense index when the integers are few enough, else a
/// map (the pair loop looks one up per pair of accesses).
struct PairTable<V> {
    width: usize,
    /// Per (a, b): an index into `values` (`u32::MAX`: none yet).
    dense: Vec<u32>,
    sparse: FxHashMap<(u32, u32), u32>,
    values: Vec<Keyed<V>>,
}

/// A value of a [`PairTable`] with its pair.
type Keyed<V> = ((u32, u32), V);

/// Integers up to which a [`PairTable`] is dense (4 Mi slots).
const MAX_DENSE_WIDTH: usize = 2048;

impl<V> PairTable<V> {
    /// A table for pairs of integers below `width`.
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
        self.empty_slots();
        self.dense
    }

    /// Every value by pair ([`Self::into_sorted`]) and the emptied dense
    /// slots.
    fn into_sorted_and_slots(mut self) -> (Vec<Keyed<V>>, Vec<u32>) {
        self.empty_slots();
        let slots = std::mem::take(&mut self.dense);
        (self.into_sorted(), slots)
    }

    fn empty_slots(&mut self) {
        let width = self.width;
        if self.dense.is_empty() {
            return;
        }
        for &((a, b), _) in &self.values {
            if (a as usize) < width && (b as usize) < width {
                if let Some(x) = self.dense.get_mut(a as usize * width + b as usize) {
                    *x = u32::MAX;
                }
            }
        }
    }

    /// Every value, by pair: placed by its first integer (a counting
    /// sort, linear in the values and the width), then each run of one
    /// first integer sorted by the second (the runs are short).
    fn into_sorted(self) -> Vec<Keyed<V>> {
        let firsts = self.values.iter().map(|((a, _), _)| *a as usize);
        let mut start = vec![0usize; firsts.clone().max().map_or(0, |m| m + 1) + 1];
        for a in firsts {
            start[a + 1] += 1;
        }
        for i in 1..start.len() {
            start[i] += start[i - 1];
        }
        let mut next = start.clone();
        let mut placed: Vec<Option<Keyed<V>>> = Vec::new();
        placed.resize_with(self.values.len(), || None);
        for value in self.values {
            let at = &mut next[(value.0).0 as usize];
            placed[*at] = Some(value);
            *at += 1;
        }
        let mut sorted: Vec<Keyed<V>> = placed.into_iter().flatten().collect();
        for run in start.windows(2) {
            sorted[run[0]..run[1]].sort_unstable_by_key(|(k, _)| k.1);
        }
        sorted
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
struct Found {
    races: BTreeMap<RaceKey, Race>,
    racy: FxHashSet<(MethodId, StmtId)>,
    /// Per finding, its partners by source location ((method, line):
    /// the class is the method's), with the full key to sort them by.
    partners: BTreeMap<RaceKey, PartnersBySource>,
    /// The dense slots of the pair tables (verdicts, partners), empty
    /// between buckets, reused by the next ([`PairTable::with_slots`]).
    slots: [Vec<u32>; 2],
}

/// A finding's partners by (method, line), each with its full source key,
/// in the order first found. The lookup runs once per racing pair of
/// source locations in every bucket, so the index holds a few bytes per
/// location (a position and whether that partner writes) rather than the
/// partner itself: the table stays small enough to stay in cache.
#[derive(Default)]
struct PartnersBySource {
    /// Per (method, line): the partner's position in `list`, and whether
    /// it writes.
    index: FxHashMap<(MethodId, u32), (u32, bool)>,
    list: Vec<(SourceKey, Partner)>,
}

impl PartnersBySource {
    /// Adds `second` (at source location `key`) with its roots, unless
    /// its location has a partner already: then a write replaces a read.
    fn add(&mut self, key: &SourceKey, second: &Access, rr: (u32, u32)) {
        let writes = second.kind == Kind::Write;
        match self.index.entry((key.1, key.2)) {
            Entry::Vacant(v) => {
                v.insert((self.list.len() as u32, writes));
                self.list.push((key.clone(), (second.clone(), rr)));
            }
            Entry::Occupied(mut o) => {
                let (at, known_writes) = o.get_mut();
                if writes && !*known_writes {
                    *known_writes = true;
                    if let Some(slot) = self.list.get_mut(*at as usize) {
                        slot.1 = (second.clone(), rr);
                    }
                }
            }
        }
    }
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
        self.intent.locked = crate::intent::LockedMemory::of(buckets);
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
                seen_shapes.clear();
                shapes_of = Some(target);
            }
            let explaining = explanation
                .as_ref()
                .is_some_and(|e| target_name(target).as_deref() == Some(&e.field));
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
            let ex = if explaining {
                explanation.as_deref_mut()
            } else {
                None
            };
            let keys = self.bucket_pairs(&mut found, &roots, (target, obj), list, ex);
            seen_shapes.insert(shape, keys);
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
    fn bucket_pairs(
        &mut self,
        found: &mut Found,
        roots: &[Root],
        (target, obj): (&Target, &Option<ObjectId>),
        list: &[Access],
        mut explanation: Option<&mut Explanation>,
    ) -> Vec<RaceKey> {
        // Source keys once per access, ranked so that the pair loop
        // compares integers in source-key order (the keys hold class
        // names: comparing them per pair dominated big programs).
        let keys: Vec<SourceKey> = list.iter().map(|a| self.source_key(a)).collect();
        let rank = ranks(&keys);
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
            rank: &rank,
            class: &class,
            verdicts: PairTable::with_slots(width(&class), std::mem::take(&mut found.slots[0])),
            racy: vec![false; list.len()],
            heads: vec![None; width(&rank)],
            partners: PairTable::with_slots(width(&rank), std::mem::take(&mut found.slots[1])),
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
        let (local, partner_slots) = search.local_races();
        found.slots = [search.verdicts.into_slots(), partner_slots];
        found.racy.extend(
            list.iter()
                .zip(racy)
                .filter(|(_, r)| *r)
                .map(|(a, _)| (a.method, a.stmt)),
        );
        self.record_races(found, (target, obj), list, &keys, local)
    }

    /// Judges the pair of accesses `i` and `j` (`i <= j`) of a bucket and
    /// folds a race into the bucket's findings.
    fn judge_pair(
        &mut self,
        search: &mut PairSearch<'_>,
        (target, obj, roots): (&Target, Option<ObjectId>, &[Root]),
        (i, j): (usize, usize),
        explanation: Option<&mut Explanation>,
    ) {
        let (a, b) = (&search.list[i], &search.list[j]);
        let (ca, cb) = (search.class[i], search.class[j]);
        let (verdict, concurrent_pair) = &*search.verdicts.get_or_insert_with(ca, cb, || {
            let v = self.verdict((target, obj), roots, a, b);
            let rr = match v {
                Verdict::Race => concurrent(self.open, roots, a, b),
                _ => None,
            };
            (v, rr)
        });
        let a_first = first_of(a, b, search.order[i], search.order[j]);
        if let Some(ex) = explanation {
            let (x, y) = if a_first { (a, b) } else { (b, a) };
            ex.pairs.insert(ExplainedPair {
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
                );
                let next = ids.len() as u32;
                *ids.entry(facts).or_insert(next)
            })
            .collect()
    }

    /// Folds one bucket's races into the findings so far; returns the
    /// findings it added to.
    fn record_races(
        &self,
        found: &mut Found,
        (target, obj): (&Target, &Option<ObjectId>),
        list: &[Access],
        keys: &[SourceKey],
        local: LocalRaces,
    ) -> Vec<RaceKey> {
        let name = target_name(target).unwrap_or_default();
        let mut touched = Vec::with_capacity(local.races.len());
        for lr in local.races {
            let key = (target.clone(), name.clone(), keys[lr.first].clone());
            let entry = found.races.entry(key.clone()).or_insert_with(|| Race {
                target: target.clone(),
                first: list[lr.first].clone(),
                second: list[lr.second].clone(),
                roots: lr.roots,
                objects: Vec::new(),
                guard: None,
                others: Vec::new(),
            });
            if let Some(o) = obj {
                if !entry.objects.contains(o) && entry.objects.len() < 8 {
                    entry.objects.push(*o);
                }
            }
            let global = found.partners.entry(key.clone()).or_default();
            for &(si, rr) in local.partners.get(lr.partners).unwrap_or_default() {
                global.add(&keys[si], &list[si], rr);
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
        } else if concurrent(self.open, roots, a, b).is_none() {
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

    fn source_key(&self, a: &Access) -> SourceKey {
        let class = self
            .program
            .class(self.program.method(a.method).class)
            .name
            .clone();
        let line = crate::util::line_of(self.program, a.method, Some(a.stmt))
            .map(|l| l << 1)
            .unwrap_or(a.stmt.0 << 1 | 1);
        (class, a.method, line)
    }
}

/// One more than the largest of `ids` (0 for none).
fn width(ids: &[u32]) -> usize {
    ids.iter().max().map_or(0, |&m| m as usize + 1)
}

/// The rank of each key among the distinct keys, in key order.
fn ranks(keys: &[SourceKey]) -> Vec<u32> {
    let mut sorted: Vec<&SourceKey> = keys.iter().collect();
    sorted.sort();
    sorted.dedup();
    keys.iter()
        .map(|k| sorted.binary_search(&k).map(|r| r as u32).unwrap_or(0))
        .collect()
}

/// A pair of roots under which the two accesses may run at the same
/// time: two roots not ordered by start/join, or one that runs more than
/// once. In open programs every entry may run beside every other.
fn concurrent(open: bool, roots: &[Root], a: &Access, b: &Access) -> Option<(u32, u32)> {
    crate::threads::concurrent_roots(open, roots, (&a.roots, &a.ordered), (&b.roots, &b.ordered))
}

/// A bucket whose shape an earlier bucket of its target had: its object
/// joins the findings that bucket led to (the rest is the same).
fn add_object(found: &mut Found, keys: &[RaceKey], obj: &Option<ObjectId>) {
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
    mut partners: BTreeMap<RaceKey, PartnersBySource>,
) -> Vec<Race> {
    let mut out = Vec::with_capacity(races.len());
    for (key, mut race) in races {
        let mut by_source: Vec<(SourceKey, Partner)> =
            partners.remove(&key).map(|m| m.list).unwrap_or_default();
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
    let mut sites: BTreeSet<(MethodId, StmtId, Kind)> = BTreeSet::new();
    for ((target, _), list) in buckets {
        if target_name(target).as_deref() == Some(&ex.field) {
            sites.extend(list.iter().map(|a| (a.method, a.stmt, a.kind)));
        }
    }
    let judged: BTreeSet<(AccessSite, AccessSite)> = ex
        .pairs
        .iter()
        .flat_map(|p| [(p.first, p.second), (p.second, p.first)])
        .collect();
    let sites: Vec<_> = sites.into_iter().collect();
    for (i, a) in sites.iter().enumerate() {
        for b in &sites[i..] {
            if a.2 == Kind::Read && b.2 == Kind::Read {
                continue;
            }
            if !judged.contains(&(*a, *b)) {
                ex.pairs.insert(ExplainedPair {
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
        let (_, slots) = first.into_sorted_and_slots();
        assert!(slots.iter().all(|&x| x == u32::MAX));
        // A narrower table on the same slots sees none of the old pairs.
        let mut second = PairTable::with_slots(4, slots);
        assert_eq!(*second.get_or_insert_with(1, 2, || 10), 10);
        assert_eq!(*second.get_or_insert_with(1, 2, || 11), 10);
        let slots = second.into_slots();
        assert!(slots.iter().all(|&x| x == u32::MAX));
    }

    /// The partners of each racing access, as the map the split replaced
    /// built them: a map by rank of the heads, each partner looked up by
    /// its racing rank.
    fn split_naive(
        heads: &[Option<RaceHead>],
        sorted: &[Keyed<Partnered>],
    ) -> Vec<(RaceHead, Vec<Partnered>)> {
        let mut local: BTreeMap<u32, (RaceHead, Vec<Partnered>)> = heads
            .iter()
            .enumerate()
            .filter_map(|(r, h)| Some((r as u32, ((*h)?, Vec::new()))))
            .collect();
        for &((rf, _), p) in sorted {
            if let Some(race) = local.get_mut(&rf) {
                race.1.push(p);
            }
        }
        local.into_values().collect()
    }

    #[test]
    fn splitting_partners_by_rank_agrees_with_a_map() {
        let mut x: u32 = 11;
        let mut next = || {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            x >> 8
        };
        for round in 0..50 {
            let width = 1 + (next() % 30) as usize;
            // Some ranks race (have a head), some have partners without
            // one (dropped), some have neither.
            let heads: Vec<Option<RaceHead>> = (0..width)
                .map(|r| (next() % 3 != 0).then_some((r, next() as usize % 40, (round, r as u32))))
                .collect();
            let mut table = PairTable::new(if round % 2 == 0 {
                width
            } else {
                MAX_DENSE_WIDTH + 1
            });
            for _ in 0..next() % 200 {
                let (a, b) = (next() % width as u32, next() % width as u32);
                let v = next();
                table.get_or_insert_with(a, b, || (v as usize, (v, a)));
            }
            let sorted = table.into_sorted();
            let want = split_naive(&heads, &sorted);
            let got = split_by_first(&heads, sorted);
            let got: Vec<(RaceHead, Vec<Partnered>)> = got
                .races
                .iter()
                .map(|r| {
                    let ps = got.partners[r.partners.clone()].to_vec();
                    ((r.first, r.second, r.roots), ps)
                })
                .collect();
            assert_eq!(got, want, "round {round}");
        }
    }

    #[test]
    fn pairs_beyond_the_width_do_not_alias() {
        // (0, 5) would land on (1, 1) in a dense table of width 4.
        assert_eq!(fill(4, &[(1, 1), (0, 5)]), vec![((0, 5), 1), ((1, 1), 0)]);
    }
}
