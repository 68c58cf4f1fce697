//! Vector clocks and epochs (FastTrack's `c@t`).

use lockstep_trace::{Event, ThreadId};

use crate::context::Tid;
use crate::fast_hash::FastMap;

/// Thread start and join edges, shared by both checkers.
#[derive(Debug, Default)]
pub struct ForkJoin {
    started: FastMap<ThreadId, VectorClock>,
    ended: FastMap<ThreadId, VectorClock>,
}

impl ForkJoin {
    /// Applies a start/begin/end/join event of thread `t` (recorder id
    /// `thread`) to its clock `c`.
    pub fn step(&mut self, c: &mut VectorClock, t: Tid, thread: ThreadId, e: &Event) {
        match *e {
            Event::ThreadStart { child, .. } => {
                self.started.insert(child, c.clone());
                c.tick(t);
            }
            Event::ThreadBegin { parent: Some(_) } => {
                if let Some(s) = self.started.remove(&thread) {
                    c.join(&s);
                }
            }
            Event::ThreadEnd => {
                self.ended.insert(thread, c.clone());
            }
            Event::ThreadJoin { child, .. } => {
                if let Some(s) = self.ended.get(&child) {
                    c.join(s);
                }
            }
            _ => {}
        }
    }
}

/// A vector clock indexed by internal thread index; missing entries are 0.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VectorClock(Vec<u32>);

impl VectorClock {
    /// The entry of `t`.
    #[inline]
    pub fn get(&self, t: Tid) -> u32 {
        self.0.get(t as usize).copied().unwrap_or(0)
    }

    /// Sets the entry of `t`.
    #[inline]
    pub fn set(&mut self, t: Tid, v: u32) {
        let i = t as usize;
        if self.0.len() <= i {
            self.0.resize(i + 1, 0);
        }
        self.0[i] = v;
    }

    /// Increments the entry of `t`.
    #[inline]
    pub fn tick(&mut self, t: Tid) {
        let v = self.get(t).saturating_add(1);
        self.set(t, v);
    }

    /// Pointwise maximum with `other`.
    pub fn join(&mut self, other: &VectorClock) {
        if self.0.len() < other.0.len() {
            self.0.resize(other.0.len(), 0);
        }
        for (a, &b) in self.0.iter_mut().zip(&other.0) {
            *a = (*a).max(b);
        }
    }

    /// Copies `other` into `self`, reusing the allocation.
    pub fn assign(&mut self, other: &VectorClock) {
        self.0.clear();
        self.0.extend_from_slice(&other.0);
    }

    /// The epoch of `t` in this clock.
    #[inline]
    pub fn epoch(&self, t: Tid) -> Epoch {
        Epoch::new(t, self.get(t))
    }

    /// True when `e` happened before (or is) this clock's time.
    #[inline]
    pub fn covers(&self, e: Epoch) -> bool {
        e.clock() <= self.get(e.thread())
    }
}

/// A thread's clock value: `clock@thread` packed in 64 bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Epoch(u64);

impl Epoch {
    /// No access yet (clock 0 is below every thread's first clock 1).
    pub const NONE: Epoch = Epoch(0);

    /// `clock@thread`.
    #[inline]
    pub fn new(thread: Tid, clock: u32) -> Self {
        Epoch((u64::from(clock) << 32) | u64::from(thread))
    }

    /// The thread.
    #[inline]
    pub fn thread(self) -> Tid {
        self.0 as u32
    }

    /// The clock.
    #[inline]
    pub fn clock(self) -> u32 {
        (self.0 >> 32) as u32
    }
}
