//! Living with findings: `@SuppressLockstep` (the shipped source, compiled
//! in), SpotBugs' `@SuppressFBWarnings`, `[[suppress]]` patterns and the
//! other settings of `lockstep.toml`, and the baseline round trip.

use std::path::{Path, PathBuf};
use std::process::Command;

use lockstep_testkit::{compile, read_java_dir, CompileOptions, SourceFile};
use serde_json::Value;

use crate::common::*;

/// Every class has the same reacquired lock in `sum`; only the way it is
/// suppressed differs.
fn class(name: &str, annotation: &str) -> SourceFile {
    SourceFile::new(
        format!("t/s/{name}.java"),
        format!(
            "package t.s;\n\
             {annotation}\n\
             public class {name} {{\n\
                 public synchronized int sum(t.s.Cell c) {{ return c.get() + c.get(); }}\n\
                 public static void main(String[] a) {{\n\
                     Cell c = new Cell();\n\
                     new Thread(() -> c.set(2)).start();\n\
                     System.out.println(new {name}().sum(c));\n\
                 }}\n\
             }}\n"
        ),
    )
}

const CELL: &str = "package t.s;\n\
public class Cell {\n\
    private int v;\n\
    public synchronized int get() { return v; }\n\
    public synchronized void set(int n) { v = n; }\n\
}\n";

/// SpotBugs' annotation as its jar declares it (class retention).
const FB: &str = "package edu.umd.cs.findbugs.annotations;\n\
@java.lang.annotation.Retention(java.lang.annotation.RetentionPolicy.CLASS)\n\
public @interface SuppressFBWarnings { String[] value() default {}; String justification() default \"\"; }\n";

struct Project {
    tmp: tempfile::TempDir,
    classes: PathBuf,
}

fn project() -> Project {
    let mut sources = read_java_dir(&workspace_root().join("annotations/src/main/java")).unwrap();
    sources.extend([
        SourceFile::new("t/s/Cell.java", CELL),
        SourceFile::new("edu/umd/cs/findbugs/annotations/SuppressFBWarnings.java", FB),
        class("Plain", ""),
        class("Legacy", ""),
        class(
            "Annotated",
            "@lockstep.annotations.SuppressLockstep(value = \"reacquired-lock\", justification = \"known\")",
        ),
        class(
            "Spotted",
            "@edu.umd.cs.findbugs.annotations.SuppressFBWarnings(\"MT_CORRECTNESS\")",
        ),
        class(
            "OtherRule",
            "@lockstep.annotations.SuppressLockstep(\"data-race\")",
        ),
    ]);
    let fixture = compile(&sources, &CompileOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let tmp = tempfile::tempdir().unwrap();
    let classes = tmp.path().join("build/classes");
    copy_tree(&fixture.classes_dir, &classes);
    Project { tmp, classes }
}

/// Runs `lockstep check <args>` in `dir` (where lockstep.toml is looked for).
fn check_in(dir: &Path, args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_lockstep"))
        .arg("check")
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let run = Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    };
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    run
}

fn classes_of(list: &Value) -> Vec<&str> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|f| f["class"].as_str().unwrap())
        .collect()
}

const CONFIG: &str = r#"
inputs = ["build/classes"]
no-jdk = true

[rules]
select = ["reacquired-lock"]

[output]
format = "json"
source-root = "src/main/java"
help-uri-base = "https://example.org/rules/"

[[suppress]]
class = "t.s.Legacy"
reason = "rewritten next quarter"
"#;

#[test]
fn annotations_spotbugs_and_config_patterns_suppress() {
    let p = project();
    std::fs::write(p.tmp.path().join("lockstep.toml"), CONFIG).unwrap();
    // Run from a subdirectory: the file is found upward.
    let sub = p.tmp.path().join("build");
    let run = check_in(&sub, &["--quiet"]);
    run.expect_code(1);
    let report = run.json();
    assert_eq!(
        classes_of(&report["findings"]),
        ["t.s.OtherRule", "t.s.Plain"]
    );
    assert_eq!(
        classes_of(&report["suppressed"]),
        ["t.s.Annotated", "t.s.Legacy", "t.s.Spotted"]
    );
    assert_eq!(report["summary"]["suppressed"], 3);
    assert_eq!(report["summary"]["findings"], 2);
    let reasons: Vec<(&str, &str)> = report["suppressed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["suppression"]["kind"].as_str().unwrap(),
                s["suppression"]["reason"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        reasons,
        [
            (
                "annotation",
                "@SuppressLockstep(\"reacquired-lock\") on class t.s.Annotated"
            ),
            (
                "config",
                "lockstep.toml [[suppress]] #1: rewritten next quarter"
            ),
            (
                "annotation",
                "@SuppressFBWarnings(\"MT_CORRECTNESS\") on class t.s.Spotted"
            ),
        ]
    );
    // A flag overrides the file; text shows only the count.
    let run = check_in(&sub, &["--format", "text"]);
    run.expect_code(1);
    assert!(!run.stdout.contains("t.s.Annotated"), "{}", run.stdout);
    assert!(run.stdout.contains("t.s.Plain"));
    assert!(run.stdout.contains("; 3 suppressed"), "{}", run.stdout);
    // SARIF marks them.
    let run = check_in(&sub, &["--format", "sarif"]);
    let sarif: Value = serde_json::from_str(&run.stdout).unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    let kinds: Vec<&str> = results
        .iter()
        .filter_map(|r| r["suppressions"][0]["kind"].as_str())
        .collect();
    assert_eq!(kinds, ["inSource", "external", "inSource"]);
    let uri = &results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"];
    assert!(
        uri.as_str().unwrap().starts_with("src/main/java/t/s/"),
        "{uri}"
    );
    let rules = sarif["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap();
    let rule = rules.iter().find(|r| r["id"] == "reacquired-lock").unwrap();
    assert_eq!(
        rule["helpUri"],
        "https://example.org/rules/reacquired-lock.md"
    );
    assert!(rule["help"]["markdown"].as_str().unwrap().len() > 100);
}

#[test]
fn baseline_round_trip_reports_only_new_findings() {
    let p = project();
    let dir = p.tmp.path();
    let classes = p.classes.to_str().unwrap();
    let baseline = dir.join("baseline.json");
    let base_args = [
        classes,
        "--no-jdk",
        "--select",
        "reacquired-lock",
        "--format",
        "json",
        "-q",
    ];
    let mut write = base_args.to_vec();
    write.extend(["--write-baseline", baseline.to_str().unwrap()]);
    let run = check_in(dir, &write);
    run.expect_code(1);
    let first = run.json();
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(&baseline).unwrap()).unwrap();
    assert_eq!(written["lockstep_baseline"], 1);
    let listed: Vec<&str> = written["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["fingerprint"].as_str().unwrap())
        .collect();
    let mut fingerprints: Vec<&str> = first["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["fingerprint"].as_str().unwrap())
        .collect();
    fingerprints.sort();
    assert_eq!(listed, fingerprints);

    // Same code: nothing new, exit 0, all of them suppressed by the baseline.
    let mut read = base_args.to_vec();
    read.extend(["--baseline", baseline.to_str().unwrap()]);
    let run = check_in(dir, &read);
    run.expect_code(0);
    let again = run.json();
    assert_eq!(again["findings"], Value::Array(vec![]));
    assert!(
        again["suppressed"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["suppression"]["kind"] == "baseline")
            .count()
            == fingerprints.len()
    );

    // A baseline of Plain alone: Legacy is new.
    std::fs::remove_file(p.classes.join("t/s/Legacy.class")).unwrap();
    let mut write = base_args.to_vec();
    write.extend(["--write-baseline", baseline.to_str().unwrap()]);
    check_in(dir, &write).expect_code(1);
    let project_again = project();
    let classes = project_again.classes.to_str().unwrap();
    let mut read = base_args.to_vec();
    read[0] = classes;
    read.extend(["--baseline", baseline.to_str().unwrap()]);
    let run = check_in(dir, &read);
    run.expect_code(1);
    assert_eq!(classes_of(&run.json()["findings"]), ["t.s.Legacy"]);

    // A broken baseline is an error, not an empty baseline.
    std::fs::write(&baseline, "{\"findings\": []}").unwrap();
    let run = check_in(
        dir,
        &[
            classes,
            "--no-jdk",
            "-q",
            "--baseline",
            baseline.to_str().unwrap(),
        ],
    );
    run.expect_code(2);
    assert!(
        run.stderr.contains("not a lockstep baseline"),
        "{}",
        run.stderr
    );
}

#[test]
fn unknown_config_key_is_an_error_naming_it() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("lockstep.toml"),
        "inputs = [\"x\"]\nclaspath = [\"lib/*\"]\n",
    )
    .unwrap();
    let run = check_in(tmp.path(), &[]);
    run.expect_code(2);
    assert!(
        run.stderr.contains("unknown field `claspath`"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("lockstep.toml"), "{}", run.stderr);
    // Neither paths nor `inputs`: an error, not an empty analysis.
    std::fs::write(tmp.path().join("lockstep.toml"), "").unwrap();
    let run = check_in(tmp.path(), &[]);
    run.expect_code(2);
    assert!(run.stderr.contains("no inputs"), "{}", run.stderr);
}

/// `--explain FIELD` of the data-race rule on the example, without the JDK.
fn explain_field(dir: &str, field: &str) -> Run {
    lockstep([
        "check",
        dir,
        "--no-jdk",
        "--select",
        "data-race",
        "-q",
        "--explain",
        field,
    ])
}

#[test]
fn quiet_prints_only_the_report_and_explain_suggests_fields() {
    let example = example_dir();
    let dir = example.to_str().unwrap();
    let run = lockstep([
        "check",
        dir,
        "--no-jdk",
        "--select",
        "data-race",
        "--format",
        "json",
        "-q",
    ]);
    // Without the JDK the pickers' thread starts are not seen: `reserve`
    // is unreached by main and checked as a library, where only the
    // harness makes it concurrent; nothing says `reserved` is meant to be
    // shared (no access of it locks, `reserve` takes no lock), so since
    // issue 14 it is not reported (`--explain` says why, below).
    run.expect_code(0);
    assert_eq!(run.stderr, "", "-q prints nothing but the report");
    let report = run.json();
    let findings = report["findings"].as_array().unwrap();
    assert!(findings.is_empty(), "{}", run.stdout);
    let run = explain_field(dir, "com.example.inventory.Stock.reserved");
    assert!(
        run.stderr
            .contains("not reported: concurrent only through an assumed outside caller"),
        "{}",
        run.stderr
    );

    let explain = |field: &str| explain_field(dir, field);
    let run = explain("com.example.inventory.Stock.unit");
    assert!(
        run.stderr.contains(
            "the application has no field `com.example.inventory.Stock.unit`; did you mean `com.example.inventory.Stock.units`?"
        ),
        "{}",
        run.stderr
    );
    let run = explain("com.example.inventory.Stock.units");
    assert!(!run.stderr.contains("has no field"), "{}", run.stderr);
    // Without its package, when one field fits: explained as that field.
    let run = explain("Stock.reserved");
    assert!(
        run.stderr.contains(
            "note: --explain: `Stock.reserved` is `com.example.inventory.Stock.reserved`"
        ),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("not reported: concurrent only through an assumed outside caller"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("has no field"), "{}", run.stderr);
}
