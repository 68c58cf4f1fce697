//! Dense ids for structural keys, assigned in first-seen order (which the
//! solver makes deterministic by processing its worklists in order).

use std::hash::Hash;

use rustc_hash::FxHashMap;

pub(crate) struct Interner<K> {
    map: FxHashMap<K, u32>,
    keys: Vec<K>,
}

impl<K> Default for Interner<K> {
    fn default() -> Self {
        Interner {
            map: FxHashMap::default(),
            keys: Vec::new(),
        }
    }
}

impl<K: Hash + Eq + Clone> Interner<K> {
    /// The id of `k` and whether it was new.
    pub(crate) fn intern(&mut self, k: K) -> (u32, bool) {
        if let Some(&id) = self.map.get(&k) {
            return (id, false);
        }
        let id = self.keys.len() as u32;
        self.keys.push(k.clone());
        self.map.insert(k, id);
        (id, true)
    }

    pub(crate) fn get(&self, k: &K) -> Option<u32> {
        self.map.get(k).copied()
    }

    /// The key of an id this interner handed out.
    pub(crate) fn key(&self, id: u32) -> &K {
        &self.keys[id as usize]
    }

    pub(crate) fn len(&self) -> usize {
        self.keys.len()
    }

    pub(crate) fn into_keys(self) -> Vec<K> {
        self.keys
    }
}
