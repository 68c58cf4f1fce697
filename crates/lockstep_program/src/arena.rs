//! An append-only vector that hands out `&T` while other threads push.
//!
//! The program model loads library classes lazily from `&self` methods that
//! may run on many threads, yet `Program::class(id)` returns a plain
//! reference. Elements therefore never move: they live in buckets of
//! doubling size that are allocated once and never reallocated. Every slot
//! is a `OnceLock`, so the whole thing is safe code; pushes are serialised
//! by a mutex (they are rare next to reads, which take no lock).
//!
//! It knows nothing about classes or methods.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

/// Size of bucket 0; bucket `b` holds `FIRST << b` elements.
const FIRST: usize = 32;
/// Enough buckets for `FIRST * 2^27` (> 4 billion) elements: more than any
/// `u32` id can name.
const BUCKETS: usize = 28;

pub(crate) struct AppendVec<T> {
    buckets: [OnceLock<Box<[OnceLock<T>]>>; BUCKETS],
    len: AtomicUsize,
    push_lock: Mutex<()>,
}

/// Bucket and offset of index `i`.
fn locate(i: usize) -> (usize, usize) {
    let j = i + FIRST;
    let bucket = (usize::BITS - 1 - j.leading_zeros()) as usize - FIRST.trailing_zeros() as usize;
    (bucket, j - (FIRST << bucket))
}

impl<T> AppendVec<T> {
    pub(crate) fn new() -> AppendVec<T> {
        AppendVec {
            buckets: std::array::from_fn(|_| OnceLock::new()),
            len: AtomicUsize::new(0),
            push_lock: Mutex::new(()),
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.len.load(Ordering::Acquire)
    }

    pub(crate) fn get(&self, i: usize) -> Option<&T> {
        let (b, off) = locate(i);
        self.buckets.get(b)?.get()?.get(off)?.get()
    }

    /// Appends `make(index)` and returns its index; `None` when full.
    pub(crate) fn push_with(&self, make: impl FnOnce(usize) -> T) -> Option<usize> {
        // A poisoned lock only means another push panicked; the vector
        // itself is still consistent (slots are set before `len` moves).
        let _guard = self.push_lock.lock().unwrap_or_else(|e| e.into_inner());
        let i = self.len.load(Ordering::Acquire);
        let (b, off) = locate(i);
        let bucket = self.buckets.get(b)?.get_or_init(|| {
            (0..FIRST << b)
                .map(|_| OnceLock::new())
                .collect::<Vec<_>>()
                .into_boxed_slice()
        });
        bucket.get(off)?.set(make(i)).ok()?;
        self.len.store(i + 1, Ordering::Release);
        Some(i)
    }

    #[cfg(test)]
    pub(crate) fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        (0..self.len()).filter_map(move |i| self.get(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locate_is_contiguous() {
        let mut expect = (0, 0);
        for i in 0..10_000 {
            assert_eq!(locate(i), expect, "{i}");
            expect.1 += 1;
            if expect.1 == FIRST << expect.0 {
                expect = (expect.0 + 1, 0);
            }
        }
    }

    #[test]
    fn push_and_get_across_threads() {
        let v = AppendVec::new();
        std::thread::scope(|s| {
            for t in 0..4 {
                let v = &v;
                s.spawn(move || {
                    for k in 0..1000 {
                        v.push_with(|_| t * 1000 + k).unwrap();
                    }
                });
            }
        });
        assert_eq!(v.len(), 4000);
        let mut all: Vec<usize> = v.iter().copied().collect();
        all.sort();
        assert_eq!(all, (0..4000).collect::<Vec<_>>());
        assert!(v.get(4000).is_none());
    }
}
