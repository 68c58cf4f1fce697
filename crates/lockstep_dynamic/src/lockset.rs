//! The lockset checker: Eraser (Savage et al.) with the extensions of the
//! paper:
//!
//! - **dynamic escape**: a variable is *exclusive* to the first thread that
//!   touches it; its accesses cannot race until a second thread comes;
//! - **read-only after escape**: while shared but never written since,
//!   reads need no lock;
//! - **start/join ordering** (switchable): a variable passes from one
//!   thread to another without becoming shared when the owner's last access
//!   is ordered before the newcomer by thread start/join alone (fork/join
//!   vector clocks), so "write in a worker, read after `join`" is silent;
//! - **hand-off ordering** (switchable, an extension of the previous one):
//!   ownership passes the same way along the other non-lock edges of the
//!   trace — volatiles, atomics, queues, latches, futures, thread-safe
//!   containers, class initialization ([`crate::handoff`]) — so an object
//!   built by one thread and published to another through an
//!   `AtomicReference` stays owned by one thread at a time. Locks never
//!   order: they are what the locksets check;
//! - **multi-lockset** (switchable): a write lockset (the locks held
//!   exclusively at every write) and the distinct read locksets; a write
//!   must share a lock with every other access, a read only with the writes.
//!   A read view of a read-write lock protects reads only.
//!
//! Without multi-lockset it is plain Eraser: one candidate set, intersected
//! at every access, reported when empty once the variable was written while
//! shared.

use lockstep_trace::{Event, LockKind, ObjId, ThreadId};

use crate::context::{Access, LocksetId, Locksets, Tid};
use crate::fast_hash::FastMap;
use crate::handoff::SyncClocks;
use crate::race::{CheckerKind, Races, Var, VarId};
use crate::vc::{Epoch, ForkJoin, VectorClock};

/// Interned sorted sets of lock object ids; 0 is the empty set.
type SetId = u32;
/// No write seen while shared (the write set is "all locks").
const NO_WRITE: SetId = u32::MAX;
/// At most this many distinct read sets are kept; beyond, they are merged
/// into their intersection (may report more, never less).
const MAX_READ_SETS: usize = 8;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Only `owner` has touched it; `since` = owner's fork/join time.
    Exclusive(Epoch),
    /// Shared, not written since it became shared.
    Shared,
    /// Shared and written.
    SharedModified,
}

#[derive(Debug)]
struct VarState {
    state: State,
    /// Multi-lockset: ∩ of exclusively held locks over writes. Plain: the one candidate set.
    writes: SetId,
    reads: Vec<SetId>,
    last: Option<Access>,
    last_other: Option<Access>,
    /// The last write, and the last write by another thread than its
    /// (a read is reported against a write, never against a read).
    last_write: Option<Access>,
    last_write_other: Option<Access>,
}

/// The lockset checker's state.
#[derive(Debug)]
pub struct Lockset {
    join_ordering: bool,
    handoff_ordering: bool,
    syncs: SyncClocks,
    multi: bool,
    /// Fork/join-only vector clocks.
    clocks: Vec<VectorClock>,
    fork_join: ForkJoin,
    /// Shadow state indexed by [`VarId`]; `None` until the first access.
    vars: Vec<Option<VarState>>,
    sets: Vec<Vec<ObjId>>,
    set_index: FastMap<Vec<ObjId>, SetId>,
    intersections: FastMap<(SetId, SetId), SetId>,
    /// Per lockset id: (all locks, exclusively held locks).
    derived: Vec<Option<(SetId, SetId)>>,
}

impl Lockset {
    /// A checker; `join_ordering` and `multi` switch the extensions.
    pub fn new(join_ordering: bool, multi: bool) -> Self {
        Self::with_handoffs(join_ordering, false, multi)
    }

    /// A checker whose ownership also passes along hand-offs (when
    /// `handoff_ordering`, which needs `join_ordering`).
    pub fn with_handoffs(join_ordering: bool, handoff_ordering: bool, multi: bool) -> Self {
        let mut set_index = FastMap::default();
        set_index.insert(Vec::new(), 0);
        Lockset {
            join_ordering,
            handoff_ordering: join_ordering && handoff_ordering,
            syncs: SyncClocks::default(),
            multi,
            clocks: Vec::new(),
            fork_join: ForkJoin::default(),
            vars: Vec::new(),
            sets: vec![Vec::new()],
            set_index,
            intersections: FastMap::default(),
            derived: Vec::new(),
        }
    }

    /// Makes sure thread `t` has a fork/join clock.
    pub fn ensure(&mut self, t: Tid) {
        while self.clocks.len() <= t as usize {
            let mut c = VectorClock::default();
            c.set(self.clocks.len() as Tid, 1);
            self.clocks.push(c);
        }
    }

    /// Start/join and hand-off bookkeeping (the only ordering this checker
    /// uses: ownership transfer, never lock protection).
    pub fn sync(&mut self, t: Tid, thread: ThreadId, e: &Event) {
        let c = &mut self.clocks[t as usize];
        if !(self.handoff_ordering && self.syncs.step(c, t, e)) {
            self.fork_join.step(c, t, thread, e);
        }
    }

    fn intern(&mut self, set: Vec<ObjId>) -> SetId {
        if let Some(&id) = self.set_index.get(&set) {
            return id;
        }
        let id = self.sets.len() as SetId;
        self.sets.push(set.clone());
        self.set_index.insert(set, id);
        id
    }

    fn intersect(&mut self, a: SetId, b: SetId) -> SetId {
        if a == b || a == NO_WRITE {
            return b;
        }
        if b == NO_WRITE {
            return a;
        }
        if a == 0 || b == 0 {
            return 0;
        }
        let key = (a.min(b), a.max(b));
        if let Some(&r) = self.intersections.get(&key) {
            return r;
        }
        let sb = &self.sets[b as usize];
        let both: Vec<ObjId> = self.sets[a as usize]
            .iter()
            .copied()
            .filter(|l| sb.binary_search(l).is_ok())
            .collect();
        let r = self.intern(both);
        self.intersections.insert(key, r);
        r
    }

    /// (all held locks, exclusively held locks) of a thread's lockset.
    fn split(&mut self, locks: LocksetId, locksets: &Locksets) -> (SetId, SetId) {
        if let Some(Some(d)) = self.derived.get(locks as usize) {
            return *d;
        }
        let held = locksets.get(locks);
        let mut all: Vec<ObjId> = held.iter().map(|h| h.0).collect();
        let mut excl: Vec<ObjId> = held
            .iter()
            .filter(|h| h.1 != LockKind::Read)
            .map(|h| h.0)
            .collect();
        all.dedup();
        excl.dedup();
        let d = (self.intern(all), self.intern(excl));
        if self.derived.len() <= locks as usize {
            self.derived.resize(locks as usize + 1, None);
        }
        self.derived[locks as usize] = Some(d);
        d
    }

    /// Checks and records an access to `var`, interned as `id`.
    pub fn access(
        &mut self,
        id: VarId,
        var: Var,
        acc: Access,
        locksets: &Locksets,
        races: &mut Races,
    ) {
        let t = acc.thread;
        let (all, excl) = self.split(acc.locks, locksets);
        let clock = &self.clocks[t as usize];
        let now = clock.epoch(t);
        let i = id as usize;
        if i >= self.vars.len() {
            self.vars.resize_with(i + 1, || None);
        }
        let Some(st) = &mut self.vars[i] else {
            self.vars[i] = Some(VarState {
                state: State::Exclusive(now),
                writes: NO_WRITE,
                reads: Vec::new(),
                last: Some(acc),
                last_other: None,
                last_write: acc.write.then_some(acc),
                last_write_other: None,
            });
            return;
        };
        if let State::Exclusive(owner) = st.state {
            if owner.thread() == t || (self.join_ordering && clock.covers(owner)) {
                st.state = State::Exclusive(now);
                remember(st, acc);
                return;
            }
            st.state = State::Shared;
        }
        // The access this one conflicts with: for a write, the last access
        // of another thread; for a read, the last write of another thread.
        let other = if acc.write {
            match st.last {
                Some(l) if l.thread != t => Some(l),
                _ => st.last_other,
            }
        } else {
            match st.last_write {
                Some(w) if w.thread != t => Some(w),
                _ => st.last_write_other,
            }
        };
        // The set operations need `&mut self`: work on the sets taken out
        // of the state (no allocation) and put them back.
        let (writes, mut reads) = (st.writes, std::mem::take(&mut st.reads));
        let (writes, racy) = if self.multi {
            self.multi_step(acc.write, writes, &mut reads, all, excl)
        } else {
            self.plain_step(writes, all)
        };
        let Some(st) = &mut self.vars[i] else {
            return;
        };
        st.writes = writes;
        st.reads = reads;
        if acc.write {
            st.state = State::SharedModified;
        }
        remember(st, acc);
        if racy && st.state == State::SharedModified {
            if let Some(o) = other {
                races.add(CheckerKind::Lockset, var, o, acc);
            }
        }
    }

    /// Multi-lockset update of a variable's write set and read sets; gives
    /// the new write set and whether the access shares no lock with a
    /// conflicting one.
    fn multi_step(
        &mut self,
        write: bool,
        writes: SetId,
        reads: &mut Vec<SetId>,
        all: SetId,
        excl: SetId,
    ) -> (SetId, bool) {
        if write {
            let w = self.intersect(writes, excl);
            let mut racy = w == 0;
            for &r in reads.iter() {
                racy |= self.intersect(r, w) == 0;
            }
            (w, racy)
        } else {
            let racy = writes != NO_WRITE && self.intersect(all, writes) == 0;
            if reads.contains(&all) {
            } else if reads.len() >= MAX_READ_SETS {
                let mut m = all;
                for &r in reads.iter() {
                    m = self.intersect(m, r);
                }
                reads.clear();
                reads.push(m);
            } else {
                reads.push(all);
            }
            (writes, racy)
        }
    }

    /// Plain Eraser: one candidate set over all accesses since sharing.
    fn plain_step(&mut self, writes: SetId, all: SetId) -> (SetId, bool) {
        let c = self.intersect(writes, all);
        (c, c == 0)
    }
}

/// Keeps the last access and the last one of another thread, and the
/// same for writes.
fn remember(st: &mut VarState, acc: Access) {
    if let Some(l) = st.last {
        if l.thread != acc.thread {
            st.last_other = Some(l);
        }
    }
    st.last = Some(acc);
    if acc.write {
        if let Some(w) = st.last_write {
            if w.thread != acc.thread {
                st.last_write_other = Some(w);
            }
        }
        st.last_write = Some(acc);
    }
}
