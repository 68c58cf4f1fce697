//! `check --max-time` and `--max-memory`: a spent budget cuts every rule
//! and the report says so (never "No findings"); a budget that is not
//! reached changes nothing but the added `budget_cuts: []`; and `--stats`
//! times each rule. `--max-time 0` is spent before the first rule starts
//! on any machine, and so is `--max-memory 1` (1 MiB: the process holds
//! more before it reads its inputs), so these tests do not depend on
//! timing.

use serde_json::Value;

use crate::common::*;

const NOT_RUN: &str = "not run: the time budget was spent before it started";
const NOT_RUN_MEMORY: &str = "not run: memory had reached its budget before it started";

/// `lockstep check <example> --no-jdk <args>` (text unless `args` say otherwise).
fn example_run(args: &[&str]) -> Run {
    let mut all = vec![
        "check".into(),
        example_dir().into_os_string(),
        "--no-jdk".into(),
    ];
    all.extend(args.iter().map(std::ffi::OsString::from));
    lockstep(&all)
}

fn check_example(extra: &[&str]) -> (Run, Value) {
    let dir = example_dir();
    let mut args = vec![dir.into_os_string()];
    args.extend(["--no-jdk", "--select", "all"].map(Into::into));
    args.extend(extra.iter().map(Into::into));
    check_json(&args)
}

#[test]
fn a_spent_budget_cuts_every_rule_and_exits_2() {
    let (run, report) = check_example(&["--max-time", "0"]);
    run.expect_code(2);
    assert_eq!(findings(&report).len(), 0, "{report}");
    let cuts: Vec<(String, String, String)> = report["summary"]["budget_cuts"]
        .as_array()
        .unwrap_or_else(|| panic!("no budget_cuts: {report}"))
        .iter()
        .map(|c| {
            let s = |k: &str| c[k].as_str().unwrap_or_default().to_string();
            (s("rule"), s("phase"), s("what"))
        })
        .collect();
    // Every rule, in id order.
    let expected: Vec<(String, String, String)> = lockstep_detectors::RuleId::ALL
        .iter()
        .map(|r| (r.as_str().to_string(), "detectors".into(), NOT_RUN.into()))
        .collect();
    assert_eq!(cuts, expected);
}

#[test]
fn a_cut_check_never_reads_as_no_findings() {
    let run = example_run(&["--max-time", "0"]);
    run.expect_code(2);
    let summary = run.stdout.lines().last().unwrap_or_default();
    assert!(
        summary.starts_with("No findings before the time budget ran out in 4 classes"),
        "{}",
        run.stdout
    );
    // The default rules, each named with what was cut.
    for rule in ["blocking-under-lock", "reacquired-lock", "wait-notify"] {
        let cut = format!("{rule} (detectors: {NOT_RUN})");
        assert!(summary.contains(&cut), "no `{cut}` in: {summary}");
    }
    assert!(
        summary.contains("incomplete: the time budget (--max-time) cut"),
        "{summary}"
    );
}

#[test]
fn a_budget_not_reached_changes_nothing_but_the_empty_cut_list() {
    let (plain_run, plain) = check_example(&[]);
    let (run, mut budgeted) = check_example(&["--max-time", "3600"]);
    assert_eq!(run.code, plain_run.code, "{}", run.stderr);
    assert!(
        plain["summary"].get("budget_cuts").is_none(),
        "without --max-time there is no budget_cuts key: {plain}"
    );
    assert_eq!(budgeted["summary"]["budget_cuts"], serde_json::json!([]));
    if let Some(summary) = budgeted["summary"].as_object_mut() {
        summary.remove("budget_cuts");
    }
    assert_eq!(budgeted, plain);
    assert!(!findings(&plain).is_empty(), "the example has findings");
}

#[test]
fn a_bad_budget_is_a_usage_error() {
    for bad in ["-1", "soon", "NaN", "inf"] {
        // `=`: clap would take a separate `-1` for a flag.
        let run = example_run(&[&format!("--max-time={bad}")]);
        run.expect_code(2);
        assert!(run.stderr.contains("--max-time"), "{bad}: {}", run.stderr);
    }
}

#[test]
fn a_reached_memory_budget_cuts_every_rule_and_says_which_budget() {
    if !cfg!(target_os = "linux") {
        return; // memory is read from /proc
    }
    let (run, report) = check_example(&["--max-memory", "1"]);
    run.expect_code(2);
    assert_eq!(findings(&report).len(), 0, "{report}");
    let cuts = report["summary"]["budget_cuts"]
        .as_array()
        .unwrap_or_else(|| panic!("no budget_cuts: {report}"));
    for rule in lockstep_detectors::RuleId::ALL {
        let cut = serde_json::json!({
            "rule": rule.as_str(), "phase": "detectors", "what": NOT_RUN_MEMORY
        });
        assert!(cuts.contains(&cut), "no {cut} in {report}");
    }
    let text = example_run(&["--max-memory", "1"]);
    text.expect_code(2);
    let summary = text.stdout.lines().last().unwrap_or_default();
    assert!(
        summary.starts_with("No findings before the memory budget ran out in 4 classes")
            && summary.contains("incomplete: the memory budget (--max-memory) cut"),
        "{}",
        text.stdout
    );
    let both = example_run(&["--max-memory", "1", "--max-time", "3600"]);
    assert!(
        both.stdout
            .contains("incomplete: the time or memory budget (--max-time, --max-memory) cut"),
        "{}",
        both.stdout
    );
}

#[test]
fn a_memory_budget_not_reached_changes_nothing_but_the_empty_cut_list() {
    let (plain_run, plain) = check_example(&[]);
    // 1 TiB.
    let (run, mut budgeted) = check_example(&["--max-memory", "1048576"]);
    assert_eq!(run.code, plain_run.code, "{}", run.stderr);
    if cfg!(target_os = "linux") {
        assert_eq!(budgeted["summary"]["budget_cuts"], serde_json::json!([]));
    }
    if let Some(summary) = budgeted["summary"].as_object_mut() {
        summary.remove("budget_cuts");
    }
    assert_eq!(budgeted, plain);
}

#[test]
fn a_bad_memory_budget_is_a_usage_error() {
    for bad in ["0", "-5", "lots", "1.5", "99999999999999999999"] {
        let run = example_run(&[&format!("--max-memory={bad}")]);
        run.expect_code(2);
        assert!(run.stderr.contains("--max-memory"), "{bad}: {}", run.stderr);
    }
}

#[test]
fn stats_time_each_detector_under_the_detectors_phase() {
    let run = example_run(&["--stats", "--quiet"]);
    run.expect_code(1);
    let lines: Vec<&str> = run.stderr.lines().collect();
    let detectors = lines
        .iter()
        .position(|l| l.starts_with("  detectors "))
        .unwrap_or_else(|| panic!("no detectors phase:\n{}", run.stderr));
    // The default rules' detectors, in detector order, each with its time.
    let per_rule: Vec<&str> = lines[detectors + 1..]
        .iter()
        .take_while(|l| l.starts_with("    "))
        .copied()
        .collect();
    assert_eq!(per_rule.len(), 2, "{}", run.stderr);
    assert!(per_rule[0].trim_start().starts_with("reacquired-lock "));
    assert!(per_rule[1]
        .trim_start()
        .starts_with("blocking-under-lock, wait-notify "));
    for l in per_rule {
        assert!(l.ends_with(" ms"), "{l}");
    }
}
