//! The happens-before checker: vector clocks with FastTrack's epoch fast
//! path (Flanagan & Freund). A variable keeps the epoch of its last write
//! and either the epoch of its last read or, when reads are concurrent, a
//! read clock. Edges: lock release → later acquisition of the same lock
//! (read-write locks: write release → every later acquisition, read
//! release → later write acquisitions), `SyncRelease` → `SyncAcquire` on the
//! same `(obj, key)` (volatiles, latches, queues, futures, executors),
//! thread start → child, child end → join, class initialization → static
//! accesses of that class. Only edges seen in the trace order accesses, so
//! every report is a pair of accesses this execution left unordered.

use lockstep_trace::{Event, LockKind, ObjId, ThreadId};

use crate::context::{Access, LockStep, Tid};
use crate::fast_hash::FastMap;
use crate::race::{CheckerKind, Races, Var};
use crate::vc::{Epoch, ForkJoin, VectorClock};

#[derive(Debug, Default)]
struct LockClocks {
    /// Released by exclusive holders.
    write: VectorClock,
    /// Joined by read-lock holders.
    read: VectorClock,
}

#[derive(Debug)]
enum Reads {
    None,
    One(Epoch, Access),
    /// Indexed by thread: (clock, access); clock 0 = no read.
    Many(Vec<(u32, Access)>),
}

#[derive(Debug)]
struct VarState {
    write: Epoch,
    write_access: Option<Access>,
    reads: Reads,
}

/// The FastTrack checker's state.
#[derive(Debug, Default)]
pub struct HappensBefore {
    clocks: Vec<VectorClock>,
    locks: FastMap<ObjId, LockClocks>,
    syncs: FastMap<(ObjId, u32), VectorClock>,
    fork_join: ForkJoin,
    classes: FastMap<String, VectorClock>,
    vars: FastMap<Var, VarState>,
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
        match *e {
            Event::SyncRelease { obj, key, .. } => {
                self.syncs.entry((obj, key)).or_default().join(c);
                c.tick(t);
            }
            Event::SyncAcquire { obj, key, .. } => {
                if let Some(s) = self.syncs.get(&(obj, key)) {
                    c.join(s);
                }
            }
            _ => self.fork_join.step(c, t, thread, e),
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

    /// Checks and records an access.
    #[inline]
    pub fn access(&mut self, var: Var, acc: Access, races: &mut Races) {
        let t = acc.thread;
        let c = &self.clocks[t as usize];
        let now = c.epoch(t);
        let st = self.vars.entry(var).or_insert(VarState {
            write: Epoch::NONE,
            write_access: None,
            reads: Reads::None,
        });
        if acc.write {
            if st.write == now {
                return;
            }
            if !c.covers(st.write) {
                if let Some(w) = st.write_access {
                    races.add(CheckerKind::HappensBefore, var, w, acc);
                }
            }
            match &st.reads {
                Reads::None => {}
                Reads::One(e, r) => {
                    if !c.covers(*e) {
                        races.add(CheckerKind::HappensBefore, var, *r, acc);
                    }
                }
                Reads::Many(v) => {
                    for (u, (clock, r)) in v.iter().enumerate() {
                        if *clock > c.get(u as Tid) {
                            races.add(CheckerKind::HappensBefore, var, *r, acc);
                        }
                    }
                }
            }
            st.reads = Reads::None;
            st.write = now;
            st.write_access = Some(acc);
        } else {
            match &mut st.reads {
                Reads::One(e, _) if *e == now => return,
                Reads::Many(v) if v.get(t as usize).is_some_and(|r| r.0 == now.clock()) => return,
                _ => {}
            }
            if !c.covers(st.write) {
                if let Some(w) = st.write_access {
                    races.add(CheckerKind::HappensBefore, var, w, acc);
                }
            }
            st.reads = match std::mem::replace(&mut st.reads, Reads::None) {
                Reads::None => Reads::One(now, acc),
                Reads::One(e, r) if c.covers(e) => {
                    let _ = r;
                    Reads::One(now, acc)
                }
                Reads::One(e, r) => {
                    let mut v = Vec::new();
                    put_read(&mut v, e.thread(), e.clock(), r);
                    put_read(&mut v, t, now.clock(), acc);
                    Reads::Many(v)
                }
                Reads::Many(mut v) => {
                    put_read(&mut v, t, now.clock(), acc);
                    Reads::Many(v)
                }
            };
        }
    }
}

fn put_read(v: &mut Vec<(u32, Access)>, t: Tid, clock: u32, acc: Access) {
    let i = t as usize;
    if v.len() <= i {
        v.resize(i + 1, (0, acc));
    }
    v[i] = (clock, acc);
}
