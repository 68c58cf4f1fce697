//! Tests of `data-race`: two threads may access the same field, array
//! element or non-thread-safe JDK container at the same time, at least one
//! access writing, with no common lock. Each fixture under
//! `tests/fixtures/data_race/` states what is reported with `// expect:`
//! comments on the line of the *write* of each racing pair (known false
//! positives carry `(FP: ...)`, known false negatives `// known-fn:`); see
//! `tests/common/mod.rs` for how it is run.
//!
//! Closed fixtures (`open = false`) have a `main` and are analysed from it:
//! threads are the main thread plus every started task. Open fixtures
//! (`open = true`) are libraries: every public method may run concurrently
//! with every other one.

mod common;

use common::{
    check_fixture_in_mode, compile_fixture, dump, line_of, run_detector_in_mode, with_context,
};
use lockstep_detectors::data_race::DataRace;
use lockstep_detectors::{Detector, Options};
use lockstep_report::Finding;

const RULES: &[&str] = &["data-race"];

/// Closed program: `main` is the entry point.
const CLOSED: bool = false;
/// Open program: every public method is an entry point.
const OPEN: bool = true;

fn check(case: &str, open: bool) -> Vec<Finding> {
    check_fixture_in_mode(
        &format!("data_race/{case}"),
        &DataRace,
        RULES,
        &Options::default(),
        open,
    )
}

/// [`check`] with the plain harness of paper 002 (`--open-every-class`):
/// for fixtures whose thesis is not concurrent intent, so their unlocked
/// controls stay reported without a lock elsewhere (issue 14's rule would
/// otherwise set them aside).
fn check_every_class(case: &str, open: bool) -> Vec<Finding> {
    let options = Options {
        open_every_class: true,
        ..Options::default()
    };
    check_fixture_in_mode(
        &format!("data_race/{case}"),
        &DataRace,
        RULES,
        &options,
        open,
    )
}

/// The findings whose primary location is `file:line`.
fn at<'a>(findings: &'a [Finding], file: &str, line: u32) -> Vec<&'a Finding> {
    findings
        .iter()
        .filter(|f| f.location.file.as_deref() == Some(file) && f.location.line == Some(line))
        .collect()
}

/// No finding has a related access in `method` (e.g. `main` after `join()`).
fn assert_no_related_in(findings: &[Finding], method: &str) {
    for f in findings {
        assert!(
            f.related
                .iter()
                .all(|r| r.location.method.as_deref() != Some(method)),
            "a finding pairs with an access in `{method}`:\n{}",
            dump(findings)
        );
    }
}

#[test]
fn rule_metadata() {
    let rules = DataRace.rules();
    assert_eq!(rules.len(), 1);
    assert_eq!(rules[0].as_str(), "data-race");
    assert!(lockstep_detectors::rule("data-race").is_some());
}

/// Thesis: one Runnable shared by two threads; `count++` races with itself.
/// The finding names the field, and its related access is the other
/// thread's `count++`, whose message names its thread root. Main's read
/// after both joins is not part of any pair.
#[test]
fn shared_counter() {
    let findings = check("shared_counter", CLOSED);
    let fixture = compile_fixture("data_race/shared_counter");
    let line = line_of(&fixture, "SharedCounter.java", "count++;");
    let starts = [
        line_of(&fixture, "SharedCounter.java", "t1.start();"),
        line_of(&fixture, "SharedCounter.java", "t2.start();"),
    ];
    assert!(!findings.is_empty());
    for f in &findings {
        assert_eq!(f.rule, "data-race");
        assert_eq!(f.field.as_deref(), Some("counter.SharedCounter.count"));
        assert_eq!(f.location.class, "counter.SharedCounter");
        assert_eq!(f.location.method.as_deref(), Some("run"));
        assert_eq!(f.location.line, Some(line));
        assert!(!f.related.is_empty(), "{}", dump(&findings));
        let r = &f.related[0];
        assert_eq!(r.location.class, "counter.SharedCounter");
        assert_eq!(r.location.method.as_deref(), Some("run"));
        assert_eq!(r.location.line, Some(line));
        let names_root = r.message.contains("SharedCounter.run")
            || starts
                .iter()
                .any(|l| r.message.contains(&format!("SharedCounter.java:{l}")));
        assert!(
            names_root,
            "the related access should name its thread root: {}",
            dump(&findings)
        );
    }
    assert_no_related_in(&findings, "main");
}

/// Thesis: one counter object per thread: silent.
#[test]
fn counter_per_thread() {
    let findings = check("counter_per_thread", CLOSED);
    assert!(findings.is_empty(), "{}", dump(&findings));
}

/// Thesis: a private helper guarded by a synchronized entry method but also
/// reached from an unsynchronized one races; a helper reached only under
/// the monitor (also re-entered) is silent; constructor writes are silent.
#[test]
fn bypassed_entry() {
    let findings = check("bypassed_entry", OPEN);
    // The unlocked write is explained by the path that bypasses the
    // monitor, not by the locked `deposit` path.
    let fixture = compile_fixture("data_race/bypassed_entry");
    let write = line_of(&fixture, "Account.java", "balance += n;");
    let hits = at(&findings, "Account.java", write);
    assert!(!hits.is_empty(), "{}", dump(&findings));
    for f in hits {
        let path = f
            .notes
            .iter()
            .find(|n| n.starts_with("path to the write"))
            .unwrap_or_else(|| panic!("no path note: {}", dump(&findings)));
        assert!(path.contains("depositFast"), "{}", dump(&findings));
    }
}

/// Thesis: a bounded buffer split over two monitors races on the slots of
/// its array and on its count; the one-monitor version is silent. The
/// array race names the field holding the array and pairs the slot write
/// in `put` with the slot read in `take`.
#[test]
fn bounded_buffer() {
    let findings = check("bounded_buffer", OPEN);
    let fixture = compile_fixture("data_race/bounded_buffer");
    let write = line_of(&fixture, "BrokenBuffer.java", "items[putIndex] = x;");
    let read = line_of(&fixture, "BrokenBuffer.java", "int x = items[takeIndex];");
    let hits = at(&findings, "BrokenBuffer.java", write);
    assert_eq!(hits.len(), 1, "{}", dump(&findings));
    let f = hits[0];
    assert_eq!(f.field.as_deref(), Some("buffer.BrokenBuffer.items"));
    assert_eq!(f.location.method.as_deref(), Some("put"));
    assert!(!f.related.is_empty(), "{}", dump(&findings));
    assert_eq!(f.related[0].location.method.as_deref(), Some("take"));
    assert_eq!(f.related[0].location.line, Some(read));
    // The count race names `count`, never the indices.
    let count = line_of(&fixture, "BrokenBuffer.java", "count = n + 1;");
    for f in at(&findings, "BrokenBuffer.java", count) {
        assert_eq!(f.field.as_deref(), Some("buffer.BrokenBuffer.count"));
    }
    assert!(
        findings
            .iter()
            .all(|f| f.location.class == "buffer.BrokenBuffer"),
        "{}",
        dump(&findings)
    );
}

/// Thesis: final fields written in the constructor: silent.
#[test]
fn immutable_value() {
    let findings = check("immutable_value", OPEN);
    assert!(findings.is_empty(), "{}", dump(&findings));
}

/// Thesis: unsynchronized lazy init of a static and double-checked locking
/// without `volatile` race; the synchronized, volatile double-checked and
/// holder-class variants are silent.
#[test]
fn lazy_init() {
    let findings = check("lazy_init", OPEN);
    for f in &findings {
        assert!(
            f.location.class == "lazy.Registry" || f.location.class == "lazy.BrokenDclRegistry",
            "{}",
            dump(&findings)
        );
    }
}

/// Thesis: a volatile array reference replaced under a lock and read
/// without it: silent.
#[test]
fn copy_on_write() {
    let findings = check("copy_on_write", OPEN);
    assert!(findings.is_empty(), "{}", dump(&findings));
}

/// Modern: a lambda submitted twice, lambdas / method references /
/// anonymous classes started from loops race with themselves; tasks with
/// state of their own are silent, a worker allocated in a loop too.
#[test]
fn executors_lambdas() {
    check("executors_lambdas", CLOSED);
}

/// Roots per task: one `start()` site that runs once starts one of two
/// job types; each runs only its own `run` (no job races with itself or
/// with the other), and each job's race with the monitor thread names the
/// site that starts it, with a path from that thread's entry.
#[test]
fn start_sites() {
    let findings = check("start_sites", CLOSED);
    let fixture = compile_fixture("data_race/start_sites");
    let job = line_of(&fixture, "Jobs.java", "job.start();");
    let monitor = line_of(&fixture, "Jobs.java", "monitor.start();");
    for (job_type, marker) in [
        ("Loader", "Jobs.progress = 1;"),
        ("Saver", "Jobs.progress = 2;"),
    ] {
        let line = line_of(&fixture, "Jobs.java", marker);
        let found = at(&findings, "Jobs.java", line);
        assert_eq!(found.len(), 1, "{}", dump(&findings));
        let f = found[0];
        let first_root =
            format!("in {job_type}.run by the thread started by Thread.start() at Jobs.java:{job}");
        assert!(f.message.contains(&first_root), "{}", dump(&findings));
        let second_root = format!("by the thread started by Thread.start() at Jobs.java:{monitor}");
        assert!(f.message.contains(&second_root), "{}", dump(&findings));
        assert_eq!(
            f.related.len(),
            1,
            "only the monitor races: {}",
            dump(&findings)
        );
        assert_eq!(f.related[0].location.method.as_deref(), Some("run"));
        assert_eq!(f.related[0].location.class, "sites.Monitor");
        let paths: Vec<&String> = f
            .notes
            .iter()
            .filter(|n| n.starts_with("path to the"))
            .collect();
        assert_eq!(paths.len(), 2, "{}", dump(&findings));
        // A plain `Thread` runs its `Runnable`: the paths start at the
        // task, not at the JDK's `Thread.run`.
        assert_eq!(
            paths[0],
            &format!("path to the write: {job_type}.run"),
            "{}",
            dump(&findings)
        );
        assert_eq!(
            paths[1],
            "path to the read: Monitor.run",
            "{}",
            dump(&findings)
        );
    }
}

/// Each `main` is its own program: threads of two programs, and the
/// recorder that shared code starts once in each, never race.
#[test]
fn separate_mains() {
    let findings = check("separate_mains", CLOSED);
    assert!(findings.is_empty(), "{}", dump(&findings));
}

/// Twin of `separate_mains`: two writers started by one `main` race, and
/// the finding names both of that program's start sites.
#[test]
fn racing_main() {
    let findings = check("racing_main", CLOSED);
    let fixture = compile_fixture("data_race/racing_main");
    let ping = line_of(
        &fixture,
        "ServerA.java",
        "new Thread(new Pinger()).start();",
    );
    let pong = line_of(
        &fixture,
        "ServerA.java",
        "new Thread(new Ponger()).start();",
    );
    assert_eq!(findings.len(), 1, "{}", dump(&findings));
    let f = &findings[0];
    assert!(
        f.message.contains(&format!("at ServerA.java:{ping}")),
        "{}",
        dump(&findings)
    );
    assert!(
        f.message.contains(&format!("at ServerA.java:{pong}")),
        "{}",
        dump(&findings)
    );
}

/// Modern: writes before `start()` and accesses after `join()` are ordered;
/// accesses between them race; a helper that always joins its parameter
/// orders like a join, one that joins only on some paths does not.
#[test]
fn start_join() {
    check("start_join", CLOSED);
}

/// Modern: objects allocated by each thread and never published: silent
/// (with a racing static counter as the control).
#[test]
fn thread_local_alloc() {
    check("thread_local_alloc", CLOSED);
}

/// Issue 14, twin of `thread_local_alloc`: the same accumulator, array and
/// list made once and published in static fields before both threads use
/// them are reported.
#[test]
fn thread_local_alloc_shared() {
    check("thread_local_alloc_shared", CLOSED);
}

/// Modern: `ReentrantLock` in try/finally, a path without the lock,
/// `tryLock()` branches, re-acquisition.
#[test]
fn reentrant_lock() {
    check("reentrant_lock", OPEN);
}

/// Issue 14 point 5: locks named by access paths. With more objects than
/// contexts, `this` is many objects in one context; a `synchronized`
/// method, `synchronized (this.lock)` with `lock` final or effectively
/// final, a `ReentrantLock` and a read-write lock in final fields still
/// protect the object they belong to. Reported: a lock field that is
/// reassigned, and the lock of `this` guarding another object's field.
#[test]
fn lock_paths() {
    check("lock_paths", CLOSED);
}

/// Issue 14 point 5: `synchronized (c)` on a loop variable walking a
/// chain holds the monitor of the object `c` names inside the block
/// (log4j's `Category.callAppenders`); moving `c` inside the block does
/// not.
#[test]
fn lock_loop_var() {
    check("lock_loop_var", CLOSED);
}

/// Issue 14 point 6: what constructors, their private helpers and static
/// initializers write before publication does not race (a `$SwitchMap$`
/// array included); a helper also called later, an array the constructor
/// did not allocate, and static tables written after or not allocated by
/// the initializer do (plain harness: the controls take no lock). A
/// private static that only the initializer stores counts as `final`; one
/// that another method also stores does not.
#[test]
fn initialization() {
    check_every_class("initialization", OPEN);
}

/// Modern: `ReadWriteLock`: read/write lock pairs are silent; a write under
/// the read lock and a lock-free read of a written field race.
#[test]
fn read_write_lock() {
    check("read_write_lock", OPEN);
}

/// Locks taken through wrapper methods (`store.lock()` around
/// `writeLock.lock()`) guard what runs until the matching wrapper
/// unlock; a wrapper a subclass overrides without locking is no wrapper.
#[test]
fn lock_wrapper() {
    check("lock_wrapper", CLOSED);
}

/// jetty's `Locker`: a wrapper returning a handle whose `close()`
/// releases the lock, used as try-with-resources.
#[test]
fn lock_handle() {
    check("lock_handle", CLOSED);
}

/// Modern: volatile fields and atomics are silent; a plain field races
/// (plain harness: nothing else says the field is meant to be shared).
#[test]
fn volatile_atomic() {
    let findings = check_every_class("volatile_atomic", OPEN);
    for f in &findings {
        assert_eq!(
            f.field.as_deref(),
            Some("atomics.Flags.plain"),
            "{}",
            dump(&findings)
        );
    }
}

/// Modern: two threads `put` into one HashMap and `add` to one ArrayList
/// while a third reads them: race, reported on the `put` / `add` and naming
/// the field the container was loaded from. Thread-safe containers, a
/// synchronized wrapper and a HashMap under a common lock are silent; main
/// reads only after joining.
#[test]
fn containers() {
    let findings = check("containers", CLOSED);
    let fixture = compile_fixture("data_race/containers");
    let put = line_of(&fixture, "Registry.java", "plain.put(k, 1);");
    let get = line_of(&fixture, "Registry.java", "plain.get(k);");
    let add = line_of(&fixture, "Registry.java", "log.add(k);");
    let iterate = line_of(&fixture, "Registry.java", "for (String s : log)");

    let puts = at(&findings, "Registry.java", put);
    assert!(!puts.is_empty(), "{}", dump(&findings));
    for f in &puts {
        assert_eq!(f.field.as_deref(), Some("containers.Registry.plain"));
        assert_eq!(f.location.method.as_deref(), Some("register"));
    }
    // put/put between the writers, and put/get with the reader: one
    // finding per racing write lists every access it races with.
    let related_lines = |fs: &[&Finding]| -> Vec<Option<u32>> {
        fs.iter()
            .flat_map(|f| f.related.iter())
            .map(|r| r.location.line)
            .collect()
    };
    let put_related = related_lines(&puts);
    assert!(put_related.contains(&Some(put)), "{}", dump(&findings));
    assert!(put_related.contains(&Some(get)), "{}", dump(&findings));
    let reader = puts
        .iter()
        .flat_map(|f| f.related.iter())
        .find(|r| r.location.line == Some(get))
        .unwrap();
    assert_eq!(reader.location.method.as_deref(), Some("lookup"));

    let adds = at(&findings, "Registry.java", add);
    assert!(!adds.is_empty(), "{}", dump(&findings));
    for f in &adds {
        assert_eq!(f.field.as_deref(), Some("containers.Registry.log"));
    }
    assert!(
        related_lines(&adds).contains(&Some(iterate)),
        "{}",
        dump(&findings)
    );
    assert_no_related_in(&findings, "main");
}

/// `--explain` on a field holding a container explains the container's
/// contents too (the finding says "the contents of `Registry.plain`"):
/// the racing `put`s, the `put`/`get` pair, and the reads after the
/// joins; the field itself is final. A container used under a common
/// lock is explained as safe with that lock.
#[test]
fn explain_container_contents() {
    let fixture = compile_fixture("data_race/containers");
    let explain = |field: &str| {
        let options = Options {
            explain_field: Some(field.into()),
            ..Options::default()
        };
        with_context(&fixture, RULES, &options, CLOSED, |cx| {
            DataRace.run(cx).explanation
        })
        .join("\n")
    };
    let put = line_of(&fixture, "Registry.java", "plain.put(k, 1);");
    let get = line_of(&fixture, "Registry.java", "plain.get(k);");
    let text = explain("containers.Registry.plain");
    let put_text =
        format!("modification of the contents in Registry.register (Registry.java:{put})");
    assert!(
        text.contains(&format!("{put_text} / {put_text}: RACE")),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "{put_text} / read of the contents in Registry.lookup (Registry.java:{get}): RACE"
        )),
        "{text}"
    );
    assert!(text.contains("cannot race: the field is final"), "{text}");
    let after_join = line_of(
        &fixture,
        "Registry.java",
        "System.out.println(r.plain.size()",
    );
    assert!(
        text.contains(&format!(
            "{put_text} / read of the contents in Registry.main (Registry.java:{after_join}): safe: never run by two threads at once"
        )),
        "{text}"
    );
    let guarded = explain("containers.Registry.guarded");
    assert!(guarded.contains("safe: both hold"), "{guarded}");
    assert!(!guarded.contains("RACE"), "{guarded}");
}

/// Annotations: `@GuardedBy` vouches for locks the analysis cannot prove
/// equal, accesses without the lock still race; `@NotThreadSafe` and
/// `@Immutable` classes are not reported; a `@ThreadSafe` class's public
/// methods are concurrently callable even from a single-threaded `main`.
#[test]
fn guarded_by() {
    let findings = check("guarded_by", CLOSED);
    let fixture = compile_fixture("data_race/guarded_by");
    let reset = line_of(&fixture, "Inventory.java", "stock = 0;");
    for f in at(&findings, "Inventory.java", reset) {
        assert_eq!(f.field.as_deref(), Some("guarded.Inventory.stock"));
    }
    let record = line_of(&fixture, "Stats.java", "events++;");
    let stats = at(&findings, "Stats.java", record);
    assert!(!stats.is_empty(), "{}", dump(&findings));
    assert_eq!(stats[0].field.as_deref(), Some("guarded.Stats.events"));
}

/// Open mode, plain harness (`--open-every-class`): an unsynchronized
/// setter/getter pair races, a synchronized pair is silent, an entry
/// method's parameter is shared; a static field
/// under the class lock in one method and `this` in another races (the
/// one-instance harness and fresh lock objects are known false negatives).
#[test]
fn open_library() {
    let findings = check_every_class("open_library", OPEN);
    let fixture = compile_fixture("data_race/open_library");
    let set = line_of(&fixture, "Settings.java", "name = n;");
    let get = line_of(&fixture, "Settings.java", "return name;");
    let sets = at(&findings, "Settings.java", set);
    assert!(
        sets.iter()
            .flat_map(|f| f.related.iter())
            .any(|r| r.location.line == Some(get)),
        "setName should pair with getName: {}",
        dump(&findings)
    );
    for f in &sets {
        assert_eq!(f.field.as_deref(), Some("library.Settings.name"));
    }
    let hits = line_of(&fixture, "Settings.java", "box.hits++;");
    let boxes = at(&findings, "Settings.java", hits);
    assert!(!boxes.is_empty(), "{}", dump(&findings));
    assert_eq!(boxes[0].field.as_deref(), Some("library.Box.hits"));
    let reset = line_of(&fixture, "Totals.java", "total = 0;");
    let add = line_of(&fixture, "Totals.java", "total += n;");
    let totals = at(&findings, "Totals.java", reset);
    assert!(
        totals
            .iter()
            .flat_map(|f| f.related.iter())
            .any(|r| r.location.line == Some(add)),
        "resetTotal should pair with addTotal: {}",
        dump(&findings)
    );
}

/// Ownership: objects a method allocated, directly or through a factory
/// returning a fresh object, are not shared until published; a write after
/// publication races.
#[test]
fn owned_objects() {
    check("owned_objects", CLOSED);
}

/// Open mode reports fields and methods meant for concurrent use, not
/// every field of a class that locks somewhere (issue 14); the option
/// `open_every_class` reports the others too.
#[test]
fn open_unlocked_class() {
    let findings = check("open_unlocked_class", OPEN);
    let fixture = compile_fixture("data_race/open_unlocked_class");
    let next = line_of(&fixture, "Cursor.java", "pos++;");
    assert!(at(&findings, "Cursor.java", next).is_empty());
    let options = Options {
        open_every_class: true,
        ..Options::default()
    };
    let all = run_detector_in_mode(&fixture, &DataRace, &["data-race"], &options, true);
    let hits = at(&all, "Cursor.java", next);
    assert!(!hits.is_empty(), "{}", dump(&all));
    assert_eq!(hits[0].field.as_deref(), Some("cursor.Cursor.pos"));
}

/// Open mode: the harness's calls are the entries, not every context of a
/// public method, so a method the program calls only under a lock keeps it.
#[test]
fn open_inner_calls() {
    let findings = check("open_inner_calls", OPEN);
    let fixture = compile_fixture("data_race/open_inner_calls");
    let inc = line_of(&fixture, "Counter.java", "n++;");
    let hits = at(&findings, "Counter.java", inc);
    assert!(!hits.is_empty(), "{}", dump(&findings));
    for f in hits {
        for note in f.notes.iter().filter(|n| n.starts_with("object:")) {
            assert!(!note.contains("Holder"), "{}", dump(&findings));
        }
    }
}

/// Classic benchmarks: set-up before the starts (a bound, an array filled
/// by a constructor, constructors of the thread objects), starts and joins
/// in loops, a join in a helper; the buggy twins (a write after the start
/// loop, a read with no join) are still reported.
#[test]
fn hb_classic() {
    check("hb_classic", CLOSED);
}

/// `java.util.concurrent` hand-offs: submit then `get()`, `shutdown()` +
/// `awaitTermination`, `invokeAll`, a latch counted down last,
/// `CompletableFuture` stages; each buggy twin is still reported. The
/// `invokeAll` twins: two tasks of one call (an `ArrayList` of tasks, whose
/// elements points-to tracks into the launch), or the copies of one task
/// made in a loop, race with each other, not with main's read after the
/// call returns.
#[test]
fn hb_handoffs() {
    let findings = check("hb_handoffs", CLOSED);
    let tallied: Vec<Finding> = findings
        .iter()
        .filter(|f| f.field.as_deref() == Some("hbhandoffs.Totals.tallied"))
        .cloned()
        .collect();
    assert_eq!(tallied.len(), 2, "{}", dump(&findings));
    assert_no_related_in(&tallied, "invokeAll");
    let copied: Vec<Finding> = findings
        .iter()
        .filter(|f| f.field.as_deref() == Some("hbhandoffs.Totals.copied"))
        .cloned()
        .collect();
    assert_eq!(copied.len(), 1, "{}", dump(&findings));
    assert_no_related_in(&copied, "invokeAll");
}

/// The flag-under-lock + `wait`-in-a-loop idiom, with the loop in a
/// helper or in main; a write after the notify is still reported.
#[test]
fn hb_wait_notify() {
    check("hb_wait_notify", CLOSED);
}

/// `BlockingQueue` put/take: a fill before the put, in the allocating
/// method or in a helper it hands the new message to, is silent (not yet
/// published, still fresh); a write after the put is a real race.
#[test]
fn hb_queue() {
    check("hb_queue", CLOSED);
}

/// `BlockingQueue` put → take of objects already published (kept in a
/// static or a task's field, so neither fresh nor owned): a fill before
/// the put, read only through the value `take()`/`poll()` returned, is
/// silent; a write after the put, and a fill read by a thread that
/// reaches the object through the static rather than the take, are real
/// races.
#[test]
fn hb_queue_published() {
    check("hb_queue_published", CLOSED);
}

/// Issue 14, cause 3 (`CyclicBarrier`): what an executor task writes
/// before its last act, `await()` on a barrier main also awaits, is
/// ordered before main's reads after its own `await()`; a write the task
/// makes after its `await()` still races with main's read. A plain
/// thread's catch block around `await()` that only restores the interrupt
/// status and rethrows a new exception keeps the `await()` its last act;
/// one that stores to a shared field does not (reported). Known false
/// positive (the fixture says why): a write before one task's `await()`
/// read by another task after its own.
#[test]
fn hb_barrier() {
    check("hb_barrier", CLOSED);
}

/// Entry points (issue 15): a class no main reaches is still checked, as
/// a library in the same run: `Registry.forget` races with the locked
/// `register` though only `Tally` is reached from main; `Plain`, with no
/// sign of concurrent use, is silent as in an open program. Main's own
/// threads are analysed as before.
#[test]
fn unreached_library() {
    let findings = check("unreached_library", CLOSED);
    let fixture = compile_fixture("data_race/unreached_library");
    let forget = line_of(&fixture, "Registry.java", "size = 0;");
    let hits = at(&findings, "Registry.java", forget);
    assert_eq!(hits.len(), 1, "{}", dump(&findings));
    assert_eq!(hits[0].field.as_deref(), Some("unreached.Registry.size"));
    let register = line_of(&fixture, "Registry.java", "size++;");
    assert!(
        hits[0]
            .related
            .iter()
            .any(|r| r.location.line == Some(register)),
        "{}",
        dump(&findings)
    );
    let add = line_of(&fixture, "Tally.java", "n++;");
    assert_eq!(at(&findings, "Tally.java", add).len(), 1);
}

/// A package-private `@ThreadSafe` class with package-private methods:
/// main calls it from its one thread, but the annotation makes its
/// non-private methods entries in every mode, so the unlocked `reset`
/// races with the locked `hit`, and `clear`, which main never calls, is
/// checked too.
#[test]
fn thread_safe_package() {
    let findings = check("thread_safe_package", CLOSED);
    let fixture = compile_fixture("data_race/thread_safe_package");
    let reset = line_of(&fixture, "Cache.java", "hits = 0;");
    let hits = at(&findings, "Cache.java", reset);
    assert_eq!(hits.len(), 1, "{}", dump(&findings));
    assert_eq!(hits[0].location.method.as_deref(), Some("reset"));
    let clear = line_of(&fixture, "Cache.java", "resets++;");
    assert_eq!(at(&findings, "Cache.java", clear).len(), 1);
    // The same class is entered in library mode.
    let open = run_detector_in_mode(&fixture, &DataRace, RULES, &Options::default(), OPEN);
    assert_eq!(at(&open, "Cache.java", reset).len(), 1, "{}", dump(&open));
}

/// Fields no analysed code assigns (`@Inject`ed, or set by reflection)
/// hold one external object each: `mLock.lock()` on the injected lock and
/// `statsLock.lock()` on the reflective one are held locks (no race on
/// `served`, `lookups`), while the injected `Map` is raced through and
/// the unlocked `misses++` races.
#[test]
fn injected_fields() {
    let findings = check("injected_fields", CLOSED);
    let fixture = compile_fixture("data_race/injected_fields");
    let put = line_of(&fixture, "Service.java", "sessions.put(who, who);");
    let puts = at(&findings, "Service.java", put);
    assert_eq!(puts.len(), 1, "{}", dump(&findings));
    assert_eq!(puts[0].field.as_deref(), Some("injected.Service.sessions"));
    for line in ["served++;", "lookups++;"] {
        let l = line_of(&fixture, "Service.java", line);
        assert!(at(&findings, "Service.java", l).is_empty(), "{line}");
    }
}

/// Issue 14: a parser building a tree per call and a local list filled
/// and drained, in two session threads: silent (the static control
/// races). A regression check: on this small program the objects were
/// already thread-local; on h2 the same shape escaped through the JDK's
/// context-insensitive fields (see `lockstep_facts::escape`).
#[test]
fn per_call_objects() {
    check("per_call_objects", CLOSED);
}

/// Issue 14, twin of `per_call_objects`: the tree published in a static
/// field and changed by both sessions is reported.
#[test]
fn per_call_published() {
    check("per_call_published", CLOSED);
}

/// Issue 14: per-call objects copied into arrays grown by reflection
/// (`Array.newInstance`, one opaque object for every call) do not escape
/// through that object's elements; fails on c8db956 (the token raced).
#[test]
fn grown_array() {
    check("grown_array", OPEN);
}

/// Twin of `grown_array`: the nodes published in a static field race.
#[test]
fn grown_array_published() {
    check("grown_array_published", OPEN);
}

/// Twin of `grown_array`: the grown (opaque) array itself kept in a static
/// field publishes its elements.
#[test]
fn grown_array_kept() {
    check("grown_array_kept", OPEN);
}

/// Issue 14, point 4: per-call lists and maps in a program with more JDK
/// containers than the context bound: silent with the container content
/// models (the default). Without them the map's item is a known false
/// positive (the nodes built past the bound are shared by every map;
/// `container_models.rs`).
#[test]
fn storage_past_bound() {
    check("storage_past_bound", CLOSED);
}

/// Twin of `storage_past_bound`: the items of a static list and map race.
#[test]
fn storage_past_bound_shared() {
    check("storage_past_bound_shared", CLOSED);
}

/// Issue 14: lift threads started in a loop, each with its own `Lift`:
/// a start that runs more than once does not race with itself on objects
/// each of its threads has to itself (the static control races).
#[test]
fn lift_per_thread() {
    check("lift_per_thread", CLOSED);
}

/// Issue 14, twin of `lift_per_thread`: one `Lift` handed to every thread
/// of the loop races; each thread object's own counter does not.
#[test]
fn lift_shared() {
    check("lift_shared", CLOSED);
}

/// Issue 14 point 4 (h2's connection threads): a start that runs once per
/// connection, whose handler is listed in a registry other threads only
/// iterate, does not race with itself on the handler or on the request
/// objects each connection thread makes for itself; the static control
/// races.
#[test]
fn conn_per_thread() {
    check("conn_per_thread", CLOSED);
}

/// `conn_per_thread` with h2's cancel path: connection threads obtain each
/// other's handlers through the registry, so the handler's fields race,
/// but a request read only out of a thread's own handler (`this.current`)
/// does not.
#[test]
fn conn_per_thread_cancel() {
    check("conn_per_thread_cancel", CLOSED);
}

/// Twin of `conn_per_thread_cancel` with a plain cancel flag: the other
/// connection threads, which obtain the handler out of the registry list,
/// race on it with its owner.
#[test]
fn conn_per_thread_cancel_plain() {
    check("conn_per_thread_cancel_plain", CLOSED);
}

/// Twin of `conn_per_thread`: requests listed in a shared map and read
/// back by the neighbouring connection race; the handler's own counter
/// still does not.
#[test]
fn conn_per_thread_shared() {
    check("conn_per_thread_shared", CLOSED);
}

/// JDK methods that call back into what their caller hands them
/// (`String.valueOf`, `println(Object)`, a stream's `onClose`) run in the
/// caller's context: an object only main hands them is not raced on by the
/// worker, whose calls of the same methods reach only its own objects; an
/// object both threads hand them still races, on a path from the worker's
/// own code through `String.valueOf`.
#[test]
fn jdk_callbacks() {
    let findings = check("jdk_callbacks", CLOSED);
    assert_one_race_with_path(&findings, "jdk_callbacks", "Callbacks.java", |n| {
        n.contains("Callbacks.work") && n.contains("String.valueOf")
    });
}

/// Issue 20, builders return their receiver: the points-to result of a
/// chained `append` is its own builder, and `append(Object)` is still
/// analysed, so the `toString` it calls runs in the appending thread (the
/// race on the label both threads append is reported, on a path from the
/// worker through the JDK frames of `append`). The label appended to a shared `StringBuffer` is a known
/// false positive (the fixture says why).
#[test]
fn builder_append() {
    let findings = check("builder_append", CLOSED);
    assert_one_race_with_path(&findings, "builder_append", "Builders.java", |n| {
        n.contains("Builders.work") && n.contains("JDK frames")
    });
}

/// The one finding on the `renders++; // expect: data-race` line of
/// `file` in fixture `case` has a path note that `wanted` accepts.
fn assert_one_race_with_path(
    findings: &[Finding],
    case: &str,
    file: &str,
    wanted: impl Fn(&str) -> bool,
) {
    let fixture = compile_fixture(&format!("data_race/{case}"));
    let shared = line_of(&fixture, file, "renders++; // expect: data-race");
    let hits = at(findings, file, shared);
    assert_eq!(hits.len(), 1, "{}", dump(findings));
    assert!(
        hits[0]
            .notes
            .iter()
            .any(|n| n.starts_with("path to") && wanted(n)),
        "{}",
        dump(findings)
    );
}

/// Issue 14 cause 1, the JDK's shared empty context: JDK code that runs
/// without contexts (`new AssertionError(x)` renders `x` with
/// `String.valueOf`, `printStackTrace` prints the exception) no longer
/// connects one thread to the objects another thread hands the same JDK
/// code: each thread's own report objects are silent, the ledger both
/// threads render still races, on a path from each thread's own code.
#[test]
fn jdk_shared_copy() {
    let findings = check("jdk_shared_copy", CLOSED);
    assert_one_race_with_path(&findings, "jdk_shared_copy", "Printed.java", |n| {
        n.contains("Printed.orders") || n.contains("Printed.invoices")
    });
}

/// Issue 14, cause 1 (`HashSet.add` reaching an application `put`): a
/// set's `add` puts into the set's own `HashMap`, not into the program's
/// `HashMap` subclasses: their `put` overrides run only where the program
/// calls them. The override only main calls is silent although both
/// threads add to sets; the one both threads call on a shared map races.
#[test]
fn jdk_set_add() {
    check("jdk_set_add", CLOSED);
}

/// Issue 14 point 4, ownership: a per-call parser builds a command in its
/// own fields, a factory's fresh object is changed by its caller, a local
/// list is filled and drained, and only then is the command published in
/// a shared cache: the accesses made while the thread owns the objects are
/// silent although their allocation sites escape; the published command
/// changed by both sessions races.
#[test]
fn owned_parse() {
    check("owned_parse", CLOSED);
}

/// Issue 14 point 4, twins of `owned_parse`: a parser shared by both
/// sessions, a node published before it is changed, a list changed after
/// it was handed to the other thread: all reported.
#[test]
fn owned_parse_shared() {
    check("owned_parse_shared", CLOSED);
}

/// Issue 14: tasks of a single-threaded executor (`newSingleThreadExecutor`,
/// a pool constructed with one thread) or of one `Timer` do not race with
/// each other or themselves; they race with the submitting thread, across
/// two executors read from two fields, and in a pool of two threads.
#[test]
fn single_thread_executors() {
    check("single_thread_executors", CLOSED);
}

/// Issue 14, cause 2 (timers per start site): two tasks of one `Timer`
/// run on its one thread and do not race; tasks of two timers (two
/// allocation sites, or one helper called twice) race, and so does a
/// timer task with what main does after scheduling it.
#[test]
fn timer_threads() {
    check("timer_threads", CLOSED);
}

/// Issue 14, point 3 (Swing): `invokeLater`/`invokeAndWait` tasks run one
/// after another on the event dispatch thread, after what the poster did
/// before the call (and `invokeAndWait`'s before what follows it); the
/// harness calls GUI models and listener methods on that thread. Each
/// silent shape has its twin reported: a worker writing what an
/// event-thread task reads, a task beside a plain thread, main writing
/// after `invokeLater`, a model changed by its own background thread, a
/// public method of a listener class that is not a listener method.
#[test]
fn event_thread() {
    check("event_thread", CLOSED);
}

/// Issue 14, cause 1 (AWT reaching `Thread.run`): a program that uses
/// AWT (`Toolkit`, a `Frame`, `EventQueue.invokeLater`) does not make an
/// application `Runnable` started once look run by AWT's own threads as
/// well; the same kind of job started on two threads still races, and the
/// finding names the program's two start sites.
#[test]
fn awt_thread_run() {
    let findings = check("awt_thread_run", CLOSED);
    let fixture = compile_fixture("data_race/awt_thread_run");
    let runs = line_of(&fixture, "Desktop.java", "runs++; // expect: data-race");
    let [f] = at(&findings, "Desktop.java", runs)[..] else {
        panic!("one finding on `Twice.runs`:\n{}", dump(&findings));
    };
    // The two threads are the program's own starts, not AWT's threads.
    for start in ["first.start();", "second.start();"] {
        let site = format!(
            "Thread.start() at Desktop.java:{}",
            line_of(&fixture, "Desktop.java", start)
        );
        assert!(
            f.message.contains(&site),
            "no `{site}`:\n{}",
            dump(&findings)
        );
    }
}

/// Issue 14: a thread started in a helper the constructor calls last is
/// ordered after what the constructor did before the call (jgroups'
/// `TotalOrder`: the canvas is built, then `startReceiver()`); what it
/// does after the call still races.
#[test]
fn start_in_helper() {
    check("start_in_helper", CLOSED);
}

/// Issue 20 / issue 14 cause 1, the JDK boundary: `java.text` bodies are
/// not analysed, but `Format.format(Object)`'s call back into the
/// application's override on `this` is kept: the unlocked count both
/// threads make through it races, on a path through `Format.format`; the
/// locked count does not; a thread started inside a callback is a thread
/// root whose write races with the callback's own.
#[test]
fn jdk_boundary() {
    let findings = check("jdk_boundary", CLOSED);
    let fixture = compile_fixture("data_race/jdk_boundary");
    let line = line_of(&fixture, "Boundary.java", "counter.unlocked++;");
    let hits = at(&findings, "Boundary.java", line);
    assert_eq!(hits.len(), 1, "{}", dump(&findings));
    assert!(
        hits[0]
            .notes
            .iter()
            .any(|n| n.starts_with("path to") && n.contains("Format.format")),
        "{}",
        dump(&findings)
    );
}

/// Issue 14 (thread roots per start site): twenty `new Thread(job)`
/// starts, more than `Thread`'s methods get points-to contexts for; each
/// start runs its own job only (the `Runnable` its constructor was given),
/// so no job races with itself. Two threads of one job class, and two
/// threads of one `Thread` subclass, still race.
#[test]
fn thread_targets() {
    let findings = check("thread_targets", CLOSED);
    let fixture = compile_fixture("data_race/thread_targets");
    let shared = line_of(&fixture, "Workers.java", "shared++;");
    let [f] = at(&findings, "Workers.java", shared)[..] else {
        panic!("one finding on `shared`:\n{}", dump(&findings));
    };
    // The finding's paths start at the job, not at every thread's `run`.
    assert!(
        f.notes.iter().any(|n| n.contains("Workers$Both.run")),
        "{}",
        dump(&findings)
    );
}

/// Issue 14 (ordering by `Thread.start`): what `main` does before it
/// starts a listener is ordered before the handler threads the listener
/// starts; what it does after the start, or after joining the listener,
/// still races with them.
#[test]
fn start_chain() {
    check("start_chain", CLOSED);
}

/// Issue 14 (hsqldb's `Server.run`): a thread started by a helper that
/// its one caller calls in a loop is ordered after what that caller did
/// before the loop (tables filled before connections are accepted), not
/// after what the loop or the helper do on each turn.
#[test]
fn start_per_connection() {
    check("start_per_connection", CLOSED);
}

/// Issue 14 (happens-before of periodic tasks): what precedes the
/// schedule of a periodic task (`scheduleAtFixedRate`, `Timer.schedule`
/// with a period) precedes every run; what follows it races.
#[test]
fn periodic_after_setup() {
    check("periodic_after_setup", CLOSED);
}

/// Issue 14 (ordering from `main`): what `main` does before the first
/// call that may lead to a thread start precedes the thread, however many
/// paths below that call reach the start.
#[test]
fn setup_then_connect() {
    check("setup_then_connect", CLOSED);
}

/// Issue 14 (one thread counted as many): a thread kept in a field and
/// started again only when it has ended runs one at a time; threads
/// started on every call race with each other.
#[test]
fn one_alive() {
    check("one_alive", CLOSED);
}

/// Issue 14 (hsqldb's `HsqlTimer`): a runner thread started under the
/// owner's lock when its field is empty, whose last action empties the
/// field under that lock, runs one at a time; a field a `stop()` also
/// empties, or a runner that works on after emptying it, does not.
#[test]
fn one_alive_cleared() {
    check("one_alive_cleared", CLOSED);
}

/// Issue 14 point 4, jgroups' `dumpChannelStats`: a map made, filled and
/// returned by one call, published by its caller afterwards, is fresh
/// while it is filled (silent although its allocation site is published);
/// the static control races.
#[test]
fn fresh_filled_then_published() {
    check("fresh_filled_then_published", CLOSED);
}

/// Twin of `fresh_filled_then_published`: a map filled after it was
/// published, while another thread reads it, races.
#[test]
fn fresh_published_then_filled() {
    check("fresh_published_then_filled", CLOSED);
}

/// Issue 14 point 4, h2's per-statement `Parser`: a parser and the
/// command it makes, handed down to helper methods that keep them fresh
/// (store them nowhere), are not raced on although both are published
/// after the parse; the control races.
#[test]
fn fresh_callees() {
    check("fresh_callees", CLOSED);
}

/// Twin of `fresh_callees`: a parser put into a shared cache before it
/// parses, and a command a helper caches before the next helper changes
/// it, race.
#[test]
fn fresh_callees_cached() {
    check("fresh_callees_cached", CLOSED);
}

/// Issue 14, h2's `Database.closeImpl`: the statements past a flag tested
/// and set under a lock with an early return run in one thread per
/// receiver (a static flag under the class lock: once), so they do not
/// race with themselves; the control races.
#[test]
fn once_gate() {
    check("once_gate", CLOSED);
}

/// Issue 14: methods the gate calls on its own object, and only from
/// past it, run past it too (silent); a callee also called outside the
/// gate, or called on another object, races.
#[test]
fn once_gate_callees() {
    check("once_gate_callees", CLOSED);
}

/// Twins of `once_gate`: a gate without the lock, a flag tested but never
/// set, a flag another method clears again: the writes after them race.
#[test]
fn once_gate_broken() {
    check("once_gate_broken", CLOSED);
}

/// Issue 14, jgroups' `TCPConnection.start`: a claim on an
/// `AtomicBoolean` (`compareAndSet(false, true)`, `getAndSet(true)`,
/// instance or static) is a once-gate without a lock; the control races.
#[test]
fn cas_gate() {
    check("cas_gate", CLOSED);
}

/// Twins of `cas_gate`: a flag set back to `false`, a claim whose result
/// is ignored, a flag handed to other code: the writes after them race
/// (and a `true` → `false` claim, a known false positive).
#[test]
fn cas_gate_broken() {
    check("cas_gate_broken", CLOSED);
}

/// Issue 14, open mode: a pair only the harness makes concurrent is
/// reported when the field is also accessed under a lock elsewhere, or
/// when one of the two methods takes a lock itself; an unlocked field of
/// a class with an unrelated lock is not (`--open-every-class` reports
/// it, and `--explain` gives the reason).
#[test]
fn open_intent() {
    check("open_intent", OPEN);
    let fixture = compile_fixture("data_race/open_intent");
    let hit = line_of(&fixture, "Session.java", "hits++;");
    let options = Options {
        open_every_class: true,
        ..Options::default()
    };
    let all = run_detector_in_mode(&fixture, &DataRace, RULES, &options, OPEN);
    let hits = at(&all, "Session.java", hit);
    assert!(!hits.is_empty(), "{}", dump(&all));
    assert_eq!(hits[0].field.as_deref(), Some("intent.Session.hits"));
    let options = Options {
        explain_field: Some("intent.Session.hits".into()),
        ..Options::default()
    };
    let lines = with_context(&fixture, RULES, &options, OPEN, |cx| {
        DataRace.run(cx).explanation
    });
    let text = lines.join("\n");
    assert!(
        text.contains(&format!("write in Session.hit (Session.java:{hit})"))
            && text.contains("not reported: concurrent only through an assumed outside caller"),
        "{text}"
    );
    assert!(!text.contains("RACE"), "{text}");
}

/// Issue 14, closed mode: two threads the program starts race on an
/// unlocked counter (pairs of real roots are unchanged); in a library
/// class no main reaches, the harness's pairs are reported only for a
/// map also read under the monitor and for a method that locks itself.
#[test]
fn harness_intent() {
    check("harness_intent", CLOSED);
}

/// Compiler-made accessors (`access$008`, `--release 8`) are not harness
/// entries: the inner class calls this one only under `Pool.this`, so
/// only the unlocked `reset` races (issue 14's sample, commons-pool's
/// `GenericKeyedObjectPool.access$1508`).
#[test]
fn synthetic_accessor() {
    let dir = common::fixture_dir("data_race/synthetic_accessor");
    let fixture =
        lockstep_testkit::compile_dir(&dir, &lockstep_testkit::CompileOptions::release(8))
            .unwrap_or_else(|e| panic!("javac failed for {}: {e}", dir.display()));
    let findings = run_detector_in_mode(&fixture, &DataRace, RULES, &Options::default(), OPEN);
    let reset = line_of(&fixture, "Pool.java", "processing = 0;");
    assert!(
        findings.iter().all(
            |f| f.location.line == Some(reset) && f.location.method.as_deref() == Some("reset")
        ),
        "{}",
        dump(&findings)
    );
    assert!(!findings.is_empty(), "{}", dump(&findings));
    let accessors = findings.iter().flat_map(|f| f.related.iter()).filter(|r| {
        r.location
            .method
            .as_deref()
            .is_some_and(|m| m.starts_with("access$"))
    });
    for r in accessors {
        assert!(
            r.message.contains("holding the lock"),
            "{}",
            dump(&findings)
        );
    }
}

/// The nestmate form of `synthetic_accessor` (the default release: no
/// accessor, the inner class reads `this$0` and writes the outer's field
/// directly): the writes under `synchronized (Pool.this)` hold the
/// outer's monitor and are silent; an inner write of a field the outer
/// reads under its monitor, with no lock, is reported.
#[test]
fn nestmate_outer_lock() {
    let findings = check("nestmate_outer_lock", OPEN);
    // The nestmate form: no accessor in the outer class.
    let fixture = compile_fixture("data_race/nestmate_outer_lock");
    let outer = std::fs::read(fixture.classes_dir.join("nestmate/Pool.class"))
        .unwrap_or_else(|e| panic!("no Pool.class: {e}"));
    assert!(!outer.windows(7).any(|w| w == b"access$"));
    assert!(
        findings
            .iter()
            .all(|f| f.field.as_deref() == Some("nestmate.Pool.leaked")),
        "{}",
        dump(&findings)
    );
}

/// Open mode, issue 14's assumed outside caller on objects the program
/// locks: helpers every in-program call locks (their own monitor, or the
/// monitor of the owner they are read from) are taken to be called under
/// that lock by the harness too; the twin whose owner calls it once
/// unlocked is still reported.
#[test]
fn open_caller_locked() {
    check("open_caller_locked", OPEN);
}

/// Setters the program calls only on an object it is still building
/// (h2's `TriggerObject`): the harness is taken to call them on an object
/// of its own call, so they race with nothing; reported on c1f49a6.
#[test]
fn build_only() {
    check("build_only", OPEN);
}

/// The twin in which the program calls one of those setters on an object
/// it has published: that setter's harness pairs are reported again.
#[test]
fn build_only_published() {
    check("build_only_published", OPEN);
}

/// The twin in which the program itself calls the helper from two
/// threads, unlocked, beside a caller that locks it: a race in both modes.
#[test]
fn caller_locked_threads() {
    check("caller_locked_threads", CLOSED);
    check("caller_locked_threads", OPEN);
}

/// Issue 14, "clone": `clone()` makes a copy; each session writes into its
/// own copies of a shared array and a shared object: silent (reported on
/// main at c1f49a6, when `clone()` returned its receiver). The static
/// control races.
#[test]
fn clone_copy() {
    check("clone_copy", CLOSED);
}

/// Twin of `clone_copy`: writes into the shared originals, and into copies
/// published in statics, race.
#[test]
fn clone_copy_shared() {
    check("clone_copy_shared", CLOSED);
}

/// Issue 14, cause 4 (session 19): the copy a JDK `clone()` returns is
/// owned by the call that made it, like a `new`; the sessions fill their
/// copies and then publish them to a reader thread: silent (reported on
/// main at 4e95249). The static control races.
#[test]
fn clone_owned() {
    check("clone_owned", CLOSED);
}

/// Twin of `clone_owned`: copies published before they are written race
/// with the reader.
#[test]
fn clone_owned_shared() {
    check("clone_owned_shared", CLOSED);
}

/// Issue 14, cause 5 (session 20): the harness's receiver object of a
/// class was made by one of its constructors, so its `final` lock field
/// holds the constructor's object even when no constructor is an entry
/// (every `new` is reached from `main`): the locked accesses are silent
/// (reported on main at 39d32bb; jgroups' `Queue`, jg-1 of the seventh
/// sample).
#[test]
fn harness_constructed() {
    check("harness_constructed", CLOSED);
}

/// Twin of `harness_constructed`: an unlocked read of the count races
/// with the locked writes.
#[test]
fn harness_constructed_shared() {
    check("harness_constructed_shared", CLOSED);
}

/// Issue 14, cause 4: boxes built past the bound on contexts per method;
/// each session's box holds only its own item (constructors run in their
/// receiver's context past the bound). Reported on main at c1f49a6.
#[test]
fn ctor_past_bound() {
    check("ctor_past_bound", CLOSED);
}

/// Twin of `ctor_past_bound`: the shared item, through the box kept in a
/// static and through a session's box built with it, races.
#[test]
fn ctor_past_bound_shared() {
    check("ctor_past_bound_shared", CLOSED);
}

/// Issue 14, point 4 (hsqldb's checkpoint timer): a thread task's call
/// past the bound on contexts per method runs in a context of the task's
/// `run()`, so the task's copy of `execute` holds only its own statement.
/// Reported on main at 31c9bab (one shared over-budget copy).
#[test]
fn task_past_bound() {
    check("task_past_bound", CLOSED);
}

/// Twin of `task_past_bound`: the task executes the statement `main`
/// executes too; both writes race.
#[test]
fn task_past_bound_shared() {
    check("task_past_bound_shared", CLOSED);
}

/// Issue 14: a race two threads of the program make is shown with those
/// threads (and their confidence), even when the library harness reaches
/// the access more directly (h2's TCP server threads on `Parser` fields
/// were shown as "any caller from outside the analysed code").
#[test]
fn real_roots_named() {
    let findings = check("real_roots_named", CLOSED);
    let f = findings
        .iter()
        .find(|f| f.location.file.as_deref() == Some("Counter.java"))
        .expect("the workers' race on the counter");
    assert!(
        f.message.contains("Thread.start() at Main.java") && !f.message.contains("outside"),
        "{}",
        f.message
    );
    assert_eq!(f.confidence, lockstep_report::Confidence::Medium);
}

/// An access inside a lock region whose lock is not one object (each
/// thread locks its own session) races, and the report names the lock it
/// runs under, in its own method or in the nearest caller, instead of
/// saying that it holds none; an access no lock encloses still holds none.
#[test]
fn unidentified_lock_is_named() {
    let findings = check("unidentified_lock", CLOSED);
    let text = |line: u32| {
        let f = at(&findings, "Sessions.java", line);
        assert_eq!(f.len(), 1, "{}", dump(&findings));
        f[0].notes.join("\n")
    };
    assert!(
        text(19).contains(
            "holds no lock known to be shared: it runs under `synchronized (s)` in Sessions.serve (Sessions.java:19)"
        ),
        "{}",
        dump(&findings)
    );
    assert!(
        text(30).contains(
            "holds no lock known to be shared: it runs under `synchronized (s)` in Sessions.log (Sessions.java:25)"
        ),
        "{}",
        dump(&findings)
    );
    assert!(
        text(34).contains("this write holds no lock\n"),
        "{}",
        dump(&findings)
    );
}

/// A container the owner's constructor made is guarded by the owner's
/// monitor or lock field even when the owner is one of several objects;
/// a container handed in (two owners may share it) and an unlocked read
/// still race.
#[test]
fn owner_lock() {
    let fixture = compile_fixture("data_race/owner_lock");
    let points_to = lockstep_pointsto::Config {
        max_contexts_per_method: None,
        max_contexts: Some(1),
        ..lockstep_pointsto::Config::default()
    };
    let findings = common::run_with_points_to(&fixture, &DataRace, RULES, points_to);
    lockstep_testkit::assert_expectations(
        &common::expectations_for(&fixture, RULES),
        &common::actual(&findings),
    );
}
