//! A map kept as a sorted vector: the dataflow states of the per-method
//! analysis are small (a few locks per block) and cloned at every block
//! edge, where one contiguous allocation beats a tree of nodes.

/// A map from `K` to `V`, sorted by key, each key at most once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SortedMap<K, V> {
    entries: Vec<(K, V)>,
}

impl<K, V> Default for SortedMap<K, V> {
    fn default() -> Self {
        SortedMap {
            entries: Vec::new(),
        }
    }
}

impl<K: Ord + Copy, V> SortedMap<K, V> {
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
            .map(|i| &self.entries[i].1)
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
                self.entries.insert(i, (key, make()));
                true
            }
        }
    }

    pub fn retain(&mut self, mut keep: impl FnMut(&K) -> bool) {
        self.entries.retain(|(k, _)| keep(k));
    }

    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    pub fn into_entries(self) -> Vec<(K, V)> {
        self.entries
    }
}

impl<K: Ord + Copy, V: Clone> SortedMap<K, V> {
    /// Has `other` a key this map does not? A search per key when `other`
    /// is much smaller, else one pass over both sorted lists.
    fn lacks_some_key_of(&self, other: &SortedMap<K, V>) -> bool {
        if other.entries.len().saturating_mul(8) < self.entries.len() {
            return other.entries.iter().any(|(k, _)| !self.contains_key(k));
        }
        let mut mine = self.entries.iter().map(|(k, _)| k).peekable();
        for (key, _) in &other.entries {
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
        if other.entries.is_empty() {
            return false;
        }
        // Common case at a loop head: nothing new (one linear pass over
        // both sorted lists, not a search per key).
        if !self.lacks_some_key_of(other) {
            return false;
        }
        let mut merged = Vec::with_capacity(self.entries.len() + other.entries.len());
        let mut mine = std::mem::take(&mut self.entries).into_iter().peekable();
        let mut theirs = other.entries.iter().peekable();
        loop {
            match (mine.peek(), theirs.peek()) {
                (Some((a, _)), Some((b, _))) => {
                    if a < b {
                        merged.extend(mine.next());
                    } else if b < a {
                        merged.extend(theirs.next().cloned());
                    } else {
                        merged.extend(mine.next());
                        theirs.next();
                    }
                }
                (Some(_), None) => merged.extend(mine.next()),
                (None, Some(_)) => merged.extend(theirs.next().cloned()),
                (None, None) => break,
            }
        }
        self.entries = merged;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::SortedMap;

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
}
