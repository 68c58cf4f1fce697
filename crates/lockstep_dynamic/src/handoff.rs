//! Hand-off edges of `SyncRelease`/`SyncAcquire` events (volatiles,
//! atomics, latches, queues, futures, thread-safe containers, class
//! initialization), shared by both checkers: a release joins the thread's
//! clock into the `(object, key)` variable's clock, an acquire joins that
//! clock into the thread's. Happens-before orders accesses with them;
//! lockset uses them only to pass a variable's ownership from one thread
//! to the next (as it does with start/join), never to excuse a missing lock.
//!
//! Which sync events are edges at all is decided here too: a
//! [`keys::COLLECTION`] event is recorded for every call through a
//! container interface (`Map.get`), and is an edge only when the object's
//! run-time class is a thread-safe container ([`ThreadSafeObjects`]).

use lockstep_trace::{keys, Event, ObjId, Tables};

use crate::context::Tid;
use crate::fast_hash::FastMap;
use crate::vc::VectorClock;

/// The clocks of the synchronization variables.
#[derive(Debug, Default)]
pub struct SyncClocks {
    vars: FastMap<(ObjId, u32), VectorClock>,
}

impl SyncClocks {
    /// Applies a `SyncRelease`/`SyncAcquire` of thread `t` (clock `c`);
    /// returns false for other events.
    #[inline]
    pub fn step(&mut self, c: &mut VectorClock, t: Tid, e: &Event) -> bool {
        match *e {
            Event::SyncRelease { obj, key, .. } => {
                self.vars.entry((obj, key)).or_default().join(c);
                c.tick(t);
                true
            }
            Event::SyncAcquire { obj, key, .. } => {
                if let Some(s) = self.vars.get(&(obj, key)) {
                    c.join(s);
                }
                true
            }
            _ => false,
        }
    }
}

/// Which objects are thread-safe JDK classes (by the run-time class the
/// recorder wrote in its object table), cached per object.
#[derive(Debug, Default)]
pub struct ThreadSafeObjects {
    known: FastMap<ObjId, bool>,
}

impl ThreadSafeObjects {
    /// Is `obj` an instance of a thread-safe JDK class? False while the
    /// object's description has not arrived (not cached then).
    pub fn contains(&mut self, obj: ObjId, tables: &Tables) -> bool {
        if let Some(&safe) = self.known.get(&obj) {
            return safe;
        }
        let Some(info) = tables.objects.get(&obj) else {
            return false;
        };
        let safe =
            lockstep_models::is_thread_safe_via(&info.class, &lockstep_models::is_jdk_subtype);
        self.known.insert(obj, safe);
        safe
    }

    /// Does event `e` count for the checkers? Container accesses on a
    /// thread-safe object do not (its methods are atomic), and container
    /// hand-offs count only on one.
    #[inline]
    pub fn counts(&mut self, e: &Event, tables: &Tables) -> bool {
        match *e {
            Event::ContainerRead { obj, .. } | Event::ContainerWrite { obj, .. } => {
                !self.contains(obj, tables)
            }
            Event::SyncRelease { obj, key, .. } | Event::SyncAcquire { obj, key, .. }
                if key == keys::COLLECTION =>
            {
                self.contains(obj, tables)
            }
            _ => true,
        }
    }
}
