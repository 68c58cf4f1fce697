//! Lock expressions interned for the whole analysis: each distinct
//! [`AccessPath`] gets a small id once, and the summaries, call-site
//! translations and the final propagation compare and hash those ids
//! instead of the recursive paths (comparing, hashing, cloning and
//! dropping paths was most of the rule's time on h2).
//!
//! Ids are handed out in the order paths are first seen, which is not the
//! order of the paths themselves: where the analysis must visit locks in
//! path order (which provenance wins, which locks a bound keeps), it sorts
//! by [`LockTable::path_order`]. Once the summaries are complete the
//! table is ranked ([`LockTable::rank_paths`]): the per-method analysis
//! and the final propagation then order ids by their ranks, without
//! comparing the recursive paths.

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
    /// The place of each id's path in path order, for the ids interned
    /// before [`LockTable::rank_paths`] (ids added later have none).
    ranks: Vec<u32>,
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

    /// The order of the paths of two ids: by their ranks when both have
    /// one (distinct ids have distinct paths, so the ranks order them as
    /// their paths), else by the paths.
    pub fn path_order(&self, a: LockId, b: LockId) -> Ordering {
        if a == b {
            return Ordering::Equal;
        }
        match (self.ranks.get(a as usize), self.ranks.get(b as usize)) {
            (Some(x), Some(y)) => x.cmp(y),
            _ => self.path(a).cmp(self.path(b)),
        }
    }

    /// Ranks every id interned so far by its path (one sort of the table),
    /// so later [`LockTable::path_order`] calls compare two integers.
    pub fn rank_paths(&mut self) {
        let mut order: Vec<LockId> = (0..self.paths.len())
            .filter_map(|i| LockId::try_from(i).ok())
            .collect();
        order.sort_unstable_by(|&a, &b| self.path(a).cmp(self.path(b)));
        let mut ranks = vec![0u32; self.paths.len()];
        for (rank, &id) in order.iter().enumerate() {
            if let Some(slot) = ranks.get_mut(id as usize) {
                *slot = u32::try_from(rank).unwrap_or(u32::MAX);
            }
        }
        self.ranks = ranks;
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

    #[test]
    fn ranks_order_ids_as_their_paths_and_later_ids_fall_back_to_paths() {
        let mut t = LockTable::default();
        let field = |name: &str| AccessPath::Field(Arc::new(AccessPath::This), Arc::from(name));
        // Interned out of path order.
        let ids: Vec<LockId> = ["c", "a", "b"].iter().map(|n| t.intern(field(n))).collect();
        let this = t.intern(AccessPath::This);
        t.rank_paths();
        let late = t.intern(field("ab"));
        let all: Vec<LockId> = ids.iter().copied().chain([this, late]).collect();
        for &x in &all {
            for &y in &all {
                assert_eq!(t.path_order(x, y), t.path(x).cmp(t.path(y)), "{x} {y}");
            }
        }
    }
}
