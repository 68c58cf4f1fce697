//! A map kept as a sorted vector, shared copy-on-write: the dataflow
//! states of the per-method analysis are cloned at every block edge and
//! most blocks (no call, no `synchronized`) leave them as they are, so a
//! clone shares the entries and only a change copies them (a block's
//! pair set holds up to a thousand pairs). One contiguous allocation
//! beats a tree of nodes for the small sets of locks.

use std::rc::Rc;

/// A map from `K` to `V`, sorted by key, each key at most once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SortedMap<K, V> {
    entries: Rc<Vec<(K, V)>>,
}

impl<K, V> Default for SortedMap<K, V> {
    fn default() -> Self {
        SortedMap {
            entries: Rc::new(Vec::new()),
        }
    }
}

impl<K: Ord + Copy, V: Clone> SortedMap<K, V> {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn get(&self, key: &K) -> Option<&V> {
        self.entries
            .binary_search_by(|(k, _)| k.cmp(key))
            .ok()
            .and_then(|i| self.entries.get(i))
            .map(|(_, v)| v)
    }

    pub fn contains_key(&self, key: &K) -> bool {
        self.get(key).is_some()
    }

    /// Insert `key` with the value `make` builds, unless the key is present
    /// (the existing value stays: first wins). True if inserted.
    pub fn insert_if_absent(&mut self, key: K, make: impl FnOnce() -> V) -> bool {
        match self.entries.binary_search_by(|(k, _)| k.cmp(&key)) {
            Ok(_) => false,
            Err(i) => {
                Rc::make_mut(&mut self.entries).insert(i, (key, make()));
                true
            }
        }
    }

    /// Insert every entry of `fresh` whose key is absent, as if by
    /// [`SortedMap::insert_if_absent`] in the order given (the first value
    /// of a key wins), but in one merge instead of a shift per entry.
    pub fn insert_all_absent(&mut self, mut fresh: Vec<(K, V)>) {
        if fresh.is_empty() {
            return;
        }
        // Stable: of equal keys the earlier stays first, and `dedup` keeps it.
        fresh.sort_by_key(|(k, _)| *k);
        fresh.dedup_by_key(|(k, _)| *k);
        self.merge(fresh.into_iter());
    }

    /// Insert `fresh`, sorted by key with distinct keys none of which is
    /// present: one merge, no sort.
    pub fn insert_sorted_new(&mut self, fresh: Vec<(K, V)>) {
        if fresh.is_empty() {
            return;
        }
        debug_assert!(
            fresh.windows(2).all(|w| w[0].0 < w[1].0),
            "sorted, distinct"
        );
        self.merge(fresh.into_iter());
    }

    /// Of `keys` (sorted, distinct), those not present, in order: a search
    /// per key when they are few, else one pass over both sorted lists.
    pub fn absent_keys(&self, keys: impl ExactSizeIterator<Item = K>) -> Vec<K> {
        if keys.len().saturating_mul(8) < self.entries.len() {
            return keys.filter(|k| !self.contains_key(k)).collect();
        }
        let mut mine = self.entries.iter().map(|(k, _)| k).peekable();
        keys.filter(|key| {
            while mine.next_if(|k| *k < key).is_some() {}
            mine.peek() != Some(&key)
        })
        .collect()
    }

    /// Replace the entries by their sorted union with `theirs` (sorted,
    /// distinct keys); on a key in both, the existing value stays.
    fn merge(&mut self, theirs: impl Iterator<Item = (K, V)>) {
        let mut merged = Vec::with_capacity(self.entries.len() + theirs.size_hint().0);
        let mut mine = self.entries.iter().peekable();
        let mut theirs = theirs.peekable();
        loop {
            match (mine.peek(), theirs.peek()) {
                (Some((a, _)), Some((b, _))) => {
                    if a < b {
                        merged.extend(mine.next().cloned());
                    } else if b < a {
                        merged.extend(theirs.next());
                    } else {
                        merged.extend(mine.next().cloned());
                        theirs.next();
                    }
                }
                (Some(_), None) => merged.extend(mine.next().cloned()),
                (None, Some(_)) => merged.extend(theirs.next()),
                (None, None) => break,
            }
        }
        self.entries = Rc::new(merged);
    }

    /// Keep the entries whose key satisfies `keep`; the entries are copied
    /// (when shared) only if one goes.
    pub fn retain(&mut self, mut keep: impl FnMut(&K) -> bool) {
        if self.entries.iter().all(|(k, _)| keep(k)) {
            return;
        }
        Rc::make_mut(&mut self.entries).retain(|(k, _)| keep(k));
    }

    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    /// The entries, in key order (copied only when shared).
    pub fn into_entries(self) -> Vec<(K, V)> {
        Rc::try_unwrap(self.entries).unwrap_or_else(|shared| (*shared).clone())
    }

    /// Has `other` a key this map does not? A search per key when `other`
    /// is much smaller, else one pass over both sorted lists.
    fn lacks_some_key_of(&self, other: &SortedMap<K, V>) -> bool {
        if other.entries.len().saturating_mul(8) < self.entries.len() {
            return other.entries.iter().any(|(k, _)| !self.contains_key(k));
        }
        let mut mine = self.entries.iter().map(|(k, _)| k).peekable();
        for (key, _) in other.entries.iter() {
            while mine.next_if(|k| *k < key).is_some() {}
            if mine.next_if(|k| *k == key).is_none() {
                return true;
            }
        }
        false
    }

    /// Add every key of `other` not already here (values of keys present in
    /// both stay as they are). True if anything was added.
    pub fn union_with(&mut self, other: &SortedMap<K, V>) -> bool {
        // A state joined with a copy of itself (a loop whose body did not
        // change it), or with nothing: nothing new.
        if other.entries.is_empty() || Rc::ptr_eq(&self.entries, &other.entries) {
            return false;
        }
        if self.entries.is_empty() {
            self.entries = Rc::clone(&other.entries);
            return true;
        }
        // Common case at a loop head: nothing new (one linear pass over
        // both sorted lists, not a search per key).
        if !self.lacks_some_key_of(other) {
            return false;
        }
        let theirs = Rc::clone(&other.entries);
        self.merge(theirs.iter().cloned());
        true
    }
}

#[cfg(test)]
mod tests {
    use super::SortedMap;
    use std::collections::BTreeMap;

    #[test]
    fn first_value_wins_and_order_is_kept() {
        let mut m = SortedMap::new();
        assert!(m.insert_if_absent(3, || "c"));
        assert!(m.insert_if_absent(1, || "a"));
        assert!(!m.insert_if_absent(3, || "x"));
        assert_eq!(m.get(&3), Some(&"c"));
        let keys: Vec<i32> = m.iter().map(|(k, _)| *k).collect();
        assert_eq!(keys, vec![1, 3]);
    }

    #[test]
    fn union_adds_only_missing_keys() {
        let mut a = SortedMap::new();
        a.insert_if_absent(1, || "a1");
        a.insert_if_absent(5, || "a5");
        let mut b = SortedMap::new();
        b.insert_if_absent(5, || "b5");
        b.insert_if_absent(2, || "b2");
        b.insert_if_absent(9, || "b9");
        assert!(a.union_with(&b));
        let all: Vec<(i32, &str)> = a.iter().map(|(k, v)| (*k, *v)).collect();
        assert_eq!(all, vec![(1, "a1"), (2, "b2"), (5, "a5"), (9, "b9")]);
        assert!(!a.union_with(&b), "nothing new the second time");
        let mut big = SortedMap::new();
        for k in 0..40 {
            big.insert_if_absent(k * 2, || "big");
        }
        let mut small = SortedMap::new();
        small.insert_if_absent(6, || "s");
        assert!(!big.union_with(&small), "a subset, searched key by key");
        small.insert_if_absent(7, || "s");
        assert!(big.union_with(&small), "an odd key is new");
        assert_eq!(big.len(), 41);
        let mut same = SortedMap::new();
        for k in 0..40 {
            same.insert_if_absent(k * 2, || "same");
        }
        assert!(same.union_with(&big), "7 is new");
        assert_eq!(same.len(), 41);
        assert!(!same.union_with(&big), "equal sizes, one pass: nothing new");
        a.retain(|k| *k > 2);
        assert_eq!(a.len(), 2);
    }

    /// `absent_keys` and `insert_sorted_new` against a plain filter and
    /// `insert_if_absent`, on generated maps of every size regime.
    #[test]
    fn absent_keys_and_sorted_inserts_match_the_naive_versions() {
        let mut seed = 0x2545_f491_u64;
        let mut next = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for round in 0..300 {
            let size = [0, 3, 40, 400][round % 4];
            let mut map = SortedMap::new();
            for _ in 0..size {
                let k = next(1000);
                map.insert_if_absent(k, || k * 10);
            }
            let mut keys: Vec<u64> = (0..next(60)).map(|_| next(1000)).collect();
            keys.sort_unstable();
            keys.dedup();
            let absent = map.absent_keys(keys.iter().copied());
            let naive: Vec<u64> = keys
                .iter()
                .copied()
                .filter(|k| !map.contains_key(k))
                .collect();
            assert_eq!(absent, naive);
            let mut by_one = map.clone();
            for &k in &naive {
                by_one.insert_if_absent(k, || k + 1);
            }
            map.insert_sorted_new(naive.iter().map(|&k| (k, k + 1)).collect());
            assert_eq!(map, by_one);
        }
    }

    #[test]
    fn a_clone_is_unchanged_by_changes_to_the_original() {
        let mut a = SortedMap::new();
        a.insert_if_absent(1, || "a");
        let copy = a.clone();
        a.insert_if_absent(2, || "b");
        a.insert_all_absent(vec![(0, "z")]);
        a.retain(|k| *k != 1);
        assert_eq!(copy.len(), 1);
        assert_eq!(copy.get(&1), Some(&"a"));
        let mut empty = SortedMap::new();
        assert!(
            empty.union_with(&copy),
            "an empty map takes the other's entries"
        );
        assert!(!empty.union_with(&copy), "the same entries: nothing new");
        empty.insert_if_absent(5, || "e");
        assert_eq!(copy.len(), 1, "shared entries are copied before a change");
        assert_eq!(copy.into_entries(), vec![(1, "a")]);
    }

    /// A small deterministic generator (xorshift), so the test needs no crate.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    /// Random operations on a map, some of its clones, and a `BTreeMap`
    /// reference (first value wins) each: the same contents every step.
    #[test]
    fn agrees_with_a_reference_map_on_random_operations() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for _ in 0..200 {
            let mut maps: Vec<(SortedMap<u32, u64>, BTreeMap<u32, u64>)> =
                vec![(SortedMap::new(), BTreeMap::new())];
            for step in 0..60u64 {
                let i = rng.below(maps.len() as u64) as usize;
                let j = rng.below(maps.len() as u64) as usize;
                match rng.below(6) {
                    0 => {
                        let k = rng.below(40) as u32;
                        let (m, r) = &mut maps[i];
                        let inserted = m.insert_if_absent(k, || step);
                        assert_eq!(inserted, !r.contains_key(&k));
                        r.entry(k).or_insert(step);
                    }
                    1 => {
                        let n = rng.below(12);
                        let fresh: Vec<(u32, u64)> = (0..n)
                            .map(|x| (rng.below(40) as u32, step * 100 + x))
                            .collect();
                        let (m, r) = &mut maps[i];
                        for (k, v) in &fresh {
                            r.entry(*k).or_insert(*v);
                        }
                        m.insert_all_absent(fresh);
                    }
                    2 => {
                        let (other, other_ref) = maps[j].clone();
                        let (m, r) = &mut maps[i];
                        let grew = m.union_with(&other);
                        let before = r.len();
                        for (k, v) in other_ref {
                            r.entry(k).or_insert(v);
                        }
                        assert_eq!(grew, r.len() != before);
                    }
                    3 => {
                        let cut = rng.below(40) as u32;
                        let (m, r) = &mut maps[i];
                        m.retain(|k| k % 7 != cut % 7);
                        r.retain(|k, _| k % 7 != cut % 7);
                    }
                    _ => {
                        if maps.len() < 6 {
                            let copy = maps[i].clone();
                            maps.push(copy);
                        }
                    }
                }
                for (m, r) in &maps {
                    let got: Vec<(u32, u64)> = m.iter().map(|(k, v)| (*k, *v)).collect();
                    let want: Vec<(u32, u64)> = r.iter().map(|(k, v)| (*k, *v)).collect();
                    assert_eq!(got, want);
                    assert_eq!(m.len(), r.len());
                    for k in 0..40 {
                        assert_eq!(m.get(&k), r.get(&k));
                    }
                }
            }
        }
    }
}
