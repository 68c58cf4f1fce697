//! Dense ids for structural keys, assigned in first-seen order (which the
//! solver makes deterministic by processing its worklists in order).

use std::hash::Hash;

use rustc_hash::FxHashMap;

use crate::ids::Id;

#[derive(Debug)]
pub(crate) struct Interner<K, I = u32> {
    map: FxHashMap<K, I>,
    keys: Vec<K>,
}

impl<K, I> Default for Interner<K, I> {
    fn default() -> Self {
        Interner {
            map: FxHashMap::default(),
            keys: Vec::new(),
        }
    }
}

impl<K: Hash + Eq + Clone, I: Id> Interner<K, I> {
    /// The id of `k` and whether it was new.
    pub(crate) fn intern(&mut self, k: K) -> (I, bool) {
        if let Some(&id) = self.map.get(&k) {
            return (id, false);
        }
        let id = I::from_index(self.keys.len());
        self.keys.push(k.clone());
        self.map.insert(k, id);
        (id, true)
    }

    pub(crate) fn get(&self, k: &K) -> Option<I> {
        self.map.get(k).copied()
    }

    /// The key of an id this interner handed out.
    pub(crate) fn key(&self, id: I) -> &K {
        &self.keys[id.index()]
    }

    pub(crate) fn into_keys(self) -> Vec<K> {
        self.keys
    }
}
