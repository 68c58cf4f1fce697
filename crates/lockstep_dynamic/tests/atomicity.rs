//! The atomicity checkers on hand-built traces (paper 003's examples),
//! written through the real `TraceWriter`/`ChunkEncoder`, read back, merged
//! and checked: slide 17 (on-line and off-line reduction differ), slide 18
//! (off-line reduction's false alarm that the block-based checker avoids),
//! slide 24 (a cycle of three pairwise-atomic transactions), and a lost
//! update that every checker reports.

use lockstep_dynamic::{check_stream, AtomicSpec, CheckerSet, Options};
use lockstep_report::Finding;
use lockstep_trace::*;

/// The transaction methods (method ids 0..) of class `p/Acct`.
const METHODS: [&str; 4] = ["t1", "t2", "t3", "other"];
const X: FieldId = 0;
const Y: FieldId = 1;
const Z: FieldId = 2;
const OBJ: ObjId = 7;
const L: ObjId = 100;
/// A lock only used to order threads in the merged trace.
const GATE: ObjId = 101;
/// A thread-safe container.
const MAP: ObjId = 102;

/// Per-thread event lists; lock sequence numbers kept like the recorder's.
#[derive(Default)]
struct Trace {
    threads: Vec<Vec<Event>>,
    seqs: std::collections::HashMap<ObjId, u64>,
}

impl Trace {
    fn new(n: usize) -> Self {
        let mut t = Trace {
            threads: vec![Vec::new(); n],
            ..Trace::default()
        };
        t.threads[0].push(Event::ThreadBegin { parent: None });
        for c in 1..n {
            t.threads[0].push(Event::ThreadStart {
                child: c as u32,
                site: 0,
            });
            t.threads[c].push(Event::ThreadBegin { parent: Some(0) });
        }
        t
    }
    fn lock_event(&mut self, t: usize, lock: ObjId, acquire: bool) -> &mut Self {
        let c = self.seqs.entry(lock).or_insert(0);
        let seq = *c;
        *c += 1;
        let kind = LockKind::Monitor;
        self.threads[t].push(if acquire {
            Event::Acquire {
                lock,
                seq,
                kind,
                site: 1,
            }
        } else {
            Event::Release {
                lock,
                seq,
                kind,
                site: 1,
            }
        });
        self
    }
    fn acq(&mut self, t: usize, lock: ObjId) -> &mut Self {
        self.lock_event(t, lock, true)
    }
    fn rel(&mut self, t: usize, lock: ObjId) -> &mut Self {
        self.lock_event(t, lock, false)
    }
    /// Orders everything `t` did so far before what `u` does next.
    fn then(&mut self, t: usize, u: usize) -> &mut Self {
        self.acq(t, GATE).rel(t, GATE).acq(u, GATE).rel(u, GATE)
    }
    /// A container hand-off event on `MAP` (its own sequence numbers).
    fn map_sync(&mut self, t: usize, release: bool) -> &mut Self {
        let c = self.seqs.entry(MAP).or_insert(0);
        let seq = *c;
        *c += 1;
        let (obj, key, site) = (MAP, keys::COLLECTION, 2);
        self.threads[t].push(if release {
            Event::SyncRelease {
                obj,
                key,
                seq,
                site,
            }
        } else {
            Event::SyncAcquire {
                obj,
                key,
                seq,
                site,
            }
        });
        self
    }
    /// A read call on `MAP` as the recorder brackets it.
    fn map_get(&mut self, t: usize) -> &mut Self {
        self.map_sync(t, false).map_sync(t, false)
    }
    fn enter(&mut self, t: usize, m: u32) -> &mut Self {
        self.threads[t].push(Event::Enter { method: m });
        self
    }
    fn exit(&mut self, t: usize, m: u32) -> &mut Self {
        self.threads[t].push(Event::Exit { method: m });
        self
    }
    fn rd(&mut self, t: usize, field: FieldId) -> &mut Self {
        self.access(t, field, false)
    }
    fn wr(&mut self, t: usize, field: FieldId) -> &mut Self {
        self.access(t, field, true)
    }
    /// Reads are at sites 10, 12, 14 and writes at 11, 13, 15 (x, y, z).
    fn access(&mut self, t: usize, field: FieldId, write: bool) -> &mut Self {
        let site = 10 + field * 2 + u32::from(write);
        let obj = OBJ;
        self.threads[t].push(if write {
            Event::Write { obj, field, site }
        } else {
            Event::Read { obj, field, site }
        });
        self
    }
    fn bytes(&self) -> Vec<u8> {
        let mut w = TraceWriter::new(Vec::new(), &Header::default()).unwrap();
        for s in 0..20u32 {
            let site = Site {
                class: "p/Acct".into(),
                method: "m".into(),
                descriptor: "()V".into(),
                line: Some(100 + s),
                file: Some("Acct.java".into()),
            };
            w.site(s, &site).unwrap();
        }
        for (id, name) in ["x", "y", "z"].iter().enumerate() {
            let field = Field {
                class: "p/Acct".into(),
                name: (*name).into(),
                descriptor: "I".into(),
                is_static: false,
                is_volatile: false,
                is_final: false,
            };
            w.field(id as u32, &field).unwrap();
        }
        for (id, name) in METHODS.iter().enumerate() {
            let m = Method {
                class: "p/Acct".into(),
                name: (*name).into(),
                descriptor: "()V".into(),
                flags: None,
            };
            w.method(id as u32, &m).unwrap();
        }
        for (id, class) in [
            (OBJ, "p/Acct"),
            (L, "java/lang/Object"),
            (GATE, "p/Gate"),
            (MAP, "java/util/concurrent/ConcurrentHashMap"),
        ] {
            let o = ObjectInfo {
                id,
                class: class.into(),
                alloc_site: None,
                represents: None,
            };
            w.object(&o).unwrap();
        }
        for (i, evs) in self.threads.iter().enumerate() {
            let mut enc = ChunkEncoder::new(i as u32);
            for e in evs {
                enc.push(e);
            }
            enc.push(&Event::ThreadEnd);
            if let Some(c) = enc.take_chunk() {
                w.chunk(&c).unwrap();
            }
        }
        w.finish().unwrap()
    }
}

fn spec(online: bool, offline: bool, blocks: bool, serial: bool) -> AtomicSpec {
    AtomicSpec {
        reduction_online: online,
        reduction_offline: offline,
        blocks,
        serializability: serial,
        patterns: Vec::new(),
    }
}

fn atomicity(t: &Trace, spec: AtomicSpec) -> Vec<Finding> {
    let options = Options {
        checkers: CheckerSet {
            lockset: false,
            happens_before: false,
        },
        deadlocks: false,
        atomicity: spec,
        ..Options::default()
    };
    let out = check_stream(&t.bytes()[..], &options);
    assert!(!out.truncated, "{:?}", out.notes);
    out.findings
        .into_iter()
        .filter(|f| f.rule == "non-atomic-method")
        .collect()
}

fn methods(fs: &[Finding]) -> Vec<String> {
    let mut v: Vec<String> = fs
        .iter()
        .map(|f| {
            let m = f.message.split('`').nth(1).unwrap_or("?");
            format!("{m} {}", found_by(f))
        })
        .collect();
    v.sort();
    v
}

fn found_by(f: &Finding) -> &str {
    f.notes
        .iter()
        .find_map(|n| n.strip_prefix("found by: "))
        .unwrap_or("?")
}

/// Slide 17: `acq(l) rd(x) wr(x) rel(l)` in a transaction, then `wr(x)`
/// without the lock. On-line, the protected accesses were movers when they
/// happened: no warning. Off-line, x's final lockset is empty, so they are
/// non-movers and the transaction `R N N L` is not reducible.
fn slide_17() -> Trace {
    let mut t = Trace::new(3);
    // Thread 2 reads x under l first: x becomes shared when thread 1 comes.
    t.acq(2, L).rd(2, X).rel(2, L).then(2, 1);
    t.enter(1, 0)
        .acq(1, L)
        .rd(1, X)
        .wr(1, X)
        .rel(1, L)
        .exit(1, 0);
    t.wr(1, X);
    t
}

#[test]
fn slide_17_on_line_and_off_line_reduction_classify_differently() {
    let t = slide_17();
    assert!(atomicity(&t, spec(true, false, false, false)).is_empty());
    let off = atomicity(&t, spec(false, true, false, false));
    assert_eq!(methods(&off), ["p.Acct.t1 reduction-offline"]);
    let f = &off[0];
    assert_eq!(f.provenance.as_deref(), Some("run"));
    assert!(
        f.message.contains("read of `p.Acct.x`") || f.message.contains("write of `p.Acct.x`"),
        "{}",
        f.message
    );
    assert!(f.related.len() >= 2, "{:?}", f.related);
    assert_eq!(f.location.line, Some(110), "{:?}", f.location);
}

/// Slide 18: `t1: rd(x) wr(x)` and `t2: rd(x)`, no locks. All three are
/// non-movers, so reduction (off-line) reports t1, but every interleaving
/// of the blocks is serializable: the block-based checker is silent.
fn slide_18() -> Trace {
    let mut t = Trace::new(3);
    // Thread 2 reads x first, so t1's accesses are to a shared variable.
    t.rd(2, X).then(2, 1);
    t.enter(1, 0).rd(1, X).wr(1, X).exit(1, 0).then(1, 2);
    t.enter(2, 1).rd(2, X).exit(2, 1);
    t
}

#[test]
fn slide_18_is_a_reduction_false_alarm_that_blocks_avoid() {
    let t = slide_18();
    let off = atomicity(&t, spec(false, true, false, false));
    assert_eq!(methods(&off), ["p.Acct.t1 reduction-offline"]);
    assert!(atomicity(&t, spec(false, false, true, false)).is_empty());
    assert!(atomicity(&t, spec(false, false, false, true)).is_empty());
}

/// Slide 10's `t1: rd(x) wr(x)`, `t2: wr(x)`: a lost update every checker
/// reports (x was written by two threads before, so even on-line its
/// accesses are non-movers); the twin holding `l` around both is silent.
fn lost_update(locked: bool) -> Trace {
    let mut t = Trace::new(3);
    if locked {
        t.enter(1, 0)
            .acq(1, L)
            .rd(1, X)
            .wr(1, X)
            .rel(1, L)
            .exit(1, 0);
        t.then(1, 2)
            .enter(2, 1)
            .acq(2, L)
            .wr(2, X)
            .rel(2, L)
            .exit(2, 1);
        return t;
    }
    t.wr(2, X).then(2, 0).wr(0, X).then(0, 1);
    // t2's write falls between t1's read and write in the run.
    t.enter(1, 0).rd(1, X).then(1, 2);
    t.enter(2, 1).wr(2, X).exit(2, 1).then(2, 1);
    t.wr(1, X).exit(1, 0);
    t
}

#[test]
fn a_lost_update_is_reported_by_every_checker_and_its_locked_twin_by_none() {
    let bad = atomicity(&lost_update(false), AtomicSpec::all());
    assert_eq!(
        methods(&bad),
        [
            "p.Acct.t1 block-based",
            "p.Acct.t1 conflict-serializability",
            "p.Acct.t1 reduction-offline",
            "p.Acct.t1 reduction-online",
        ]
    );
    let blocks = bad.iter().find(|f| found_by(f) == "block-based").unwrap();
    let steps: Vec<&str> = blocks.related.iter().map(|r| r.message.as_str()).collect();
    assert_eq!(steps.len(), 3, "{steps:?}");
    assert!(
        steps[0].contains("read of `p.Acct.x`") && steps[0].contains("p.Acct.t1"),
        "{steps:?}"
    );
    assert!(
        steps[1].contains("write of `p.Acct.x`") && !steps[1].contains("p.Acct.t1"),
        "{steps:?}"
    );
    assert!(
        steps[2].contains("write of `p.Acct.x`") && steps[2].contains("p.Acct.t1"),
        "{steps:?}"
    );
    assert!(atomicity(&lost_update(true), AtomicSpec::all()).is_empty());
}

/// Slide 24: `{wr(x) wr(y)}`, `{rd(x) wr(z)}`, `{rd(z) rd(y)}` are pairwise
/// atomic, but `wr(x) rd(x) wr(z) rd(z) rd(y) wr(y)` is not serializable.
#[test]
fn slide_24_three_transaction_cycle_is_found_by_the_multi_transaction_check() {
    let mut t = Trace::new(4);
    t.enter(1, 0).wr(1, X).wr(1, Y).exit(1, 0).then(1, 2);
    t.enter(2, 1).rd(2, X).wr(2, Z).exit(2, 1).then(2, 3);
    t.enter(3, 2).rd(3, Z).rd(3, Y).exit(3, 2);
    let fs = atomicity(&t, spec(false, false, true, false));
    assert_eq!(methods(&fs), ["p.Acct.t1 block-based (multi-transaction)"]);
    let f = &fs[0];
    assert!(
        f.message.contains("p.Acct.t2") && f.message.contains("p.Acct.t3"),
        "{}",
        f.message
    );
    let steps: Vec<&str> = f.related.iter().map(|r| r.message.as_str()).collect();
    assert_eq!(steps.len(), 6, "{steps:?}");
    assert!(steps[0].contains("write of `p.Acct.x`"), "{steps:?}");
    assert!(steps[5].contains("write of `p.Acct.y`"), "{steps:?}");
    // The run itself was serial: the observed-run check has nothing.
    assert!(atomicity(&t, spec(false, false, false, true)).is_empty());
}

/// Nested transactions count once, and `--atomic` patterns name methods
/// of classes no second thread touched.
#[test]
fn nested_transactions_count_once_and_patterns_add_transactions() {
    let mut t = Trace::new(3);
    // Thread 1: t1 calls t2 and is interrupted by thread 2's write in between.
    t.enter(1, 0)
        .acq(1, L)
        .rd(1, X)
        .rel(1, L)
        .enter(1, 1)
        .then(1, 2);
    t.acq(2, L).wr(2, X).rel(2, L).then(2, 1);
    t.acq(1, L).wr(1, X).rel(1, L).exit(1, 1).exit(1, 0);
    let fs = atomicity(&t, spec(true, false, false, false));
    assert_eq!(methods(&fs), ["p.Acct.t1 reduction-online"]);
}

#[test]
fn patterns_name_transactions_the_heuristic_does_not_see() {
    // One thread only: no class is shared, so no transaction by default.
    let mut t = Trace::new(1);
    t.enter(0, 3)
        .acq(0, L)
        .rd(0, X)
        .rel(0, L)
        .acq(0, L)
        .wr(0, X)
        .rel(0, L)
        .exit(0, 3);
    assert!(atomicity(&t, spec(true, false, false, false)).is_empty());
    let mut s = spec(true, false, false, false);
    s.patterns = vec!["p.Acct.oth*".into()];
    assert_eq!(
        methods(&atomicity(&t, s)),
        ["p.Acct.other reduction-online"]
    );
}

/// `t1` makes one writing call on a thread-safe map that calls back into
/// method 3 (`other`: the recorder's acquire right after its `Enter`, its
/// release before its `Exit`), in two threads: one atomic access, silent.
/// The twin makes two calls (a get, then the put): check-then-act.
fn map_calls(callback: bool) -> Trace {
    let mut t = Trace::new(3);
    for th in [1, 2] {
        t.enter(th, 0);
        if !callback {
            t.map_get(th);
        }
        t.map_sync(th, false).map_sync(th, true);
        if callback {
            t.enter(th, 3)
                .map_sync(th, false)
                .map_sync(th, true)
                .exit(th, 3);
        }
        t.map_sync(th, false).exit(th, 0);
        if th == 1 {
            t.then(1, 2);
        }
    }
    t
}

#[test]
fn a_callback_inside_a_concurrent_map_call_keeps_the_call_one_access() {
    let reductions = spec(true, true, false, false);
    assert_eq!(
        methods(&atomicity(&map_calls(false), reductions.clone())),
        ["p.Acct.t1 reduction-offline", "p.Acct.t1 reduction-online"]
    );
    assert!(atomicity(&map_calls(true), reductions).is_empty());
}
