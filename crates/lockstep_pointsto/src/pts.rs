//! Points-to sets: sparse bit vectors of object ids.
//!
//! A set is a sorted vector of `(block, bits)` words, block `b` holding
//! the ids `64 b .. 64 b + 63`. Objects are numbered in the order the
//! solver creates them, and the objects of one method are created
//! together, so the ids a variable points to cluster into few blocks: most
//! sets are one or two words, and large sets stay compact. The union the
//! solver needs returns exactly the ids that were new (difference
//! propagation), and leaves the set untouched (no allocation) when there
//! are none, which is the common case.

/// A set of `u32` ids (objects).
#[derive(Clone, Default, Debug, PartialEq, Eq, Hash)]
pub struct IdSet {
    words: Vec<(u32, u64)>,
}

impl IdSet {
    pub fn new() -> IdSet {
        IdSet { words: Vec::new() }
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    pub fn len(&self) -> usize {
        self.words.iter().map(|w| w.1.count_ones() as usize).sum()
    }

    /// Heap bytes held (for statistics).
    pub fn heap_bytes(&self) -> usize {
        self.words.capacity() * std::mem::size_of::<(u32, u64)>()
    }

    pub fn contains(&self, x: u32) -> bool {
        match self.words.binary_search_by_key(&(x >> 6), |w| w.0) {
            Ok(i) => self.words[i].1 & (1u64 << (x & 63)) != 0,
            Err(_) => false,
        }
    }

    /// Adds `x`; `true` if it was new.
    pub fn insert(&mut self, x: u32) -> bool {
        let (block, bit) = (x >> 6, 1u64 << (x & 63));
        match self.words.binary_search_by_key(&block, |w| w.0) {
            Ok(i) => {
                let w = &mut self.words[i].1;
                let new = *w & bit == 0;
                *w |= bit;
                new
            }
            Err(i) => {
                self.words.insert(i, (block, bit));
                true
            }
        }
    }

    /// The ids in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.words.iter().flat_map(|&(block, bits)| {
            let mut rest = bits;
            std::iter::from_fn(move || {
                if rest == 0 {
                    return None;
                }
                let i = rest.trailing_zeros();
                rest &= rest - 1;
                Some(block * 64 + i)
            })
        })
    }

    /// `self ∪= other`; returns the ids that were new (empty if none, in
    /// which case `self` was not touched).
    pub fn union_diff(&mut self, other: &IdSet) -> IdSet {
        self.union_diff_masked(other, None, None)
    }

    /// `self ∪= other ∩ m1 ∩ m2` (absent masks keep everything), in one
    /// pass without building the intersection; returns the ids that were new.
    pub fn union_diff_masked(
        &mut self,
        other: &IdSet,
        m1: Option<&IdSet>,
        m2: Option<&IdSet>,
    ) -> IdSet {
        let mut diff: Vec<(u32, u64)> = Vec::new();
        let mut missing_blocks = false;
        let (mut j, mut k1, mut k2) = (0, 0, 0);
        let words = &mut self.words;
        for &(block, bits) in &other.words {
            let mut bits = bits;
            if let Some(m) = m1 {
                bits &= word_at(&m.words, &mut k1, block);
            }
            if let Some(m) = m2 {
                bits &= word_at(&m.words, &mut k2, block);
            }
            if bits == 0 {
                continue;
            }
            while j < words.len() && words[j].0 < block {
                j += 1;
            }
            if j < words.len() && words[j].0 == block {
                let new = bits & !words[j].1;
                if new != 0 {
                    words[j].1 |= new;
                    diff.push((block, new));
                }
            } else {
                missing_blocks = true;
                diff.push((block, bits));
            }
        }
        if missing_blocks {
            // Words of blocks already present were merged in place above;
            // or-ing them again in the merge is harmless.
            self.union_disjoint(&diff);
        }
        IdSet { words: diff }
    }

    /// `self ∪= other`; `true` if anything was added.
    pub fn union_with(&mut self, other: &IdSet) -> bool {
        !self.union_diff(other).is_empty()
    }

    /// Merges `other`'s words into `self`.
    fn union_disjoint(&mut self, other: &[(u32, u64)]) {
        let mut merged = Vec::with_capacity(self.words.len() + other.len());
        let (mut i, mut j) = (0, 0);
        let (a, b) = (&self.words, other);
        while i < a.len() && j < b.len() {
            let (x, y) = (a[i], b[j]);
            if x.0 < y.0 {
                merged.push(x);
                i += 1;
            } else if x.0 > y.0 {
                merged.push(y);
                j += 1;
            } else {
                merged.push((x.0, x.1 | y.1));
                i += 1;
                j += 1;
            }
        }
        merged.extend_from_slice(&a[i..]);
        merged.extend_from_slice(&b[j..]);
        self.words = merged;
    }

    /// Do the two sets share an id?
    pub fn intersects(&self, other: &IdSet) -> bool {
        let (a, b) = (&self.words, &other.words);
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            if a[i].0 < b[j].0 {
                i += 1;
            } else if a[i].0 > b[j].0 {
                j += 1;
            } else {
                if a[i].1 & b[j].1 != 0 {
                    return true;
                }
                i += 1;
                j += 1;
            }
        }
        false
    }
}

/// The word of `block` in sorted `words`, advancing the cursor `k`
/// (blocks are asked for in increasing order).
fn word_at(words: &[(u32, u64)], k: &mut usize, block: u32) -> u64 {
    while *k < words.len() && words[*k].0 < block {
        *k += 1;
    }
    match words.get(*k) {
        Some(&(b, w)) if b == block => w,
        _ => 0,
    }
}

impl FromIterator<u32> for IdSet {
    fn from_iter<I: IntoIterator<Item = u32>>(iter: I) -> IdSet {
        let mut v: Vec<u32> = iter.into_iter().collect();
        v.sort_unstable();
        v.dedup();
        let mut words: Vec<(u32, u64)> = Vec::new();
        for x in v {
            let (block, bit) = (x >> 6, 1u64 << (x & 63));
            match words.last_mut() {
                Some(w) if w.0 == block => w.1 |= bit,
                _ => words.push((block, bit)),
            }
        }
        IdSet { words }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// A small deterministic generator (no external crates for tests).
    fn numbers(seed: u64, n: usize, max: u32) -> Vec<u32> {
        let mut s = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (0..n)
            .map(|_| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((s >> 33) as u32) % max
            })
            .collect()
    }

    #[test]
    fn matches_btreeset() {
        for seed in 0..200u64 {
            let max = [10, 64, 200, 5000][seed as usize % 4];
            let a = numbers(seed, (seed % 37) as usize, max);
            let b = numbers(seed + 1000, (seed % 23) as usize, max);
            let (sa, sb): (BTreeSet<u32>, BTreeSet<u32>) =
                (a.iter().copied().collect(), b.iter().copied().collect());
            let mut x: IdSet = a.iter().copied().collect();
            let y: IdSet = b.iter().copied().collect();
            assert_eq!(x.iter().collect::<BTreeSet<_>>(), sa);
            assert_eq!(x.len(), sa.len());
            assert_eq!(x.intersects(&y), !sa.is_disjoint(&sb));
            let d = x.union_diff(&y);
            assert_eq!(
                d.iter().collect::<BTreeSet<_>>(),
                sb.difference(&sa).copied().collect()
            );
            assert_eq!(
                x.iter().collect::<BTreeSet<_>>(),
                sa.union(&sb).copied().collect()
            );
            assert!(x.union_diff(&y).is_empty());
            let mut m: IdSet = numbers(seed + 7, 5, max).into_iter().collect();
            let masked = m.union_diff_masked(&y, Some(&x), Some(&y));
            for v in masked.iter() {
                assert!(sb.contains(&v));
            }
            for v in &sb {
                assert!(x.contains(*v));
            }
            let mut z = IdSet::new();
            for v in &a {
                z.insert(*v);
            }
            assert_eq!(z, a.iter().copied().collect::<IdSet>());
        }
    }
}
