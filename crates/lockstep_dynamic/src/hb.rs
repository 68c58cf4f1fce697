//! The happens-before checker: vector clocks with FastTrack's epoch fast
//! path (Flanagan & Freund). A variable keeps the epoch of its last write
//! and either the epoch of its last read or, when reads are concurrent, a
//! read clock. Edges: lock release → later acquisition of the same lock
//! (read-write locks: write release → every later acquisition, read
//! release → later write acquisitions), `SyncRelease` → `SyncAcquire` on the
//! same `(obj, key)` (volatiles, atomics, latches, queues, futures,
//! executors, thread-safe containers, class initialization: see
//! [`crate::handoff`]), thread start → child, child end → join, and for
//! traces without class-init sync events, class initialization → the
//! first static access of that class in the merged order. Only edges seen in the trace order accesses, so
//! every report is a pair of accesses this execution left unordered.

use lockstep_trace::{Event, LockKind, ObjId, ThreadId};

use crate::context::{Access, LockStep, Tid};
use crate::fast_hash::FastMap;
use crate::handoff::SyncClocks;
use crate::race::{CheckerKind, Races, Var, VarId};
use crate::vc::{Epoch, ForkJoin, VectorClock};

#[derive(Debug, Default)]
struct LockClocks {
    /// Released by exclusive holders.
    write: VectorClock,
    /// Joined by read-lock holders.
    read: VectorClock,
}

/// What a check loads for every access: 24 bytes, so a variable's hot
/// state shares its cache line with its neighbours'. The accesses kept for
/// reporting live apart ([`Witnesses`]): they are written often but read
/// only when a race is reported.
#[derive(Debug, Clone, Copy)]
struct VarState {
    /// Epoch of the last write ([`Epoch::NONE`]: never written).
    write: Epoch,
    /// Epoch of the last read when the reads are totally ordered
    /// (FastTrack's read epoch); [`Epoch::NONE`] when not read since the
    /// last write or when `shared` is set.
    read: Epoch,
    /// 0, or 1 + the index of the variable's read clock in
    /// [`HappensBefore::shared`] when concurrent reads made the reads
    /// read-shared.
    shared: u32,
}

impl VarState {
    const UNTOUCHED: VarState = VarState {
        write: Epoch::NONE,
        read: Epoch::NONE,
        shared: 0,
    };
}

/// The accesses behind a variable's epochs, for the reports.
#[derive(Debug, Clone, Copy)]
struct Witnesses {
    /// The last write (set with `VarState::write`).
    write: Option<Access>,
    /// The last read (meaningful while `VarState::read` is an epoch).
    read: Option<Access>,
}

/// A read-shared variable's reads: per thread, the clock of its last read
/// (0 = none since the last write) and that read.
#[derive(Debug, Default)]
struct SharedReads {
    clocks: Vec<u32>,
    accesses: Vec<Option<Access>>,
}

impl SharedReads {
    fn put(&mut self, t: Tid, clock: u32, acc: Access) {
        let i = t as usize;
        if self.clocks.len() <= i {
            self.clocks.resize(i + 1, 0);
            self.accesses.resize(i + 1, None);
        }
        self.clocks[i] = clock;
        self.accesses[i] = Some(acc);
    }
}

/// The FastTrack checker's state.
#[derive(Debug, Default)]
pub struct HappensBefore {
    clocks: Vec<VectorClock>,
    locks: FastMap<ObjId, LockClocks>,
    syncs: SyncClocks,
    fork_join: ForkJoin,
    classes: FastMap<String, VectorClock>,
    /// Shadow state, indexed by [`VarId`].
    vars: Vec<VarState>,
    /// The accesses behind `vars`, same index.
    witnesses: Vec<Witnesses>,
    /// Read clocks of read-shared variables (`VarState::shared`).
    shared: Vec<SharedReads>,
    /// Entries of `shared` released by a write, for reuse.
    free_shared: Vec<u32>,
}

fn exclusive(kind: LockKind) -> bool {
    kind != LockKind::Read
}

impl HappensBefore {
    /// Makes sure internal thread `t` has a clock (its own entry starts at 1).
    pub fn ensure(&mut self, t: Tid) {
        while self.clocks.len() <= t as usize {
            let mut c = VectorClock::default();
            c.set(self.clocks.len() as Tid, 1);
            self.clocks.push(c);
        }
    }

    /// Applies the synchronization effect of `e` by thread `t` (recorder id
    /// `thread`); `step` says whether a lock was taken or released outright.
    pub fn sync(&mut self, t: Tid, thread: ThreadId, e: &Event, step: LockStep) {
        let c = &mut self.clocks[t as usize];
        match step {
            LockStep::Acquired(lock, kind) => {
                if let Some(l) = self.locks.get(&lock) {
                    c.join(&l.write);
                    if exclusive(kind) {
                        c.join(&l.read);
                    }
                }
                return;
            }
            LockStep::Released(lock, kind) => {
                let l = self.locks.entry(lock).or_default();
                if exclusive(kind) {
                    l.write.assign(c);
                } else {
                    l.read.join(c);
                }
                c.tick(t);
                return;
            }
            LockStep::None => {}
        }
        if !self.syncs.step(c, t, e) {
            self.fork_join.step(c, t, thread, e);
        }
    }

    /// A class's initializer finished in thread `t`.
    pub fn class_initialized(&mut self, t: Tid, class: &str) {
        let c = &mut self.clocks[t as usize];
        self.classes.entry(class.to_owned()).or_default().join(c);
        c.tick(t);
    }

    /// Thread `t` first touches a static field of `class`: the class's
    /// initialization happens before.
    pub fn class_used(&mut self, t: Tid, class: &str) {
        if let Some(s) = self.classes.get(class) {
            self.clocks[t as usize].join(s);
        }
    }

    /// Checks and records an access to `var`, interned as `id`.
    #[inline]
    pub fn access(&mut self, id: VarId, var: Var, acc: Access, races: &mut Races) {
        let i = id as usize;
        if i >= self.vars.len() {
            self.vars.resize(i + 1, VarState::UNTOUCHED);
            self.witnesses.resize(
                i + 1,
                Witnesses {
                    write: None,
                    read: None,
                },
            );
        }
        let t = acc.thread;
        let c = &self.clocks[t as usize];
        let now = c.epoch(t);
        let st = self.vars[i];
        // FastTrack's same-epoch fast paths: nothing to check or record.
        let same = if acc.write {
            st.write == now
        } else if st.shared == 0 {
            st.read == now
        } else {
            let reads = &self.shared[st.shared as usize - 1];
            reads.clocks.get(t as usize) == Some(&now.clock())
        };
        if same {
            return;
        }
        let race = |races: &mut Races, earlier: Option<Access>| {
            if let Some(e) = earlier {
                races.add(CheckerKind::HappensBefore, var, e, acc);
            }
        };
        let w = &mut self.witnesses[i];
        if !c.covers(st.write) {
            race(races, w.write);
        }
        if acc.write {
            if st.shared != 0 {
                let k = st.shared - 1;
                let reads = &mut self.shared[k as usize];
                for (u, &clock) in reads.clocks.iter().enumerate() {
                    if clock > c.get(u as Tid) {
                        race(races, reads.accesses[u]);
                    }
                }
                reads.clocks.clear();
                reads.accesses.clear();
                self.free_shared.push(k);
            } else if !c.covers(st.read) {
                race(races, w.read);
            }
            self.vars[i] = VarState {
                write: now,
                read: Epoch::NONE,
                shared: 0,
            };
            w.write = Some(acc);
        } else if st.shared != 0 {
            self.shared[st.shared as usize - 1].put(t, now.clock(), acc);
        } else if c.covers(st.read) {
            // Ordered after the previous read (or the first read): it replaces it.
            self.vars[i].read = now;
            w.read = Some(acc);
        } else {
            // Concurrent with the previous read: the reads become read-shared.
            let previous = w.read;
            let k = match self.free_shared.pop() {
                Some(k) => k,
                None => {
                    self.shared.push(SharedReads::default());
                    (self.shared.len() - 1) as u32
                }
            };
            let reads = &mut self.shared[k as usize];
            if let Some(p) = previous {
                reads.put(st.read.thread(), st.read.clock(), p);
            }
            reads.put(t, now.clock(), acc);
            self.vars[i].read = Epoch::NONE;
            self.vars[i].shared = k + 1;
        }
    }
}
