//! Run-time race checkers over lockstep traces (crate `lockstep_trace`).
//!
//! An [`Engine`] takes trace records as they arrive (online) or a whole
//! trace (offline), orders events with the trace's [`Merger`], keeps each
//! thread's held locks and call stack ([`context`]) and feeds every event to
//! the enabled checkers: [`lockset`] (Eraser with the paper's extensions)
//! and [`hb`] (vector clocks with FastTrack's epochs), which share the
//! hand-off edges of [`handoff`] (and its filter: calls on thread-safe
//! JDK containers are hand-offs, not accesses), minus the accesses of
//! `final` fields ([`finality`]). Races are
//! deduplicated per field and pair of sites and become
//! `lockstep_report::Finding`s with rule id `data-race` and provenance
//! `run` ([`findings`]). With [`Options::deadlocks`], [`lock_order`] builds
//! the run's lock-order graph (GoodLock) and [`deadlock`] reports its
//! potential deadlocks and the wait-for cycle of a run that hung, rule id
//! `deadlock`. With [`Options::atomicity`], [`atomic_log`] logs the run
//! for the atomicity checkers — [`reduction`] (on-line and off-line),
//! [`blocks`] (1v/2v blocks, pairwise and multi-transaction) and
//! [`serializability`] (Velodrome-style) — over the transactions of
//! [`transactions`]; [`atomicity`] reports them as rule `non-atomic-method`.
//! [`timeline`] exports the run as Chrome trace-event
//! JSON. [`types`] discovers race-free types of fields from traces
//! (`check-trace --discover-types`). No I/O beyond the `Read` handed in; nothing printed.

pub mod atomic_log;
pub mod atomicity;
pub mod blocks;
pub mod context;
pub mod deadlock;
pub mod fast_hash;
pub mod finality;
pub mod findings;
pub mod handoff;
pub mod hb;
pub mod lock_order;
pub mod lockset;
pub mod race;
pub mod reduction;
pub mod serializability;
pub mod timeline;
pub mod transactions;
pub mod types;
pub mod vc;

use std::io::Read;
use std::time::Instant;

use lockstep_report::Finding;
use lockstep_trace::{
    Chunk, Event, FieldId, Merger, Record, StreamReader, Tables, ThreadId, Trace,
};

use crate::context::{Access, Context, LockStep, Tid};
use crate::fast_hash::{FastMap, FastSet};
use crate::finality::FinalFields;
use crate::handoff::ThreadSafeObjects;
use crate::hb::HappensBefore;
use crate::lock_order::LockOrder;
use crate::lockset::Lockset;
use crate::race::{Races, Var, VarIds};
use crate::timeline::TimelineRecorder;

pub use race::CheckerKind;
pub use transactions::AtomicSpec;

/// Which checkers run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckerSet {
    /// Eraser with extensions.
    pub lockset: bool,
    /// FastTrack.
    pub happens_before: bool,
}

impl CheckerSet {
    /// Both checkers.
    pub const ALL: CheckerSet = CheckerSet {
        lockset: true,
        happens_before: true,
    };
}

/// What to check and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// The checkers to run.
    pub checkers: CheckerSet,
    /// Lockset extension: ownership passes across thread start/join.
    pub join_ordering: bool,
    /// Lockset extension (with `join_ordering`): ownership also passes
    /// along hand-offs — volatiles, atomics, queues, latches, futures,
    /// thread-safe containers, class initialization.
    pub handoff_ordering: bool,
    /// Lockset extension: separate read and write locksets.
    pub multi_lockset: bool,
    /// Build the Chrome trace-event timeline.
    pub timeline: bool,
    /// Rule `deadlock`: the lock-order graph's potential deadlocks and the
    /// wait-for cycle of a hang dump.
    pub deadlocks: bool,
    /// Rule `non-atomic-method`: the atomicity checkers to run (none by
    /// default) and the extra transaction patterns.
    pub atomicity: AtomicSpec,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            checkers: CheckerSet::ALL,
            join_ordering: true,
            handoff_ordering: true,
            multi_lockset: true,
            timeline: false,
            deadlocks: true,
            atomicity: AtomicSpec::default(),
        }
    }
}

/// Counters of a check.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Stats {
    /// Events checked.
    pub events: u64,
    /// Traces read.
    pub traces: u64,
    /// Wall-clock seconds spent reading and checking.
    pub seconds: f64,
    /// `events / seconds`.
    pub events_per_second: f64,
    /// Size of the lock-order graph (summed over traces; zeros without
    /// the deadlock checker).
    pub lock_graph: lock_order::GraphSize,
    /// Instrumented classes that recorded a method (distinct names over all traces).
    pub classes: u64,
    /// Instrumented methods (those with entry probes in the method table).
    pub methods: u64,
}

/// The instrumented classes and methods named in traces' method tables.
#[derive(Debug, Default)]
struct Instrumented<'t> {
    classes: std::collections::BTreeSet<&'t str>,
    methods: std::collections::BTreeSet<(&'t str, &'t str, &'t str)>,
}

impl<'t> Instrumented<'t> {
    fn add(&mut self, tables: &'t Tables) {
        for m in tables.methods.values() {
            self.classes.insert(&m.class);
            self.methods.insert((&m.class, &m.name, &m.descriptor));
        }
    }

    fn count_into(&self, stats: &mut Stats) {
        stats.classes = self.classes.len() as u64;
        stats.methods = self.methods.len() as u64;
    }
}

/// The result of a check.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    /// `data-race` and `deadlock` findings, provenance `run`, in canonical order.
    pub findings: Vec<Finding>,
    /// Reader problems (with byte offsets), merge gaps, recorder notes.
    pub notes: Vec<String>,
    /// True when some trace was truncated or unreadable.
    pub truncated: bool,
    /// True when some trace could not be read at all (no events, fatal error).
    pub unreadable: bool,
    /// Counters.
    pub stats: Stats,
    /// Chrome trace-event JSON, when asked for.
    pub timeline: Option<String>,
}

/// Checks one trace, online or offline.
pub struct Engine {
    tables: Tables,
    merger: Merger,
    ctx: Context,
    hb: Option<HappensBefore>,
    lockset: Option<Lockset>,
    races: Races,
    var_ids: VarIds,
    tids: FastMap<ThreadId, Tid>,
    /// Recorder id of each internal thread.
    threads: Vec<ThreadId>,
    last_thread: Option<(ThreadId, Tid)>,
    events: u64,
    statics_seen: FastSet<(Tid, FieldId)>,
    thread_safe: ThreadSafeObjects,
    final_fields: FinalFields,
    timeline: Option<TimelineRecorder>,
    lock_order: Option<LockOrder>,
    hangs: Vec<lockstep_trace::Hang>,
    atomic: Option<(atomic_log::AtomicLog, AtomicSpec)>,
    notes: Vec<String>,
}

impl Engine {
    /// An engine for one trace.
    pub fn new(options: &Options) -> Self {
        Engine {
            tables: Tables::default(),
            merger: Merger::new(),
            ctx: Context::default(),
            hb: options.checkers.happens_before.then(HappensBefore::default),
            lockset: options.checkers.lockset.then(|| {
                Lockset::with_handoffs(
                    options.join_ordering,
                    options.handoff_ordering,
                    options.multi_lockset,
                )
            }),
            races: Races::default(),
            var_ids: VarIds::default(),
            tids: FastMap::default(),
            threads: Vec::new(),
            last_thread: None,
            events: 0,
            statics_seen: FastSet::default(),
            thread_safe: ThreadSafeObjects::default(),
            final_fields: FinalFields::default(),
            timeline: options.timeline.then(TimelineRecorder::default),
            lock_order: options.deadlocks.then(LockOrder::default),
            hangs: Vec::new(),
            atomic: options
                .atomicity
                .any()
                .then(|| (atomic_log::AtomicLog::default(), options.atomicity.clone())),
            notes: Vec::new(),
        }
    }

    /// Takes one record: tables are stored, chunks merged and every event
    /// that is now ordered is checked.
    pub fn record(&mut self, r: Record) {
        match r {
            Record::Chunk(c) => {
                self.merger.push_chunk(c);
                self.drain();
            }
            Record::Note(n) => self.notes.push(format!("recorder: {n}")),
            Record::Hang(h) => {
                self.notes.push(format!(
                    "recorder: the program hung; {} threads dumped",
                    h.threads.len()
                ));
                // Judged at the end: the blocked threads' last chunks come after the dump.
                self.hangs.push(h);
            }
            other => {
                self.tables.absorb(&other);
            }
        }
    }

    /// Takes a borrowed chunk (offline: the trace keeps its chunks), the
    /// same as `record(Record::Chunk(chunk.clone()))` without the clone.
    pub fn record_chunk(&mut self, chunk: &Chunk) {
        self.merger
            .push_events(chunk.thread, chunk.index, &chunk.events);
        self.drain();
    }

    fn drain(&mut self) {
        // The merger is moved out for the duration so that its callback can
        // borrow the rest of the engine (an empty `Merger` does not allocate).
        let mut merger = std::mem::take(&mut self.merger);
        merger.drain_ready(|thread, e| self.event(thread, e));
        self.merger = merger;
    }

    /// The internal index of `thread`: the previous event's thread almost
    /// always (the merger hands out runs of one thread).
    #[inline]
    fn tid(&mut self, thread: ThreadId) -> Tid {
        match self.last_thread {
            Some((r, t)) if r == thread => t,
            _ => self.new_tid(thread),
        }
    }

    #[cold]
    fn new_tid(&mut self, thread: ThreadId) -> Tid {
        let next = self.threads.len() as Tid;
        let t = *self.tids.entry(thread).or_insert(next);
        if t == next {
            self.threads.push(thread);
            self.ctx.ensure(t);
            if let Some(hb) = &mut self.hb {
                hb.ensure(t);
            }
            if let Some(ls) = &mut self.lockset {
                ls.ensure(t);
            }
            if let Some(lo) = &mut self.lock_order {
                lo.ensure(t);
            }
            if let Some((log, _)) = &mut self.atomic {
                log.ensure(t);
            }
        }
        self.last_thread = Some((thread, t));
        t
    }

    /// Checks one event of `thread`, already in a valid global order
    /// (what the merger yields). Public for callers that merge themselves.
    #[inline]
    pub fn event(&mut self, thread: ThreadId, e: &Event) {
        let t = self.tid(thread);
        if let Some((log, _)) = &mut self.atomic {
            log.saw(t, e);
        }
        let at = self.events;
        self.events += 1;
        if !self.thread_safe.counts(e, &self.tables) {
            self.atomic_container_call(t, e);
            return;
        }
        if self.final_fields.skips(e, &self.tables) {
            return;
        }
        let step = self.ctx.step(t, e);
        if let Some((var, write)) = Var::of(e) {
            self.access(t, var, write, e, at);
            return;
        }
        if let Some((log, _)) = &mut self.atomic {
            if let Event::SyncRelease { obj, key, site, .. }
            | Event::SyncAcquire { obj, key, site, .. } = *e
            {
                if key == lockstep_trace::keys::COLLECTION {
                    let release = matches!(e, Event::SyncRelease { .. });
                    if let Some((var, _)) = Var::of(&Event::ContainerRead { obj, site }) {
                        let id = self.var_ids.id(var);
                        log.collection_call(t, id, var, release, site);
                    }
                }
            }
            log.step(t, thread, e, step);
        }
        if let Some(tl) = &mut self.timeline {
            tl.step(thread, e, step, at);
        }
        if let Some(lo) = &mut self.lock_order {
            lo.step(t, thread, e, step, self.ctx.threads[t as usize].stack);
        }
        if let Some(hb) = &mut self.hb {
            hb.sync(t, thread, e, step);
            if let Event::ClassInit { class } = *e {
                if let Some(c) = self.tables.classes.get(&class) {
                    hb.class_initialized(t, &c.name);
                }
            }
        }
        if let Some(ls) = &mut self.lockset {
            if step == LockStep::None {
                ls.sync(t, thread, e);
            }
        }
    }

    /// A call on a thread-safe container: no access for the race checkers,
    /// an atomic (non-mover) one for the atomicity checkers.
    fn atomic_container_call(&mut self, t: Tid, e: &Event) {
        if let Some((log, _)) = &mut self.atomic {
            if let Some((var, write)) = Var::of(e) {
                let id = self.var_ids.id(var);
                log.container_access(t, id, var, write, site_of(e));
            }
        }
    }

    #[inline]
    fn access(&mut self, t: Tid, var: Var, write: bool, e: &Event, at: u64) {
        let id = self.var_ids.id(var);
        if let Some((log, _)) = &mut self.atomic {
            log.access(t, id, var, write, site_of(e), false);
        }
        let ts = &self.ctx.threads[t as usize];
        let acc = Access {
            thread: t,
            site: site_of(e),
            locks: ts.locks,
            stack: ts.stack,
            at,
            write,
        };
        if let Some(hb) = &mut self.hb {
            if var.obj == 0 {
                if let race::VarKind::Field(f) = var.kind() {
                    if self.statics_seen.insert((t, f)) {
                        if let Some(field) = self.tables.fields.get(&f) {
                            hb.class_used(t, &field.class);
                        }
                    }
                }
            }
            hb.access(id, var, acc, &mut self.races);
        }
        if let Some(ls) = &mut self.lockset {
            ls.access(id, var, acc, &self.ctx.locksets, &mut self.races);
        }
    }

    /// Ends the input: resolves merge gaps, checks what was waiting and
    /// turns races into findings.
    pub fn finish(mut self) -> Outcome {
        self.merger.finish();
        self.drain();
        self.notes.extend(self.merger.take_notes());
        let view = findings::View {
            tables: &self.tables,
            ctx: &self.ctx,
            threads: &self.threads,
        };
        let mut findings: Vec<Finding> = self
            .races
            .list
            .iter()
            .map(|r| findings::race_finding(r, &view))
            .collect();
        if let Some(lo) = &self.lock_order {
            let (potential, notes) = deadlock::potential_findings(lo, &view);
            findings.extend(potential);
            self.notes.extend(notes);
            let threads = deadlock::Threads {
                tids: &self.tids,
                graph: lo,
            };
            findings.extend(deadlock::hang_findings(&self.hangs, &view, &threads));
        }
        if let Some((log, spec)) = &self.atomic {
            let (atomic, notes) = atomicity::check(log, spec, &view);
            findings.extend(atomic);
            self.notes.extend(notes);
        }
        let timeline = self
            .timeline
            .take()
            .map(|tl| tl.render(&self.races.list, &view));
        let mut stats = Stats {
            events: self.events,
            traces: 1,
            lock_graph: self
                .lock_order
                .as_ref()
                .map(LockOrder::size)
                .unwrap_or_default(),
            ..Stats::default()
        };
        let mut instrumented = Instrumented::default();
        instrumented.add(&self.tables);
        instrumented.count_into(&mut stats);
        Outcome {
            findings,
            notes: self.notes,
            truncated: false,
            unreadable: false,
            stats,
            timeline,
        }
    }
}

/// The site of any event that has one (0 otherwise).
pub(crate) fn event_site(e: &Event) -> u32 {
    match *e {
        Event::Acquire { site, .. }
        | Event::Release { site, .. }
        | Event::Wait { site, .. }
        | Event::Notify { site, .. }
        | Event::SyncRelease { site, .. }
        | Event::SyncAcquire { site, .. }
        | Event::ThreadStart { site, .. }
        | Event::ThreadJoin { site, .. } => site,
        _ => site_of(e),
    }
}

fn site_of(e: &Event) -> u32 {
    match *e {
        Event::Read { site, .. }
        | Event::Write { site, .. }
        | Event::ArrayRead { site, .. }
        | Event::ArrayWrite { site, .. }
        | Event::ContainerRead { site, .. }
        | Event::ContainerWrite { site, .. } => site,
        _ => 0,
    }
}

/// Checks a trace as its bytes arrive (a file, a pipe, a socket): records
/// are checked as soon as they are complete and ordered. A truncated or
/// corrupt input gives what it holds plus notes naming byte offsets.
pub fn check_stream(input: impl Read, options: &Options) -> Outcome {
    let start = Instant::now();
    let mut engine = Engine::new(options);
    let mut problems = Vec::new();
    let mut truncated = false;
    let mut records = 0u64;
    let mut reader = StreamReader::new(input);
    while let Some(item) = reader.next() {
        match item {
            Ok(r) => {
                records += 1;
                engine.record(r);
                // Decode the next chunks into the buffers the merger emptied.
                while let Some(buffer) = engine.merger.take_spare() {
                    reader.recycle(buffer);
                }
            }
            Err(e) => {
                truncated |= e.fatal;
                problems.push(format!("trace {e}"));
            }
        }
    }
    let mut out = engine.finish();
    problems.append(&mut out.notes);
    out.notes = problems;
    out.truncated = truncated;
    out.unreadable = records == 0;
    finish_stats(&mut out, start);
    out
}

/// Checks saved traces (several runs together): each trace is checked on
/// its own (ids are per run) and the findings are merged and deduplicated.
pub fn check_traces(inputs: &[Trace], options: &Options) -> Outcome {
    let start = Instant::now();
    let mut all = Outcome::default();
    let mut timelines = Vec::new();
    let mut instrumented = Instrumented::default();
    for (i, trace) in inputs.iter().enumerate() {
        instrumented.add(&trace.tables);
        let mut engine = Engine::new(options);
        if let Some(h) = &trace.header {
            engine.record(Record::Header(h.clone()));
        }
        engine.tables = trace.tables.clone();
        for n in &trace.notes {
            engine.record(Record::Note(n.clone()));
        }
        for h in &trace.hangs {
            engine.record(Record::Hang(h.clone()));
        }
        for c in &trace.chunks {
            engine.record_chunk(c);
        }
        let out = engine.finish();
        let prefix = if inputs.len() > 1 {
            format!("trace {}: ", i + 1)
        } else {
            String::new()
        };
        for p in &trace.problems {
            all.notes.push(format!("{prefix}trace {p}"));
        }
        all.notes
            .extend(out.notes.into_iter().map(|n| format!("{prefix}{n}")));
        all.truncated |= trace.truncated;
        all.unreadable |= trace.header.is_none() && trace.chunks.is_empty();
        all.findings.extend(out.findings);
        all.stats.events += out.stats.events;
        all.stats.traces += 1;
        all.stats.lock_graph.add(out.stats.lock_graph);
        timelines.extend(out.timeline);
    }
    all.findings.sort();
    all.findings.dedup();
    instrumented.count_into(&mut all.stats);
    if options.timeline {
        all.timeline = Some(timeline::concat(&timelines));
    }
    finish_stats(&mut all, start);
    all
}

fn finish_stats(out: &mut Outcome, start: Instant) {
    out.stats.seconds = start.elapsed().as_secs_f64();
    out.stats.events_per_second = if out.stats.seconds > 0.0 {
        out.stats.events as f64 / out.stats.seconds
    } else {
        0.0
    };
}
