//! Lock expressions interned for the whole analysis: each distinct
//! [`AccessPath`] gets a small id once, and the summaries, call-site
//! translations and the final propagation compare and hash those ids
//! instead of the recursive paths (comparing, hashing, cloning and
//! dropping paths was most of the rule's time on h2).
//!
//! Ids are handed out in the order paths are first seen, which is not the
//! order of the paths themselves: where the analysis must visit locks in
//! path order (which provenance wins, which locks a bound keeps), it sorts
//! by [`LockTable::path_order`].

use std::cmp::Ordering;

use lockstep_ir::AccessPath;
use rustc_hash::FxHashMap;

use super::locks::STAR;

/// A lock expression of the table.
pub type LockId = u32;

/// The distinct lock expressions seen so far, by id.
#[derive(Default, Clone)]
pub struct LockTable {
    paths: Vec<AccessPath>,
    ids: FxHashMap<AccessPath, LockId>,
}

impl LockTable {
    /// The id of `path`, added if new.
    pub fn intern(&mut self, path: AccessPath) -> LockId {
        if let Some(&id) = self.ids.get(&path) {
            return id;
        }
        // More than four billion distinct lock expressions cannot be held
        // in memory, so the id always fits.
        let id = LockId::try_from(self.paths.len()).unwrap_or(LockId::MAX);
        self.paths.push(path.clone());
        self.ids.insert(path, id);
        id
    }

    /// The id of `path`, if it was interned.
    pub fn get(&self, path: &AccessPath) -> Option<LockId> {
        self.ids.get(path).copied()
    }

    /// The path of `id` (`*` for an id this table did not hand out).
    pub fn path(&self, id: LockId) -> &AccessPath {
        self.paths.get(id as usize).unwrap_or(&STAR)
    }

    /// The order of the paths of two ids.
    pub fn path_order(&self, a: LockId, b: LockId) -> Ordering {
        if a == b {
            return Ordering::Equal;
        }
        self.path(a).cmp(self.path(b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn equal_paths_share_an_id_and_order_follows_the_paths() {
        let mut t = LockTable::default();
        let field = AccessPath::Field(Arc::new(AccessPath::This), Arc::from("f"));
        let f = t.intern(field.clone());
        let this = t.intern(AccessPath::This);
        assert_eq!(t.intern(field.clone()), f);
        assert_eq!(t.get(&field), Some(f));
        assert_eq!(t.get(&AccessPath::Param(0, None)), None);
        assert_eq!(t.path(f), &field);
        assert_eq!(t.path(99), &STAR);
        assert_eq!(t.path_order(f, this), field.cmp(&AccessPath::This));
        assert_eq!(t.path_order(this, this), Ordering::Equal);
    }
}
