//! Checker behaviour on hand-built traces, written through the real
//! `TraceWriter`/`ChunkEncoder` and read back, so the whole path
//! (encode → read → merge → check → finding) is exercised.

use lockstep_dynamic::{check_stream, check_traces, CheckerSet, Options};
use lockstep_trace::*;

/// Builds a trace: per-thread event lists, per-lock seq counters kept like
/// the recorder does.
struct Builder {
    threads: Vec<Vec<Event>>,
    seqs: std::collections::HashMap<(u64, u64), u64>,
}

const COUNT: FieldId = 0;
const FLAG: FieldId = 1;
const LOCK_A: ObjId = 100;
const LOCK_B: ObjId = 101;
const OBJ: ObjId = 7;
const ARR: ObjId = 8;
/// A `ConcurrentHashMap` and a `HashMap` (object table entries).
const CHM: ObjId = 9;
const HASH_MAP: ObjId = 10;

impl Builder {
    fn new(n: usize) -> Self {
        let mut threads = vec![vec![Event::ThreadBegin { parent: None }]];
        for _ in 1..n {
            threads.push(Vec::new());
        }
        Builder {
            threads,
            seqs: Default::default(),
        }
    }
    fn seq(&mut self, obj: u64, key: u64) -> u64 {
        let c = self.seqs.entry((obj, key)).or_insert(0);
        *c += 1;
        *c - 1
    }
    fn start(&mut self, parent: usize, child: usize) {
        self.threads[parent].push(Event::ThreadStart {
            child: child as u32,
            site: 90,
        });
        self.threads[child].push(Event::ThreadBegin {
            parent: Some(parent as u32),
        });
    }
    fn end(&mut self, t: usize) {
        self.threads[t].push(Event::ThreadEnd);
    }
    fn join(&mut self, t: usize, child: usize) {
        self.threads[t].push(Event::ThreadJoin {
            child: child as u32,
            site: 91,
        });
    }
    fn lock(&mut self, t: usize, lock: ObjId, kind: LockKind) {
        let seq = self.seq(lock, 1 << 32);
        self.threads[t].push(Event::Acquire {
            lock,
            seq,
            kind,
            site: 0,
        });
    }
    fn unlock(&mut self, t: usize, lock: ObjId, kind: LockKind) {
        let seq = self.seq(lock, 1 << 32);
        self.threads[t].push(Event::Release {
            lock,
            seq,
            kind,
            site: 0,
        });
    }
    fn sync_release(&mut self, t: usize, obj: ObjId, key: u32) {
        let seq = self.seq(obj, u64::from(key));
        self.threads[t].push(Event::SyncRelease {
            obj,
            key,
            seq,
            site: 0,
        });
    }
    fn sync_acquire(&mut self, t: usize, obj: ObjId, key: u32) {
        let seq = self.seq(obj, u64::from(key));
        self.threads[t].push(Event::SyncAcquire {
            obj,
            key,
            seq,
            site: 0,
        });
    }
    fn read(&mut self, t: usize, site: SiteId) {
        self.threads[t].push(Event::Read {
            obj: OBJ,
            field: COUNT,
            site,
        });
    }
    fn write(&mut self, t: usize, site: SiteId) {
        self.threads[t].push(Event::Write {
            obj: OBJ,
            field: COUNT,
            site,
        });
    }
    fn push(&mut self, t: usize, e: Event) {
        self.threads[t].push(e);
    }
    /// Writes the trace; chunks of thread 1.. first, to exercise the merger.
    fn bytes(&self) -> Vec<u8> {
        let mut w = TraceWriter::new(Vec::new(), &Header::default()).unwrap();
        for s in 0..100u32 {
            w.site(
                s,
                &Site {
                    class: "p/Main".into(),
                    method: format!("m{s}"),
                    descriptor: "()V".into(),
                    line: Some(10 + s),
                    file: Some("Main.java".into()),
                },
            )
            .unwrap();
        }
        w.field(
            COUNT,
            &Field {
                class: "p/Main".into(),
                name: "count".into(),
                descriptor: "I".into(),
                is_static: false,
                is_volatile: false,
                is_final: false,
            },
        )
        .unwrap();
        w.field(
            FLAG,
            &Field {
                class: "p/Main".into(),
                name: "flag".into(),
                descriptor: "Z".into(),
                is_static: false,
                is_volatile: true,
                is_final: false,
            },
        )
        .unwrap();
        w.method(
            0,
            &Method {
                class: "p/Main".into(),
                name: "run".into(),
                descriptor: "()V".into(),
                flags: None,
            },
        )
        .unwrap();
        for (i, _) in self.threads.iter().enumerate() {
            w.thread(&ThreadInfo {
                id: i as u32,
                name: if i == 0 {
                    "main".into()
                } else {
                    format!("worker-{i}")
                },
                parent: None,
                start_site: (i > 0).then_some(90),
            })
            .unwrap();
        }
        w.object(&ObjectInfo {
            id: OBJ,
            class: "p/Main".into(),
            alloc_site: Some(5),
            represents: None,
        })
        .unwrap();
        w.object(&ObjectInfo {
            id: LOCK_A,
            class: "java/lang/Object".into(),
            alloc_site: None,
            represents: None,
        })
        .unwrap();
        for (id, class) in [
            (CHM, "java/util/concurrent/ConcurrentHashMap"),
            (HASH_MAP, "java/util/HashMap"),
        ] {
            w.object(&ObjectInfo {
                id,
                class: class.into(),
                alloc_site: None,
                represents: None,
            })
            .unwrap();
        }
        for (i, evs) in self.threads.iter().enumerate().rev() {
            let mut enc = ChunkEncoder::new(i as u32);
            for e in evs {
                enc.push(e);
            }
            if let Some(c) = enc.take_chunk() {
                w.chunk(&c).unwrap();
            }
        }
        w.finish().unwrap()
    }
}

fn only(lockset: bool, hb: bool) -> Options {
    Options {
        checkers: CheckerSet {
            lockset,
            happens_before: hb,
        },
        ..Options::default()
    }
}

fn races(b: &Builder, opts: Options) -> usize {
    let out = check_stream(&b.bytes()[..], &opts);
    assert!(!out.truncated, "{:?}", out.notes);
    assert!(out.notes.is_empty(), "{:?}", out.notes);
    out.findings.len()
}

fn both(b: &Builder) -> (usize, usize) {
    (races(b, only(true, false)), races(b, only(false, true)))
}

/// Two workers increment a counter without a lock.
fn racy_counter() -> Builder {
    let mut b = Builder::new(3);
    b.start(0, 1);
    b.start(0, 2);
    for t in [1, 2] {
        b.read(t, 20 + t as u32);
        b.write(t, 30 + t as u32);
        b.end(t);
    }
    b
}

#[test]
fn racy_counter_is_found_by_both_checkers() {
    let b = racy_counter();
    let (ls, hb) = both(&b);
    assert!(ls >= 1 && hb >= 1, "lockset {ls}, hb {hb}");
    let out = check_stream(&b.bytes()[..], &Options::default());
    let f = &out.findings[0];
    assert_eq!(f.rule, "data-race");
    assert_eq!(f.provenance.as_deref(), Some("run"));
    assert_eq!(f.field.as_deref(), Some("p.Main.count"));
    assert!(
        f.message.contains("worker-1") && f.message.contains("worker-2"),
        "{}",
        f.message
    );
    assert!(f.message.contains("started at"), "{}", f.message);
    assert_eq!(f.related.len(), 1);
    assert!(
        f.notes.iter().any(|n| n.contains("allocated at")),
        "{:?}",
        f.notes
    );
    assert!(
        out.findings.iter().any(|f| f
            .notes
            .iter()
            .any(|n| n == "found by: lockset, happens-before")),
        "{:?}",
        out.findings
    );
}

#[test]
fn lock_protected_counter_is_silent() {
    let mut b = Builder::new(3);
    b.start(0, 1);
    b.start(0, 2);
    for t in [1, 2] {
        b.lock(t, LOCK_A, LockKind::Monitor);
        b.read(t, 20);
        b.write(t, 21);
        b.unlock(t, LOCK_A, LockKind::Monitor);
        b.end(t);
    }
    assert_eq!(both(&b), (0, 0));
}

/// Worker writes `count`, then the volatile `flag`; main reads the flag and
/// then `count`. Happens-before is silent (the volatile orders them), and so
/// is lockset with the hand-off extension (ownership passes with the
/// flag); plain Eraser with start/join only reports it.
fn volatile_publication() -> Builder {
    let mut b = Builder::new(2);
    b.write(0, 19); // main initializes before the start
    b.start(0, 1);
    b.write(1, 20);
    b.sync_release(1, OBJ, FLAG);
    b.sync_acquire(0, OBJ, FLAG);
    b.read(0, 21);
    b.write(0, 22);
    b.end(1);
    b
}

#[test]
fn volatile_publication_is_silent_with_hand_off_ordering() {
    assert_eq!(both(&volatile_publication()), (0, 0));
    let no_handoffs = Options {
        handoff_ordering: false,
        ..only(true, false)
    };
    assert_eq!(races(&volatile_publication(), no_handoffs), 1);
}

/// A worker writes, main joins it and then reads and writes.
fn start_join() -> Builder {
    let mut b = Builder::new(2);
    b.write(0, 19); // main initializes before start
    b.start(0, 1);
    b.write(1, 20);
    b.end(1);
    b.join(0, 1);
    b.read(0, 21);
    b.write(0, 22);
    b
}

#[test]
fn start_join_ordering_is_silent_with_the_extension() {
    assert_eq!(both(&start_join()), (0, 0));
}

#[test]
fn plain_eraser_without_join_ordering_reports_start_join() {
    let opts = Options {
        join_ordering: false,
        ..only(true, false)
    };
    assert!(races(&start_join(), opts) >= 1, "Eraser's join false alarm");
}

#[test]
fn latch_ordered_accesses_are_silent_under_hb() {
    let latch = 55;
    let mut b = Builder::new(3);
    b.start(0, 1);
    b.start(0, 2);
    b.write(1, 20);
    b.sync_release(1, latch, 0); // countDown
    b.sync_acquire(2, latch, 0); // await
    b.read(2, 21);
    b.write(2, 22);
    b.end(1);
    b.end(2);
    assert_eq!(races(&b, only(false, true)), 0);
}

#[test]
fn thread_confined_objects_are_silent() {
    let mut b = Builder::new(3);
    b.start(0, 1);
    b.start(0, 2);
    for t in [1usize, 2] {
        let obj = 1000 + t as u64;
        for i in 0..5 {
            b.push(
                t,
                Event::Read {
                    obj,
                    field: COUNT,
                    site: 20 + i,
                },
            );
            b.push(
                t,
                Event::Write {
                    obj,
                    field: COUNT,
                    site: 30 + i,
                },
            );
        }
        b.end(t);
    }
    assert_eq!(both(&b), (0, 0));
}

#[test]
fn read_only_after_escape_is_silent() {
    let mut b = Builder::new(3);
    b.write(0, 19);
    b.start(0, 1);
    b.start(0, 2);
    for t in [0usize, 1, 2] {
        b.read(t, 20 + t as u32);
    }
    b.end(1);
    b.end(2);
    assert_eq!(both(&b), (0, 0));
}

/// Reads hold A (one thread) or B (another), writes hold A and B: every
/// read shares a lock with every write. Multi-lockset is silent; plain
/// Eraser (one candidate set) reports.
fn multi_lockset_case() -> Builder {
    let mut b = Builder::new(4);
    for t in 1..4 {
        b.start(0, t);
    }
    b.lock(1, LOCK_A, LockKind::Monitor);
    b.read(1, 20);
    b.unlock(1, LOCK_A, LockKind::Monitor);
    b.lock(2, LOCK_B, LockKind::Monitor);
    b.read(2, 21);
    b.unlock(2, LOCK_B, LockKind::Monitor);
    b.lock(3, LOCK_A, LockKind::Monitor);
    b.lock(3, LOCK_B, LockKind::Monitor);
    b.write(3, 22);
    b.unlock(3, LOCK_B, LockKind::Monitor);
    b.unlock(3, LOCK_A, LockKind::Monitor);
    b.lock(1, LOCK_A, LockKind::Monitor);
    b.read(1, 23);
    b.unlock(1, LOCK_A, LockKind::Monitor);
    b
}

#[test]
fn multi_lockset_reads_under_one_writes_under_both_is_silent() {
    assert_eq!(both(&multi_lockset_case()), (0, 0));
    let plain = Options {
        multi_lockset: false,
        ..only(true, false)
    };
    assert_eq!(
        races(&multi_lockset_case(), plain),
        1,
        "plain Eraser reports it"
    );
}

#[test]
fn read_write_lock_protects_reads_but_not_writes_under_the_read_view() {
    let rw = 200;
    let mut b = Builder::new(3);
    b.start(0, 1);
    b.start(0, 2);
    b.lock(1, rw, LockKind::Read);
    b.read(1, 20);
    b.unlock(1, rw, LockKind::Read);
    b.lock(2, rw, LockKind::Write);
    b.write(2, 21);
    b.unlock(2, rw, LockKind::Write);
    b.lock(1, rw, LockKind::Read);
    b.read(1, 22);
    b.unlock(1, rw, LockKind::Read);
    assert_eq!(
        both(&b),
        (0, 0),
        "reads under the read lock, writes under the write lock"
    );

    let mut bad = Builder::new(3);
    bad.start(0, 1);
    bad.start(0, 2);
    for t in [1usize, 2] {
        bad.lock(t, rw, LockKind::Read);
        bad.write(t, 30 + t as u32);
        bad.unlock(t, rw, LockKind::Read);
    }
    let (ls, hb) = both(&bad);
    assert_eq!((ls, hb), (1, 1), "writes under the read view race");
}

#[test]
fn arrays_race_per_index() {
    let mut b = Builder::new(3);
    b.start(0, 1);
    b.start(0, 2);
    b.push(
        1,
        Event::ArrayWrite {
            array: ARR,
            index: 0,
            site: 20,
        },
    );
    b.push(
        2,
        Event::ArrayWrite {
            array: ARR,
            index: 1,
            site: 21,
        },
    );
    assert_eq!(both(&b), (0, 0), "different indices");
    b.push(
        2,
        Event::ArrayWrite {
            array: ARR,
            index: 0,
            site: 22,
        },
    );
    assert_eq!(both(&b), (1, 1), "same index");
    let out = check_stream(&b.bytes()[..], &Options::default());
    assert!(
        out.findings[0].message.contains("element [0]"),
        "{}",
        out.findings[0].message
    );
}

/// Producer writes under the lock and notifies; consumer waits (Release,
/// Acquire around the wait) and reads under the lock, then both touch it
/// again unlocked after the hand-off ordering through the lock.
#[test]
fn wait_notify_hand_off_is_silent() {
    let mut b = Builder::new(2);
    b.start(0, 1);
    // consumer (1) waits first
    b.lock(1, LOCK_A, LockKind::Monitor);
    b.lock(1, LOCK_A, LockKind::Monitor); // reentrant: wait releases both levels
    b.push(
        1,
        Event::Wait {
            lock: LOCK_A,
            site: 40,
        },
    );
    b.unlock(1, LOCK_A, LockKind::Monitor);
    // producer (0)
    b.lock(0, LOCK_A, LockKind::Monitor);
    b.write(0, 20);
    b.push(
        0,
        Event::Notify {
            lock: LOCK_A,
            all: false,
            site: 41,
        },
    );
    b.unlock(0, LOCK_A, LockKind::Monitor);
    // consumer wakes up
    b.lock(1, LOCK_A, LockKind::Monitor);
    b.read(1, 21);
    b.unlock(1, LOCK_A, LockKind::Monitor);
    b.unlock(1, LOCK_A, LockKind::Monitor);
    b.write(1, 22); // after the hand-off, unlocked: ordered by the lock for HB
    assert_eq!(races(&b, only(false, true)), 0);
    assert_eq!(
        races(&b, only(true, false)),
        1,
        "lockset: the unlocked write after sharing"
    );
}

#[test]
fn call_stacks_and_locks_are_named() {
    let mut b = Builder::new(3);
    b.start(0, 1);
    b.start(0, 2);
    b.push(1, Event::Enter { method: 0 });
    b.lock(1, LOCK_A, LockKind::Monitor);
    b.write(1, 20);
    b.unlock(1, LOCK_A, LockKind::Monitor);
    b.push(1, Event::Exit { method: 0 });
    b.write(2, 21);
    let out = check_stream(&b.bytes()[..], &Options::default());
    assert_eq!(out.findings.len(), 1);
    let f = &out.findings[0];
    assert!(
        f.related[0]
            .message
            .contains("holding java.lang.Object@100"),
        "{}",
        f.related[0].message
    );
    assert!(
        f.related[0].message.contains("call stack: p.Main.run"),
        "{}",
        f.related[0].message
    );
    assert!(f.notes[0].contains("holding no lock"), "{:?}", f.notes);
}

#[test]
fn truncated_trace_reports_what_it_holds_with_a_note() {
    let bytes = racy_counter().bytes();
    let full = check_stream(&bytes[..], &Options::default());
    let cut = check_stream(&bytes[..bytes.len() - 1], &Options::default());
    assert!(cut.truncated);
    assert_eq!(
        cut.findings, full.findings,
        "only the end record is missing"
    );
    assert!(cut.notes[0].contains("byte offset"), "{:?}", cut.notes);
    for n in 0..bytes.len() {
        let _ = check_stream(&bytes[..n], &Options::default());
    }
}

#[test]
fn offline_and_online_agree_and_output_is_deterministic() {
    let bytes = multi_lockset_case().bytes();
    let mut racy = racy_counter();
    racy.end(0);
    let racy_bytes = racy.bytes();
    let traces = vec![read_bytes(&bytes), read_bytes(&racy_bytes)];
    let opts = Options {
        timeline: true,
        ..Options::default()
    };
    let a = check_traces(&traces, &opts);
    let b = check_traces(&traces, &opts);
    assert_eq!(a.findings, b.findings);
    assert_eq!(a.timeline, b.timeline);
    assert_eq!(a.findings, check_stream(&racy_bytes[..], &opts).findings);
    let tl: serde_json::Value = serde_json::from_str(a.timeline.as_deref().unwrap()).unwrap();
    let events = tl["traceEvents"].as_array().unwrap();
    assert!(events.iter().any(|e| e["ph"] == "X" && e["cat"] == "lock"));
    assert_eq!(
        events.iter().filter(|e| e["ph"] == "i").count(),
        2 * a.findings.len()
    );
    assert_eq!(a.stats.traces, 2);
}

/// A read that breaks the lockset is reported against the write it
/// conflicts with, never against another read (found on h2: lockset paired
/// a read with the last access of another thread, which was a read).
#[test]
fn lockset_reports_a_read_against_a_write_not_a_read() {
    let mut b = Builder::new(4);
    b.start(0, 1);
    b.start(0, 2);
    b.start(0, 3);
    b.write(1, 31);
    b.end(1);
    b.write(2, 32);
    b.read(2, 42);
    b.end(2);
    b.read(3, 53);
    b.end(3);
    let out = check_stream(&b.bytes()[..], &only(true, false));
    assert!(out.findings.len() >= 2, "{:#?}", out.findings);
    for f in &out.findings {
        let lines: Vec<Option<u32>> = std::iter::once(f.location.line)
            .chain(f.related.iter().map(|r| r.location.line))
            .collect();
        // Sites 31 and 32 (the writes) are at lines 41 and 42.
        assert!(
            lines.contains(&Some(41)) || lines.contains(&Some(42)),
            "a read/read pair: {f:#?}"
        );
    }
}

/// Main starts a worker that writes `count` and publishes through `key` on
/// `obj` (released by the worker, acquired by main when `acquired`); main
/// then reads and writes `count`.
fn published_through(obj: ObjId, key: u32, acquired: bool) -> Builder {
    let mut b = Builder::new(2);
    b.start(0, 1);
    b.write(1, 20);
    b.sync_release(1, obj, key);
    b.sync_acquire(1, obj, key);
    if acquired {
        b.sync_acquire(0, obj, key);
    }
    b.read(0, 21);
    b.write(0, 22);
    b.end(1);
    b
}

#[test]
fn atomic_hand_off_orders_both_checkers_and_its_absence_races() {
    assert_eq!(both(&published_through(ARR, keys::ATOMIC, true)), (0, 0));
    let (lockset, hb) = both(&published_through(ARR, keys::ATOMIC, false));
    assert!(lockset >= 1 && hb >= 1, "{lockset} {hb}");
}

#[test]
fn collection_hand_off_counts_only_on_a_thread_safe_container() {
    assert_eq!(
        both(&published_through(CHM, keys::COLLECTION, true)),
        (0, 0)
    );
    let (lockset, hb) = both(&published_through(HASH_MAP, keys::COLLECTION, true));
    assert!(lockset >= 1 && hb >= 1, "{lockset} {hb}");
}

/// Two workers put into and read a map without a lock.
fn container_race(map: ObjId) -> Builder {
    let mut b = Builder::new(3);
    b.start(0, 1);
    b.start(0, 2);
    for t in [1, 2] {
        b.push(
            t,
            Event::ContainerWrite {
                obj: map,
                site: 40 + t as u32,
            },
        );
        b.push(
            t,
            Event::ContainerRead {
                obj: map,
                site: 50 + t as u32,
            },
        );
        b.end(t);
    }
    b
}

#[test]
fn thread_safe_containers_are_not_raced_through_their_methods() {
    assert_eq!(both(&container_race(CHM)), (0, 0));
    let (lockset, hb) = both(&container_race(HASH_MAP));
    assert!(lockset >= 1 && hb >= 1, "{lockset} {hb}");
}

/// Worker 1 runs a class's `<clinit>` (writes a static, releases the class);
/// worker 2 acquires the class on its first use and reads the static. The
/// chunks are written worker 2 first, yet the merge puts the read after.
#[test]
fn class_initialization_orders_the_first_use_in_both_checkers() {
    let class = keys::class_object(3);
    let mut b = Builder::new(3);
    b.start(0, 1);
    b.start(0, 2);
    b.write(1, 20);
    b.push(1, Event::ClassInit { class: 3 });
    b.sync_release(1, class, keys::CLASS_INIT);
    b.sync_acquire(2, class, keys::CLASS_INIT);
    b.read(2, 21);
    b.read(2, 22);
    b.end(1);
    b.end(2);
    assert_eq!(both(&b), (0, 0));
}
