//! Rule `deadlock` in runs: the lock-order graph (gate locks, start/join
//! segments, read views) and the wait-for cycle of a hang dump, on event
//! sequences fed to the engine in a global order.

use lockstep_dynamic::{check_traces, Engine, Options, Outcome};
use lockstep_report::Finding;
use lockstep_trace::*;

const A: ObjId = 100;
const B: ObjId = 101;
const C: ObjId = 102;
const GATE: ObjId = 103;

/// Site `s`: `p.Bank.m<s>` at `Bank.java:<100 + s>`.
fn site(s: SiteId) -> Site {
    Site {
        class: "p/Bank".into(),
        method: format!("m{s}"),
        descriptor: "()V".into(),
        line: Some(100 + s),
        file: Some("Bank.java".into()),
    }
}

/// A run: events as `(thread, event)` in the global order.
#[derive(Default)]
struct Run {
    events: Vec<(ThreadId, Event)>,
    hang: Option<Hang>,
}

impl Run {
    fn ev(&mut self, t: ThreadId, e: Event) -> &mut Self {
        self.events.push((t, e));
        self
    }
    fn lock(&mut self, t: ThreadId, lock: ObjId, kind: LockKind, site: SiteId) -> &mut Self {
        self.ev(
            t,
            Event::Acquire {
                lock,
                seq: 0,
                kind,
                site,
            },
        )
    }
    fn unlock(&mut self, t: ThreadId, lock: ObjId, kind: LockKind) -> &mut Self {
        self.ev(
            t,
            Event::Release {
                lock,
                seq: 0,
                kind,
                site: 0,
            },
        )
    }
    /// Thread `t` takes `outer` then `inner` (monitors) and lets both go.
    fn nested(&mut self, t: ThreadId, outer: ObjId, inner: ObjId) -> &mut Self {
        self.lock(t, outer, LockKind::Monitor, 10 + t)
            .lock(t, inner, LockKind::Monitor, 20 + t)
            .unlock(t, inner, LockKind::Monitor)
            .unlock(t, outer, LockKind::Monitor)
    }
    fn start(&mut self, parent: ThreadId, child: ThreadId) -> &mut Self {
        self.ev(parent, Event::ThreadStart { child, site: 1 }).ev(
            child,
            Event::ThreadBegin {
                parent: Some(parent),
            },
        )
    }
    fn join(&mut self, parent: ThreadId, child: ThreadId) -> &mut Self {
        self.ev(child, Event::ThreadEnd)
            .ev(parent, Event::ThreadJoin { child, site: 2 })
    }

    fn check(&self) -> Outcome {
        let mut engine = Engine::new(&Options::default());
        for s in 0..40u32 {
            engine.record(Record::Site(s, site(s)));
        }
        for t in 0..4u32 {
            engine.record(Record::Thread(ThreadInfo {
                id: t,
                name: format!("t{t}"),
                parent: None,
                start_site: None,
            }));
        }
        for obj in [A, B, C, GATE] {
            engine.record(Record::Object(ObjectInfo {
                id: obj,
                class: "p/Account".into(),
                alloc_site: Some(5),
                represents: None,
            }));
        }
        engine.event(0, &Event::ThreadBegin { parent: None });
        for (t, e) in &self.events {
            engine.event(*t, e);
        }
        if let Some(h) = &self.hang {
            engine.record(Record::Hang(h.clone()));
        }
        engine.finish()
    }
}

fn deadlocks(out: &Outcome) -> Vec<&Finding> {
    out.findings
        .iter()
        .filter(|f| f.rule == "deadlock")
        .collect()
}

fn note<'f>(f: &'f Finding, prefix: &str) -> &'f str {
    f.notes
        .iter()
        .find(|n| n.starts_with(prefix))
        .map_or("", String::as_str)
}

/// Main starts workers 1 and 2 (unordered), joined at the end.
fn two_workers(body: impl Fn(&mut Run)) -> Run {
    let mut r = Run::default();
    r.start(0, 1).start(0, 2);
    body(&mut r);
    r.join(0, 1).join(0, 2);
    r
}

#[test]
fn opposite_orders_in_two_unordered_threads_are_a_potential_deadlock() {
    let r = two_workers(|r| {
        r.nested(1, A, B).nested(2, B, A);
    });
    let out = r.check();
    let found = deadlocks(&out);
    assert_eq!(found.len(), 1, "{:#?}", out.findings);
    let f = found[0];
    assert_eq!(f.provenance.as_deref(), Some("run"));
    assert!(
        f.message.starts_with("potential deadlock over 2 locks"),
        "{}",
        f.message
    );
    assert_eq!(
        note(f, "cycle:"),
        "cycle: thread A (`t1`) holds `p.Account@100` (Bank.java:111), waits for `p.Account@101` (Bank.java:121); \
         thread B (`t2`) holds `p.Account@101` (Bank.java:112), waits for `p.Account@100` (Bank.java:122)"
    );
    assert_eq!(f.flows.len(), 2);
    assert_eq!(f.location.line, Some(121));
}

#[test]
fn a_common_gate_lock_keeps_them_apart() {
    let r = two_workers(|r| {
        for (t, x, y) in [(1, A, B), (2, B, A)] {
            r.lock(t, GATE, LockKind::Monitor, 3)
                .nested(t, x, y)
                .unlock(t, GATE, LockKind::Monitor);
        }
    });
    assert!(deadlocks(&r.check()).is_empty());
}

#[test]
fn orders_separated_by_start_and_join_are_silent() {
    let mut r = Run::default();
    r.start(0, 1).nested(1, A, B).join(0, 1);
    r.start(0, 2).nested(2, B, A).join(0, 2);
    assert!(deadlocks(&r.check()).is_empty());
    // Main's own order before it starts the worker is ordered too.
    let mut r = Run::default();
    r.nested(0, A, B).start(0, 1).nested(1, B, A).join(0, 1);
    assert!(deadlocks(&r.check()).is_empty());
}

#[test]
fn one_thread_taking_both_orders_is_silent() {
    let r = two_workers(|r| {
        r.nested(1, A, B).nested(1, B, A);
    });
    assert!(deadlocks(&r.check()).is_empty());
}

#[test]
fn reentrant_acquisition_adds_no_order() {
    // Thread 2 re-enters A while holding B and A: no B → A edge.
    let r = two_workers(|r| {
        r.nested(1, A, B);
        r.lock(2, A, LockKind::Monitor, 4)
            .lock(2, B, LockKind::Monitor, 5)
            .lock(2, A, LockKind::Monitor, 6)
            .unlock(2, A, LockKind::Monitor)
            .unlock(2, B, LockKind::Monitor)
            .unlock(2, A, LockKind::Monitor);
    });
    assert!(deadlocks(&r.check()).is_empty());
}

#[test]
fn read_views_do_not_block_each_other_but_juc_locks_do() {
    let rw = |r: &mut Run, t, outer, inner, kind| {
        r.lock(t, outer, kind, 7)
            .lock(t, inner, kind, 8)
            .unlock(t, inner, kind)
            .unlock(t, outer, kind);
    };
    let reads = two_workers(|r| {
        rw(r, 1, A, B, LockKind::Read);
        rw(r, 2, B, A, LockKind::Read);
    });
    assert!(deadlocks(&reads.check()).is_empty());
    let exclusive = two_workers(|r| {
        rw(r, 1, A, B, LockKind::Exclusive);
        rw(r, 2, B, A, LockKind::Exclusive);
    });
    assert_eq!(deadlocks(&exclusive.check()).len(), 1);
    // A monitor and a `java.util.concurrent` lock of one object are two locks.
    let mixed = two_workers(|r| {
        rw(r, 1, A, B, LockKind::Monitor);
        rw(r, 2, B, A, LockKind::Exclusive);
    });
    assert!(deadlocks(&mixed.check()).is_empty());
}

#[test]
fn a_cycle_of_three_locks_in_three_threads_is_found() {
    let mut r = Run::default();
    r.start(0, 1).start(0, 2).start(0, 3);
    r.nested(1, A, B).nested(2, B, C).nested(3, C, A);
    let out = r.check();
    let found = deadlocks(&out);
    assert_eq!(found.len(), 1, "{:#?}", out.findings);
    assert!(found[0]
        .message
        .starts_with("potential deadlock over 3 locks"));
    assert_eq!(found[0].flows.len(), 3);
}

#[test]
fn a_hang_dump_with_a_wait_for_cycle_is_the_run_deadlocked() {
    let mut r = Run::default();
    r.start(0, 1).start(0, 2);
    r.lock(1, A, LockKind::Monitor, 11)
        .lock(2, B, LockKind::Monitor, 12);
    let dump = |thread, name: &str, holds, waits| ThreadDump {
        thread,
        name: name.into(),
        state: "BLOCKED".into(),
        frames: vec![
            Frame::Text("p.Bank.transfer(line 30)".into()),
            Frame::Text("java.lang.Thread.run(line 1)".into()),
        ],
        holds: vec![holds],
        waits_for: Some(waits),
    };
    r.hang = Some(Hang {
        threads: vec![
            ThreadDump {
                thread: 0,
                name: "main".into(),
                state: "WAITING".into(),
                ..ThreadDump::default()
            },
            dump(2, "t2", B, A),
            dump(1, "t1", A, B),
        ],
    });
    let out = r.check();
    let found = deadlocks(&out);
    assert_eq!(found.len(), 1, "{:#?}", out.findings);
    let f = found[0];
    assert_eq!(
        f.message,
        "deadlock observed: the run deadlocked; threads `t1` and `t2` wait for each other's locks"
    );
    assert_eq!(
        note(f, "cycle:"),
        "cycle: thread A (`t1`, BLOCKED) holds `p.Account@100` (Bank.java:111), waits for `p.Account@101` \
         (Bank.java:30); thread B (`t2`, BLOCKED) holds `p.Account@101` (Bank.java:112), waits for \
         `p.Account@100` (Bank.java:30)"
    );
    assert_eq!(f.flows.len(), 2);
    assert_eq!(f.flows[0].steps.len(), 2, "takes, then waits");
    assert_eq!(f.location.class, "p.Bank");
    assert_eq!(f.location.file.as_deref(), Some("Bank.java"));
    assert_eq!(f.location.line, Some(30));
}

#[test]
fn a_hang_without_a_cycle_is_no_deadlock() {
    let mut r = Run::default();
    r.start(0, 1).lock(1, A, LockKind::Monitor, 11);
    r.hang = Some(Hang {
        threads: vec![ThreadDump {
            thread: 0,
            name: "main".into(),
            state: "BLOCKED".into(),
            waits_for: Some(A),
            ..ThreadDump::default()
        }],
    });
    assert!(deadlocks(&r.check()).is_empty());
    // A thread in `Object.wait` names its monitor too, but waits for a
    // notification, not for the owner: no wait-for edge.
    let mut r = Run::default();
    r.start(0, 1).lock(1, A, LockKind::Monitor, 11);
    let waiting = |thread, state: &str, holds: Vec<ObjId>, waits| ThreadDump {
        thread,
        name: format!("t{thread}"),
        state: state.into(),
        holds,
        waits_for: Some(waits),
        ..ThreadDump::default()
    };
    r.hang = Some(Hang {
        threads: vec![
            waiting(0, "WAITING", vec![B], A),
            waiting(1, "BLOCKED", vec![A], B),
        ],
    });
    assert!(deadlocks(&r.check()).is_empty());
}

#[test]
fn offline_check_of_a_saved_trace_gives_the_same_deadlock() {
    let r = two_workers(|r| {
        r.nested(1, A, B).nested(2, B, A);
    });
    let online = r.check();
    let mut trace = Trace::default();
    let mut per_thread: std::collections::BTreeMap<ThreadId, Vec<Event>> = Default::default();
    per_thread
        .entry(0)
        .or_default()
        .push(Event::ThreadBegin { parent: None });
    for (t, e) in &r.events {
        per_thread.entry(*t).or_default().push(*e);
    }
    for (thread, events) in per_thread {
        trace.chunks.push(Chunk {
            thread,
            index: 0,
            events,
        });
    }
    for s in 0..40u32 {
        trace.tables.sites.insert(s, site(s));
    }
    let offline = check_traces(&[trace], &Options::default());
    let cycle = |o: &Outcome| deadlocks(o).first().map(|f| f.location.clone());
    assert!(cycle(&offline).is_some(), "{:#?}", offline.findings);
    assert_eq!(cycle(&online), cycle(&offline));
}
