//! The event log the atomicity checkers work on (paper 003, slides 7–24).
//!
//! While the run streams, [`AtomicLog`] keeps, per event that matters for
//! atomicity (method entry/exit, outermost lock acquire/release, accesses),
//! the thread, the site, the lock *instances* held (a lock re-acquired after
//! a release is a new instance, so "held across two events" is an equality
//! of instances) and the access's on-line mover class. The classification is
//! its own small lockset (slides 15–16: dynamic escape, read-only after
//! escape, start/join and hand-off ownership transfer, Eraser candidate
//! set): the race checkers' state is not shared, so their options cannot
//! change what the atomicity checkers see. Calls on thread-safe JDK
//! containers hold the container as a lock for their duration: on their
//! own they are [`Mover::Atomic`] non-movers (two of them in one
//! transaction are check-then-act), made while the thread holds the
//! container's monitor they are protected movers.
//!
//! The checkers run at the end ([`crate::transactions`]): which methods are
//! transactions depends on which classes the whole run shared.

use lockstep_trace::{Event, LockKind, ObjId, SiteId, ThreadId};

use crate::context::{LockStep, Tid};
use crate::fast_hash::FastMap;
use crate::handoff::SyncClocks;
use crate::race::{Var, VarId};
use crate::vc::{Epoch, ForkJoin, VectorClock};

/// Interned set of held lock instances; 0 is the empty set.
pub type HeldId = u32;

/// On-line class of an access (slide 17, step 1, at the moment of the access).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mover {
    /// The variable belonged to this thread alone (before escape, or passed
    /// to it by start/join or a hand-off).
    Local,
    /// Shared, but not written since it became shared.
    ReadOnly,
    /// Shared and written, and some lock was held at every access since sharing.
    Protected,
    /// Shared, written, no common lock: a non-mover.
    Racy,
    /// A call on a thread-safe container: atomic, but not a mover.
    Atomic,
}

/// What a logged event is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogKind {
    /// Method entry.
    Enter(lockstep_trace::MethodId),
    /// Method exit.
    Exit(lockstep_trace::MethodId),
    /// Outermost acquisition of a lock.
    Acquire(ObjId),
    /// Complete release of a lock.
    Release(ObjId),
    /// A read or write of a variable.
    Access {
        /// The variable.
        var: VarId,
        /// Write or read.
        write: bool,
        /// Its on-line class.
        mover: Mover,
    },
}

/// One logged event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogEvent {
    /// Internal thread index.
    pub thread: Tid,
    /// Where (0 for method entry/exit).
    pub site: SiteId,
    /// Lock instances held at the event (after an acquire, before a release).
    pub held: HeldId,
    /// The thread's start/join/hand-off clock at the event (index in
    /// [`AtomicLog::clocks`]).
    pub clock: u32,
    /// What.
    pub kind: LogKind,
}

impl LogEvent {
    /// The variable and write flag of an access.
    pub fn access(&self) -> Option<(VarId, bool)> {
        match self.kind {
            LogKind::Access { var, write, .. } => Some((var, write)),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Owner {
    Exclusive(Epoch),
    Shared,
}

/// A variable's lockset state.
#[derive(Debug)]
pub struct VarShadow {
    /// The variable.
    pub var: Var,
    owner: Owner,
    written_shared: bool,
    /// Locks held at every access since sharing (`None`: not shared yet).
    candidates: Option<Vec<ObjId>>,
    /// Accesses on a thread-safe container: each call holds the
    /// container itself as a lock (true of `Vector`, `Hashtable` and the
    /// synchronized wrappers; assumed of the concurrent collections).
    pub atomic: bool,
}

impl VarShadow {
    /// Was it ever touched by two threads (not passed from one to the other)?
    pub fn shared(&self) -> bool {
        self.owner == Owner::Shared
    }

    /// The final verdict (slide 17, off-line): shared, written while
    /// shared and no lock common to all accesses since sharing.
    pub fn racy_at_end(&self) -> bool {
        self.owner == Owner::Shared
            && self.written_shared
            && self.candidates.as_ref().is_none_or(Vec::is_empty)
    }
}

/// Per thread: the lock instances it holds and its ownership clock.
#[derive(Debug, Default)]
struct ThreadLocks {
    held: Vec<(ObjId, u32)>,
    held_id: HeldId,
    /// Index of the thread's current clock snapshot.
    clock: u32,
    /// The call on a thread-safe container being recorded.
    open_call: Option<OpenCall>,
    /// The thread's previous event was an `Enter`.
    after_enter: bool,
    /// The thread's event before the current one was an `Enter`.
    entered_just_before: bool,
}

/// A call on a thread-safe container between its first event and the
/// acquire after it. The recorder brackets each call: an acquire before it
/// (callbacks such as `equals` read what other threads put), a release
/// before a writing call, an acquire after it; a call through an interface
/// type is also preceded by its container access event. A method the
/// container calls back acquires the container right after its `Enter`
/// (and, in a writing call, releases it before its `Exit`, a release the
/// logged write already covers): that acquire is the callback's, not the
/// call's end.
#[derive(Debug, Clone, Copy)]
struct OpenCall {
    obj: ObjId,
    /// Acquires seen so far: the second one ends the call.
    acquires: u8,
    /// The call's one access is logged already.
    logged: bool,
}

impl OpenCall {
    fn new(obj: ObjId, logged: bool) -> OpenCall {
        OpenCall {
            obj,
            acquires: 0,
            logged,
        }
    }
}

/// The log and the lockset state behind its classification.
#[derive(Debug)]
pub struct AtomicLog {
    /// Logged events in the merged order.
    pub events: Vec<LogEvent>,
    /// Per variable id (dense, as the engine numbers them).
    pub vars: Vec<Option<VarShadow>>,
    /// Interned held-instance sets: sorted `(lock, instance)`.
    pub held_sets: Vec<Vec<(ObjId, u32)>>,
    held_index: FastMap<Vec<(ObjId, u32)>, HeldId>,
    /// Lock objects and the first thread that took each; `None` once a
    /// second thread did.
    pub lock_users: FastMap<ObjId, Option<Tid>>,
    threads: Vec<ThreadLocks>,
    /// Snapshots of threads' clocks, one per change (events point at them).
    pub clocks: Vec<VectorClock>,
    /// Each thread's current clock.
    current: Vec<VectorClock>,
    fork_join: ForkJoin,
    syncs: SyncClocks,
    next_instance: u32,
}

impl Default for AtomicLog {
    fn default() -> Self {
        let mut held_index = FastMap::default();
        held_index.insert(Vec::new(), 0);
        AtomicLog {
            events: Vec::new(),
            vars: Vec::new(),
            held_sets: vec![Vec::new()],
            held_index,
            lock_users: FastMap::default(),
            threads: Vec::new(),
            clocks: Vec::new(),
            current: Vec::new(),
            fork_join: ForkJoin::default(),
            syncs: SyncClocks::default(),
            next_instance: 0,
        }
    }
}

impl AtomicLog {
    /// Makes sure thread `t` has a state.
    pub fn ensure(&mut self, t: Tid) {
        while self.threads.len() <= t as usize {
            let mut c = VectorClock::default();
            c.set(self.current.len() as Tid, 1);
            self.threads.push(ThreadLocks {
                clock: self.clocks.len() as u32,
                ..ThreadLocks::default()
            });
            self.clocks.push(c.clone());
            self.current.push(c);
        }
    }

    /// Did event `a` happen before event `b` by start/join and hand-offs
    /// alone (so no interleaving can put `b` first)?
    pub fn ordered(&self, a: &LogEvent, b: &LogEvent) -> bool {
        let (Some(ca), Some(cb)) = (
            self.clocks.get(a.clock as usize),
            self.clocks.get(b.clock as usize),
        ) else {
            return false;
        };
        a.thread != b.thread && cb.covers(ca.epoch(a.thread))
    }

    /// The locks (objects, without instances) of a held set.
    pub fn locks_of(&self, held: HeldId) -> impl Iterator<Item = ObjId> + '_ {
        self.held_sets
            .get(held as usize)
            .into_iter()
            .flatten()
            .map(|h| h.0)
    }

    /// The locks held at event `e`, with the container a thread-safe
    /// container call holds for its duration.
    pub fn event_locks(&self, e: &LogEvent) -> Vec<ObjId> {
        let mut locks: Vec<ObjId> = self.locks_of(e.held).collect();
        if let LogKind::Access { var, .. } = e.kind {
            if let Some(s) = self.vars.get(var as usize).and_then(Option::as_ref) {
                if s.atomic {
                    locks.push(s.var.obj);
                }
            }
        }
        locks
    }

    /// Logs a non-access event of thread `t` (`step`: what it did to the
    /// thread's locks, reentrant steps being `None`).
    pub fn step(&mut self, t: Tid, thread: ThreadId, e: &Event, step: LockStep) {
        let kind = match (*e, step) {
            (Event::Enter { method }, _) => LogKind::Enter(method),
            (Event::Exit { method }, _) => LogKind::Exit(method),
            (_, LockStep::Acquired(lock, kind)) => {
                self.acquired(t, lock, kind);
                LogKind::Acquire(lock)
            }
            (_, LockStep::Released(lock, _)) => LogKind::Release(lock),
            _ => {
                let c = &mut self.current[t as usize];
                let before = c.clone();
                if !self.syncs.step(c, t, e) {
                    self.fork_join.step(c, t, thread, e);
                }
                if *c != before {
                    self.threads[t as usize].clock = self.clocks.len() as u32;
                    self.clocks.push(c.clone());
                }
                return;
            }
        };
        let site = crate::event_site(e);
        let ts = &self.threads[t as usize];
        self.events.push(LogEvent {
            thread: t,
            site,
            held: ts.held_id,
            clock: ts.clock,
            kind,
        });
        if let LockStep::Released(lock, _) = step {
            self.released(t, lock);
        }
    }

    fn acquired(&mut self, t: Tid, lock: ObjId, kind: LockKind) {
        match self.lock_users.get(&lock) {
            Some(Some(first)) if *first != t => {
                self.lock_users.insert(lock, None);
            }
            Some(_) => {}
            None => {
                self.lock_users.insert(lock, Some(t));
            }
        }
        // A read view excludes no other reader: it protects nothing between
        // transactions, so it is not held for the block analysis.
        if kind == LockKind::Read {
            return;
        }
        self.next_instance = self.next_instance.wrapping_add(1);
        let instance = self.next_instance;
        let ts = &mut self.threads[t as usize];
        ts.held.push((lock, instance));
        self.rehold(t);
    }

    fn released(&mut self, t: Tid, lock: ObjId) {
        let ts = &mut self.threads[t as usize];
        if let Some(i) = ts.held.iter().position(|h| h.0 == lock) {
            ts.held.remove(i);
            self.rehold(t);
        }
    }

    fn rehold(&mut self, t: Tid) {
        let mut set = self.threads[t as usize].held.clone();
        set.sort_unstable();
        let id = match self.held_index.get(&set) {
            Some(&id) => id,
            None => {
                let id = self.held_sets.len() as HeldId;
                self.held_sets.push(set.clone());
                self.held_index.insert(set, id);
                id
            }
        };
        self.threads[t as usize].held_id = id;
    }

    /// Notes each event of thread `t` before it is logged (whatever kind),
    /// so [`AtomicLog::collection_call`] knows whether the thread's
    /// previous event was an `Enter`.
    #[inline]
    pub fn saw(&mut self, t: Tid, e: &Event) {
        let ts = &mut self.threads[t as usize];
        ts.entered_just_before = ts.after_enter;
        ts.after_enter = matches!(e, Event::Enter { .. });
    }

    /// Logs the `SyncRelease`/`SyncAcquire` of a call on a thread-safe
    /// container (`var` is its contents): the call is logged as one atomic
    /// access, a write when it releases, at the release or at the acquire
    /// that ends it ([`OpenCall`]). An acquire right after an `Enter`, while
    /// the call is open, is a callback's.
    pub fn collection_call(&mut self, t: Tid, id: VarId, var: Var, release: bool, site: SiteId) {
        let open = self.threads[t as usize].open_call;
        let mut call = match open {
            Some(c)
                if c.obj == var.obj && !release && self.threads[t as usize].entered_just_before =>
            {
                return;
            }
            Some(c) if c.obj == var.obj => c,
            _ => OpenCall::new(var.obj, false),
        };
        if release {
            if !call.logged {
                self.access(t, id, var, true, site, true);
                call.logged = true;
            }
        } else {
            call.acquires += 1;
        }
        if call.acquires >= 2 {
            if !call.logged {
                self.access(t, id, var, false, site, true);
            }
            self.threads[t as usize].open_call = None;
        } else {
            self.threads[t as usize].open_call = Some(call);
        }
    }

    /// Logs the container access event of a call on a thread-safe
    /// container made through an interface type; the hand-off events of
    /// the same call that follow are not logged again.
    pub fn container_access(&mut self, t: Tid, id: VarId, var: Var, write: bool, site: SiteId) {
        self.access(t, id, var, write, site, true);
        self.threads[t as usize].open_call = Some(OpenCall::new(var.obj, true));
    }

    /// Logs an access of thread `t` to `var` (id `id`); `atomic` for a call
    /// on a thread-safe container.
    pub fn access(&mut self, t: Tid, id: VarId, var: Var, write: bool, site: SiteId, atomic: bool) {
        let held = self.threads[t as usize].held_id;
        let mut locks: Vec<ObjId> = self.locks_of(held).collect();
        let holds_container = atomic && locks.contains(&var.obj);
        if atomic {
            locks.push(var.obj);
        }
        let now = self.current[t as usize].epoch(t);
        let i = id as usize;
        if i >= self.vars.len() {
            self.vars.resize_with(i + 1, || None);
        }
        let shadow = self.vars[i].get_or_insert(VarShadow {
            var,
            owner: Owner::Exclusive(now),
            written_shared: false,
            candidates: None,
            atomic,
        });
        let mover = classify(shadow, &self.current[t as usize], t, now, write, locks);
        // A synchronized collection locks itself: a call made while the
        // thread holds the collection's monitor is protected like any other.
        let mover = match atomic {
            true if holds_container => Mover::Protected,
            true => Mover::Atomic,
            false => mover,
        };
        self.events.push(LogEvent {
            thread: t,
            site,
            held,
            clock: self.threads[t as usize].clock,
            kind: LogKind::Access {
                var: id,
                write,
                mover,
            },
        });
    }
}

/// Updates a variable's lockset state for one access and classifies it.
fn classify(
    shadow: &mut VarShadow,
    clock: &VectorClock,
    t: Tid,
    now: Epoch,
    write: bool,
    locks: Vec<ObjId>,
) -> Mover {
    if let Owner::Exclusive(owner) = shadow.owner {
        if owner.thread() == t || clock.covers(owner) {
            shadow.owner = Owner::Exclusive(now);
            return Mover::Local;
        }
        shadow.owner = Owner::Shared;
    }
    let candidates = match shadow.candidates.take() {
        None => locks,
        Some(c) => c.into_iter().filter(|l| locks.contains(l)).collect(),
    };
    let protected = !candidates.is_empty();
    shadow.candidates = Some(candidates);
    shadow.written_shared |= write;
    if !shadow.written_shared {
        Mover::ReadOnly
    } else if protected {
        Mover::Protected
    } else {
        Mover::Racy
    }
}
