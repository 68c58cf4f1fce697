//! Type discovery end to end: a Java fixture (compiled by javac at test
//! time) runs under the recording agent with `-Xverify:all`, `lockstep
//! check-trace --discover-types` types its fields from the traces, and
//! `lockstep check --types` checks the discovered guards statically.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use lockstep_testkit::{compile_dir, CompileOptions, CompiledFixture};
use serde_json::Value;

fn fixture() -> CompiledFixture {
    fixture_in("discovery")
}

fn fixture_in(case: &str) -> CompiledFixture {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/types")
        .join(case);
    compile_dir(&dir, &CompileOptions::release(17)).unwrap_or_else(|e| panic!("javac: {e}"))
}

fn lockstep() -> Command {
    Command::new(env!("CARGO_BIN_EXE_lockstep"))
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Runs the fixture under the agent (with `args`) and returns the trace.
fn record(fx: &CompiledFixture, dir: &Path, name: &str, args: &[&str], expect: &str) -> PathBuf {
    record_main(fx, dir, name, "Types", args, expect)
}

/// [`record`] of another main class.
fn record_main(
    fx: &CompiledFixture,
    dir: &Path,
    name: &str,
    main: &str,
    args: &[&str],
    expect: &str,
) -> PathBuf {
    let trace = dir.join(name);
    let out = lockstep()
        .args(["run", "-q", "--format", "json", "-o"])
        .arg(dir.join(format!("{name}.json")))
        .arg("--trace")
        .arg(&trace)
        .args(["--", "java", "-Xverify:all", "-cp"])
        .arg(&fx.classes_dir)
        .arg(main)
        .args(args)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        expect,
        "the program's behaviour changed; stderr:\n{}",
        stderr(&out)
    );
    trace
}

/// `check-trace --discover-types`: the types file and the text.
fn discover(dir: &Path, traces: &[&Path]) -> (Value, String) {
    let types = dir.join("types.json");
    let out = lockstep()
        .arg("check-trace")
        .arg("--discover-types")
        .arg(&types)
        .args(traces)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = std::fs::read_to_string(&types).unwrap();
    (
        serde_json::from_str(&text).unwrap(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

fn field<'a>(types: &'a Value, class: &str, name: &str) -> &'a Value {
    types["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["class"] == class && f["field"] == name)
        .unwrap_or_else(|| panic!("{class}.{name} not typed: {types:#}"))
}

fn owner(types: &Value, class: &str, name: &str) -> (String, Value) {
    let f = field(types, class, name);
    (f["owner"].as_str().unwrap().to_string(), f["guard"].clone())
}

#[test]
fn discovered_types_follow_each_fields_discipline_and_are_checked_statically() {
    let fx = fixture();
    let dir = tempfile::tempdir().unwrap();
    let trace = record(&fx, dir.path(), "plain.trace", &[], "types 100 100 100\n");
    let (types, text) = discover(dir.path(), &[&trace]);
    assert_eq!(types["format"], "lockstep-types");
    assert_eq!(types["version"], 1);
    assert_eq!(types["traces"], 1);

    // synchronized (this) at every access once shared.
    assert_eq!(
        owner(&types, "Types$Counter", "count"),
        ("guarded_by".into(), Value::from("this"))
    );
    // A static field under the class lock of static synchronized methods.
    let total = field(&types, "Types$Registry", "total");
    assert_eq!(total["static"], true);
    assert_eq!(total["owner"], "guarded_by");
    assert_eq!(total["guard"], "Types$Registry.class");
    // Written only in the constructor.
    assert_eq!(owner(&types, "Types$Config", "name").0, "readonly");
    // One object per worker.
    let uses = field(&types, "Types$Scratch", "uses");
    assert_eq!(uses["owner"], "thisThread");
    assert_eq!(uses["objects"], 2);
    assert_eq!(uses["shared_objects"], 0);
    // Its own monitor in one thread, the class's in the other.
    assert_eq!(
        owner(&types, "Types$Mixed", "value"),
        ("none".into(), Value::Null)
    );
    // Always locked in this run (reset() did not run).
    assert_eq!(
        owner(&types, "Types$Account", "balance"),
        ("guarded_by".into(), Value::from("this"))
    );

    // The suggested annotations and the share typed.
    assert!(
        text.contains("Types$Counter.count: @GuardedBy(\"this\")"),
        "{text}"
    );
    assert!(
        text.contains("Types$Registry.total: @GuardedBy(\"Registry.class\")"),
        "{text}"
    );
    assert!(
        text.contains("Types$Scratch.uses: thread-confined"),
        "{text}"
    );
    let (typed, total) = (
        types["summary"]["typed"].as_u64().unwrap(),
        types["summary"]["fields"].as_u64().unwrap(),
    );
    assert_eq!(typed + 1, total, "only Mixed.value is untyped: {types:#}");
    assert!(
        text.contains(&format!("{typed} of {total} fields typed")),
        "{text}"
    );

    // The static analysis accepts the guards every reached access holds,
    // and refutes the one reset() breaks, naming that access.
    let types_file = dir.path().join("types.json");
    let out = lockstep()
        .args(["check", "-q", "--no-jdk", "--types"])
        .arg(&types_file)
        .arg(&fx.classes_dir)
        .output()
        .unwrap();
    let err = stderr(&out);
    assert!(
        err.contains("types: Types$Counter.count: guarded_by self accepted (3 accesses of shared objects, all hold it)"),
        "{err}"
    );
    assert!(
        err.contains("types: Types$Registry.total: guarded_by Types.Registry.class accepted"),
        "{err}"
    );
    // Written only by its constructor: the static facts hold no access of
    // it to check (today's behaviour; the run's readonly is not refuted).
    assert!(
        err.contains("types: Types$Config.name: readonly not checked: the analysed code has no access of a shared object of it"),
        "{err}"
    );
    assert!(
        err.contains(
            "types: Types$Account.balance: guarded_by self REFUTED: the write in Types$Account.reset (Types.java:42) does not hold self"
        ),
        "{err}"
    );
}

#[test]
fn a_class_literal_lock_of_synchronized_blocks_is_discovered_and_accepted() {
    // Before the object record named the class a class object stands for,
    // `synchronized (Counter.class)` blocks gave no guard (owner none).
    let fx = fixture_in("class_lock");
    let dir = tempfile::tempdir().unwrap();
    let trace = record_main(
        &fx,
        dir.path(),
        "class.trace",
        "ClassLock",
        &[],
        "class-lock 200\n",
    );
    let (types, text) = discover(dir.path(), &[&trace]);
    for name in ["hits", "last"] {
        assert_eq!(
            owner(&types, "Counter", name),
            ("guarded_by".into(), Value::from("Counter.class")),
            "{types:#}"
        );
    }
    assert!(
        text.contains("Counter.hits: @GuardedBy(\"Counter.class\")"),
        "{text}"
    );
    let out = lockstep()
        .args(["check", "-q", "--no-jdk", "--types"])
        .arg(dir.path().join("types.json"))
        .arg(&fx.classes_dir)
        .output()
        .unwrap();
    let err = stderr(&out);
    for name in ["hits", "last"] {
        assert!(
            err.contains(&format!(
                "types: Counter.{name}: guarded_by Counter.class accepted"
            )),
            "{err}"
        );
    }
}

#[test]
fn types_are_intersected_over_traces() {
    let fx = fixture();
    let dir = tempfile::tempdir().unwrap();
    let plain = record(&fx, dir.path(), "plain.trace", &[], "types 100 100 100\n");
    let reset = record(
        &fx,
        dir.path(),
        "reset.trace",
        &["reset"],
        "types 100 100 0\n",
    );
    // The run that resets writes balance without the lock: no guard left.
    let (types, _) = discover(dir.path(), &[&plain, &reset]);
    assert_eq!(types["traces"], 2);
    let balance = field(&types, "Types$Account", "balance");
    assert_eq!(balance["owner"], "none");
    // Guards every run agrees on stay.
    assert_eq!(
        owner(&types, "Types$Counter", "count"),
        ("guarded_by".into(), Value::from("this"))
    );
}

#[test]
fn a_bad_types_file_is_an_error_naming_it() {
    let fx = fixture();
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(
        &bad,
        r#"{"format": "lockstep-types", "version": 9, "fields": []}"#,
    )
    .unwrap();
    let out = lockstep()
        .args(["check", "-q", "--no-jdk", "--types"])
        .arg(&bad)
        .arg(&fx.classes_dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("bad.json"), "{err}");
    assert!(err.contains("unsupported types file version 9"), "{err}");
}

#[test]
fn an_unreadable_trace_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.trace");
    let out = lockstep()
        .arg("check-trace")
        .arg("--discover-types")
        .arg(dir.path().join("types.json"))
        .arg(&missing)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("missing.trace"), "{err}");
}
