//! The fast solver's points-to sets: sparse while small, dense once large.
//!
//! [`IdSet`]'s sorted words are compact, but a union into a large set
//! finds each incoming block by a search of the target (about `log n`
//! probes, each a likely cache miss): on hsqldb the search was half the
//! time of the union, itself the largest part of the solve, because the
//! average pointer there holds 93 objects. A [`HybridSet`] keeps the same
//! sparse words while they are few or scattered, and switches to a dense
//! bit vector over the blocks between its first and last one when the
//! words fill at least a quarter of that range: the dense form then takes
//! at most twice the memory of the sparse one (8 bytes a block against
//! 16 a word; measured on hsqldb, peak RSS +0.5%), and a union finds a
//! block by one subtraction. It goes back to sparse if it grows so far
//! that its range is mostly empty (an eighth filled), so a set never
//! costs more than four times its sparse size.
//!
//! The solver hands its sets over as [`IdSet`]s ([`HybridSet::into_idset`]),
//! so the result's queries and its sharing of equal sets see one canonical
//! form whatever form a set had. Both forms hold exactly the same ids and
//! iterate them in increasing order, so the solve does the same work in
//! the same order either way.

use crate::pts::{merge_word, merge_words, word_ids, IdSet, Mask};

/// Sparse sets of at least this many words are considered for the dense form
/// (below it the search is a probe or two anyway).
const DENSE_MIN_WORDS: usize = 8;

/// A large sparse set turns dense when its block range is at most this
/// many times its number of words, and back when it grows to twice that.
const DENSE_SPAN: usize = 4;

/// A set of object ids, sparse or dense (see the module documentation).
#[derive(Debug, Clone)]
pub enum HybridSet {
    /// Sorted, block-unique, non-zero `(block, bits)` words, as [`IdSet`].
    Sparse(Vec<(u32, u64)>),
    /// `words[i]` holds the ids of block `first + i`; never empty, its
    /// first and last words non-zero.
    Dense { first: u32, words: Vec<u64> },
}

impl Default for HybridSet {
    fn default() -> HybridSet {
        HybridSet::Sparse(Vec::new())
    }
}

impl HybridSet {
    pub fn new() -> HybridSet {
        HybridSet::default()
    }

    pub fn is_empty(&self) -> bool {
        match self {
            HybridSet::Sparse(w) => w.is_empty(),
            HybridSet::Dense { .. } => false,
        }
    }

    /// The non-zero `(block, bits)` words in increasing block order.
    pub fn words(&self) -> Words<'_> {
        match self {
            HybridSet::Sparse(w) => Words::Sparse(w.iter()),
            HybridSet::Dense { first, words } => Words::Dense {
                block: *first,
                words: words.iter(),
            },
        }
    }

    /// The ids in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        word_ids(self.words())
    }

    /// Adds `x`; `true` if it was new.
    pub fn insert(&mut self, x: u32) -> bool {
        let (block, bit) = (x >> 6, 1u64 << (x & 63));
        match self {
            HybridSet::Sparse(words) => match words.binary_search_by_key(&block, |w| w.0) {
                Ok(i) => {
                    let w = &mut words[i].1;
                    let new = *w & bit == 0;
                    *w |= bit;
                    new
                }
                Err(i) => {
                    words.insert(i, (block, bit));
                    self.maybe_densify();
                    true
                }
            },
            HybridSet::Dense { first, words } => {
                if let Some(w) = dense_word(*first, words, block) {
                    let new = *w & bit == 0;
                    *w |= bit;
                    return new;
                }
                self.extend_dense(&[(block, bit)]);
                true
            }
        }
    }

    /// `self ∪= src ∩ m1 ∩ m2` (absent masks keep everything) for `src`'s
    /// words in increasing block order. The words that were new are left
    /// in `delta` (cleared first; sorted and block-unique); `true` if any.
    /// `self` is not touched when nothing is new.
    pub fn union_masked_into(
        &mut self,
        src: impl Iterator<Item = (u32, u64)>,
        m1: Option<&Mask>,
        m2: Option<&Mask>,
        delta: &mut Vec<(u32, u64)>,
    ) -> bool {
        delta.clear();
        let masked = src.filter_map(|(block, mut bits)| {
            if let Some(m) = m1 {
                bits &= m.word(block);
            }
            if let Some(m) = m2 {
                bits &= m.word(block);
            }
            (bits != 0).then_some((block, bits))
        });
        match self {
            HybridSet::Sparse(words) => {
                if union_sparse(words, masked, delta) {
                    // Words of blocks already present were merged in place;
                    // or-ing them again in the merge is harmless.
                    merge_words(words, delta);
                    self.maybe_densify();
                }
            }
            HybridSet::Dense { first, words } => {
                let mut outside = false;
                for (block, bits) in masked {
                    match dense_word(*first, words, block) {
                        Some(w) => {
                            let new = bits & !*w;
                            if new != 0 {
                                *w |= new;
                                delta.push((block, new));
                            }
                        }
                        None => {
                            outside = true;
                            delta.push((block, bits));
                        }
                    }
                }
                if outside {
                    let add = std::mem::take(delta);
                    self.extend_dense(&add);
                    *delta = add;
                }
            }
        }
        !delta.is_empty()
    }

    /// The canonical sparse form, for the result.
    pub fn into_idset(self) -> IdSet {
        match self {
            HybridSet::Sparse(words) => IdSet::from_words(words),
            HybridSet::Dense { .. } => IdSet::from_words(self.words().collect()),
        }
    }

    /// Switches a sparse set to the dense form when it is large and its
    /// words fill at least half of its block range.
    fn maybe_densify(&mut self) {
        let HybridSet::Sparse(words) = self else {
            return;
        };
        let (Some(&(lo, _)), Some(&(hi, _))) = (words.first(), words.last()) else {
            return;
        };
        let span = (hi - lo) as usize + 1;
        if words.len() < DENSE_MIN_WORDS || span > DENSE_SPAN * words.len() {
            return;
        }
        let mut dense = vec![0u64; span];
        for &(block, bits) in words.iter() {
            dense[(block - lo) as usize] = bits;
        }
        *self = HybridSet::Dense {
            first: lo,
            words: dense,
        };
    }

    /// Or-s `add` (sorted, block-unique, some blocks outside the range)
    /// into a dense set, growing its range; back to sparse if the range
    /// is then mostly empty (more than four blocks per non-zero word).
    fn extend_dense(&mut self, add: &[(u32, u64)]) {
        let HybridSet::Dense { first, words } = self else {
            return;
        };
        let (Some(&(lo, _)), Some(&(hi, _))) = (add.first(), add.last()) else {
            return;
        };
        let old_last = *first + words.len() as u32 - 1;
        let new_first = lo.min(*first);
        let new_last = hi.max(old_last);
        let span = (new_last - new_first) as usize + 1;
        let filled = words.iter().filter(|&&w| w != 0).count() + add.len();
        if span > 2 * DENSE_SPAN * filled {
            let mut sparse: Vec<(u32, u64)> = self.words().collect();
            merge_words(&mut sparse, add);
            *self = HybridSet::Sparse(sparse);
            return;
        }
        if new_first < *first {
            let shift = (*first - new_first) as usize;
            words.splice(0..0, std::iter::repeat_n(0, shift));
            *first = new_first;
        }
        words.resize(span, 0);
        for &(block, bits) in add {
            words[(block - *first) as usize] |= bits;
        }
    }
}

/// The word of `block` in a dense set starting at `first`, if in range.
#[inline]
fn dense_word(first: u32, words: &mut [u64], block: u32) -> Option<&mut u64> {
    words.get_mut(block.wrapping_sub(first) as usize)
}

/// The sparse union's first pass: or-s the words of blocks `words` has in
/// place, pushing what was new to `delta`, and the words of blocks it
/// lacks too; `true` if some were lacking (the caller merges `delta`).
/// Blocks are found by galloping from the previous one.
fn union_sparse(
    words: &mut [(u32, u64)],
    src: impl Iterator<Item = (u32, u64)>,
    delta: &mut Vec<(u32, u64)>,
) -> bool {
    let mut missing = false;
    let mut j = 0;
    for word in src {
        missing |= !merge_word(words, &mut j, word, delta);
    }
    missing
}

/// The non-zero words of a [`HybridSet`] in increasing block order.
pub enum Words<'a> {
    Sparse(std::slice::Iter<'a, (u32, u64)>),
    Dense {
        block: u32,
        words: std::slice::Iter<'a, u64>,
    },
}

impl Iterator for Words<'_> {
    type Item = (u32, u64);

    #[inline]
    fn next(&mut self) -> Option<(u32, u64)> {
        match self {
            Words::Sparse(it) => it.next().copied(),
            Words::Dense { block, words } => loop {
                let w = *words.next()?;
                let b = *block;
                *block += 1;
                if w != 0 {
                    return Some((b, w));
                }
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    use crate::pts::tests::numbers;

    fn mask(ids: &[u32]) -> Mask {
        let mut m = Mask::new();
        for &x in ids {
            m.insert(x);
        }
        m
    }

    /// Grows a set by inserts and masked unions of random batches, some
    /// dense and some scattered, checking every step against a `BTreeSet`
    /// (contents, the reported delta, the order of the words) and that
    /// the dense form occurs (the way back to sparse: the next test).
    #[test]
    fn matches_btreeset_through_both_forms() {
        let mut saw_dense = false;
        for seed in 0..120u64 {
            let mut set = HybridSet::new();
            let mut model: BTreeSet<u32> = BTreeSet::new();
            let mut delta = Vec::new();
            for step in 0..40u64 {
                let max = [300, 2_000, 20_000][((seed + step) % 3) as usize];
                let base = (seed as u32 * 37 + step as u32 * 101) % 5_000;
                // Every third batch a run of close ids (the dense form's
                // case), the others scattered.
                let batch: Vec<u32> = if step % 3 == 0 {
                    (0..(step as u32 * 7) % 90).map(|i| base + i * 3).collect()
                } else {
                    numbers(seed * 1_000 + step, (step % 23) as usize, max)
                        .into_iter()
                        .map(|x| x + base)
                        .collect()
                };
                if step % 5 == 0 {
                    for &x in &batch {
                        assert_eq!(set.insert(x), model.insert(x));
                    }
                } else {
                    let src: IdSet = batch.iter().copied().collect();
                    let m = mask(&numbers(seed + step, 400, max + base));
                    let m = (step % 2 == 0).then_some(&m);
                    let changed =
                        set.union_masked_into(src.words().iter().copied(), m, None, &mut delta);
                    let expected: BTreeSet<u32> = batch
                        .iter()
                        .copied()
                        .filter(|x| m.is_none_or(|m| m.contains(*x)) && !model.contains(x))
                        .collect();
                    let got: BTreeSet<u32> = IdSet::from_words(delta.clone()).iter().collect();
                    assert_eq!(got, expected, "seed {seed} step {step}");
                    assert_eq!(changed, !expected.is_empty());
                    assert!(delta.windows(2).all(|w| w[0].0 < w[1].0));
                    model.extend(expected);
                }
                let was_dense = matches!(set, HybridSet::Dense { .. });
                saw_dense |= was_dense;
                assert_eq!(
                    set.iter().collect::<Vec<_>>(),
                    model.iter().copied().collect::<Vec<_>>()
                );
                assert_eq!(set.is_empty(), model.is_empty());
                let words: Vec<(u32, u64)> = set.words().collect();
                assert!(words.windows(2).all(|w| w[0].0 < w[1].0));
                assert!(words.iter().all(|w| w.1 != 0));
                if let HybridSet::Dense { words, .. } = &set {
                    assert!(words.first().is_some_and(|&w| w != 0));
                    assert!(words.last().is_some_and(|&w| w != 0));
                }
                let canonical = set.clone().into_idset();
                assert_eq!(canonical, model.iter().copied().collect::<IdSet>());
                let _ = was_dense;
            }
        }
        assert!(saw_dense, "no set took the dense form");
    }

    #[test]
    fn dense_grows_at_both_ends_and_falls_back_when_scattered() {
        let mut set = HybridSet::new();
        for x in (640..1_280).step_by(7) {
            set.insert(x);
        }
        assert!(matches!(set, HybridSet::Dense { first: 10, .. }));
        let mut delta = Vec::new();
        let low: IdSet = [3u32, 600].into_iter().collect();
        assert!(set.union_masked_into(low.words().iter().copied(), None, None, &mut delta));
        assert!(matches!(set, HybridSet::Dense { first: 0, .. }));
        assert_eq!(delta, vec![(0, 1 << 3), (9, 1 << (600 - 576))]);
        assert!(set.insert(1_300));
        assert!(matches!(set, HybridSet::Dense { .. }));
        assert!(set.insert(1_000_000));
        assert!(matches!(set, HybridSet::Sparse(_)));
        assert!(set.iter().any(|x| x == 1_000_000) && set.iter().any(|x| x == 3));
    }
}
