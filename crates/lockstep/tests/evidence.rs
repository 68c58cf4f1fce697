//! `lockstep check --evidence` end to end: Java fixtures (compiled by
//! javac at test time) are run under the recording agent with
//! `-Xverify:all`, their traces saved, and the static findings of the same
//! classes matched against them: a race the run leaves unordered is
//! observed, one the run orders (a volatile flag) is reached, one in code
//! the run never calls is not reached; a lock-order cycle the run takes
//! without hanging is observed. Text, JSON and SARIF are snapshotted.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use lockstep_testkit::{compile_dir, CompileOptions, CompiledFixture};
use serde_json::Value;

fn fixture(case: &str) -> CompiledFixture {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/evidence")
        .join(case);
    compile_dir(&dir, &CompileOptions::release(17)).unwrap_or_else(|e| panic!("javac {case}: {e}"))
}

fn lockstep() -> Command {
    Command::new(env!("CARGO_BIN_EXE_lockstep"))
}

/// A fixture compiled and run once under the agent, its trace kept.
struct Recorded {
    fx: CompiledFixture,
    _dir: tempfile::TempDir,
    trace: PathBuf,
}

fn record(case: &str, main: &str) -> Recorded {
    let fx = fixture(case);
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join(format!("{case}.trace"));
    let out = lockstep()
        .args(["run", "-q", "--format", "json", "--trace"])
        .arg(&trace)
        .args(["-o"])
        .arg(dir.path().join("run.json"))
        .args(["--", "java", "-Xverify:all", "-cp"])
        .arg(&fx.classes_dir)
        .arg(main)
        .output()
        .unwrap();
    assert!(
        trace.exists(),
        "no trace; stderr:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Recorded {
        fx,
        _dir: dir,
        trace,
    }
}

fn races() -> &'static Recorded {
    static R: OnceLock<Recorded> = OnceLock::new();
    R.get_or_init(|| record("races", "Races"))
}

fn locks() -> &'static Recorded {
    static R: OnceLock<Recorded> = OnceLock::new();
    R.get_or_init(|| record("locks", "Locks"))
}

/// `lockstep check CLASSES --evidence TRACE --format FORMAT`, with the
/// JDK (thread roots from the real `Thread.start`).
fn check(r: &Recorded, rules: &str, format: &str, traces: usize) -> Output {
    check_with(r, &["--select", rules, "--format", format], traces)
}

/// [`check`] without the JDK, for snapshots: the JDK's own line numbers
/// (in the paths of the notes) would tie them to one JDK build.
fn check_no_jdk(r: &Recorded, rules: &str, format: &str) -> Output {
    check_with(r, &["--no-jdk", "--select", rules, "--format", format], 1)
}

fn check_with(r: &Recorded, args: &[&str], traces: usize) -> Output {
    let mut cmd = lockstep();
    cmd.args(["check", "-q"]).args(args).arg(&r.fx.classes_dir);
    for _ in 0..traces {
        cmd.arg("--evidence").arg(&r.trace);
    }
    cmd.output().unwrap()
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}); stderr:\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// The evidence status of the finding on `field`.
fn status_of<'a>(report: &'a Value, field: &str) -> &'a Value {
    let f = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["field"] == field)
        .unwrap_or_else(|| panic!("no finding on {field}: {report:#}"));
    &f["evidence"]["status"]
}

#[test]
fn races_are_observed_reached_and_not_reached() {
    let out = check(races(), "data-race", "json", 1);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = json(&out);
    assert_eq!(status_of(&report, "Races.observed"), "observed");
    assert_eq!(status_of(&report, "Races.ordered"), "reached");
    assert_eq!(status_of(&report, "Races.unreached"), "not-reached");
    let summary = &report["summary"]["evidence"];
    assert_eq!(summary["runs"], 1);
    assert_eq!(summary["unmatched"], 0);
}

#[test]
fn two_runs_count_as_two() {
    let report = json(&check(races(), "data-race", "json", 2));
    let f = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["field"] == "Races.observed")
        .unwrap();
    assert_eq!(f["evidence"]["runs"], 2);
    assert_eq!(f["evidence"]["in_runs"], 2);
    assert_eq!(report["summary"]["evidence"]["runs"], 2);
}

#[test]
fn text_lists_observed_findings_first() {
    let out = check_no_jdk(races(), "data-race", "text");
    let text = String::from_utf8_lossy(&out.stdout);
    let first = text.lines().next().unwrap_or("");
    assert!(first.contains("Races.observed"), "first finding:\n{text}");
    insta::assert_snapshot!("races.text", text);
}

#[test]
fn races_json_and_sarif_snapshots() {
    let out = check_no_jdk(races(), "data-race", "json");
    json(&out);
    insta::assert_snapshot!("races.json", String::from_utf8_lossy(&out.stdout));
    let sarif = json(&check_no_jdk(races(), "data-race", "sarif"));
    let run = &sarif["runs"][0];
    let evidence: Vec<&Value> = run["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["properties"])
        .collect();
    insta::assert_snapshot!(
        "races.sarif",
        serde_json::to_string_pretty(&(evidence, &run["properties"])).unwrap()
    );
}

#[test]
fn a_lock_order_cycle_taken_without_hanging_is_observed() {
    let out = check(locks(), "deadlock", "json", 1);
    let report = json(&out);
    let findings = report["findings"].as_array().unwrap();
    let status = |method: &str| {
        findings
            .iter()
            .find(|f| f["message"].as_str().unwrap().contains(method))
            .map(|f| f["evidence"]["status"].clone())
            .unwrap_or_else(|| panic!("no deadlock {method}: {report:#}"))
    };
    assert_eq!(status("in Locks.ab"), "observed", "{report:#}");
    assert_eq!(status("in Locks.cd"), "not-reached", "{report:#}");
    let text =
        String::from_utf8_lossy(&check_no_jdk(locks(), "deadlock", "text").stdout).into_owned();
    insta::assert_snapshot!("locks.text", text);
}

#[test]
fn concise_output_labels_each_line() {
    let out = check(races(), "data-race", "concise", 1);
    let text = String::from_utf8_lossy(&out.stdout);
    let labels: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("[data-race]"))
        .map(|l| l.rsplit_once(" [").map_or("", |(_, label)| label))
        .collect();
    assert_eq!(
        labels,
        [
            "observed in a run]",
            "reached in a run (not observed)]",
            "not reached in a run]"
        ],
        "{text}"
    );
}

#[test]
fn a_corrupt_trace_is_an_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.trace");
    std::fs::write(&bad, b"not a trace at all").unwrap();
    let out = lockstep()
        .args(["check", "-q", "--no-jdk"])
        .arg(&races().fx.classes_dir)
        .arg("--evidence")
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.trace") && err.contains("not a lockstep trace"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn a_missing_trace_is_an_error_naming_the_file() {
    let out = lockstep()
        .args(["check", "-q", "--no-jdk"])
        .arg(&races().fx.classes_dir)
        .args(["--evidence", "no/such.trace"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no/such.trace"), "{err}");
}

#[test]
fn a_truncated_trace_gives_what_it_holds_with_a_note() {
    let whole = std::fs::read(&races().trace).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cut = dir.path().join("cut.trace");
    std::fs::write(&cut, &whole[..whole.len() * 2 / 3]).unwrap();
    let out = lockstep()
        .args([
            "check",
            "--no-jdk",
            "--no-progress",
            "--select",
            "data-race",
            "--format",
            "json",
        ])
        .arg(&races().fx.classes_dir)
        .arg("--evidence")
        .arg(&cut)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cut.trace") && err.contains("uses what it holds"),
        "{err}"
    );
    let report = json(&out);
    for f in report["findings"].as_array().unwrap() {
        assert!(f["evidence"]["status"].is_string(), "{f:#}");
    }
}

#[test]
fn without_traces_there_is_no_evidence() {
    let report = json(&{
        let mut cmd = lockstep();
        cmd.args([
            "check",
            "-q",
            "--no-jdk",
            "--select",
            "data-race",
            "--format",
            "json",
        ])
        .arg(&races().fx.classes_dir);
        cmd.output().unwrap()
    });
    assert!(report["summary"].get("evidence").is_none());
    for f in report["findings"].as_array().unwrap() {
        assert!(f.get("evidence").is_none(), "{f:#}");
    }
}

fn atomicity() -> &'static Recorded {
    static R: OnceLock<Recorded> = OnceLock::new();
    R.get_or_init(|| record("atomicity", "Account"))
}

/// The evidence status of the finding on method `class.method`.
fn status_of_method<'a>(report: &'a Value, class: &str, method: &str) -> &'a Value {
    let f = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["class"] == class && f["method"] == method)
        .unwrap_or_else(|| panic!("no finding on {class}.{method}: {report:#}"));
    &f["evidence"]["status"]
}

#[test]
fn non_atomic_methods_are_observed_reached_and_not_reached() {
    let out = check(atomicity(), "non-atomic-method", "json", 1);
    let report = json(&out);
    // Two threads interleave `withdraw`'s two critical sections: the
    // block-based checker sees it (in every run: each call has a
    // feasible non-serializable interleaving with the other thread's).
    assert_eq!(status_of_method(&report, "Account", "withdraw"), "observed");
    // `deposit` ran once, alone: a transaction with no violation.
    assert_eq!(status_of_method(&report, "Account", "deposit"), "reached");
    // `Unused` is another program; the run never started it.
    assert_eq!(status_of_method(&report, "Unused", "bump"), "not-reached");
    let summary = &report["summary"]["evidence"];
    assert_eq!(summary["unmatched"], 0, "{report:#}");
}

#[test]
fn run_evidence_for_marks_the_static_findings_with_the_run_in_one_command() {
    let fx = fixture("atomicity");
    let dir = tempfile::tempdir().unwrap();
    let report_path = dir.path().join("report.json");
    let out = lockstep()
        .args(["run", "--format", "json", "-o"])
        .arg(&report_path)
        .arg("--evidence-for")
        .arg(&fx.classes_dir)
        .args(["--", "java", "-Xverify:all", "-cp"])
        .arg(&fx.classes_dir)
        .arg("Account")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let report: Value = serde_json::from_str(
        &std::fs::read_to_string(&report_path).unwrap_or_else(|e| panic!("{e}: {stderr}")),
    )
    .unwrap();
    // The static findings of the classes (no run provenance), marked.
    assert!(report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .all(|f| f.get("provenance").is_none_or(Value::is_null)));
    assert_eq!(status_of_method(&report, "Account", "withdraw"), "observed");
    assert_eq!(status_of_method(&report, "Account", "deposit"), "reached");
    assert_eq!(status_of_method(&report, "Unused", "bump"), "not-reached");
    assert!(
        stderr.contains("static findings: evidence from 1 run"),
        "{stderr}"
    );
    assert_eq!(out.status.code(), Some(1), "{stderr}");
}
