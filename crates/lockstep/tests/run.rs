//! `lockstep run` end to end: Java fixtures (compiled by javac at test
//! time) run under the recording agent with `-Xverify:all`, and the JSON
//! findings, exit codes and saved traces are checked.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use lockstep_testkit::{compile_dir, CompileOptions, CompiledFixture, JavaCompiler};
use serde_json::Value;

fn fixture(case: &str, opts: &CompileOptions) -> CompiledFixture {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/run")
        .join(case);
    compile_dir(&dir, opts).unwrap_or_else(|e| panic!("javac {case}: {e}"))
}

fn lockstep() -> Command {
    Command::new(env!("CARGO_BIN_EXE_lockstep"))
}

/// Runs `lockstep run` with JSON to a file; returns the process output and the report.
fn run(extra: &[&str], java: &Path, classes: &Path, main: &str) -> (Output, Value) {
    run_with_args(extra, java, classes, &[main])
}

/// [`run`] with program arguments after the main class.
fn run_with_args(
    extra: &[&str],
    java: &Path,
    classes: &Path,
    main_and_args: &[&str],
) -> (Output, Value) {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.json");
    let out = lockstep()
        .args(["run", "-q", "--format", "json", "-o"])
        .arg(&report)
        .args(extra)
        .arg("--")
        .arg(java)
        .args(["-Xverify:all", "-cp"])
        .arg(classes)
        .args(main_and_args)
        .output()
        .unwrap();
    let text = std::fs::read_to_string(&report).unwrap_or_else(|e| {
        panic!(
            "no report ({e}); stderr:\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out, serde_json::from_str(&text).unwrap())
}

fn findings(report: &Value) -> Vec<&Value> {
    report["findings"].as_array().unwrap().iter().collect()
}

fn found_by(f: &Value) -> String {
    f["notes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|n| n.as_str())
        .find(|n| n.starts_with("found by:"))
        .unwrap_or("")
        .to_owned()
}

fn java17() -> PathBuf {
    PathBuf::from("java")
}

#[test]
fn racy_counter_and_array_are_found_by_both_checkers() {
    let fx = fixture("racy", &CompileOptions::release(17));
    let (out, report) = run(&[], &java17(), &fx.classes_dir, "Racy");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "racy done\n");
    let fs = findings(&report);
    let count = fs
        .iter()
        .find(|f| f["field"] == "Racy.count")
        .expect("race on Racy.count");
    assert_eq!(count["rule"], "data-race");
    assert_eq!(count["provenance"], "run");
    assert_eq!(count["method"], "lambda$main$0");
    assert_eq!(found_by(count), "found by: lockset, happens-before");
    assert!(
        fs.iter()
            .any(|f| f["message"].as_str().unwrap().contains("element")),
        "array element race: {fs:#?}"
    );
}

#[test]
fn ordered_and_confined_accesses_are_silent_under_happens_before() {
    let fx = fixture("safe", &CompileOptions::release(17));
    let (out, report) = run(&[], &java17(), &fx.classes_dir, "Safe");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "safe 400 400 true 400 42 5 2 3 2 3 400\n",
        "the program's behaviour changed; stderr:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fs = findings(&report);
    let hb: Vec<_> = fs
        .iter()
        .filter(|f| found_by(f).contains("happens-before"))
        .collect();
    assert!(hb.is_empty(), "happens-before false alarms: {hb:#?}");
    // Eraser's join-ordering false alarm is gone thanks to the extension.
    assert!(!fs.iter().any(|f| f["field"] == "Safe.joined"), "{fs:#?}");
    // Known limitation of the lockset checker (asserted as today's behaviour):
    // it cannot see executor hand-offs, and reads in `main` after joining two
    // lock-using writers are reported. Never between the two workers.
    for f in &fs {
        let msg = f["message"].as_str().unwrap();
        assert!(
            msg.contains("thread `main`"),
            "lockset race between workers: {msg}"
        );
    }
}

#[test]
fn system_exit_still_gives_a_report() {
    let fx = fixture("exit", &CompileOptions::release(17));
    let (out, report) = run(&[], &java17(), &fx.classes_dir, "Exit");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(findings(&report)
        .iter()
        .any(|f| f["field"] == "Exit.shared"));
    let plain = lockstep()
        .args(["run", "--format", "concise", "--"])
        .arg(java17())
        .arg("-cp")
        .arg(&fx.classes_dir)
        .arg("Exit")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&plain.stderr);
    assert!(stderr.contains("exited with exit status: 3"), "{stderr}");
}

#[test]
fn custom_class_loader_and_out_of_memory_still_give_a_report() {
    let fx = fixture("hostile", &CompileOptions::release(17));
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.json");
    let out = lockstep()
        .args(["run", "--format", "json", "-o"])
        .arg(&report)
        .arg("--")
        .arg(java17())
        .args(["-Xmx64m", "-Xverify:all", "-cp"])
        .arg(&fx.classes_dir)
        .arg("Hostile")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("OutOfMemoryError"), "{stderr}");
    assert!(
        stderr.contains("the program exited with exit status: 1"),
        "{stderr}"
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "plugin ran\n");
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert!(
        findings(&report)
            .iter()
            .any(|f| f["field"] == "Plugin.hits"),
        "{report:#}"
    );
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn deadlock_is_stopped_after_the_timeout_with_a_thread_dump() {
    let fx = fixture("deadlock", &CompileOptions::release(17));
    let start = Instant::now();
    let out = lockstep()
        .args(["run", "--format", "concise", "--timeout", "3", "--"])
        .arg(java17())
        .arg("-cp")
        .arg(&fx.classes_dir)
        .arg("Deadlock")
        .output()
        .unwrap();
    assert!(
        start.elapsed() < Duration::from_secs(60),
        "took {:?}",
        start.elapsed()
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stderr.contains("stopped after the 3 s timeout"), "{stderr}");
    assert!(
        stderr.contains("`takes-first`") && stderr.contains("BLOCKED"),
        "{stderr}"
    );
    assert!(stdout.contains("Deadlock.unguarded"), "{stdout}");
    // The dump's held and awaited monitors make a wait-for cycle.
    let hung: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains("[deadlock]"))
        .collect();
    assert_eq!(hung.len(), 1, "{stdout}");
    assert!(
        hung[0].contains("the run deadlocked")
            && hung[0].contains("`takes-first` and `takes-second`")
            && hung[0].starts_with("Deadlock.java:10:"),
        "{stdout}"
    );
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn trace_copy_is_a_complete_trace() {
    let fx = fixture("racy", &CompileOptions::release(17));
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("run.trace");
    let (_, report) = run(
        &["--trace", trace.to_str().unwrap()],
        &java17(),
        &fx.classes_dir,
        "Racy",
    );
    let t = lockstep_trace::read(std::fs::File::open(&trace).unwrap());
    assert!(t.complete && !t.truncated, "{:?}", t.problems);
    assert!(t.event_count() > 4000);
    assert!(t.tables.threads.values().any(|th| th.name == "adder-1"));
    assert!(!findings(&report).is_empty());
}

#[test]
fn a_missing_or_unsupported_java_is_a_clear_error() {
    let out = lockstep()
        .args(["run", "--", "/nonexistent/bin/java", "Main"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot run `/nonexistent/bin/java`"));
    let out = lockstep()
        .args(["run", "--", "/bin/true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("did not start lockstep's recorder"));
}

const JDK25: &str = "/usr/lib/jvm/temurin-25-jdk-amd64";

#[test]
fn java_25_class_files_are_recorded_on_jdk_25() {
    let home = Path::new(JDK25);
    if !home.join("bin/javac").is_file() {
        eprintln!("note: {JDK25} absent, Java 25 class files not tested");
        return;
    }
    let opts = CompileOptions {
        release: Some(25),
        compiler: Some(JavaCompiler::at(home.join("bin/javac")).unwrap()),
        ..CompileOptions::default()
    };
    let fx = fixture("racy", &opts);
    let (out, report) = run(&[], &home.join("bin/java"), &fx.classes_dir, "Racy");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let count = findings(&report)
        .into_iter()
        .find(|f| f["field"] == "Racy.count")
        .cloned();
    assert!(count.is_some_and(|f| found_by(&f).contains("happens-before")));
}

/// The `deadlock` findings of a report.
fn deadlocks(report: &Value) -> Vec<&Value> {
    findings(report)
        .into_iter()
        .filter(|f| f["rule"] == "deadlock")
        .collect()
}

fn cycle_note(f: &Value) -> &str {
    f["notes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|n| n.as_str())
        .find(|n| n.starts_with("cycle: "))
        .unwrap_or("")
}

/// `LockOrder <shape>` under the recorder: its `deadlock` findings.
fn lock_order_run(shape: &str, extra: &[&str]) -> Vec<Value> {
    let fx = fixture("lockorder", &CompileOptions::release(17));
    let (out, report) = run_with_args(extra, &java17(), &fx.classes_dir, &["LockOrder", shape]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !shape.starts_with("hang") {
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            format!("{shape} done\n"),
            "{stderr}"
        );
    }
    deadlocks(&report).into_iter().cloned().collect()
}

#[test]
fn opposite_lock_orders_that_did_not_hang_are_a_potential_deadlock() {
    let found = lock_order_run("potential", &[]);
    assert_eq!(found.len(), 1, "{found:#?}");
    let f = &found[0];
    assert_eq!(f["provenance"], "run");
    assert_eq!(f["confidence"], "medium");
    // Where the first thread of the cycle took its second lock.
    assert_eq!(
        (f["method"].as_str(), f["line"].as_u64()),
        (Some("forward"), Some(61))
    );
    assert!(
        f["message"]
            .as_str()
            .unwrap()
            .starts_with("potential deadlock over 2 locks: thread `forward`"),
        "{f:#}"
    );
    let cycle = cycle_note(f);
    assert!(
        cycle.starts_with(
            "cycle: thread A (`forward` (started at LockOrder.concurrently(Runnable, Runnable)"
        ) && cycle.contains("holds `java.lang.Object@")
            && cycle.contains("(LockOrder.java:60), waits for `java.lang.Object@")
            && cycle.contains("(LockOrder.java:61); thread B (`backward`")
            && cycle.contains("(LockOrder.java:66), waits for")
            && cycle.ends_with("(LockOrder.java:67)"),
        "{cycle}"
    );
}

#[test]
fn gated_start_join_ordered_and_single_thread_lock_orders_are_silent() {
    for shape in ["gated", "joined", "single"] {
        let found = lock_order_run(shape, &[]);
        assert!(found.is_empty(), "{shape}: {found:#?}");
    }
}

#[test]
fn reentrant_lock_pairs_in_opposite_orders_are_a_potential_deadlock() {
    let found = lock_order_run("juc", &[]);
    assert_eq!(found.len(), 1, "{found:#?}");
    let cycle = cycle_note(&found[0]);
    assert!(
        cycle
            .matches("`java.util.concurrent.locks.ReentrantLock@")
            .count()
            == 4
            && cycle.contains("(LockOrder.java:74); thread B (`backward`")
            && cycle.ends_with("(LockOrder.java:84)"),
        "{cycle}"
    );
}

#[test]
fn a_reentrant_lock_deadlock_is_reported_from_the_hang_dump_and_again_from_its_trace() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("hang.trace");
    let found = lock_order_run(
        "hang-juc",
        &["--timeout", "3", "--trace", trace.to_str().unwrap()],
    );
    assert_eq!(found.len(), 1, "{found:#?}");
    let f = &found[0];
    assert_eq!(
        f["message"],
        "deadlock observed: the run deadlocked; threads `takes-left` and `takes-right` wait for each other's locks"
    );
    assert_eq!(f["confidence"], "high");
    assert_eq!(
        (f["file"].as_str(), f["line"].as_u64()),
        (Some("LockOrder.java"), Some(107))
    );
    let cycle = cycle_note(f);
    assert!(
        cycle.starts_with("cycle: thread A (`takes-left`, WAITING) holds `java.util.concurrent.locks.ReentrantLock@")
            && cycle.contains("(LockOrder.java:103), waits for `java.util.concurrent.locks.ReentrantLock@")
            && cycle.contains("(LockOrder.java:107); thread B (`takes-right`, WAITING)"),
        "{cycle}"
    );
    // Offline, from the saved trace: the same finding, byte for byte.
    let out = lockstep()
        .args(["check-trace", "--checker", "deadlock", "--format", "json"])
        .arg(&trace)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let offline: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(deadlocks(&offline), vec![f]);
    // The race checkers alone do not report it.
    let out = lockstep()
        .args(["check-trace", "--checker", "lockset", "--format", "json"])
        .arg(&trace)
        .output()
        .unwrap();
    let races: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(deadlocks(&races).is_empty());
}

/// The findings of one run of `main` from the hand-off fixtures, with the
/// program's own output checked.
fn handoff_run(main: &str, stdout: &str) -> Vec<Value> {
    let report = handoff_report(main, stdout);
    findings(&report).into_iter().cloned().collect()
}

fn handoff_report(main: &str, stdout: &str) -> Value {
    fixture_report("handoffs", main, stdout)
}

/// Runs `main` of fixture directory `case` and checks its output.
fn fixture_report(case: &str, main: &str, stdout: &str) -> Value {
    let fx = fixture(case, &CompileOptions::release(17));
    let (out, report) = run(&[], &java17(), &fx.classes_dir, main);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        stdout,
        "the program's behaviour changed; stderr:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    report
}

fn fields(fs: &[Value]) -> Vec<&str> {
    fs.iter().filter_map(|f| f["field"].as_str()).collect()
}

/// Every finding pairs a write with another access: its message ("a read
/// in thread `a` and a write in thread `b` …") names a write.
fn assert_no_read_read(fs: &[Value]) {
    for f in fs {
        let msg = f["message"].as_str().unwrap_or("");
        assert!(msg.contains("a write in thread"), "read/read pair: {f:#?}");
    }
}

#[test]
fn atomics_order_the_objects_they_publish_and_the_racy_twin_is_found() {
    let fs = handoff_run("AtomicPublish", "atomic 142\n");
    let names = fields(&fs);
    for quiet in [
        "AtomicPublish$Box.v",
        "AtomicPublish$Plain.v",
        "AtomicPublish.payload",
    ] {
        assert!(!names.contains(&quiet), "{quiet} false alarm: {fs:#?}");
    }
    let late = fs
        .iter()
        .find(|f| f["field"] == "AtomicPublish.late")
        .unwrap_or_else(|| panic!("racy twin AtomicPublish.late not found: {fs:#?}"));
    assert_eq!(found_by(late), "found by: lockset, happens-before");
    assert_no_read_read(&fs);
}

#[test]
fn class_initialization_orders_static_finals_in_every_run() {
    // The merge used to put a read before the `<clinit>` write in about one
    // run of six; with the class-init edge it never may.
    for _ in 0..3 {
        let fs = handoff_run("ClinitReads", "clinit true\n");
        let names = fields(&fs);
        assert!(
            !names.iter().any(|n| n.starts_with("ClinitReads$Holder")),
            "class-init false alarm: {fs:#?}"
        );
        assert!(names.contains(&"ClinitReads.hits"), "racy twin: {fs:#?}");
        assert_no_read_read(&fs);
    }
}

#[test]
fn reads_after_an_atomic_hand_off_and_join_are_silent() {
    let report = handoff_report("ReadRead", "readread 41\n");
    assert!(findings(&report).is_empty(), "{report:#?}");
    // The summary counts what was instrumented: `ReadRead` (main, spinRead,
    // the lambda, <clinit>) and its `Box`.
    let summary = &report["summary"];
    assert_eq!(summary["classes"], 2, "{summary:#?}");
    assert!(summary["methods"].as_u64().unwrap() >= 4, "{summary:#?}");
}

#[test]
fn thread_safe_collections_are_hand_offs_and_a_shared_hash_map_races() {
    let fs = handoff_run("SafeCollections", "collections 2 3\nsizes 100 100\n");
    let names = fields(&fs);
    assert!(
        !names.iter().any(|n| n.starts_with("SafeCollections$Plain")),
        "publication through a ConcurrentHashMap: {fs:#?}"
    );
    let containers: Vec<&str> = fs
        .iter()
        .filter_map(|f| f["message"].as_str())
        .filter(|m| m.contains("contents of"))
        .collect();
    assert!(
        containers
            .iter()
            .all(|m| m.contains("HashMap") && !m.contains("Concurrent")),
        "thread-safe container raced: {containers:#?}"
    );
    assert!(
        !containers.is_empty(),
        "racy twin (HashMap written by two threads) not found: {fs:#?}"
    );
    assert_no_read_read(&fs);
}

/// The `non-atomic-method` findings of one run of an atomicity fixture
/// with every atomicity checker, as `(method, checker)` pairs; the run's
/// other findings must be none (the fixtures are race-free).
fn atomicity_run(main: &str, trace: &Path) -> Vec<(String, String)> {
    let fx = fixture("atomicity", &CompileOptions::release(17));
    let t = trace.to_str().unwrap();
    let (out, report) = run(
        &["--atomicity", "all", "--trace", t],
        &java17(),
        &fx.classes_dir,
        main,
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with("done"),
        "stderr:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    atomicity_findings(&report)
}

fn atomicity_findings(report: &Value) -> Vec<(String, String)> {
    let fs = findings(report);
    let others: Vec<&&Value> = fs
        .iter()
        .filter(|f| f["rule"] != "non-atomic-method")
        .collect();
    assert!(others.is_empty(), "{others:#?}");
    let mut v: Vec<(String, String)> = fs
        .iter()
        .map(|f| {
            assert_eq!(f["provenance"], "run");
            let m = f["message"].as_str().unwrap().split('`').nth(1).unwrap();
            let by = found_by(f).trim_start_matches("found by: ").to_owned();
            (m.to_owned(), by)
        })
        .collect();
    v.sort();
    v
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(m, c)| (m.to_string(), c.to_string()))
        .collect()
}

#[test]
fn a_lock_released_half_way_is_caught_by_reduction_and_blocks_and_its_twin_is_silent() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("bank.trace");
    let found = atomicity_run("Bank", &trace);
    // Whether the run itself interleaved two withdrawals is up to the scheduler.
    let found: Vec<_> = found
        .into_iter()
        .filter(|(_, c)| c != "conflict-serializability")
        .collect();
    assert_eq!(
        found,
        pairs(&[
            ("Bank.withdraw", "block-based"),
            ("Bank.withdraw", "reduction-offline"),
            ("Bank.withdraw", "reduction-online"),
        ])
    );
    // The same trace checked off-line, one checker at a time.
    let out = lockstep()
        .args([
            "check-trace",
            "--format",
            "json",
            "--checker",
            "block-based",
        ])
        .arg(&trace)
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        atomicity_findings(&report),
        pairs(&[("Bank.withdraw", "block-based")])
    );
    let f = &findings(&report)[0];
    let steps: Vec<&str> = f["related"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["message"].as_str().unwrap())
        .collect();
    assert_eq!(steps.len(), 4, "{steps:?}");
    assert!(
        steps.iter().all(|s| s.contains("Bank.balance")),
        "{steps:?}"
    );
    assert!(f["related"][0]["line"].as_u64().is_some(), "{f:#}");
    assert!(atomicity_run("BankSafe", &trace).is_empty());
}

#[test]
fn check_then_act_on_a_concurrent_map_is_caught_and_the_single_call_twin_is_silent() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("cache.trace");
    // Both reductions judge the events of each transaction, and catch it in
    // every run. Block-based and serializability compare transactions that
    // the run's hand-offs left unordered: whether the map's put → get
    // hand-offs ordered every pair depends on the schedule, so they may or
    // may not report it (block-based catches `Bank` in every run, above).
    let found: Vec<_> = atomicity_run("Cache", &trace)
        .into_iter()
        .filter(|(_, c)| c != "conflict-serializability" && c != "block-based")
        .collect();
    assert_eq!(
        found,
        pairs(&[
            ("Cache.getOrAdd", "reduction-offline"),
            ("Cache.getOrAdd", "reduction-online"),
        ])
    );
    assert!(atomicity_run("CacheSafe", &trace).is_empty());
}

#[test]
fn atomic_patterns_add_transactions_and_atomicity_is_off_by_default() {
    let fx = fixture("atomicity", &CompileOptions::release(17));
    let (_, report) = run(&[], &java17(), &fx.classes_dir, "Bank");
    assert!(atomicity_findings(&report).is_empty());
    // Thread bodies (lambdas) are no transactions by default; named, the
    // lambda is one and the withdrawals inside it count once, as part of it.
    let (_, report) = run(
        &[
            "--atomicity",
            "reduction-online",
            "--atomic",
            "Bank.lambda$*",
        ],
        &java17(),
        &fx.classes_dir,
        "Bank",
    );
    assert_eq!(
        atomicity_findings(&report),
        pairs(&[("Bank.lambda$main$0", "reduction-online")])
    );
}

#[test]
fn at_atomic_methods_are_transactions_and_package_private_ones_are_not_by_default() {
    let fx = fixture("atomicity", &CompileOptions::release(17));
    let (_, report) = run(
        &["--atomicity", "reduction-online"],
        &java17(),
        &fx.classes_dir,
        "Tally",
    );
    assert_eq!(
        atomicity_findings(&report),
        pairs(&[("Tally.bumpAnnotated", "reduction-online")])
    );
}

/// Runs a fixture of `tests/run/precision`, checks its output, that none
/// of the `quiet` fields is reported and that the racy `twin` is, by
/// happens-before; returns the findings.
fn precision_run(main: &str, stdout: &str, quiet: &[&str], twin: &str) -> Vec<Value> {
    let report = fixture_report("precision", main, stdout);
    let fs: Vec<Value> = findings(&report).into_iter().cloned().collect();
    let names = fields(&fs);
    for q in quiet {
        assert!(!names.contains(q), "{q} false alarm: {fs:#?}");
    }
    let found = fs
        .iter()
        .find(|f| f["field"] == twin)
        .unwrap_or_else(|| panic!("racy twin {twin} not found: {fs:#?}"));
    assert!(found_by(found).contains("happens-before"), "{found:#?}");
    assert_no_read_read(&fs);
    fs
}

#[test]
fn final_fields_never_race_and_racy_twins_are_found() {
    let fs = precision_run(
        "FinalFields",
        "final 62 true\n",
        &["FinalFields$Fin.value", "FinalFields$Base.base"],
        "FinalFields$Racy.value",
    );
    // Only the field is frozen: the element of the array it holds, written
    // after the publication, still races.
    assert!(
        fs.iter().any(|f| {
            let m = f["message"].as_str().unwrap_or("");
            m.contains("element [0] of array [I") && found_by(f).contains("happens-before")
        }),
        "array held by a final field not checked: {fs:#?}"
    );
}

#[test]
fn views_and_iterators_of_concurrent_maps_hand_off_and_the_racy_twin_is_found() {
    let fs = precision_run(
        "ConcurrentViews",
        "views 1225 1225 1225 1225 true\n",
        &["ConcurrentViews$Item.v"],
        "ConcurrentViews$Item.late",
    );
    assert!(
        !fs.iter().any(|f| f["message"]
            .as_str()
            .unwrap_or("")
            .contains("contents of java.util.concurrent")),
        "a thread-safe container raced through a view: {fs:#?}"
    );
}

#[test]
fn tasks_handed_to_an_application_executor_subclass_are_ordered() {
    precision_run(
        "AppExecutor",
        "app executor true true\n",
        &["AppExecutor$Item.v"],
        "AppExecutor$Item.late",
    );
}

#[test]
fn clones_get_their_own_identity_and_copy_on_write_is_silent() {
    precision_run(
        "CloneCopies",
        "clone 200 true true\n",
        &["CloneCopies$Node.v", "CloneCopies$Node.count"],
        "CloneCopies$Node.late",
    );
}

#[test]
fn reads_in_callbacks_of_a_thread_safe_map_are_ordered_after_the_put() {
    precision_run(
        "KeyCallbacks",
        "callbacks true\n",
        &["KeyCallbacks$Key.id"],
        "KeyCallbacks$Value.late",
    );
}

/// The findings of a hand-off fixture must be exactly its racy twin, found
/// by happens-before (lockset may or may not join in: the twin is unlocked).
fn assert_only_the_twin(fs: &[Value], twin: &str) {
    assert_eq!(fields(fs), vec![twin], "false alarms or no twin: {fs:#?}");
    assert_eq!(fs.len(), 1, "{fs:#?}");
    assert!(found_by(&fs[0]).contains("happens-before"), "{fs:#?}");
    assert_no_read_read(fs);
}

#[test]
fn timer_tasks_see_what_was_written_before_schedule_and_the_racy_twin_is_found() {
    // Without the schedule → run edge: `Job.data` and its element,
    // `payload`, `Job.done`, `Base.step`, `Base.done` were reported.
    let fs = handoff_run("TimerTasks", "timer 42 3 6 6\n");
    assert_only_the_twin(&fs, "TimerTasks.late");
}

#[test]
fn fork_join_tasks_are_ordered_by_fork_join_invoke_and_invoke_all() {
    // Without the task-object edges: `data` and its elements, `filled`,
    // `Sum.partial`, `Sum.lo/hi`, `Fill.lo/hi`, `Box.v` were reported.
    let fs = handoff_run("ForkJoins", "forkjoin 6000 6000 5999 2 2 6000\n");
    assert_only_the_twin(&fs, "ForkJoins.late");
}

#[test]
fn stamped_lock_stamps_views_conversions_and_a_validated_optimistic_read_are_silent() {
    // Without stamps: `x`, `y` and `counter` were reported by both
    // checkers (unlock(stamp), tryWriteLock, tryReadLock, conversions and
    // the optimistic read were not recorded).
    let fs = handoff_run("StampedLocks", "stamped 2236\ncounter 2000\n");
    assert_only_the_twin(&fs, "StampedLocks.late");
}

#[test]
fn a_shutdown_hook_starts_after_the_ended_threads_and_after_exit() {
    // Without the hook edges: `session` (written by a worker that ended,
    // and by the hook) and `config` (written by main after registering).
    let fx = fixture("handoffs", &CompileOptions::release(17));
    for args in [&["ShutdownHooks"][..], &["ShutdownHooks", "exit"][..]] {
        let (out, report) = run_with_args(&[], &java17(), &fx.classes_dir, args);
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "main done\nhook true 7 true\n",
            "{args:?}: the program's behaviour changed; stderr:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let fs: Vec<Value> = findings(&report).into_iter().cloned().collect();
        assert_only_the_twin(&fs, "ShutdownHooks.late");
    }
}

#[test]
fn executor_invoke_all_orders_each_task_after_the_call_and_before_its_return() {
    // Without wrapping the collection: `Cell.in` (read by the tasks) and
    // `Cell.out` (read by main after `invokeAll` returned) were reported.
    let fs = handoff_run("InvokeAll", "invokeAll 82 82\n");
    assert_only_the_twin(&fs, "InvokeAll.late");
}

#[test]
fn counted_completers_complete_up_to_the_root_before_its_join_returns() {
    // The root's `compute` ends before its leaves: without the release of
    // each completer's end at `tryComplete`, the leaves' `slots` elements
    // were reported against main's reads after `join`.
    let fs = handoff_run("Completers", "completers 2080\n");
    assert_only_the_twin(&fs, "Completers.late");
}

/// The names `name` gives to the events of a complete trace, sorted and
/// deduplicated.
fn event_names(
    trace: &Path,
    name: impl Fn(&lockstep_trace::Trace, &lockstep_trace::Event) -> Option<String>,
) -> Vec<String> {
    let t = lockstep_trace::read(std::fs::File::open(trace).unwrap());
    assert!(t.complete, "{:?}", t.problems);
    let mut out: Vec<String> = t
        .chunks
        .iter()
        .flat_map(|c| &c.events)
        .filter_map(|e| name(&t, e))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The application fields whose accesses a trace recorded
/// (`Class.field`, JDK fields such as `System.out` left out), sorted.
fn recorded_fields(trace: &Path) -> Vec<String> {
    event_names(trace, |t, e| match e {
        lockstep_trace::Event::Read { field, .. } | lockstep_trace::Event::Write { field, .. } => t
            .tables
            .fields
            .get(field)
            .map(|f| format!("{}.{}", f.class, f.name))
            .filter(|f| !f.starts_with("java/")),
        _ => None,
    })
}

#[test]
fn static_guidance_leaves_race_free_accesses_unprobed_and_still_reports_the_race() {
    let fx = fixture("guided", &CompileOptions::release(17));
    let dir = tempfile::tempdir().unwrap();
    let classes = fx.classes_dir.to_str().unwrap();
    let plain = dir.path().join("plain.trace");
    let guided = dir.path().join("guided.trace");
    let (_, unguided_report) = run(
        &["--trace", plain.to_str().unwrap()],
        &java17(),
        &fx.classes_dir,
        "Guided",
    );
    let (out, report) = run(
        &["--static", classes, "--trace", guided.to_str().unwrap()],
        &java17(),
        &fx.classes_dir,
        "Guided",
    );
    // Without guidance every field is recorded ...
    assert_eq!(
        recorded_fields(&plain),
        ["Guided$Box.v", "Guided.hits", "Guided.total"]
    );
    // ... with it, the lock-protected `total` and the thread-local `Box.v`
    // have no event at all, and the racy `hits` is still recorded.
    assert_eq!(recorded_fields(&guided), ["Guided.hits"]);
    for r in [&unguided_report, &report] {
        let races: Vec<&Value> = findings(r)
            .into_iter()
            .filter(|f| f["rule"] == "data-race")
            .collect();
        assert_eq!(races.len(), 1, "{r}");
        assert!(races[0].to_string().contains("Guided.hits"), "{r}");
    }
    assert_eq!(out.status.code(), Some(1));
    let g_bytes = std::fs::metadata(&guided).unwrap().len();
    let p_bytes = std::fs::metadata(&plain).unwrap().len();
    assert!(g_bytes < p_bytes, "guided {g_bytes} bytes, plain {p_bytes}");
}

/// The methods whose monitor acquisitions a trace recorded
/// (`Class.method`, application classes only), sorted.
fn locking_methods(trace: &Path) -> Vec<String> {
    event_names(trace, |t, e| match e {
        lockstep_trace::Event::Acquire {
            site,
            kind: lockstep_trace::LockKind::Monitor,
            ..
        } => t
            .tables
            .sites
            .get(site)
            .map(|s| format!("{}.{}", s.class, s.method))
            .filter(|m| !m.starts_with("java/")),
        _ => None,
    })
}

/// The data races of a report as `field` names, sorted.
fn raced_fields(report: &Value) -> Vec<String> {
    let mut out: Vec<String> = findings(report)
        .into_iter()
        .filter(|f| f["rule"] == "data-race")
        .filter_map(|f| f["field"].as_str().map(str::to_owned))
        .collect();
    out.sort();
    out.dedup();
    out
}

#[test]
fn static_guidance_leaves_out_monitors_that_guard_nothing_recorded_and_keeps_a_hand_off() {
    let fx = fixture("monitors", &CompileOptions::release(17));
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let classes = fx.classes_dir.to_str().unwrap();
    // One run with `extra` options and its trace: stderr and the report.
    let monitors_run = |extra: &[&str], trace: &Path| {
        let mut args = extra.to_vec();
        args.extend(["--trace", trace.to_str().unwrap()]);
        let (out, err, report) = cached_run(&args, &cache, &fx.classes_dir, "Monitors", &[]);
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "data 42\ncount 2000\n",
            "{err}"
        );
        (err, report)
    };
    let plain = dir.path().join("plain.trace");
    let (_, unguided) = monitors_run(&[], &plain);
    assert_eq!(
        locking_methods(&plain),
        [
            "Monitors$Counter.inc",
            "Monitors$Flag.get",
            "Monitors$Flag.set"
        ]
    );
    let guided = dir.path().join("guided.trace");
    let (err, report) = monitors_run(&["--static", classes], &guided);
    assert!(
        err.contains("static guidance: 1 methods lock only monitors the checkers do not need"),
        "{err}"
    );
    // The counter's monitor leaves no event; the flag's stays at both sites.
    assert_eq!(
        locking_methods(&guided),
        ["Monitors$Flag.get", "Monitors$Flag.set"]
    );
    // `hits` races either way, and the hand-off of `data` stays ordered by
    // the flag's monitor (no race on `data`). Unguided, lockset also
    // reports main's read of `n` after the joins (Eraser's join false
    // alarm); guided, that read is proven ordered and unprobed.
    assert_eq!(
        raced_fields(&unguided),
        ["Monitors$Counter.n", "Monitors.hits"]
    );
    let n = findings(&unguided)
        .into_iter()
        .find(|f| f["field"] == "Monitors$Counter.n")
        .unwrap();
    assert_eq!(found_by(n), "found by: lockset");
    assert_eq!(raced_fields(&report), ["Monitors.hits"]);
    // An atomicity checker reads every acquire and release: nothing left out.
    let atomic = dir.path().join("atomic.trace");
    let (err, _) = monitors_run(
        &["--static", classes, "--atomicity", "reduction-online"],
        &atomic,
    );
    assert!(!err.contains("monitors the checkers do not need"), "{err}");
    assert!(
        locking_methods(&atomic).contains(&"Monitors$Counter.inc".to_owned()),
        "{err}"
    );
}

#[test]
fn a_callback_of_a_get_acquires_what_a_put_completed_during_the_get_released() {
    // Before: `Key.id` was reported by happens-before (the acquire before
    // the `get` came before the put, the one after it after the `equals`).
    precision_run(
        "PutDuringGet",
        "reentry second\n",
        &["PutDuringGet$Key.id"],
        "PutDuringGet$Key.late",
    );
}

#[test]
fn a_value_made_by_a_compute_function_is_released_when_the_function_returns() {
    // Before: `Value.made` was reported by happens-before (the release
    // before `computeIfAbsent` came before the function made the value).
    precision_run(
        "ComputedValues",
        "computed 42 true\n",
        &["ComputedValues$Value.made"],
        "ComputedValues$Value.late",
    );
}

#[test]
fn callbacks_inside_one_concurrent_map_call_keep_it_one_atomic_access() {
    // The key's `hashCode`/`equals` and the compute function acquire (and
    // release) the map inside the call; counted as the call's own events
    // (main's log at 98d90fa, `check-trace` of this fixture's trace), they
    // split it into several accesses and both reductions reported `getOrAdd`.
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("callbacks.trace");
    assert!(atomicity_run("CacheCallbacks", &trace).is_empty());
}

/// `lockstep run` with `XDG_CACHE_HOME=cache` and no `-q` (the guidance
/// notes are on stderr): the process output, its stderr and the report.
fn cached_run(
    extra: &[&str],
    cache: &Path,
    classes: &Path,
    main: &str,
    env: &[(&str, &str)],
) -> (Output, String, Value) {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.json");
    let out = lockstep()
        .env("XDG_CACHE_HOME", cache)
        .env_remove("LOCKSTEP_NO_CACHE")
        .envs(env.iter().copied())
        .args(["run", "--format", "json", "-o"])
        .arg(&report)
        .args(extra)
        .arg("--")
        .arg(java17())
        .args(["-Xverify:all", "-cp"])
        .arg(classes)
        .arg(main)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let text = std::fs::read_to_string(&report)
        .unwrap_or_else(|e| panic!("no report ({e}); stderr:\n{err}"));
    (out, err, serde_json::from_str(&text).unwrap())
}

/// The methods whose entry a trace recorded (`Class.method`), sorted.
fn entered_methods(trace: &Path) -> Vec<String> {
    event_names(trace, |t, e| match e {
        lockstep_trace::Event::Enter { method } => t
            .tables
            .methods
            .get(method)
            .map(|m| format!("{}.{}", m.class, m.name)),
        _ => None,
    })
}

#[test]
fn methods_proven_atomic_are_no_transactions_and_the_non_atomic_one_is_still_reported() {
    let fx = fixture("atomicity", &CompileOptions::release(17));
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let classes = fx.classes_dir.to_str().unwrap();
    let bank_methods = |trace: &Path| -> Vec<String> {
        entered_methods(trace)
            .into_iter()
            .filter(|m| m.starts_with("Bank.") && !m.contains("lambda$"))
            .collect()
    };
    // Without guidance, the synchronized `balance` and `set` are entered
    // (and are transactions of the default heuristic).
    let plain = dir.path().join("plain.trace");
    let reductions = "reduction-online,reduction-offline";
    cached_run(
        &[
            "--atomicity",
            reductions,
            "--trace",
            plain.to_str().unwrap(),
        ],
        &cache,
        &fx.classes_dir,
        "Bank",
        &[],
    );
    assert_eq!(
        bank_methods(&plain),
        [
            "Bank.<init>",
            "Bank.balance",
            "Bank.main",
            "Bank.set",
            "Bank.withdraw"
        ]
    );
    // With it, `non-atomic-method` proves both atomic: their entries are
    // gone (they record only their monitors: no probe at all), while
    // `withdraw`, which lets go of the lock half-way, is still a
    // transaction and still reported.
    for (checkers, expected) in [
        (
            reductions,
            vec![
                ("Bank.withdraw", "reduction-offline"),
                ("Bank.withdraw", "reduction-online"),
            ],
        ),
        // Block-based keeps the shared accesses: `balance` and `set` keep
        // a probe that records nothing (no container calls them back).
        ("block-based", vec![("Bank.withdraw", "block-based")]),
    ] {
        let trace = dir.path().join("guided.trace");
        let (out, err, report) = cached_run(
            &[
                "--static",
                classes,
                "--atomicity",
                checkers,
                "--trace",
                trace.to_str().unwrap(),
            ],
            &cache,
            &fx.classes_dir,
            "Bank",
            &[],
        );
        assert!(
            String::from_utf8_lossy(&out.stdout).starts_with("done"),
            "{err}"
        );
        assert!(
            err.contains("methods proven atomic, not transactions"),
            "{err}"
        );
        assert_eq!(
            bank_methods(&trace),
            ["Bank.main", "Bank.withdraw"],
            "{checkers}"
        );
        assert_eq!(
            atomicity_findings(&report),
            pairs(&expected),
            "{checkers}: {err}"
        );
    }
}

#[test]
fn static_guidance_is_cached_by_content_and_the_cache_can_be_turned_off() {
    let fx = fixture("guided", &CompileOptions::release(17));
    let other = fixture("atomicity", &CompileOptions::release(17));
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    // A private copy of the classes, to change them below.
    let classes = dir.path().join("classes");
    std::fs::create_dir(&classes).unwrap();
    for e in std::fs::read_dir(&fx.classes_dir).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), classes.join(e.file_name())).unwrap();
    }
    let c = classes.to_str().unwrap();
    let guided = |trace: &Path, extra: &[&str], env: &[(&str, &str)]| {
        let mut args = vec!["--static", c, "--trace", trace.to_str().unwrap()];
        args.extend_from_slice(extra);
        let (_, err, report) = cached_run(&args, &cache, &classes, "Guided", env);
        // Computed or cached, the guidance is the same: only `hits` is recorded.
        assert_eq!(recorded_fields(trace), ["Guided.hits"], "{err}");
        assert_eq!(findings(&report).len(), 1, "{report}");
        err
    };
    let trace = dir.path().join("run.trace");
    let first = guided(&trace, &[], &[]);
    assert!(
        first.contains("static guidance: computed, cached in"),
        "{first}"
    );
    let entries = cache.join("lockstep/guidance");
    assert_eq!(std::fs::read_dir(&entries).unwrap().count(), 1);
    let second = guided(&trace, &[], &[]);
    assert!(
        second.contains("static guidance: from the cache"),
        "{second}"
    );
    let counts = |err: &str| {
        err.lines()
            .find(|l| l.contains("proven race-free"))
            .map(str::to_owned)
    };
    assert!(counts(&first).is_some(), "{first}");
    assert_eq!(counts(&second), counts(&first), "the cached counts");
    // Turned off: computed, nothing read or written.
    for (flag, env) in [
        (&["--no-cache"][..], &[][..]),
        (&[], &[("LOCKSTEP_NO_CACHE", "1")]),
    ] {
        let off = guided(&trace, flag, env);
        assert!(
            off.contains("computed, not cached: the cache is off"),
            "{off}"
        );
    }
    assert_eq!(std::fs::read_dir(&entries).unwrap().count(), 1);
    // Other options (an atomicity checker) and other contents (one more
    // class) are other entries.
    let with_checker = guided(&trace, &["--atomicity", "reduction-online"], &[]);
    assert!(
        with_checker.contains("computed, cached in"),
        "{with_checker}"
    );
    std::fs::copy(
        other.classes_dir.join("Workers.class"),
        classes.join("Workers.class"),
    )
    .unwrap();
    let changed = guided(&trace, &[], &[]);
    assert!(changed.contains("computed, cached in"), "{changed}");
    assert_eq!(std::fs::read_dir(&entries).unwrap().count(), 3);
}
