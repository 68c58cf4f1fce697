//! Thread roots: what runs in a new thread, where it is started, and
//! whether the start site may start many.

mod common;
use common::*;
use lockstep_models::LaunchKind;
use lockstep_program::*;

const SRC: &str = r#"
import java.util.*;
import java.util.concurrent.*;

public class Threads {
    static int shared;

    static class Worker extends Thread { public void run() { shared++; } }
    static class Task implements Runnable { public void run() { shared++; } }
    static class Job implements Callable<Integer> { public Integer call() { return shared; } }
    static class Tick extends TimerTask { public void run() { shared++; } }
    static class Sum extends RecursiveTask<Integer> { protected Integer compute() { return shared; } }
    static class SelfStarter extends Thread { SelfStarter() { start(); } public void run() { shared--; } }

    void work() { shared++; }

    static void subclass() { new Worker().start(); } // MARK subclass
    static void named() {
        Thread t = new Thread(new Task());
        t.setDaemon(true);
        t.start(); // MARK named
    }
    static void anonymous() {
        new Thread(new Runnable() { public void run() { shared--; } }).start(); // MARK anonymous
    }
    static void lambda() { new Thread(() -> shared++, "name").start(); } // MARK lambda
    void methodRef() { new Thread(this::work).start(); } // MARK methodRef
    static void execute(ExecutorService ex) { ex.execute(() -> shared += 3); } // MARK execute
    static void submitCallable(ExecutorService ex) { ex.submit(new Job()); } // MARK submitCallable
    static void submitRunnable(ExecutorService ex) { ex.submit(new Task()); } // MARK submitRunnable
    static void runAsync() { CompletableFuture.runAsync(() -> shared += 4); } // MARK runAsync
    static void supplyAsync() { CompletableFuture.supplyAsync(() -> shared); } // MARK supplyAsync
    static void timer() { new Timer().schedule(new Tick(), 10); } // MARK timer
    static void periodic(ScheduledExecutorService s) { s.scheduleAtFixedRate(new Task(), 1, 1, TimeUnit.SECONDS); } // MARK periodic
    static void fork() { new Sum().fork(); } // MARK fork
    static void loop() {
        for (int i = 0; i < 4; i++) {
            new Thread(new Task()).start(); // MARK loop
        }
    }
    static Thread field;
    static void setField() { field = new Thread(() -> shared += 2); }
    static void viaField() { field.start(); } // MARK viaField
    static void selfStart() { new SelfStarter(); }
    static void twice() { new Thread(() -> shared += 5).start(); } // MARK twice

    public static void main(String[] args) {
        ExecutorService ex = Executors.newFixedThreadPool(2);
        subclass(); named(); anonymous(); lambda(); new Threads().methodRef();
        execute(ex); submitCallable(ex); submitRunnable(ex); runAsync(); supplyAsync();
        timer(); periodic(Executors.newScheduledThreadPool(1)); fork(); loop();
        setField(); viaField(); selfStart();
        twice(); twice();
    }
}
"#;

struct Fixture {
    p: Program,
    roots: Vec<ThreadRoot>,
}

fn fixture() -> Fixture {
    let p = program(&[("Threads.java", SRC)]);
    let g = rta(&p, &entry_points(&p, false));
    let roots = thread_roots(&p, &g);
    Fixture { p, roots }
}

/// The roots started from method `starter` of `Threads`.
fn started_in<'a>(f: &'a Fixture, starter: &str) -> Vec<&'a ThreadRoot> {
    let m = method(&f.p, "Threads", starter);
    f.roots.iter().filter(|r| r.start_site.0 == m).collect()
}

/// Asserts `starter` has exactly one root, started on the marked line,
/// with an entry called `entry` (a `Class.method` name, or a prefix ending in `$`).
fn check(f: &Fixture, starter: &str, entry: &str, kind: LaunchKind, many: bool) -> ThreadRoot {
    let roots = started_in(f, starter);
    let names: Vec<String> = roots.iter().map(|r| name(&f.p, r.entry)).collect();
    assert_eq!(roots.len(), 1, "{starter}: {names:?}");
    let r = roots[0].clone();
    let got = name(&f.p, r.entry);
    if entry.ends_with('$') {
        assert!(
            got.starts_with(entry),
            "{starter}: entry {got}, expected {entry}…"
        );
    } else {
        assert_eq!(got, entry, "{starter}");
    }
    let marker = format!("MARK {starter}");
    assert_eq!(r.line, Some(line_of(SRC, &marker)), "{starter}: start line");
    assert_eq!(r.kind(), kind, "{starter}");
    assert_eq!(r.may_start_many, many, "{starter}: {:?}", r.reason_many);
    assert_eq!(r.reason_many.is_some(), many);
    r
}

#[test]
fn thread_subclass_and_runnables() {
    let f = fixture();
    let r = check(
        &f,
        "subclass",
        "Threads$Worker.run",
        LaunchKind::ThreadStart,
        false,
    );
    assert_eq!(r.precision, Precision::Local);
    assert_eq!(
        r.task,
        TaskRef::Class(f.p.class_by_name("Threads$Worker").unwrap())
    );
    check(
        &f,
        "named",
        "Threads$Task.run",
        LaunchKind::ThreadStart,
        false,
    );
    check(
        &f,
        "anonymous",
        "Threads$1.run",
        LaunchKind::ThreadStart,
        false,
    );
    let r = check(
        &f,
        "lambda",
        "Threads.lambda$lambda$",
        LaunchKind::ThreadStart,
        false,
    );
    assert!(matches!(r.task, TaskRef::Lambda(m, _) if m == method(&f.p, "Threads", "lambda")));
    check(
        &f,
        "methodRef",
        "Threads.work",
        LaunchKind::ThreadStart,
        false,
    );
}

#[test]
fn executors_futures_timers_fork_join() {
    let f = fixture();
    check(
        &f,
        "execute",
        "Threads.lambda$execute$",
        LaunchKind::Executor,
        false,
    );
    let r = check(
        &f,
        "submitCallable",
        "Threads$Job.call",
        LaunchKind::Executor,
        false,
    );
    // The bridge `Object call()` is looked through to `Integer call()`.
    assert_eq!(&*f.p.method(r.entry).descriptor, "()Ljava/lang/Integer;");
    check(
        &f,
        "submitRunnable",
        "Threads$Task.run",
        LaunchKind::Executor,
        false,
    );
    check(
        &f,
        "runAsync",
        "Threads.lambda$runAsync$",
        LaunchKind::CompletableFuture,
        false,
    );
    check(
        &f,
        "supplyAsync",
        "Threads.lambda$supplyAsync$",
        LaunchKind::CompletableFuture,
        false,
    );
    check(&f, "timer", "Threads$Tick.run", LaunchKind::Timer, false);
    let r = check(
        &f,
        "fork",
        "Threads$Sum.compute",
        LaunchKind::ForkJoin,
        false,
    );
    assert_eq!(&*f.p.method(r.entry).descriptor, "()Ljava/lang/Integer;");
}

#[test]
fn many_starts_with_reasons() {
    let f = fixture();
    let r = check(
        &f,
        "loop",
        "Threads$Task.run",
        LaunchKind::ThreadStart,
        true,
    );
    assert!(r.reason_many.unwrap().contains("inside a loop"));
    let r = check(
        &f,
        "periodic",
        "Threads$Task.run",
        LaunchKind::ScheduledExecutor,
        true,
    );
    assert!(r.reason_many.unwrap().contains("periodically"));
    let r = check(
        &f,
        "twice",
        "Threads.lambda$twice$",
        LaunchKind::ThreadStart,
        true,
    );
    assert!(r.reason_many.unwrap().contains("called from 2 call sites"));
}

#[test]
fn fields_and_self_starting_threads() {
    let f = fixture();
    let r = check(
        &f,
        "viaField",
        "Threads.lambda$setField$",
        LaunchKind::ThreadStart,
        false,
    );
    assert_eq!(r.precision, Precision::Flow);
    // `start()` on `this` in a constructor: every live subtype that overrides run.
    let ctor = method(&f.p, "Threads$SelfStarter", "<init>");
    let self_roots: Vec<String> = f
        .roots
        .iter()
        .filter(|r| r.start_site.0 == ctor)
        .map(|r| name(&f.p, r.entry))
        .collect();
    assert_eq!(self_roots, vec!["Threads$SelfStarter.run"]);
}

#[test]
fn roots_are_sorted_and_deterministic() {
    let a = fixture();
    let b = fixture();
    let key = |f: &Fixture| -> Vec<(String, String, Option<u32>, bool)> {
        f.roots
            .iter()
            .map(|r| {
                (
                    name(&f.p, r.entry),
                    name(&f.p, r.start_site.0),
                    r.line,
                    r.may_start_many,
                )
            })
            .collect()
    };
    assert_eq!(key(&a), key(&b));
    assert!(a
        .roots
        .windows(2)
        .all(|w| (w[0].entry, w[0].start_site) <= (w[1].entry, w[1].start_site)));
    // Every root's entry is reachable through a launch edge from its start site.
    let g = rta(&a.p, &entry_points(&a.p, false));
    for r in &a.roots {
        let site_edges = g.callees_at(r.start_site.0, r.start_site.1);
        assert!(
            site_edges.iter().any(|e| e.kind == EdgeKind::TaskLaunch),
            "no launch edge at {}",
            name(&a.p, r.start_site.0)
        );
        assert!(g.is_reachable(r.entry), "{}", name(&a.p, r.entry));
    }
}

const LIB: &str = r#"
package lib;
public class Pool {
    private final java.util.concurrent.ExecutorService ex = java.util.concurrent.Executors.newCachedThreadPool();
    public void go() { ex.submit(this::step); } // MARK go
    void step() {}
}
"#;

#[test]
fn open_program_entries_may_start_many() {
    let p = program(&[("lib/Pool.java", LIB)]);
    let g = rta(&p, &entry_points(&p, false));
    let roots = thread_roots(&p, &g);
    let go = method(&p, "lib/Pool", "go");
    let r: Vec<&ThreadRoot> = roots.iter().filter(|r| r.start_site.0 == go).collect();
    assert_eq!(r.len(), 1, "{roots:?}");
    assert_eq!(name(&p, r[0].entry), "lib/Pool.step");
    assert_eq!(r[0].line, Some(line_of(LIB, "MARK go")));
    assert!(r[0].may_start_many);
    assert!(r[0]
        .reason_many
        .as_deref()
        .unwrap()
        .contains("entry point of an open program"));
}
