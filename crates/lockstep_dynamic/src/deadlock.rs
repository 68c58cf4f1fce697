//! `deadlock` findings of a run: the potential deadlocks of the lock-order
//! graph ([`crate::lock_order`]), and the deadlock a run actually hit,
//! rebuilt from the `--timeout` thread dump (every thread's held locks and
//! the lock it waits for) as a wait-for cycle of threads.
//!
//! The dump names Java monitors (JVMTI) and, for `java.util.concurrent`
//! locks, the synchronizer a parked thread waits for and the thread that
//! owns it exclusively (the recorder reads `Thread.parkBlocker` and
//! `exclusiveOwnerThread`). Such a synchronizer is named after the one
//! `java.util.concurrent` lock its owner holds in the trace when there is
//! exactly one; read holds of read-write locks have no owner and are not
//! covered.

use std::collections::{BTreeMap, BTreeSet};

use lockstep_models::locks::LOCKS_PACKAGE;
use lockstep_report::{Confidence, Finding, Flow, Location, Related, Severity};
use lockstep_trace::{Frame, Hang, LockKind, ObjId, ThreadDump, ThreadId};

use crate::context::Tid;
use crate::fast_hash::FastMap;
use crate::findings::{object_name, short_site, site_location, stack_text, thread_name, View};
use crate::lock_order::{Cycle, Edge, LockOrder, Taken};

/// The rule id, shared with the static rule.
pub const RULE: &str = "deadlock";

const HELP: &str =
    "take the locks in one global order everywhere, or guard the sequences with one common lock";

/// Thread labels of a cycle: A, B, C, ...
fn letter(i: usize) -> char {
    char::from(b'A' + (i % 26) as u8)
}

/// `` `java.lang.Object@12` `` plus `(read)`/`(write)` for read-write views.
fn lock_name(view: &View, lock: ObjId, kind: LockKind) -> String {
    let suffix = match kind {
        LockKind::Read => " (read lock)",
        LockKind::Write => " (write lock)",
        _ => "",
    };
    format!("`{}`{suffix}", object_name(view.tables, lock))
}

/// Where an object was allocated, when the trace knows.
fn allocated(view: &View, lock: ObjId) -> Option<String> {
    let site = view.tables.objects.get(&lock)?.alloc_site?;
    Some(format!(
        "{} allocated at {}",
        object_name(view.tables, lock),
        short_site(view.tables, site)
    ))
}

fn taken_at(view: &View, t: &Taken) -> String {
    site_location(view.tables, t.site).position()
}

/// One finding per potential deadlock of the lock-order graph.
pub fn potential_findings(graph: &LockOrder, view: &View) -> (Vec<Finding>, Vec<String>) {
    let (cycles, exhausted) = graph.cycles();
    let mut notes = Vec::new();
    if exhausted {
        notes.push(format!(
            "deadlock: the lock-order search stopped after {} steps; some cycles may be missing",
            crate::lock_order::MAX_STEPS
        ));
    }
    if graph.dropped_labels > 0 {
        notes.push(format!(
            "deadlock: {} lock orders were not kept (at most {} per pair of locks)",
            graph.dropped_labels,
            crate::lock_order::MAX_LABELS
        ));
    }
    let findings = cycles.iter().map(|c| potential_finding(c, view)).collect();
    (findings, notes)
}

fn edge_text(view: &View, i: usize, e: &Edge) -> String {
    format!(
        "thread {} ({}) holds {} ({}), waits for {} ({})",
        letter(i),
        thread_name(view, e.thread),
        lock_name(view, e.from.lock, e.from.kind),
        taken_at(view, &e.from),
        lock_name(view, e.to.lock, e.to.kind),
        taken_at(view, &e.to),
    )
}

fn potential_finding(c: &Cycle, view: &View) -> Finding {
    let orders: Vec<String> = c
        .edges
        .iter()
        .map(|e| {
            format!(
                "thread {} took {} while holding {}",
                thread_name(view, e.thread),
                lock_name(view, e.to.lock, e.to.kind),
                lock_name(view, e.from.lock, e.from.kind),
            )
        })
        .collect();
    let first = &c.edges[0];
    let message = format!(
        "potential deadlock over {} locks: {}; this run did not hang, but with other timing these threads wait for each other forever",
        c.edges.len(),
        orders.join(", and ")
    );
    let cycle: Vec<String> = c
        .edges
        .iter()
        .enumerate()
        .map(|(i, e)| edge_text(view, i, e))
        .collect();
    let mut f = Finding::new(
        RULE,
        Severity::Warning,
        message,
        site_location(view.tables, first.to.site),
    )
    .with_provenance("run")
    // Both orders were observed; whether they can overlap depends on
    // synchronization other than start/join, which GoodLock ignores.
    .with_confidence(Confidence::Medium)
    .with_lock(object_name(view.tables, first.to.lock))
    .with_note(format!("cycle: {}", cycle.join("; ")));
    for (i, e) in c.edges.iter().enumerate() {
        let mut text = format!(
            "thread {} ({}) takes {} holding {}",
            letter(i),
            thread_name(view, e.thread),
            lock_name(view, e.to.lock, e.to.kind),
            lock_name(view, e.from.lock, e.from.kind),
        );
        if let Some(stack) = stack_text(view, e.to.stack) {
            text.push_str(&format!("; call stack: {stack}"));
        }
        f = f.with_related(site_location(view.tables, e.to.site), text);
    }
    for (i, e) in c.edges.iter().enumerate() {
        f = f.with_flow(Flow::new(
            format!("thread {} {}", letter(i), thread_name(view, e.thread)),
            vec![
                Related::new(
                    site_location(view.tables, e.from.site),
                    format!("takes {}", lock_name(view, e.from.lock, e.from.kind)),
                ),
                Related::new(
                    site_location(view.tables, e.to.site),
                    format!("waits for {}", lock_name(view, e.to.lock, e.to.kind)),
                ),
            ],
        ));
    }
    let objects: BTreeSet<ObjId> = c.edges.iter().map(|e| e.from.lock).collect();
    for obj in objects {
        if let Some(a) = allocated(view, obj) {
            f = f.with_note(a);
        }
    }
    f.with_note("found by: lock-order (GoodLock: gate locks, start/join segments)")
        .with_help(HELP)
}

/// What the engine knows of the threads when a dump arrives.
pub struct Threads<'a> {
    /// Internal index of each recorder thread seen in the trace.
    pub tids: &'a FastMap<ThreadId, Tid>,
    /// The lock-order state (locks held now, where taken).
    pub graph: &'a LockOrder,
}

/// One finding per wait-for cycle among the dumped threads.
pub fn hang_findings(hangs: &[Hang], view: &View, threads: &Threads) -> Vec<Finding> {
    let mut out = Vec::new();
    for h in hangs {
        let dumps: BTreeMap<ThreadId, &ThreadDump> =
            h.threads.iter().map(|d| (d.thread, d)).collect();
        let blocked = |d: &ThreadDump, lock: ObjId| {
            // A thread in `Object.wait` also names its monitor; it waits for
            // a notification, not for the lock's owner.
            d.state == "BLOCKED" || is_synchronizer(view, lock)
        };
        for cycle in wait_cycles(&dumps, blocked) {
            out.push(hang_finding(&cycle, &dumps, view, threads));
        }
    }
    out
}

/// The owner of each held lock, and each thread's wait-for successor.
fn wait_cycles(
    dumps: &BTreeMap<ThreadId, &ThreadDump>,
    blocked: impl Fn(&ThreadDump, ObjId) -> bool,
) -> Vec<Vec<ThreadId>> {
    let mut owner: BTreeMap<ObjId, ThreadId> = BTreeMap::new();
    for d in dumps.values() {
        for &l in &d.holds {
            owner.entry(l).or_insert(d.thread);
        }
    }
    let next = |t: ThreadId| -> Option<ThreadId> {
        let d = dumps.get(&t)?;
        let w = d.waits_for.filter(|&w| blocked(d, w))?;
        owner.get(&w).copied().filter(|&o| o != t)
    };
    let mut cycles = BTreeSet::new();
    for &start in dumps.keys() {
        let mut path = vec![start];
        let mut t = start;
        while let Some(n) = next(t) {
            if let Some(i) = path.iter().position(|&p| p == n) {
                let mut c = path[i..].to_vec();
                let min = c
                    .iter()
                    .enumerate()
                    .min_by_key(|&(_, t)| *t)
                    .map_or(0, |(i, _)| i);
                c.rotate_left(min);
                cycles.insert(c);
                break;
            }
            if path.len() > dumps.len() {
                break;
            }
            path.push(n);
            t = n;
        }
    }
    cycles.into_iter().collect()
}

/// `pkg.Cls.method(line 12)` of a dump frame as a location (the file
/// from any trace site of the same class).
fn frame_location(view: &View, text: &str) -> Option<Location> {
    let (qualified, rest) = text.split_once('(').unwrap_or((text, ""));
    let (class, method) = qualified.rsplit_once('.')?;
    let internal = class.replace('.', "/");
    let mut l = Location {
        class: class.to_owned(),
        method: Some(method.to_owned()),
        ..Location::default()
    };
    if let Some(file) = view
        .tables
        .sites
        .values()
        .find(|s| s.class == internal && s.file.is_some())
        .and_then(|s| s.file.clone())
    {
        l = l.with_file(file);
    }
    if let Some(line) = rest
        .strip_prefix("line ")
        .and_then(|r| r.trim_end_matches(')').parse().ok())
    {
        l = l.with_line(line);
    }
    Some(l)
}

/// The innermost frame outside the JDK: where the program waits.
fn waiting_frame(d: &ThreadDump) -> Option<&str> {
    let jdk = ["java.", "javax.", "jdk.", "sun."];
    d.frames
        .iter()
        .filter_map(|f| match f {
            Frame::Text(s) => Some(s.as_str()),
            Frame::Site(_) => None,
        })
        .find(|s| !jdk.iter().any(|p| s.starts_with(p)))
}

/// Is `obj` a `java.util.concurrent.locks` synchronizer (what the recorder
/// names for a thread parked in a lock)?
fn is_synchronizer(view: &View, obj: ObjId) -> bool {
    view.tables
        .objects
        .get(&obj)
        .is_some_and(|o| o.class.starts_with(LOCKS_PACKAGE))
}

/// A lock of the dump as the trace knows it.
struct DumpedLock {
    /// How the finding names it.
    name: String,
    /// Where its owner took it, when the trace recorded that.
    taken: Option<Taken>,
    /// The synchronizer the dump named instead of the lock.
    synchronizer: Option<ObjId>,
}

/// `name (position)`, or the name alone.
fn named_at(name: &str, position: Option<String>) -> String {
    match position {
        Some(p) => format!("{name} ({p})"),
        None => name.to_owned(),
    }
}

/// A dumped lock `obj` held by thread `owner`: a lock the thread took in
/// the trace, or the one `java.util.concurrent` lock it holds behind a
/// synchronizer, or else the dumped object itself.
fn dumped_lock(view: &View, threads: &Threads, owner: ThreadId, obj: ObjId) -> DumpedLock {
    let held = threads
        .tids
        .get(&owner)
        .map_or(&[][..], |&t| threads.graph.held(t));
    let taken = |h: &Taken, synchronizer| DumpedLock {
        name: lock_name(view, h.lock, h.kind),
        taken: Some(*h),
        synchronizer,
    };
    if let Some(h) = held.iter().find(|h| h.lock == obj) {
        return taken(h, None);
    }
    let juc: Vec<&Taken> = held
        .iter()
        .filter(|h| matches!(h.kind, LockKind::Exclusive | LockKind::Write))
        .collect();
    match juc.as_slice() {
        [h] if is_synchronizer(view, obj) => taken(h, Some(obj)),
        _ => DumpedLock {
            name: format!("`{}`", object_name(view.tables, obj)),
            taken: None,
            synchronizer: None,
        },
    }
}

fn hang_finding(
    cycle: &[ThreadId],
    dumps: &BTreeMap<ThreadId, &ThreadDump>,
    view: &View,
    threads: &Threads,
) -> Finding {
    let n = cycle.len();
    let mut parts = Vec::new();
    let mut flows = Vec::new();
    let mut notes = BTreeSet::new();
    for (i, &t) in cycle.iter().enumerate() {
        let d = dumps[&t];
        // The lock the previous thread waits for is the one this thread holds.
        let held_obj = dumps[&cycle[(i + n - 1) % n]].waits_for.unwrap_or(0);
        let held = dumped_lock(view, threads, t, held_obj);
        let waited = dumped_lock(view, threads, cycle[(i + 1) % n], d.waits_for.unwrap_or(0));
        for l in [&held, &waited] {
            if let Some(s) = l.synchronizer {
                notes.insert(format!(
                    "{} appears in the thread dump as its synchronizer `{}`",
                    l.name,
                    object_name(view.tables, s)
                ));
            }
        }
        let at = waiting_frame(d).and_then(|s| frame_location(view, s));
        parts.push(format!(
            "thread {} (`{}`, {}) holds {}, waits for {}",
            letter(i),
            d.name,
            d.state,
            named_at(&held.name, held.taken.map(|h| taken_at(view, &h))),
            named_at(&waited.name, at.as_ref().map(Location::position)),
        ));
        let mut steps = Vec::new();
        if let Some(h) = held.taken {
            steps.push(Related::new(
                site_location(view.tables, h.site),
                format!("takes {}", held.name),
            ));
        }
        let at = at.unwrap_or_else(|| Location::in_class(format!("<thread {}>", d.name)));
        steps.push(Related::new(at, format!("waits for {}", waited.name)));
        flows.push(Flow::new(
            format!("thread {} `{}`", letter(i), d.name),
            steps,
        ));
    }
    let names: Vec<String> = cycle
        .iter()
        .map(|t| format!("`{}`", dumps[t].name))
        .collect();
    let message = format!(
        "deadlock observed: the run deadlocked; threads {} wait for each other's locks",
        names.join(" and ")
    );
    let location = flows.first().and_then(|f| f.steps.last()).map_or_else(
        || Location::in_class("<thread dump>"),
        |s| s.location.clone(),
    );
    let mut f = Finding::new(RULE, Severity::Error, message, location)
        .with_provenance("run")
        .with_confidence(Confidence::High)
        .with_note(format!("cycle: {}", parts.join("; ")));
    for fl in &flows {
        if let Some(step) = fl.steps.last() {
            f = f.with_related(
                step.location.clone(),
                format!("{} {}", fl.label, step.message),
            );
        }
    }
    for fl in flows {
        f = f.with_flow(fl);
    }
    for note in notes {
        f = f.with_note(note);
    }
    f.with_note("found by: thread dump at the timeout (held and awaited locks)")
        .with_help(HELP)
}
