//! What each call-site target contributes to its caller's summary, kept
//! across the fixed point's recomputations ([`super::summary`]).
//!
//! The fixed point recomputes a method whenever one of its callees'
//! summaries changes (77,921 computations for h2's 21,781 methods), and a
//! recomputation used to translate every callee's waits and locks into the
//! caller's terms again, although usually only one callee had changed.
//! A translation depends only on the call site's operands and on the
//! callee's summary, so it is kept per (caller, target position) together
//! with the version of the callee's summary it was made from, and made
//! again only when that version moved on. Replaying the kept lists in the
//! original order (sites, then targets, then the callee's locks) gives the
//! same first-wins choices as translating afresh.

use std::cmp::Ordering;

use lockstep_ir::AccessPath;
use rustc_hash::FxHashMap;

use super::locks::LockKey;
use super::summary::Hop;

/// A callee summary's version: changes whenever the summary does.
pub type Version = u64;

/// The translations of one callee's summary at one call site.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Contribution {
    /// The callee's waits in the caller's terms that the caller's summary
    /// keeps ([`PathIds`]): the first [`super::summary::MAX_WAITS`] in path
    /// order (only those can be among the first of the caller's), sorted.
    pub waits: Option<Vec<u32>>,
    /// The callee's locks that can be named in the caller (not fresh
    /// there), in the caller's terms, with where they are acquired (in the
    /// callee's order). Made only for calls whose results the caller returns.
    pub locks: Option<Vec<(LockKey, Hop)>>,
}

/// Slots indexed by (method, position), each valid for one version of
/// what it was computed from. A method keeps only the slots it asked for
/// (sorted by position): most call-site targets never need one.
#[derive(Debug, Default)]
pub struct VersionedSlots<T> {
    methods: Vec<MethodSlots<T>>,
}

/// One method's slots: the positions apart from the slots, so that the
/// search for a position reads a dense array of integers (searching the
/// slots themselves missed the cache at every step on JDK-sized inputs).
#[derive(Debug)]
struct MethodSlots<T> {
    positions: Vec<u32>,
    slots: Vec<(Version, T)>,
}

impl<T> Default for MethodSlots<T> {
    fn default() -> Self {
        MethodSlots {
            positions: Vec::new(),
            slots: Vec::new(),
        }
    }
}

impl<T: Default> VersionedSlots<T> {
    /// Room for `methods` methods.
    pub fn new(methods: usize) -> Self {
        VersionedSlots {
            methods: (0..methods).map(|_| MethodSlots::default()).collect(),
        }
    }

    /// The slot of (`method`, `pos`) for `version`: emptied first when it
    /// was made from another version. `None` when `method` is out of range.
    pub fn slot(&mut self, method: usize, pos: u32, version: Version) -> Option<&mut T> {
        let m = self.methods.get_mut(method)?;
        let at = match m.positions.binary_search(&pos) {
            Ok(at) => at,
            Err(at) => {
                m.positions.insert(at, pos);
                m.slots.insert(at, (version, T::default()));
                at
            }
        };
        let (made_from, value) = m.slots.get_mut(at)?;
        if *made_from != version {
            *made_from = version;
            *value = T::default();
        }
        Some(value)
    }
}

/// What the fixed point keeps between recomputations: the translations,
/// and the interned paths their waits are made of.
#[derive(Debug, Default)]
pub struct Kept {
    pub slots: VersionedSlots<Contribution>,
    pub paths: PathIds,
}

/// Paths interned: one id per distinct path. The waits of a method's call
/// sites are mostly the same few paths; with ids they are told apart
/// without walking them (walking kept paths, scattered in memory, cost
/// more than translating them afresh).
#[derive(Debug, Default)]
pub struct PathIds {
    ids: FxHashMap<AccessPath, u32>,
    paths: Vec<AccessPath>,
}

impl PathIds {
    pub fn intern(&mut self, path: &AccessPath) -> u32 {
        if let Some(&id) = self.ids.get(path) {
            return id;
        }
        let id = self.paths.len() as u32;
        self.paths.push(path.clone());
        self.ids.insert(path.clone(), id);
        id
    }

    /// The path of an id this interner made.
    pub fn path(&self, id: u32) -> &AccessPath {
        &self.paths[id as usize]
    }

    /// Path order of two ids.
    pub fn order(&self, a: u32, b: u32) -> Ordering {
        if a == b {
            Ordering::Equal
        } else {
            self.path(a).cmp(self.path(b))
        }
    }
}

/// Adds `item` to `smallest`, the sorted distinct `bound` smallest items
/// seen so far in the order `order`: what the first `bound` items of a
/// sorted set of every item would be, without keeping the others. An item
/// already kept is found by equality alone.
pub fn keep_smallest<T: Copy + Eq>(
    smallest: &mut Vec<T>,
    item: T,
    bound: usize,
    order: impl Fn(T, T) -> Ordering,
) {
    if smallest.contains(&item) {
        return;
    }
    if smallest.len() >= bound
        && smallest
            .last()
            .is_some_and(|&last| order(item, last) != Ordering::Less)
    {
        return;
    }
    let at = smallest.partition_point(|&x| order(x, item) == Ordering::Less);
    smallest.insert(at, item);
    smallest.truncate(bound);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// A small deterministic generator (xorshift).
    struct Rng(u64);

    impl Rng {
        fn next(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    /// Against a map that remembers, per slot, the version and what was
    /// computed: a slot read at its version returns what was stored at
    /// that version, and starts empty at a new version.
    #[test]
    fn slots_agree_with_a_naive_map() {
        for seed in 1..40u64 {
            let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
            let methods = 1 + rng.next(6) as usize;
            let mut slots: VersionedSlots<Vec<u64>> = VersionedSlots::new(methods);
            let mut naive: HashMap<(usize, u32), (Version, Vec<u64>)> = HashMap::new();
            for step in 0..300u64 {
                let m = rng.next(methods as u64 + 1) as usize;
                let pos = rng.next(6) as u32;
                let version = rng.next(3);
                let got = slots.slot(m, pos, version);
                if m >= methods {
                    assert!(got.is_none(), "out of range ({m}, {pos})");
                    continue;
                }
                let got = got.expect("in range");
                let expected = match naive.get(&(m, pos)) {
                    Some((v, value)) if *v == version => value.clone(),
                    _ => Vec::new(),
                };
                assert_eq!(*got, expected, "seed {seed} step {step}");
                got.push(step);
                let mut stored = expected;
                stored.push(step);
                naive.insert((m, pos), (version, stored));
            }
        }
    }

    #[test]
    fn interned_paths_keep_their_order() {
        let mut ids = PathIds::default();
        let a = AccessPath::This;
        let b = AccessPath::Param(0, None);
        let (ia, ib) = (ids.intern(&a), ids.intern(&b));
        assert_eq!(ids.intern(&a), ia, "one id per path");
        assert_eq!(ids.path(ib), &b);
        assert_eq!(ids.order(ia, ib), a.cmp(&b));
        assert_eq!(ids.order(ib, ia), b.cmp(&a));
        assert_eq!(ids.order(ia, ia), Ordering::Equal);
    }

    /// Against a sorted set of every item: the same first items.
    #[test]
    fn smallest_items_agree_with_a_sorted_set() {
        for seed in 1..200u64 {
            let mut rng = Rng(seed.wrapping_mul(0x2545_f491_4f6c_dd1d) | 1);
            let bound = 1 + rng.next(5) as usize;
            let mut smallest: Vec<u64> = Vec::new();
            let mut all = std::collections::BTreeSet::new();
            for _ in 0..rng.next(40) {
                let item = rng.next(30);
                keep_smallest(&mut smallest, item, bound, |a, b| a.cmp(&b));
                all.insert(item);
                let expected: Vec<u64> = all.iter().take(bound).copied().collect();
                assert_eq!(smallest, expected, "seed {seed}");
            }
        }
    }
}
