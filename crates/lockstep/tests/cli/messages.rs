//! What a Java developer reads: one fixture per rule (from the detectors'
//! fixtures) checked in text, JSON and SARIF, each snapshotted with insta,
//! and every text asserted free of analysis internals (heap contexts,
//! "harness", slash-separated class names, bytecode locals, lattice
//! notation) and carrying a confidence.

use std::path::{Path, PathBuf};

use lockstep_testkit::{compile, read_java_dir, CompileOptions};

use crate::common::{lockstep, workspace_root};

/// One fixture per rule: (rule, fixture directory under the detectors'
/// `tests/fixtures`).
const CASES: &[(&str, &str)] = &[
    ("data-race", "data_race/bypassed_entry"),
    ("deadlock", "deadlock/nested_blocks"),
    ("reacquired-lock", "reacquired_lock/call_chain"),
    ("stale-value", "stale_value/one_warning"),
    ("non-atomic-method", "non_atomic_method/check_then_act"),
    ("wait-notify", "wait_notify/not_in_loop"),
    ("blocking-under-lock", "blocking_under_lock/calls"),
];

/// The fixture's classes, compiled by javac (cached by content).
fn classes(fixture: &str) -> PathBuf {
    let dir = workspace_root()
        .join("crates/lockstep_detectors/tests/fixtures")
        .join(fixture);
    let sources = read_java_dir(&dir).unwrap_or_else(|e| panic!("{fixture}: {e}"));
    compile(&sources, &CompileOptions::default())
        .unwrap_or_else(|e| panic!("{fixture}: {e}"))
        .classes_dir
}

/// `lockstep check DIR --select RULE --format FORMAT -q`, its stdout.
fn report(dir: &Path, rule: &str, format: &str) -> String {
    let run = lockstep([
        "check".as_ref(),
        dir.as_os_str(),
        "--select".as_ref(),
        rule.as_ref(),
        "--format".as_ref(),
        format.as_ref(),
        "-q".as_ref(),
        "--source-path".as_ref(),
        "/nonexistent".as_ref(),
    ]);
    assert_eq!(run.code, 1, "{rule}: a finding expected\n{}", run.stderr);
    // The class directory is a cache path that differs between machines.
    run.stdout.replace(&dir.display().to_string(), "[classes]")
}

/// Phrases that belong to the analysis, not to the program.
fn internals(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for phrase in [
        "heap context",
        "harness",
        "thisThread",
        "cmpd",
        "? mover",
        "@ ",
    ] {
        if text.contains(phrase) {
            found.push(phrase.to_owned());
        }
    }
    for word in text.split(|c: char| c.is_whitespace() || "`()[],;:".contains(c)) {
        // `org/h2/Foo`: a class name as the class file spells it (source
        // paths such as `pkg/Foo.java` end in a file extension).
        // (`read/write` is English: the last part must be a class name.)
        let parts: Vec<&str> = word.split('/').collect();
        let slashed = parts.len() > 1
            && !word.ends_with(".java")
            && !word.ends_with(".class")
            && parts.iter().all(|part| {
                !part.is_empty()
                    && part
                        .chars()
                        .all(|c| c.is_alphanumeric() || c == '$' || c == '_')
            })
            && parts
                .last()
                .is_some_and(|last| last.starts_with(|c: char| c.is_ascii_uppercase()));
        // `v29.database`: a bytecode local without a name.
        let local = word
            .strip_prefix('v')
            .and_then(|rest| rest.split('.').next())
            .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
        if slashed || local {
            found.push(word.to_owned());
        }
    }
    found
}

#[test]
fn every_rule_in_text_json_and_sarif() {
    for (rule, fixture) in CASES {
        let dir = classes(fixture);
        let text = report(&dir, rule, "text");
        assert_eq!(internals(&text), Vec::<String>::new(), "{rule}:\n{text}");
        assert!(text.contains("= confidence: "), "{rule}:\n{text}");
        let json = report(&dir, rule, "json");
        assert!(json.contains("\"confidence\": \""), "{rule}");
        let sarif = report(&dir, rule, "sarif");
        assert!(sarif.contains("\"rank\": "), "{rule}");
        insta::assert_snapshot!(format!("{rule}.text"), text);
        insta::assert_snapshot!(format!("{rule}.json"), json);
        insta::assert_snapshot!(format!("{rule}.sarif"), sarif);
    }
}

#[test]
fn internals_are_recognised() {
    let bad =
        "new org/h2/Foo @ Bar.x:3 [heap context y] v29.database thisThread(this) ? mover : cmpd";
    let found = internals(bad);
    assert!(found.contains(&"org/h2/Foo".to_owned()), "{found:?}");
    assert!(found.contains(&"v29.database".to_owned()), "{found:?}");
    assert!(found.contains(&"heap context".to_owned()), "{found:?}");
    assert!(found.contains(&"thisThread".to_owned()), "{found:?}");
    assert!(internals("Counter.java:12 in com/example/Counter.java, read/write").is_empty());
}
