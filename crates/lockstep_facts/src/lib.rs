//! lockstep's shared concurrency facts: what several rules (and later the
//! run-time checkers) need to know about threads, locks and memory,
//! computed once per check and only read by the detectors.
//!
//! - [`threads`]: the context call graph, thread roots (the main thread,
//!   every modelled thread start with its task, the open-program harness,
//!   `@ThreadSafe` APIs), which roots run more than once; `thread_targets`
//!   (a plain `Thread` runs the `Runnable` it was made with) and
//!   `one_alive` (a thread restarted only when the old one has ended);
//!   `event_thread`: the harness entries Swing's rule puts on the event
//!   dispatch thread (GUI classes and listener methods);
//! - `happens_before`: the statements of a starting method ordered with
//!   the task it starts (before the launch, after a wait for its end);
//!   `start_descendants`: and the threads only that task starts;
//!   `queue_handoff`: accesses of an object before its one queue put and
//!   through the value a take of it returned;
//! - [`local_locks`]: the locks a body must hold before each statement
//!   (monitors and `java.util.concurrent` locks, by access path);
//! - [`locks`]: those locks as abstract objects per context, and the
//!   locks held on entry to every method context (must-alias: singleton
//!   abstract objects and classes only); [`lock_paths`]: locks named
//!   relative to the accessed object (`this`, `this.lock` with `lock`
//!   final), which hold whatever the points-to sets;
//! - [`accesses`]: the field, array and JDK-container accesses of
//!   application code and the ones that cannot race, with the reason;
//! - [`lock_identity`]: locks owned by the object whose field holds them
//!   (must-not-alias across owners) and lock expressions that are one
//!   object (must-alias);
//! - [`lock_order`]: every lock acquisition with the locks held before
//!   it, `wait`/`notify` and blocking calls with the locks held there
//!   (`back_links`: a component built with `new C(this)` whose `final`
//!   field names its owner re-enters the owner's monitor its callers hold;
//!   [`age_order`]: a lock of an object read from a collection that only
//!   ever receives objects younger than its owner, a descent in creation
//!   order);
//! - [`initialization`]: constructor helpers and what constructors and
//!   static initializers allocate before publication;
//! - [`thread_local`]: the objects no other thread can reach (escape
//!   over points-to alone, allocation sites only);
//! - [`dispatch`]: which of a call graph's targets of a virtual call the
//!   objects its receiver may hold can run;
//! - [`annotations`]: `@GuardedBy`, `@ThreadSafe`, `@NotThreadSafe`, `@Immutable`;
//! - `intent`: which pairs that only the harness makes concurrent are
//!   judged (the field locked somewhere, a method that locks, annotations);
//! - [`analysis`] with `reach`, `escape`, `instances`, `buckets` and
//!   `pairs`: which roots reach each context, thread escape, the objects
//!   each instance of a repeated start has to itself, the accesses other
//!   threads can see per (target, object), and the pairs that may race.
//!
//! [`SharedFacts`] holds them for one check: points-to and the race facts
//! are computed lazily, at most once, whichever detector asks first.
//!
//! Architecture invariant: no I/O, no printing, no environment; results
//! are a pure function of the program, the entry points and [`Settings`].
//! This crate knows no rule and no report format: it states facts
//! ("these two accesses may run at the same time with no common lock"),
//! detectors judge and word them.

#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::todo)
)]

pub mod accesses;
pub mod age_order;
pub mod analysis;
pub mod annotations;
mod back_links;
mod block_solver;
mod buckets;
mod caller_locks;
pub mod cpu_time;
pub mod dispatch;
mod escape;
mod event_thread;
pub mod field_states;
mod flag_writes;
mod fresh;
pub mod guard_flags;
pub mod guarded_reach;
mod happens_before;
pub mod harness_gates;
pub mod initialization;
mod instance_confined;
mod instances;
mod intent;
pub mod local_locks;
pub mod lock_identity;
pub mod lock_order;
pub mod lock_paths;
pub mod lock_summary;
pub mod locks;
pub mod once_gate;
mod one_alive;
mod ownership;
mod pairs;
pub mod param_guards;
mod queue_handoff;
mod reach;
mod start_descendants;
pub mod thread_local;
mod thread_targets;
pub mod threads;
pub mod util;

use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use lockstep_pointsto::{PointsTo, PointsToResult};
use lockstep_program::{EntryPoints, Program};

pub use analysis::{
    concurrent_intent, target_name, Access, AccessSite, Analysis, Buckets, ExplainedPair,
    Explanation, Memory, Race, RaceFacts, Verdict,
};
pub use guard_flags::GuardFacts;
pub use lock_order::LockOrderFacts;
pub use queue_handoff::Handed;
pub use reach::Ordering;
pub use thread_local::ThreadLocalObjects;

/// What the facts depend on besides the program and its entry points.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// The program is analysed as a library (paper 002 §4.5.3 harness).
    pub open_program: bool,
    /// Pairs that only an assumed outside caller makes concurrent count as
    /// races without a sign of concurrent intent too (`intent`).
    pub every_class: bool,
    /// The points-to configuration.
    pub points_to: lockstep_pointsto::Config,
    /// A field (`pkg.Cls.name`) whose pairs are kept with their verdicts.
    pub explain_field: Option<String>,
    /// Only the facts the lock rules read (thread roots, the context call
    /// graph, entry locks and start orderings): no escape, ownership,
    /// access buckets or racing pairs, which cost most of the race facts
    /// and which only `data-race` and `non-atomic-method` read.
    pub locks_only: bool,
}

/// The facts of one check, computed on first use and then shared.
pub struct SharedFacts<'p> {
    program: &'p Program,
    entries: &'p EntryPoints,
    settings: Settings,
    points_to: OnceLock<PointsToResult>,
    races: OnceLock<RaceFacts>,
    thread_local: OnceLock<ThreadLocalObjects>,
    lock_order: OnceLock<LockOrderFacts>,
    guard_flags: OnceLock<GuardFacts>,
    timings: Mutex<Vec<(&'static str, Duration)>>,
}

impl<'p> SharedFacts<'p> {
    pub fn new(program: &'p Program, entries: &'p EntryPoints, settings: Settings) -> Self {
        SharedFacts {
            program,
            entries,
            settings,
            points_to: OnceLock::new(),
            races: OnceLock::new(),
            thread_local: OnceLock::new(),
            lock_order: OnceLock::new(),
            guard_flags: OnceLock::new(),
            timings: Mutex::new(Vec::new()),
        }
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Points-to facts (solved on first use).
    pub fn points_to(&self) -> &PointsToResult {
        self.points_to.get_or_init(|| {
            self.timed("points-to", || {
                PointsTo::solve(self.program, self.entries, self.settings.points_to)
            })
        })
    }

    /// The objects no other thread can reach (escape over points-to;
    /// computed on first use, after points-to).
    pub fn thread_local(&self) -> &ThreadLocalObjects {
        self.thread_local.get_or_init(|| {
            let pt = self.points_to();
            self.timed("thread-local objects", || {
                ThreadLocalObjects::compute(self.program, pt)
            })
        })
    }

    /// Thread roots, accesses, locks, escape and racing pairs (computed on
    /// first use).
    pub fn races(&self) -> &RaceFacts {
        self.races.get_or_init(|| {
            let pt = self.points_to();
            self.timed("race facts", || {
                let analysis = Analysis::new(self.program, pt, self.settings.open_program)
                    .every_class(self.settings.every_class);
                if self.settings.locks_only {
                    analysis.run_locks_only()
                } else {
                    analysis.run(self.settings.explain_field.as_deref())
                }
            })
        })
    }

    /// Lock acquisitions with the locks held before them, monitor
    /// operations and blocking calls under locks (computed on first use,
    /// after the race facts).
    pub fn lock_order(&self) -> &LockOrderFacts {
        self.lock_order.get_or_init(|| {
            let pt = self.points_to();
            let races = self.races();
            self.timed("lock-order facts", || {
                lock_order::compute(self.program, pt, races)
            })
        })
    }

    /// The lock orders that a flag set once inside the other order keeps
    /// apart ([`guard_flags`]; computed on first use, after the lock-order
    /// facts, which the rules that do not read these build without them).
    pub fn guard_flags(&self) -> &GuardFacts {
        self.guard_flags.get_or_init(|| {
            let races = self.races();
            let order = self.lock_order();
            self.timed("guard flags", || {
                lock_order::guards(self.program, races, order)
            })
        })
    }

    /// Points-to, if some rule needed it.
    pub fn points_to_if_computed(&self) -> Option<&PointsToResult> {
        self.points_to.get()
    }

    /// The race facts, if some rule needed them.
    pub fn races_if_computed(&self) -> Option<&RaceFacts> {
        self.races.get()
    }

    /// How long each fact took, in the order they were computed.
    pub fn timings(&self) -> Vec<(&'static str, Duration)> {
        self.timings.lock().map(|t| t.clone()).unwrap_or_default()
    }

    /// Runs `f` as a shared fact: its wall time is recorded under `name`,
    /// and its CPU time is its own ([`cpu_time::own`]), not that of the
    /// detector whose thread computed it on first use.
    fn timed<T>(&self, name: &'static str, f: impl FnOnce() -> T) -> T {
        let started = Instant::now();
        let (value, _) = cpu_time::own(f);
        if let Ok(mut t) = self.timings.lock() {
            t.push((name, started.elapsed()));
        }
        value
    }
}
