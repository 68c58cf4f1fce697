//! `scripts/check-known-findings.py`, the regression check of the findings
//! the samples judged true (`docs/known-findings.md`), run on small
//! synthetic reports, so that it is tested without the Debian jars: a known
//! finding present, one missing, one on a program without a report, one
//! marked lost; a malformed report; and the committed list itself.

use std::path::PathBuf;
use std::process::{Command, Output};

fn workspace_root() -> PathBuf {
    lockstep_testkit::workspace_root().expect("the tests run inside the lockstep workspace")
}

const HEADER: &str = "program\trule\tclass\tmethod\tline\tfield\tlock\tverdict\tjudged\tstatus\n";

/// A `data-race` finding reported at `Counter.inc`, racing with `Counter.reset`.
const REPORT: &str = r#"{"version": 1, "findings": [
  {"rule": "data-race", "class": "com.example.Counter", "method": "inc", "line": 7,
   "field": "com.example.Counter.count", "lock": null, "message": "data race",
   "related": [{"class": "com.example.Counter", "method": "reset", "line": 12, "message": "races"}]},
  {"rule": "stale-value", "class": "com.example.Cache", "method": "get", "line": 30,
   "field": null, "lock": "this", "message": "stale", "related": []}
]}"#;

fn row(program: &str, rule: &str, method: &str, line: &str, field: &str, status: &str) -> String {
    let class = if rule == "data-race" {
        "com.example.Counter"
    } else {
        "com.example.Cache"
    };
    format!(
        "{program}\t{rule}\t{class}\t{method}\t{line}\t{field}\t\tharmful\tsample #1\t{status}\n"
    )
}

/// Runs the checker on `list` and a report directory holding `commons-pool.json`.
fn check(list: &str, report: Option<&str>) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let list_path = dir.path().join("known.tsv");
    std::fs::write(&list_path, format!("# synthetic\n{HEADER}{list}")).unwrap();
    let reports = dir.path().join("reports");
    std::fs::create_dir(&reports).unwrap();
    if let Some(report) = report {
        std::fs::write(reports.join("commons-pool.json"), report).unwrap();
    }
    Command::new("python3")
        .arg(workspace_root().join("scripts/check-known-findings.py"))
        .arg("--list")
        .arg(&list_path)
        .arg(&reports)
        .output()
        .expect("python3 runs (the checker needs the Python standard library only)")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_missing_known_finding_fails_the_check() {
    let field = "com.example.Counter.count";
    let list = [
        // Found through a related location: the pair's other access.
        row("commons-pool", "data-race", "reset", "", field, "kept"),
        // Missing: the field matches, no location is in `clear`.
        row("commons-pool", "data-race", "clear", "", field, "kept"),
        // Not checked: no report for h2.
        row("h2", "data-race", "inc", "", field, "kept"),
        // Lost and not reported: listed, not failed.
        row("commons-pool", "data-race", "gone", "", field, "lost"),
        // Found by line; the same method at another line would be missing.
        row("commons-pool", "stale-value", "get", "30", "", "kept"),
        row("commons-pool", "stale-value", "get", "31", "", "kept"),
    ]
    .concat();
    let out = check(&list, Some(REPORT));
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("data-race\t1\t1\t1\t1\n"), "{text}");
    assert!(text.contains("stale-value\t1\t1\t0\t0\n"), "{text}");
    assert!(text.contains("not checked (no report): h2\n"), "{text}");
    assert!(
        text.contains("MISSING data-race commons-pool: com.example.Counter.clear"),
        "{text}"
    );
    assert!(
        text.contains("MISSING stale-value commons-pool: com.example.Cache.get, line 31"),
        "{text}"
    );
    assert!(!text.contains("Counter.reset"), "{text}");
}

#[test]
fn every_known_finding_present_passes() {
    let list = [
        row(
            "commons-pool",
            "data-race",
            "inc",
            "",
            "com.example.Counter.count",
            "kept",
        ),
        row("commons-pool", "stale-value", "get", "30", "", "kept"),
        // A lost finding reported again passes, with a note to update the list.
        row("commons-pool", "data-race", "reset", "", "", "lost"),
    ]
    .concat();
    let out = check(&list, Some(REPORT));
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("data-race\t1\t0\t0\t1\n"), "{text}");
    assert!(
        text.contains("reported again (marked lost; update the list)"),
        "{text}"
    );
}

#[test]
fn a_malformed_report_or_list_is_an_error() {
    let list = row("commons-pool", "data-race", "inc", "", "", "kept");
    for report in ["{\"findings\": 3}", "not json"] {
        let out = check(&list, Some(report));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("commons-pool.json"), "{err}");
    }
    let unknown = row("no-such-program", "data-race", "inc", "", "", "kept");
    let out = check(&unknown, Some(REPORT));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no-such-program"));
}

/// The committed list is well formed and names only programs the script
/// can run; with no reports every row is "not checked", never found.
#[test]
fn the_committed_list_parses() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new("python3")
        .arg(workspace_root().join("scripts/check-known-findings.py"))
        .arg(dir.path())
        .output()
        .expect("python3 runs");
    let text = stdout(&out);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for rule in [
        "data-race",
        "non-atomic-method",
        "reacquired-lock",
        "stale-value",
        "deadlock",
    ] {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("{rule}\t")))
            .expect(rule);
        let cells: Vec<&str> = line.split('\t').collect();
        assert_eq!(&cells[1..3], ["0", "0"], "{line}");
        assert_ne!(cells[3], "0", "{line}");
    }
}
