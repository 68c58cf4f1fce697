//! Points-to sets: sparse bit vectors of object ids.
//!
//! A set is a sorted vector of `(block, bits)` words, block `b` holding
//! the ids `64 b .. 64 b + 63`. Objects are numbered in the order the
//! solver creates them, and the objects of one method are created
//! together, so the ids a variable points to cluster into few blocks: most
//! sets are one or two words, and large sets stay compact. The union the
//! solver needs reports exactly the ids that were new (difference
//! propagation) in a buffer the caller reuses, finds the target's blocks
//! by galloping (a delta of a word or two into a large set costs a few
//! probes, not a walk of the set), and leaves the set untouched when
//! nothing is new, which is the common case: it allocates only when the
//! set grows by a block. Type filters intersect through [`Mask`], a dense
//! bit vector, so a mask costs one lookup per word whatever its size.

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

    /// A set of these sorted, block-unique, non-zero `(block, bits)` words.
    pub(crate) fn from_words(words: Vec<(u32, u64)>) -> IdSet {
        debug_assert!(words.windows(2).all(|w| w[0].0 < w[1].0));
        debug_assert!(words.iter().all(|w| w.1 != 0));
        IdSet { words }
    }

    /// The `(block, bits)` words, for reuse of their buffer.
    pub(crate) fn into_words(self) -> Vec<(u32, u64)> {
        self.words
    }

    /// The `(block, bits)` words in increasing block order.
    pub(crate) fn words(&self) -> &[(u32, u64)] {
        &self.words
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
        word_ids(self.words.iter().copied())
    }

    /// `self ∪= other`; returns the ids that were new (empty if none, in
    /// which case `self` was not touched).
    pub fn union_diff(&mut self, other: &IdSet) -> IdSet {
        let mut delta = Vec::new();
        self.union_masked_into(other, None, None, &mut delta);
        IdSet { words: delta }
    }

    /// `self ∪= other ∩ m1 ∩ m2` (absent masks keep everything), in one
    /// pass without building the intersection. The words that were new
    /// are left in `delta` (cleared first; a buffer the caller reuses, so
    /// propagation allocates nothing when nothing is new); `true` if any.
    ///
    /// Costs about `|other| · log |self|`: the difference propagated is
    /// usually a word or two while the target set may be large, so blocks
    /// are found by galloping, never by walking the whole target.
    pub fn union_masked_into(
        &mut self,
        other: &IdSet,
        m1: Option<&Mask>,
        m2: Option<&Mask>,
        delta: &mut Vec<(u32, u64)>,
    ) -> bool {
        delta.clear();
        let mut missing_blocks = false;
        let mut j = 0;
        let words = &mut self.words;
        for &(block, bits) in &other.words {
            let mut bits = bits;
            if let Some(m) = m1 {
                bits &= m.word(block);
            }
            if let Some(m) = m2 {
                bits &= m.word(block);
            }
            if bits == 0 {
                continue;
            }
            missing_blocks |= !merge_word(words, &mut j, (block, bits), delta);
        }
        if missing_blocks {
            // Words of blocks already present were merged in place above;
            // or-ing them again in the merge is harmless.
            merge_words(words, delta);
        }
        !delta.is_empty()
    }

    /// `self ∪= words` for sorted, block-unique `words` (a `delta` of
    /// [`Self::union_masked_into`]), in place.
    pub fn merge(&mut self, words: &[(u32, u64)]) {
        merge_words(&mut self.words, words);
    }

    /// `self ∪= other`; `true` if anything was added.
    pub fn union_with(&mut self, other: &IdSet) -> bool {
        !self.union_diff(other).is_empty()
    }

    /// Gives back spare capacity (once a set stops growing).
    pub fn shrink_to_fit(&mut self) {
        self.words.shrink_to_fit();
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

/// The ids of `(block, bits)` words, in the words' order (increasing
/// within a word).
pub(crate) fn word_ids(words: impl Iterator<Item = (u32, u64)>) -> impl Iterator<Item = u32> {
    words.flat_map(|(block, bits)| {
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

/// Merges one word into the sorted, block-unique `words`, searching from
/// `*j` on (left at the block's place): the bits the block lacked go into
/// `delta`. `false` when the block is missing; its whole word is then in
/// `delta`, for the caller to merge.
#[inline]
pub(crate) fn merge_word(
    words: &mut [(u32, u64)],
    j: &mut usize,
    (block, bits): (u32, u64),
    delta: &mut Vec<(u32, u64)>,
) -> bool {
    *j = seek(words, *j, block);
    match words.get_mut(*j) {
        Some(w) if w.0 == block => {
            let new = bits & !w.1;
            if new != 0 {
                w.1 |= new;
                delta.push((block, new));
            }
            true
        }
        _ => {
            delta.push((block, bits));
            false
        }
    }
}

/// The first index `>= from` whose block is `>= block` in sorted `words`:
/// galloping (exponential steps, then a binary search), so a cursor that
/// moves forward through a large set costs the log of the distance.
pub(crate) fn seek(words: &[(u32, u64)], from: usize, block: u32) -> usize {
    let n = words.len();
    if from >= n || words[from].0 >= block {
        return from;
    }
    // Invariant: words[lo].0 < block; the answer is in (lo, hi].
    let mut lo = from;
    let mut step = 1;
    let mut hi = from + step;
    while hi < n && words[hi].0 < block {
        lo = hi;
        step *= 2;
        hi = lo + step;
    }
    let hi = hi.min(n);
    lo + 1 + words[lo + 1..hi].partition_point(|w| w.0 < block)
}

/// `words ∪= add` in place (both sorted, block-unique): appends when
/// `add` lies past the end, else merges from the back after growing
/// `words` by the number of blocks it lacks.
pub(crate) fn merge_words(words: &mut Vec<(u32, u64)>, add: &[(u32, u64)]) {
    let Some(&(first, _)) = add.first() else {
        return;
    };
    if words.last().is_none_or(|&(last, _)| first > last) {
        words.extend_from_slice(add);
        return;
    }
    let mut lacking = 0;
    let mut j = 0;
    for &(block, bits) in add {
        j = seek(words, j, block);
        match words.get_mut(j) {
            Some(w) if w.0 == block => w.1 |= bits,
            _ => lacking += 1,
        }
    }
    if lacking == 0 {
        return;
    }
    let old = words.len();
    words.resize(old + lacking, (0, 0));
    // Backward merge: `out` stays above `i` until every added block is placed.
    let (mut i, mut k, mut out) = (old, add.len(), old + lacking);
    while k > 0 {
        out -= 1;
        let a = add[k - 1];
        if i > 0 && words[i - 1].0 > a.0 {
            words[out] = words[i - 1];
            i -= 1;
        } else if i > 0 && words[i - 1].0 == a.0 {
            // Already or-ed in the pass above.
            words[out] = words[i - 1];
            i -= 1;
            k -= 1;
        } else {
            words[out] = a;
            k -= 1;
        }
    }
}

/// A dense set of object ids for the type filters' masks: a mask is asked
/// for one word per word propagated, so a lookup must not depend on its size.
#[derive(Clone, Default, Debug)]
pub struct Mask {
    words: Vec<u64>,
}

impl Mask {
    pub fn new() -> Mask {
        Mask { words: Vec::new() }
    }

    /// The bits of ids `64 block .. 64 block + 63`.
    #[inline]
    pub fn word(&self, block: u32) -> u64 {
        self.words.get(block as usize).copied().unwrap_or(0)
    }

    pub fn contains(&self, x: u32) -> bool {
        self.word(x >> 6) & (1u64 << (x & 63)) != 0
    }

    pub fn insert(&mut self, x: u32) {
        let block = (x >> 6) as usize;
        if block >= self.words.len() {
            self.words.resize(block + 1, 0);
        }
        self.words[block] |= 1u64 << (x & 63);
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
pub(crate) mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// A small deterministic generator (no external crates for tests;
    /// the hybrid sets' tests use it too).
    pub(crate) fn numbers(seed: u64, n: usize, max: u32) -> Vec<u32> {
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

    /// Two id lists of `seed`'s sizes below one of the bounds `maxes`.
    fn pair(seed: u64, maxes: [u32; 4], sizes: (u64, u64), apart: u64) -> (Vec<u32>, Vec<u32>) {
        let max = maxes[seed as usize % 4];
        let a = numbers(seed, (seed % sizes.0) as usize, max);
        let b = numbers(seed + apart, (seed % sizes.1) as usize, max);
        (a, b)
    }

    fn mask(ids: impl Iterator<Item = u32>) -> Mask {
        let mut m = Mask::new();
        for x in ids {
            m.insert(x);
        }
        m
    }

    #[test]
    fn merge_matches_btreeset() {
        for seed in 0..300u64 {
            let (a, b) = pair(seed, [10, 64, 700, 20000], (41, 29), 500);
            let mut x: IdSet = a.iter().copied().collect();
            let y: IdSet = b.iter().copied().collect();
            x.merge(&y.words);
            let expected: BTreeSet<u32> = a.iter().chain(&b).copied().collect();
            assert_eq!(x.iter().collect::<BTreeSet<_>>(), expected);
            assert!(x.words.windows(2).all(|w| w[0].0 < w[1].0));
            assert!(x.words.iter().all(|w| w.1 != 0));
        }
    }

    #[test]
    fn seek_finds_the_first_block_not_below() {
        let words: Vec<(u32, u64)> = (0..100u32).map(|i| (i * 3, 1)).collect();
        for from in [0usize, 1, 7, 50, 99, 100] {
            for block in 0..310u32 {
                let first = words.partition_point(|w| w.0 < block);
                assert_eq!(
                    seek(&words, from, block),
                    first.max(from),
                    "from {from} block {block}"
                );
            }
        }
    }

    #[test]
    fn matches_btreeset() {
        for seed in 0..200u64 {
            let max = [10, 64, 200, 5000][seed as usize % 4];
            let (a, b) = pair(seed, [10, 64, 200, 5000], (37, 23), 1000);
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
            let seeded = numbers(seed + 7, 5, max);
            let mut m: IdSet = seeded.iter().copied().collect();
            let (m1, m2) = (mask(x.iter()), mask(numbers(seed + 3, 40, max).into_iter()));
            let mut delta = Vec::new();
            let changed = m.union_masked_into(&y, Some(&m1), Some(&m2), &mut delta);
            let expected_new: BTreeSet<u32> = sb
                .iter()
                .copied()
                .filter(|&v| m1.contains(v) && m2.contains(v) && !seeded.contains(&v))
                .collect();
            let delta_ids: BTreeSet<u32> = IdSet { words: delta }.iter().collect();
            assert_eq!(delta_ids, expected_new);
            assert_eq!(changed, !expected_new.is_empty());
            let expected_all: BTreeSet<u32> = seeded.iter().copied().chain(expected_new).collect();
            assert_eq!(m.iter().collect::<BTreeSet<_>>(), expected_all);
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
